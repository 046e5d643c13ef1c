"""Release rules of the SVT family: what an above releases besides its letter.

One class per rule (`verify.release.protocol.ReleaseRule`), each in its own module:

* `NoRelease` (``none``): the letter only (the seed's AboveThreshold).
* `QueryRelease` (``query``): q_i + X_i (Lyu et al. Algorithm 3).
* `GapRelease` (``gap``): q_i + X_i - (t + Z).
* `FreshRelease` (``fresh``): q_i + Y_i with a fresh Y_i (NumericalSVT).

`Release` (the names, a StrEnum) is what the mechanism stores, parses and
prints; ``mech.release_rule`` is the rule object every computation asks.
"""

from verify.release.fresh import FreshRelease
from verify.release.gap import GapRelease
from verify.release.none import NoRelease
from verify.release.protocol import Placement, ReleaseRule, Role, TermKind
from verify.release.query import QueryRelease
from verify.release.registry import RELEASE_RULES, Release, release_rule

__all__ = [
    "RELEASE_RULES", "FreshRelease", "GapRelease", "NoRelease", "Placement", "QueryRelease", "Release", "ReleaseRule",
    "Role", "TermKind", "release_rule",
]
