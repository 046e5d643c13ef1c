"""Tests written for the survivors of the family targets' second-round samples (seed 2202; third round).

Each test states the rule it guards; the expected values are derived here (closed forms, enumeration, the
support of a noise law), never by calling the function under test for the answer.  One class per mutation target
(`benchmarks/mutation_score.py`); `tests/test_family_mutation_kills.py` and `..._kills2.py` hold the earlier rounds.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from test_family_mutation_kills2 import variant  # the same variant builder (absolute scales)

from verify.family.delta import PairProfile
from verify.family.sampler import sample
from verify.family.witness import BestSoFar
from verify.family.worstcase import family_worst_case
from verify.oracles.family import output_probability
from verify.verdicts import MechanismVerdict


class TestDecisionKills3:
    """The Gaussian restriction's note."""

    def test_gaussian_search_at_one_query_has_no_restriction_note(self):
        """Rule (`family_worst_case`): Gaussian noise with a shared threshold is searched at k = 1 only, and the note
        saying so ("searched k = 1, not up to n") is written only when more than one query was asked for: at
        max_queries = 1 nothing was restricted, so no note; at max_queries = 3 the note names 3."""
        s = variant(z=("gaussian", 30), x=("gaussian", 30))
        one = family_worst_case(s, max_queries=1, tightness_study=False)
        assert not any("not up to" in n for n in one.notes), one.notes
        three = family_worst_case(s, max_queries=3, tightness_study=False)
        assert any("searched k = 1, not up to 3" in n for n in three.notes), three.notes


class TestTightnessKills3:
    """The push table's sign at v = 0."""

    def test_push_counts_v_zero_as_plus(self):
        """Rule (`_push`): sign(0) = +1 for the A queries too: a best point with v = 0 exactly pushes its A queries to
        t + L; row j = 0 recomputed with the exact oracle (Mechanism One, t = 5, layout BA, B's at t - L)."""
        from verify.family import worstcase as wc
        from verify.family.structured import layouts

        s = variant(t=Fraction(5))
        r = family_worst_case(s, max_queries=2, tightness_study=False)
        assert r.verdict is MechanismVerdict.PRIVATE
        lay = next(lay for lay in layouts(s, 2) if lay.string(s) == "BA")
        unit = Fraction(30)
        table, fam = wc._push(s, r, wc._Point(0.0, lay, -7.0, 0.0, 0.0, 1.0, -1.0), unit, None)
        assert "B queries at t - L, A queries at t + L" in fam
        q = (s.threshold - unit, s.threshold + unit)
        qn = (q[0] + 1, q[1] - 1)
        with mpmath.workdps(60):
            want = abs(mpmath.log(output_probability(s, q, "BA", (), 50)) - mpmath.log(output_probability(s, qn, "BA", (), 50)))
            assert abs(table[0][2] - want) < mpmath.mpf(10) ** -40


class TestWitnessKills3:
    """The search's last best pair in JSON."""

    def test_best_so_far_json_writes_inf_only_for_an_infinite_loss(self):
        """Rule (`BestSoFar.to_json`): the loss is the string "inf" when infinite (JSON has no infinity), the float itself
        otherwise."""
        q, qn = (Fraction(1),), (Fraction(2),)
        finite = BestSoFar(0.25, q, qn, "A", (), "refined").to_json()
        assert finite["loss"] == 0.25 and finite["queries"] == ["1"] and finite["neighbour_queries"] == ["2"]
        assert BestSoFar(float("inf"), q, qn, "A", (), "refined").to_json()["loss"] == "inf"


