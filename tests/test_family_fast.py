"""The fast float64 path of the SVT family agrees with the exact paths to 1e-12 (relative).

Reference values: verify.family.probability (mpmath closed form, 20 digits; quadrature for Gaussian
noise) and the seed's verify.probabilities.mp_distribution (30 digits)."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verify.engine.fast_generic import log_probability
from verify.engine.fast_halting import halting_distribution
from verify.family import Release, SparseVector, ThresholdPolicy, preset
from verify.family.fast_api import FAST_TOLERANCE, fast_log_distribution, fast_log_probability
from verify.family.probability import mp_probability
from verify.noise import NoiseSpec
from verify.probabilities import mp_distribution as seed_distribution

FAMILIES = ["laplace", "exponential", "none"]


def _rel(logv: float, exact: mpmath.mpf) -> float:
    if exact == 0:
        return 0.0 if logv == -math.inf else math.inf
    with mpmath.workdps(30):
        return abs(float(mpmath.expm1(mpmath.mpf(logv) - mpmath.log(exact))))


def _variant(zf, xf, zscale, xscale, cutoff, policy, release):
    if release in (Release.QUERY, Release.GAP) and xf == "none":
        xf = "laplace"
    return SparseVector(1, 1, 0, NoiseSpec(zf, multiplier=zscale), NoiseSpec(xf, multiplier=xscale), cutoff=cutoff,
                        threshold_policy=policy, release=release,
                        release_spec=NoiseSpec("laplace", multiplier=Fraction(2)) if release is Release.FRESH else None)


variant_st = st.builds(
    _variant, zf=st.sampled_from(FAMILIES), xf=st.sampled_from(FAMILIES),
    zscale=st.sampled_from([Fraction(1), Fraction(3), Fraction(1, 2)]), xscale=st.sampled_from([Fraction(1), Fraction(3), Fraction(4, 3)]),
    cutoff=st.sampled_from([1, 2, None]), policy=st.sampled_from(list(ThresholdPolicy)), release=st.sampled_from(list(Release)),
)


@pytest.mark.slow
@settings(max_examples=40, deadline=None, derandomize=True)
@given(m=variant_st, seed=st.integers(0, 2**16), data=st.data())
def test_fast_agrees_with_mpmath_on_every_variant(m, seed, data):
    rng = np.random.default_rng(seed)
    k = data.draw(st.integers(1, 6))
    q = np.round(rng.uniform(-4, 4, (3, k)), 3)
    s = data.draw(st.sampled_from(m.outputs(k)))
    rel = np.round(rng.uniform(-1, 3, s.count("A")), 3) if m.releases_values else None
    raw = log_probability(m, q, s, rel)
    api, _ = fast_log_probability(m, q, s, rel)
    for r in range(3):
        exact = mp_probability(m, [Fraction(str(x)) for x in q[r]], s, None if rel is None else [Fraction(str(x)) for x in rel], digits=20)
        assert _rel(api[r], exact) <= FAST_TOLERANCE
        if raw.error_estimate[r] <= FAST_TOLERANCE:  # the estimate is honest where it promises
            assert _rel(raw.log_value[r], exact) <= FAST_TOLERANCE


@pytest.mark.slow
@pytest.mark.parametrize("name", ["gaussian-svt"])
def test_fast_gaussian_agrees_with_quadrature(name):
    m = preset(name, cutoff=2)
    q = np.array([[0.5, -1.0, 0.25], [2.0, 1.0, -3.0]])
    for s in ["AA", "BAB", "BBB"]:
        api, _ = fast_log_probability(m, q, s)
        for r in range(2):
            exact = mp_probability(m, [Fraction(str(x)) for x in q[r]], s, digits=16)
            assert _rel(api[r], exact) <= FAST_TOLERANCE


@pytest.mark.parametrize("name, scale_seed", [("seed-m1", 0), ("seed-m2", 1), ("dwork-roth", 2), ("lyu-4", 3)])
def test_halting_path_matches_the_seed_at_k_up_to_30(name, scale_seed):
    """All k+1 halting probabilities (Gauss–Legendre path) vs the seed's mpmath path (30 digits)."""
    m = preset(name)
    rng = np.random.default_rng(scale_seed)
    for k in (13, 30):
        q = np.round(rng.uniform(-6, 6, (1, k)), 4)
        res = halting_distribution(m, q)
        for r in range(1):
            exact = seed_distribution(m, [Fraction(str(x)) for x in q[r]], 30)
            for c, e in enumerate(exact):
                if res.error_estimate[r, c] <= FAST_TOLERANCE:
                    assert _rel(res.log_value[r, c], e) <= FAST_TOLERANCE
            assert np.all(res.error_estimate[r] <= FAST_TOLERANCE)


@pytest.mark.slow
def test_fast_distributions_sum_to_one():
    rng = np.random.default_rng(7)
    for m, k in [(preset("seed-m1"), 60), (preset("lyu-1", cutoff=2), 5), (preset("lyu-2", cutoff=3), 5), (preset("lyu-6"), 6)]:
        q = rng.uniform(-6, 6, (4, k))
        logp, outs, _ = fast_log_distribution(m, q)
        assert logp.shape == (4, len(outs)) == (4, m.output_count(k))
        assert np.allclose(np.exp(logp).sum(axis=1), 1.0, rtol=0, atol=1e-12)


def test_halting_at_k_1000_is_accurate_and_normalised():
    """k = 1000: every estimate within the tolerance and the distribution sums to 1."""
    m = preset("seed-m1")
    q = np.random.default_rng(11).uniform(-6, 6, (1, 1000))
    res = halting_distribution(m, q)
    assert np.all(res.error_estimate <= FAST_TOLERANCE)
    assert abs(np.exp(res.log_value).sum() - 1) < 1e-12
