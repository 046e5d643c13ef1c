"""Release q_i + Y_i with a fresh noise Y_i (NumericalSVT of Wang, Ding, Wang, Kifer, Zhang, PLDI 2019; `numeric-svt`).

Y_i is independent of the threshold and the query noise, so the released value
contributes the constant p_Y(v_i - q_i) and the A keeps its factor S_X(z - a_i)
(`verify.family.bounds`, case 4: c·Δ·L_Y is added).  p_Y is not monotone in
the query and may end (exponential Y): the search also moves the released
value off its A query and the A query up (`verify.family.worstcase`).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from verify.release.protocol import Placement, ReleaseRule, Role, TermKind


class FreshRelease(ReleaseRule):
    """p_Y(v_i - q_i) · S_X(z - a_i)."""

    name = "fresh"
    formula = "q_i + Y_i"
    above_term = TermKind.ABOVE
    constant = Role.RELEASE
    placement = Placement.AT_QUERY
    search_moves = True
    bound_case = "; case 4 (fresh release)"

    def draw(self, noisy, t_hat, query, release_noise, rng, runs) -> np.ndarray:
        return query + release_noise.sample(rng, runs)

    def noiseless_value(self, query: Fraction, threshold: Fraction) -> Fraction:
        return query
