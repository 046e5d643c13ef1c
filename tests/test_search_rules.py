"""The worst-case search: grid, refinement, starts, ties, release moves, witness digits (`verify.family.worstcase`).

Re-homed from the mutation rounds' files (`test_family_mutation_kills.py`, `test_family_mutation_kills2.py`, `test_family_mutation_kills3.py`, `test_family_mutation_kills4_search.py`, `test_family_mutation_kills7_decision.py`); each class or test keeps its name, so
docs/mutation.md and `benchmarks/mutation_score.py` still find it.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import scipy.optimize
from family_variants import _p, _w, lay_of, mp, variant

from verify.family import search_tuning as tune
from verify.family import worstcase as wc
from verify.family.presets import preset
from verify.family.structured import Layout, layouts
from verify.family.witness import BestSoFar
from verify.family.worstcase import family_worst_case
from verify.mechanism import SparseVector
from verify.noise import NoiseSpec
from verify.verdicts import MechanismVerdict, Tightness


def _expected_patterns(lay, monotone: bool, moves: bool) -> set[tuple[int, int]]:
    """The shift directions (σ_B, σ_A) of `_patterns`' docstring: B up and A down; monotone neighbours move one way
    ((+1, 0), (+1, +1), (0, -1)); a moving fresh release also tries the A query up; a letter that does not occur
    has no shift (the remaining distinct non-zero directions, or the default one)."""
    pats = {(1, 0), (1, 1), (0, -1)} if monotone else ({(1, -1), (1, 1)} if moves else {(1, -1)})
    if lay.n_b == 0:
        pats = {(0, a) for _, a in pats if a != 0} or {(0, -1)}
    if lay.n_a == 0:
        pats = {(b, 0) for b, _ in pats if b != 0} or {(1, 0)}
    return pats


def record_ratio(monkeypatch, value=None) -> list[tuple[float, float, float]]:
    """Record every point (u, v, r) the refinement's objective is evaluated at (scalar calls, `family_log_ratio_at`)."""
    seen: list[tuple[float, float, float]] = []
    real = wc.family_log_ratio_at

    def ratio(shape, lay, u, v, r, s_b, s_a):
        seen.append((float(u), float(v), float(r)))
        return float(value) if value is not None else real(shape, lay, u, v, r, s_b, s_a)

    monkeypatch.setattr(wc, "family_log_ratio_at", ratio)
    return seen


