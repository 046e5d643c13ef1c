"""The outcome probability summed over z term by term, with a proven bound on what is left out.

    Pr[segment] = Σ_{z ∈ ℤ} Pr[Z = z] Π_i f_i(z),    0 <= Π_i f_i(z) <= 1   (`verify.engine.discrete_plan`)

The sum runs over a window ``[lo, hi]`` that contains every kink and 0 and
reaches ``L`` beyond; the rest is at most ``Pr[Z > hi] + Pr[Z < lo]``, which
is bounded in closed form and the window widened until that bound is below
``2^{-bits}`` times the partial sum.

Tails used (both rigorous upper bounds):

* discrete Laplace: ``Pr[Z > R] = r^{R+1}/(1+r)`` exactly;
* discrete Gaussian, ``a >= 1``: ``Σ_{x >= a} e^{-x²/2σ²} <= e^{-a²/2σ²} / (1 - e^{-(2a+1)/2σ²})``
  (consecutive terms shrink by at least that ratio), and ``Pr[Z > R]`` is that
  sum at ``a = R + 1`` over the normaliser ``N(σ) >= 1``; its tail factors
  ``S(m)`` (m >= 1) are the sum from m to m + J plus that bound at m + J + 1,
  and ``S(m) = 1 - S(1 - m)`` for m <= 0 (Canonne, Kamath, Steinke 2020).

Two number modes: ``mp`` (mpmath at the caller's ``workdps``; the tail bound is
returned beside the value) and ``arb`` (python-flint balls: the left-out
mass enters the ball as ``[0, bound]``, so the ball contains the exact value).
This is the 50-digit oracle of the closed form and the main path of the
discrete Gaussian.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import mpmath

from verify.engine.discrete_plan import Plan, Segment
from verify.errors import InputError
from verify.noise import Noise
from verify.noise.discrete_laplace import DiscreteLaplace

#: The window is widened at most this many times (each doubles its reach) and to at most this width;
#: past that the bound on the left-out mass is returned as it is (mp) or kept in the ball (arb).
MAX_WIDENINGS = 12
MAX_WINDOW = 200_000


class _Ops:
    """The few operations the sum needs, in mpmath or in arb."""

    def __init__(self, mode: str, bits: int) -> None:
        self.mode, self.bits = mode, bits
        if mode == "arb":
            import flint

            self.flint = flint

    def num(self, x: Fraction | int) -> Any:
        x = Fraction(x)
        if self.mode == "arb":
            return self.flint.arb(self.flint.fmpq(x.numerator, x.denominator))
        return mpmath.mpf(x.numerator) / x.denominator

    def exp(self, x: Any) -> Any:
        return x.exp() if self.mode == "arb" else mpmath.exp(x)

    def expm1(self, x: Any) -> Any:
        return x.expm1() if self.mode == "arb" else mpmath.expm1(x)

    def plus_up_to(self, x: Any, bound: Any) -> Any:
        """``x + [0, bound]`` in arb (a ball containing both); ``x`` in mpmath."""
        if self.mode == "arb":
            return x + self.flint.arb(0).union(bound)
        return x

    def negligible(self, left_out: Any, total: Any) -> bool:
        """``left_out <= 2^{-bits} · total`` (certainly, in arb)."""
        eps = self.num(Fraction(1, 2 ** self.bits))
        return bool(left_out < eps * total) if self.mode == "arb" else bool(left_out <= eps * total)


class _Law:
    """pmf, tail factor ``S(m)`` and tail bound of one discrete noise in one number mode."""

    def __init__(self, noise: Noise, ops: _Ops) -> None:
        self.ops, self.geometric = ops, isinstance(noise.law, DiscreteLaplace)
        b = ops.num(noise.scale)
        self._sf: dict[int, Any] = {}
        if self.geometric:
            self.r = ops.exp(-1 / b)
            self.c = -ops.expm1(-1 / b) / (1 + self.r)
        else:
            self.two_var = 2 * b * b
            self.j = int(math.ceil(float(noise.scale) * math.sqrt(2 * (ops.bits * math.log(2) + 20)))) + 2
            if self.j > MAX_WINDOW:  # the normaliser alone is J terms
                raise InputError(f"discrete sum: the discrete Gaussian's scale σ = {float(noise.scale):.3g} needs {float(self.j):.3g} "
                                 f"terms per tail, above the limit of {MAX_WINDOW:,} terms (at 30 digits σ up to about 14,000; "
                                 "see docs/limits.md)")
            self.norm = 1 + 2 * self._gauss_sum(1)

    def _gauss_sum(self, a: int) -> Any:
        """``Σ_{x >= a} e^{-x²/2σ²}`` (a >= 1): J terms plus the ratio bound on the rest."""
        ops = self.ops
        total = ops.num(0)
        for x in range(a, a + self.j):
            total = total + ops.exp(-ops.num(x * x) / self.two_var)
        return ops.plus_up_to(total, self._gauss_rest(a + self.j))

    def _gauss_rest(self, a: int) -> Any:
        ops = self.ops
        return ops.exp(-ops.num(a * a) / self.two_var) / (-ops.expm1(-ops.num(2 * a + 1) / self.two_var))

    def pmf(self, z: int) -> Any:
        if self.geometric:
            return self.c * self.r ** abs(z)
        return self.ops.exp(-self.ops.num(z * z) / self.two_var) / self.norm

    def sf(self, m: int) -> Any:
        """``S(m) = Pr[X >= m]``; for the discrete Gaussian, ``S(m) = S(m+1) + Pr[X = m]`` when ``S(m+1)`` is
        known (a sum of positive terms: no cancellation), else J terms and the bound on the rest."""
        if m not in self._sf:
            if m <= 0:
                self._sf[m] = 1 - self.sf(1 - m)
            elif self.geometric:
                self._sf[m] = self.r ** m / (1 + self.r)
            elif m + 1 in self._sf:
                self._sf[m] = self._sf[m + 1] + self.pmf(m)
            else:
                self._sf[m] = self._gauss_sum(m) / self.norm
        return self._sf[m]

    def prepare(self, top: int) -> None:
        """Fill ``S(m)`` for 1 <= m <= ``top`` from the top down (discrete Gaussian): one term each, instead of
        J terms each (J of about 14σ at 30 digits; σ = 300 took minutes without this)."""
        if not self.geometric:
            for m in range(max(top, 1), 0, -1):
                self.sf(m)

    def tail(self, reach: int) -> Any:
        """An upper bound on ``Pr[Z > reach]`` (= ``Pr[Z < -reach]``), reach >= 0."""
        if self.geometric:
            return self.r ** (reach + 1) / (1 + self.r)
        return self._gauss_rest(reach + 1)  # the normaliser is >= 1


def check_window(width: float, scale: float, spread: float) -> None:
    """Refuse up front a window of more than `MAX_WINDOW` integers z (one term each, in every path over ℤ: this
    direct sum, `verify.engine.discrete_fast`, `verify.engine.discrete_halting`): the kinks spread over ``spread`` plus twice
    the reach the truncation target needs at the threshold noise's scale."""
    if width > MAX_WINDOW:
        raise InputError(f"discrete sum: {float(width):.3g} integers z (threshold noise scale {float(scale):.3g}, kinks |q - t| "
                         f"spread over {float(spread):.3g}) is above the limit of {MAX_WINDOW:,} terms: sums over ℤ run term by "
                         "term (give a smaller noise scale or queries nearer t; see docs/limits.md)")


