"""The densities of released values, recomputed here from the model's definition by plain quadrature.

For a shared threshold t + Z and the outcome B A (the first query below, the second above, cutoff 1),
with F(y) = Pr[X < y], S(y) = Pr[X >= y] and p the densities written out below:

* query release v = q_2 + X_2 (Lyu et al. Alg. 3):  p_X(v - q_2) ∫_{z <= v - t} p_Z(z) F(t + z - q_1) dz;
* gap release g = q_2 + X_2 - (t + Z) >= 0 (Ding et al.):  ∫ p_Z(z) F(t + z - q_1) p_X(g + t + z - q_2) dz;
* fresh release v = q_2 + Y (NumericalSVT):  p_Y(v - q_2) ∫ p_Z(z) F(t + z - q_1) S(t + z - q_2) dz.

Both library paths (the verdicts' oracle `verify.oracles.family.output_probability` and the model's engine
`verify.family.probability.mp_probability`) must agree with mpmath.quad (breakpoints at every kink, 30
digits) to 1e-15 relative, for Laplace and exponential noise in every role.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import mpmath
import pytest

from verify.family.probability import mp_probability
from verify.mechanism import SparseVector
from verify.noise import NoiseSpec
from verify.oracles.family import output_probability

EPS, DELTA, T = Fraction(1, 2), Fraction(1), Fraction(1)
BZ, BX, BY = Fraction(2), Fraction(3), Fraction(5, 2)


def mp(x) -> mpmath.mpf:
    x = Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


def pdf(fam: str, b: Fraction, y):
    b = mp(b)
    if fam == "laplace":
        return mpmath.exp(-abs(y) / b) / (2 * b)
    return mpmath.exp(-y / b) / b if y >= 0 else mpmath.mpf(0)  # exponential on [0, ∞)


def cdf_below(fam: str, b: Fraction, y):
    b = mp(b)
    if fam == "laplace":
        return mpmath.exp(y / b) / 2 if y < 0 else 1 - mpmath.exp(-y / b) / 2
    return 1 - mpmath.exp(-y / b) if y > 0 else mpmath.mpf(0)


def quad(f, kinks):
    pts = [-mpmath.inf, *sorted(set(kinks)), mpmath.inf]
    return mpmath.quad(f, pts)


def expected(fz, fx, fy, release, q1, q2, r):
    t = mp(T)
    q1, q2, r = mp(q1), mp(q2), mp(r)
    kinks = [mp(0), q1 - t, q2 - t]  # z where a noise argument crosses 0
    below = lambda z: cdf_below(fx, BX, t + z - q1)  # noqa: E731
    if release == "query":
        cap = r - t
        inner = mpmath.quad(lambda z: pdf(fz, BZ, z) * below(z), [-mpmath.inf, *sorted(k for k in set(kinks) if k < cap), cap])
        return pdf(fx, BX, r - q2) * inner
    if release == "gap":
        return quad(lambda z: pdf(fz, BZ, z) * below(z) * pdf(fx, BX, r + t + z - q2), kinks + [q2 - t - r])
    above = lambda z: 1 - cdf_below(fx, BX, t + z - q2)  # noqa: E731
    return pdf(fy, BY, r - q2) * quad(lambda z: pdf(fz, BZ, z) * below(z) * above(z), kinks)


CASES = [(fz, fx, fy, rel) for fz, fx in itertools.product(("laplace", "exponential"), repeat=2)
         for rel in ("query", "gap", "fresh") for fy in ((None,) if rel != "fresh" else ("laplace", "exponential"))]


@pytest.mark.parametrize("fz,fx,fy,release", CASES)
def test_release_density_of_BA_matches_quadrature(fz, fx, fy, release):
    mech = SparseVector(EPS, DELTA, T, NoiseSpec(fz, absolute=BZ), NoiseSpec(fx, absolute=BX), cutoff=1,
                        release=release, release_spec=None if fy is None else NoiseSpec(fy, absolute=BY))
    shape = mech
    q = (T - Fraction(2), T - Fraction(3, 4))
    # two gaps; two released values above t and q_2 (inside the support of every family)
    for r in ((Fraction(1, 3), Fraction(5, 2)) if release == "gap" else (T + Fraction(1, 2), T + Fraction(7, 4))):
        with mpmath.workdps(30):
            want = expected(fz, fx, fy, release, q[0], q[1], r)
            got = output_probability(shape, q, "BA", (r,), 30)
            eng = mp_probability(mech, list(q), "BA", [r], 30)
            assert want > 0
            assert abs(got / want - 1) < mpmath.mpf(10) ** -15, (r, got, want)
            assert abs(eng / want - 1) < mpmath.mpf(10) ** -15, (r, eng, want)