# --- the search ---------------------------------------------------------------------------------------------------------
class TestSearchKills:
    """The search's witnesses: neighbours within Δ, directions, short rationals, and the suprema it must reach."""

    @pytest.mark.parametrize("delta", [Fraction(2), Fraction(1, 2)])
    def test_witness_neighbour_moves_by_exactly_delta(self, delta):
        """Rule: the witness's neighbour differs from q(D) by ±Δ in the moved letters (B up, A down), whatever Δ is
        (the seed's Mechanism One at scales 3Δ/ε: its bound ε holds at every Δ)."""
        eps = Fraction(1, 10)
        s = variant(eps=eps, delta=delta, z=("laplace", 3 * delta / eps), x=("laplace", 3 * delta / eps))
        r = family_worst_case(s, max_queries=2, tightness_study=False, rows=True)
        assert {"A", "BA", "BB"} <= set(r.rows)
        for w in [r.witness, *r.rows.values()]:
            moves = [b - a for a, b in zip(w.queries, w.neighbour)]
            assert all(abs(m) == delta for m in moves), moves
            assert all((m > 0) == (ch == "B") for m, ch in zip(moves, w.outcome)), (moves, w.outcome)
        assert r.verdict is MechanismVerdict.PRIVATE and r.loss <= mp(eps)

    def test_monotone_search_moves_every_query_one_way_by_at_most_delta(self):
        """Rule (monotone neighbours, Lyu §4): every witness pair moves all queries in one direction, by at most Δ,
        and its loss stays below the monotone bound Δ/b_Z + cΔ/b_X."""
        s = variant(eps=Fraction(1, 10), z=("laplace", 20), x=("laplace", 40), cutoff=2)
        r = family_worst_case(s, max_queries=3, monotone=True, tightness_study=False, rows=True)
        for w in [r.witness, *r.rows.values()]:
            moves = [b - a for a, b in zip(w.queries, w.neighbour)]
            assert all(abs(m) <= 1 for m in moves) and (all(m >= 0 for m in moves) or all(m <= 0 for m in moves)), moves
        assert r.loss <= mp(Fraction(1, 20) + Fraction(2, 40))

    def test_witness_queries_are_short_rationals(self):
        """Rule: the confirmed witness is rounded to short rationals: multiples of (scale as p/q)/1000 from t."""
        s = variant(eps=Fraction(1, 3), t=Fraction(1, 7), z=("laplace", 7), x=("laplace", Fraction(13, 2)))
        r = family_worst_case(s, max_queries=2, tightness_study=False)
        step = Fraction(7) / 1000
        for q in r.witness.queries:
            assert ((q - s.threshold) / step).denominator == 1, q

    def test_no_threshold_noise_infinite_loss_is_found(self):
        """Rule: without threshold noise and with Laplace queries the loss is unbounded (exactly 0 probability is not
        reached, so the growth proof decides); the search must still return a loss above ε."""
        s = variant(z=("none", 1), x=("laplace", 30))
        r = family_worst_case(s, max_queries=3, tightness_study=False)
        assert r.verdict is MechanismVerdict.NOT_PRIVATE and r.unbounded

    def test_mechanism_two_attains_its_bound(self):
        """Rule: the seed's Mechanism Two (Exp(3Δ/ε) on both) attains ε at moderate queries: the search and the
        tightness study find loss = ε to 45 digits."""
        s = variant(z=("exponential", 30), x=("exponential", 30))
        r = family_worst_case(s, max_queries=2)
        assert r.verdict is MechanismVerdict.PRIVATE and r.tightness is Tightness.ATTAINED
        with mpmath.workdps(60):
            assert abs(r.loss - mp(Fraction(1, 10))) <= mpmath.mpf(10) ** -45

    def test_fresh_exponential_release_blind_spot_is_unbounded(self):
        """Rule: NumericalSVT with an exponential fresh release has infinite loss (the release density's support ends):
        the search moves the released value and the above query and reports not_private, unbounded."""
        s = SparseVector(Fraction(1, 10), Fraction(1), Fraction(1), NoiseSpec("laplace", multiplier=Fraction(3)),
                         NoiseSpec("laplace", multiplier=Fraction(6)), cutoff=1, release="fresh",
                         release_spec=NoiseSpec("exponential", multiplier=Fraction(3)))
        r = family_worst_case(s, max_queries=2, tightness_study=False)
        assert r.verdict is MechanismVerdict.NOT_PRIVATE and r.unbounded and mpmath.isinf(r.loss)


