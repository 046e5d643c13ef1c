"""The halting path (`verify.engine.fast_halting` and its compiled kernel) keeps the fast path's accuracy.

Against the seed's mpmath distribution (40 digits), the family's mpmath closed form (30 digits) and
the plain matrix form of the same quadrature rule: every value whose estimate is within the tolerance
is within it, on clustered queries, ties, far tails and queries so far apart that the kernel takes
one exp per element."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from verify.engine.fast_halting import halting_distribution
from verify.engine.fast_plan import panels, tail_edges, variation_bound
from verify.family import preset
from verify.family.fast_api import FAST_TOLERANCE
from verify.family.probability import mp_probability
from verify.probabilities import mp_distribution as seed_distribution


def _rel(logv: float, exact: mpmath.mpf) -> float:
    with mpmath.workdps(30):
        return abs(float(mpmath.expm1(mpmath.mpf(logv) - mpmath.log(exact))))


def _vectors(rng: np.random.Generator, k: int) -> list[np.ndarray]:
    uniform = rng.uniform(-6, 6, k)
    clustered = rng.normal(0, 0.05, k) + 1.5
    ties = np.resize(np.repeat(rng.uniform(-5, 5, max(1, k // 4)), 4), k)
    far = rng.uniform(-6, 6, k)
    far[rng.integers(0, k, max(1, k // 5))] = rng.choice([-80.0, 80.0, 150.0], max(1, k // 5))
    return [np.round(v, 4) for v in (uniform, clustered, ties, far)]


@pytest.mark.parametrize("name", ["seed-m1", "seed-m2", "dwork-roth"])
def test_all_outputs_agree_with_the_seed_at_k_20(name):
    m = preset(name)
    for q in _vectors(np.random.default_rng(20), 20):
        res = halting_distribution(m, q[None, :])
        exact = seed_distribution(m, [Fraction(str(x)) for x in q], 40)
        for c, e in enumerate(exact):
            if res.error_estimate[0, c] <= FAST_TOLERANCE:
                assert _rel(res.log_value[0, c], e) <= FAST_TOLERANCE, (c, q)


def test_k_1000_first_outputs_agree_with_mpmath():
    """k = 1000, clustered and uniform queries: outputs 0, 1, 3 against the mpmath closed form; all
    estimates within the tolerance; the distribution sums to 1."""
    m = preset("seed-m1")
    rng = np.random.default_rng(1000)
    for q in (np.round(rng.uniform(-6, 6, 1000), 4), np.round(rng.normal(0, 0.05, 1000) + 1.5, 4)):
        res = halting_distribution(m, q[None, :])
        assert np.all(res.error_estimate <= FAST_TOLERANCE)
        assert abs(math.fsum(np.exp(res.log_value[0])) - 1) < 1e-12
        fq = [Fraction(str(x)) for x in q]
        for i in (0, 1, 3):
            exact = mp_probability(m, fq, "B" * i + "A", None, 30)
            assert _rel(res.log_value[0, i], exact) <= FAST_TOLERANCE


def _f_and_s(noise, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """F(y) = Pr[X < y] and S(y) = Pr[X >= y] of Laplace, exponential or no noise, in numpy."""
    if noise.is_none:
        return (y > 0).astype(float), (y <= 0).astype(float)
    lam = 1 / float(noise.scale)
    if noise.family == "laplace":
        e = 0.5 * np.exp(-lam * np.abs(y))
        neg = y < 0
        return np.where(neg, e, 1 - e), np.where(neg, 1 - e, e)
    pos = y > 0
    yp = np.where(pos, y, 0.0)
    return np.where(pos, -np.expm1(-lam * yp), 0.0), np.where(pos, np.exp(-lam * yp), 1.0)


def _reference(mech, q: np.ndarray) -> np.ndarray:
    """The same quadrature as the kernel (same nodes and weights), written as the (k, N) matrix of
    F values, its cumulative product and one sum per output, in numpy with one exp per element."""
    from verify.engine.fast_plan import noise_rates

    n, k = q.shape
    a = q - float(mech.threshold)
    points = np.sort(np.concatenate([a, np.zeros((n, 1))], axis=1), axis=1)
    edges = tail_edges(mech, points)
    rz, lx = noise_rates(mech)
    var = variation_bound(mech, edges, np.sort(a, axis=1), extra=lx)
    var = np.where(edges[:, 1:] <= points[:, :1], (edges[:, 1:] - edges[:, :-1]) * (rz + lx), var)
    z, w, _ = panels(edges, var)
    out = np.empty((n, k + 1))
    for r in range(n):
        f, s = _f_and_s(mech.query_noise, z[r][None, :] - a[r][:, None])  # (k, N)
        g = np.vstack([np.ones(z.shape[1]), np.cumprod(f, axis=0)])  # G_0 .. G_k at the nodes
        omega = mech.threshold_noise.pdf(z[r]) * w[r]
        out[r, :k] = (g[:-1] * s * omega).sum(axis=1)
        out[r, k] = (g[-1] * omega).sum()
    return out


@pytest.mark.parametrize("name", ["seed-m1", "seed-m2", "dwork-roth"])
def test_kernel_equals_the_matrix_form_of_the_same_rule(name):
    """The compiled kernel (one pass per query, outer-product factors, left/right split at each
    a_i, expm1 near an exponential kink, the window) gives the same sums as the plain matrix form
    on the same nodes: rows of different lengths (padding), ties, a query on a node's side of 0."""
    m = preset(name)
    rng = np.random.default_rng(7)
    q = np.round(rng.uniform(-6, 6, (4, 60)), 3)
    q[1, ::3] = 0.0
    q[2] = np.resize([1.25, -2.5, 1.25, 4.0], 60)
    res = halting_distribution(m, q)
    ref = _reference(m, q)
    assert np.all(res.error_estimate <= FAST_TOLERANCE)
    assert np.abs(np.expm1(res.log_value - np.log(ref))).max() <= 1e-13


