"""The Gumbel family Gumbel(b) (location 0, the max-stable law): ``F(x) = exp(-e^{-x/b})``.

Density ``p(x) = (1/b)·e^{-x/b}·exp(-e^{-x/b})``.  Report Noisy Max with Gumbel noise of scale b
is the exponential mechanism: ``Pr[argmax_i (q_i + X_i) = i] = e^{q_i/b} / Σ_j e^{q_j/b}`` (the
"Gumbel-max trick"; OpenDP's ``make_noisy_max`` under ``ZeroConcentratedDivergence`` samples it,
opendp/opendp ``rust/src/measurements/noisy_top_k/mod.rs``, ``TopKMeasure for
ZeroConcentratedDivergence``).

Not in `verify.noise.registry.FAMILY_TYPES`: registering a family offers it to every Sparse Vector
flag and path (threshold and query noise, the fast kernels, certification), which this release does
not check for Gumbel noise; `verify.selection` (Report Noisy Max) is the one user.  Pickling goes
through the class itself, not the registry.

Log-Lipschitz constants: ``log S(x)`` has slope ``-(1/b)·u/(e^u - 1)`` with ``u = e^{-x/b} > 0``, and
``0 < u/(e^u - 1) < 1``, so ``log S`` is (1/b)-Lipschitz; ``log p(x) = -log b - x/b - e^{-x/b}`` has
slope ``(u - 1)/b``, unbounded as ``x → -∞``, so ``density_lipschitz`` is None.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from verify.noise.protocol import NoiseFamily


class Gumbel(NoiseFamily):
    """Gumbel(b), location 0: two-sided, not piecewise exponential (quadrature, or the softmax closed form)."""

    name = "gumbel"
    symbol = "Gumbel"
    piecewise = False
    two_sided = True

    def __reduce__(self) -> Any:
        return (Gumbel, ())

    def log_cdf(self, x: np.ndarray, b: float) -> np.ndarray:
        """``-e^{-x/b}``."""
        x = np.asarray(x, dtype=float)
        with np.errstate(over="ignore"):
            return -np.exp(-x / b)

    def log_sf(self, x: np.ndarray, b: float) -> np.ndarray:
        """``log(-expm1(-e^{-x/b}))``: accurate in the right tail (S ≈ e^{-x/b}) and the left (S ≈ 1)."""
        x = np.asarray(x, dtype=float)
        with np.errstate(over="ignore", divide="ignore"):
            return np.log(-np.expm1(-np.exp(-x / b)))

    def log_pdf(self, x: np.ndarray, b: float) -> np.ndarray:
        """``-log b - x/b - e^{-x/b}``."""
        x = np.asarray(x, dtype=float)
        with np.errstate(over="ignore"):
            return -math.log(b) - x / b - np.exp(-x / b)

    def cdf_below(self, x: np.ndarray, b: float) -> np.ndarray:
        return np.exp(self.log_cdf(x, b))

    def pdf(self, x: np.ndarray, b: float) -> np.ndarray:
        return np.exp(self.log_pdf(x, b))

    def sample(self, rng: np.random.Generator, b: float, size: int | tuple[int, ...]) -> np.ndarray:
        return rng.gumbel(0.0, b, size)

    def log_mode(self, b: float) -> float:
        """The density peaks at x = 0: p(0) = 1/(e·b)."""
        return -math.log(b) - 1.0

    def mp_pdf(self, y: Any, b: Any) -> Any:
        u = mpmath.exp(-y / b)
        return u * mpmath.exp(-u) / b

    def mp_cdf(self, y: Any, b: Any) -> Any:
        return mpmath.exp(-mpmath.exp(-y / b))

    def mp_sf(self, y: Any, b: Any) -> Any:
        return -mpmath.expm1(-mpmath.exp(-y / b))

    def arb_tail(self, x: Any, right: bool) -> Any:
        if right:  # Pr[X > beyond] = 1 - exp(-e^{-x})
            return -((-(-x).exp()).exp() - 1)
        return (-(x.exp())).exp()  # Pr[X < -beyond] = exp(-e^{x})

    def density_mode(self, b: Fraction) -> Fraction:
        """p(0) = 1/(e·b) <= 1/(2b) (e > 2)."""
        return 1 / b / 2

    def sf_lipschitz(self, b: Fraction) -> Fraction | None:
        return 1 / b

    def left_cut(self, shifts: Any, b: Any, dps: int) -> Any:
        """z = b·log(T/L), T = Σ e^{s/b} over ``shifts``, L = (dps + 5)·ln 10 + 10.

        With w = e^{−z/b} (dz = −b·dw/w), ∫ c·w^n·exp(−wT) dz over z < b·log(T/L), i.e. w > L/T, is at most
        (1 + L)^{n−1}·e^{−L} of the whole for n = 1, 2 (n = 1: exactly e^{−L}; n = 2: (1 + L)e^{−L}); the
        index integrand is such a term with n = 1, the gap integrand with n = 2."""
        total = mpmath.fsum(mpmath.exp(x / b) for x in shifts)
        big_l = (dps + 5) * mpmath.log(10) + 10
        return b * (mpmath.log(total) - mpmath.log(big_l))

    def tail_reach(self, b: float, e_folds: float) -> float:
        """Right tail ≈ e^{-x/b} (e_folds·b); the left tail is doubly exponential (log(e_folds)·b suffices)."""
        return e_folds * b
