"""The released values' densities in the oracle, the integrand and the closed form.

Re-homed from the mutation rounds' files (`test_family_mutation_kills3.py`, `test_family_mutation_kills4_core.py`, `test_family_mutation_kills6_densities.py`); each class or test keeps its name, so
docs/mutation.md and `benchmarks/mutation_score.py` still find it.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from family_variants import variant

from verify.family.probability import evaluate
from verify.mechanism import SparseVector
from verify.noise import NoiseSpec
from verify.oracles import family as oracle
from verify.oracles import rule as oracle_rule
from verify.oracles.family import output_probability

TOL = mpmath.mpf(10) ** -25
_POINTS_FOR = oracle_rule.points_for  # the real rule, before any test replaces it


def _variant(z: tuple[str, int], x: tuple[str, int], release: str = "none",
             y: tuple[str, int] | None = None) -> SparseVector:
    """ε = 1/10, Δ = 1, t = 0, cutoff 1, shared threshold; noise scales absolute (``(family, scale)``)."""
    return SparseVector(Fraction(1, 10), Fraction(1), Fraction(0), NoiseSpec(z[0], absolute=Fraction(z[1])),
                        NoiseSpec(x[0], absolute=Fraction(x[1])), cutoff=1, release=release,
                        release_spec=None if y is None else NoiseSpec(y[0], absolute=Fraction(y[1])))


def _mp(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


class _SlopeSpy:
    """Records the slope `_segment` asks `oracle_rule.points_for` for, and answers with the real rule."""

    def __init__(self) -> None:
        self.slopes: list[float] = []

    def __call__(self, dps: int, slope: float = 3.0) -> int:
        self.slopes.append(slope)
        assert 0 < slope <= 20, f"slope {slope}: far from the rule (and its rule would be needlessly long)"
        return _POINTS_FOR(dps, slope)


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


# --- release-densities: the exact oracle's release switch ---------------------------------------------------------------
class TestReleaseDensityKills4:
    """The gap release's support in the exact oracle."""

    def test_gap_density_is_the_density_of_x_minus_z_on_the_whole_half_line(self):
        """Rule (`_segment`, the gap release: ``nonnegative``): the released gap g = q + X - (t + Z) is >= 0 exactly when
        the query is above (q + X >= t + Z), so its density is that of X - Z at g - (q - t) for every g >= 0, the edge
        g = 0 and gaps below 1 included, and 0 for g < 0.  Laplace X and Z with b = 2, t = 0, q = 1: the density of
        W = X - Z is (1 + |w|/b)e^{-|w|/b}/(4b) (the convolution of two Laplace densities), at w = g - 1."""
        s = variant(z=("laplace", 2), x=("laplace", 2), release="gap")
        with mpmath.workdps(40):
            for g in (Fraction(0), Fraction(1, 2), Fraction(3, 2)):
                w = abs(mpmath.mpf(g.numerator) / g.denominator - 1) / 2
                want = (1 + w) * mpmath.exp(-w) / 8
                got = output_probability(s, (Fraction(1),), "A", (g,), 30)
                assert abs(got - want) < mpmath.mpf(10) ** -25 * want, g
            assert output_probability(s, (Fraction(1),), "A", (Fraction(-1, 2),), 30) == 0

    def test_without_any_noise_a_query_equal_to_the_threshold_is_above(self):
        """Rule (the seed's AboveThreshold: the i-th query is above when q_i + X_i >= t + Z, so a tie goes to A;
        `_cdf_below` and `_sf` of the absent noise: F(y) = Pr[0 < y], S(y) = Pr[0 >= y]): with no threshold and no query
        noise, a query at t is an A with probability 1 and a B with probability 0; a query 10^-9 below t is a B."""
        s = variant(z=("none", 1), x=("none", 1))
        t, tiny = s.threshold, Fraction(1, 10**9)
        assert output_probability(s, (t,), "A", (), 30) == 1 and output_probability(s, (t,), "B", (), 30) == 0
        assert output_probability(s, (t - tiny,), "B", (), 30) == 1 and output_probability(s, (t - tiny,), "A", (), 30) == 0
        assert output_probability(s, (t - tiny, t), "BA", (), 30) == 1

    def test_without_threshold_noise_every_factor_of_the_integrand_counts(self):
        """Rule (`_segment` without threshold noise: the probability is the integrand at z = 0, the product of every
        query's factor): Laplace X with b = 2, t = 0, queries (1, -1, 1) and outcome BBA at cutoff 1:
        F_X(-1) · F_X(1) · S_X(-1) = (e^{-1/2}/2) · (1 - e^{-1/2}/2) · (1 - e^{-1/2}/2) (textbook Laplace F and S),
        at 30 digits on the oracle's no-threshold-noise path."""
        s = variant(z=("none", 1), x=("laplace", 2))
        with mpmath.workdps(40):
            h = mpmath.exp(-mpmath.mpf(1) / 2) / 2
            want = h * (1 - h) * (1 - h)
            got = output_probability(s, (Fraction(1), Fraction(-1), Fraction(1)), "BBA", (), 30)
            assert abs(got - want) < mpmath.mpf(10) ** -25

    @pytest.mark.parametrize("law", ["laplace", "exponential"])
    def test_closed_form_gap_density_without_threshold_noise(self, law):
        """Rule (`verify.engine.piecewise` `point` for a density term, no threshold noise: z = 0): the released gap
        g = q + X - t has the density p_X(g - (q - t)); textbook densities with b = 2, t = 0, q = 1: Laplace
        e^{-|y|/2}/4, exponential e^{-y/2}/2 for y >= 0 (1/2 at y = 0) and 0 below; y = g - 1 for g in {0, 1/2, 1, 3/2, 3},
        on the closed-form path at 30 digits (and the exact oracle agrees)."""
        from verify.family.probability import evaluate

        s = variant(z=("none", 1), x=(law, 2), release="gap")
        with mpmath.workdps(40):
            for g in (Fraction(0), Fraction(1, 2), Fraction(1), Fraction(3, 2), Fraction(3)):
                y = mpmath.mpf(g.numerator) / g.denominator - 1
                if law == "laplace":
                    want = mpmath.exp(-abs(y) / 2) / 4
                else:
                    want = mpmath.exp(-y / 2) / 2 if y >= 0 else mpmath.mpf(0)
                got = evaluate(s, [1], "A", [g], method="closed")
                assert got.method == "closed form" and abs(got.value - want) < mpmath.mpf(10) ** -25, (law, g)
                assert abs(output_probability(s, (Fraction(1),), "A", (g,), 30) - want) < mpmath.mpf(10) ** -25, (law, g)