class TestDeltaKills3:
    """ε for a given δ at a prefix sum exactly equal to δ."""

    def test_epsilon_for_a_delta_equal_to_the_infinite_loss_mass_is_finite(self):
        """Rule (`PairProfile.epsilon_for`, Meiser & Mohammadi): ε(δ) = max(0, max over prefixes with A_j > δ of
        log((A_j - δ)/B_j)), +∞ only when a prefix with A_j > δ has B_j = 0.  Two outputs, P = (1/2, 1/2),
        P' = (0, 1): δ(ε') = 1/2 for every ε' >= 0 (the first output's mass; the second's term 1/2 - e^{ε'} <= 0), so
        ε(1/2) = 0 (the prefix A_1 = 1/2 is not > 1/2), ε(1/4) = +∞, and ε(1/2) at A_2 = 1: log(1/2) < 0 -> 0."""
        with mpmath.workdps(30):
            half = mpmath.mpf(1) / 2
            prof = PairProfile(("A", "B"), (half, half), (mpmath.mpf(0), mpmath.mpf(1)), 20)
            assert prof.epsilon_for(Fraction(1, 2)) == 0
            assert prof.epsilon_for(Fraction(1, 4)) == mpmath.inf
            assert prof.delta_at(Fraction(0))[0] == half


class TestReleaseDensityKills3:
    """No threshold noise: the query release's cap."""

    def test_no_threshold_noise_query_release_and_no_release(self):
        """Rule (`_segment`, Z absent): the threshold is t exactly; a released value v = q + X >= t has density
        p_X(v - q) = e^{-|v-q|/b}/(2b) (the cap v - t >= 0 is inactive), v < t has density 0; without an above the
        probability is F_X(t - q) = e^{-(q-t)/b}/2 for q > t.  Laplace X, b = 2, q = 1, t = 0."""
        s = variant(z=("none", 1), x=("laplace", 2), release="query")
        with mpmath.workdps(30):
            want = mpmath.exp(-mpmath.mpf(1) / 4) / 4
            assert abs(output_probability(s, [1], "A", [Fraction(3, 2)]) - want) < mpmath.mpf(10) ** -25
            assert output_probability(s, [1], "A", [Fraction(-1, 2)]) == 0
            assert abs(output_probability(s, [1], "B") - mpmath.exp(-mpmath.mpf(1) / 2) / 2) < mpmath.mpf(10) ** -25


class TestReleaseRuleKills3:
    """The gap's support and the fresh release's sampler."""

    def test_gap_release_has_no_density_below_zero(self):
        """Rule (`GapRelease.nonnegative`): the gap q + X - (t + Z) is released only for an above, so it is >= 0; a
        negative gap has density 0, a positive one the density of X - Z at g - (q - t): for two Laplace(b),
        f(w) = (1 + |w|/b) e^{-|w|/b}/(4b).  b = 2, q = 1, t = 0, g = 1/2: w = -1/2."""
        s = variant(z=("laplace", 2), x=("laplace", 2), release="gap")
        with mpmath.workdps(30):
            assert output_probability(s, [1], "A", [Fraction(-1, 2)]) == 0
            w = mpmath.mpf(1) / 2 / 2
            want = (1 + w) * mpmath.exp(-w) / 8
            assert abs(output_probability(s, [1], "A", [Fraction(1, 2)]) - want) < mpmath.mpf(10) ** -20

    def test_fresh_release_samples_query_plus_y(self):
        """Rule (`FreshRelease.draw`): the released value is q + Y.  With exponential Y (support [0, ∞), mean b) every
        released value is >= q (no false alarm: Y < 0 has probability 0), and the mean of v - q is b: with 20,000
        runs the sample mean's standard error is b/√n; a deviation of 6 standard errors has probability about 2e-9
        (normal approximation of the Gamma(n) mean): the false-alarm rate of this check.  Seeded (seed 2203)."""
        b, q = 3.0, 5.0
        s = variant(z=("laplace", 1), x=("laplace", 1), t=Fraction(-20), release="fresh", y=("exponential", 3))
        got = sample(s, [q], 20_000, 2203)
        v = got.released[:, 0]
        v = v[~np.isnan(v)]
        assert v.size > 19_000
        assert np.all(v >= q)
        assert abs((v - q).mean() - b) < 6 * b / np.sqrt(v.size)


