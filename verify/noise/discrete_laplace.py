"""The discrete Laplace family DLap(b): the two-sided geometric law on the integers.

    Pr[X = x] = (1 - r)/(1 + r) · r^{|x|},   x ∈ ℤ,   r = e^{-1/b}

(Canonne, Kamath, Steinke, "The Discrete Gaussian for Differential Privacy",
NeurIPS 2020, Definition 1 with t = b; Ghosh, Roughgarden, Sundararajan 2009
call it the two-sided geometric mechanism).  Its tails are geometric series:
for an integer m,

    S(m) = Pr[X >= m] = r^m / (1 + r)              (m >= 1)
                      = 1 - r^{1-m} / (1 + r)       (m <= 0)
    F(m) = Pr[X <  m] = 1 - S(m) = S(1 - m)         (symmetry x -> -x)

and for a real y, ``Pr[X >= y] = S(⌈y⌉)`` and ``Pr[X < y] = F(⌈y⌉)``.

Log-Lipschitz constants, on the integers: ``log Pr[X = x]`` changes by exactly
``1/b`` per unit step, and ``log S`` by at most ``1/b``: for m >= 1 the ratio
``S(m+1)/S(m)`` is ``r``; for m <= 0, ``S(m) - S(m+1) = Pr[X = m] <= (1-r)/(1+r)
<= (1 - r)·S(m)`` because ``S(m) >= S(0) = 1/(1+r)``, so ``S(m+1) >= r·S(m)``.
``F(m) = S(1-m)`` inherits the constant.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from verify.noise.protocol import NoiseFamily


def _ceil(x: np.ndarray) -> np.ndarray:
    return np.ceil(np.asarray(x, dtype=float))


class DiscreteLaplace(NoiseFamily):
    """DLap(b) on ℤ (module docstring); ``discrete = True``, so ``log_pdf`` is a log mass."""

    name = "discrete-laplace"
    symbol = "DLap"
    piecewise = False
    two_sided = True
    discrete = True

    @staticmethod
    def log_ratio(b: float) -> float:
        """``log r = -1/b``."""
        return -1.0 / b

    def log_sf(self, x: np.ndarray, b: float) -> np.ndarray:
        """``log S(⌈x⌉)``: ``m log r - log(1+r)`` for m >= 1, ``log1p(-r^{1-m}/(1+r))`` for m <= 0."""
        m = _ceil(x)
        lr = -1.0 / b
        l1r = math.log1p(math.exp(lr))
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            upper = np.maximum(m, 1.0) * lr - l1r
            lower = np.log1p(-np.exp((1.0 - np.minimum(m, 0.0)) * lr - l1r))
            return np.where(m >= 1, upper, lower)

    def log_cdf(self, x: np.ndarray, b: float) -> np.ndarray:
        """``log F(⌈x⌉) = log S(1 - ⌈x⌉)``."""
        return self.log_sf(1.0 - _ceil(x), b)

    def log_pdf(self, x: np.ndarray, b: float) -> np.ndarray:
        """``log tanh(1/(2b)) - |x|/b`` at integers, ``-inf`` elsewhere."""
        x = np.asarray(x, dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            val = math.log(math.tanh(0.5 / b)) - np.abs(x) / b
            return np.where(x == np.round(x), val, -np.inf)

    def cdf_below(self, x: np.ndarray, b: float) -> np.ndarray:
        return np.exp(self.log_cdf(x, b))

    def pdf(self, x: np.ndarray, b: float) -> np.ndarray:
        return np.exp(self.log_pdf(x, b))

    def sample(self, rng: np.random.Generator, b: float, size: int | tuple[int, ...]) -> np.ndarray:
        """The difference of two independent geometric variables with success probability ``1 - r``
        (Inusah and Kozubowski 2006): exact in law up to numpy's float64 geometric sampler."""
        p = -math.expm1(-1.0 / b)
        return (rng.geometric(p, size) - rng.geometric(p, size)).astype(float)

    def log_mode(self, b: float) -> float:
        return math.log(math.tanh(0.5 / b))

    # --- mpmath (y real, b mpf) --------------------------------------------------------
    @staticmethod
    def mp_s(m: int, b: Any) -> Any:
        """``S(m)`` for an integer m, in mpmath."""
        r = mpmath.exp(-1 / mpmath.mpf(b))
        if m >= 1:
            return r ** m / (1 + r)
        return 1 - r ** (1 - m) / (1 + r)

    def mp_pdf(self, y: Any, b: Any) -> Any:
        if y != mpmath.floor(y):
            return mpmath.mpf(0)
        return mpmath.tanh(1 / (2 * mpmath.mpf(b))) * mpmath.exp(-abs(y) / b)

    def mp_cdf(self, y: Any, b: Any) -> Any:
        return self.mp_s(1 - int(mpmath.ceil(y)), b)

    def mp_sf(self, y: Any, b: Any) -> Any:
        return self.mp_s(int(mpmath.ceil(y)), b)

    def arb_tail(self, x: Any, right: bool) -> Any:
        """A ball containing ``[0, e^{-x}]`` ⊇ {Pr[X > β]}: ``Pr[X > β] = r^{⌊β⌋+1}/(1+r) <= r^β = e^{-x}``
        (x = β/b; the exact value needs β, which `verify.discrete` has)."""
        import flint

        top = (-flint.arb(x)).exp()
        return flint.arb(0).union(top)

    # --- exact constants -------------------------------------------------------------------
    def density_mode(self, b: Fraction) -> Fraction:
        """``tanh(1/(2b)) <= min(1, 1/(2b))``."""
        return min(Fraction(1), 1 / b / 2)

    def density_lipschitz(self, b: Fraction) -> Fraction | None:
        """``1/b`` on the integers (module docstring)."""
        return 1 / b

    def sf_lipschitz(self, b: Fraction) -> Fraction | None:
        """``1/b`` on the integers (module docstring)."""
        return 1 / b
