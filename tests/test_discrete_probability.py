"""Exact probabilities of discrete variants: closed form, direct sum, arb, fast path, sampler."""

from __future__ import annotations

import math
from fractions import Fraction

import flint
import mpmath
import numpy as np
import pytest
import sympy
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from scipy import stats

from verify.discrete.probability import arb_probability, mp_distribution, mp_probability, oracle_probability, symbolic_probability
from verify.discrete.sampler import sample_outcomes
from verify.engine.discrete_fast import fast_log_probability
from verify.errors import InputError
from verify.family.presets import DISCRETE_NAMES, preset
from verify.mechanism import SparseVector
from verify.noise import NoiseSpec

DL = "discrete-laplace"


def _encloses(ball, ref, digits: int) -> bool:
    """The ball meets the reference, itself correct to ``digits`` digits: |mid - ref| <= rad + 10^-digits·|ref|
    (compared at 300 bits, so the 53-bit default context cannot blur it)."""
    old = flint.ctx.prec
    flint.ctx.prec = 300
    try:
        r = flint.arb(mpmath.nstr(ref, digits + 5))
        gap = abs(ball.mid() - r) - ball.rad() - abs(r) * flint.arb(10) ** -digits
        return bool(gap <= 0)
    finally:
        flint.ctx.prec = old


def _dl(mult=None, absolute=None):
    return NoiseSpec(DL, multiplier=mult, absolute=absolute)


VARIANTS = {
    "seed-ge": preset("dlap-seed-m1"),
    "seed-gt": preset("dlap-seed-m1", compare="gt"),
    "sampcert-t3": preset("sampcert-above-threshold", epsilon=Fraction(1, 2), threshold=3),
    "lyu1-c2": preset("dlap-lyu-1", cutoff=2, sensitivity=2),
    "resample-c2": SparseVector(1, 1, 0, _dl(2), _dl(4), cutoff=2, threshold_policy="resample"),
    "no-query-noise": SparseVector(1, 1, 1, _dl(2), NoiseSpec("none"), cutoff=None),
    "no-threshold-noise": SparseVector(1, 1, 0, NoiseSpec("none"), _dl(3), cutoff=1, compare="gt"),
    "absolute-scales": SparseVector(Fraction(3, 4), 1, -2, _dl(absolute=Fraction(5, 2)), _dl(absolute=Fraction(7, 3)), cutoff=2),
}
QUERIES = [[0, 1, -1], [3, 3, 3], [-9, 12, 0]]


@pytest.mark.slow
@pytest.mark.parametrize("key", sorted(VARIANTS))
def test_closed_form_equals_direct_sum_at_50_digits_and_sums_to_one(key):
    """The geometric-series closed form against the term-by-term sum with proven tail (mpmath, 50 digits):
    agreement to 1e-45 relative; the outcome probabilities sum to 1 to 1e-45."""
    mech = VARIANTS[key]
    for q in QUERIES:
        dist = mp_distribution(mech, q, digits=50)
        with mpmath.workdps(50):
            assert abs(mpmath.fsum(dist.values()) - 1) < mpmath.mpf(10) ** -45
        for s, p in dist.items():
            ref, left_out = oracle_probability(mech, q, s, digits=50)
            assert left_out <= ref * mpmath.mpf(10) ** -45 + mpmath.mpf(10) ** -60
            assert abs(p - ref) <= mpmath.mpf(10) ** -45 * ref + mpmath.mpf(10) ** -60, (key, q, s)


@pytest.mark.parametrize("key", ["seed-gt", "lyu1-c2", "no-query-noise", "absolute-scales"])
def test_arb_ball_contains_the_50_digit_value(key):
    mech = VARIANTS[key]
    for s in mech.outputs(3):
        ball = arb_probability(mech, [2, -1, 0], s, prec=160)
        ref = mp_probability(mech, [2, -1, 0], s, digits=45)
        assert _encloses(ball, ref, 44)
        assert ball.rel_accuracy_bits() >= 140 or ref == 0


def test_symbolic_closed_form_in_epsilon_matches_mpmath():
    """sympy, exact in ε (r = e^{-ε/3}): evaluated at ε = 1/2 and 2 it equals the mpmath closed form."""
    eps = sympy.Symbol("epsilon", positive=True)
    for s in ("A", "BA", "BBB"):
        expr = symbolic_probability(VARIANTS["seed-gt"], [1, 0, 2], s)
        assert expr.free_symbols == {eps}
        for e in (Fraction(1, 2), Fraction(2)):
            mech = preset("dlap-seed-m1", epsilon=e, compare="gt")
            ref = mp_probability(mech, [1, 0, 2], s, digits=40)
            got = sympy.N(expr.subs(eps, sympy.Rational(e.numerator, e.denominator)), 45)
            with mpmath.workdps(45):
                assert abs(mpmath.mpf(str(got)) - ref) < mpmath.mpf(10) ** -35


def test_discrete_gaussian_paths_agree():
    """Discrete Gaussian: mpmath direct sum, arb ball (contains it) and float64 (within its estimate)."""
    mech = preset("dgauss-above-threshold", epsilon=Fraction(1, 2))
    dist = mp_distribution(mech, [0, 5, -4], digits=30)
    assert abs(mpmath.fsum(dist.values()) - 1) < mpmath.mpf(10) ** -25
    for s, p in dist.items():
        ball = arb_probability(mech, [0, 5, -4], s, prec=120)
        assert _encloses(ball, p, 29)
        f = fast_log_probability(mech, [0, 5, -4], s)
        assert abs(math.exp(f.log_value) / float(p) - 1) <= max(10 * f.error_estimate, 1e-14)


