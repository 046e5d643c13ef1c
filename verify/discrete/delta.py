"""The exact δ(ε') of one neighbouring pair: a lower bound on a discrete variant's δ.

For a mechanism with finitely many outputs (no release), the hockey-stick divergence

    δ_{q,q'}(ε') = Σ_s max(0, Pr[s | q] - e^{ε'} Pr[s | q'])

is the smallest δ for which the pair satisfies (ε', δ)-DP in the direction q -> q'
(Dwork and Roth 2014, Definition 2.4, summed over the output set); the
mechanism's δ(ε') is the supremum over all neighbouring pairs, so one pair gives
a lower bound.  Where pure DP fails (the discrete Gaussian, whose loss grows
without limit) this is the quantity left to report.  Every term is exact to
the digits asked (`verify.discrete.probability.mp_distribution`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import mpmath

from verify.discrete.probability import mp_distribution
from verify.exact import non_negative


def pair_delta(mech: Any, queries: Sequence[object], neighbour: Sequence[object], epsilon_prime: object,
               digits: int = 30) -> mpmath.mpf:
    """``max`` of the two directions' hockey-stick divergences at ``ε'`` (module docstring)."""
    eps = non_negative(epsilon_prime, "epsilon'")
    p = mp_distribution(mech, queries, digits)
    p2 = mp_distribution(mech, neighbour, digits)
    with mpmath.workdps(digits + 10):
        factor = mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator)
        forward = mpmath.fsum(max(mpmath.mpf(0), p[s] - factor * p2[s]) for s in p)
        backward = mpmath.fsum(max(mpmath.mpf(0), p2[s] - factor * p[s]) for s in p)
        return +max(forward, backward)


__all__ = ["pair_delta"]
