"""The comparison of a noisy query with the noisy threshold: ``>=`` (the seed's) or ``>``.

Seed, Algorithm A tests ``q_i + X_i >= t + Z``.  For continuous noise a tie
``q_i + X_i = t + Z`` has probability 0 and ``>`` gives the same output law
exactly.  With noise on the integers a tie has positive probability, and with
integer queries and threshold ``q + X > t + Z`` is ``q + X >= (t + 1) + Z``:
the strict test is the non-strict one with the threshold one unit higher.
"""

from __future__ import annotations

from enum import StrEnum

from verify.errors import InputError


class Comparison(StrEnum):
    """The test of a query against the noisy threshold."""

    GE = "ge"  # q_i + X_i >= t + Z (the seed's rule)
    GT = "gt"  # q_i + X_i >  t + Z


def check_comparison(value: object) -> Comparison:
    """A `Comparison` from itself or its word (`InputError` otherwise)."""
    try:
        return Comparison(value)
    except ValueError:
        raise InputError(f"compare: {value!r} is not one of ge, gt") from None
