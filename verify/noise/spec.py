"""A noise law with its scale: `Noise` (resolved) and `NoiseSpec` (the scale rule).

A `NoiseSpec` says how the scale is chosen: as a multiple ``c`` of ``Δ/ε`` (the
seed uses ``c = 3``) or as an absolute value.  `Noise` is the resolved
distribution with a concrete scale.  Both keep the family's *name* in
``family`` (for parsing, printing and JSON) and give its family object as
``law`` (`verify.noise.protocol.NoiseFamily`), which every computation asks.

The two one-sided probabilities the mechanism uses are
``F(x) = Pr[X < x]`` (a query stays below the threshold) and
``S(x) = Pr[X >= x]`` (a query reaches it); for a continuous family
``S = 1 - F``, for ``none`` they are the indicators ``[x > 0]`` and ``[x <= 0]``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from verify.errors import InputError
from verify.exact import fmt, non_negative
from verify.noise.protocol import NoiseFamily
from verify.noise.registry import FAMILY_TYPES, check_family

#: The name of no noise.
NONE = "none"


@dataclass(frozen=True)
class Noise:
    """A noise distribution with a concrete scale.

    >>> Noise("laplace", Fraction(3)).describe()
    'Lap(3)'
    >>> Noise("laplace", Fraction(0)).family
    'none'
    >>> Noise("gaussian", Fraction(2)).describe()
    'N(2)'
    """

    family: str
    scale: Fraction

    def __post_init__(self) -> None:
        check_family(self.family)
        scale = non_negative(self.scale, "noise scale")
        object.__setattr__(self, "scale", scale)
        if scale == 0 or FAMILY_TYPES[self.family].is_none:
            object.__setattr__(self, "family", NONE)
            object.__setattr__(self, "scale", Fraction(0))

    @property
    def law(self) -> NoiseFamily:
        """The family object (`verify.noise.protocol`): kernel, exact pieces, oracles, constants."""
        return FAMILY_TYPES[self.family]

    @property
    def is_none(self) -> bool:
        return self.law.is_none

    @property
    def is_piecewise(self) -> bool:
        """True for the families of the seed's closed form (piecewise exponential densities)."""
        return self.law.piecewise

    @property
    def rate(self) -> Fraction:
        """``1/b``; undefined (error) for no noise."""
        if self.is_none:
            raise InputError("noise rate: the noise is 'none', it has no rate")
        return 1 / self.scale

    def describe(self) -> str:
        if self.is_none:
            return "none"
        return f"{self.law.symbol}({fmt(self.scale)})"

    # --- the noise kernel: vectorised float64 functions of the family -------------------------
    def sample(self, rng: np.random.Generator, size: int | tuple[int, ...]) -> np.ndarray:
        """Draw samples with numpy's `Generator` (the caller seeds it)."""
        return self.law.sample(rng, float(self.scale), size)

    def log_cdf(self, x: np.ndarray) -> np.ndarray:
        """``log F(x) = log Pr[X < x]`` in float64, accurate in both tails (the family's `log_cdf`)."""
        return self.law.log_cdf(x, float(self.scale))

    def log_sf(self, x: np.ndarray) -> np.ndarray:
        """``log S(x) = log Pr[X >= x]`` in float64, accurate in both tails (the family's `log_sf`)."""
        return self.law.log_sf(x, float(self.scale))

    def log_pdf(self, x: np.ndarray) -> np.ndarray:
        """The log density in float64 (no density for ``none``)."""
        return self.law.log_pdf(x, float(self.scale))

    def cdf_below(self, x: np.ndarray) -> np.ndarray:
        """``F(x) = Pr[X < x]`` in float64."""
        return self.law.cdf_below(x, float(self.scale))

    def pdf(self, x: np.ndarray) -> np.ndarray:
        """The density in float64 (no density for ``none``)."""
        return self.law.pdf(x, float(self.scale))


@dataclass(frozen=True)
class NoiseSpec:
    """How a mechanism chooses a noise: family and scale rule.

    Exactly one of ``multiplier`` (scale = multiplier·Δ/ε) and ``absolute``
    (scale in the units of the queries) is set; a zero scale means no noise.

    >>> NoiseSpec("laplace", multiplier=Fraction(3)).resolve(Fraction(1), Fraction(1)).describe()
    'Lap(3)'
    """

    family: str
    multiplier: Fraction | None = None
    absolute: Fraction | None = None

    def __post_init__(self) -> None:
        check_family(self.family)
        if (self.multiplier is None) == (self.absolute is None) and not self.law.is_none:
            raise InputError("noise scale: give exactly one of a multiplier of Δ/ε and an absolute scale")
        if self.multiplier is not None:
            object.__setattr__(self, "multiplier", non_negative(self.multiplier, "noise scale multiplier"))
        if self.absolute is not None:
            object.__setattr__(self, "absolute", non_negative(self.absolute, "absolute noise scale"))
        if self.law.is_none or self.multiplier == 0 or self.absolute == 0:
            object.__setattr__(self, "family", NONE)
            object.__setattr__(self, "multiplier", Fraction(0))
            object.__setattr__(self, "absolute", None)

    @property
    def law(self) -> NoiseFamily:
        """The family object (`verify.noise.protocol`)."""
        return FAMILY_TYPES[self.family]

    @property
    def is_none(self) -> bool:
        return self.law.is_none

    def to_json(self) -> dict[str, object]:
        """``{"family", "scale_over_delta_over_epsilon" | "absolute_scale"}``, scales as exact ``p/q`` strings."""
        out: dict[str, object] = {"family": self.family}
        for key, x in (("scale_over_delta_over_epsilon", self.multiplier), ("absolute_scale", self.absolute)):
            if x is not None:
                out[key] = str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"
        return out

    def resolve(self, epsilon: Fraction, sensitivity: Fraction) -> Noise:
        if self.is_none:
            return Noise(NONE, Fraction(0))
        if self.multiplier is not None:
            return Noise(self.family, self.multiplier * sensitivity / epsilon)
        return Noise(self.family, self.absolute)

    def describe(self) -> str:
        if self.is_none:
            return "none"
        name = self.law.symbol
        if self.multiplier is not None:
            return f"{name}({fmt(self.multiplier)}Δ/ε)"
        return f"{name}({fmt(self.absolute)})"
