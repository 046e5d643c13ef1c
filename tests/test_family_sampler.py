"""The seeded sampler agrees with the exact probabilities: a χ² test per preset on the outcome strings
and a Kolmogorov–Smirnov test on the released values.

False alarms: each test rejects at p < 1e-6, so a correct sampler fails a given test with probability
at most about 1e-6 (χ² and KS asymptotics; cells with expected count < 5 are pooled); all seeds are fixed,
so the outcome is deterministic."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from released_density import log_density
from scipy import stats

from verify.family import NAMES, Release, preset
from verify.family.fast_api import fast_log_distribution
from verify.family.presets import DISCRETE_NAMES
from verify.family.probability import mp_distribution
from verify.family.sampler import sample

ALPHA = 1e-6
RUNS = 20_000
QUERIES = [Fraction(1, 2), Fraction(-1), Fraction(3, 2)]


def _options(name: str) -> dict:
    return {} if name in ("seed-m1", "seed-m2", "dwork-roth", "lyu-5", "lyu-6") else {"cutoff": 2}


def _chi2_pvalue(counts: np.ndarray, probs: np.ndarray) -> float:
    expected = probs * counts.sum()
    assert np.all(counts[probs == 0] == 0), "an outcome of probability 0 was sampled"
    order = np.argsort(expected)
    obs, exp = [], []
    acc_o = acc_e = 0.0
    for j in order:  # pool the smallest cells until each has expected count >= 5
        if probs[j] == 0:
            continue
        acc_o += counts[j]
        acc_e += expected[j]
        if acc_e >= 5:
            obs.append(acc_o)
            exp.append(acc_e)
            acc_o = acc_e = 0.0
    if acc_e > 0:
        obs[-1] += acc_o
        exp[-1] += acc_e
    if len(obs) < 2:
        return 1.0
    return float(stats.chisquare(obs, exp).pvalue)


#: the continuous presets: the discrete ones (sums over ℤ, their own sampler) are tested against their exact
#: law in tests/test_discrete_probability.py
CONTINUOUS = [n for n in NAMES if n not in DISCRETE_NAMES]


@pytest.mark.parametrize("name", CONTINUOUS)
def test_outcome_frequencies_match_the_exact_probabilities(name):
    m = preset(name, epsilon=1, **_options(name))
    letters = m.with_changes(release=Release.NONE, release_spec=None)  # the letters do not depend on the release
    if letters.is_piecewise:
        exact = mp_distribution(letters, QUERIES, digits=15)
        outs, probs = list(exact), np.array([float(v) for v in exact.values()])
    else:  # Gaussian: the fast path (relative error <= 1e-12, far below the test's resolution)
        logp, outs, _ = fast_log_distribution(letters, np.array([[float(x) for x in QUERIES]]))
        probs = np.exp(logp[0])
    counts = sample(m, QUERIES, RUNS, seed=20261201).counts(outs)
    assert counts.sum() == RUNS
    assert _chi2_pvalue(counts, probs) >= ALPHA


def test_chi2_has_power_negative_control():
    """Samples of Mechanism Two tested against Mechanism One's probabilities must be rejected."""
    exact = mp_distribution(preset("seed-m1"), QUERIES, digits=15)
    outs = list(exact)
    counts = sample(preset("seed-m2"), QUERIES, RUNS, seed=7).counts(outs)
    assert _chi2_pvalue(counts, np.array([float(exact[s]) for s in outs])) < ALPHA


@pytest.mark.slow
@pytest.mark.parametrize("name", ["lyu-3", "gap-svt", "numeric-svt"])
def test_released_values_follow_the_exact_density(name):
    """Runs ending in 'A' (k = 1): their released value against the CDF of the exact density
    (fast path on a 3001-point grid, trapezoid rule, normalised; grid error << KS resolution)."""
    m = preset(name)
    q = [Fraction(1, 2)]
    s = sample(m, q, RUNS, seed=99)
    values = s.released[s.outcomes == "A", 0]
    lo = 0.0 if m.release is Release.GAP else -60.0
    grid = np.linspace(lo, 60.0, 3001)
    logd = log_density(m, 0.5, "A", grid)
    dens = np.exp(logd)
    cdf = np.concatenate([[0.0], np.cumsum((dens[1:] + dens[:-1]) / 2 * np.diff(grid))])
    prob_a = float(mp_distribution(m.with_changes(release=Release.NONE, release_spec=None), q, 15)["A"])
    assert abs(cdf[-1] - prob_a) < 1e-3
    result = stats.kstest(values, lambda x: np.interp(x, grid, cdf / cdf[-1]))
    assert result.pvalue >= ALPHA


def test_sampler_is_seeded_and_validates():
    m = preset("lyu-2", cutoff=2)
    a, b = sample(m, QUERIES, 500, seed=3), sample(m, QUERIES, 500, seed=3)
    assert np.array_equal(a.outcomes, b.outcomes)
    assert set(a.outcomes) <= set(m.outputs(3))
    with pytest.raises(ValueError):
        sample(m, QUERIES, 0, seed=1)
