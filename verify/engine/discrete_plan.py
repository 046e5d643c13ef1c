"""An outcome of a discrete variant as products of tail factors in the threshold value z.

Given the threshold noise ``Z = z`` (an integer), query i (integer ``q_i``) is
above iff ``q_i + X_i >= t + z`` (``ge``) or ``q_i + X_i > t + z`` (``gt``), i.e.
iff ``X_i >= m_i(z)`` with

    m_i(z) = z + u_i,    u_i = t - q_i + [compare = gt].

So a letter A contributes the factor ``S(m_i(z)) = Pr[X >= m_i(z)]`` and a
letter B the factor ``F(m_i(z)) = Pr[X < m_i(z)]`` (the query noises are
independent given z).  With the threshold shared (or cutoff 1) the outcome's
probability is one sum

    Pr[s] = Σ_{z ∈ ℤ} Pr[Z = z] · Π_i factor_i(z);

with the threshold resampled after every A (Lyu, Su, Li 2017, Algorithm 2) it
is a product of such sums, one per *segment* (the letters up to and including
each A, then the rest).  This is the seed's decomposition (seed, "Mechanism
One", the integral over the threshold noise) with the integral replaced by a
sum over ℤ.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from verify.comparison import Comparison
from verify.engine import integrand
from verify.errors import InputError
from verify.integer_rules import check_queries
from verify.noise import Noise


@dataclass(frozen=True)
class Segment:
    """One sum over z: the letters' offsets ``u_i`` and whether each is above."""

    offsets: tuple[int, ...]
    above: tuple[bool, ...]


@dataclass(frozen=True)
class Plan:
    """An outcome's probability: the product over `segments` of Σ_z Pr[Z = z] Π factors."""

    threshold_noise: Noise
    query_noise: Noise
    segments: tuple[Segment, ...]


def build_plan(mech, queries: Sequence[object], outcome: str) -> Plan:
    """The plan of ``Pr[outcome | queries]`` for a discrete variant (a `SparseVector` with
    `is_discrete`); queries must be integers and the outcome complete for ``len(queries)``.

    Read from the one description of the outcome (`verify.engine.integrand.describe`): its pieces are
    the segments, a term F or S at x = q_i - t is the letter's factor with u_i = [compare = gt] - x."""

    if not getattr(mech, "is_discrete", False):
        raise InputError(f"discrete probabilities: {mech.name} has no discrete noise")
    q = check_queries(queries)
    mech.check_outcome(outcome, len(q))
    shift = 1 if mech.compare is Comparison.GT else 0
    desc = integrand.describe(mech, q, outcome)
    segments: list[Segment] = []
    for piece in desc.pieces:
        kinds = [term.kind for term in piece.terms]
        if desc.constants or piece.cap is not None or piece.zero or integrand.TermKind.DENSITY in kinds:
            raise InputError(f"discrete probabilities: outcome {outcome!r} of {mech.name} has a factor other than F and S")
        segments.append(Segment(tuple(shift - int(term.x) for term in piece.terms),
                                tuple(kind is integrand.TermKind.ABOVE for kind in kinds)))
    return Plan(mech.threshold_noise, mech.query_noise, tuple(segments))


def rate(noise: Noise) -> Fraction:
    """``1/b`` of a noise (exact)."""
    return 1 / noise.scale
