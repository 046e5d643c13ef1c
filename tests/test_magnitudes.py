"""Every path at every accepted magnitude (|x| <= 1e50): the fast path within its stated accuracy,
probabilities in [0, 1], and ``digits`` D agreeing with D + 50 on the exact paths.

The fast path's stated accuracy: |log Pr - log Pr_exact| <= 1e-11 + 2^-53·|log Pr_exact| (relative
error 1e-11 in Pr; a float64 log of a probability below e^-9e4 cannot hold more than its own rounding).
References: the mpmath path at 30 digits (itself checked against 80 digits below).
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from verify.errors import InputError
from verify.family.presets import preset
from verify.family.probability import evaluate
from verify.mechanism import AboveThreshold
from verify.probabilities import FAST_TOLERANCE, fast_log_distribution, mp_distribution
from verify.ratio import log_ratio

U = 2.0**-53


def _log_error(fast_log: float, exact: mpmath.mpf) -> float:
    """|fast log - exact log| less the float64 rounding of the exact log itself."""
    with mpmath.workdps(60):
        if exact == 0:
            return 0.0 if fast_log == -math.inf else math.inf
        lex = mpmath.log(exact)
        return max(0.0, float(abs(mpmath.mpf(fast_log) - lex)) - 2 * U * abs(float(lex)))


def magnitudes():
    """Signed values 10^e, e in [-50, 50], and 0."""
    exp = st.integers(min_value=-50, max_value=50)
    mant = st.sampled_from([1, 3, 7])
    return st.one_of(st.just(0), st.builds(lambda s, m, e: s * m * 10**e if e >= 0 else Fraction(s * m, 10**-e),
                                           st.sampled_from([1, -1]), mant, exp))


MECHS = [AboveThreshold.mechanism_one(1), AboveThreshold.mechanism_two(1), AboveThreshold.mechanism_one(Fraction(10**40))]


@pytest.mark.slow
@settings(max_examples=80, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(range(len(MECHS))), st.lists(magnitudes(), min_size=1, max_size=3), magnitudes())
@example(0, [10**17, -(10**17)], 0)
@example(0, [10**50, -(10**50)], 0)
@example(0, [10**14, -(10**14)], 0)
@example(0, [10**8, -(10**8)], 0)
@example(0, [10**6, -(10**6)], 0)
@example(0, [-(10**16)], 0)
@example(0, [-(10**12)], 0)
@example(2, [1, -1], 0)
def test_seed_fast_path_within_its_accuracy_at_every_magnitude(m, queries, shift):
    mech = MECHS[m]
    qf = [float(q) + float(shift) for q in queries]
    if not all(math.isfinite(x) and abs(x) <= 2e50 for x in qf):
        return
    logp, _ = fast_log_distribution(mech, np.array([qf]))
    assert np.all(logp <= 0.0), "a probability above 1"
    exact = mp_distribution(mech, [Fraction(x) for x in qf], digits=30)
    for col, e in enumerate(exact):
        err = _log_error(float(logp[0, col]), e)
        assert err <= FAST_TOLERANCE, (qf, col, float(logp[0, col]), mpmath.nstr(e, 20))


CASES = [  # (threshold, queries, epsilon): the cases and their mirror images
    (10**50, [0, 0], 1), (0, [10**50, -(10**50)], 1), (10**25, [0, 0], 1), (10**15, [10**20, -(10**20)], 1),
    (10**15, [0, 0], 10**20), (-(10**50), [0, 0], 1), (0, [Fraction(1, 10**50), 0], 1),
]


def _agree(a: mpmath.mpf, b: mpmath.mpf, digits: int) -> bool:
    with mpmath.workdps(200):
        return a == b or (b != 0 and abs(a - b) <= abs(b) * mpmath.mpf(10) ** (1 - digits))


@pytest.mark.parametrize("t,queries,eps", CASES)
def test_seed_mpmath_digits_agree_with_50_more(t, queries, eps):
    for mech in (AboveThreshold.mechanism_one(eps, threshold=t), AboveThreshold.mechanism_two(eps, threshold=t)):
        lo = mp_distribution(mech, queries, digits=30)
        hi = mp_distribution(mech, queries, digits=80)
        for a, b in zip(lo, hi):
            assert _agree(a, b, 30), (t, queries, eps, a, b)
            assert 0 <= a <= 1


@pytest.mark.parametrize("name", ["seed-m1", "seed-m2", "dwork-roth", "lyu-1", "lyu-2", "lyu-6"])
@pytest.mark.parametrize("t,queries,eps", CASES[:5])
def test_family_closed_form_digits_agree_with_50_more(name, t, queries, eps):
    kw = {} if name == "lyu-6" else {"cutoff": 2}
    mech = preset(name, epsilon=eps, threshold=t, **kw)
    for out in mech.outputs(2):
        a = evaluate(mech, queries, out, None, 30).value
        b = evaluate(mech, queries, out, None, 80).value
        assert _agree(a, b, 30), (name, t, queries, out, a, b)


def test_ratio_at_threshold_1e50_is_a_third():
    """log p - log p' would cancel the 50 integer digits of log p (printed 0 before)."""
    mech = AboveThreshold.mechanism_one(1, threshold=10**50)
    p = mp_distribution(mech, [0, 0], 30)[1]
    pn = mp_distribution(mech, [1, -1], 30)[1]
    with mpmath.workdps(40):
        assert abs(log_ratio(p, pn) - mpmath.mpf(1) / 3) < mpmath.mpf(10) ** -28


