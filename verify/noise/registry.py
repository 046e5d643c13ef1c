"""Family names to family objects: the one place a family name is read.

A new family is one new module with a `NoiseFamily` subclass, added to
`FAMILY_TYPES` here (the command line offers every name listed).
"""

from __future__ import annotations

import copyreg

from verify.errors import InputError
from verify.noise.discrete_gaussian import DiscreteGaussian
from verify.noise.discrete_laplace import DiscreteLaplace
from verify.noise.exponential import Exponential
from verify.noise.gaussian import Gaussian
from verify.noise.laplace import Laplace
from verify.noise.none import NoNoise
from verify.noise.protocol import NoiseFamily

#: One object per family, by name (in the order the command line lists them).
FAMILY_TYPES: dict[str, NoiseFamily] = {f.name: f for f in (Laplace(), Exponential(), Gaussian(), NoNoise(), DiscreteLaplace(), DiscreteGaussian())}
#: Every family a `Noise` may have.
ALL_FAMILIES: tuple[str, ...] = tuple(FAMILY_TYPES)
#: Families of the piecewise closed form (piecewise exponential densities, and no noise).
FAMILIES: tuple[str, ...] = tuple(name for name, f in FAMILY_TYPES.items() if f.piecewise)
#: Families with a density (what a noise flag offers besides 'none').
CONTINUOUS_FAMILIES: tuple[str, ...] = tuple(name for name, f in FAMILY_TYPES.items() if not f.is_none and not f.discrete)
#: Families on the integers (probabilities in `verify.discrete`; integer queries, threshold and Δ).
DISCRETE_FAMILIES: tuple[str, ...] = tuple(name for name, f in FAMILY_TYPES.items() if f.discrete)
#: Short names used by `describe`.
SYMBOLS: dict[str, str] = {name: f.symbol for name, f in FAMILY_TYPES.items() if not f.is_none}


def check_family(family: str) -> str:
    """A family name, validated."""
    if family not in FAMILY_TYPES:
        raise InputError(f"noise family: {family!r} is not one of {', '.join(ALL_FAMILIES)}")
    return family


def family_type(name: str) -> NoiseFamily:
    """The family object of a name (`InputError` for an unknown name)."""
    return FAMILY_TYPES[check_family(name)]


def _by_name(family: NoiseFamily) -> tuple:
    """A registered family pickles as its name, so unpickling (another process of the pool) returns the
    registered object itself (`copyreg`: the registry pickles the families, the protocol need not import it)."""
    return (family_type, (family.name,))


for _family in FAMILY_TYPES.values():
    copyreg.pickle(type(_family), _by_name)