class TestSearchKills2:
    """The search's first phase: the documented grid, its shifts, and the released value's placement."""

    @pytest.mark.parametrize("release,y", [("none", None), ("gap", None), ("query", None), ("fresh", ("laplace", 20))])
    def test_grid_is_the_documented_product_and_its_shifts(self, monkeypatch, release, y):
        """Rule (phase 1, `_grid_layout`): u (if the layout has B's) and v (if it has A's) run over ±GRID_STEPS·scale
        (11 values each; scale = the larger noise scale or Δ), r over GAP_STEPS·scale for a gap release with A's,
        over v + RELEASE_OFFSETS·Δ when a fresh release's value moves, else r = v for a value released at its query
        and r = 0 without release; D's side is evaluated once, D′'s once per shift pattern (σ_B, σ_A), at
        u + σ_BΔ, v + σ_AΔ.  Checked by recording every evaluation, for every layout up to k = 2, Δ = 2."""
        from verify.family import worstcase as wc
        from verify.family.structured import layouts

        d = Fraction(2)
        s = variant(delta=d, z=("laplace", 3), x=("laplace", 5), cutoff=2, release=release, y=y)
        scale = 5.0  # max(3, 5, Δ = 2)
        calls = []
        real = wc.family_log_probability

        def spy(shape, lay, u, v, r):
            calls.append((np.array(u, float), np.array(v, float), np.array(r, float)))
            return real(shape, lay, u, v, r)

        monkeypatch.setattr(wc, "family_log_probability", spy)
        steps = sorted({m * g * scale for g in (0.0, 1.0, 2.0, 4.0, 8.0, 16.0) for m in (-1, 1)})
        assert len(steps) == 11
        for lay in layouts(s, 2, every_k=True):
            for monotone in (False, True):
                for moves in ((False, True) if release == "fresh" else (False,)):
                    calls.clear()
                    pts = wc._grid_layout(s, lay, monotone, scale, moves=moves)
                    pats = _expected_patterns(lay, monotone, moves)
                    assert len(calls) == 1 + len(pats) and len(pts) == len(pats)
                    u, v, r = calls[0]
                    n_u = 11 if lay.n_b else 1
                    n_v = 11 if lay.n_a else 1
                    if release == "gap" and lay.n_a:
                        r_set = {g * scale for g in (0.0, 0.25, 0.5, 1.0, 2.0, 4.0)}
                    elif moves and lay.n_a:
                        r_set = {o * float(d) for o in (-1.0, 0.0, 1.0)}
                    else:
                        r_set = {0.0}
                    assert u.size == n_u * n_v * len(r_set), (release, lay, monotone, moves, u.size)
                    assert set(u) == (set(steps) if lay.n_b else {0.0})
                    assert set(v) == (set(steps) if lay.n_a else {0.0})
                    held = r - v if release in ("query", "fresh") else r
                    assert set(np.round(held, 12)) == r_set, (release, lay, moves, set(held))
                    got = set()
                    for (u2, v2, r2), p in zip(calls[1:], pts):
                        sb, sa = (u2 - u)[0] / float(d), (v2 - v)[0] / float(d)
                        assert np.all(u2 - u == sb * float(d)) and np.all(v2 - v == sa * float(d)) and np.all(r2 == r)
                        assert (p.s_b, p.s_a) == (sb * float(d), sa * float(d))
                        got.add((round(sb), round(sa)))
                    assert got == pats, (lay, monotone, moves, got)


class TestGapRefinementKills:
    """The refinement's free coordinate of a gap release."""

    def test_one_query_gap_row_is_refined_to_the_corner_of_the_clip_box(self):
        """Rule (`_refine`: a gap release's gap γ is a free coordinate of the refinement).  One query q, output A with gap
        γ, Laplace Z and X of equal scale b: the density is that of X - Z at c = γ + t - q, g(c) = (b + |c|)e^{-|c|/b}/(4b²),
        and the neighbour q - Δ gives loss log(g(c)/g(c + Δ)) = Δ/b - log((b + c + Δ)/(b + c)) for c >= 0, increasing in c.
        So the refined row sits where c is largest inside the clip box (|q - t|, γ <= REFINE_BOX·scale): q = t - box,
        γ = box, and its confirmed loss is that closed form at c = 2·box (b = 30, Δ = 1, t = 0)."""

        s = variant(release="gap")
        r = family_worst_case(s, max_queries=1, tightness_study=False, rows=True)
        w = r.rows["A"]
        from verify.family import search_tuning

        box = Fraction(30) * Fraction(search_tuning.REFINE_BOX)
        assert w.queries == (-box,) and w.released == (box,), (w.queries, w.released)
        with mpmath.workdps(40):
            b, c = mpmath.mpf(30), 2 * mpmath.mpf(box.numerator) / box.denominator
            want = 1 / b - mpmath.log((b + c + 1) / (b + c))
            assert abs(w.loss - want) < mpmath.mpf(10) ** -30, (w.loss, want)


