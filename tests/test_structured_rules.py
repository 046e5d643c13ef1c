"""The structured evaluator and its layouts (`verify.family.structured`).

Re-homed from the mutation rounds' files (`test_family_mutation_kills.py`, `test_family_mutation_kills3.py`, `test_family_mutation_kills4_core.py`, `test_family_mutation_kills6_struct.py`); each class or test keeps its name, so
docs/mutation.md and `benchmarks/mutation_score.py` still find it.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from family_variants import variant
from numpy_libm import LIBM
from scipy import integrate

from verify.family import structured as S
from verify.family.delta import complete_outputs
from verify.family.structured import Layout, family_log_probability, layouts
from verify.noise.spec import Noise
from verify.oracles.family import output_probability


def _documented_panels(bz, bx, z_gauss, x_gauss, n_b, n_a, kinks, a_factor=True):
    """The float64 quadrature's panel count for one point, from the constants' documentation (`verify.family.structured`):
    beyond the outermost kink the integrand decays at least at the threshold's rate 1/b_Z plus, when both noises are
    Laplace/exponential, the query factors' n/b_X (B's on the left, A's with a factor on the right); TAIL_EFOLDS = 40
    e-folds are cut there, or GAUSSIAN_TAIL_SCALES = 12 σ_Z for Gaussian threshold noise; one panel per PANEL_EFOLDS = 10
    e-folds of the widest segment at the rate 1/b_Z + (n_B + n_A)/b_X (GAUSSIAN_RATE_FACTOR = 8 times finer when
    either noise is Gaussian), clipped to [MIN_PANELS, MAX_PANELS] = [4, 400]."""
    piece = not (z_gauss or x_gauss)
    left = 1 / bz + (n_b / bx if piece else 0)
    right = 1 / bz + (n_a / bx if piece and a_factor else 0)
    k = sorted(kinks)
    edges = [k[0] - (12 * bz if z_gauss else 40 / left)] + k + [k[-1] + (12 * bz if z_gauss else 40 / right)]
    widest = max(b - a for a, b in zip(edges, edges[1:]))
    rate = (1 / bz + (n_b + n_a) / bx) * (1 if piece else 8)
    return min(400, max(4, math.ceil(rate * widest / 10)))


def _threshold_nodes(monkeypatch, shape, n_b: int, n_a: int, u: float, v: float, r: float = 0.0) -> np.ndarray:
    """Every quadrature node z at which `_segment_points` evaluates the threshold noise's density p_Z (t = 0)."""
    seen: list[np.ndarray] = []
    real = Noise.log_pdf
    zn = shape.threshold_noise

    def log_pdf(self, x):
        if self == zn:
            seen.append(np.array(x, dtype=float).reshape(-1))
        return real(self, x)

    _reference_path(monkeypatch, lambda: monkeypatch.setattr(Noise, "log_pdf", log_pdf), shape, n_b, n_a,
                    np.array([u]), np.array([v]), np.array([r]))
    assert seen
    return np.concatenate(seen)


def _reference_path(monkeypatch, spy, shape, n_b: int, n_a: int, u, v, r, groups=None) -> np.ndarray:
    """`_segment_points` on numpy's loop with ``spy()``'s spies installed (they watch numpy's steps), after checking
    that the compiled loop (`verify.family.structured_kernel`, whose inner steps no spy sees) gives the same bits
    (where numpy's elementary functions are libm's: tests/numpy_libm.py)."""
    S.load_compiled()
    compiled = S._segment_points(shape, n_b, n_a, u, v, r, groups)
    monkeypatch.setattr(S, "USE_COMPILED", False)
    spy()
    out = S._segment_points(shape, n_b, n_a, u, v, r, groups)
    if LIBM:  # (where numpy has AVX-512 loops of its own, tests/test_structured_kernel.py compares in a child)
        assert np.array_equal(compiled.view(np.int64), out.view(np.int64))
    return out


