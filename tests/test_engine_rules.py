"""The engine's float64 modes and the closed form's point case (`verify.engine`).

Re-homed from the mutation rounds' files (`test_family_mutation_kills3.py`, `test_mutation_kills.py`); each class or test keeps its name, so
docs/mutation.md and `benchmarks/mutation_score.py` still find it.
"""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import numpy as np
import pytest
from family_variants import variant

from verify.mechanism import AboveThreshold
from verify.probabilities import fast_log_conditional, mp_conditional


class TestClosedFormPointKills3:
    """Written after sample 3 (seed 2203): the closed form without threshold noise."""

    def test_closed_form_at_z_zero_is_the_product_of_laplace_cdf_and_survival(self):
        """Rule (`verify.engine.piecewise` `point`, no threshold noise: z = 0): a below at q contributes F_X(t - q) and an
        above S_X(t - q); Laplace b = 2, t = 0 (textbook: F(d) = e^{d/b}/2 for d < 0, 1 - e^{-d/b}/2 for d >= 0):
        Pr[B at q = 1] = e^{-1/2}/2, Pr[B at q = -1] = 1 - e^{-1/2}/2, Pr[BA at (1, -1)] = e^{-1/2}/2 · e^{-1/2}/2 = e^{-1}/4
        (cutoff 1), all on the closed-form path at 30 digits."""
        from verify.family.probability import evaluate

        s = variant(z=("none", 1), x=("laplace", 2))
        with mpmath.workdps(40):
            h = mpmath.exp(-mpmath.mpf(1) / 2) / 2
            for q, outcome, want in (([1], "B", h), ([-1], "B", 1 - h), ([1, -1], "BA", h * h)):
                got = evaluate(s, q, outcome, method="closed")
                assert got.method == "closed form" and abs(got.value - want) < mpmath.mpf(10) ** -25, (q, outcome)


# --- fast path: the conditional form ------------------------------------------------------------------
@pytest.mark.parametrize("zf, xf", [("laplace", "laplace"), ("exponential", "laplace"), ("laplace", "exponential"),
                                    ("none", "laplace")])
def test_fast_conditional_measures_the_cutoff_from_the_threshold(zf, xf):
    """The proofs' conditional form restricts the threshold noise to z > cutoff - t (`FastIntegrator.events`):
    with t = 3/2 (not 0) the fast path must agree with the mpmath path (30 digits) to 1e-12 in log space,
    for i = 1 (no cutoff) and for cutoffs below, at and above the threshold; exact zeros stay -inf."""
    m = AboveThreshold.with_noise("laplace", 1, 1, F(3, 2), 0 if zf == "none" else 3, 3, threshold_family=zf,
                                  query_family=xf)
    cases = [(None, F(1)), (F(-1), F(2)), (F(2), F(-1)), (F(1, 2), F(1, 2)), (F(-2), F(-1, 2))]
    gm = np.array([-np.inf if g is None else float(g) for g, _ in cases])
    gq = np.array([float(d) for _, d in cases])
    fast = fast_log_conditional(m, gm, gq)
    for (g, d), lf in zip(cases, fast):
        v = mp_conditional(m, g, d, digits=30)
        if v == 0:
            assert lf == -np.inf, (g, d)
        else:
            assert abs(lf - float(mpmath.log(v))) < 1e-12, (g, d)


# --- fast path: which rows are summed in linear space, and blocks of rows --------------------------
def test_linear_safe_rows_follow_the_stated_bound():
    """`FastIntegrator.linear_safe`: a row is summed in linear space iff (k+2)·(2λR+1)·max(1, ρ) < 600,
    R = max(|a_j|, |c|) over the kinks, an infinite cutoff being no kink.  Lap(3) both (λ = 1/3, ρ = 1),
    k = 2: R < 223.5; threshold Lap(1), queries Lap(3) (ρ = 3): R < 73.5; queries Lap(1/100) (λ = 100):
    R = 0 is safe, R = 1 is not."""
    from verify.engine.fast_closed_form import FastIntegrator

    fi = FastIntegrator(AboveThreshold.with_noise("laplace", 1, 1, 0, 3, 3))
    a = np.array([[223.4, 0.0], [-223.6, 1.0], [0.0, 0.0], [0.0, 0.0], [0.0, -223.4]])
    c = np.array([-np.inf, -np.inf, 223.4, -223.6, -np.inf])
    assert fi.linear_safe(a, c).tolist() == [True, False, True, False, True]
    assert fi.linear_safe(a, None).tolist() == [True, False, True, True, True]
    rho3 = FastIntegrator(AboveThreshold.with_noise("laplace", 1, 1, 0, 1, 3))
    assert rho3.linear_safe(np.array([[73.4, 0.0], [73.6, 0.0]]), None).tolist() == [True, False]
    # λ = ρ = 1, k = 1: the bound 3·(2R + 1) is exactly 600 at R = 99.5, which is not below 600
    unit = FastIntegrator(AboveThreshold.with_noise("laplace", 1, 1, 0, 1, 1))
    assert unit.linear_safe(np.array([[99.5], [-99.25]]), None).tolist() == [False, True]
    sharp = FastIntegrator(AboveThreshold.with_noise("laplace", 1, 1, 0, 3, F(1, 100)))
    assert sharp.linear_safe(np.array([[0.0], [0.0], [1.0]]), np.array([-np.inf, 0.0, -np.inf])).tolist() == [True, True, False]


