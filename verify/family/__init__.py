"""The Sparse Vector family: one model for every SVT variant, its presets,
exact output probabilities and a seeded sampler.

`verify.mechanism` the mechanism (`SparseVector`), `verify.family.presets` the named
variants with their sources.
"""

from verify.family.presets import NAMES, PRESETS, preset
from verify.mechanism import ABOVE, BELOW, Release, SparseVector, ThresholdPolicy

__all__ = ["ABOVE", "BELOW", "NAMES", "PRESETS", "Release", "SparseVector", "ThresholdPolicy", "preset"]
