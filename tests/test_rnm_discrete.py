"""Report Noisy Max with discrete Laplace noise: ties have mass; the tie rule, the sum over ℤ, and its checks.

Oracles: a brute-force sum of Π_j Pr[X_j = x_j] over a box of noise vectors (independent of the conditioning
formula), the float64 sum, and a χ² test of the seeded sampler (level 1e-4 per case: over the 4 cases the
false-alarm rate is at most 4e-4; the draws are seeded, so the outcome is fixed).
"""

import itertools
import math

import mpmath
import numpy as np
import pytest
from scipy import stats

from verify.errors import InputError
from verify.selection.fast import fast_index_log_probabilities
from verify.selection.model import ReportNoisyMax
from verify.selection.probability import mp_index_probabilities
from verify.selection.sampler import sample_indices
from verify.selection.verdict import selection_verdict
from verify.verdicts import MechanismVerdict


def _m(scale=2, ties="first", **kw):
    return ReportNoisyMax(1, 1, "discrete-laplace", scale, ties=ties, **kw)


def _brute(s, b, ties, box):
    """Σ over x in [-box, box]^k of Π p(x_j), winner by the tie rule (float64; the box's outside mass < 3e-16 here).
    Every noise vector of the box at once (numpy arrays over the (2·box + 1)^k vectors): the winner is the first
    (``first``) or last (``last``) index holding the maximum of s + x, and its mass is added to that index."""
    r = math.exp(-1 / b)
    xs = np.arange(-box, box + 1)
    p = (1 - r) / (1 + r) * r ** np.abs(xs)
    k = len(s)
    combos = np.array(list(itertools.product(range(len(xs)), repeat=k)))  # the box's vectors as indices into xs
    noisy = np.asarray(s)[None, :] + xs[combos]
    win = np.argmax(noisy, axis=1) if ties == "first" else k - 1 - np.argmax(noisy[:, ::-1], axis=1)
    return np.bincount(win, weights=np.prod(p[combos], axis=1), minlength=k)


@pytest.mark.slow
@pytest.mark.parametrize("ties", ["first", "last"])
@pytest.mark.parametrize("scores", [(0, 0, 0), (0, 1, -2), (3, 1, 1)])
def test_sum_over_z_matches_the_brute_force_sum(ties, scores):
    m = _m(scale=1, ties=ties)  # b = 1: r^36 < 3e-16
    exact = mp_index_probabilities(m, scores, 25)
    brute = _brute(scores, 1.0, ties, 36)
    assert np.allclose([float(x) for x in exact], brute, rtol=1e-12, atol=0)
    with mpmath.workdps(25):
        assert abs(mpmath.fsum(exact) - 1) < mpmath.mpf(10) ** -22


def test_ties_decide_equal_scores():
    first = [float(x) for x in mp_index_probabilities(_m(), (0, 0, 0), 20)]
    last = [float(x) for x in mp_index_probabilities(_m(ties="last"), (0, 0, 0), 20)]
    assert first[0] > first[1] > first[2] and last == pytest.approx(first[::-1], rel=1e-15)


@pytest.mark.parametrize("ties", ["first", "last"])
def test_fast_within_1e_11_of_mpmath(ties):
    m = _m(ties=ties)
    for scores in [(0, 1, 1, 5), (0, -7, 3, 3, 3), (10, 0)]:
        logp, err = fast_index_log_probabilities(m, scores)
        exact = mp_index_probabilities(m, scores, 20)
        assert err < 1e-11
        assert max(abs(math.expm1(lp - float(mpmath.log(e)))) for lp, e in zip(logp, exact)) < 1e-11


@pytest.mark.parametrize("ties,scores", [("first", (0, 0, 0)), ("last", (0, 0, 0)), ("first", (0, 1, -1)), ("last", (2, 0, 2))])
def test_sampler_chi_square(ties, scores):
    m = _m(ties=ties)
    n = 200_000
    draws = sample_indices(m, scores, np.random.default_rng(20261207), n)
    expected = n * np.array([float(x) for x in mp_index_probabilities(m, scores, 20)])
    observed = np.bincount(draws, minlength=len(scores))
    assert stats.chisquare(observed, expected).pvalue > 1e-4


@pytest.mark.slow
def test_bound_and_verdicts():
    ok = selection_verdict(_m(), 3)
    assert ok.verdict is MechanismVerdict.PRIVATE and ok.bound.value == 1 and 0.99 < ok.loss <= 1
    bad = selection_verdict(_m(scale=1), 3)
    assert bad.verdict is MechanismVerdict.NOT_PRIVATE and 1.9 < bad.loss <= 2  # 2Δ/b = 2, approached


@pytest.mark.parametrize("kw,queries", [({}, (0, 1 / 2)), ({"output": "value"}, (0, 1)), ({"sensitivity": "1/2"}, (0, 1))])
def test_refused_in_one_line(kw, queries):
    with pytest.raises(InputError):
        m = ReportNoisyMax(1, kw.pop("sensitivity", 1), "discrete-laplace", 2, **kw)
        mp_index_probabilities(m, queries, 20)
