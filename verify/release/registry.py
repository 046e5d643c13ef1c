"""Release names to rule objects: the one place a release rule is named.

A new rule is one new module with a `ReleaseRule` subclass, one member of
`Release` and one entry of `RELEASE_RULES` here (the command line offers every
member).
"""

from __future__ import annotations

from enum import StrEnum

from verify.release.fresh import FreshRelease
from verify.release.gap import GapRelease
from verify.release.none import NoRelease
from verify.release.protocol import ReleaseRule
from verify.release.query import QueryRelease


class Release(StrEnum):
    """What an above (A) releases besides the letter (the rule objects: `RELEASE_RULES`)."""

    NONE = "none"
    QUERY = "query"  # q_i + X_i
    GAP = "gap"  # q_i + X_i - (t + Z)
    FRESH = "fresh"  # q_i + Y_i, Y_i a fresh noise of `release_spec`


#: One rule object per `Release` member.
RELEASE_RULES: dict[Release, ReleaseRule] = {
    Release.NONE: NoRelease(),
    Release.QUERY: QueryRelease(),
    Release.GAP: GapRelease(),
    Release.FRESH: FreshRelease(),
}


def release_rule(release: Release | str) -> ReleaseRule:
    """The rule object of a release (a `Release` or its name; a ValueError names an unknown one)."""
    return RELEASE_RULES[Release(release)]
