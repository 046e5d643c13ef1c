"""Rényi-DP bound of Gaussian AboveThreshold (Zhu & Wang 2020) and its conversion to (ε', δ).

Source of the bound: Y. Zhu and Y.-X. Wang, "Improving Sparse Vector Technique
with Renyi Differential Privacy", NeurIPS 2020, Theorem 8, as transcribed in
yuxiangw/autodp (commit 06489ea485653909397937cf5e3c31d06a677ffe),
``autodp/rdp_bank.py``, function ``RDP_gaussian_svt_c1`` (lines 387-449), its
"standard bound" (the branch taken when ``k`` is given):

    ε(α) = log(k)/(α - 1) + α Δ²/σ₁² + 2 α Δ²/σ₂²,

for AboveThreshold with cutoff c = 1, threshold noise N(0, σ₁²), query noise
N(0, σ₂²), sensitivity Δ and at most k queries (the autodp code: ``rdp_rho =
alpha * Delta**2 / (sigma_1 ** 2)``, ``rdp_nu = 2 * alpha * Delta**2 / (sigma_2
**2)``, ``ret_rdp = log(k)/(alpha - 1) + rdp_rho + rdp_nu``).  The same
function's Proposition 10 branch (no k, needs non-negative queries and σ₂ >=
√3 σ₁) is not used: the project's neighbour relation allows queries of any sign.

Conversion to (ε', δ): for each order α > 1 an ε(α)-RDP mechanism is
(ε', δ_α)-DP with

* ``"bbghs"`` (default): δ_α = exp((α-1)(ε(α) - ε')) · (1 - 1/α)^(α-1) / α
  (Balle, Barthe, Gaboardi, Hsu, Sato, AISTATS 2020, Thm 21; Canonne, Kamath,
  Steinke 2020, Prop. 12; autodp ``autodp/converter.py`` ``rdp_to_delta`` with
  ``BBGHS_conversion=True``, lines 63-82);
* ``"mironov"``: δ_α = exp((α-1)(ε(α) - ε')) (Mironov, "Rényi Differential
  Privacy", CSF 2017, Prop. 3).

Every α gives a valid δ, so the minimum over any finite set of orders is a
valid upper bound; we take a fine geometric grid of α in (1, 10⁴] refined by a
golden-section step, evaluated with mpmath at 30 digits (the rounding of the
last digits is far below the printed precision).  The result is an *upper
bound* on δ(ε'), to be set beside the exact δ(ε') of a pair (verify.family.delta),
which is a *lower bound* on the mechanism's δ(ε').
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import mpmath

from verify.errors import InputError
from verify.exact import to_fraction
from verify.precision import MPMATH_LOCK

CONVERSIONS = ("bbghs", "mironov")


@dataclass(frozen=True)
class GaussianSVTRdp:
    """Zhu & Wang's RDP curve of Gaussian AboveThreshold (c = 1): σ₁ threshold, σ₂ query, Δ, k."""

    sigma_threshold: Fraction
    sigma_query: Fraction
    sensitivity: Fraction
    max_queries: int

    def __post_init__(self) -> None:
        for name in ("sigma_threshold", "sigma_query", "sensitivity"):
            v = to_fraction(getattr(self, name), name)
            if v <= 0:
                raise InputError(f"{name}: {v} must be > 0 for the Gaussian SVT RDP bound")
            object.__setattr__(self, name, v)
        if isinstance(self.max_queries, bool) or not isinstance(self.max_queries, int) or self.max_queries < 1:
            raise InputError(f"max_queries: {self.max_queries!r} must be an integer >= 1")

    def rdp(self, alpha: mpmath.mpf) -> mpmath.mpf:
        """ε(α) = log(k)/(α-1) + αΔ²/σ₁² + 2αΔ²/σ₂² (Zhu & Wang 2020 Thm 8; autodp RDP_gaussian_svt_c1)."""
        a = mpmath.mpf(alpha)
        if a <= 1:
            raise InputError(f"alpha: {a} must be > 1")
        d2 = (mpmath.mpf(self.sensitivity.numerator) / self.sensitivity.denominator) ** 2
        s1 = mpmath.mpf(self.sigma_threshold.numerator) / self.sigma_threshold.denominator
        s2 = mpmath.mpf(self.sigma_query.numerator) / self.sigma_query.denominator
        return mpmath.log(self.max_queries) / (a - 1) + a * d2 / s1**2 + 2 * a * d2 / s2**2

    def delta(self, epsilon_prime: object, conversion: str = "bbghs") -> tuple[mpmath.mpf, mpmath.mpf]:
        """(δ, α): the smallest δ_α found over the orders α (an upper bound on δ(ε'))."""
        _check_conversion(conversion)
        ep = to_fraction(epsilon_prime, "epsilon_prime")
        if ep < 0:
            raise InputError(f"--epsilon-prime: {ep} must be >= 0")
        with MPMATH_LOCK, mpmath.workdps(30):
            e = mpmath.mpf(ep.numerator) / ep.denominator

            def log_delta(a):
                a = mpmath.mpf(a)
                ld = (a - 1) * (self.rdp(a) - e)
                if conversion == "bbghs":
                    ld += (a - 1) * mpmath.log1p(-1 / a) - mpmath.log(a)
                return ld

            best, best_a = _minimise_over_orders(log_delta)
            return min(mpmath.mpf(1), mpmath.exp(best)), best_a

    def epsilon(self, delta: object, conversion: str = "bbghs") -> mpmath.mpf:
        """The smallest ε' found over the orders α with (ε', δ)-DP (an upper bound on the ε' of the mechanism at δ).

        BBGHS: ε'_α = max(0, ε(α) + log((α-1)/α) - (log δ + log α)/(α-1)) (Balle et al. 2020 Thm 21, solved for
        ε'; autodp ``converter.py`` ``rdp_to_approxdp``); Mironov: ε'_α = ε(α) + log(1/δ)/(α-1) (Prop. 3).
        δ = 0 gives +∞ (ε(α) grows without bound in α), δ = 1 gives 0.
        """
        _check_conversion(conversion)
        d = to_fraction(delta, "delta")
        if not 0 <= d <= 1:
            raise InputError(f"--delta: {d} must be in [0, 1]")
        with MPMATH_LOCK, mpmath.workdps(30):
            if d == 0:
                return mpmath.inf
            if d == 1:
                return mpmath.mpf(0)
            log_d = mpmath.log(mpmath.mpf(d.numerator) / d.denominator)

            def eps(a):
                a = mpmath.mpf(a)
                if conversion == "bbghs":
                    return self.rdp(a) + mpmath.log1p(-1 / a) - (log_d + mpmath.log(a)) / (a - 1)
                return self.rdp(a) - log_d / (a - 1)

            best, _ = _minimise_over_orders(eps)
            return max(mpmath.mpf(0), best)


