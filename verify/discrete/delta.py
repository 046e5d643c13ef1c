"""The exact δ(ε') of one neighbouring pair: a lower bound on a discrete variant's δ.

For a mechanism with finitely many outputs (no release), the hockey-stick divergence

    δ_{q,q'}(ε') = Σ_s max(0, Pr[s | q] - e^{ε'} Pr[s | q'])

is the smallest δ for which the pair satisfies (ε', δ)-DP in the direction q -> q'
(Dwork and Roth 2014, Definition 2.4, summed over the output set); the
mechanism's δ(ε') is the supremum over all neighbouring pairs, so one pair gives
a lower bound.  Where pure DP fails (the discrete Gaussian, whose loss grows
without limit) this is the quantity left to report.  Every term is exact to
the digits asked (`verify.discrete.probability.mp_probability`).

`pair_distributions` is the one path by which δ of a discrete pair is computed:
``svt-verify delta`` (`verify.family.delta.pair_profile`) reads it for every
discrete variant, and `pair_delta` here is its two-direction maximum.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

import mpmath

from verify.discrete.probability import DEFAULT_DIGITS, mp_probability
from verify.errors import InputError
from verify.exact import check_neighbours, non_negative
from verify.integer_rules import check_queries
from verify.validate import sequence


def check_pair(mech: Any, queries: Sequence[object], neighbour: Sequence[object]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Integer queries of the same length >= 1, each within Δ of its neighbour (else one `InputError` line)."""
    q = check_queries(sequence(queries, "queries"))
    try:
        qn = check_queries(sequence(neighbour, "neighbour queries"))
    except InputError as exc:
        raise InputError(f"neighbour {exc}") from None
    if len(q) != len(qn):
        raise InputError(f"delta: {len(q)} queries and {len(qn)} neighbour queries (need the same number, >= 1)")
    check_neighbours(q, qn, Fraction(mech.sensitivity), "delta")
    return q, qn


def pair_distributions(mech: Any, queries: Sequence[object], neighbour: Sequence[object], digits: int = DEFAULT_DIGITS,
                       ) -> tuple[tuple[str, ...], tuple[mpmath.mpf, ...], tuple[mpmath.mpf, ...]]:
    """(outputs, Pr[s | q], Pr[s | q']) over every complete output s, each exact to ``digits`` digits."""
    q, qn = check_pair(mech, queries, neighbour)
    outs = tuple(mech.outputs(len(q)))
    p = tuple(mp_probability(mech, q, s, digits) for s in outs)
    pn = tuple(mp_probability(mech, qn, s, digits) for s in outs)
    return outs, p, pn


def pair_delta(mech: Any, queries: Sequence[object], neighbour: Sequence[object], epsilon_prime: object,
               digits: int = 30) -> mpmath.mpf:
    """``max`` of the two directions' hockey-stick divergences at ``ε'`` (module docstring)."""
    eps = non_negative(epsilon_prime, "epsilon'")
    outs, p, p2 = pair_distributions(mech, queries, neighbour, digits)
    with mpmath.workdps(digits + 10):
        factor = mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator)
        forward = mpmath.fsum(max(mpmath.mpf(0), a - factor * b) for a, b in zip(p, p2))
        backward = mpmath.fsum(max(mpmath.mpf(0), b - factor * a) for a, b in zip(p, p2))
        return +max(forward, backward)


__all__ = ["check_pair", "pair_delta", "pair_distributions"]
