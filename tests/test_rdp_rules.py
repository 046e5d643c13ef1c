"""The Rényi-DP upper bound of Gaussian SVT (`verify.family.rdp`).

Re-homed from the mutation rounds' files (`test_family_mutation_kills2.py`, `test_family_mutation_kills5.py`, `test_family_mutation_kills6_delta.py`); each class or test keeps its name, so
docs/mutation.md and `benchmarks/mutation_score.py` still find it.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest


def _mp(x: Fraction) -> mpmath.mpf:
    """An exact rational as an mpf at the working precision."""
    return mpmath.mpf(x.numerator) / x.denominator


# --- family-rdp ------------------------------------------------------------------------------------------------------
def _zhu_wang_log_delta(s1: Fraction, s2: Fraction, d: Fraction, k: int, a: mpmath.mpf, ep: Fraction) -> mpmath.mpf:
    """log δ_α of the BBGHS conversion of Zhu & Wang's curve, written out here (rdp module docstring):
    ε(α) = log k/(α-1) + αΔ²/σ₁² + 2αΔ²/σ₂², δ_α = exp((α-1)(ε(α) - ε')) · (1 - 1/α)^(α-1) / α."""
    e_alpha = mpmath.log(k) / (a - 1) + a * _mp(d * d / (s1 * s1)) + 2 * a * _mp(d * d / (s2 * s2))
    return (a - 1) * (e_alpha - _mp(ep)) + (a - 1) * mpmath.log(1 - 1 / a) - mpmath.log(a)


class TestRdpKills2:
    """The Rényi conversion's edges."""

    def test_delta_accepts_epsilon_prime_zero_and_caps_at_one(self):
        """Rule (`GaussianSVTRdp.delta`): ε' >= 0 is accepted (ε' = 0 included; ε' < 0 refused), and δ is a probability:
        min(1, exp(min over α of log δ_α)).  With σ₁ = σ₂ = Δ/10 the RDP curve is large (ε(α) >= 300α) and the bound
        is exactly 1; at ε' = 0 with σ = 100Δ it is strictly between 0 and 1."""
        from verify.errors import InputError
        from verify.family.rdp import GaussianSVTRdp

        loud = GaussianSVTRdp(Fraction(1, 10), Fraction(1, 10), Fraction(1), 3)
        assert loud.delta(Fraction(1, 2))[0] == 1
        quiet = GaussianSVTRdp(Fraction(100), Fraction(100), Fraction(1), 3)
        d0, _ = quiet.delta(0)
        assert 0 < d0 < 1
        with pytest.raises(InputError):
            quiet.delta(Fraction(-1, 10**6))


class TestRdpKills5:
    """Zhu & Wang (NeurIPS 2020) Thm 8, cutoff 1: ε(α) = log k/(α-1) + αΔ²/σ₁² + 2αΔ²/σ₂², written out here with a
    fractional σ₂ (the other tests' σ₂ were integers, where x/1 = x·1)."""

    def test_fractional_query_sigma(self):
        from verify.family.rdp import GaussianSVTRdp

        s1, s2, d, k = Fraction(2), Fraction(5, 2), Fraction(1), 3
        for a in (mpmath.mpf(2), mpmath.mpf("3.5")):
            want = mpmath.log(k) / (a - 1) + a * mpmath.mpf(1) / 4 + 2 * a / (mpmath.mpf(25) / 4)
            assert abs(GaussianSVTRdp(s1, s2, d, k).rdp(a) - want) < mpmath.mpf(10) ** -12


class TestRdpKills6:
    """`verify.family.rdp.GaussianSVTRdp.delta`: the order found and the working precision."""

    S1, S2, D, K = Fraction(4), Fraction(5), Fraction(1), 4

    def test_delta_is_the_conversion_at_its_order_for_a_fractional_epsilon_prime(self) -> None:
        """Rule (`GaussianSVTRdp.delta`, rdp module docstring): the δ returned is δ_α(ε') at the order α returned, and
        no order of an independent grid (α = 1 + j/20, j = 1..400) gives a smaller δ_α.  ε' = 7/10 (a Fraction with
        denominator 10: ε' enters as the exact rational numerator/denominator).  δ_α is written out in the test."""
        from verify.family.rdp import GaussianSVTRdp

        ep = Fraction(7, 10)
        d, a = GaussianSVTRdp(self.S1, self.S2, self.D, self.K).delta(ep)
        with mpmath.workdps(40):
            want = mpmath.exp(_zhu_wang_log_delta(self.S1, self.S2, self.D, self.K, mpmath.mpf(a), ep))
            assert 0 < d < 1
            assert abs(d - want) <= mpmath.mpf(10) ** -25 * want
            grid = min(_zhu_wang_log_delta(self.S1, self.S2, self.D, self.K, 1 + mpmath.mpf(j) / 20, ep) for j in range(1, 401))
            assert mpmath.log(d) <= grid + mpmath.mpf(10) ** -25

    def test_delta_is_evaluated_at_thirty_digits(self) -> None:
        """Rule (rdp module docstring: the bound is "evaluated with mpmath at 30 digits"): the δ and α returned are
        numbers of that precision, i.e. their mantissas have at most mpmath's bit precision at 30 digits (an mpf
        keeps the bits of the precision it was computed at)."""
        from verify.family.rdp import GaussianSVTRdp

        with mpmath.workdps(30):
            bits = mpmath.mp.prec
        for ep in (Fraction(7, 10), Fraction(1, 3), Fraction(2)):
            d, a = GaussianSVTRdp(self.S1, self.S2, self.D, self.K).delta(ep)
            assert d._mpf_[3] <= bits and a._mpf_[3] <= bits, (ep, d._mpf_[3], a._mpf_[3], bits)
