"""Float64 outcome probabilities of discrete variants, with an error estimate.

The sum of `verify.engine.discrete_plan`, ``Σ_z Pr[Z=z] Π_i f_i(z)``, is evaluated in
log space on a window of integers z (every kink and 0, plus a reach) as one
vectorised array ``log Pr[Z=z] + Σ_i log f_i(z)`` and a log-sum-exp; the
families' float64 kernels (``log_pdf``, ``log_sf``, ``log_cdf`` of
`verify.noise.discrete_laplace` and `verify.noise.discrete_gaussian`) give
every term.  The left-out mass is at most ``Pr[Z >= hi+1] + Pr[Z < lo]``
(every product is <= 1), and the window is widened until that is below
``1e-17`` of the sum.

The error *estimate* (not a bound): a log value of size L carries an absolute
error of about ``L·2^{-52}``, so each term is off by a relative
``u·(|log Pr[Z=z]| + Σ_i |log f_i(z)| + k + 2)`` with ``u = 2^{-52}``; the sum of N
positive terms adds ``N·u``; plus the left-out mass relative to the sum.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from verify.engine.discrete_direct import MAX_WINDOW, check_window
from verify.engine.discrete_plan import Plan, Segment, build_plan
from verify.noise import Noise

UNIT = 2.0 ** -52
#: Widen the window until the left-out mass is below this fraction of the sum.
TAIL_TARGET = 1e-17
MAX_WIDENINGS = 16


@dataclass(frozen=True)
class FastValue:
    """``log Pr`` in float64 and its relative error estimate."""

    log_value: float
    error_estimate: float

    @property
    def value(self) -> float:
        return math.exp(self.log_value)


def _log_factors(seg: Segment, z: np.ndarray, xnoise: Noise) -> np.ndarray:
    """The (len(z), n) array of ``log f_i(z)``."""
    u = np.asarray(seg.offsets, dtype=float)
    up = np.asarray(seg.above, dtype=bool)
    m = z[:, None] + u[None, :]
    if xnoise.is_none:  # indicators: above iff m <= 0
        ok = (m <= 0) == up[None, :]
        return np.where(ok, 0.0, -np.inf)
    out = np.empty_like(m)
    if up.any():
        out[:, up] = xnoise.log_sf(m[:, up])
    if (~up).any():
        out[:, ~up] = xnoise.log_cdf(m[:, ~up])
    return out


def _first_window(seg: Segment, znoise: Noise) -> tuple[list, int]:
    """The kinks of a segment (and 0) and the first reach beyond them, the window refused in one line
    (`check_window`) when it is above the sums' limit, before any term is evaluated."""
    kinks = [1 - u for u in seg.offsets] + [0]
    b = float(znoise.scale)
    reach = max(8, int(math.ceil(znoise.law.tail_reach(b, 60.0))))
    check_window(max(kinks) - min(kinks) + 2 * reach + 1, b, max(kinks) - min(kinks))
    return kinks, reach


#: Segments kept by `_segment`'s cache: a search evaluates the same segment for many (query vector, outcome)
#: pairs (an outcome halting at query j depends on the first j queries only; ``gt`` at t - 1 has ``ge``'s offsets at t).
SEGMENT_CACHE = 8192


@functools.lru_cache(maxsize=SEGMENT_CACHE)
def _segment(seg: Segment, znoise: Noise, xnoise: Noise) -> tuple[float, float]:
    """``(log Σ_z Pr[Z=z] Π_i f_i(z), relative error estimate)`` of one segment (module docstring); a pure function
    of its (frozen, hashable) arguments, so its values are cached (`SEGMENT_CACHE`)."""
    from scipy.special import logsumexp  # lazy: start-up time (scipy.special costs 0.4 s of CPU to import)

    n = len(seg.offsets)
    if znoise.is_none:
        row = _log_factors(seg, np.zeros(1), xnoise)[0]
        total = float(row.sum())
        return total, UNIT * (float(np.abs(row[np.isfinite(row)]).sum()) + n + 2)
    kinks, reach = _first_window(seg, znoise)
    for _ in range(MAX_WIDENINGS):
        lo, hi = min(kinks) - reach, max(kinks) + reach
        z = np.arange(lo, hi + 1, dtype=float)
        rows = znoise.log_pdf(z) + (0.0 if n == 0 else _log_factors(seg, z, xnoise).sum(axis=1))
        with np.errstate(divide="ignore"):
            total = float(logsumexp(rows))
        left = float(np.logaddexp(znoise.log_sf(np.array([hi + 1.0]))[0], znoise.log_cdf(np.array([float(lo)]))[0]))
        if total > -math.inf and left - total <= math.log(TAIL_TARGET):
            break
        if total == -math.inf and xnoise.is_none:  # indicators: constant beyond the kinks, zero on both sides
            return total, 0.0
        if z.size + 2 * reach > MAX_WINDOW:  # no wider than the limit: the left-out mass is in the estimate
            break
        reach *= 2
    if total == -math.inf:
        return total, 0.0
    weights = np.exp(rows - total)
    finite = np.isfinite(rows)
    size = float((np.abs(rows[finite]) * weights[finite]).sum()) if finite.any() else 0.0
    err = UNIT * (size + n + 2 + z.size) + math.exp(left - total)
    return total, err


def clear_cache() -> None:
    """Forget the segments `_segment` keeps, so that a benchmark times the computation, not the cache."""
    _segment.cache_clear()


def fast_plan(plan: Plan) -> FastValue:
    log_value, err = 0.0, 0.0
    for seg in plan.segments:
        lv, e = _segment(seg, plan.threshold_noise, plan.query_noise)
        log_value += lv
        err += e
    return FastValue(log_value, err)


def check_sum(mech: Any, queries: Sequence[object], outcome: str) -> None:
    """What `fast_log_probability` refuses before it sums (the plan's own checks, `build_plan`, and each segment's
    first window, `check_window`), without summing: a caller validating sizes up front (a table refusing a row
    before any row runs) pays neither the sums nor the import of scipy.special."""
    plan = build_plan(mech, queries, outcome)
    if not plan.threshold_noise.is_none:
        for seg in plan.segments:
            _first_window(seg, plan.threshold_noise)


def fast_log_probability(mech: Any, queries: Sequence[object], outcome: str) -> FastValue:
    """``log Pr[outcome | queries]`` in float64 with its relative error estimate (module docstring)."""
    return fast_plan(build_plan(mech, queries, outcome))
