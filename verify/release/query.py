"""Release the noisy query q_i + X_i (Lyu, Su, Li 2017, Algorithm 3; the `lyu-3` preset).

Given Z = z, releasing v = q_i + X_i has density p_X(v - q_i) on the event
v >= t + z: a constant outside the integral and the cap z <= v - t, no factor
inside it.  The density ratio of the constant alone is e^{Δ/b_X} per above, and
the cap defeats the change of variables (`verify.family.bounds`, case 5; the
growth family `query_release_growth`).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from verify.release.protocol import Placement, ReleaseRule, Role


class QueryRelease(ReleaseRule):
    """p_X(v_i - q_i) · [z <= v_i - t]."""

    name = "query"
    formula = "q_i + X_i"
    above_term = None
    constant = Role.QUERY
    caps_threshold = True
    placement = Placement.AT_QUERY
    bound_blocker = "query release: the released value caps the threshold noise, no change of variables (case 5)"

    def draw(self, noisy, t_hat, query, release_noise, rng, runs) -> np.ndarray:
        return noisy

    def noiseless_value(self, query: Fraction, threshold: Fraction) -> Fraction:
        return query