# --- the structured search's float64 objective -----------------------------------------------------------------------
class TestStructuredKills:
    """`family_log_probability` and `layouts` against identities of the model."""

    @pytest.mark.parametrize("z,x", [("laplace", "laplace"), ("exponential", "laplace"), ("laplace", "exponential"),
                                     ("exponential", "exponential"), ("gaussian", "gaussian"), ("none", "laplace"),
                                     ("laplace", "gaussian"), ("gaussian", "laplace")])
    @pytest.mark.parametrize("cutoff", [1, 2])
    def test_probabilities_of_all_complete_outputs_sum_to_one(self, z, x, cutoff):
        """Rule: with every query at t + w, each complete output of K queries has the probability of its letter counts'
        layout (order does not matter under one threshold draw), and these probabilities sum to 1 over all outputs."""
        s = variant(z=(z, 2), x=(x, 3), cutoff=cutoff)
        K = 3
        for w in (-5.0, -0.5, 0.0, 1.5, 7.0):
            total = 0.0
            for o in complete_outputs(s, K):
                lp = family_log_probability(s, Layout(o.count("B"), o.count("A")), w, w, 0.0)[0]
                total += math.exp(lp)
            assert abs(total - 1) < 1e-9, (w, total)

    @pytest.mark.parametrize("release,y", [("fresh", ("laplace", 5 / 2)), ("fresh", ("exponential", 2.0)),
                                           ("query", None), ("gap", None)])
    def test_release_density_integrates_to_the_probability_without_release(self, release, y):
        """Rule: ∫ exp(family_log_probability) over the released value (r: the gap, or the value relative to t)
        equals the probability of the same layout without a release (one A, so one released value)."""
        base = variant(z=("laplace", 2), x=("laplace", 3), cutoff=1)
        rel = variant(z=("laplace", 2), x=("laplace", 3), cutoff=1, release=release,
                      y=None if y is None else (y[0], Fraction(y[1]).limit_denominator(100)))
        lay = Layout(2, 1)
        for u, v in ((-1.0, 0.5), (2.0, -3.0)):
            pr = math.exp(family_log_probability(base, lay, u, v, 0.0)[0])
            lo = 0.0 if release == "gap" else -math.inf
            pts = sorted({p for p in (0.0, u, v, v - 1, v + 1) if p > lo})
            f = lambda r, u=u, v=v: math.exp(family_log_probability(rel, lay, u, v, r)[0])  # noqa: E731
            edges = [lo, *pts, math.inf]
            total = sum(integrate.quad(f, a, b, epsabs=1e-13, epsrel=1e-10, limit=200)[0] for a, b in zip(edges, edges[1:]))
            assert abs(total / pr - 1) < 1e-7, (u, v, total, pr)

    @pytest.mark.parametrize("K", [1, 3, 4])
    def test_resampling_with_cutoff_one_has_the_shared_layouts(self, K):
        """Rule: with cutoff 1 the run halts at the first A, before any resampling, so the resampled threshold's layouts
        give the same outcome strings as the shared threshold's (B^{j}A for every j < K, and B^K)."""
        shared, resample = variant(cutoff=1), variant(cutoff=1, policy="resample")
        want = {"B" * j + "A" for j in range(K)} | {"B" * K}
        assert {lay.string(shared) for lay in layouts(shared, K)} == want
        assert {lay.string(resample) for lay in layouts(resample, K)} == want

    @pytest.mark.parametrize("policy", ["shared", "resample"])
    def test_layout_strings_are_complete_outputs_with_their_counts(self, policy):
        """Rule: every layout's string is a complete output of its k queries (halting at the c-th A), with n_B B's and
        n_A A's; k = n_B + n_A."""
        for cutoff in (1, 2, 3, None):
            s = variant(cutoff=cutoff, policy=policy)
            for lay in layouts(s, 4, every_k=True):
                o = lay.string(s)
                assert lay.k == lay.n_b + lay.n_a == len(o)
                assert o in complete_outputs(s, lay.k), (cutoff, o)


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


