"""The seeded sampler: runs of an SVT variant exactly as the algorithm is written (`model`).

Every run draws t̂ = t + Z, then for each query a fresh X_i; query i is above
iff q_i + X_i >= t̂; an above releases its value (q_i + X_i, the gap
q_i + X_i - t̂, or q_i + Y_i with a fresh Y_i), counts towards the cutoff, and
with the resample policy draws a new t̂ = t + Z'.  The run ends at the c-th
above or after the last query.  All runs are simulated together (numpy, one
`Generator` seeded by the caller); noise is drawn for every run and query, so a
run's draws do not depend on when the others halt.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from verify.errors import InputError
from verify.mechanism import ABOVE, BELOW, SparseVector, ThresholdPolicy, as_variant, parse_queries
from verify.validate import shown


@dataclass(frozen=True)
class Samples:
    """``outcomes``: one outcome string per run; ``released``: (runs, k) float array, the value released
    at each above in order (NaN elsewhere; row r's values are ``released[r, :outcomes[r].count('A')]``)."""

    outcomes: np.ndarray
    released: np.ndarray

    def counts(self, outputs: Sequence[str]) -> np.ndarray:
        """How many runs ended in each of ``outputs`` (every run's outcome must be listed)."""
        index = {s: j for j, s in enumerate(outputs)}
        codes = np.array([index[s] for s in self.outcomes])
        return np.bincount(codes, minlength=len(outputs))


#: Largest runs × (k + 1) simulated at once: the arrays take about 60 bytes per cell (peak memory).
MAX_CELLS = 10_000_000


def sample(mech: SparseVector, queries: Sequence[object], runs: int, seed: int | np.random.SeedSequence) -> Samples:
    """Simulate ``runs`` runs of ``mech`` on ``queries`` with ``np.random.default_rng(seed)``."""
    mech = as_variant(mech)
    q = np.array([float(x) for x in parse_queries(queries)])
    if not isinstance(seed, np.random.SeedSequence) and (isinstance(seed, bool) or not isinstance(seed, int) or seed < 0):
        raise InputError(f"seed: {shown(seed)} must be an integer >= 0 or a numpy SeedSequence")
    if isinstance(runs, bool) or not isinstance(runs, int) or runs < 1:
        raise InputError(f"runs: {runs!r} must be an integer >= 1")
    if runs * (len(q) + 1) > MAX_CELLS:
        raise InputError(f"runs: {runs} runs of {len(q)} queries are {runs * (len(q) + 1):.3g} cells; at most {MAX_CELLS:.0e} "
                         "(about 0.6 GB of arrays): draw in batches with different seeds")
    rng = np.random.default_rng(seed)
    k = len(q)
    t = float(mech.threshold)
    zn, xn, yn = mech.threshold_noise, mech.query_noise, mech.release_noise
    rule = mech.release_rule
    t_hat = t + zn.sample(rng, runs)
    active = np.ones(runs, dtype=bool)
    count = np.zeros(runs, dtype=np.int64)
    letters = np.full((runs, k), "", dtype="<U1")
    released = np.full((runs, k), np.nan)
    for i in range(k):
        noisy = q[i] + xn.sample(rng, runs)
        above = active & (noisy >= t_hat)
        letters[active, i] = BELOW
        letters[above, i] = ABOVE
        value = rule.draw(noisy, t_hat, q[i], yn, rng, runs)  # `verify.release`: None when nothing is released
        if value is not None:
            released[above, count[above]] = value[above]
        count += above
        if mech.threshold_policy is ThresholdPolicy.RESAMPLE:
            fresh = t + zn.sample(rng, runs)
            t_hat = np.where(above, fresh, t_hat)
        if mech.cutoff is not None:
            active &= count < mech.cutoff
    outcomes = np.array(["".join(row) for row in letters])
    return Samples(outcomes, released)
