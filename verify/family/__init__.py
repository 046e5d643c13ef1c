"""The Sparse Vector family: one model for every SVT variant, its presets,
exact output probabilities and a seeded sampler.

`verify.family.model` the mechanism (`SparseVector`), `verify.family.presets` the named
variants with their sources.
"""

from verify.family.model import ABOVE, BELOW, Release, SparseVector, ThresholdPolicy
from verify.family.presets import NAMES, PRESETS, preset

__all__ = ["ABOVE", "BELOW", "NAMES", "PRESETS", "Release", "SparseVector", "ThresholdPolicy", "preset"]
