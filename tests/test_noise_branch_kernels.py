"""Laplace's log F and log S evaluate each branch only where it is taken (`verify.noise.laplace`): the same bits as
``np.where`` of both branches computed everywhere, the form they replaced (the float64 evaluator's numbers rest on it)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from verify.noise.laplace import Laplace

_HALF = -math.log(2.0)


def _both_branches_cdf(x, b):
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        y = x / b
        return np.where(y < 0, _HALF + np.minimum(y, 0), np.log1p(-0.5 * np.exp(-np.maximum(y, 0))))


def _both_branches_sf(x, b):
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        y = x / b
        return np.where(y < 0, np.log1p(-0.5 * np.exp(np.minimum(y, 0))), _HALF - np.maximum(y, 0))


def _inputs():
    rng = np.random.default_rng(20261207)
    special = np.array([np.nan, -0.0, 0.0, np.inf, -np.inf, 5e-324, -5e-324, 1e-300, -1e-300, 1e308, -1e308])
    mixed = [rng.normal(0, s, (3, 5, 40)) for s in (1e-3, 1.0, 30.0, 1e4)]  # signs interleaved
    runs = np.sort(rng.normal(0, 100, (4, 2000)), axis=1)  # signs in runs, as on the quadrature's nodes
    return [special, runs, *mixed]


@pytest.mark.parametrize("b", [0.5, 20.0, 40 / 3, 1e-300, 1e300])
@pytest.mark.parametrize("which", ["log_cdf", "log_sf"])
def test_each_branch_where_taken_gives_the_bits_of_both_branches(which, b):
    new = getattr(Laplace(), which)
    old = _both_branches_cdf if which == "log_cdf" else _both_branches_sf
    for x in _inputs():
        got, want = new(x, b), old(x, b)
        assert got.shape == want.shape and got.dtype == want.dtype
        assert np.array_equal(got.view(np.int64), want.view(np.int64))


@pytest.mark.parametrize("which", ["log_cdf", "log_sf"])
@pytest.mark.parametrize("x", [0.3, -2.0, 0.0, -0.0, float("nan"), 7])
def test_a_scalar_gives_a_zero_dimensional_array_as_before(which, x):
    got = getattr(Laplace(), which)(x, 3.0)
    want = (_both_branches_cdf if which == "log_cdf" else _both_branches_sf)(x, 3.0)
    assert isinstance(got, np.ndarray) and got.shape == () and np.asarray(got).view(np.int64) == np.asarray(want).view(np.int64)
