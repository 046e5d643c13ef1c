"""Tests written for the survivors of the full enumeration of family-search, family-tightness and family-witness
(fourth round).

Each test states the rule it guards (the docstrings of `verify.family.worstcase`, `verify.family.search_tuning` and
`verify.family.witness`); expected values are derived here, never by calling the function under test for the answer.
Where a rule is a decision edge that no real variant reaches at 65 digits (|bound - loss| exactly 10^-45, bound - loss
exactly 10^-6·bound, a float64 loss exactly CLOSE_RTOL·bound away), the inputs are crafted: a stated bound and a
witness with a stated loss (`FixedLoss`), as `tests/test_verdict_words.py` stubs the confirmation.
"""

from __future__ import annotations

import math
import types
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
import pytest
from scipy import optimize
from test_family_mutation_kills2 import variant

from verify.family import search_tuning as tune
from verify.family import worstcase as wc
from verify.family.bounds import ProvenBound, proven_upper_bound
from verify.family.structured import layouts
from verify.family.witness import BestSoFar, FamilyWitness, confirm
from verify.verdicts import MechanismVerdict, Tightness


@dataclass(frozen=True)
class FixedLoss(FamilyWitness):
    """A witness whose loss is the given mpf, or ``fixed()`` computed at the caller's working precision (a crafted
    input for a decision edge that holds at any precision)."""

    fixed: Any = None

    @property
    def loss(self) -> mpmath.mpf:
        return self.fixed() if callable(self.fixed) else self.fixed


def fixed(queries, loss, outcome="A") -> FixedLoss:
    q = tuple(Fraction(x) for x in queries)
    return FixedLoss(q, q, outcome, (), mpmath.mpf(1), mpmath.mpf(1), 50, loss)


def lay_of(s, has_b: bool, has_a: bool, k: int = 2):
    return next(lay for lay in layouts(s, k, every_k=True) if bool(lay.n_b) == has_b and bool(lay.n_a) == has_a)


def record_ratio(monkeypatch, value=None) -> list[tuple[float, float, float]]:
    """Record every point (u, v, r) the refinement's objective is evaluated at (scalar calls)."""
    seen: list[tuple[float, float, float]] = []
    real = wc.family_log_ratio

    def ratio(shape, lay, u, v, r, s_b, s_a):
        seen.append((float(u), float(v), float(r)))
        return np.array([value]) if value is not None else real(shape, lay, u, v, r, s_b, s_a)

    monkeypatch.setattr(wc, "family_log_ratio", ratio)
    return seen


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

        def minimize(fun, x0, method, options):
            got.append((len(x0), method, dict(options)))
            return optimize.minimize(fun, x0, method=method, options=options)

        monkeypatch.setattr(wc, "optimize", types.SimpleNamespace(minimize=minimize))
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


class TestBestSoFarKills4:
    def test_of_witness_is_confirmed(self):
        """Rule (`BestSoFar.of_witness`): the confirmed witness as the last best pair is marked confirmed (stage
        "confirmed"), its loss the witness's loss; it describes itself as confirmed by the exact path."""
        s = variant()
        w = confirm(s, (Fraction(0),), (Fraction(1),), "A")
        b = BestSoFar.of_witness(w)
        assert b.confirmed is True and b.stage == "confirmed" and b.loss == float(w.loss)
        assert "confirmed by the exact path" in b.describe() and b.to_json()["confirmed"] is True


def tightness(monkeypatch, s, lay, bound: Fraction, lr, moderate_loss, search: FixedLoss, unit=Fraction(30)):
    """Run `_tightness` on crafted inputs: the float64 loss of the moderate grid is ``lr(uu, vv, rr)``, a confirmed
    moderate point has loss ``moderate_loss``; the search's witness is ``search``.  Returns (result, grid, confirmed)."""
    grid, confirmed = [], []

    def ratio(shape, la, uu, vv, rr, sb, sa):
        grid.append((np.array(uu, float), np.array(vv, float), np.array(rr, float)))
        return np.asarray(lr(*grid[-1]), dtype=float)

    def witness(shape, p, unit_, digits=None):
        confirmed.append(p)
        q, qn, out, rel = p.pair(shape, unit_)
        return FixedLoss(q, qn, out, rel, mpmath.mpf(1), mpmath.mpf(1), 50, moderate_loss)

    monkeypatch.setattr(wc, "family_log_ratio", ratio)
    monkeypatch.setattr(wc, "_witness", witness)
    res = wc.FamilyWorstCase(s, False, 2, MechanismVerdict.PRIVATE, search, ProvenBound(bound, "crafted", "test"), None, False,
                             None, Tightness.LOOSE, "no tightness study")
    wc._tightness(s, res, wc._Point(0.0, lay, 0.0, 0.0, 0.0, 1.0, -1.0), unit, False, None)
    return res, grid, confirmed


