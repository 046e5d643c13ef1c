"""δ(ε') and ε'(δ) of a pair and the pair search (`verify.family.delta`, `delta_search`).

Re-homed from the mutation rounds' files (`test_family_mutation_kills.py`, `test_family_mutation_kills2.py`, `test_family_mutation_kills3.py`, `test_family_mutation_kills4_core.py`, `test_family_mutation_kills5.py`, `test_family_mutation_kills6_delta.py`); each class or test keeps its name, so
docs/mutation.md and `benchmarks/mutation_score.py` still find it.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from family_variants import variant

from verify.errors import InputError
from verify.family.delta import PairProfile, complete_outputs, exact_delta
from verify.family.rdp import GaussianSVTRdp
from verify.oracles.family import output_probability


def mp(x) -> mpmath.mpf:
    x = Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


# --- family-delta: the compass search of `search_pair` ---------------------------------------------------------------
def _compass(starts, f, s, reach, floor, margin, n_starts=4):
    """The delta_search module docstring's step 2, written out independently: from the ``n_starts`` best starts, each
    state (pattern, u, v, score, h) moves to the best of u ± h (patterns with B's), v ± h (patterns with A's) within
    |u|, |v| <= reach, if that raises its score by more than ``margin(score)``, else halves h; states with h < floor
    are done.  Returns (the batches of points scored, as sets; the best final state)."""
    states = [[p, u, v, f(p, u, v), s] for p, u, v in sorted(starts, key=lambda x: -f(*x))[:n_starts]]
    batches = []
    while any(st[4] >= floor for st in states):
        batch, best = set(), {}
        for j, (p, u, v, _, h) in enumerate(states):
            if h < floor:
                continue
            steps = ([(h, 0), (-h, 0)] if "B" in p.letters else []) + ([(0, h), (0, -h)] if "A" in p.letters else [])
            for du, dv in steps:
                if abs(u + du) <= reach and abs(v + dv) <= reach:
                    batch.add((p, u + du, v + dv))
                    val = f(p, u + du, v + dv)
                    if j not in best or val > best[j][0]:
                        best[j] = (val, u + du, v + dv)
        if not batch:
            break
        batches.append(batch)
        for j, st in enumerate(states):
            if st[4] < floor:
                continue
            if j in best and best[j][0] > st[3] + margin(st[3]):
                st[1], st[2], st[3] = best[j][1], best[j][2], best[j][0]
            else:
                st[4] = st[4] / 2
    return batches, max(states, key=lambda st: st[3])


# --- the survivors of the fifth sample (seed 2205) ------------------------------------------------------------------
def _variant(z, x, release="none", cutoff=1):
    from verify.mechanism import SparseVector
    from verify.noise.spec import NoiseSpec

    return SparseVector(Fraction(1, 10), Fraction(1), Fraction(0), NoiseSpec(z[0], absolute=Fraction(z[1])),
                        NoiseSpec(x[0], absolute=Fraction(x[1])), cutoff=cutoff, release=release)


def _mp(x: Fraction) -> mpmath.mpf:
    """An exact rational as an mpf at the working precision."""
    return mpmath.mpf(x.numerator) / x.denominator


# --- δ and the Rényi bound -----------------------------------------------------------------------------------------------
class TestDeltaKills:
    """δ(ε') of a pair, complete outputs, and the Rényi bound of Gaussian AboveThreshold."""

    @pytest.mark.parametrize("cutoff", [1, 2, 3, None])
    @pytest.mark.parametrize("k", [1, 2, 4])
    def test_complete_outputs_by_enumeration(self, cutoff, k):
        """Rule: the complete outputs of k queries are the strings that stop at the c-th A, or have k letters
        with fewer than c A's (enumerated here over all strings of length <= k)."""
        s = variant(cutoff=cutoff)
        want = set()
        for n in range(1, k + 1):
            for o in map("".join, itertools.product("AB", repeat=n)):
                c = cutoff
                a = o.count("A")
                if c is not None and a == c and o[-1] == "A" or (n == k and (c is None or a < c)):
                    want.add(o)
        got = complete_outputs(s, k)
        assert len(got) == len(set(got)) and set(got) == want

    def test_exact_delta_is_the_sum_of_positive_parts(self):
        """Rule: δ(ε') = Σ_s max(0, Pr[D](s) - e^{ε'} Pr[D'](s)) over complete outputs (recomputed here from the
        output probabilities); δ(0) is the total variation distance; ε' = 0 is accepted, ε' < 0 refused."""
        s = variant(eps=Fraction(1), z=("laplace", 2), x=("laplace", 3), cutoff=1)
        q, qn = (Fraction(0), Fraction(1)), (Fraction(1), Fraction(0))
        with mpmath.workdps(30):
            ps = {o: output_probability(s, q, o, (), 20) for o in complete_outputs(s, 2)}
            pn = {o: output_probability(s, qn, o, (), 20) for o in complete_outputs(s, 2)}
            for ep in (Fraction(0), Fraction(1, 10), Fraction(1, 2)):
                want = sum(max(mpmath.mpf(0), ps[o] - mpmath.exp(mp(ep)) * pn[o]) for o in ps)
                got = exact_delta(s, q, qn, ep, 20)
                assert abs(got.delta - want) <= mpmath.mpf(10) ** -18, (ep, got.delta, want)
                top = max(ps, key=lambda o: ps[o] - mpmath.exp(mp(ep)) * pn[o])
                assert got.top_output == top
            tv = sum(abs(ps[o] - pn[o]) for o in ps) / 2
            assert abs(exact_delta(s, q, qn, 0, 20).delta - tv) <= mpmath.mpf(10) ** -18
        with pytest.raises(InputError):
            exact_delta(s, q, qn, Fraction(-1, 10**6), 20)

    def test_exact_delta_checks_the_pair(self):
        """Rule: the pair has equal lengths >= 1 and differs by at most Δ per query (equality allowed)."""
        s = variant(delta=Fraction(1, 2), z=("laplace", 2), x=("laplace", 3))
        assert exact_delta(s, (0,), (Fraction(1, 2),), 0, 15).delta >= 0
        for q, qn in (((0,), (Fraction(1, 2) + Fraction(1, 10**9),)), ((0, 0), (0,)), ((), ())):
            with pytest.raises(InputError):
                exact_delta(s, q, qn, 0, 15)

    def test_worst_delta_validates_max_queries_at_its_edges(self):
        """Rule: worst_delta's max_queries is an integer from 1 to 10 (booleans refused); releases are refused."""
        from verify.family.delta_search import worst_delta

        s = variant(z=("laplace", 2), x=("laplace", 3))
        for bad in (0, 11, True, 2.0):
            with pytest.raises(InputError):
                worst_delta(s, Fraction(1, 4), max_queries=bad, grid=3, digits=15)
        assert worst_delta(s, Fraction(1, 4), max_queries=1, grid=3, digits=15).delta >= 0
        with pytest.raises(InputError):
            worst_delta(variant(release="gap"), Fraction(1, 4), max_queries=1, grid=3, digits=15)

    def test_renyi_bound_is_reported_only_for_gaussian_threshold_and_queries_at_cutoff_one(self):
        """Rule (Zhu & Wang 2020, Thm 8: c = 1, shared threshold, Gaussian Z and X): the Rényi δ is given beside the exact
        δ of a pair there and nowhere else (cutoff 2, unlimited, a resampled threshold, no threshold noise)."""
        def rd(**kw):
            return exact_delta(variant(**{"z": ("gaussian", 2), "x": ("gaussian", 3), **kw}), (0,), (1,), 1, 15).rdp_delta

        inside = rd()
        assert inside is not None and 0 < inside <= 1
        assert rd(cutoff=2) is None and rd(cutoff=None) is None and rd(cutoff=2, policy="resample") is None
        assert rd(z=("none", 0)) is None

    def test_renyi_curve_and_its_validation(self):
        """Rule: ε(α) = log(k)/(α - 1) + αΔ²/σ₁² + 2αΔ²/σ₂² (Zhu & Wang 2020, Thm 8), defined for α > 1; σ₁, σ₂, Δ > 0
        and k >= 1 an integer."""
        # σ₁ = 5/2, σ₂ = 3 (σ² differs from 2σ for both), Δ = 1/2
        r = GaussianSVTRdp(Fraction(5, 2), Fraction(3), Fraction(1, 2), 5)
        with mpmath.workdps(30):
            for a in (mpmath.mpf("1.5"), mpmath.mpf(2), mpmath.mpf(40)):
                want = mpmath.log(5) / (a - 1) + a * (mpmath.mpf(1) / 4) / (mpmath.mpf(25) / 4) + 2 * a * (mpmath.mpf(1) / 4) / 9
                assert abs(r.rdp(a) - want) < mpmath.mpf(10) ** -25
            with pytest.raises(InputError):
                r.rdp(mpmath.mpf(1))
        assert GaussianSVTRdp(Fraction(2), Fraction(3), Fraction(1, 2), 1).rdp(2) > 0
        for bad in ((0, 3, 1, 5), (2, 0, 1, 5), (2, 3, 0, 5), (2, 3, 1, 0), (2, 3, 1, True)):
            with pytest.raises(InputError):
                GaussianSVTRdp(*bad)

    @pytest.mark.parametrize("conversion", ["bbghs", "mironov"])
    def test_renyi_delta_is_the_minimum_over_orders(self, conversion):
        """Rule: δ(ε') = min over α > 1 of δ_α, δ_α = exp((α-1)(ε(α) - ε'))·[(1 - 1/α)^(α-1)/α for BBGHS]; the value
        returned is at most δ_α at every α of a dense independent grid (to 1e-9 relative) and equals δ_α at the α it
        reports; at most 1."""
        r = GaussianSVTRdp(Fraction(3), Fraction(4), Fraction(1), 10)
        with mpmath.workdps(30):
            def delta_at(a):
                a = mpmath.mpf(a)
                ld = (a - 1) * (r.rdp(a) - 2)
                if conversion == "bbghs":
                    ld += (a - 1) * mpmath.log(1 - 1 / a) - mpmath.log(a)
                return mpmath.exp(ld)

            got, alpha = r.delta(2, conversion)
            dense = min(delta_at(1 + mpmath.mpf(10) ** (mpmath.mpf(j) / 400 - 2)) for j in range(0, 1601))
            assert got <= dense * (1 + mpmath.mpf(10) ** -9), (got, dense)
            assert got >= dense * (1 - mpmath.mpf(10) ** -3)
            assert abs(delta_at(alpha) / got - 1) < mpmath.mpf(10) ** -20
            assert r.delta(0, conversion)[0] <= 1
        with pytest.raises(InputError):
            r.delta(-1, conversion)
        with pytest.raises(InputError):
            r.delta(1, "other")


class TestDeltaKills2:
    """δ(ε')'s largest term and the pair search's refinement."""

    @pytest.mark.slow
    @pytest.mark.parametrize("sz,sx,ep", [(3, 4, Fraction(1, 2)), (2, 2, Fraction(1, 3))])
    def test_worst_delta_reaches_the_supremum_over_one_query_pairs(self, sz, sx, ep):
        """Rule (`worst_delta`: grid, then the compass refinement).  One query, Gaussian Z and X: Pr[A] = Φ((q - t)/s),
        s = √(σ_Z² + σ_X²), Pr[B] = 1 - Pr[A], so over the pairs (q, q ± Δ) δ(ε') = Σ_o max(0, P_o(q) - e^{ε'}P_o(q'))
        is a function of one variable; its supremum is computed here (dense grid over ±20s, then a bounded scalar
        minimisation).  The search's exact δ at its pair must reach it to 1e-4 relative (the grid alone is 2-50 %
        short) and cannot exceed it."""
        from scipy import optimize, special

        from verify.family.delta_search import worst_delta

        r = worst_delta(variant(z=("gaussian", sz), x=("gaussian", sx)), ep, max_queries=1)
        sd, e = math.hypot(sz, sx), math.exp(float(ep))

        def delta(q, sign):
            pa, pa2 = special.ndtr(q / sd), special.ndtr((q + sign) / sd)
            return max(0.0, pa - e * pa2) + max(0.0, (1 - pa) - e * (1 - pa2))

        sup = 0.0
        qs = np.linspace(-20 * sd, 20 * sd, 8001)
        for sign in (1, -1):
            i = int(np.argmax([delta(q, sign) for q in qs]))
            res = optimize.minimize_scalar(lambda q, sign=sign: -delta(q, sign), bounds=(qs[max(i - 1, 0)], qs[min(i + 1, len(qs) - 1)]),
                                           method="bounded", options={"xatol": 1e-12})
            sup = max(sup, -res.fun)
        assert float(r.delta) <= sup * (1 + 1e-9)
        assert float(r.delta) >= sup * (1 - 1e-4), (float(r.delta), sup)

    def test_largest_term_output_is_the_argmax_even_when_every_term_is_below_minus_one(self):
        """Rule (`delta_at`): the reported output is the one with the largest term P_s - e^{ε'}P'_s, whatever its sign
        or size; at large ε' every term is below -1 (here ε' = 5/2 and 3) and the argmax is still reported.  The
        terms are recomputed from the exact oracle's output probabilities."""
        from verify.family.delta import complete_outputs, exact_delta

        s = variant(eps=Fraction(1), z=("laplace", 2), x=("laplace", 3), cutoff=1)
        q, qn = (Fraction(0), Fraction(1)), (Fraction(1), Fraction(0))
        with mpmath.workdps(30):
            ps = {o: output_probability(s, q, o, (), 20) for o in complete_outputs(s, 2)}
            pn = {o: output_probability(s, qn, o, (), 20) for o in complete_outputs(s, 2)}
            for ep in (Fraction(5, 2), Fraction(3)):
                terms = {o: ps[o] - mpmath.exp(mpmath.mpf(ep.numerator) / ep.denominator) * pn[o] for o in ps}
                assert max(terms.values()) < -1
                got = exact_delta(s, q, qn, ep, 20)
                assert got.top_output == max(terms, key=terms.get) and got.delta == 0


class TestDeltaDefaultsKills:
    """exact_delta's documented default precision."""

    def test_exact_delta_default_precision_is_thirty_digits(self):
        """Rule (`exact_delta(..., digits=30)`): without ``digits`` the result is computed and reported at 30 digits."""
        from verify.family.delta import exact_delta

        r = exact_delta(variant(z=("laplace", 2), x=("laplace", 3)), (Fraction(0),), (Fraction(1),), Fraction(1, 10))
        assert r.digits == 30


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


class TestDeltaCompassKills4:
    """The compass search of `search_pair` (delta_search module docstring, step 2) on synthetic scores."""

    def _run(self, monkeypatch, score_of):
        """Run `search_pair` with the scorer replaced by ``score_of(pattern, u, v)`` (exact Fractions in), recording
        every batch it scores; Laplace Z and X of scale s = 30, cutoff 1, up to 3 queries, the default grid of 13."""
        from verify.family import delta_search as ds

        batches: list[list] = []

        class Synthetic:
            def __init__(self, shape, score):
                pass

            def __call__(self, points):
                assert len(batches) < 500, "the compass search does not end"  # the expected runs take about 40 steps
                batches.append(list(points))
                return np.array([score_of(p, u, v) for p, u, v in points])

        monkeypatch.setattr(ds, "_Scorer", Synthetic)
        shape = variant(z=("laplace", 30), x=("laplace", 30), cutoff=1)
        q, qn, val = ds.search_pair(shape, None, 3, 13)
        return shape, batches, q, qn, val

    @staticmethod
    def _pair(shape, p, u, v):
        """The documented pair: every B query at t + u, every A query at t + v; D' moves B's by sign·Δ, A's by -sign·Δ."""
        t, d = shape.threshold, shape.sensitivity
        q = tuple(t + (u if c == "B" else v) for c in p.letters)
        qn = tuple(x + (p.sign * d if c == "B" else -p.sign * d) for x, c in zip(q, p.letters))
        return q, qn

    def test_compass_walks_to_the_reach_and_halves_down_to_s_over_256(self, monkeypatch):
        """Rule (step 2, `REACH`, `STEP_HALVINGS`): with a score increasing in u and in v (u/s + v/(πs), plus a distinct
        offset per pattern so that no two points tie), the four best starts are the patterns with both letters at
        (8s, 8s); each compass step takes the best of u ± h, v ± h, so u climbs to the reach 16s by steps of s, then v,
        and the queries stay within 16 scales of t, the edge |u| = 16s included ("within"); then h halves down to
        s/2^8.  Every batch scored is the set the documented procedure scores, and the pair returned sits at
        (t + 16s, t + 16s): queries exactly 16 scales from the threshold."""
        s = Fraction(30)
        offsets: dict = {}

        def f(p, u, v):
            key = (p.letters, p.sign)
            if key not in offsets:  # a distinct offset per pattern, in the order first seen
                offsets[key] = 1e-3 * len(offsets)
            return float(u / s) + float(v / s) / math.pi + offsets[key]

        shape, batches, q, qn, val = self._run(monkeypatch, f)
        from verify.family.delta_search import _margin

        want, top = _compass(batches[0], f, s, 16 * s, s / 256, lambda x: float(_margin(np.array([x]))[0]))
        assert [set(b) for b in batches[1:]] == want
        assert (top[1], top[2]) == (16 * s, 16 * s) and "B" in top[0].letters and "A" in top[0].letters
        assert (q, qn) == self._pair(shape, top[0], 16 * s, 16 * s) and val == top[3]
        assert max(abs(x) for b in batches[1:] for _, u, v in b for x in (u, v)) == 16 * s

    def test_a_move_counts_only_when_it_beats_the_score_by_more_than_the_margin(self, monkeypatch):
        """Rule (step 2, `_margin`): a state moves only where the best neighbour raises its score by *more* than the
        float64 error of a score, m(S) = `_margin(S)`.  Scores: a peak at (0, 0) for each pattern with both letters
        (offsets 0.1·i, so the four best starts are four such patterns at (0, 0)), lower elsewhere, with three
        neighbours of the starts set by hand: one exactly S + m(S) (no move: not more than the margin), one S + 2m(S)
        (a move), one S - m(S)/2 (no move: lower).  The batches and the result are those of the documented procedure."""
        from verify.family.delta_search import _margin

        s = Fraction(30)
        margin = lambda x: float(_margin(np.array([x]))[0])  # noqa: E731
        both = ["BBA+", "BBA-", "BA+", "BA-"]  # the four starts, best first

        def base(p):
            key = p.letters + ("+" if p.sign > 0 else "-")
            return 0.1 * (len(both) - both.index(key)) if key in both else -10.0

        special = {("BBA+", s, 0): lambda b: b + margin(b), ("BBA-", s, 0): lambda b: b + 2 * margin(b),
                   ("BA+", -s, 0): lambda b: b - margin(b) / 2}

        def f(p, u, v):
            key = p.letters + ("+" if p.sign > 0 else "-")
            b = base(p)
            if (key, u, v) in special:
                return special[(key, u, v)](b)
            x, y = float(u / s), float(v / s)  # a strict maximum at (0, 0); no two neighbours of a point tie
            return b - x * x * (1 if x > 0 else 2) - y * y * (3 if y > 0 else 4)

        shape, batches, q, qn, val = self._run(monkeypatch, f)
        want, top = _compass(batches[0], f, s, 16 * s, s / 256, margin)
        assert [set(b) for b in batches[1:]] == want
        firsts = {(p.letters + ("+" if p.sign > 0 else "-"), u, v) for p, u, v in batches[1]}
        assert set(special) <= firsts  # the three hand-set neighbours are scored in the first compass step
        moved = {p.letters + ("+" if p.sign > 0 else "-"): (u, v) for p, u, v in batches[2] if (u, v) == (2 * s, 0)}
        assert set(moved) == {"BBA-"}  # only the move by 2m was taken: the next step starts from (s, 0)
        assert (q, qn) == self._pair(shape, top[0], top[1], top[2]) and val == top[3]


class TestDeltaWrapperKills4:
    """`verify.family.delta`'s complete outputs (the class once also held the test of a forwarding wrapper of
    the pair search, removed with the wrapper: `worst_delta` lives in `verify.family.delta_search` alone)."""

    def test_complete_outputs_up_to_the_limit_of_1024(self):
        """Rule (`complete_outputs`, MAX_OUTPUTS = 2^10: "at most this many outputs are summed exactly"): without a cutoff
        every one of the 2^k strings over {A, B} is a complete output; k = 10 gives exactly 1024 (allowed, each string
        once), k = 11 gives 2048 (refused with a one-line InputError naming the count)."""
        from itertools import product

        from verify.errors import InputError
        from verify.family.delta import complete_outputs

        s = variant(cutoff=None)
        ten = complete_outputs(s, 10)
        assert sorted(ten) == sorted("".join(w) for w in product("AB", repeat=10))
        with pytest.raises(InputError, match="2048 outputs"):
            complete_outputs(s, 11)


class TestDeltaGridKills5:
    """`search_pair`'s starting axis: grid points -8s + j·16s/(grid - 1), j = 0..grid-1, for any grid > 1 (grid = 2:
    the two ends -8s and 8s); grid = 1 is the single point 0."""

    @pytest.mark.parametrize("grid,axis", [(2, [-8, 8]), (3, [-8, 0, 8]), (1, [0])])
    def test_axis_of_a_small_grid(self, monkeypatch, grid, axis):
        from verify.family import delta_search as ds

        batches: list = []

        class Recorded(Exception):
            pass

        class Recording(ds._Scorer):
            def __call__(self, points):
                batches.append(list(points))
                raise Recorded

        monkeypatch.setattr(ds, "_Scorer", Recording)
        with pytest.raises(Recorded):
            ds.worst_delta(_variant(("laplace", 30), ("laplace", 30)), Fraction(1, 10), max_queries=2, grid=grid)
        hand = {(30 * u, 30 * v) for u, v in ds.HAND_PICKED}
        got = {(u, v) for pat, u, v in batches[0] if pat.uses_u and pat.uses_v} - hand
        want = {(Fraction(30 * a), Fraction(30 * b)) for a in axis for b in axis} - hand
        assert got == want


# --- family-delta ----------------------------------------------------------------------------------------------------
class TestDeltaKills6:
    """`verify.family.delta` and `verify.family.delta_search`: the tie rules and the survivors of the full enumeration."""

    def test_search_pair_keeps_the_first_of_two_equally_good_moves(self, monkeypatch) -> None:
        """Rule (`search_pair`'s tie rule): among one state's moves of exactly equal score the first in the order
        u + h, u - h, v + h, v - h is kept.  One pattern "B" (sign +1), one start (grid 1, the hand-picked shapes
        monkeypatched to (0, 0) only), score |u| (exact in float64 for the dyadic u here): at u = 0 the moves +h and
        -h tie at h, the first (+h) is taken, and then u climbs by steps of s to the reach 16s (the move to 17s
        leaves the reach, the move back scores lower).  So q = (t + 16s,) and q' = q + Δ, the documented pair
        (B queries moved by +Δ for sign +1)."""
        from verify.family import delta_search as ds

        calls: list[int] = []

        class Synthetic:
            def __init__(self, shape, score) -> None:
                pass

            def __call__(self, points):
                calls.append(len(points))
                assert len(calls) < 500, "the compass search does not end"
                return np.array([abs(float(u)) for _, u, _ in points])

        monkeypatch.setattr(ds, "_Scorer", Synthetic)
        monkeypatch.setattr(ds, "HAND_PICKED", ((Fraction(0), Fraction(0)),))
        monkeypatch.setattr(ds, "patterns", lambda shape, k: [ds.Pattern("B", 1)])
        shape = variant(z=("laplace", 2), x=("laplace", 2), cutoff=1)
        s, t, d = Fraction(2), shape.threshold, shape.sensitivity
        q, qn, val = ds.search_pair(shape, None, 1, 1)
        assert q == (t + ds.REACH * s,) and qn == (t + ds.REACH * s + d,)
        assert val == float(ds.REACH * s)

    def test_search_pair_returns_the_best_final_state_not_the_best_start(self, monkeypatch) -> None:
        """Rule (delta_search module docstring, step 2: the search ends at least as high as every start, and
        `search_pair` returns the best pair): of the refined states, the one with the highest score is returned.
        Two patterns "B" (sign +1, then -1), one start each at u = 0 (grid 1, hand-picked shapes monkeypatched to
        (0, 0) only); synthetic scores: sign +1 is flat at 1 (its start is the best start, and no move beats it),
        sign -1 is 1/2 + |u|/s, which climbs (first tied move +h) to the reach 16s, score 16.5 > 1.  Both states end
        with the same step s/2^9, so only the score tells them apart: the pair returned is sign -1's,
        q = (t + 16s,), q' = q - Δ (B queries moved by sign·Δ)."""
        from verify.family import delta_search as ds

        s = Fraction(2)

        class Synthetic:
            def __init__(self, shape, score) -> None:
                pass

            def __call__(self, points):
                return np.array([1.0 if p.sign > 0 else 0.5 + abs(float(u / s)) for p, u, _ in points])

        monkeypatch.setattr(ds, "_Scorer", Synthetic)
        monkeypatch.setattr(ds, "HAND_PICKED", ((Fraction(0), Fraction(0)),))
        monkeypatch.setattr(ds, "patterns", lambda shape, k: [ds.Pattern("B", 1), ds.Pattern("B", -1)])
        shape = variant(z=("laplace", 2), x=("laplace", 2), cutoff=1)
        t, d = shape.threshold, shape.sensitivity
        q, qn, val = ds.search_pair(shape, None, 1, 1)
        assert q == (t + ds.REACH * s,) and qn == (t + ds.REACH * s - d,)
        assert val == 0.5 + ds.REACH

    def test_delta_at_names_the_first_of_two_outputs_with_equal_terms(self) -> None:
        """Rule (`PairProfile.delta_at`'s tie rule): of outputs whose terms P_s - e^{ε'} P'_s are exactly equal, the
        first in ``outputs`` is named.  Synthetic profile, ε' = 0: P = (1/4, 1/2, 1/4), P' = (1/8, 3/8, 1/8), terms
        1/8, 1/8, 1/8 (exact binary fractions): the first output "A" is named, and δ(0) = 3/8."""
        from verify.family.delta import PairProfile

        mp = mpmath.mpf
        prof = PairProfile(("A", "BA", "BB"), (mp(1) / 4, mp(1) / 2, mp(1) / 4), (mp(1) / 8, mp(3) / 8, mp(1) / 8), 20)
        total, top = prof.delta_at(Fraction(0))
        assert top == "A" and total == mp(3) / 8

    def test_pair_profile_default_precision_is_thirty_digits(self) -> None:
        """Rule (`pair_profile(..., digits=30)`): without ``digits`` the profile is computed at, and says, 30 digits."""
        from verify.family.delta import pair_profile

        prof, _, _ = pair_profile(variant(z=("laplace", 2), x=("laplace", 3)), (Fraction(0),), (Fraction(1),))
        assert prof.digits == 30

    def test_epsilon_for_delta_default_precision_is_thirty_digits(self) -> None:
        """Rule (`epsilon_for_delta(..., digits=30)`): without ``digits`` the result is computed at, and says, 30 digits."""
        from verify.family.delta import epsilon_for_delta

        r = epsilon_for_delta(variant(z=("laplace", 2), x=("laplace", 3)), (Fraction(0),), (Fraction(1),), Fraction(1, 100))
        assert r.digits == 30

    def test_delta_at_infinity_is_the_mass_without_neighbour_mass_to_the_profile_digits(self) -> None:
        """Rule (`PairProfile.delta_at_infinity`): lim δ(ε') as ε' -> ∞ is Σ P_s over the outputs with P'_s = 0, to the
        profile's ``digits`` (the probabilities are known to those digits, the sum must not lose them).  Synthetic
        profile at 20 digits (the probabilities given at 40): P = (1/3, 1/7, 1/5), P' = (0, 0, 1/5): the limit is
        1/3 + 1/7 = 10/21, exact rational arithmetic, matched to 10^-20 relative."""
        from verify.family.delta import PairProfile

        with mpmath.workdps(40):
            p = (_mp(Fraction(1, 3)), _mp(Fraction(1, 7)), _mp(Fraction(1, 5)))
            pn = (mpmath.mpf(0), mpmath.mpf(0), _mp(Fraction(1, 5)))
        got = PairProfile(("A", "BA", "BB"), p, pn, 20).delta_at_infinity()
        with mpmath.workdps(40):
            want = _mp(Fraction(1, 3) + Fraction(1, 7))
            assert abs(got - want) <= mpmath.mpf(10) ** -20 * want
