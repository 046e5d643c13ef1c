"""The seeded sampler: runs of an Adaptive SVT exactly as the program is written (`verify.adaptive.model`).

Every run draws T̂ = t + Z, then for each query a fresh ξ_i (and, when the top test fails, a fresh η_i),
releases its branch and value, adds the branch's cost and halts when the cost exceeds the budget or the
queries run out.  All runs are simulated together (numpy, one `Generator` seeded by the caller); ξ and η
are drawn for every run and query, so a run's draws do not depend on the others.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from verify.adaptive.model import AdaptiveSVT, Branch, TopRelease
from verify.errors import InputError

#: Branch codes in the sampled arrays (−1: not answered, the run had halted).
CODES = {Branch.BELOW: 0, Branch.MIDDLE: 1, Branch.TOP: 2}
#: Largest runs × queries simulated at once.
MAX_CELLS = 20_000_000


@dataclass(frozen=True)
class AdaptiveSamples:
    """``branches``: (runs, n) int array of `CODES` (−1 after a halt); ``values``: (runs, n) released values
    (NaN for BELOW and unanswered)."""

    branches: np.ndarray
    values: np.ndarray

    def sequences(self) -> list[str]:
        """Each run's branch sequence as a string over B (below), M (middle), T (top)."""
        letters = "BMT"
        # one string per distinct row (a handful of branch sequences among many runs), then looked up per run
        rows, which = np.unique(self.branches, axis=0, return_inverse=True)
        names = ["".join(letters[c] for c in row if c >= 0) for row in rows]
        return [names[w] for w in np.ravel(which)]


def sample(mech: AdaptiveSVT, queries: Sequence[object], runs: int, rng: np.random.Generator) -> AdaptiveSamples:
    """``runs`` seeded runs at ``queries`` (module docstring)."""
    qs = np.array([float(q) for q in mech.check_queries(queries)])
    if not isinstance(runs, int) or isinstance(runs, bool) or runs < 1 or runs * len(qs) > MAX_CELLS:
        raise InputError(f"runs: {runs!r} must be an integer >= 1 with runs × queries <= {MAX_CELLS}")
    if not isinstance(rng, np.random.Generator):
        raise InputError("rng: a seeded numpy Generator (np.random.default_rng(seed))")
    law, n = mech.law, len(qs)
    t_hat = float(mech.threshold) + law.sample(rng, float(mech.b_threshold), runs)
    xi = law.sample(rng, float(mech.b_top), (runs, n))
    eta = law.sample(rng, float(mech.b_middle), (runs, n))
    sig = mech.sigma_value()
    costs = {b: float(mech.cost_of(b)) for b in Branch}
    cost = np.full(runs, float(mech.initial_cost))
    alive = np.ones(runs, dtype=bool)
    branches = np.full((runs, n), -1, dtype=np.int8)
    values = np.full((runs, n), np.nan)
    for i in range(n):
        g_top = qs[i] + xi[:, i] - t_hat
        g_mid = qs[i] + eta[:, i] - t_hat
        is_top = alive & (g_top >= sig)
        is_mid = alive & ~is_top & (g_mid >= 0)
        is_below = alive & ~is_top & ~is_mid
        branches[is_top, i] = CODES[Branch.TOP]
        branches[is_mid, i] = CODES[Branch.MIDDLE]
        branches[is_below, i] = CODES[Branch.BELOW]
        top_value = g_top if mech.top_release is TopRelease.GAP else qs[i] + xi[:, i]
        values[is_top, i] = top_value[is_top]
        values[is_mid, i] = g_mid[is_mid]
        cost += np.where(is_top, costs[Branch.TOP], 0.0) + np.where(is_mid, costs[Branch.MIDDLE], 0.0)
        alive &= cost <= float(mech.budget)
    return AdaptiveSamples(branches, values)
