"""The halting kernel's precondition (`verify.engine.fast_halting.halting_refusal`), at its edge.

The kernel sums the chain B^{i-1}A = F...F·S, B^k = F^k (cutoff 1, an above's factor S_X) with
Laplace / exponential / no query noise and a Laplace or exponential threshold density.  Just inside:
a resampled threshold with cutoff 1 (the run halts before any resampling), exponential noise.  Just
outside: cutoff 2 (shared or resampled), a release at cutoff 1, Gaussian query noise, no threshold
noise.  Outside, `halting_distribution` refuses in one line and the front door integrates each
outcome on the generic path.
"""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from verify.engine.fast_generic import log_probability
from verify.engine.fast_halting import halting_distribution, halting_refusal
from verify.errors import InputError
from verify.family.fast_api import fast_log_distribution
from verify.family.presets import preset
from verify.noise import NoiseSpec
from verify.probabilities import SEED_FAST_MAX_K

K = SEED_FAST_MAX_K + 2  # above the seed's closed-form range: the front door would take the halting path


def _queries(k: int, n: int = 2) -> np.ndarray:
    return np.random.default_rng(7).uniform(-6, 6, (n, k))


def _generic(mech, q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    outs = mech.outputs(q.shape[1])
    res = [log_probability(mech, q, s) for s in outs]
    return np.stack([r.log_value for r in res], axis=1), np.stack([r.error_estimate for r in res], axis=1)


@pytest.mark.parametrize("mech", [preset("lyu-2", cutoff=1), preset("seed-m2"),
                                  dataclasses.replace(preset("dwork-roth"), query_spec=NoiseSpec("exponential", multiplier=4))],
                         ids=["resample-cutoff-1", "exponential", "laplace-threshold-exponential-queries"])
def test_just_inside_the_kernel_agrees_with_the_generic_path(mech):
    assert halting_refusal(mech) is None
    q = _queries(K)
    res = halting_distribution(mech, q)
    generic, est = _generic(mech, q)
    ok = np.isfinite(res.error_estimate) & np.isfinite(est)
    assert ok.sum() >= ok.size - 2
    # two independent quadratures: within the sum of their error estimates
    assert np.all(np.abs(np.expm1(res.log_value - generic))[ok] <= (res.error_estimate + est)[ok] + 1e-14)


@pytest.mark.parametrize("mech, reason", [
    (preset("lyu-1", cutoff=2), "cutoff 2, release none: the outcomes are not the halting chain"),
    (preset("lyu-2", cutoff=2), "cutoff 2, release none: the outcomes are not the halting chain"),
    (preset("lyu-3", cutoff=1), "cutoff 1, release query: the outcomes are not the halting chain"),
    (preset("gaussian-svt"), "threshold noise gaussian"),
    (dataclasses.replace(preset("dwork-roth"), query_spec=NoiseSpec("gaussian", absolute=4)), "query noise gaussian"),
    (dataclasses.replace(preset("dwork-roth"), threshold_spec=NoiseSpec("none")), "threshold noise none"),
], ids=["shared-cutoff-2", "resample-cutoff-2", "query-release", "gaussian", "gaussian-queries", "no-threshold-noise"])
def test_just_outside_the_kernel_refuses_in_one_line(mech, reason):
    why = halting_refusal(mech)
    assert why is not None and reason in why and "\n" not in why
    with pytest.raises(InputError, match="halting path: " + reason.split(":")[0]):
        halting_distribution(mech, _queries(4))


@pytest.mark.parametrize("name", ["lyu-1", "lyu-2"])
def test_outside_the_front_door_falls_back_to_the_generic_path(name):
    """cutoff 2: every outcome integrated on the generic path, bit for bit what it gives alone."""
    mech = preset(name, cutoff=2)
    q = _queries(4)
    logp, outs, refined = fast_log_distribution(mech, q)
    assert outs == mech.outputs(4) and len(outs) > 5 and refined == 0
    generic, _ = _generic(mech, q)
    assert np.array_equal(logp, generic)
    # the probabilities of all outcomes add to 1 (the generic path integrates each one correctly)
    assert np.allclose(np.exp(logp).sum(axis=1), 1.0, rtol=1e-10)
