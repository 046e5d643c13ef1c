"""The release rules' attributes and refusals (`verify.release`).

Re-homed from the mutation rounds' files (`test_family_mutation_kills.py`, `test_family_mutation_kills3.py`, `test_family_mutation_kills5.py`, `test_family_mutation_kills6_delta.py`); each class or test keeps its name, so
docs/mutation.md and `benchmarks/mutation_score.py` still find it.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from family_variants import variant

from verify.family.sampler import sample
from verify.noise import NoiseSpec
from verify.oracles.family import output_probability


def mp(x) -> mpmath.mpf:
    x = Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


# --- the noise families' mpmath forms, as the release densities use them --------------------------------------------
def laplace_pdf(y, b):
    return mpmath.exp(-abs(y) / b) / (2 * b)


def laplace_cdf(y, b):  # Pr[X < y]
    return mpmath.exp(y / b) / 2 if y < 0 else 1 - mpmath.exp(-y / b) / 2


def exp_pdf(y, b):
    return mpmath.exp(-y / b) / b if y >= 0 else mpmath.mpf(0)


def exp_cdf(y, b):
    return 1 - mpmath.exp(-y / b) if y > 0 else mpmath.mpf(0)


def gauss_pdf(y, s):
    return mpmath.exp(-y * y / (2 * s * s)) / (s * mpmath.sqrt(2 * mpmath.pi))


def gauss_cdf(y, s):
    return mpmath.erfc(-y / (s * mpmath.sqrt(2))) / 2


# --- the survivors of the fifth sample (seed 2205) ------------------------------------------------------------------
def _variant(z, x, release="none", cutoff=1):
    from verify.mechanism import SparseVector
    from verify.noise.spec import NoiseSpec

    return SparseVector(Fraction(1, 10), Fraction(1), Fraction(0), NoiseSpec(z[0], absolute=Fraction(z[1])),
                        NoiseSpec(x[0], absolute=Fraction(x[1])), cutoff=cutoff, release=release)


class TestReleaseKills:
    """The densities a released value carries, and the distribution functions of the noise families."""

    POINTS = ("-7/2", "-1", "-1/1000", "0", "1/1000", "1", "5/2", "9")

    @pytest.mark.parametrize("family,pdf,cdf", [("laplace", laplace_pdf, laplace_cdf), ("exponential", exp_pdf, exp_cdf),
                                                ("gaussian", gauss_pdf, gauss_cdf)])
    @pytest.mark.parametrize("scale", ["1/3", "2", "7"])
    def test_mpmath_forms_are_the_textbook_pdf_cdf_and_survival(self, family, pdf, cdf, scale):
        """Rule: p, F(y) = Pr[X < y] and S(y) = Pr[X >= y] of Lap(b), Exp(b) (on [0, ∞)) and N(0, σ²), at 40 digits,
        on both sides of 0 and at 0 (S = 1 - F for these continuous laws)."""
        law = NoiseSpec(family, absolute=Fraction(scale)).resolve(Fraction(1), Fraction(1)).law
        with mpmath.workdps(40):
            b = mp(Fraction(scale))
            for y in map(lambda s: mp(Fraction(s)), self.POINTS):
                want_p, want_f = pdf(y, b), cdf(y, b)
                assert abs(law.mp_pdf(y, b) - want_p) <= mpmath.mpf(10) ** -35 * max(1, want_p), (y, "pdf")
                assert abs(law.mp_cdf(y, b) - want_f) <= mpmath.mpf(10) ** -35, (y, "cdf")
                assert abs(law.mp_sf(y, b) - (1 - want_f)) <= mpmath.mpf(10) ** -35, (y, "sf")

    @pytest.mark.parametrize("y", [("laplace", "2"), ("exponential", "3/2"), ("gaussian", "2")])
    def test_fresh_release_multiplies_by_the_release_density(self, y):
        """Rule (fresh release, NumericalSVT): the density of B A with the A's released value v is
        p_Y(v - q_2) · Pr[B A] of the same variant without release; for a Gaussian Y too."""
        fam, by = y
        base = variant(z=("laplace", 2), x=("laplace", 3), cutoff=1)
        fresh = variant(z=("laplace", 2), x=("laplace", 3), cutoff=1, release="fresh", y=(fam, by))
        q = (Fraction(-1), Fraction(1, 4))
        pdf = {"laplace": laplace_pdf, "exponential": exp_pdf, "gaussian": gauss_pdf}[fam]
        with mpmath.workdps(30):
            pr = output_probability(base, q, "BA", (), 25)
            for v in (Fraction(1), Fraction(3, 4), Fraction(-1, 2)):
                got = output_probability(fresh, q, "BA", (v,), 25)
                want = pdf(mp(v - q[1]), mp(Fraction(by))) * pr
                assert abs(got - want) <= mpmath.mpf(10) ** -22 * max(want, mpmath.mpf(10) ** -30), (v, got, want)

    @pytest.mark.parametrize("z,x", [("laplace", "laplace"), ("exponential", "laplace"), ("laplace", "exponential")])
    def test_query_release_caps_the_threshold_at_the_smallest_released_value(self, z, x):
        """Rule (query release, Lyu Alg. 3, cutoff 2, outcome A A): v_i = q_i + X_i >= t + Z for both, so the density is
        p_X(v_1 - q_1) p_X(v_2 - q_2) Pr[Z <= min(v_1, v_2) - t] (a product of closed forms, Z's CDF at the cap);
        0 when a released value lies below the support of its query's noise."""
        s = variant(z=(z, 2), x=(x, 3), cutoff=2, t=Fraction(1, 2), release="query")
        pdf = {"laplace": laplace_pdf, "exponential": exp_pdf}
        cdf_z = {"laplace": laplace_cdf, "exponential": exp_cdf}[z]  # continuous: Pr[Z <= y] = Pr[Z < y]
        q = (Fraction(-1), Fraction(1, 4))
        with mpmath.workdps(30):
            for v in ((Fraction(2), Fraction(3, 4)), (Fraction(-1, 2), Fraction(5)), (Fraction(3), Fraction(1, 2))):
                want = pdf[x](mp(v[0] - q[0]), 3) * pdf[x](mp(v[1] - q[1]), 3) * cdf_z(mp(min(v) - s.threshold), 2)
                got = output_probability(s, q, "AA", v, 25)
                assert abs(got - want) <= mpmath.mpf(10) ** -22 * max(want, mpmath.mpf(10) ** -40), (v, got, want)


    def test_gaussian_noise_fresh_release_multiplies_by_the_release_density(self):
        """Rule (fresh release, quadrature path for Gaussian Z and X): the density of A with released v is
        p_Y(v - q) · Pr[A] without release, and Pr[A] = erfc((t - q)/(σ√2))/2 with σ² = σ_Z² + σ_X² (X - Z is normal)."""
        base = variant(z=("gaussian", 2), x=("gaussian", 3))
        fresh = variant(z=("gaussian", 2), x=("gaussian", 3), release="fresh", y=("laplace", 2))
        q, v = Fraction(1, 4), Fraction(1)
        with mpmath.workdps(30):
            pr = mpmath.erfc(-mp(q) / mpmath.sqrt(2 * 13)) / 2
            assert abs(output_probability(base, (q,), "A", (), 20) / pr - 1) < mpmath.mpf(10) ** -18
            got = output_probability(fresh, (q,), "A", (v,), 10)
            assert abs(got / (laplace_pdf(mp(v - q), 2) * pr) - 1) < mpmath.mpf(10) ** -9

    @pytest.mark.parametrize("z", ["laplace", "exponential"])
    def test_no_query_noise_is_an_interval_of_the_threshold_noise(self, z):
        """Rule (query noise none): B at q_1 and A at q_2 happen iff q_1 < t + Z <= q_2, so Pr[BA] = Pr[q_1 - t < Z <=
        q_2 - t] = F_Z(q_2 - t) - F_Z(q_1 - t) (continuous Z), and 0 when q_2 <= q_1."""
        s = variant(z=(z, 2), x=("none", 0), cutoff=1, t=Fraction(1, 2))
        cdf = {"laplace": laplace_cdf, "exponential": exp_cdf}[z]
        with mpmath.workdps(30):
            for q in ((Fraction(-1), Fraction(3)), (Fraction(1), Fraction(2)), (Fraction(1, 2), Fraction(1, 2) + Fraction(1, 8)),
                      (Fraction(3), Fraction(1))):
                want = max(mpmath.mpf(0), cdf(mp(q[1] - s.threshold), 2) - cdf(mp(q[0] - s.threshold), 2))
                got = output_probability(s, q, "BA", (), 25)
                assert abs(got - want) <= mpmath.mpf(10) ** -22, (q, got, want)


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


class TestReleaseRuleKills5:
    """A released value's density is the query noise's for the query and gap releases: without query noise such a
    variant is refused in one line; the fresh release (its own noise) and no release are accepted."""

    @pytest.mark.parametrize("release", ["query", "gap"])
    def test_released_density_needs_query_noise(self, release):
        from verify.errors import InputError

        with pytest.raises(InputError, match="has no density"):
            _variant(("laplace", 30), ("none", 0), release=release)

    def test_no_release_needs_no_query_noise(self):
        assert _variant(("laplace", 30), ("none", 0)).query_noise.is_none


# --- release-rules ---------------------------------------------------------------------------------------------------
class TestReleaseRuleKills6:
    """`verify.release`: the rules' class attributes against the module docstrings that define them."""

    def test_only_the_fresh_release_moves_its_value_in_the_search(self) -> None:
        """Rule (protocol docstring: the search runs its second phase, the released value off its A query, only "with
        ``search_moves``", an opt-in; fresh docstring: p_Y is not monotone in the query and may end, so the fresh
        release's search "also" moves the value): the second phase belongs to the rule whose constant is a fresh
        release noise (Role.RELEASE) and to no other; a rule that does not opt in (a bare subclass) has none."""
        from verify.release.protocol import ReleaseRule, Role
        from verify.release.registry import RELEASE_RULES

        moving = {r.name for r in RELEASE_RULES.values() if r.search_moves}
        fresh_noise = {r.name for r in RELEASE_RULES.values() if r.constant is Role.RELEASE}
        assert moving == fresh_noise == {"fresh"}

        class Bare(ReleaseRule):
            name, formula = "bare", "nothing"

            def draw(self, noisy, t_hat, query, release_noise, rng, runs):
                return None

            def noiseless_value(self, query, threshold):
                return None

        assert Bare().search_moves is False