def _check_conversion(conversion: str) -> None:
    if conversion not in CONVERSIONS:
        raise InputError(f"conversion: {conversion!r} is not one of {', '.join(CONVERSIONS)}")


def _minimise_over_orders(f) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(min f, argmin) over a geometric grid of α in (1, 10⁴] refined by golden section (module docstring);
    every α is a valid order, so the value found is a valid bound whether or not it is the global minimum."""
    grid = [1 + mpmath.mpf(10) ** (mpmath.mpf(j) / 20 - 4) for j in range(0, 161)]  # 1 + 1e-4 .. 1 + 1e4
    vals = [f(a) for a in grid]
    i = min(range(len(vals)), key=lambda j: vals[j])
    lo, hi = grid[max(i - 1, 0)], grid[min(i + 1, len(grid) - 1)]
    best_a, best = grid[i], vals[i]
    g = (mpmath.sqrt(5) - 1) / 2
    for _ in range(60):  # golden section on [lo, hi]
        a1, a2 = hi - g * (hi - lo), lo + g * (hi - lo)
        v1, v2 = f(a1), f(a2)
        if v1 < v2:
            hi = a2
            if v1 < best:
                best, best_a = v1, a1
        else:
            lo = a1
            if v2 < best:
                best, best_a = v2, a2
    return best, best_a