def mp65(x) -> mpmath.mpf:
    with mpmath.workdps(65):
        return mpmath.mpf(x.numerator) / x.denominator if isinstance(x, Fraction) else mpmath.mpf(x)


class TestTightnessKills4:
    """The tightness study's moderate grid, its choice of point, its replacement rule, and its three edges."""

    def test_released_value_of_the_moderate_grid(self, monkeypatch):
        """Rule (`_tightness`): on the moderate grid a value released at its A query sits there (fresh release:
        r = v), a gap release's gap is 0, and without release r = 0."""
        for s, at_query in ((variant(release="fresh", y=("laplace", 20)), True), (variant(release="gap"), False), (variant(), False)):
            _, grid, _ = tightness(monkeypatch, s, lay_of(s, True, True), Fraction(1), lambda uu, vv, rr: 0 * uu, mp65(0), fixed((0, 0), mp65(0), "BA"))
            uu, vv, rr = grid[0]
            assert np.array_equal(rr, vv if at_query else np.zeros_like(uu)), s.release

    @pytest.mark.parametrize("has_b", [True, False])
    def test_the_close_point_nearest_t_is_confirmed_with_an_absent_letter_at_t(self, monkeypatch, has_b):
        """Rule (`_tightness`): of the moderate points within CLOSE_RTOL·bound of the bound, the one nearest t (least
        max |q - t|) is confirmed; a letter the layout lacks sits at t and does not count.  Unit 1 (Laplace scales 1,
        Δ = 1): the grid is t + j/2, j = -4..4; every point is close: the confirmed one is q = t, and it is the witness."""
        s = variant(eps=3, z=("laplace", 1), x=("laplace", 1))
        b = proven_upper_bound(s).value
        lay = lay_of(s, has_b, not has_b, 1)
        res, grid, confirmed = tightness(monkeypatch, s, lay, b, lambda uu, vv, rr: 0 * uu + float(b), mp65(b),
                                         fixed((30,), mp65(b) - mpmath.mpf("1e-3")), unit=Fraction(1))
        uu, vv, _ = grid[0]
        assert np.all((vv if has_b else uu) == 0) and len(uu) == 9
        assert [(p.u, p.v) for p in confirmed] == [(0.0, 0.0)]
        assert res.tightness is Tightness.ATTAINED and res.witness.queries == (s.threshold,)

    def test_an_equally_good_moderate_witness_replaces_the_search_witness(self, monkeypatch):
        """Rule (`_tightness`): when attained, the moderate witness is reported unless the search's loss L is larger by
        more than tol = 10^-45·max(1, ε): it replaces it at w.loss = L, and at w.loss = L - tol exactly (L = b + tol/2,
        both computed at the working precision of the comparison), but not at w.loss = b - tol/2 < L - tol
        (L = b + 0.9·tol)."""
        s = variant()
        b = proven_upper_bound(s).value

        def B():
            return mpmath.mpf(b.numerator) / b.denominator

        def tol():
            return wc._tol(s, 50)

        lay = lay_of(s, True, True)
        far = (300, 300)
        cases = ((B, B, True), (lambda: B() + tol() / 2, lambda: (B() + tol() / 2) - tol(), True),
                 (lambda: B() + tol() * mpmath.mpf("0.9"), lambda: B() - tol() / 2, False))
        for search_loss, moderate, replaced in cases:
            search = fixed(far, search_loss, "BA")
            res, _, confirmed = tightness(monkeypatch, s, lay, b, lambda uu, vv, rr: 0 * uu + float(b), moderate, search)
            assert res.tightness is Tightness.ATTAINED and len(confirmed) == 1
            assert (res.witness is not search) is replaced, (search_loss, moderate)

    def test_attained_includes_a_difference_of_exactly_ten_to_minus_45(self, monkeypatch):
        """Rule (`_tightness`): attained when |bound - loss| <= 10^-45 (inclusive).  Crafted: bound 10^-45 (exactly
        10^-45 at 65 digits too), a moderate loss 0: attained; bound 2·10^-45: not (then loose: the search's loss is 0)."""
        s = variant()
        lay = lay_of(s, True, True)
        for bound, word in ((Fraction(1, 10**45), Tightness.ATTAINED), (Fraction(2, 10**45), Tightness.LOOSE)):
            with mpmath.workdps(65):
                assert (mp65(bound) - 0 == mpmath.mpf(10) ** -45) is (word is Tightness.ATTAINED)
            res, _, confirmed = tightness(monkeypatch, s, lay, bound, lambda uu, vv, rr, fb=float(bound): 0 * uu + fb, mp65(0),
                                          fixed((0, 0), mp65(0), "BA"))
            assert confirmed and res.tightness is word, (bound, res.tightness)

    def test_approached_includes_a_gap_of_exactly_a_millionth_of_the_bound(self, monkeypatch):
        """Rule (`_tightness`): approached when bound - loss <= 10^-6·bound (inclusive).  Crafted: at the edge, bound 0
        and the search's loss 0 (the gap 0 equals 10^-6·0 at any precision): approached; either side, bound 10^6 and
        loss 10^6 - 1/2 (gap below 1): approached, loss 10^6 - 3/2: loose.  No moderate point is close (their float64
        loss is 1, the bound 0 or 10^6)."""
        s = variant()
        lay = lay_of(s, True, True)
        for bound, loss, word in ((Fraction(0), Fraction(0), Tightness.APPROACHED),
                                  (Fraction(10**6), Fraction(2 * 10**6 - 1, 2), Tightness.APPROACHED),
                                  (Fraction(10**6), Fraction(2 * 10**6 - 3, 2), Tightness.LOOSE)):
            res, _, confirmed = tightness(monkeypatch, s, lay, bound, lambda uu, vv, rr: 0 * uu + 1.0, mp65(0),
                                          fixed((0, 0), mp65(loss), "BA"))
            assert not confirmed and res.tightness is word, (loss, res.tightness)

    def test_a_point_exactly_close_rtol_from_the_bound_is_confirmed(self, monkeypatch):
        """Rule (`_tightness`, CLOSE_RTOL = 1e-9: points "within this relative distance of the bound" are confirmed,
        inclusive).  Crafted: bound 10^9, so CLOSE_RTOL·bound = 1 exactly in float64; one moderate point at float64
        loss 10^9 - 1 (exactly that distance) is confirmed, one at 10^9 - 2 is not."""
        s = variant()
        lay = lay_of(s, True, True)
        assert tune.CLOSE_RTOL * 1e9 == 1.0
        for lr, n in ((1e9 - 1, 1), (1e9 - 2, 0)):
            def f(uu, vv, rr, lr=lr):
                out = 0 * uu
                out[np.flatnonzero((uu == 30.0) & (vv == -30.0))] = lr
                return out
            _, _, confirmed = tightness(monkeypatch, s, lay, Fraction(10**9), f, mp65(0), fixed((0, 0), mp65(0), "BA"))
            assert [(p.u, p.v) for p in confirmed] == [(30.0, -30.0)] * n, lr

    def test_push_releases_the_value_at_the_pushed_above_query(self):
        """Rule (`_push`: "released value at the A query"): a fresh release's pushed point has its A query at
        t + sign(v)·L and its released value there too.  Row j is recomputed with the exact oracle: q(D) = (t - L, t + L)
        for output BA, released t + L, q(D') shifted by (+Δ, -Δ); L = unit·2^j, j = 0, 1 (Laplace Z, X, Y, scales 30)."""
        from verify.oracles.family import output_probability

        s = variant(release="fresh", y=("laplace", 30))
        bound = proven_upper_bound(s)
        lay = lay_of(s, True, True)
        res = wc.FamilyWorstCase(s, False, 2, MechanismVerdict.PRIVATE, fixed((0, 0), mp65(0), "BA"), bound, None, False, None,
                                 Tightness.LOOSE, "")
        unit = Fraction(30)
        table, _ = wc._push(s, res, wc._Point(0.0, lay, -7.0, 3.0, 3.0, 1.0, -1.0), unit, None)
        for j in (0, 1):
            L = unit * 2**j
            q, qn, rel = (-L, L), (-L + 1, L - 1), (L,)
            with mpmath.workdps(60):
                want = abs(mpmath.log(output_probability(s, q, "BA", rel, 50)) - mpmath.log(output_probability(s, qn, "BA", rel, 50)))
                assert abs(table[j][2] - want) < mpmath.mpf(10) ** -40, (j, table[j][2], want)


class TestOnBestKills4:
    """`family_worst_case`'s ``on_best``: only a strict improvement is reported."""

    def test_on_best_is_called_only_when_the_best_pair_strictly_improves(self, monkeypatch):
        """Rule (`family_worst_case`: ``on_best`` is "called whenever the search's best pair improves, and with the
        confirmed witness").  With the refinement replaced by the identity, the refined best equals the grid's best:
        no call for the refinement; the search's calls have strictly increasing losses, then one confirmed call."""
        monkeypatch.setattr(wc, "_refine", lambda shape, p, scale, moves=False, budget=80: p)
        calls: list[BestSoFar] = []
        wc.family_worst_case(variant(), max_queries=2, tightness_study=False, on_best=calls.append)
        assert calls and calls[-1].confirmed and not any(c.confirmed for c in calls[:-1])
        assert [c.stage for c in calls[:-1]] and all(c.stage.startswith("grid") for c in calls[:-1]), [c.stage for c in calls]
        assert all(a.loss < b.loss for a, b in zip(calls[:-1], calls[1:-1]))