class TestSearchKills3:
    """The refinement's placement of a released value and the confirmation precision of the search's witness."""

    def test_query_release_rows_release_their_above_query(self):
        """Rule (`Placement.AT_QUERY` without moves: the offset of the released value from its A query is held at 0 in
        the grid and in the refinement): with the query release, every row's released values equal its A queries."""
        s = variant(release="query", z=("laplace", 20), x=("laplace", 40), cutoff=2)
        r = family_worst_case(s, max_queries=2, tightness_study=False, rows=True)
        assert any("A" in out for out in r.rows)
        for out, w in r.rows.items():
            assert w.released == tuple(q for q, ch in zip(w.queries, w.outcome) if ch == "A"), (out, w.queries, w.released)

    @pytest.mark.parametrize("z,x,k", [(("laplace", 30), ("laplace", 30), 2), (("gaussian", 3000), ("gaussian", 3000), 1)])
    def test_search_witness_is_confirmed_at_fifty_digits_unless_gaussian_quadrature(self, z, x, k):
        """Rule (`_witness`): the search's witness is confirmed at 50 digits, except a Gaussian witness of more than one
        query (quadrature, 20 digits): a two-query Laplace witness and a one-query Gaussian witness (exact erfc form)
        are both at 50.  The losses stay below ε (σ = 3000: the search's loss at one query is about 0.013), so no
        re-confirmation at 50 digits hides the first confirmation's precision."""
        r = family_worst_case(variant(z=z, x=x), max_queries=k, tightness_study=False)
        assert r.loss < mpmath.mpf(1) / 10
        assert len(r.witness.queries) == k and r.witness.digits == 50


class TestReleaseMovesKills3:
    """The fresh release's moved points: when a gain counts."""

    def test_a_moved_point_counts_above_a_relative_gain_of_1e_minus_9_of_max_one_old(self, monkeypatch):
        """Rule (`_release_moves`, its docstring): a moved point replaces its layout's best only where it beats it by
        more than MOVE_RTOL·max(1, |old|) (float64 noise; MOVE_RTOL = 1e-9).  With old = 1/2 the margin is 1e-9 (the
        max picks 1): a gain of 1.5e-9 counts, a gain of 0.5e-9 does not; with old = 4 the margin is 4e-9: a gain of
        3e-9 does not count, 5e-9 does, and the same at old = -4 (|old|).  The candidates are injected (the grid and the refinement replaced), so only
        the rule is exercised."""
        from verify.family import search_tuning as tune
        from verify.family import worstcase as wc
        from verify.family.structured import layouts

        assert tune.MOVE_RTOL == 1e-9
        s = variant(release="fresh", y=("laplace", 30))
        lay = next(lay for lay in layouts(s, 1) if lay.n_a)
        cases = ((0.5, 1.5e-9, True), (0.5, 0.5e-9, False), (4.0, 3e-9, False), (4.0, 5e-9, True), (-4.0, 3e-9, False),
                 (-4.0, 5e-9, True))
        for old, gain, counted in cases:  # one candidate at a time (the candidates are taken best first)
            cand = wc._Point(old + gain, lay, 0.0, 0.0, 1.0, 0.0, -1.0)
            monkeypatch.setattr(wc, "_grid_layout", lambda *a, cand=cand, **k: [cand])
            first = wc._Point(old, lay, 0.0, 0.0, 0.0, 0.0, -1.0)
            best_of, by_k = {lay: first}, {lay.k: old}
            out = wc._release_moves(s, False, 30.0, 0, [lay], by_k, best_of, [])
            assert out == ([cand] if counted else []), (old, gain)
            assert best_of[lay] is (cand if counted else first) and by_k[lay.k] == best_of[lay].value


