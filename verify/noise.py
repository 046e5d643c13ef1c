"""Noise distributions of AboveThreshold (seed: "Mechanism One", "Mechanism Two").

Four families, each with a scale ``b`` > 0 (or no noise at all):

* ``laplace``: density ``p_b(x) = exp(-|x|/b) / (2b)`` (seed, Mechanism One,
  Definition of Lap(b)).
* ``exponential``: one-sided, density ``exp(-x/b) / b`` on ``x >= 0``; the
  parametrisation the seed's proof of Mechanism Two uses, where
  ``Pr[X >= y] = exp(-(1/b) max{0, y})`` with ``b = 3Δ/ε``.
* ``gaussian``: density ``exp(-x²/(2σ²)) / (σ√(2π))`` with scale ``b = σ``
  (the standard deviation), as in the Gaussian Sparse Vector Technique of
  Zhu and Wang, "Improving Sparse Vector Technique with Rényi Differential
  Privacy", NeurIPS 2020.  Its CDF has no elementary closed form: the seed's
  piecewise closed form (`verify.piecewise`) does not apply to it, so
  `FAMILIES` (the families of the seed-era paths and CLI) leaves it out and
  `ALL_FAMILIES` holds it; `verify.family` integrates it by quadrature.
* ``none``: the variable is identically 0 (scale 0).

A `NoiseSpec` says how the scale is chosen: as a multiple ``c`` of ``Δ/ε`` (the
seed uses ``c = 3``) or as an absolute value.  `Noise` is the resolved
distribution with a concrete scale.

The two one-sided probabilities the mechanism uses are
``F(x) = Pr[X < x]`` (a query stays below the threshold) and
``S(x) = Pr[X >= x]`` (a query reaches it); for a continuous family
``S = 1 - F``, for ``none`` they are the indicators ``[x > 0]`` and ``[x <= 0]``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

import numpy as np
from scipy.special import log_ndtr, ndtr

from verify.errors import InputError
from verify.exact import fmt, non_negative

Family = Literal["laplace", "exponential", "gaussian", "none"]
#: Families of the seed-era closed form (piecewise exponential densities).
FAMILIES: tuple[str, ...] = ("laplace", "exponential", "none")
#: Every family a `Noise` may have (the SVT family model, `verify.family`).
ALL_FAMILIES: tuple[str, ...] = ("laplace", "exponential", "gaussian", "none")
#: Short names used by `describe`.
SYMBOLS: dict[str, str] = {"laplace": "Lap", "exponential": "Exp", "gaussian": "N"}
_LOG_HALF = -math.log(2.0)
_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def check_family(family: str) -> str:
    if family not in ALL_FAMILIES:
        raise InputError(f"noise family: {family!r} is not one of {', '.join(ALL_FAMILIES)}")
    return family


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
        if scale == 0 or self.family == "none":
            object.__setattr__(self, "family", "none")
            object.__setattr__(self, "scale", Fraction(0))

    @property
    def is_none(self) -> bool:
        return self.family == "none"

    @property
    def is_piecewise(self) -> bool:
        """True for the families of the seed's closed form (piecewise exponential densities)."""
        return self.family in FAMILIES

    @property
    def rate(self) -> Fraction:
        """``1/b``; undefined (error) for no noise."""
        if self.is_none:
            raise InputError("noise rate: the noise is 'none', it has no rate")
        return 1 / self.scale

    def describe(self) -> str:
        if self.is_none:
            return "none"
        return f"{SYMBOLS[self.family]}({fmt(self.scale)})"

    # --- float64 evaluation (vectorised) -------------------------------------
    def sample(self, rng: np.random.Generator, size: int | tuple[int, ...]) -> np.ndarray:
        """Draw samples with numpy's `Generator` (the caller seeds it)."""
        if self.is_none:
            return np.zeros(size)
        b = float(self.scale)
        if self.family == "laplace":
            return rng.laplace(0.0, b, size)
        if self.family == "gaussian":
            return rng.normal(0.0, b, size)
        return rng.exponential(b, size)

    # --- the noise kernel: vectorised log-space float64 functions -------------
    def log_cdf(self, x: np.ndarray) -> np.ndarray:
        """``log F(x) = log Pr[X < x]`` in float64, accurate in both tails.

        Laplace(b): ``log(1/2) + x/b`` for ``x < 0``, ``log1p(-exp(-x/b)/2)`` for ``x >= 0``;
        Exp(b): ``log(-expm1(-x/b))`` for ``x > 0``, ``-inf`` otherwise; none: ``0`` if ``x > 0`` else ``-inf``;
        N(σ): ``log Φ(x/σ)`` by `scipy.special.log_ndtr` (accurate in both tails).
        """
        x = np.asarray(x, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if self.is_none:
                return np.where(x > 0, 0.0, -np.inf)
            y = x / float(self.scale)
            if self.family == "gaussian":
                return log_ndtr(y)
            if self.family == "laplace":
                return np.where(y < 0, _LOG_HALF + np.minimum(y, 0), np.log1p(-0.5 * np.exp(-np.maximum(y, 0))))
            return np.where(y > 0, np.log(-np.expm1(-np.maximum(y, 0))), -np.inf)

    def log_sf(self, x: np.ndarray) -> np.ndarray:
        """``log S(x) = log Pr[X >= x]`` in float64, accurate in both tails.

        Laplace(b): ``log1p(-exp(x/b)/2)`` for ``x < 0``, ``log(1/2) - x/b`` for ``x >= 0``;
        Exp(b): ``-x/b`` for ``x > 0``, ``0`` otherwise; none: ``0`` if ``x <= 0`` else ``-inf``;
        N(σ): ``log Φ(-x/σ)`` by `scipy.special.log_ndtr`.
        """
        x = np.asarray(x, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            if self.is_none:
                return np.where(x <= 0, 0.0, -np.inf)
            y = x / float(self.scale)
            if self.family == "gaussian":
                return log_ndtr(-y)
            if self.family == "laplace":
                return np.where(y < 0, np.log1p(-0.5 * np.exp(np.minimum(y, 0))), _LOG_HALF - np.maximum(y, 0))
            return np.where(y > 0, -np.maximum(y, 0), 0.0)

    def log_pdf(self, x: np.ndarray) -> np.ndarray:
        """The log density in float64: ``-log(2b) - |x|/b`` (Laplace), ``-log b - x/b`` on ``x >= 0`` (Exp),
        ``-log σ - log √(2π) - x²/(2σ²)`` (Gaussian)."""
        x = np.asarray(x, dtype=float)
        if self.is_none:
            raise InputError("noise density: the noise is 'none', it has no density")
        b = float(self.scale)
        with np.errstate(divide="ignore"):
            if self.family == "gaussian":
                return -math.log(b) - _LOG_SQRT_2PI - 0.5 * (x / b) ** 2
            if self.family == "laplace":
                return -math.log(2 * b) - np.abs(x) / b
            return np.where(x >= 0, -math.log(b) - np.maximum(x, 0) / b, -np.inf)

    def cdf_below(self, x: np.ndarray) -> np.ndarray:
        """``F(x) = Pr[X < x]`` in float64."""
        x = np.asarray(x, dtype=float)
        if self.is_none:
            return (x > 0).astype(float)
        y = x / float(self.scale)
        if self.family == "gaussian":
            return ndtr(y)
        if self.family == "laplace":
            return np.where(y < 0, 0.5 * np.exp(np.minimum(y, 0)), 1 - 0.5 * np.exp(-np.maximum(y, 0)))
        return np.where(y > 0, -np.expm1(-np.maximum(y, 0)), 0.0)

    def pdf(self, x: np.ndarray) -> np.ndarray:
        """The density in float64 (no density for ``none``)."""
        x = np.asarray(x, dtype=float)
        if self.is_none:
            raise InputError("noise density: the noise is 'none', it has no density")
        b = float(self.scale)
        if self.family == "gaussian":
            return np.exp(-0.5 * (x / b) ** 2 - _LOG_SQRT_2PI) / b
        if self.family == "laplace":
            return np.exp(-np.abs(x) / b) / (2 * b)
        return np.where(x >= 0, np.exp(-np.maximum(x, 0) / b) / b, 0.0)


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
        if (self.multiplier is None) == (self.absolute is None) and self.family != "none":
            raise InputError("noise scale: give exactly one of a multiplier of Δ/ε and an absolute scale")
        if self.multiplier is not None:
            object.__setattr__(self, "multiplier", non_negative(self.multiplier, "noise scale multiplier"))
        if self.absolute is not None:
            object.__setattr__(self, "absolute", non_negative(self.absolute, "absolute noise scale"))
        if self.family == "none" or self.multiplier == 0 or self.absolute == 0:
            object.__setattr__(self, "family", "none")
            object.__setattr__(self, "multiplier", Fraction(0))
            object.__setattr__(self, "absolute", None)

    @property
    def is_none(self) -> bool:
        return self.family == "none"

    def resolve(self, epsilon: Fraction, sensitivity: Fraction) -> Noise:
        if self.is_none:
            return Noise("none", Fraction(0))
        if self.multiplier is not None:
            return Noise(self.family, self.multiplier * sensitivity / epsilon)
        return Noise(self.family, self.absolute)

    def describe(self) -> str:
        if self.is_none:
            return "none"
        name = SYMBOLS[self.family]
        if self.multiplier is not None:
            return f"{name}({fmt(self.multiplier)}Δ/ε)"
        return f"{name}({fmt(self.absolute)})"
