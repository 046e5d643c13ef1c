"""The exponential family Exp(b): density ``exp(-x/b) / b`` on ``x >= 0``.

The parametrisation of the seed's proof of Mechanism Two, where
``Pr[X >= y] = exp(-(1/b) max{0, y})`` with ``b = 3Δ/ε``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from verify.noise.protocol import NoiseFamily


class Exponential(NoiseFamily):
    """Exp(b): one-sided on [0, ∞), piecewise exponential with weights 0 and 1; kink at 0.

    ``log S(x) = -max(0, x)/b`` is (1/b)-Lipschitz; the density jumps at 0, so
    ``log p`` has no Lipschitz constant.
    """

    name = "exponential"
    symbol = "Exp"
    piecewise = True
    two_sided = False
    lower_weight = Fraction(0)
    upper_weight = Fraction(1)
    kinks = (Fraction(0),)

    def log_cdf(self, x: np.ndarray, b: float) -> np.ndarray:
        """``log(-expm1(-x/b))`` for ``x > 0``, ``-inf`` otherwise."""
        x = np.asarray(x, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            y = x / b
            return np.where(y > 0, np.log(-np.expm1(-np.maximum(y, 0))), -np.inf)

    def log_sf(self, x: np.ndarray, b: float) -> np.ndarray:
        """``-x/b`` for ``x > 0``, ``0`` otherwise."""
        x = np.asarray(x, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            y = x / b
            return np.where(y > 0, -np.maximum(y, 0), 0.0)

    def log_pdf(self, x: np.ndarray, b: float) -> np.ndarray:
        """``-log b - x/b`` on ``x >= 0``, ``-inf`` below."""
        x = np.asarray(x, dtype=float)
        with np.errstate(divide="ignore"):
            return np.where(x >= 0, -math.log(b) - np.maximum(x, 0) / b, -np.inf)

    def cdf_below(self, x: np.ndarray, b: float) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        y = x / b
        return np.where(y > 0, -np.expm1(-np.maximum(y, 0)), 0.0)

    def pdf(self, x: np.ndarray, b: float) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        return np.where(x >= 0, np.exp(-np.maximum(x, 0) / b) / b, 0.0)

    def sample(self, rng: np.random.Generator, b: float, size: int | tuple[int, ...]) -> np.ndarray:
        return rng.exponential(b, size)

    def log_mode(self, b: float) -> float:
        return -math.log(b)

    def mp_pdf(self, y: Any, b: Any) -> Any:
        return mpmath.exp(-y / b) / b if y >= 0 else mpmath.mpf(0)

    def mp_cdf(self, y: Any, b: Any) -> Any:
        return -mpmath.expm1(-y / b) if y > 0 else mpmath.mpf(0)

    def mp_sf(self, y: Any, b: Any) -> Any:
        return mpmath.exp(-y / b) if y > 0 else mpmath.mpf(1)

    def mp_cdf_u(self, y: Any, u: Any) -> Any:
        if y <= 0:
            return mpmath.mpf(0)
        return 1 - u if u < mpmath.mpf(1) / 2 else -mpmath.expm1(mpmath.log(u))

    def mp_sf_u(self, y: Any, u: Any) -> Any:
        return u if y > 0 else mpmath.mpf(1)

    def arb_tail(self, x: Any, right: bool) -> Any:
        import flint  # python-flint: imported when a certificate is first asked for

        return flint.arb(0) if not right else (-x).exp()

    def density_mode(self, b: Fraction) -> Fraction:
        return 1 / b

    def sf_lipschitz(self, b: Fraction) -> Fraction | None:
        return 1 / b