class TestRefinementKills4:
    """The refinement (phase 2): its start, its coordinates, its options, its strictness, an infinite loss."""

    def test_nelder_mead_starts_at_the_grid_point_and_varies_only_the_documented_coordinates(self, monkeypatch):
        """Rule (`_refine`): the first evaluation is the grid point itself; the coordinates are u (B's), v (A's) and,
        for a layout with A's, a gap release's gap or (with moves) a fresh release's offset r - v; a value released at
        its A query otherwise keeps its offset (query release: r = v at every evaluation); a layout without A's has no
        released value (r stays); a letter the layout lacks sits at t (its coordinate 0).  Checked by recording every
        evaluation, starts with v != 0 and offset Δ."""
        cases = (  # (variant, has B, has A, moves, start (u, v, r), r free?)
            (variant(release="query"), True, True, False, (-30.0, 60.0, 60.0), False),
            (variant(release="fresh", y=("laplace", 20)), True, True, True, (-30.0, 60.0, 61.0), True),
            (variant(release="fresh", y=("laplace", 20)), True, True, False, (-30.0, 60.0, 61.0), False),
            (variant(release="gap"), True, False, False, (-30.0, 0.0, 0.0), False),
            (variant(release="gap"), True, True, False, (-30.0, 60.0, 30.0), True),
            (variant(), True, True, False, (-30.0, 60.0, 0.0), False),
            (variant(), False, True, False, (0.0, 60.0, 0.0), False),
        )
        for s, has_b, has_a, moves, (u, v, r), free in cases:
            lay = lay_of(s, has_b, has_a)
            p = wc._Point(0.01, lay, u, v, r, 1.0, -1.0)
            seen = record_ratio(monkeypatch)
            wc._refine(s, p, 30.0, moves=True) if moves else wc._refine(s, p, 30.0)  # moves off by default
            assert seen[0] == (u, v, r), (s.release, lay, moves, seen[0])
            assert all(a == 0 for a, _, _ in seen) is not has_b and all(b == 0 for _, b, _ in seen) is not has_a
            offsets = {b - a for _, a, b in seen} if s.release_rule.placement.name == "AT_QUERY" else {b for *_, b in seen}
            assert (len(offsets) > 1) is free, (s.release, lay, moves, sorted(offsets)[:5])
            if not free:
                assert offsets == {r - v if s.release_rule.placement.name == "AT_QUERY" else r}, (s.release, lay, moves)

    def test_options_are_the_documented_tolerances_and_budget_per_coordinate(self, monkeypatch):
        """Rule (`_refine`, `search_tuning`): Nelder-Mead stops at REFINE_XATOL noise scales (xatol = 1e-4·scale) and
        REFINE_FATOL on the loss, after at most ``budget`` iterations per coordinate (1, 2 or 3 coordinates; the
        default budget REFINE_BUDGET = 80, a row's ROW_BUDGET = 30); scale 30."""
        got = []

        real = scipy.optimize.minimize

        def minimize(fun, x0, method, options):
            got.append((len(x0), method, dict(options)))
            return real(fun, x0, method=method, options=options)

        monkeypatch.setattr(scipy.optimize, "minimize", minimize)  # the refinement imports it when it runs
        s_none, s_gap = variant(), variant(release="gap")
        for s, lay, n, budget in ((s_none, lay_of(s_none, False, True, 1), 1, None), (s_none, lay_of(s_none, True, True), 2, 30),
                                  (s_gap, lay_of(s_gap, True, True), 3, None)):
            got.clear()
            p = wc._Point(0.01, lay, -30.0 if lay.n_b else 0.0, 30.0, 30.0 if s is s_gap else 0.0, 1.0, -1.0)
            wc._refine(s, p, 30.0) if budget is None else wc._refine(s, p, 30.0, budget=budget)
            want_budget = tune.REFINE_BUDGET if budget is None else budget
            assert got == [(n, "Nelder-Mead", {"xatol": 1e-4 * 30.0, "fatol": 1e-13, "maxiter": want_budget * n})], got
        assert (tune.REFINE_BUDGET, tune.ROW_BUDGET, tune.REFINE_XATOL, tune.REFINE_FATOL) == (80, 30, 1e-4, 1e-13)

    def test_refinement_returns_its_start_unless_strictly_better(self, monkeypatch):
        """Rule (`_refine`): the start itself (the same object: the per-k rows rely on it) unless a strictly larger
        value is found.  A flat objective (every point 1/4, the start's value) gives nothing strictly better."""
        s = variant()
        p = wc._Point(0.25, lay_of(s, True, True), -30.0, 60.0, 0.0, 1.0, -1.0)
        record_ratio(monkeypatch, value=0.25)
        assert wc._refine(s, p, 30.0) is p
        record_ratio(monkeypatch, value=0.5)  # and a larger constant value is taken
        q = wc._refine(s, p, 30.0)
        assert q is not p and q.value == 0.5

    def test_an_infinite_float64_loss_found_by_the_refinement_is_reported_as_inf(self):
        """Rule (`_refine`: an infinite loss is returned as inf; `FamilyWorstCase.to_json`: per-k values are the float64
        search values, "inf" when infinite).  No threshold noise, Exp(30) query noise, one query, output B, neighbour
        q + Δ: Pr[D] = Pr[X < t - q] > 0 and Pr[D'] = Pr[X < t - q - Δ] = 0 for q in [t - Δ, t), an infinite loss.  The
        grid (q - t in {0, ±30·2^j}) has no such point, so it is the refinement that reaches it: loss_by_k[1] is inf, in
        the JSON "inf", and the search's best pair after the refinement has loss inf."""
        s = variant(z=("none", 1), x=("exponential", 30))
        lay = lay_of(s, True, False, 1)
        grid = wc._grid_layout(s, lay, False, 30.0)
        assert all(math.isfinite(p.value) for p in grid)
        best: list[BestSoFar] = []
        r = wc.family_worst_case(s, max_queries=1, tightness_study=False, on_best=best.append)
        assert r.loss_by_k[1] == math.inf and r.to_json()["loss_by_k_float64_search"]["1"] == "inf"
        assert any(b.stage == "refined" and b.loss == math.inf for b in best), [(b.stage, b.loss) for b in best]
        q, qn = r.witness.queries[0], r.witness.neighbour[0]
        assert r.witness.outcome == "B" and -1 <= q < 0 and qn == q + 1 and r.witness.neighbour_probability == 0
        assert mpmath.isinf(r.loss) and r.unbounded


