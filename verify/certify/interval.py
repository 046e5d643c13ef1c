"""Outward-rounded interval arithmetic on python-flint ``arb``, with exact endpoints.

An `Interval` is a closed interval [lo, hi] whose endpoints are *exact*
binary numbers (``arb`` balls of radius 0) or ±∞.  Every operation computes
the candidate endpoints as ``arb`` balls and keeps ``.lower()`` of the lower
one and ``.upper()`` of the upper one, so the result always contains the
exact range (python-flint: ``arb.lower()``/``arb.upper()`` are exact bounds of
the ball).  Keeping exact endpoints instead of balls matters for this
project's tight inequalities: ``exp(0) = 1``, ``2 - 1 = 1``, ``0 · x = 0`` stay
exact, so an enclosure can end exactly on the bound (e.g. a hazard ratio
whose supremum is exactly 1) instead of overlapping it by a rounding error.

Monotone elementary functions (``exp``, ``expm1``, ``log``) are evaluated at
the two endpoints, which gives their exact range up to rounding, outward.
Infinite endpoints are Python floats ``±inf`` and are combined by the usual
extended-real rules; an undefined combination (``0·∞``, ``∞-∞``) widens the
result to (-∞, ∞), which is always safe.

`evaluate` evaluates a sympy expression (sums, products, integer powers,
``exp``, ``log``, rationals, one symbol) over an interval.  Rationals that are
not dyadic (1/3) become the smallest enclosing interval; floats are refused
(STYLE: ``arb(0.1)`` would enclose the double, not one tenth).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Union

import sympy
from flint import arb, fmpq

Endpoint = Union[arb, float]  # exact arb (radius 0) or ±inf
INF = math.inf


def _is_inf(x: Endpoint) -> bool:
    return isinstance(x, float)


def _lower(b: arb) -> Endpoint:
    if not b.is_finite():
        return -INF
    return b.lower()


def _upper(b: arb) -> Endpoint:
    if not b.is_finite():
        return INF
    return b.upper()


def _lt(a: Endpoint, b: Endpoint) -> bool:
    """a < b for exact endpoints (decisive: both are exact or infinite)."""
    if _is_inf(a) and _is_inf(b):
        return a < b
    if _is_inf(a):
        return a < 0
    if _is_inf(b):
        return b > 0
    return bool(a < b)


endpoint_lt = _lt


def _min(*xs: Endpoint) -> Endpoint:
    best = xs[0]
    for x in xs[1:]:
        if _lt(x, best):
            best = x
    return best


def _max(*xs: Endpoint) -> Endpoint:
    best = xs[0]
    for x in xs[1:]:
        if _lt(best, x):
            best = x
    return best


def _sign(x: Endpoint) -> int:
    if _is_inf(x):
        return 1 if x > 0 else -1
    if x > 0:
        return 1
    if x < 0:
        return -1
    return 0


def exact_arb(q: Fraction) -> arb:
    """An arb ball for the rational q (exact when q is dyadic)."""
    return arb(fmpq(q.numerator, q.denominator))


def to_fraction(x: Endpoint) -> Fraction | float:
    """The exact value of a finite endpoint as a Fraction (±inf stays a float)."""
    if _is_inf(x):
        return x
    man, exp = x.mid().man_exp()
    man, exp = int(man), int(exp)
    return Fraction(man) * (Fraction(2) ** exp)


@dataclass(frozen=True)
class Interval:
    """[lo, hi] with exact (radius-0) arb endpoints or ±inf; lo <= hi."""

    lo: Endpoint
    hi: Endpoint

    # --- constructors -------------------------------------------------------------
    @staticmethod
    def point(q: Fraction | int) -> Interval:
        """The smallest interval with exact endpoints that contains the rational q."""
        b = exact_arb(Fraction(q))
        return Interval(b.lower(), b.upper())

    @staticmethod
    def of(lo: Fraction | float | None, hi: Fraction | float | None) -> Interval:
        """[lo, hi] from exact rationals, None meaning -∞ (lo) or +∞ (hi)."""
        a = -INF if lo is None or (isinstance(lo, float) and lo == -INF) else Interval.point(Fraction(lo)).lo
        b = INF if hi is None or (isinstance(hi, float) and hi == INF) else Interval.point(Fraction(hi)).hi
        return Interval(a, b)

    @staticmethod
    def ball(b: arb) -> Interval:
        return Interval(_lower(b), _upper(b))

    @staticmethod
    def everything() -> Interval:
        return Interval(-INF, INF)

    # --- predicates -----------------------------------------------------------------
    def is_zero(self) -> bool:
        return not _is_inf(self.lo) and not _is_inf(self.hi) and self.lo == 0 and self.hi == 0

    def is_bounded(self) -> bool:
        return not _is_inf(self.lo) and not _is_inf(self.hi)

    def certainly_le(self, q: Fraction) -> bool:
        """Every value <= q."""
        return not _lt(Interval.point(q).lo, self.hi) if not _is_inf(self.hi) else False

    def certainly_ge(self, q: Fraction) -> bool:
        """Every value >= q."""
        return not _lt(self.lo, Interval.point(q).hi) if not _is_inf(self.lo) else False

    def certainly_gt(self, q: Fraction) -> bool:
        return _lt(Interval.point(q).hi, self.lo)

    # --- arithmetic -----------------------------------------------------------------------
    def __add__(self, other: Interval) -> Interval:
        lo = _add_lo(self.lo, other.lo)
        hi = _add_hi(self.hi, other.hi)
        return Interval(lo, hi)

    def __neg__(self) -> Interval:
        return Interval(_neg(self.hi), _neg(self.lo))

    def __sub__(self, other: Interval) -> Interval:
        return self + (-other)

    def __mul__(self, other: Interval) -> Interval:
        if self.is_zero() or other.is_zero():
            return Interval.point(0)
        los, his = [], []
        for a in (self.lo, self.hi):
            for b in (other.lo, other.hi):
                p = _mul(a, b)
                if p is None:
                    return Interval.everything()
                los.append(p[0])
                his.append(p[1])
        return Interval(_min(*los), _max(*his))

    def reciprocal(self) -> Interval:
        if _sign(self.lo) > 0 or _sign(self.hi) < 0:
            return Interval(_recip(self.hi, lower=True), _recip(self.lo, lower=False))
        return Interval.everything()

    def __truediv__(self, other: Interval) -> Interval:
        return self * other.reciprocal()

    def exp(self) -> Interval:
        return Interval(_mono_lo(self.lo, arb.exp, arb(0), INF), _mono_hi(self.hi, arb.exp, arb(0), INF))

    def expm1(self) -> Interval:
        return Interval(_mono_lo(self.lo, arb.expm1, arb(-1), INF), _mono_hi(self.hi, arb.expm1, arb(-1), INF))

    def log(self) -> Interval:
        if _sign(self.lo) < 0:
            return Interval.everything()
        lo = -INF if _sign(self.lo) == 0 else _mono_lo(self.lo, arb.log, -INF, INF)
        hi = -INF if _sign(self.hi) == 0 else _mono_hi(self.hi, arb.log, -INF, INF)
        return Interval(lo, hi)

    def power(self, n: int) -> Interval:
        """self**n for an integer n (exact range for n >= 0, up to outward rounding)."""
        if n < 0:
            return self.power(-n).reciprocal()
        if n == 0:
            return Interval.point(1)
        lo_n = _point_pow(self.lo, n)
        hi_n = _point_pow(self.hi, n)
        if n % 2 == 1 or _sign(self.lo) >= 0:
            return Interval(lo_n.lo, hi_n.hi)
        if _sign(self.hi) <= 0:
            return Interval(hi_n.lo, lo_n.hi)
        return Interval(arb(0), _max(lo_n.hi, hi_n.hi))

    def __repr__(self) -> str:
        def s(x: Endpoint) -> str:
            return str(x) if _is_inf(x) else x.str(10, radius=False)

        return f"[{s(self.lo)}, {s(self.hi)}]"


def _neg(x: Endpoint) -> Endpoint:
    return -x


def _mono_lo(x: Endpoint, f, at_neg_inf: Endpoint, at_pos_inf: Endpoint) -> Endpoint:
    """Lower bound of an increasing function f at the endpoint x."""
    if _is_inf(x):
        return at_neg_inf if x < 0 else at_pos_inf
    return _lower(f(x))


def _mono_hi(x: Endpoint, f, at_neg_inf: Endpoint, at_pos_inf: Endpoint) -> Endpoint:
    """Upper bound of an increasing function f at the endpoint x."""
    if _is_inf(x):
        return at_neg_inf if x < 0 else at_pos_inf
    return _upper(f(x))


def _point_pow(x: Endpoint, n: int) -> Interval:
    """An enclosure of x**n (n >= 1) for one exact endpoint x."""
    if _is_inf(x):
        v = INF if (x > 0 or n % 2 == 0) else -INF
        return Interval(v, v)
    out = Interval(x, x)
    for _ in range(n - 1):
        out = out * Interval(x, x)
    return out


def _add_lo(a: Endpoint, b: Endpoint) -> Endpoint:
    if _is_inf(a) or _is_inf(b):
        if (_is_inf(a) and a > 0) or (_is_inf(b) and b > 0):
            if (_is_inf(a) and a < 0) or (_is_inf(b) and b < 0):
                return -INF
            return INF
        return -INF
    return _lower(a + b)


def _add_hi(a: Endpoint, b: Endpoint) -> Endpoint:
    if _is_inf(a) or _is_inf(b):
        if (_is_inf(a) and a < 0) or (_is_inf(b) and b < 0):
            if (_is_inf(a) and a > 0) or (_is_inf(b) and b > 0):
                return INF
            return -INF
        return INF
    return _upper(a + b)


def _mul(a: Endpoint, b: Endpoint) -> tuple[Endpoint, Endpoint] | None:
    """(lower, upper) bound of the exact product a·b; None if undefined (0·∞)."""
    if _is_inf(a) or _is_inf(b):
        sa, sb = _sign(a), _sign(b)
        if sa == 0 or sb == 0:
            return None
        v = INF if sa * sb > 0 else -INF
        return v, v
    p = a * b
    return _lower(p), _upper(p)


def _recip(x: Endpoint, lower: bool) -> Endpoint:
    if _is_inf(x):
        return arb(0)
    r = 1 / x
    return _lower(r) if lower else _upper(r)


# --- sympy expressions --------------------------------------------------------------------------
class EvaluationError(ValueError):
    """The expression uses an operation the interval evaluator does not support."""


def evaluate(expr: sympy.Expr, env: dict[sympy.Symbol, Interval]) -> Interval:
    """An interval containing every value of ``expr`` when each symbol ranges over its interval."""
    if expr.is_Symbol:
        return env[expr]
    if expr.is_Rational:
        return Interval.point(Fraction(int(expr.p), int(expr.q)))
    if expr.is_Number:
        raise EvaluationError(f"interval evaluation: {expr!r} is not an exact rational")
    if expr.is_Add:
        out = evaluate(expr.args[0], env)
        for a in expr.args[1:]:
            out = out + evaluate(a, env)
        return out
    if expr.is_Mul:
        out = evaluate(expr.args[0], env)
        for a in expr.args[1:]:
            out = out * evaluate(a, env)
        return out
    if expr.is_Pow:
        base, e = expr.args
        if base == sympy.E:
            return evaluate(e, env).exp()
        if e.is_Integer:
            return evaluate(base, env).power(int(e))
        raise EvaluationError(f"interval evaluation: non-integer power in {expr}")
    if isinstance(expr, sympy.exp):
        return evaluate(expr.args[0], env).exp()
    if isinstance(expr, sympy.log):
        return evaluate(expr.args[0], env).log()
    raise EvaluationError(f"interval evaluation: unsupported operation {type(expr).__name__} in {expr}")