def test_far_queries_use_one_exp_per_element_and_stay_within_the_estimate():
    """Queries 3000 noise scales apart: the outer-product factors would overflow and the kernel takes
    one exp per element.  Outputs whose mass lies 3000 scales out (below 1e-290) are flagged (estimate
    inf, for the caller to recompute); the others are within their estimate of mpmath, and that
    estimate is small."""
    m = preset("seed-m1")
    q = np.array([[-9000.0, 1.0, 9000.0, -0.5, 2.0]])
    res = halting_distribution(m, q)
    fq = [Fraction(x) for x in q[0]]
    for i in range(6):
        outcome = "B" * i + "A" if i < 5 else "B" * 5
        if np.isfinite(res.error_estimate[0, i]):
            assert _rel(res.log_value[0, i], mp_probability(m, fq, outcome, None, 30)) <= res.error_estimate[0, i]
    assert np.all(res.error_estimate[0, 1:3] < 1e-10)
    assert np.isinf(res.error_estimate[0, 0]) and np.isinf(res.error_estimate[0, 5])


def test_the_window_bounds_what_it_leaves_out(monkeypatch):
    """With a window far too tight (nodes below 1e-3 of the largest mass left out), the values
    change, and each change stays within the error estimate: the left-out mass is bounded, not lost."""
    import verify.engine.fast_halting as fh

    m = preset("seed-m1")
    q = np.round(np.random.default_rng(9).uniform(-6, 6, (2, 120)), 3)
    good = halting_distribution(m, q)
    monkeypatch.setattr(fh, "WINDOW", 1e-3)
    rough = halting_distribution(m, q)
    diff = np.abs(np.expm1(rough.log_value - good.log_value))
    assert diff.max() > 1e-10  # the tight window does change the values ...
    assert np.all(diff <= rough.error_estimate + good.error_estimate)  # ... and the estimate covers it
    assert rough.error_estimate.max() > FAST_TOLERANCE  # so the front door would recompute those rows


def test_rounding_term_is_each_outputs_weighted_node_bound_plus_its_own_factor():
    """The compiled error assembly (`finish_rows`) adds, per output, the kernel's weighted node bound
    over the value, the output's own S factor (ε + δ_i + 4u; none for B^k) and the fixed part of
    `rounding_linear` (weight and chunked sums); no tails, no window, values 1 here, so the estimate
    is the rounding term alone.  It does not grow with the output's number of factors."""
    from verify.engine.fast_plan import rounding_linear
    from verify.engine.halting_kernel import LAPLACE, finish_rows

    k, n = 1000, 2
    rng = np.random.default_rng(12)
    delta = rng.uniform(1e-16, 2e-16, (n, k))
    eps = np.array([1.2e-16, 1.5e-16])
    count, wexp = np.array([12000, 3000]), np.array([47.0, 3.0])
    far = np.full(n, 1e6)
    weighted = rng.uniform(0, 1e-14, (n, k + 1))
    logv, err = finish_rows(LAPLACE, 1 / 3, np.zeros((n, k)), -far, far, np.zeros(n), np.zeros(n), np.ones((n, k + 1)),
                            np.zeros((n, k + 1)), weighted, np.zeros(n), count, wexp, eps, delta, 1e-290)
    u = 2.0**-53
    own = np.concatenate([eps[:, None] + delta + 4 * u, np.zeros((n, 1))], axis=1)
    fixed = rounding_linear(0, count[:, None], wexp[:, None], 0.0, 0.0)
    assert np.allclose(err, weighted + own + fixed, rtol=1e-12, atol=0)
    assert np.all(logv == 0)
    assert err.max() < FAST_TOLERANCE


def test_exponential_factor_near_its_kink_does_not_cancel():
    """Exponential query noise, a node 1e-9 right of a kink: F = 1 - e^{-λy} ≈ λy must come from
    expm1 (1 - e^{-λy} in float64 keeps only ~7 digits there).  Kernel called directly: the second
    output's sum is ω·F(z - a_1)·S(z - a_2) with ω = 1 and S = 1 (a_2 far right)."""
    from verify.engine.halting_kernel import EXPONENTIAL, halting_rows

    lam = 1 / 3
    a = np.array([[0.0, 50.0]])
    z = np.array([[1e-9]])
    omega = np.array([[1.0]])
    eright, aright = np.exp(-lam * z), np.exp(lam * a)
    values, dropped, _ = halting_rows(EXPONENTIAL, lam, False, z, np.zeros_like(z), eright, omega, np.array([1]), a,
                                      np.zeros_like(a), aright, 0.0, np.zeros(1), np.zeros_like(a), 45 / lam)
    want = -math.expm1(-lam * 1e-9)
    assert abs(values[0, 1] / want - 1) < 1e-14
    assert dropped.max() == 0.0
