"""The fast float64 path of the SVT family: one front door with escalation.

* `fast_log_probability`: log Pr[outcome] (log density with released values) for
  many query vectors at once, any variant (`verify.engine.fast_generic`).
* `fast_log_distribution`: log Pr of every output of a variant that releases
  nothing.  AboveThreshold-shaped variants (cutoff 1, no release, Laplace /
  exponential / no noise) use, for k <= `SEED_FAST_MAX_K`, the vectorised mode of the
  one closed form (`verify.engine.fast_closed_form`, through `verify.probabilities.fast_log_distribution`; fastest at small k)
  and above it the Gauss–Legendre halting path (`verify.engine.fast_halting`),
  which does not cancel, wherever its precondition holds (`halting_refusal`); every other
  variant integrates each output on the generic path.

Every value whose error estimate exceeds ``tolerance`` is recomputed.  On the halting path the
chain always finishes (`escalate_row`): the same nodes in long double
(`verify.engine.halting_extended`), then the compiled kernel with ``FINER`` times smaller panels,
then those panels in long double, then mpmath (`verify.family.probability.evaluate`, 20 digits) for
an outcome of at most `MP_FALLBACK_MAX_LETTERS` letters, whose cost is bounded; a longer one is
refused in one line (`InputError`) rather than integrated for hours.  The number of rows so
recomputed is returned: a caller never receives a value whose estimate is above the tolerance.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction

import mpmath
import numpy as np

from verify.engine.discrete_fast import fast_log_probability as discrete_fast
from verify.engine.fast_generic import log_probability
from verify.errors import InputError
from verify.family.probability import evaluate
from verify.integer_rules import refuse_discrete
from verify.mechanism import SparseVector, as_variant
from verify.precision import FAST_TOLERANCE, MPMATH_LOCK
from verify.probabilities import fast_log_distribution as seed_fast
from verify.validate import float_rows


def _rows(queries: np.ndarray) -> np.ndarray:
    return float_rows(queries)


def _mp_log(mech: SparseVector, row: np.ndarray, outcome: str, released: Sequence[float] | None) -> float:
    rel = None if released is None else [Fraction(float(x)) for x in released]
    value = evaluate(mech, [Fraction(float(x)) for x in row], outcome, rel, digits=20).value
    with MPMATH_LOCK, mpmath.workdps(25):
        return float(mpmath.log(value)) if value > 0 else -math.inf


def _discrete_log_probability(mech: SparseVector, q: np.ndarray, outcome: str, released, tolerance: float) -> tuple[np.ndarray, int]:
    """`verify.engine.discrete_fast` row by row (sums over ℤ); a row whose error estimate exceeds ``tolerance``
    is recomputed on the exact path (`evaluate`, mpmath)."""

    if released is not None:
        raise InputError(f"released: {mech.name} has discrete noise and releases nothing")
    logv = np.empty(q.shape[0])
    refined = 0
    for r, row in enumerate(q):
        exact_row = [Fraction(float(x)) for x in row]
        fv = discrete_fast(mech, exact_row, outcome)
        if fv.error_estimate > tolerance:
            refined += 1
            logv[r] = _mp_log(mech, row, outcome, None)
        else:
            logv[r] = fv.log_value
    return logv, refined


def fast_log_probability(mech: SparseVector, queries: np.ndarray, outcome: str, released: np.ndarray | Sequence | None = None,
                         tolerance: float = FAST_TOLERANCE) -> tuple[np.ndarray, int]:
    """(log values (n,), number of rows recomputed with mpmath)."""
    mech = as_variant(mech)
    q = _rows(queries)
    if mech.is_discrete:
        return _discrete_log_probability(mech, q, outcome, released, tolerance)
    res = log_probability(mech, q, outcome, released)
    logv = res.log_value.copy()
    bad = np.nonzero(res.error_estimate > tolerance)[0]
    rel = None
    if released is not None and mech.releases_values:
        rel = np.broadcast_to(np.atleast_2d(np.asarray(released, dtype=float)), (q.shape[0], outcome.count("A")))
    for r in bad:
        logv[r] = _mp_log(mech, q[r], outcome, None if rel is None else rel[r])
    return logv, len(bad)


def fast_log_distribution(mech: SparseVector, queries: np.ndarray, tolerance: float = FAST_TOLERANCE) -> tuple[np.ndarray, list[str], int]:
    """(log Pr (n, outputs), the outcome strings in column order, rows recomputed)."""
    refuse_discrete(mech, "fast path")
    q = _rows(queries)
    n, k = q.shape
    if mech.releases_values:
        raise InputError(f"distribution: {mech.name} releases values; its outputs have densities, give them one at a time")
    outs = mech.outputs(k)
    if mech.is_above_threshold:
        # the seed's front door: its closed form up to SEED_FAST_MAX_K queries (or without threshold
        # noise, a product of point events), above it the halting kernel with its escalation (every
        # variant the kernel serves is of this shape: `verify.engine.fast_halting.halting_refusal`)
        logp, refined = seed_fast(mech, q, tolerance)
        return logp, outs, refined
    logp = np.empty((n, len(outs)))
    refined_rows: set[int] = set()
    for c, s in enumerate(outs):
        res = log_probability(mech, q, s)
        logp[:, c] = res.log_value
        for r in np.nonzero(res.error_estimate > tolerance)[0]:
            logp[r, c] = _mp_log(mech, q[r], s, None)
            refined_rows.add(int(r))
    return logp, outs, len(refined_rows)
