"""Release nothing: an above outputs its letter only (the seed's AboveThreshold; Lyu, Su, Li 2017, Algorithms 1, 2, 4)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from verify.release.protocol import Placement, ReleaseRule, TermKind


class NoRelease(ReleaseRule):
    """The A's factor is S_X(z - a_i); no constant, no released value."""

    name = "none"
    formula = "nothing"
    releases_values = False
    above_term = TermKind.ABOVE
    placement = Placement.NONE

    def draw(self, noisy, t_hat, query, release_noise, rng, runs) -> np.ndarray | None:
        return None

    def noiseless_value(self, query: Fraction, threshold: Fraction) -> Fraction | None:
        return None
