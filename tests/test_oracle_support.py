"""The family oracle's Gaussian quadrature where the integrand's support is small or empty.

With a Gaussian threshold and no query noise, Pr[B at q_1, A at q_2] = Pr[q_1 < t + Z <= q_2]
= Φ((q_2 - t)/σ) - Φ((q_1 - t)/σ) for q_1 < q_2 and 0 otherwise (the seed's definition of the outputs,
with X_i = 0).  The oracle integrates numerically; these expected values come from mpmath's ``ncdf``.
Before: an empty support divided by a zero peak (ZeroDivisionError), and a support narrower than the
float64 locating grid's step was not found at all.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from verify.family.presets import preset
from verify.noise.spec import NoiseSpec
from verify.oracles import family as oracle

SHAPE = preset("gaussian-svt").with_changes(query_spec=NoiseSpec("none", None, None))  # Z ~ N(σ = 2), t = 0


def _expected(q1: Fraction, q2: Fraction) -> mpmath.mpf:
    if q2 <= q1:
        return mpmath.mpf(0)
    sigma = mpmath.mpf(2)
    return mpmath.ncdf(mpmath.mpf(q2.numerator) / q2.denominator, 0, sigma) - \
        mpmath.ncdf(mpmath.mpf(q1.numerator) / q1.denominator, 0, sigma)


@pytest.mark.slow
@pytest.mark.parametrize("q1,q2", [(Fraction(3), Fraction(-2)), (Fraction(3), Fraction(3)),
                                   (Fraction(3), Fraction(3) + Fraction(1, 10**7)),
                                   (Fraction(-1, 3), Fraction(-1, 3) + Fraction(1, 10**9)),
                                   (Fraction(1, 10) - Fraction(1, 10**12), Fraction(1, 10)),  # both kinks round outside
                                   (Fraction(-1), Fraction(2))])
def test_no_query_noise_is_the_threshold_law_between_the_queries(q1, q2):
    with mpmath.workdps(60):
        want = _expected(q1, q2)
        got = oracle.output_probability(SHAPE, [q1, q2], "BA", digits=30)
        if want == 0:
            assert got == 0
        else:
            assert abs(got / want - 1) < mpmath.mpf(10) ** -28


def test_a_support_float64_cannot_resolve_is_refused_not_zero():
    # Pr = Φ(-182.9999...9/2) - Φ(-183/2), about 1.9e-1835: the interval is 1e-16 wide, under one float64
    # spacing at 183; the float64 grid cannot see it, and the oracle must not report an exact 0
    q1 = Fraction(-183)
    q2 = q1 + Fraction(1, 10**16)
    with pytest.raises(ArithmeticError, match="within 4 float64 spacings"):
        oracle.output_probability(SHAPE, [q1, q2], "BA", digits=20)
