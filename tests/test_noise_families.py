"""The noise families as types (`verify.noise`): registry, kernel identities, oracle forms, constants."""

from __future__ import annotations

import math
import pickle
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from verify.errors import InputError
from verify.noise import ALL_FAMILIES, FAMILIES, FAMILY_TYPES, Noise, NoiseFamily, NoiseSpec, family_type

CONTINUOUS = [name for name in ALL_FAMILIES if not FAMILY_TYPES[name].is_none and not FAMILY_TYPES[name].discrete]
X = np.linspace(-40.0, 40.0, 1601)


def test_registry_names_every_family_once_and_resolves_it():
    assert set(ALL_FAMILIES) == {"laplace", "exponential", "gaussian", "none", "discrete-laplace", "discrete-gaussian"}
    assert FAMILIES == ("laplace", "exponential", "none")
    for name, fam in FAMILY_TYPES.items():
        assert isinstance(fam, NoiseFamily) and fam.name == name and family_type(name) is fam
        assert pickle.loads(pickle.dumps(fam)) is fam  # workers get the same object back
    with pytest.raises(InputError, match="not one of"):
        family_type("cauchy")


def test_noise_resolves_its_family_object_once_named():
    assert Noise("laplace", Fraction(3)).law is FAMILY_TYPES["laplace"]
    assert Noise("gaussian", Fraction(0)).law is FAMILY_TYPES["none"]  # scale 0 is no noise
    assert NoiseSpec("exponential", multiplier=Fraction(3)).law.symbol == "Exp"


@pytest.mark.parametrize("name", CONTINUOUS)
def test_f_plus_s_is_one_and_logs_agree(name):
    """F(x) + S(x) = 1 (a continuous law); log F, log S and log p are the logs of F, 1 - F and p."""
    fam, b = FAMILY_TYPES[name], 2.5
    f = fam.cdf_below(X, b)
    np.testing.assert_allclose(np.exp(fam.log_cdf(X, b)) + np.exp(fam.log_sf(X, b)), 1.0, rtol=0, atol=4e-16)
    with np.errstate(divide="ignore"):
        np.testing.assert_allclose(fam.log_cdf(X, b)[f > 1e-300], np.log(f[f > 1e-300]), rtol=1e-12, atol=2e-16)
        p = fam.pdf(X, b)
        np.testing.assert_allclose(fam.log_pdf(X, b)[p > 0], np.log(p[p > 0]), rtol=1e-12, atol=2e-16)


@pytest.mark.parametrize("name", CONTINUOUS)
def test_float_kernel_matches_the_mpmath_form(name):
    """The float64 tails against the family's own mpmath form at 40 digits (relative 1e-13)."""
    fam, b = FAMILY_TYPES[name], 1.75
    with mpmath.workdps(40):
        for x in (-30.0, -3.0, -0.5, 0.25, 4.0, 30.0):
            y, bb = mpmath.mpf(x), mpmath.mpf(b)
            for kernel, form in ((fam.log_cdf, fam.mp_cdf), (fam.log_sf, fam.mp_sf), (fam.log_pdf, fam.mp_pdf)):
                ref = form(y, bb)
                got = float(kernel(np.array([x]), b)[0])
                if ref == 0:
                    assert got == -math.inf
                else:
                    assert got == pytest.approx(float(mpmath.log(ref)), rel=1e-13, abs=1e-15)


@pytest.mark.parametrize("name", FAMILIES[:2])
def test_piecewise_weights_reproduce_the_density(name):
    """p(x) = w₋·λe^{λx} on x < 0 and w₊·λe^{-λx} on x >= 0, the exact pieces of the closed form."""
    fam, b = FAMILY_TYPES[name], 3.0
    lam = 1 / b
    expected = np.where(X < 0, float(fam.lower_weight) * lam * np.exp(lam * X), float(fam.upper_weight) * lam * np.exp(-lam * X))
    np.testing.assert_allclose(fam.pdf(X, b), expected, rtol=1e-14)
    assert fam.lower_weight + fam.upper_weight == 1


@pytest.mark.parametrize("name", CONTINUOUS)
def test_log_lipschitz_constants_hold_on_a_grid_or_are_absent(name):
    """|Δ log p| <= L|Δx| and |Δ log S| <= L|Δx| between grid neighbours where both are finite."""
    fam, b = FAMILY_TYPES[name], Fraction(2)
    for const, kernel in ((fam.density_lipschitz(b), fam.log_pdf), (fam.sf_lipschitz(b), fam.log_sf)):
        values = kernel(X, float(b))
        ok = np.isfinite(values[1:]) & np.isfinite(values[:-1]) & ((X[1:] <= 0) | (X[:-1] >= 0) | fam.two_sided)
        slopes = np.abs(np.diff(values))[ok] / np.diff(X)[ok]
        if const is None:
            assert name in ("gaussian", "exponential")  # quadratic log density, or a jump at 0
        else:
            assert slopes.max() <= float(const) * (1 + 1e-9)
            assert slopes.max() >= 0.9 * float(const)  # the constant is attained (not loose)
    assert FAMILY_TYPES["gaussian"].density_lipschitz(b) is None and FAMILY_TYPES["gaussian"].sf_lipschitz(b) is None


@pytest.mark.parametrize("name", CONTINUOUS)
def test_density_mode_bounds_the_density(name):
    fam, b = FAMILY_TYPES[name], Fraction(5, 4)
    assert fam.pdf(X, float(b)).max() <= float(fam.density_mode(b))


def test_no_noise_is_a_point_mass():
    fam = FAMILY_TYPES["none"]
    assert fam.is_none and list(fam.log_cdf(np.array([-1.0, 0.0, 1.0]))) == [-math.inf, -math.inf, 0.0]
    assert list(fam.log_sf(np.array([-1.0, 0.0, 1.0]))) == [0.0, 0.0, -math.inf]
    with pytest.raises(InputError, match="no density"):
        fam.log_pdf(np.array([0.0]))


def test_samplers_are_seeded_and_follow_their_law():
    """Mean of 20000 draws within 6 standard errors (false-alarm rate < 1e-8 per family)."""
    for name in CONTINUOUS:
        fam = FAMILY_TYPES[name]
        draws = fam.sample(np.random.default_rng(11), 2.0, 20000)
        assert np.array_equal(draws, fam.sample(np.random.default_rng(11), 2.0, 20000))
        mean = 2.0 if not fam.two_sided else 0.0
        sd = 2.0 * (math.sqrt(2) if name == "laplace" else 1.0)
        assert abs(draws.mean() - mean) < 6 * sd / math.sqrt(20000)
