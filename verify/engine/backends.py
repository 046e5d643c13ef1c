"""Number backends for the exact piecewise integrator (`verify.engine.piecewise`).

The integrator needs a handful of operations on one kind of number; each
backend supplies them:

* `MpmathBackend`: mpmath ``mpf`` at the precision of the enclosing
  ``mp.workdps`` block (the caller sets it locally).
* `SympyBackend`: exact sympy expressions (``exp`` of rational multiples of a
  symbol or a rational).
* `ArbBackend`: python-flint ``arb`` balls: every operation returns a ball
  that contains the exact result (used by the certification engine).

Exponents reach a backend only as ``Fraction * lam``, so the integrator
decides exactly which exponents vanish before any rounding happens.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any, Protocol

import mpmath

if TYPE_CHECKING:
    import sympy


class Backend(Protocol):
    """What `verify.engine.piecewise` needs from a number type."""

    exact: bool

    def num(self, x: Fraction) -> Any: ...
    def exp(self, x: Any) -> Any: ...
    def expm1(self, x: Any) -> Any: ...
    def magnitude(self, x: Any) -> Any: ...


class MpmathBackend:
    """mpmath mpf at the working precision of the caller's ``workdps`` block."""

    exact = False

    def num(self, x: Fraction) -> mpmath.mpf:
        return mpmath.mpf(x.numerator) / x.denominator

    def exp(self, x: Any) -> mpmath.mpf:
        return mpmath.exp(x)

    def expm1(self, x: Any) -> mpmath.mpf:
        return mpmath.expm1(x)

    def magnitude(self, x: Any) -> mpmath.mpf:
        return abs(x)


class SympyBackend:
    """Exact sympy expressions (sympy is imported by the first instance: the mpmath paths never load it)."""

    exact = True

    def __init__(self) -> None:
        import sympy  # lazy: start-up time (about 0.5 s of CPU; only the symbolic paths use this backend)

        self._sp = sympy

    def num(self, x: Fraction) -> sympy.Rational:
        return self._sp.Rational(x.numerator, x.denominator)

    def exp(self, x: Any) -> sympy.Expr:
        return self._sp.exp(x)

    def expm1(self, x: Any) -> sympy.Expr:
        return self._sp.exp(x) - 1

    def magnitude(self, x: Any) -> sympy.Expr:
        return self._sp.Abs(x)


class ArbBackend:
    """python-flint balls; the working precision is ``flint.ctx.prec``."""

    exact = False

    def __init__(self) -> None:
        import flint  # lazy: start-up time (only certification and the ball sweep use arb balls)

        self._arb = flint.arb

    def num(self, x: Fraction) -> Any:
        import flint  # lazy: start-up time (as in __init__)

        return self._arb(flint.fmpq(x.numerator, x.denominator))

    def exp(self, x: Any) -> Any:
        return self._arb(x).exp()

    def expm1(self, x: Any) -> Any:
        return self._arb(x).expm1()

    def magnitude(self, x: Any) -> Any:
        return abs(self._arb(x))