def test_closed_form_refused_for_discrete_gaussian_and_bad_inputs():
    mech = preset("dgauss-above-threshold")
    with pytest.raises(InputError, match="discrete Laplace noise only"):
        mp_probability(mech, [0], "A", method="closed")
    with pytest.raises(InputError, match=r"queries\[2\]: 1/2 is not an integer"):
        mp_probability(VARIANTS["seed-ge"], [0, Fraction(1, 2)], "BA")
    with pytest.raises(InputError, match="not one of auto, closed, direct"):
        mp_probability(VARIANTS["seed-ge"], [0], "A", method="quad")


scales = st.sampled_from([Fraction(1, 4), Fraction(1, 2), Fraction(1), Fraction(3), Fraction(17, 2), Fraction(40)])


@pytest.mark.slow
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(bz=scales, bx=scales, t=st.integers(-5, 5), q=st.lists(st.integers(-60, 60), min_size=1, max_size=4),
       gt=st.booleans(), pick=st.integers(0, 10))
@example(bz=Fraction(1, 4), bx=Fraction(1, 4), t=0, q=[0, 0, 0], gt=False, pick=3)  # ties everywhere, tiny scale
@example(bz=Fraction(1, 4), bx=Fraction(40), t=5, q=[-60, 60], gt=True, pick=0)  # far tails
@example(bz=Fraction(40), bx=Fraction(1, 4), t=-5, q=[60, 60, 60, 60], gt=False, pick=4)
def test_fast_path_and_closed_form_over_scales_ties_and_far_tails(bz, bx, t, q, gt, pick):
    """Hypothesis: float64 fast path within 10x its error estimate of the mpmath closed form (30 digits),
    and the closed form within 1e-25 of the direct sum."""
    mech = SparseVector(1, 1, t, _dl(absolute=bz), _dl(absolute=bx), cutoff=1, compare="gt" if gt else "ge")
    outs = mech.outputs(len(q))
    s = outs[pick % len(outs)]
    p = mp_probability(mech, q, s, digits=30)
    ref, _ = oracle_probability(mech, q, s, digits=30)
    assert abs(p - ref) <= mpmath.mpf(10) ** -25 * ref
    f = fast_log_probability(mech, q, s)
    assert f.error_estimate < 1e-9
    assert abs(f.log_value - float(mpmath.log(p))) <= 10 * f.error_estimate + 1e-15


@pytest.mark.slow
@pytest.mark.parametrize("key", ["seed-gt", "lyu1-c2", "resample-c2"])
def test_sampler_matches_exact_distribution_chi_square(key):
    """Seeded simulation (200 000 runs) against the exact law: χ² p-value > 1e-4 (false-alarm rate 1e-4 per test)."""
    mech, q, n = VARIANTS[key], [0, 1, -1], 200_000
    dist = mp_distribution(mech, q, digits=20)
    counts = sample_outcomes(mech, q, n, np.random.default_rng(7))
    assert set(counts) <= set(dist)
    observed = [counts.get(s, 0) for s in dist]
    expected = [n * float(p) for p in dist.values()]
    assert stats.chisquare(observed, expected).pvalue > 1e-4


@pytest.mark.slow
def test_sampler_separates_ge_from_gt():
    """Power check: the ≥ and > laws differ at a tie-heavy point and 200 000 runs see it (p < 1e-6)."""
    q, n = [0, 0], 200_000
    ge = mp_distribution(VARIANTS["seed-ge"], q, digits=20)
    counts = sample_outcomes(VARIANTS["seed-gt"], q, n, np.random.default_rng(11))
    observed = [counts.get(s, 0) for s in ge]
    assert stats.chisquare(observed, [n * float(p) for p in ge.values()]).pvalue < 1e-6


def test_presets_are_discrete_and_sources_cited():
    for name in DISCRETE_NAMES:
        m = preset(name)
        assert m.is_discrete and m.source
    assert "SampCert/DifferentialPrivacy/Queries/AboveThresh/Code.lean" in preset("sampcert-above-threshold").source
    assert not preset("seed-m1").is_discrete


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(sz=st.sampled_from([Fraction(1, 3), Fraction(1), Fraction(5, 2), Fraction(12)]),
       sx=st.sampled_from([Fraction(1, 3), Fraction(1), Fraction(5, 2), Fraction(12)]),
       q=st.lists(st.integers(-25, 25), min_size=1, max_size=3), gt=st.booleans(), pick=st.integers(0, 5))
@example(sz=Fraction(1, 3), sx=Fraction(1, 3), q=[0, 0, 0], gt=False, pick=3)  # ties everywhere
@example(sz=Fraction(1, 3), sx=Fraction(12), q=[25, -25], gt=True, pick=1)  # far tails
def test_discrete_gaussian_fast_path_against_the_direct_sum(sz, sx, q, gt, pick):
    """Hypothesis, discrete Gaussian: float64 within 10x its estimate of the mpmath direct sum (25 digits)."""
    dn = "discrete-gaussian"
    mech = SparseVector(1, 1, 0, NoiseSpec(dn, absolute=sz), NoiseSpec(dn, absolute=sx), cutoff=1, compare="gt" if gt else "ge")
    outs = mech.outputs(len(q))
    s = outs[pick % len(outs)]
    p = mp_probability(mech, q, s, digits=25)
    f = fast_log_probability(mech, q, s)
    if p == 0:
        assert f.log_value == -math.inf
        return
    assert f.error_estimate < 1e-9
    assert abs(f.log_value - float(mpmath.log(p))) <= 10 * f.error_estimate + 1e-15