# --- family-structured: the float64 objective ---------------------------------------------------------------------------
class TestStructuredKills4:
    """The query release's cap in the float64 objective."""

    def test_query_release_without_threshold_noise_allows_a_released_value_equal_to_t(self):
        """Rule (`_segment_points`' cap z <= r, the query release; `verify.release.query`): given Z = z, a released value
        t + r is possible exactly when t + r >= t + z, i.e. z <= r, a closed condition.  Without threshold noise z = 0:
        a released value equal to t (r = 0) has density p_X(r - v) > 0, below t (r < 0) density 0.  Laplace X, b = 2,
        the A query at t + 1: log p_X(-1) = -1/2 - log 4; the exact oracle agrees at r = 0 and is 0 at r = -1/10^9."""
        from verify.family.structured import family_log_probability, layouts

        s = variant(z=("none", 1), x=("laplace", 2), release="query")
        lay = next(lay for lay in layouts(s, 1) if lay.n_a == 1)
        got = family_log_probability(s, lay, [0.0, 0.0], [1.0, 1.0], [0.0, -1e-9])
        assert abs(got[0] - (-0.5 - math.log(4))) < 1e-12 and got[1] == -np.inf
        with mpmath.workdps(30):
            t = s.threshold
            at_t = output_probability(s, (t + 1,), "A", (t,), 30)
            assert abs(mpmath.log(at_t) - (-mpmath.mpf(1) / 2 - mpmath.log(4))) < mpmath.mpf(10) ** -25
            assert output_probability(s, (t + 1,), "A", (t - Fraction(1, 10**9),), 30) == 0

    def test_panel_rules_are_read_only(self):
        """Rule (`_panel_rule`: "nodes t in (0, 1) and log weights ... (read-only)"): the rules are cached and shared by
        every later call, so a caller cannot write into them; the nodes lie in (0, 1) and the weights sum to 1 (a rule
        on [0, 1]: Gauss-Legendre's weights sum to the interval's length)."""
        from verify.family import structured as S

        for sub in (4, 7):
            t, log_wq = S._panel_rule(sub)
            assert t.size == 16 * sub and 0 < t.min() and t.max() < 1
            assert abs(np.exp(log_wq).sum() - 1) < 1e-14
            for a in (t, log_wq):
                with pytest.raises(ValueError):
                    a[0] = 0.5

    def test_the_memo_keeps_the_values_of_the_last_memo_size_calls(self, monkeypatch):
        """Rule (`MEMO_SIZE`, `_segment_log`: "the values of the last `MEMO_SIZE` calls are kept"): with MEMO_SIZE = 3,
        after the calls a, b, c, a (a remembered: no new evaluation), d, the last three calls are c, a, d: those
        three are remembered, b is evaluated again.  Evaluations counted at `_segment_points` (the fresh release,
        whose r enters neither the integrand nor its kinks, so it is remembered)."""
        from verify.family import structured as S

        shape = variant(release="fresh", y=("laplace", 30))
        assert S._r_free(shape)
        monkeypatch.setattr(S, "MEMO_SIZE", 3)
        real = S._segment_points
        runs: list[float] = []

        def counted(shape, n_b, n_a, u, v, r, groups=None):
            runs.append(float(u[0]))
            return real(shape, n_b, n_a, u, v, r, groups)

        monkeypatch.setattr(S, "_segment_points", counted)
        S.clear_memo()
        one = np.zeros(1)

        def call(x):
            return S._segment_log(shape, 2, 1, np.array([x]), one, one)

        values = {x: call(x)[0] for x in (1.0, 2.0, 3.0)}
        assert call(1.0)[0] == values[1.0] and runs == [1.0, 2.0, 3.0]
        call(4.0)
        assert len(S._MEMO) == 3 and runs == [1.0, 2.0, 3.0, 4.0]
        for x in (3.0, 1.0, 4.0):  # remembered
            call(x)
        assert runs == [1.0, 2.0, 3.0, 4.0]
        assert call(2.0)[0] == values[2.0] and runs == [1.0, 2.0, 3.0, 4.0, 2.0]  # forgotten: evaluated again
        S.clear_memo()

    def test_logsumexp_of_rows_and_its_scratch_mode(self):
        """Rule (`_logsumexp`): log Σ exp(x) along an axis, -inf for a row of zeros (all -inf); ``overwrite=False`` (the
        default) leaves x as it was, ``overwrite=True`` may use it as scratch and gives the same values.  Expected values
        from math.fsum of the exponentials (rows shifted so that no exp underflows: 1000 + log(1 + e^-1 + e^-2), etc.)."""
        from verify.family.structured import _logsumexp

        x = np.array([[1000.0, 999.0, 998.0], [-np.inf, -np.inf, -np.inf], [0.0, -np.inf, math.log(3.0)]])
        want = [1000.0 + math.log(math.fsum([1.0, math.exp(-1.0), math.exp(-2.0)])), -np.inf, math.log(4.0)]
        keep = x.copy()
        got = _logsumexp(x, axis=1)
        assert np.array_equal(x, keep)  # not used as scratch by default
        assert got[1] == -np.inf and abs(got[0] - want[0]) < 1e-12 and abs(got[2] - want[2]) < 1e-15
        scratch = _logsumexp(x.copy(), axis=1, overwrite=True)
        assert scratch[1] == -np.inf and np.allclose(scratch[[0, 2]], got[[0, 2]], rtol=0, atol=1e-15)
        cols = _logsumexp(x.T.copy(), axis=0)  # along the other axis: the same sums
        assert cols[1] == -np.inf and np.allclose(cols[[0, 2]], got[[0, 2]], rtol=0, atol=1e-15)

    def test_a_probability_zero_on_every_node_is_log_zero(self):
        """Rule (`family_log_probability`: log Pr): exponential threshold noise (Z >= 0) and the query release capping it
        at the released value, z <= r: with r = -1 no z is possible, Pr = 0 exactly, log = -inf (the exact oracle: 0);
        at r = 1 (t = 0, the A query at v = 2, b_X = b_Z = 2) Pr > 0: the density p_X(r - v) times Pr[Z <= r] = 1 - e^{-1/2}."""
        from verify.family.structured import family_log_probability, layouts

        s = variant(z=("exponential", 2), x=("laplace", 2), release="query")
        lay = next(lay for lay in layouts(s, 1) if lay.n_a == 1)
        got = family_log_probability(s, lay, [0.0, 0.0], [2.0, 2.0], [-1.0, 1.0])
        assert got[0] == -np.inf
        want = math.log(math.exp(-0.5) / 4) + math.log(-math.expm1(-0.5))
        assert abs(got[1] - want) < 1e-9
        assert output_probability(s, (Fraction(2),), "A", (Fraction(-1),), 30) == 0