class TestTightnessGridKills3:
    """The tightness study's moderate grid."""

    def test_moderate_grid_is_t_plus_j_half_units(self, monkeypatch):
        """Rule (`_tightness`, docs/mutation.md "Tuning parameters"): the moderate grid is t + j·unit/2, j = -4..4
        (|q - t| <= 2 scales), on both axes of a layout with B's and A's: the 81 points (u, v) that the study evaluates
        are recorded and compared with that product (Laplace Z, exponential X with scale 30: unit = 30; the best layout has B's and A's)."""
        from verify.family import search_tuning as tune
        from verify.family import worstcase as wc

        seen: list[tuple[np.ndarray, np.ndarray]] = []
        real_tightness, real_ratio = wc._tightness, wc.family_log_ratio
        inside = []

        def tightness(*a, **k):
            inside.append(True)
            try:
                return real_tightness(*a, **k)
            finally:
                inside.pop()

        def ratio(shape, lay, uu, vv, rr, sb, sa):
            if inside:
                seen.append((np.array(uu, dtype=float), np.array(vv, dtype=float)))
            return real_ratio(shape, lay, uu, vv, rr, sb, sa)

        monkeypatch.setattr(wc, "_tightness", tightness)
        monkeypatch.setattr(wc, "family_log_ratio", ratio)
        r = family_worst_case(variant(z=("laplace", 30), x=("exponential", 30)), max_queries=2)
        assert r.verdict is MechanismVerdict.PRIVATE and seen
        uu, vv = seen[0]
        steps = [15.0 * j for j in range(-4, 5)]
        assert tuple(tune.MODERATE_STEPS) == tuple(j / 2 for j in range(-4, 5))
        assert sorted(zip(uu.tolist(), vv.tolist())) == sorted((a, b) for a in steps for b in steps)


class TestDeltaStartsKills3:
    """The pair search's starting grid."""

    def test_start_grid_is_thirteen_points_per_axis_and_every_other_for_three_queries(self, monkeypatch):
        """Rule (`search_pair`, `worst_delta`; delta_search module docstring, step 1): the starts are the grid
        u, v in {-8s + j·16s/(grid - 1)}, j = 0..grid-1, with the default grid = 13 (steps of 4s/3), every other point
        of it (j even) for patterns of COARSE_FROM = 3 or more queries that use both u and v, plus the hand-picked
        shapes.  The first batch the scorer receives is recorded and compared with that set, pattern by pattern
        (Laplace Z and X with scale 30, up to 3 queries)."""
        from verify.family import delta_search as ds

        batches: list[list] = []
        real = ds._Scorer

        class Recorded(Exception):
            pass

        class Recording(real):
            def __call__(self, points):  # record the starts, then stop the search (only the starts are checked)
                batches.append(list(points))
                raise Recorded

        monkeypatch.setattr(ds, "_Scorer", Recording)
        s = variant(z=("laplace", 30), x=("laplace", 30), cutoff=2)
        with pytest.raises(Recorded):
            ds.worst_delta(s, Fraction(1, 10), max_queries=3)
        sc = Fraction(30)
        axis = [sc * Fraction(4, 3) * j - 8 * sc for j in range(13)]
        coarse = axis[::2]
        by_pat: dict = {}
        for pat, u, v in batches[0]:
            by_pat.setdefault(pat, set()).add((u, v))
        seen_coarse = seen_full = False
        for pat, got in by_pat.items():
            both = pat.uses_u and pat.uses_v
            ax = coarse if both and len(pat.letters) >= 3 else axis
            us, vs = (ax if pat.uses_u else [Fraction(0)]), (ax if pat.uses_v else [Fraction(0)])
            want = {(u, v) for u in us for v in vs}
            want |= {(sc * u if pat.uses_u else Fraction(0), sc * v if pat.uses_v else Fraction(0)) for u, v in ds.HAND_PICKED}
            assert got == want, pat
            seen_coarse |= both and len(pat.letters) == 3
            seen_full |= both and len(pat.letters) == 2
        assert seen_coarse and seen_full


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


