"""Report Noisy Max with Laplace noise, the one-pass float64 path (verify.selection.fast `_laplace_index_logs`)
against mpmath's quadrature `mp_index_probabilities`: spread, clustered and tied scores, outputs far below the
leader, and k = 1000 (against the former panel-matrix path)."""

import math

import mpmath
import numpy as np
import pytest

from verify.selection.fast import index_log_probabilities_of_floats
from verify.selection.model import ReportNoisyMax
from verify.selection.probability import mp_index_probabilities

MECH = ReportNoisyMax(1, 1, "laplace", 2)  # b = 2


def _rel_errors(s: np.ndarray, rows=None, dps: int = 20) -> tuple[float, float]:
    """The largest relative error of the float64 path over ``rows`` against mpmath at ``dps`` digits, and its estimate.
    Rows with equal scores have the same integral (p(z − s_i)·Π over the same multiset of other scores), so mpmath
    computes it once per distinct score among ``rows``; every row's float64 value is compared with it."""
    logp, est = index_log_probabilities_of_floats(MECH, s)
    rows = range(len(s)) if rows is None else rows
    exact = {}
    errs = []
    for i in rows:
        if s[i] not in exact:
            exact[s[i]] = mp_index_probabilities(MECH, [str(x) for x in s], dps, only=i)[0]
        errs.append(abs(math.expm1(logp[i] - float(mpmath.log(exact[s[i]])))))
    return max(errs), est


def _cases():
    rng = np.random.default_rng(3131)
    yield "spread", np.round(rng.uniform(-10, 10, 12), 3)
    yield "clustered", np.round(np.concatenate((rng.normal(0, 0.05, 8), rng.normal(6, 0.05, 7))), 4)
    yield "tied", np.array([1.0, 1.0, 1.0, 0.0, 0.0, 2.5, 2.5, -3.0])
    yield "far below", np.array([0.0, 200.0, 199.0, 198.5, 5.0])  # Pr[0] about e^{-100}
    yield "one score", np.array([0.0, 0.0])


@pytest.mark.slow
@pytest.mark.parametrize("name,s", list(_cases()), ids=[c[0] for c in _cases()])
def test_every_output_within_1e_11_of_mpmath(name, s):
    err, est = _rel_errors(s)
    assert err < 1e-11 and est < 1e-11, (name, err, est)


def test_far_below_the_leader_is_tiny_and_exact():
    logp, _ = index_log_probabilities_of_floats(MECH, np.array([0.0, 200.0, 199.0, 198.5, 5.0]))
    assert logp[0] < -95  # e^{-100}-scale, resolved in log space


@pytest.mark.slow
def test_k_100_tied_and_clustered():
    rng = np.random.default_rng(77)
    s = np.round(np.concatenate((np.full(30, 4.0), rng.normal(0, 0.02, 40), rng.uniform(-20, 4, 30))), 3)
    order = np.argsort(s)
    err, est = _rel_errors(s, rows=[int(order[-1]), int(order[50]), int(order[0]), 0], dps=18)
    assert err < 1e-11 and est < 1e-11


@pytest.mark.slow
def test_k_1000_every_output_agrees_with_the_panel_matrix_path():
    """The benchmark's case (benchmarks/bench_rnm.py): k = 1000 scores uniform on [0, 10b].  mpmath takes minutes
    per output at this size, so every output is compared with the former float64 path instead, an independent
    algorithm (the nodes × k matrix of log F on the same panels, `panel_matrix_index_logs`, 16-node rule), whose own 12- and
    16-node rules agree to 1e-14 here: the new path must agree with it to 1e-12, and state an estimate below 1e-11."""
    from verify.selection.fast import panel_matrix_index_logs

    s = np.round(np.random.default_rng(20261207).uniform(0, 20, 1000), 3)
    logp, est = index_log_probabilities_of_floats(MECH, s)
    old = panel_matrix_index_logs(MECH, s, 2.0, 16)
    assert np.max(np.abs(np.expm1(logp - old))) < 1e-12 and est < 1e-11


def test_the_cache_keeps_short_score_vectors_only():
    """Rule (`verify.selection.fast`): the rows of a sorted, shifted score vector are kept for vectors of at most
    CACHE_MAX_SCORES scores (the search asks them again), and a longer vector is computed without being kept, so a
    user's long vectors do not fill memory; a kept row gives the same bits as computing it again."""
    from verify.selection import fast

    fast.clear_cache()
    short = np.array([0.0, 1.5, -2.0])
    first, _ = index_log_probabilities_of_floats(MECH, short)
    assert fast._laplace_sorted_logs.cache_info().currsize == 1
    again, _ = index_log_probabilities_of_floats(MECH, short + 7.0)  # the same differences: served from the cache
    assert fast._laplace_sorted_logs.cache_info().hits == 1 and np.array_equal(first, again)
    fast.clear_cache()
    fresh, _ = index_log_probabilities_of_floats(MECH, short)
    assert np.array_equal(first, fresh)
    index_log_probabilities_of_floats(MECH, np.linspace(0.0, 5.0, fast.CACHE_MAX_SCORES + 1))
    assert fast._laplace_sorted_logs.cache_info().currsize == 1
    index_log_probabilities_of_floats(MECH, np.linspace(0.0, 5.0, fast.CACHE_MAX_SCORES))
    assert fast._laplace_sorted_logs.cache_info().currsize == 2