class TestGridKills4:
    """The first phase's defaults, an undefined value, and the released value's offsets."""

    def test_patterns_and_grid_default_to_no_moves(self, monkeypatch):
        """Rule (`_patterns`, `_grid_layout`: ``moves`` is off unless asked): without moves a fresh release's grid
        has one non-monotone pattern (σ_B, σ_A) = (+1, -1) and the released value at its A query (offset 0)."""
        s = variant(release="fresh", y=("laplace", 20))
        lay = lay_of(s, True, True)
        assert wc._patterns(s, lay, False) == [(1, -1)]
        seen = []
        real = wc.family_log_probability
        monkeypatch.setattr(wc, "family_log_probability", lambda shape, la, u, v, r: seen.append((u, v, r)) or real(shape, la, u, v, r))
        pts = wc._grid_layout(s, lay, False, 30.0)
        assert len(pts) == 1 and (pts[0].s_b, pts[0].s_a) == (1.0, -1.0) and len(seen) == 2
        u, v, r = seen[0]
        assert np.array_equal(r, v)

    def test_release_offsets_are_added_to_the_above_query(self, monkeypatch):
        """Rule (`_grid_layout`, RELEASE_OFFSETS: "offsets of a fresh released value from its above query"): with moves,
        r = v + o·Δ for o in RELEASE_OFFSETS, for any tuning of the offsets: with (0, 1) and Δ = 2, r - v is {0, 2}."""
        monkeypatch.setattr(tune, "RELEASE_OFFSETS", (0.0, 1.0))
        s = variant(delta=Fraction(2), release="fresh", y=("laplace", 20))
        seen = []
        real = wc.family_log_probability
        monkeypatch.setattr(wc, "family_log_probability", lambda shape, la, u, v, r: seen.append((u, v, r)) or real(shape, la, u, v, r))
        wc._grid_layout(s, lay_of(s, True, True), False, 30.0, moves=True)
        u, v, r = seen[0]
        assert set(np.round(r - v, 12).tolist()) == {0.0, 2.0}

    def test_an_undefined_grid_value_is_never_the_best(self, monkeypatch):
        """Rule (`_grid_layout`): a grid value the float64 evaluator leaves undefined (NaN) counts as -inf, never as a
        loss: with NaN injected at one point of D's side, each pattern's best point is the best of the others."""
        s = variant()
        lay = lay_of(s, True, True)
        clean = wc._grid_layout(s, lay, False, 30.0)
        real = wc.family_log_probability
        calls = []

        def poisoned(shape, la, u, v, r):
            out = np.array(real(shape, la, u, v, r), dtype=float)
            calls.append(len(calls))
            if len(calls) == 1:
                out[0] = np.nan  # (u, v) = (-480, -480): not the best point of any pattern
            return out

        monkeypatch.setattr(wc, "family_log_probability", poisoned)
        got = wc._grid_layout(s, lay, False, 30.0)
        assert all(math.isfinite(p.value) for p in got)
        assert [(p.value, p.u, p.v) for p in got] == [(p.value, p.u, p.v) for p in clean]