class TestQuadratureKills4:
    """The float64 objective's panels follow their documented rule."""

    @pytest.mark.parametrize("z, x, release, n_b, n_a, point", [
        (("laplace", 2), ("laplace", 3), "none", 2, 1, (0.0, 0.0, 0.0)),  # the tails are the widest segments
        (("laplace", 2), ("laplace", 3), "none", 0, 1, (0.0, 5.0, 0.0)),
        (("laplace", 2), ("laplace", 3), "none", 3, 0, (-4.0, 0.0, 0.0)),
        (("laplace", 2), ("laplace", 3), "none", 1, 2, (200.0, -150.0, 0.0)),  # an inner segment is the widest
        (("exponential", 5), ("laplace", 1), "none", 4, 1, (1.0, -2.0, 0.0)),
        (("laplace", 2), ("laplace", 3), "gap", 1, 1, (30.0, 0.0, 100.0)),  # the gap's kink v - r is the outermost
        (("laplace", 2), ("laplace", 3), "query", 1, 1, (1.0, 2.0, 100.0)),  # the cap r; the A's carry no factor
        (("gaussian", 2), ("gaussian", 3), "none", 2, 1, (0.0, 1.0, 0.0)),
        (("gaussian", 2), ("laplace", 3), "none", 1, 1, (30.0, -1.0, 0.0)),
        (("laplace", 2), ("gaussian", 3), "none", 2, 2, (0.0, 1.0, 0.0)),
        (("laplace", 0.01), ("laplace", 3), "none", 1, 1, (0.0, 100.0, 0.0)),  # clipped to 400
        (("laplace", 200), ("laplace", 300), "none", 0, 1, (0.0, 0.0, 0.0)),  # few panels
    ])
    def test_panel_count_is_the_documented_one(self, monkeypatch, z, x, release, n_b, n_a, point):
        """Rule (`_segment_points`; the quadrature's constants): the number of Gauss-Legendre sub-panels per segment is
        `_documented_panels` for the point, recomputed here from the documentation (kinks 0, u, v; v - r for the gap;
        r for the query release's cap); the panel rule asked for is recorded."""
        from verify.family import structured as S

        asked: list[int] = []
        real = S._panel_rule
        zs, xs = Fraction(z[1]).limit_denominator(100), Fraction(x[1]).limit_denominator(100)
        s = variant(z=(z[0], zs), x=(x[0], xs), release=release)
        u, v, r = point
        kinks = [0.0, u, v] + ([v - r] if release == "gap" else []) + ([r] if release == "query" else [])
        want = _documented_panels(float(zs), float(xs), z[0] == "gaussian", x[0] == "gaussian", n_b, n_a, kinks,
                                  a_factor=release != "query")
        _reference_path(monkeypatch, lambda: monkeypatch.setattr(S, "_panel_rule", lambda sub: asked.append(sub) or real(sub)),
                        s, n_b, n_a, np.array([u]), np.array([v]), np.array([r]))
        assert asked == [want]

    def test_the_widest_point_of_a_group_sets_its_panels(self, monkeypatch):
        """Rule (`_segment_points`: "the number of sub-panels is set by the widest point of each group"): two groups of
        two points; each group's count is the larger of its points' documented counts (Laplace b_Z = 2, b_X = 3,
        layout BBA)."""
        from verify.family import structured as S

        asked: list[int] = []
        real = S._panel_rule
        s = variant(z=("laplace", 2), x=("laplace", 3))
        u, v = np.array([0.0, 60.0, 0.0, 300.0]), np.array([0.0, -10.0, 1.0, 0.0])
        each = [_documented_panels(2.0, 3.0, False, False, 2, 1, [0.0, a, b]) for a, b in zip(u, v)]
        _reference_path(monkeypatch, lambda: monkeypatch.setattr(S, "_panel_rule", lambda sub: asked.append(sub) or real(sub)),
                        s, 2, 1, u, v, np.zeros(4), groups=((0, 2), (2, 4)))
        assert sorted(set(asked)) == sorted({max(each[:2]), max(each[2:])}) and len(set(each)) > 2


