"""Quadrature of a family integrand (`integrand`): mpmath, and rigorous arb enclosures.

The Gaussian CDF Φ has no elementary antiderivative against the threshold
density, so for Gaussian noise **no closed form exists**; the integral is
computed by quadrature instead:

* `mp_quad`: mpmath's tanh-sinh quadrature on every segment between
  consecutive kinks (0, every a_i, the cap), each factor written with the
  branch that is analytic on that segment (Laplace: ½e^{λy} for y < 0,
  1 - ½e^{-λy} for y >= 0; Gaussian: ½erfc(∓y/(σ√2))).  The error it reports
  is mpmath's *estimate* (its docstring: "not very conservative"), not a bound.
* `acb_enclosure`: python-flint's ``acb.integral`` (Petras' algorithm with
  rigorous error bounds for integrands analytic near the segment; every
  branch formula here is entire) on the same segments, the two infinite
  tails truncated at ±L and their mass bounded above by the threshold
  noise's tail Pr[|Z| > L] times the factors' maxima (F, S <= 1, p_X <= its
  mode): the result is a ball that contains the exact value.

Both also serve Laplace and exponential noise, as a check of the closed form.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import mpmath

from verify.family.integrand import Integrand, Piece, TermKind
from verify.family.model import SparseVector
from verify.noise import Noise
from verify.precision import MPMATH_LOCK


class MpOps:
    """Elementary functions on mpmath numbers (at the caller's workdps)."""

    def num(self, x: Fraction | int) -> Any:
        x = Fraction(x)
        return mpmath.mpf(x.numerator) / x.denominator

    def exp(self, x: Any) -> Any:
        return mpmath.exp(x)

    def expm1(self, x: Any) -> Any:
        return mpmath.expm1(x)

    def erfc(self, x: Any) -> Any:
        return mpmath.erfc(x)

    def sqrt2pi(self) -> Any:
        return mpmath.sqrt(2 * mpmath.pi)

    def sqrt2(self) -> Any:
        return mpmath.sqrt(2)


class AcbOps:
    """The same on python-flint acb balls (the caller sets flint.ctx.prec)."""

    def __init__(self) -> None:
        import flint

        self.flint = flint

    def num(self, x: Fraction | int) -> Any:
        x = Fraction(x)
        return self.flint.acb(self.flint.arb(self.flint.fmpq(x.numerator, x.denominator)))

    def exp(self, x: Any) -> Any:
        return x.exp()

    def expm1(self, x: Any) -> Any:
        return x.expm1()

    def erfc(self, x: Any) -> Any:
        return x.erfc()

    def sqrt2pi(self) -> Any:
        return (2 * self.flint.acb.pi()).sqrt()

    def sqrt2(self) -> Any:
        return self.flint.acb(2).sqrt()


class NoiseFns:
    """F, S and p of one noise on one number type, parameters converted once."""

    def __init__(self, ops: Any, noise: Noise) -> None:
        self.ops = ops
        self.family = noise.family
        if noise.family == "gaussian":
            self.s2 = ops.num(noise.scale) * ops.sqrt2()
            self.mode = 1 / (ops.num(noise.scale) * ops.sqrt2pi())
        elif not noise.is_none:
            self.lam = ops.num(noise.rate)
            self.half_lam = self.lam / 2

    def __call__(self, kind: TermKind, y: Any, positive: bool) -> Any:
        """F(y), S(y) or p(y) with the branch analytic for y > 0 (``positive``) or y < 0;
        None where the factor is identically 0 on that side."""
        ops, fam = self.ops, self.family
        if fam == "gaussian":
            u = y / self.s2
            if kind is TermKind.BELOW:
                return ops.erfc(-u) / 2
            if kind is TermKind.ABOVE:
                return ops.erfc(u) / 2
            return ops.exp(-u * u) * self.mode
        if fam == "none":
            if kind is TermKind.DENSITY:
                raise ValueError("no density for 'none'")
            return (1 if positive else None) if kind is TermKind.BELOW else (None if positive else 1)
        lam = self.lam
        if fam == "laplace":
            e = ops.exp(-lam * y) if positive else ops.exp(lam * y)  # <= 1 on its side
            if kind is TermKind.BELOW:
                return 1 - e / 2 if positive else e / 2
            if kind is TermKind.ABOVE:
                return e / 2 if positive else 1 - e / 2
            return self.half_lam * e
        if not positive:  # exponential, y < 0
            return None if kind is not TermKind.ABOVE else 1
        if kind is TermKind.BELOW:
            return -ops.expm1(-lam * y)
        if kind is TermKind.ABOVE:
            return ops.exp(-lam * y)
        return lam * ops.exp(-lam * y)


def _segments(piece: Piece) -> list[tuple[Fraction | None, Fraction | None]]:
    ends: list[Fraction | None] = [None, *piece.kinks, None]
    out = []
    for lo, hi in zip(ends[:-1], ends[1:]):
        if piece.cap is not None and (hi is None or hi > piece.cap):
            continue
        out.append((lo, hi))
    return out


def _integrand(ops: Any, mech: SparseVector, piece: Piece, lo: Fraction | None, hi: Fraction | None):
    """z -> p_Z(z) Π terms(z) with the branches of the segment (lo, hi); None if 0 there."""
    zn = mech.threshold_noise
    above0 = lo is not None and lo >= 0
    if zn.family == "exponential" and not above0:
        return None
    pz, px = NoiseFns(ops, zn), NoiseFns(ops, mech.query_noise)
    sides = []
    for term in piece.terms:
        positive = lo is not None and lo >= term.x  # z >= x on the whole segment
        if px(term.kind, ops.num(0), positive) is None:
            return None
        sides.append((term, positive))
    xs = [(ops.num(term.x), term.kind, positive) for term, positive in sides]

    def f(z: Any) -> Any:
        value = pz(TermKind.DENSITY, z, above0)
        for x, kind, positive in xs:
            value = value * px(kind, z - x, positive)
        return value

    return f


def _point_piece(ops: Any, mech: SparseVector, piece: Piece) -> Any:
    if piece.cap is not None and piece.cap < 0:
        return ops.num(0)
    value = ops.num(1)
    px = NoiseFns(ops, mech.query_noise)
    for term in piece.terms:
        f = px(term.kind, ops.num(-term.x), -term.x > 0)
        if f is None:
            return ops.num(0)
        value = value * f
    return value


def constants(ops: Any, integrand: Integrand) -> Any:
    value = ops.num(1)
    for noise, y in integrand.constants:
        f = NoiseFns(ops, noise)(TermKind.DENSITY, ops.num(y), y >= 0)
        value = value * (ops.num(0) if f is None else f)
    return value


# --- mpmath ----------------------------------------------------------------------------------------------
def mp_quad(mech: SparseVector, integrand: Integrand, digits: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(value, estimated relative error) by mpmath quadrature at ``digits`` + 15 working digits.

    The degree is raised until mpmath's error estimate is below 10^-(digits+3) relative
    (an estimate, not a bound)."""
    if integrand.zero:
        return mpmath.mpf(0), mpmath.mpf(0)
    with MPMATH_LOCK, mpmath.workdps(digits + 15):
        ops = MpOps()
        total = constants(ops, integrand)
        rel_err = mpmath.mpf(0)
        for piece in integrand.pieces:
            if mech.threshold_noise.is_none:
                total = total * _point_piece(ops, mech, piece)
                continue
            value, err = mpmath.mpf(0), mpmath.mpf(0)
            for lo, hi in _segments(piece):
                f = _integrand(ops, mech, piece, lo, hi)
                if f is None:
                    continue
                a = mpmath.ninf if lo is None else ops.num(lo)
                b = mpmath.inf if hi is None else ops.num(hi)
                v, e = _quad(f, a, b, digits)
                value += v
                err += e
            total = total * value
            rel_err += err / value if value > 0 else (0 if err == 0 else mpmath.inf)
        return +total, rel_err


def _quad(f, a, b, digits: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    target = mpmath.mpf(10) ** (-(digits + 3))
    degree = 6
    while True:
        v, e = mpmath.quad(f, [a, b], error=True, maxdegree=degree)
        if v == 0 or abs(e) <= target * abs(v) or degree >= 14:
            return v, abs(e)
        degree += 2


# --- arb --------------------------------------------------------------------------------------------------
def _tail(noise: Noise, beyond: Fraction, right: bool) -> float:
    """An upper bound on Pr[Z > beyond] (right) or Pr[Z < -beyond] (left), beyond >= 0, as a float
    rounded up generously (it only widens the ball)."""
    if noise.family == "exponential":
        return 0.0 if not right else math.exp(-float(beyond / noise.scale)) * 1.000001
    if noise.family == "laplace":
        return 0.5 * math.exp(-float(beyond / noise.scale)) * 1.000001
    return 0.5 * math.erfc(float(beyond / noise.scale) / math.sqrt(2)) * 1.000001 + 1e-300


def _mode(noise: Noise) -> Fraction:
    """A rational upper bound on the density's maximum."""
    if noise.family == "laplace":
        return noise.rate / 2
    if noise.family == "exponential":
        return noise.rate
    return Fraction(2, 5) / noise.scale  # 1/√(2π) = 0.3989... < 2/5


def acb_enclosure(mech: SparseVector, integrand: Integrand, prec: int = 128, estimate: float | None = None) -> Any:
    """A python-flint ``arb`` ball containing the exact value (module docstring).

    ``estimate`` (e.g. from `mp_quad`) sets where the tails are cut: at L with
    tail mass below 2^-(prec+10) · estimate."""
    import flint

    if integrand.zero:
        return flint.arb(0)
    with MPMATH_LOCK:
        old = flint.ctx.prec
        flint.ctx.prec = prec
        try:
            ops = AcbOps()
            total = constants(ops, integrand)
            zn = mech.threshold_noise
            for piece in integrand.pieces:
                if zn.is_none:
                    total = total * _point_piece(ops, mech, piece)
                    continue
                bound = Fraction(1)
                for term in piece.terms:
                    if term.kind is TermKind.DENSITY:
                        bound *= _mode(mech.query_noise)
                want = 2.0 ** (-(prec + 10)) * (estimate if estimate and estimate > 0 else 1e-300)
                reach = _cut(zn, want / float(bound))
                kinks = piece.kinks
                lo_cut, hi_cut = kinks[0] - reach, kinks[-1] + reach
                value = flint.acb(0)
                for lo, hi in _segments(piece):
                    f = _integrand(ops, mech, piece, lo, hi)
                    if f is None:
                        continue
                    a = lo_cut if lo is None else lo
                    b = hi_cut if hi is None else hi
                    value += flint.acb.integral(lambda z, _analytic, f=f: f(z), ops.num(a), ops.num(b))
                    if lo is None:
                        value += _ball(0, _tail(zn, -lo_cut, right=False) * float(bound)) if lo_cut < 0 else _ball(0, float(bound))
                    if hi is None:
                        value += _ball(0, _tail(zn, hi_cut, right=True) * float(bound)) if hi_cut > 0 else _ball(0, float(bound))
                total = total * value
            return total.real
        finally:
            flint.ctx.prec = old


def _cut(noise: Noise, want: float) -> Fraction:
    """A distance L (exact) beyond the outermost kink with tail mass <= want."""
    b = float(noise.scale)
    t = max(-math.log(max(want, 1e-300)), 1.0)
    if noise.family == "gaussian":
        return Fraction(math.ceil(b * math.sqrt(2 * t) + 1))
    return Fraction(math.ceil(b * t + 1))


def _ball(mid: float, rad: float) -> Any:
    """[mid - rad, mid + rad] as an acb (rad >= 0 rounded up by arb)."""
    import flint

    return flint.acb(flint.arb(mid, rad))
