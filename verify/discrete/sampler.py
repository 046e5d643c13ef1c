"""A seeded simulation of a discrete variant (the Monte Carlo side of the cross-check).

Runs the algorithm of `verify.mechanism` literally, ``n`` times at once:
threshold noise Z (redrawn after every A when the policy is ``resample``),
fresh query noises, the test ``q_i + X_i >= t + Z`` (``ge``) or ``>`` (``gt``),
halt at the c-th A.  Returns the count of every outcome string.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from verify.comparison import Comparison
from verify.errors import InputError
from verify.integer_rules import check_queries

#: Largest runs × (k + 1) simulated at once, as `verify.family.sampler.MAX_CELLS` (about 60 bytes per cell at peak).
MAX_CELLS = 10_000_000


def sample_outcomes(mech: Any, queries: Sequence[object], n: int, rng: np.random.Generator) -> Counter:
    """Counts of the outcome strings of ``n`` runs (the caller seeds ``rng``)."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InputError(f"samples: {n!r} must be an integer >= 1")
    if not isinstance(rng, np.random.Generator):
        raise InputError(f"rng: {type(rng).__name__} is not a numpy Generator (give np.random.default_rng(seed))")
    q = np.asarray(check_queries(queries), dtype=float)
    if n * (len(q) + 1) > MAX_CELLS:
        raise InputError(f"samples: {n} runs of {len(q)} queries are {n * (len(q) + 1):.3g} cells; at most {MAX_CELLS:.0e} "
                         "(about 0.6 GB of arrays): draw in batches from the same generator and add the counts")
    t = float(mech.threshold)
    strict = mech.compare is Comparison.GT
    resample = mech.threshold_policy.value == "resample"
    cutoff = mech.cutoff if mech.cutoff is not None else len(q) + 1
    z = mech.threshold_noise.sample(rng, n) if not mech.threshold_noise.is_none else np.zeros(n)
    count = np.zeros(n, dtype=int)
    alive = np.ones(n, dtype=bool)
    letters = np.full((n, len(q)), "", dtype="<U1")
    for i, qi in enumerate(q):
        x = mech.query_noise.sample(rng, n) if not mech.query_noise.is_none else np.zeros(n)
        noisy, bar = qi + x, t + z
        above = (noisy > bar) if strict else (noisy >= bar)
        letters[:, i] = np.where(alive, np.where(above, "A", "B"), "")
        hit = alive & above
        count += hit
        if resample and hit.any() and not mech.threshold_noise.is_none:
            z = np.where(hit, mech.threshold_noise.sample(rng, n), z)
        alive &= count < cutoff
    return Counter("".join(row) for row in letters)
