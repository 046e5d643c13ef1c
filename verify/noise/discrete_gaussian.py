"""The discrete Gaussian family DN(σ) on the integers (Canonne, Kamath, Steinke, NeurIPS 2020).

    Pr[X = x] = e^{-x²/(2σ²)} / N(σ),   x ∈ ℤ,   N(σ) = Σ_{y ∈ ℤ} e^{-y²/(2σ²)} = θ₃(0, e^{-1/(2σ²)})

(Canonne, Kamath and Steinke, "The Discrete Gaussian for Differential
Privacy", NeurIPS 2020, Definition 1; the scale is ``b = σ``).  There is no
closed form for the tails ``S(m) = Pr[X >= m]`` and ``F(m) = Pr[X < m] = S(1 - m)``
(symmetry); they are sums, cut where the rest is provably small:
for ``m >= 1`` consecutive terms shrink by ``e^{-(2x+1)/(2σ²)}``, so

    Σ_{x >= m+J} e^{-x²/(2σ²)} <= e^{-(m+J)²/(2σ²)} / (1 - e^{-(2(m+J)+1)/(2σ²)}).

Tail bound used by ``arb_tail``: the discrete Gaussian is σ²-subgaussian
(same paper, Corollary 9: ``E[e^{tX}] <= e^{t²σ²/2}``), so by Chernoff
``Pr[X >= β] <= e^{-β²/(2σ²)}`` for β >= 0.

No log-Lipschitz constant exists (``log Pr[X = x]`` is quadratic), so no
pure-DP change-of-variables bound applies to this family.

The float64 kernel reads ``log S`` from a table of reverse cumulative
log-sums, built once per σ (at most `MAX_SIGMA`), accurate in both tails.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import lru_cache
from typing import Any

import mpmath
import numpy as np

from verify.errors import InputError
from verify.noise.protocol import NoiseFamily

#: The float64 table holds about 40σ entries: larger σ is refused.
MAX_SIGMA = 2.0e5
#: Table reach in units of σ: beyond it S < e^{-760}, below float64's range.
_REACH = math.sqrt(2 * 760.0)


@lru_cache(maxsize=16)
def _table(sigma: float) -> tuple[np.ndarray, float, int]:
    """``(log Σ_{x>=m} e^{-x²/2σ²} for m = 0..M, log N(σ), M)`` in float64."""
    if not 0 < sigma <= MAX_SIGMA:
        raise InputError(f"discrete Gaussian scale: σ = {sigma!r} must be in (0, {MAX_SIGMA:g}] for the float64 kernel")
    m_top = int(math.ceil(sigma * _REACH)) + 2
    x = np.arange(0, 2 * m_top + 2, dtype=float)
    log_terms = -0.5 * (x / sigma) ** 2
    rev = np.logaddexp.accumulate(log_terms[::-1])[::-1]
    log_norm = float(np.logaddexp(0.0, math.log(2.0) + rev[1]))
    return rev[: m_top + 1], log_norm, m_top


def _log_upper(m: np.ndarray, sigma: float) -> np.ndarray:
    """``log S(m)`` for integer ``m >= 1`` (float array)."""
    rev, log_norm, m_top = _table(sigma)
    out = np.empty_like(m)
    inside = m <= m_top
    out[inside] = rev[m[inside].astype(np.int64)] - log_norm
    far = ~inside
    if np.any(far):  # S < e^{-760}: the first terms of the sum, relative to the first
        mf = m[far]
        j_max = int(math.ceil(40 * sigma * sigma / mf.min())) + 2
        j = np.arange(j_max, dtype=float)[None, :]
        rel = -(2 * mf[:, None] * j + j * j) / (2 * sigma * sigma)
        out[far] = -0.5 * (mf / sigma) ** 2 + np.logaddexp.reduce(rel, axis=1) - log_norm
    return out


class DiscreteGaussian(NoiseFamily):
    """DN(σ) on ℤ (module docstring); ``discrete = True``, so ``log_pdf`` is a log mass."""

    name = "discrete-gaussian"
    symbol = "DN"
    piecewise = False
    two_sided = True
    discrete = True

    def log_sf(self, x: np.ndarray, b: float) -> np.ndarray:
        """``log S(⌈x⌉)``: the table for m >= 1, ``log1p(-S(1 - m))`` for m <= 0."""
        m = np.ceil(np.asarray(x, dtype=float))
        flat = m.reshape(-1)
        out = np.empty_like(flat)
        up = flat >= 1
        out[up] = _log_upper(flat[up], b)
        low = ~up
        if np.any(low):
            out[low] = np.log1p(-np.exp(_log_upper(1.0 - flat[low], b)))
        return out.reshape(m.shape)

    def log_cdf(self, x: np.ndarray, b: float) -> np.ndarray:
        """``log F(⌈x⌉) = log S(1 - ⌈x⌉)``."""
        return self.log_sf(1.0 - np.ceil(np.asarray(x, dtype=float)), b)

    def log_pdf(self, x: np.ndarray, b: float) -> np.ndarray:
        x = np.asarray(x, dtype=float)
        log_norm = _table(b)[1]
        with np.errstate(invalid="ignore"):
            return np.where(x == np.round(x), -0.5 * (x / b) ** 2 - log_norm, -np.inf)

    def cdf_below(self, x: np.ndarray, b: float) -> np.ndarray:
        return np.exp(self.log_cdf(x, b))

    def pdf(self, x: np.ndarray, b: float) -> np.ndarray:
        return np.exp(self.log_pdf(x, b))

    def sample(self, rng: np.random.Generator, b: float, size: int | tuple[int, ...]) -> np.ndarray:
        """Inverse CDF over the float64 table's support (|x| <= 39σ + 2): for tests and studies,
        not a privacy-grade sampler (Canonne et al. give the exact rejection sampler)."""
        m_top = _table(b)[2]
        support = np.arange(-m_top, m_top + 1, dtype=float)
        p = np.exp(self.log_pdf(support, b))
        return rng.choice(support, size=size, p=p / p.sum())

    def log_mode(self, b: float) -> float:
        return -_table(b)[1]

    # --- mpmath (the working precision is the caller's) ---------------------------------
    @staticmethod
    def mp_norm(b: Any) -> Any:
        """``N(σ) = θ₃(0, e^{-1/(2σ²)})``."""
        b = mpmath.mpf(b)
        return mpmath.jtheta(3, 0, mpmath.exp(-1 / (2 * b * b)))

    @classmethod
    def mp_s(cls, m: int, b: Any) -> Any:
        """``S(m)`` for an integer m: the sum for m >= 1 (cut below ``10^{-dps-10}`` relative), else ``1 - S(1-m)``."""
        if m <= 0:
            return 1 - cls.mp_s(1 - m, b)
        b = mpmath.mpf(b)
        total, x = mpmath.mpf(0), m
        eps = mpmath.mpf(10) ** (-mpmath.mp.dps - 10)
        while True:
            term = mpmath.exp(-mpmath.mpf(x) ** 2 / (2 * b * b))
            total += term
            if term <= eps * total:
                ratio = mpmath.exp(-(2 * x + 1) / (2 * b * b))
                if ratio < mpmath.mpf(1) / 2:
                    break
            x += 1
        return total / cls.mp_norm(b)

    def mp_pdf(self, y: Any, b: Any) -> Any:
        if y != mpmath.floor(y):
            return mpmath.mpf(0)
        return mpmath.exp(-mpmath.mpf(y) ** 2 / (2 * mpmath.mpf(b) ** 2)) / self.mp_norm(b)

    def mp_cdf(self, y: Any, b: Any) -> Any:
        return self.mp_s(1 - int(mpmath.ceil(y)), b)

    def mp_sf(self, y: Any, b: Any) -> Any:
        return self.mp_s(int(mpmath.ceil(y)), b)

    def arb_tail(self, x: Any, right: bool) -> Any:
        """A ball containing ``[0, e^{-x²/2}]``, x = β/σ (subgaussian tail, module docstring)."""
        import flint

        x = flint.arb(x)
        return flint.arb(0).union((-(x * x) / 2).exp())

    # --- exact constants -------------------------------------------------------------------
    def density_mode(self, b: Fraction) -> Fraction:
        """``1/N(σ) <= min(1, 1/(σ√(2π))) <= min(1, 2/(5σ))`` (Poisson summation: N >= σ√(2π))."""
        return min(Fraction(1), Fraction(2, 5) / b)

    def tail_reach(self, b: float, e_folds: float) -> float:
        return b * math.sqrt(2 * e_folds)
