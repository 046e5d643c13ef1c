"""Proven upper bounds for the seed's `AboveThreshold`: a re-export of the one proven-bound module.

The derivations (Laplace: Δ/b_Z + 2Δ/b_X by the change of variables of the
seed's Proof 2; Mechanism Two: the certified conditional ratio) live in
`verify.family.bounds`, which serves every variant of the family; this module
keeps the seed's names importable.
"""

from __future__ import annotations

from verify.family.bounds import ProvenBound, proven_upper_bound_of

__all__ = ["ProvenBound", "proven_upper_bound"]


def proven_upper_bound(mech) -> ProvenBound | None:
    """`verify.family.bounds.proven_upper_bound` of the variant ``mech`` (seed `AboveThreshold` or family model).

    >>> from verify.mechanism import AboveThreshold
    >>> proven_upper_bound(AboveThreshold.mechanism_one(1)).value
    Fraction(1, 1)
    >>> proven_upper_bound(AboveThreshold.mechanism_two(1)).value
    Fraction(1, 1)
    >>> proven_upper_bound(AboveThreshold.with_noise("exponential", 1, threshold_multiplier=2, query_multiplier=2)) is None
    True
    """
    return proven_upper_bound_of(mech)