def _segment(seg: Segment, zlaw: _Law | None, xlaw: _Law | None, ops: _Ops, scale: float) -> tuple[Any, Any]:
    """(partial sum, bound on the left-out mass) of one segment."""

    def product(z: int) -> Any:
        p = ops.num(1)
        for u, above in zip(seg.offsets, seg.above):
            m = z + u
            if xlaw is None:
                f = ops.num(1 if (m <= 0) == above else 0)
            else:
                f = xlaw.sf(m) if above else xlaw.sf(1 - m)
            p = p * f
        return p

    if zlaw is None:
        return product(0), ops.num(0)
    kinks = [1 - u for u in seg.offsets] + [0]
    lo_k, hi_k = min(kinks), max(kinks)
    e_folds = ops.bits * math.log(2) + 10
    gauss = not zlaw.geometric
    reach = max(8, int(math.ceil(scale * (math.sqrt(2 * e_folds) if gauss else e_folds))))
    check_window(hi_k - lo_k + 2 * reach + 1, scale, hi_k - lo_k)
    total = ops.num(0)
    covered: tuple[int, int] | None = None
    left_out = ops.num(1)
    for _ in range(MAX_WIDENINGS):
        lo, hi = lo_k - reach, hi_k + reach
        zs = range(lo, hi + 1) if covered is None else [*range(lo, covered[0]), *range(covered[1] + 1, hi + 1)]
        if xlaw is not None:
            xlaw.prepare(max(abs(lo), abs(hi)) + max(abs(u) for u in seg.offsets) + 1)
        for z in zs:
            total = total + zlaw.pmf(z) * product(z)
        covered = (lo, hi)
        left_out = zlaw.tail(hi) + zlaw.tail(-lo)
        if xlaw is None and total == 0:  # indicators: constant beyond the kinks, and zero on both sides
            return total, ops.num(0)
        if ops.negligible(left_out, total) or hi - lo > MAX_WINDOW:
            return total, left_out
        reach *= 2
    return total, left_out  # the bound is reported; the caller judges it


def direct_sum(plan: Plan, mode: str = "mp", bits: int = 200) -> tuple[Any, Any]:
    """``(value, bound on its truncation error)`` (mp) or ``(ball, 0)`` (arb) for the whole outcome.

    In mp mode the working precision is the caller's ``mp.workdps``; ``bits`` sets the truncation
    target ``2^{-bits}`` relative."""
    ops = _Ops(mode, bits)
    zlaw = None if plan.threshold_noise.is_none else _Law(plan.threshold_noise, ops)
    xlaw = None if plan.query_noise.is_none else _Law(plan.query_noise, ops)
    scale = float(plan.threshold_noise.scale) if zlaw is not None else 1.0
    value, err = ops.num(1), ops.num(0)
    for seg in plan.segments:
        part, left = _segment(seg, zlaw, xlaw, ops, scale)
        if mode == "arb":
            part = ops.plus_up_to(part, left)
            value = value * part
        else:
            err = err + left  # each factor is <= 1: the product's error is at most the sum of the errors
            value = value * part
    return value, err
