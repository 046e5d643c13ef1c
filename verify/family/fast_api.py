"""The fast float64 path of the SVT family: the family's view of the float64 door (`verify.doors.fast`).

* `fast_log_probability`: log Pr[outcome] (log density with released values) for
  many query vectors at once, any variant (`verify.engine.fast_generic`).
* `fast_log_distribution`: log Pr of every output of a variant that releases
  nothing.  AboveThreshold-shaped variants (cutoff 1, no release, Laplace /
  exponential / no noise) use, for k <= `SEED_FAST_MAX_K`, the vectorised mode of the
  one closed form (`verify.engine.fast_closed_form`, the door's engine ``closed form float64``; fastest at small k)
  and above it the Gauss–Legendre halting path (`verify.engine.fast_halting`),
  which does not cancel, wherever its precondition holds (`halting_refusal`); every other
  continuous variant integrates each output on the generic path, and a discrete one sums over ℤ
  (`verify.engine.discrete_fast`).

Every value whose error estimate exceeds ``tolerance`` is recomputed.  On the halting path the
chain always finishes (`escalate_row`): the same nodes in long double
(`verify.engine.halting_extended`), then the compiled kernel with ``FINER`` times smaller panels,
then those panels in long double, then mpmath (the exact door, 20 digits) for
an outcome of at most `MP_FALLBACK_MAX_LETTERS` letters, whose cost is bounded; a longer one is
refused in one line (`InputError`) rather than integrated for hours.  The number of rows so
recomputed is returned: a caller never receives a value whose estimate is above the tolerance.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from verify.doors import fast as door
from verify.mechanism import SparseVector, as_variant
from verify.precision import FAST_TOLERANCE


def fast_log_probability(mech: SparseVector, queries: np.ndarray, outcome: str, released: np.ndarray | Sequence | None = None,
                         tolerance: float = FAST_TOLERANCE) -> tuple[np.ndarray, int]:
    """(log values (n,), number of rows recomputed with mpmath): a view of the float64 door
    (`verify.doors.fast.fast_log_probability`)."""
    res = door.fast_log_probability(as_variant(mech), queries, outcome, released, tolerance)
    return res.log_values, res.refined


def fast_log_distribution(mech: SparseVector, queries: np.ndarray, tolerance: float = FAST_TOLERANCE) -> tuple[np.ndarray, list[str], int]:
    """(log Pr (n, outputs), the outcome strings in column order, rows recomputed): a view of the float64
    door (`verify.doors.fast.fast_log_distribution`)."""
    res = door.fast_log_distribution(as_variant(mech), queries, tolerance)
    return res.log_values, list(res.outcomes), res.refined
