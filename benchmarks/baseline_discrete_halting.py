"""The discrete halting pass as it was before its factor table (`verify.engine.discrete_halting` at 2b3f0ec):
the baseline that `benchmarks/bench_discrete.py` times the current code against, in the same process.

Kept verbatim apart from this docstring: log F and log S of the query noise evaluated on every (row, z, k) cell,
and scipy's ``logsumexp``.  Not imported by `verify`."""
from __future__ import annotations

import math

import numpy as np
from scipy.special import logsumexp

from verify.comparison import Comparison
from verify.engine.discrete_direct import check_window
from verify.errors import InputError

UNIT = 2.0 ** -52
#: Rows per chunk are chosen so that each (rows, z, k+1) array holds at most this many float64s (32 MB).
MAX_CELLS = 4_000_000


def halting_logs(mech, queries: np.ndarray, chunk: int = 512) -> tuple[np.ndarray, np.ndarray]:
    """``(log Pr, error estimate)``, both of shape (n, k+1), columns ``A, BA, ..., B^{k-1}A, B^k``."""
    if mech.cutoff != 1 or mech.threshold_policy.value != "shared" or not mech.is_discrete:
        raise InputError(f"halting probabilities: {mech.name} is not a discrete AboveThreshold (cutoff 1, shared threshold)")
    q = np.atleast_2d(np.asarray(queries, dtype=float))
    if not np.all(q == np.round(q)):
        raise InputError("queries: a discrete variant needs integer queries")
    zn, xn = mech.threshold_noise, mech.query_noise
    if zn.is_none or xn.is_none:
        raise InputError("halting probabilities: both noises must be present (use verify.engine.discrete_fast)")
    u = float(mech.threshold) - q + (1.0 if mech.compare is Comparison.GT else 0.0)
    kinks = 1.0 - u
    reach = math.ceil(zn.law.tail_reach(float(zn.scale), 45.0))
    spread = float(max(kinks.max(), 0.0) - min(kinks.min(), 0.0))
    check_window(spread + 2 * reach + 1, float(zn.scale), spread)
    z = np.arange(min(kinks.min(), 0.0) - reach, max(kinks.max(), 0.0) + reach + 1)
    log_pz = zn.log_pdf(z)
    left = float(np.logaddexp(zn.log_sf(np.array([z[-1] + 1.0]))[0], zn.log_cdf(np.array([z[0]]))[0]))
    n, k = q.shape
    out = np.empty((n, k + 1))
    err = np.empty((n, k + 1))
    chunk = max(1, min(chunk, MAX_CELLS // (z.size * (k + 1))))  # (rows, z, k+1) arrays of at most MAX_CELLS floats
    for start in range(0, n, chunk):
        uu = u[start:start + chunk]
        m = z[None, :, None] + uu[:, None, :]  # (rows, z, k)
        log_f = xn.log_cdf(m)
        log_s = xn.log_sf(m)
        prefix = np.concatenate([np.zeros(m.shape[:2] + (1,)), np.cumsum(log_f, axis=2)], axis=2)  # (rows, z, k+1)
        terms = prefix.copy()
        terms[:, :, :k] += log_s
        terms += log_pz[None, :, None]
        with np.errstate(divide="ignore"):
            vals = logsumexp(terms, axis=1)  # (rows, k+1)
        out[start:start + chunk] = vals
        size = np.abs(prefix[:, :, :]).max(axis=1) + np.abs(log_s).max(axis=(1, 2))[:, None] + 60.0
        with np.errstate(over="ignore", invalid="ignore"):
            err[start:start + chunk] = UNIT * (size + k + 2 + z.size) + np.exp(left - vals)
    return out, err
