"""The Laplace family Lap(b): density ``p_b(x) = exp(-|x|/b) / (2b)`` (seed, Mechanism One, Lap(b))."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from verify.noise.protocol import NoiseFamily

_LOG_HALF = -math.log(2.0)


def _split(x: np.ndarray, b: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """y = x/b, the masks y < 0 and its complement (y >= 0 or NaN), and an empty output array of y's shape.

    `Laplace.log_cdf` and `log_sf` evaluate each branch only where it is taken (ufuncs with ``where``): the
    same operations on the same elements as ``np.where`` of both branches, so the same bits, with the
    transcendental branch computed on about half the nodes (the quadrature's nodes come in runs of one sign)."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        y = np.divide(np.asarray(x, dtype=float), b)
    y = np.asarray(y)
    low = np.less(y, 0)
    return y, low, np.logical_not(low), np.empty_like(y)


class Laplace(NoiseFamily):
    """Lap(b): two-sided, piecewise exponential with weights ½ and ½; kink at 0.

    ``log p`` is (1/b)-Lipschitz (|x| is 1-Lipschitz) and so is ``log S``
    (``log S(x) = log ½ - x/b`` for x >= 0, and on x < 0 its slope
    ``(e^{x/b}/2b) / (1 - e^{x/b}/2)`` is at most 1/b).
    """

    name = "laplace"
    symbol = "Lap"
    piecewise = True
    two_sided = True
    lower_weight = Fraction(1, 2)
    upper_weight = Fraction(1, 2)
    kinks = (Fraction(0),)

    def log_cdf(self, x: np.ndarray, b: float) -> np.ndarray:
        """``log(1/2) + x/b`` for ``x < 0``, ``log1p(-exp(-x/b)/2)`` for ``x >= 0``."""
        y, low, high, out = _split(x, b)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            np.add(y, _LOG_HALF, out=out, where=low)
            e = np.negative(y, out=np.empty_like(out), where=high)
            np.exp(e, out=e, where=high)
            np.multiply(e, -0.5, out=e, where=high)
            return np.log1p(e, out=out, where=high)

    def log_sf(self, x: np.ndarray, b: float) -> np.ndarray:
        """``log1p(-exp(x/b)/2)`` for ``x < 0``, ``log(1/2) - x/b`` for ``x >= 0``."""
        y, low, high, out = _split(x, b)
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            np.subtract(_LOG_HALF, y, out=out, where=high)
            e = np.exp(y, out=np.empty_like(out), where=low)
            np.multiply(e, -0.5, out=e, where=low)
            return np.log1p(e, out=out, where=low)

    def log_pdf(self, x: np.ndarray, b: float) -> np.ndarray:
        """``-log(2b) - |x|/b``."""
        x = np.asarray(x, dtype=float)
        with np.errstate(divide="ignore"):
            return -math.log(2 * b) - np.abs(x) / b

    def cdf_below(self, x: np.ndarray, b: float) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        y = x / b
        return np.where(y < 0, 0.5 * np.exp(np.minimum(y, 0)), 1 - 0.5 * np.exp(-np.maximum(y, 0)))

    def pdf(self, x: np.ndarray, b: float) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        return np.exp(-np.abs(x) / b) / (2 * b)

    def sample(self, rng: np.random.Generator, b: float, size: int | tuple[int, ...]) -> np.ndarray:
        return rng.laplace(0.0, b, size)

    def log_mode(self, b: float) -> float:
        return -math.log(2 * b)

    def mp_pdf(self, y: Any, b: Any) -> Any:
        return mpmath.exp(-abs(y) / b) / (2 * b)

    def mp_cdf(self, y: Any, b: Any) -> Any:
        return mpmath.exp(y / b) / 2 if y < 0 else 1 - mpmath.exp(-y / b) / 2

    def mp_sf(self, y: Any, b: Any) -> Any:
        return 1 - mpmath.exp(y / b) / 2 if y < 0 else mpmath.exp(-y / b) / 2

    def mp_cdf_u(self, y: Any, u: Any) -> Any:
        return 1 / (2 * u) if y < 0 else 1 - u / 2

    def mp_sf_u(self, y: Any, u: Any) -> Any:
        return 1 - 1 / (2 * u) if y < 0 else u / 2

    def arb_tail(self, x: Any, right: bool) -> Any:
        return (-x).exp() / 2

    def density_mode(self, b: Fraction) -> Fraction:
        return 1 / b / 2

    def density_lipschitz(self, b: Fraction) -> Fraction | None:
        return 1 / b

    def sf_lipschitz(self, b: Fraction) -> Fraction | None:
        return 1 / b