@pytest.mark.slow
@pytest.mark.parametrize("t,queries", [(10**6, [0, 0]), (0, [10**9, -(10**9)]), (-(10**12), [0, 0])])
def test_gaussian_quadrature_digits_agree_with_50_more(t, queries):
    mech = preset("gaussian-svt", threshold=t, cutoff=2)
    for out in ("AA", "AB"):
        a = evaluate(mech, queries, out, None, 20).value
        b = evaluate(mech, queries, out, None, 70).value
        assert _agree(a, b, 20), (t, queries, out)


def test_gaussian_quadrature_refuses_beyond_its_reach():
    mech = preset("gaussian-svt", threshold=10**25, cutoff=2)
    with pytest.raises(InputError, match="noise scales"):
        evaluate(mech, [0, 0], "AA", None, 30)


FAMILY_FAST = ["seed-m1", "lyu-1", "lyu-6"]


@pytest.mark.slow
@pytest.mark.parametrize("name", FAMILY_FAST)
@pytest.mark.parametrize("mag", [1e-50, 30.0, 1e6, 1e17, 1e50])
def test_family_fast_path_within_its_accuracy(name, mag):
    from verify.family.fast_api import FAST_TOLERANCE as FAMILY_TOL
    from verify.family.fast_api import fast_log_distribution as family_fast

    kw = {} if name == "lyu-6" else {"cutoff": 2}
    for t, qs in [(mag, [0.0, 0.0]), (0.0, [mag, -mag]), (-mag, [0.0, mag])]:
        mech = preset(name, threshold=Fraction(t), **kw)
        logp, outs, _ = family_fast(mech, np.array([qs]))
        assert np.all(logp <= 1e-12)
        for c, s in enumerate(outs):
            exact = evaluate(mech, [Fraction(x) for x in qs], s, None, 30).value
            assert _log_error(float(logp[0, c]), exact) <= FAMILY_TOL, (name, t, qs, s)


FAMILY_HYPOTHESIS = [("lyu-1", {"cutoff": 2}), ("lyu-6", {}), ("seed-m2", {}), ("lyu-2", {"cutoff": 2})]


@pytest.mark.slow
@settings(max_examples=30, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(range(len(FAMILY_HYPOTHESIS))), st.lists(magnitudes(), min_size=1, max_size=3), magnitudes())
@example(1, [10**50, -(10**50)], 0)
@example(0, [0, 0], 10**50)
@example(1, [Fraction(1, 10**50)], -(10**17))
def test_family_fast_path_within_its_accuracy_at_every_magnitude(m, queries, threshold):
    """The family's fast front door (`verify.family.fast_api`) against its mpmath path at 30 digits, for
    query values and thresholds 10^e, e in [-50, 50]: every output within the stated accuracy, Pr <= 1."""
    from verify.family.fast_api import FAST_TOLERANCE as FAMILY_TOL
    from verify.family.fast_api import fast_log_distribution as family_fast

    name, kw = FAMILY_HYPOTHESIS[m]
    qf = [float(q) for q in queries]
    mech = preset(name, threshold=Fraction(float(threshold)), **kw)
    logp, outs, _ = family_fast(mech, np.array([qf]))
    assert np.all(logp <= 0.0), "a probability above 1"
    for c, s in enumerate(outs):
        exact = evaluate(mech, [Fraction(x) for x in qf], s, None, 30).value
        assert _log_error(float(logp[0, c]), exact) <= FAMILY_TOL, (name, threshold, qf, s, float(logp[0, c]))
