"""The discrete halting pass (`verify.engine.discrete_halting`) against its formula evaluated cell by cell.

The pass reads log F and log S of the query noise from a table over the integers it needs (integer queries
and threshold) instead of evaluating them on every (row, z, k) cell; these tests rebuild the sum

    log Pr[B^{i-1}A | q] = log Σ_z Pr[Z=z] Π_{j<i} F(z+u_j) S(z+u_i),   log Pr[B^k | q] = log Σ_z Pr[Z=z] Π_j F(z+u_j)

on the same window, evaluating the laws on every cell and summing with scipy's ``logsumexp`` (the pass before
its table), and require agreement to a few units in the last place, the same error estimates, and the
same infinities."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import logsumexp

from verify.comparison import Comparison
from verify.engine.discrete_halting import UNIT, halting_logs
from verify.family.presets import preset
from verify.family.table import DP_SNIPER, TableConfig, row_mechanism


def cell_by_cell(mech, q: np.ndarray) -> np.ndarray:
    """The module docstring's sum, every factor evaluated on its own cell (no table)."""
    zn, xn = mech.threshold_noise, mech.query_noise
    u = float(mech.threshold) - q + (1.0 if mech.compare is Comparison.GT else 0.0)
    kinks = 1.0 - u
    reach = math.ceil(zn.law.tail_reach(float(zn.scale), 45.0))
    z = np.arange(min(kinks.min(), 0.0) - reach, max(kinks.max(), 0.0) + reach + 1)
    m = z[None, :, None] + u[:, None, :]
    prefix = np.concatenate([np.zeros(m.shape[:2] + (1,)), np.cumsum(xn.log_cdf(m), axis=2)], axis=2)
    prefix[:, :, :-1] += xn.log_sf(m)
    with np.errstate(divide="ignore"):
        return logsumexp(prefix + zn.log_pdf(z)[None, :, None], axis=1)


def _family_row():
    return row_mechanism("sampcert-above-threshold", 1, TableConfig(epsilon=DP_SNIPER.epsilon,
                                                                   sensitivity=DP_SNIPER.sensitivity, threshold=None))


@pytest.mark.parametrize("make", [lambda: preset("dlap-seed-m1"), lambda: preset("dgauss-above-threshold", compare="gt"),
                                  _family_row])
def test_table_pass_equals_the_cell_by_cell_sum(make):
    mech = make()
    rng = np.random.default_rng(29)  # seeded: the same query matrices every run
    for k in (1, 4, 10):
        q = rng.integers(-60, 61, (40, k)).astype(float)
        logs, err = halting_logs(mech, q)
        ref = cell_by_cell(mech, q)
        assert np.array_equal(np.isfinite(logs), np.isfinite(ref))
        fin = np.isfinite(ref)
        assert np.all(np.abs(logs[fin] - ref[fin]) <= 16 * UNIT * np.maximum(1.0, np.abs(ref[fin])))
        assert np.all(np.abs(logs[fin] - ref[fin]) <= err[fin])