@pytest.mark.parametrize("with_cutoff", [False, True])
def test_fast_events_in_blocks_equal_one_pass(with_cutoff):
    """More rows than `verify.engine.fast_closed_form.CHUNK` are evaluated block by block with the same arithmetic: every row
    (and its cutoff, when given) gives bit-identical log-probabilities and error estimates to evaluating
    that row on its own."""
    from verify.engine.fast_closed_form import CHUNK, FastIntegrator

    fi = FastIntegrator(AboveThreshold.with_noise("laplace", 1, 1, F(1, 2), 3, 3))
    n = CHUNK + 3
    rng = np.random.default_rng(5)
    q = rng.uniform(-4, 4, size=(n, 2))
    cut = rng.uniform(-4, 4, size=n) if with_cutoff else None
    whole = fi.events(q, cut)
    for i in (0, 1, CHUNK - 1, CHUNK, n - 1):
        one = fi.events(q[i : i + 1], None if cut is None else cut[i : i + 1])
        assert np.array_equal(whole.log_probability[i], one.log_probability[0]), i
        assert np.array_equal(whole.error_estimate[i], one.error_estimate[0]), i


def test_fast_error_estimate_is_the_stated_multiple_of_the_condition_number():
    """`FastIntegrator.events` estimates the relative error of each log-probability as
    cond·(8·(k+2) + 2E)·2^-52 (cond = Σ|term| / |Σ term|), and as (4·(k+1) + 2E)·2^-52 without threshold
    noise (a product of k+1 kernel values), 0 for an exact zero; E = (k+2)·(2λR + 1)·max(1, ρ) with
    R = max|q_j| + |t| (+ |cutoff - t|) bounds the exponents, whose arguments are rounded to u·R.
    Exponential noise, k = 1, output s_1: every term is positive, cond = 1, so the estimate is exactly
    that multiple at every row (also in the log-space rows: q = 400 is beyond the linear-space bound); an
    exact zero likewise (an empty sum: cond = 1)."""
    from verify.engine.fast_closed_form import EPS, FastIntegrator

    def reach(q_row, t, lam, rho, cut=None):
        k = len(q_row)
        r = max(abs(x) for x in q_row) + abs(t) + (abs(cut - t) if cut is not None and np.isfinite(cut) else 0)
        return (k + 2) * (2 * lam * r + 1) * max(1.0, rho)

    fi = FastIntegrator(AboveThreshold.with_noise("exponential", 1, 1, F(1, 2), 3, 3))
    q = np.array([[0.0], [2.0], [-3.0], [400.0]])
    assert not fi.linear_safe(q - 0.5, None)[-1]
    r = fi.events(q)
    want = np.array([(24 + 2 * reach(row, 0.5, 1 / 3, 1.0)) * EPS for row in q])
    assert np.allclose(r.error_estimate[:, 0], want, rtol=1e-12, atol=0)
    assert np.all(r.error_estimate[:, 1] >= want * (1 - 1e-12))
    # an exact zero (exponential threshold, no query noise, q_1 < t: s_1 is impossible) is an empty sum, cond 1,
    # in a linear-space row (q = -1) and in a log-space row (q = -400)
    zero = FastIntegrator(AboveThreshold.with_noise("exponential", 1, 1, 0, 3, 0, query_family="none"))
    q = np.array([[-1.0], [-400.0]])
    assert zero.linear_safe(q, None).tolist() == [True, False]
    r = zero.events(q)
    want = np.array([(24 + 2 * reach(row, 0.0, 1 / 3, 1.0)) * EPS for row in q])
    assert np.all(r.log_probability[:, 0] == -np.inf) and np.allclose(r.error_estimate[:, 0], want, rtol=1e-12, atol=0)
    none = FastIntegrator(AboveThreshold.with_noise("laplace", 1, 1, F(1, 2), 0, 3))
    r = none.events(np.array([[0.0, 1.0], [2.0, -1.0]]), np.array([-np.inf, 1.0]))
    assert np.allclose(r.error_estimate[0], (12 + 2 * reach([0.0, 1.0], 0.5, 1 / 3, 1.0)) * EPS, rtol=1e-12, atol=0)
    assert np.all(r.log_probability[1] == -np.inf) and np.all(r.error_estimate[1] == 0)


def test_fast_result_is_immutable():
    """A `FastResult` is a frozen record: its arrays cannot be rebound after the evaluation."""
    import dataclasses

    from verify.engine.fast_closed_form import FastIntegrator

    r = FastIntegrator(AboveThreshold.mechanism_one(1)).events(np.array([[0.0]]))
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.log_probability = np.zeros((1, 2))
