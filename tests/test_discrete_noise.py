"""The discrete noise families (`verify.noise.discrete_laplace`, `verify.noise.discrete_gaussian`)."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from scipy import stats

from verify.noise import FAMILY_TYPES, Noise
from verify.noise.registry import CONTINUOUS_FAMILIES, DISCRETE_FAMILIES

DISCRETE = ["discrete-laplace", "discrete-gaussian"]
SCALES = [0.4, 1.75, 6.0]


def test_registry_lists_the_discrete_families_apart():
    assert set(DISCRETE_FAMILIES) == set(DISCRETE)
    assert not set(DISCRETE) & set(CONTINUOUS_FAMILIES)
    assert Noise("discrete-laplace", Fraction(3)).describe() == "DLap(3)"
    assert Noise("discrete-gaussian", Fraction(2)).describe() == "DN(2)"


@pytest.mark.parametrize("name", DISCRETE)
@pytest.mark.parametrize("b", SCALES)
def test_mass_sums_to_one_and_tails_split_at_ties(name, b):
    """Σ_x Pr[X=x] = 1 (mpmath, 40 digits); S(m) - S(m+1) = Pr[X = m] > 0 (a tie carries mass); F + S = 1."""
    fam = FAMILY_TYPES[name]
    with mpmath.workdps(40):
        bb = mpmath.mpf(b)
        reach = int(80 * b) + 20  # left-out mass < e^{-80}
        total = mpmath.fsum(fam.mp_pdf(mpmath.mpf(x), bb) for x in range(-reach, reach + 1))
        assert abs(total - 1) < mpmath.mpf(10) ** -30
        for m in (-7, -1, 0, 1, 4):
            s0, s1 = fam.mp_sf(mpmath.mpf(m), bb), fam.mp_sf(mpmath.mpf(m + 1), bb)
            p = fam.mp_pdf(mpmath.mpf(m), bb)
            assert p > 0 and abs((s0 - s1) - p) < mpmath.mpf(10) ** -35
            assert abs(fam.mp_cdf(mpmath.mpf(m), bb) + s0 - 1) < mpmath.mpf(10) ** -35
            assert fam.mp_sf(mpmath.mpf(m) - mpmath.mpf("0.5"), bb) == s0  # S(y) = S(⌈y⌉)


@pytest.mark.parametrize("name", DISCRETE)
@pytest.mark.parametrize("b", SCALES)
def test_float_kernel_matches_mpmath_in_both_tails(name, b):
    """log S, log F, log p in float64 against the mpmath forms at 40 digits: relative 1e-12 on the log
    scale of the value, down to tails of e^{-700}."""
    fam = FAMILY_TYPES[name]
    ms = [-int(20 * b) - 3, -5, -1, 0, 1, 2, 7, int(20 * b) + 3, -2.5, 0.3]
    with mpmath.workdps(40):
        for m in ms:
            for kernel, form in ((fam.log_sf, fam.mp_sf), (fam.log_cdf, fam.mp_cdf), (fam.log_pdf, fam.mp_pdf)):
                ref = form(mpmath.mpf(m), mpmath.mpf(b))
                got = float(kernel(np.array([float(m)]), b)[0])
                if ref == 0:
                    assert got == -math.inf
                else:
                    want = float(mpmath.log(ref))
                    assert abs(got - want) <= 1e-12 * max(1.0, abs(want)), (kernel, m, got, want)


@pytest.mark.parametrize("name", DISCRETE)
def test_log_lipschitz_constants_hold_on_the_integers(name):
    """|log S(m+1) - log S(m)| <= L and |log p(m+1) - log p(m)| <= L where the family states L."""
    fam, b = FAMILY_TYPES[name], Fraction(5, 2)
    m = np.arange(-80, 81, dtype=float)
    ls = fam.log_sf(m, float(b))
    lp = fam.log_pdf(m, float(b))
    lip_s, lip_p = fam.sf_lipschitz(b), fam.density_lipschitz(b)
    if name == "discrete-gaussian":
        assert lip_s is None and lip_p is None
        assert np.max(np.abs(np.diff(lp))) > 1  # quadratic: no constant
        return
    assert np.all(np.abs(np.diff(ls)) <= float(lip_s) * (1 + 1e-12))
    assert np.max(np.abs(np.diff(ls))) >= float(lip_s) * (1 - 1e-12)  # attained: the constant is tight
    assert np.all(np.abs(np.diff(lp)) <= float(lip_p) * (1 + 1e-12))


@pytest.mark.parametrize("name", DISCRETE)
def test_density_mode_bounds_the_largest_mass(name):
    fam = FAMILY_TYPES[name]
    for b in (Fraction(1, 3), Fraction(1), Fraction(7, 2)):
        assert math.exp(fam.log_mode(float(b))) <= float(fam.density_mode(b))


@pytest.mark.parametrize("name", DISCRETE)
def test_arb_tail_encloses_the_tail(name):
    """``arb_tail`` (x = β/b) is a ball containing Pr[X > β] (50-digit reference)."""
    import flint

    fam, b = FAMILY_TYPES[name], 2.0
    with mpmath.workdps(50):
        for beta in (0.0, 1.5, 4.0, 11.0):
            ref = 1 - fam.mp_cdf(mpmath.mpf(beta) + mpmath.mpf("1e-30"), mpmath.mpf(b))  # Pr[X > β]
            ball = fam.arb_tail(flint.arb(beta / b), True)
            assert ball.contains(flint.arb(mpmath.nstr(ref, 40)))


@pytest.mark.parametrize("name", DISCRETE)
def test_sampler_matches_the_mass_function_chi_square(name):
    """Seeded draws against the exact masses: χ² test at level 1e-4 (its false-alarm rate)."""
    fam, b, n = FAMILY_TYPES[name], 1.5, 200_000
    draws = fam.sample(np.random.default_rng(20261202), b, n)
    assert np.all(draws == np.round(draws))
    edges = np.arange(-6, 7)
    probs = np.exp(fam.log_pdf(edges.astype(float), b))
    observed = np.array([np.sum(draws == e) for e in edges] + [np.sum(np.abs(draws) > 6)])
    expected = n * np.append(probs, 1 - probs.sum())
    assert stats.chisquare(observed, expected).pvalue > 1e-4
