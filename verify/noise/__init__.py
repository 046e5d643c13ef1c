"""Noise distributions of the Sparse Vector family (seed: "Mechanism One", "Mechanism Two").

One class per family (`verify.noise.protocol.NoiseFamily`), each in its own module:

* `Laplace` (``laplace``): density ``exp(-|x|/b) / (2b)`` (seed, Mechanism One).
* `Exponential` (``exponential``): one-sided, density ``exp(-x/b) / b`` on ``x >= 0`` (seed, Mechanism Two).
* `Gaussian` (``gaussian``): ``N(0, σ²)`` with scale ``b = σ`` (Zhu and Wang, NeurIPS 2020).
* `NoNoise` (``none``): the variable is identically 0.

`Noise` (a family with a concrete scale) and `NoiseSpec` (family and scale rule)
name their family by a string for parsing and printing; ``noise.law`` is the
family object that every computation asks.  `FAMILY_TYPES` maps names to family
objects (the command line's choices).
"""

from verify.noise.exponential import Exponential
from verify.noise.gaussian import Gaussian
from verify.noise.laplace import Laplace
from verify.noise.none import NoNoise
from verify.noise.protocol import NoiseFamily
from verify.noise.registry import ALL_FAMILIES, CONTINUOUS_FAMILIES, FAMILIES, FAMILY_TYPES, SYMBOLS, check_family, family_type
from verify.noise.spec import NONE, Noise, NoiseSpec

__all__ = [
    "ALL_FAMILIES", "CONTINUOUS_FAMILIES", "FAMILIES", "FAMILY_TYPES", "NONE", "SYMBOLS", "Exponential", "Gaussian",
    "Laplace", "NoNoise", "Noise", "NoiseFamily", "NoiseSpec", "check_family", "family_type",
]