class TestReleaseMovesKills4:
    """The fresh release's second phase: which moved points are refined, how, and the margin's edge."""

    def test_the_best_moved_points_are_refined_with_a_free_offset(self, monkeypatch):
        """Rule (module docstring: Nelder-Mead from the best grid points; `_release_moves`: the released value moves
        off its A query): of the moved grid's points, the ``starts`` largest are refined, with ``moves`` (the offset
        free).  Candidates with values 1, 3, 2 are injected; with starts = 1 only the 3 is refined."""
        s = variant(release="fresh", y=("laplace", 20))
        lay = lay_of(s, True, True)
        cands = [wc._Point(x, lay, 0.0, 0.0, 0.0, 1.0, -1.0) for x in (1.0, 3.0, 2.0)]
        monkeypatch.setattr(wc, "_grid_layout", lambda *a, **k: list(cands))
        refined = []
        monkeypatch.setattr(wc, "_refine", lambda shape, p, scale, moves=False, budget=80: refined.append((p, moves)) or p)
        first = wc._Point(0.5, lay, 0.0, 0.0, 0.0, 1.0, -1.0)
        wc._release_moves(s, False, 30.0, 1, [lay], {lay.k: 0.5}, {lay: first}, [])
        assert refined == [(cands[1], True)]

    @pytest.mark.parametrize("old", [0.5, 4.0, -4.0])
    def test_a_gain_of_exactly_the_margin_does_not_count(self, monkeypatch, old):
        """Rule (`_release_moves`: a moved point counts where it beats its layout's best by *more than*
        MOVE_RTOL·max(1, |old|)): a candidate at exactly old + that margin (the same float64 sum) does not count."""
        s = variant(release="fresh", y=("laplace", 20))
        lay = lay_of(s, True, True)
        cand = wc._Point(old + tune.MOVE_RTOL * max(1.0, abs(old)), lay, 0.0, 0.0, 1.0, 0.0, -1.0)
        monkeypatch.setattr(wc, "_grid_layout", lambda *a, **k: [cand])
        first = wc._Point(old, lay, 0.0, 0.0, 0.0, 0.0, -1.0)
        best_of = {lay: first}
        assert wc._release_moves(s, False, 30.0, 0, [lay], {lay.k: old}, best_of, []) == [] and best_of[lay] is first