class TestRowsKills3:
    """The per-k rows are refined points."""

    def test_rows_refine_only_the_layouts_whose_best_is_a_grid_point(self, monkeypatch):
        """Rule (`family_worst_case` with rows): every reported row is a refined point: a layout whose best point is
        not one of the refined starts is refined once more (ROW_BUDGET), and a refined start is never refined again.
        The refinement calls are recorded: no row refinement starts from a start refinement's output, and there is
        at least one row refinement (Mechanism One, up to 3 queries, starts = 1: most layouts' best is a grid point)."""
        from verify.family import search_tuning as tune
        from verify.family import worstcase as wc

        real = wc._refine
        outputs: list = []
        row_inputs: list = []

        def refine(shape, p, scale, moves=False, budget=tune.REFINE_BUDGET):
            out = real(shape, p, scale, moves, budget)
            if budget == tune.ROW_BUDGET:
                row_inputs.append(p)
            else:
                outputs.append(out)
            return out

        monkeypatch.setattr(wc, "_refine", refine)
        wc.family_worst_case(variant(), max_queries=3, starts=1, rows=True, tightness_study=False)
        assert outputs and row_inputs
        assert not any(p is o for p in row_inputs for o in outputs)


class TestStructuredKills3:
    """Written after sample 3 (seed 2203): the float64 objective's gap support."""

    def test_float64_objective_of_a_negative_gap_is_minus_infinity(self):
        """Rule (`family_log_probability`, gap release): a released gap r < 0 has density 0, so its log is -inf at every
        point with r < 0, and at r >= 0 it is the exact oracle's log density (one query, outcome A, Laplace b = 2, t = 0:
        the density of X - Z at r - v, (1 + |w|/b) e^{-|w|/b}/(4b), w = r - v)."""
        from verify.family.structured import family_log_probability, layouts

        s = variant(z=("laplace", 2), x=("laplace", 2), release="gap")
        lay = next(lay for lay in layouts(s, 1) if lay.n_a == 1)
        got = family_log_probability(s, lay, [0.0, 0.0, 0.0], [1.0, 1.0, 1.0], [-0.5, -1e-9, 0.5])
        assert got[0] == -np.inf and got[1] == -np.inf
        w = 0.25
        assert abs(got[2] - np.log((1 + w) * np.exp(-w) / 8)) < 1e-9


class TestClosedFormPointKills3:
    """Written after sample 3 (seed 2203): the closed form without threshold noise."""

    def test_closed_form_at_z_zero_is_the_product_of_laplace_cdf_and_survival(self):
        """Rule (`verify.engine.piecewise` `point`, no threshold noise: z = 0): a below at q contributes F_X(t - q) and an
        above S_X(t - q); Laplace b = 2, t = 0 (textbook: F(d) = e^{d/b}/2 for d < 0, 1 - e^{-d/b}/2 for d >= 0):
        Pr[B at q = 1] = e^{-1/2}/2, Pr[B at q = -1] = 1 - e^{-1/2}/2, Pr[BA at (1, -1)] = e^{-1/2}/2 · e^{-1/2}/2 = e^{-1}/4
        (cutoff 1), all on the closed-form path at 30 digits."""
        from verify.family.probability import evaluate

        s = variant(z=("none", 1), x=("laplace", 2))
        with mpmath.workdps(40):
            h = mpmath.exp(-mpmath.mpf(1) / 2) / 2
            for q, outcome, want in (([1], "B", h), ([-1], "B", 1 - h), ([1, -1], "BA", h * h)):
                got = evaluate(s, q, outcome, method="closed")
                assert got.method == "closed form" and abs(got.value - want) < mpmath.mpf(10) ** -25, (q, outcome)
