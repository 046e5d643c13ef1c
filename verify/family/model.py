"""The Sparse Vector family model: `SparseVector` and its enums, defined in `verify.mechanism`.

Kept so that ``from verify.family.model import SparseVector, Release, ThresholdPolicy``
keeps working; the one mechanism type lives in `verify.mechanism` (noise ->
mechanism -> probabilities).
"""

from verify.mechanism import ABOVE, BELOW, MAX_ENUMERATED, Release, SparseVector, ThresholdPolicy, check_cutoff

__all__ = ["ABOVE", "BELOW", "MAX_ENUMERATED", "Release", "SparseVector", "ThresholdPolicy", "check_cutoff"]
