"""All k+1 halting probabilities of a discrete AboveThreshold (cutoff 1), vectorised over query vectors.

For cutoff 1 the outcomes are ``B^{i-1}A`` (i = 1..k) and ``B^k``; with
``u_j = t - q_j + [gt]`` (`verify.engine.discrete_plan`),

    Pr[B^{i-1}A | q] = Σ_z Pr[Z=z] Π_{j<i} F(z+u_j) · S(z+u_i),    Pr[B^k | q] = Σ_z Pr[Z=z] Π_{j<=k} F(z+u_j),

so one pass over a common window of z with prefix sums of ``log F`` gives all
of them for every row of a query matrix.  Float64, log space; the window
holds every kink of every row and reaches ``tail_reach(b_Z, 45)`` beyond, and
the returned error estimate adds the left-out mass ``Pr[Z ∉ window]`` relative
to each value (as `verify.engine.discrete_fast`, which this matches row by row).
``log F`` and ``log S`` are read from a table over the integers the window needs
(`_FactorTable`), not evaluated on every (row, z, k) cell.
"""

from __future__ import annotations

import math

import numpy as np

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
    factors = _FactorTable.of(xn, z, u)
    for start in range(0, n, chunk):
        uu = u[start:start + chunk]
        log_f, log_s = factors.at(z, uu)  # each (rows, z, k): log F(z + u_j), log S(z + u_j)
        prefix = np.concatenate([np.zeros(log_f.shape[:2] + (1,)), np.cumsum(log_f, axis=2)], axis=2)  # (rows, z, k+1)
        size = np.abs(prefix).max(axis=1) + np.abs(log_s).max(axis=(1, 2))[:, None] + 60.0
        terms = prefix  # the prefix sums are read above; the terms are built in place
        terms[:, :, :k] += log_s
        terms += log_pz[None, :, None]
        vals = _logsumexp_z(terms)  # (rows, k+1)
        out[start:start + chunk] = vals
        with np.errstate(over="ignore", invalid="ignore"):
            err[start:start + chunk] = UNIT * (size + k + 2 + z.size) + np.exp(left - vals)
    return out, err


class _FactorTable:
    """``log F`` and ``log S`` of the query noise at every integer ``m = z + u_j`` the pass needs, computed once.

    With integer ``u`` (integer threshold and queries: always, for the discrete presets) every ``m`` is an
    integer in ``[z_0 + min u, z_end + max u]``; the laws' ``log_cdf``/``log_sf`` act elementwise, so reading
    a table of that range gives bit for bit the values of evaluating them on the (rows, z, k) array, at a cost of
    one evaluation per distinct integer instead of one per cell.  Otherwise ``at`` evaluates the laws directly."""

    def __init__(self, xn, lo: float | None, log_f: np.ndarray | None, log_s: np.ndarray | None) -> None:
        self.xn, self.lo, self.log_f, self.log_s = xn, lo, log_f, log_s

    @classmethod
    def of(cls, xn, z: np.ndarray, u: np.ndarray) -> _FactorTable:
        if not np.all(u == np.round(u)) or not np.all(z == np.round(z)):
            return cls(xn, None, None, None)
        lo = float(z[0] + u.min())
        grid = np.arange(lo, float(z[-1] + u.max()) + 1.0)
        return cls(xn, lo, xn.log_cdf(grid), xn.log_sf(grid))

    def at(self, z: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        if self.lo is None:
            m = z[None, :, None] + u[:, None, :]
            return self.xn.log_cdf(m), self.xn.log_sf(m)
        idx = (z - z[0]).astype(np.intp)[None, :, None] + (u - (self.lo - z[0])).astype(np.intp)[:, None, :]
        return self.log_f[idx], self.log_s[idx]


def _logsumexp_z(terms: np.ndarray) -> np.ndarray:
    """``log Σ_z exp(terms)`` over axis 1: ``m + log Σ exp(terms - m)`` with ``m`` the largest term (−inf where all
    terms are −inf).  The same shifted sum as scipy's ``logsumexp``, without its general-purpose overhead; it
    differs from it by rounding only (a few units in the last place, inside the error estimate's
    ``UNIT·(k + 2 + #z)``)."""
    top = terms.max(axis=1, keepdims=True)
    shift = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        return np.log(np.exp(terms - shift).sum(axis=1)) + shift[:, 0, :]