class TestLayoutsKills4:
    """Each letter-count class once."""

    @pytest.mark.parametrize("cutoff", [None, 1, 2])
    def test_resampled_layouts_are_each_class_once(self, cutoff):
        """Rule (`layouts`: "every letter-count class of complete outputs ... (O(cK), not 2^K)"): each class once, so no
        two layouts share their outcome string; with a resampled threshold and K = 4 queries each string is a complete
        output: 4 letters, or ending at the c-th A."""
        from verify.family.structured import layouts

        s = variant(cutoff=cutoff, policy="resample")
        got = [lay.string(s) for lay in layouts(s, 4)]
        assert len(got) == len(set(got))
        assert all(len(x) == 4 or (x.count("A") == cutoff and x.endswith("A")) for x in got)


class TestStructuredKills6:
    """The float64 objective's integration range, and the outcome string of a layout."""

    @pytest.mark.parametrize("x, n_b, n_a", [(("gaussian", 3), 1, 1), (("gaussian", 3), 0, 2),
                                             (("laplace", 3), 1, 1), (("laplace", 3), 0, 2)])
    def test_tails_are_cut_forty_e_folds_out_at_the_documented_rates(self, monkeypatch, x, n_b, n_a):
        """Rule (`_segment_points`, TAIL_EFOLDS = 40): beyond the outermost kink the integrand decays at least at the
        threshold's rate 1/b_Z plus, only when both noises are Laplace/exponential, the query factors' (n_B/b_X on the
        left, n_A/b_X on the right); the range is cut 40 e-folds out at that rate.  A Gaussian X's factors are not
        counted (its rate is not a constant), so the range is [k_min - 40·b_Z, k_max + 40·b_Z].  Laplace Z, b_Z = 2,
        kinks 0, u = 0, v = 5: the nodes lie strictly inside [lo, hi], and the last (first) of them in the outermost
        segment's last (first) quarter, since every segment has at least MIN_PANELS = 4 equal sub-panels."""
        bz, bx = 2.0, 3.0
        s = variant(z=("laplace", 2), x=x)
        piece = x[0] == "laplace"
        left = 1 / bz + (n_b / bx if piece else 0.0)
        right = 1 / bz + (n_a / bx if piece else 0.0)
        k_min, k_max = 0.0, 5.0
        lo, hi = k_min - 40 / left, k_max + 40 / right
        z = _threshold_nodes(monkeypatch, s, n_b, n_a, 0.0, k_max)
        assert S.MIN_PANELS == 4 and S.TAIL_EFOLDS == 40.0
        assert lo < z.min() < lo + (k_min - lo) / 4, (z.min(), lo)
        assert hi - (hi - k_max) / 4 < z.max() < hi, (z.max(), hi)

    @pytest.mark.parametrize("cutoff", [None, 1, 2, 3])
    def test_shared_outcome_strings_are_the_documented_ones(self, cutoff):
        """Rule (`Layout`: ``string()``): with a shared threshold, B^{n_B} A^c when the run halted at its c-th A (the
        halting A last), else A^{n_A} B^{n_B} (the A's first).  Every layout of up to 4 queries (``every_k``); each
        string has the layout's counts, and only a halted run ends with its c-th A."""
        s = variant(cutoff=cutoff)
        lays = S.layouts(s, 4, every_k=True)
        assert any(0 < lay.n_a < (cutoff or 5) and lay.n_b for lay in lays) or cutoff == 1
        for lay in lays:
            halted = cutoff is not None and lay.n_a == cutoff
            want = "B" * lay.n_b + "A" * lay.n_a if halted else "A" * lay.n_a + "B" * lay.n_b
            assert lay.string(s) == want, (cutoff, lay)
