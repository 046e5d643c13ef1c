"""Release the gap q_i + X_i - (t + Z) (Ding, Wang, Zhang, Kifer, PVLDB 13(3) 2019, Sparse-Vector-with-Gap; `gap-svt`).

Given Z = z, the gap g = q_i + X_i - t - z >= 0 has density p_X(g + t + z - q_i)
= p_X(z - (a_i - g)): the A's factor S_X becomes a density of X inside the
integral (`verify.family.bounds`, case 3: the change of variables needs the
log-Lipschitz constant of p_X); a negative gap has density 0.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from verify.release.protocol import Placement, ReleaseRule, TermKind


class GapRelease(ReleaseRule):
    """p_X(z - (a_i - g_i)) · [g_i >= 0]."""

    name = "gap"
    formula = "q_i + X_i - (t + Z)"
    above_term = TermKind.DENSITY
    nonnegative = True
    placement = Placement.FREE
    bound_case = "; case 3 (gap release: density of X)"

    def draw(self, noisy, t_hat, query, release_noise, rng, runs) -> np.ndarray:
        return noisy - t_hat

    def noiseless_value(self, query: Fraction, threshold: Fraction) -> Fraction:
        return query - threshold