class TestWitnessDigitsKills4:
    """The precision a search point is confirmed at."""

    @pytest.mark.parametrize("z,x,k,want", [("laplace", "gaussian", 2, 20), ("gaussian", "laplace", 2, 20), ("gaussian", "gaussian", 2, 20),
                                            ("gaussian", "gaussian", 1, 50), ("laplace", "laplace", 2, 50), ("exponential", "laplace", 2, 50)])
    def test_fifty_digits_unless_gaussian_quadrature(self, monkeypatch, z, x, k, want):
        """Rule (`GAUSSIAN_DIGITS`, `family_worst_case`'s ``digits``): a point is confirmed at 50 digits, at 20 when a
        noise is Gaussian (either one) and the output has more than one query (quadrature; one query has the exact
        erfc form); given digits are used as given.  The confirmation is recorded, not run."""
        s = variant(z=(z, 30), x=(x, 30), policy="resample")
        lay = next(la for la in layouts(s, 2, every_k=True) if la.k == k)
        digits = []
        monkeypatch.setattr(wc, "confirm", lambda shape, q, qn, out, rel, d: digits.append(d))
        p = wc._Point(0.1, lay, 0.0, 0.0, 0.0, 1.0, -1.0)
        wc._witness(s, p, Fraction(30))
        wc._witness(s, p, Fraction(30), 33)
        assert digits == [want, 33]


class TestSearchStartsKills7:
    """The refinement starts from the best grid points (`cands` sorted by decreasing value), so the reported witness
    is at least as large as every float64 value the search recorded per k (`loss_by_k`), up to float64 noise."""

    def test_witness_is_at_least_every_recorded_search_value(self):
        # Lyu et al. 2017, Algorithm 3 at ε = 1/2: the search has one candidate per layout; with 6 queries there are
        # more layouts than `starts` (4), so starting from the worst ones loses the best layout (6 queries).
        res = wc.family_worst_case(preset("lyu-3", epsilon=Fraction(1, 2)), max_queries=6, tightness_study=False)
        top = max(res.loss_by_k.values())
        assert math.isfinite(top)
        assert float(res.witness.loss) >= top * (1 - 1e-9)
        assert len(res.witness.queries) == 6  # the loss of Algorithm 3 grows with the number of belows

    def test_loss_by_k_is_the_largest_value_of_each_k(self):
        """`loss_by_k[k]` is a max over the points of k queries, starting from nothing (-inf), not from +inf."""
        lay1, lay2 = Layout(0, 1), Layout(1, 1)
        by_k: dict[int, float] = {}
        wc._best_per_layout([_p(0.25, lay1), _p(0.5, lay2), _p(0.125, lay1)], by_k)
        assert by_k == {1: 0.25, 2: 0.5}


class TestTieRulesKills7:
    """The documented tie rules of the witness's choice (`_best_per_layout`, `_largest_confirmed`)."""

    def test_best_per_layout_keeps_the_first_of_equal_values(self):
        lay = Layout(1, 1)
        best = wc._best_per_layout([_p(0.5, lay, 1.0), _p(0.5, lay, 2.0), _p(0.25, lay, 3.0)], {})
        assert best[lay].u == 1.0
        best = wc._best_per_layout([_p(0.25, lay, 1.0), _p(0.5, lay, 2.0)], {})
        assert best[lay].u == 2.0  # a strictly larger later value replaces

    def test_the_search_witness_is_kept_unless_a_row_is_strictly_larger(self):
        lay = Layout(0, 1)
        search = (_p(0.5, lay, 0.0), _w(Fraction(1, 2)))
        equal, larger = (_p(0.5, lay, 1.0), _w(Fraction(1, 2))), (_p(0.5, lay, 2.0), _w(Fraction(1, 2) + Fraction(1, 10**40)))
        assert wc._largest_confirmed(search, []) is search
        assert wc._largest_confirmed(search, [equal]) is search
        assert wc._largest_confirmed(search, [equal, larger]) is larger

    def test_among_equal_rows_the_fewest_queries_then_the_first(self):
        lay = Layout(0, 1)
        search = (_p(0.0, lay), _w(0))
        long_, short, short2 = ((_p(0.5, lay, float(i)), _w(Fraction(1, 2), k)) for i, k in ((1, 3), (2, 2), (3, 2)))
        assert wc._largest_confirmed(search, [long_, short, short2]) is short
        assert wc._largest_confirmed(search, [short2, long_, short]) is short2
