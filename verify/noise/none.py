"""No noise: the variable is identically 0 (scale 0).

``F(x) = Pr[X < x]`` and ``S(x) = Pr[X >= x]`` are the indicators
``[x > 0]`` and ``[x <= 0]``; there is no density.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from verify.errors import InputError
from verify.noise.protocol import NoiseFamily


def _no_density() -> InputError:
    return InputError("noise density: the noise is 'none', it has no density")


class NoNoise(NoiseFamily):
    """X = 0: a point mass; no density, no sampler randomness, the scale is ignored."""

    name = "none"
    symbol = "none"
    piecewise = True  # the closed form handles it as a product of indicators
    two_sided = False
    is_none = True

    def log_cdf(self, x: np.ndarray, b: float = 0.0) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        return np.where(x > 0, 0.0, -np.inf)

    def log_sf(self, x: np.ndarray, b: float = 0.0) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        return np.where(x <= 0, 0.0, -np.inf)

    def log_pdf(self, x: np.ndarray, b: float = 0.0) -> np.ndarray:
        raise _no_density()

    def cdf_below(self, x: np.ndarray, b: float = 0.0) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        return (x > 0).astype(float)

    def pdf(self, x: np.ndarray, b: float = 0.0) -> np.ndarray:
        raise _no_density()

    def sample(self, rng: np.random.Generator, b: float, size: int | tuple[int, ...]) -> np.ndarray:
        return np.zeros(size)

    def log_mode(self, b: float) -> float:
        raise _no_density()

    def mp_pdf(self, y: Any, b: Any) -> Any:
        raise _no_density()

    def mp_cdf(self, y: Any, b: Any = None) -> Any:
        return mpmath.mpf(1) if y > 0 else mpmath.mpf(0)

    def mp_sf(self, y: Any, b: Any = None) -> Any:
        return mpmath.mpf(1) if y <= 0 else mpmath.mpf(0)

    def arb_tail(self, x: Any, right: bool) -> Any:
        import flint  # python-flint: imported when a certificate is first asked for

        return flint.arb(0)

    def density_mode(self, b: Fraction) -> Fraction:
        raise _no_density()

    def tail_reach(self, b: float, e_folds: float) -> float:
        return 0.0