class TestReleaseDensityKills6:
    """The query release's cap without threshold noise, the kinks below the cap, the Gauss-Legendre slope rule and
    the closed form's constant density of an exponential release noise."""

    def test_query_release_at_or_just_above_the_threshold_without_threshold_noise(self):
        """Rule (`_segment`, Z absent, query release: v = q + X is released on the event q + X >= t): the threshold is
        t exactly, so a released v >= t (v = t included: a tie is an A) has density p_X(v - q) = e^{-|v-q|/b}/(2b),
        and v < t has density 0.  Laplace X with b = 2, t = 0, q = 1, v in {0, 1/2, 2, -1/2}; on the exact
        oracle and on the closed form at 30 digits."""
        s = _variant(z=("none", 1), x=("laplace", 2), release="query")
        with mpmath.workdps(40):
            for v in (Fraction(0), Fraction(1, 2), Fraction(2), Fraction(-1, 2)):
                want = mpmath.exp(-abs(_mp(v) - 1) / 2) / 4 if v >= 0 else mpmath.mpf(0)
                got = oracle.output_probability(s, (Fraction(1),), "A", (v,), 30)
                assert abs(got - want) < TOL, (v, got, want)
                closed = evaluate(s, [1], "A", [v], method="closed")
                assert closed.method == "closed form" and abs(closed.value - want) < TOL, (v, closed.value, want)

    @pytest.mark.parametrize("law", ["laplace", "gaussian"])
    def test_kinks_handed_to_the_integrators_lie_strictly_below_the_cap(self, monkeypatch, law):
        """Rule (`_segment` -> `_closed_form` / `_mass_panels`: "pts are distinct, sorted, below cap"; the cap is the
        panel's last edge): a query release v = q, so the cap v - t equals the kink q - t, which must not be handed
        on as a point.  And the value is the textbook density: p_X(0)·Pr[Z <= v - t] with X, Z of scale 2, t = 0,
        q = v = 1: Laplace (1/4)(1 - e^{-1/2}/2), Gaussian (1/(2√(2π)))·Φ(1/2)."""
        s = _variant(z=(law, 2), x=(law, 2), release="query")
        seen: list[tuple[list[Fraction], Fraction | None]] = []
        name = "_closed_form" if law == "laplace" else "_mass_panels"
        real = getattr(oracle, name)

        def spy(shape, q, outcome, v, a_index, seg, pts, cap, *args, **kwargs):
            seen.append((list(pts), cap))
            return real(shape, q, outcome, v, a_index, seg, pts, cap, *args, **kwargs)

        monkeypatch.setattr(oracle, name, spy)
        digits = 30 if law == "laplace" else 20
        with mpmath.workdps(40):
            got = oracle.output_probability(s, (Fraction(1),), "A", (Fraction(1),), digits)
            if law == "laplace":
                want = (1 - mpmath.exp(-mpmath.mpf(1) / 2) / 2) / 4
            else:
                want = mpmath.ncdf(mpmath.mpf(1) / 2) / (2 * mpmath.sqrt(2 * mpmath.pi))
            assert abs(got / want - 1) < mpmath.mpf(10) ** -(digits - 2), (got, want)
        assert seen
        for pts, cap in seen:
            assert cap == 1 and pts == sorted(set(pts)) and all(k < cap for k in pts), (pts, cap)
            assert pts == [Fraction(0)], pts

    @pytest.mark.slow
    def test_gauss_legendre_slope_scales_with_the_two_layouts(self, monkeypatch):
        """Rule (`_segment`'s comment: "the slope per half-panel is at most 3 on 2·digits + 20 panels and shrinks as
        the panels do"): the points per panel are `points_for(dps, 3·(2·digits + 20)/panels)`, and
        `output_probability` compares the layouts of 2·digits + 20 and 2·(2·digits + 20) panels, so the slopes asked
        for are 3 and 3/2.  Gaussian X and Z, two queries (no one-query closed form), 20 digits."""
        spy = _SlopeSpy()
        monkeypatch.setattr(oracle_rule, "points_for", spy)
        s = _variant(z=("gaussian", 1), x=("gaussian", 1))
        oracle.output_probability(s, (Fraction(0), Fraction(1)), "BA", (), 20)
        assert sorted(set(spy.slopes)) == [1.5, 3.0], spy.slopes

    @pytest.mark.slow
    def test_gauss_legendre_slope_of_the_default_layout(self, monkeypatch):
        """Rule (`_segment` called with its defaults: `output_probability`'s 30 digits, no panel count, so
        `_mass_panels` lays 2·digits panels): the slope is 3·(2·30 + 20)/(2·30) = 4, the same as with digits = 30 given
        explicitly; at digits = 20 given it is 3·60/40 = 9/2.  Gaussian X and Z, queries (0, 1), outcome BA."""
        s = _variant(z=("gaussian", 1), x=("gaussian", 1))
        q, outcome, a_index = [Fraction(0), Fraction(1)], "BA", {1: 0}
        (seg,) = oracle.segments(s, outcome)
        slopes = []
        for kwargs in ({}, {"digits": 30}, {"digits": 20}):
            spy = _SlopeSpy()
            monkeypatch.setattr(oracle_rule, "points_for", spy)
            with mpmath.workdps(30):
                assert oracle._segment(s, q, outcome, [], a_index, seg, **kwargs) > 0
            slopes.append(spy.slopes)
        assert slopes == [[4.0], [4.0], [4.5]], slopes

    @pytest.mark.parametrize("y", [Fraction(-1), Fraction(0), Fraction(1, 2), Fraction(3)])
    def test_fresh_exponential_release_density_on_both_sides_of_zero(self, y):
        """Rule (`ClosedForm.constant` and the oracle's `_pdf`: the fresh release v = q + Y has the density
        p_Y(v - q) times Pr[A]): exponential Y with b = 2 has p_Y(y) = e^{-y/2}/2 on y >= 0 (1/2 at y = 0) and 0 below;
        without threshold noise and with Laplace X (b = 2), t = 0, q = 1: Pr[A] = S_X(-1) = 1 - e^{-1/2}/2."""
        s = _variant(z=("none", 1), x=("laplace", 2), release="fresh", y=("exponential", 2))
        v = 1 + y
        with mpmath.workdps(40):
            p_y = mpmath.exp(-_mp(y) / 2) / 2 if y >= 0 else mpmath.mpf(0)
            want = p_y * (1 - mpmath.exp(-mpmath.mpf(1) / 2) / 2)
            closed = evaluate(s, [1], "A", [v], method="closed")
            assert closed.method == "closed form" and abs(closed.value - want) < TOL, (y, closed.value, want)
            assert abs(oracle.output_probability(s, (Fraction(1),), "A", (v,), 30) - want) < TOL, y
