"""Quadrature of a family integrand (`integrand`): mpmath, and rigorous arb enclosures.

The Gaussian CDF Φ has no elementary antiderivative against the threshold
density, so for Gaussian noise **no closed form exists**; the integral is
computed by quadrature instead:

* `mp_quad`: mpmath Gauss-Legendre quadrature over the integrand's mass window
  (`mass`: the integrand is log-concave; mode, cut 10^-(digits+5) below the peak
  with a provable tail bound), on equal panels plus every kink, each factor
  written with the branch that is analytic on its segment (Laplace: ½e^{λy} for
  y < 0, 1 - ½e^{-λy} for y >= 0; Gaussian: ½erfc(∓y/(σ√2))), the integrand
  divided by its peak; two passes (n panels / 2n panels, two precisions) must
  agree.  The error it reports is an *estimate* (mpmath's docstring: "not very
  conservative"), not a bound.
* `acb_enclosure`: python-flint's ``acb.integral`` (Petras' algorithm with
  rigorous error bounds for integrands analytic near the segment; every
  branch formula here is entire) on the same window's panels, the tails
  beyond it enclosed by the log-concavity bound in ball arithmetic (or the
  threshold noise's tail times the factors' maxima): the result is a ball
  that contains the exact value.

Both also serve Laplace and exponential noise, as a check of the closed form.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import mpmath

from verify.engine.integrand import Integrand, Piece, TermKind
from verify.engine.mass import Segment, Window, locate, panels
from verify.errors import InputError
from verify.mechanism import SparseVector
from verify.noise import Gaussian, Noise
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
        self.law = noise.law
        if not noise.law.piecewise:  # the Gaussian: erfc forms
            self.s2 = ops.num(noise.scale) * ops.sqrt2()
            self.mode = 1 / (ops.num(noise.scale) * ops.sqrt2pi())
        elif not noise.is_none:
            self.lam = ops.num(noise.rate)
            self.half_lam = self.lam / 2

    def __call__(self, kind: TermKind, y: Any, positive: bool) -> Any:
        """F(y), S(y) or p(y) with the branch analytic for y > 0 (``positive``) or y < 0;
        None where the factor is identically 0 on that side."""
        ops, law = self.ops, self.law
        if not law.piecewise:  # Gaussian
            u = y / self.s2
            if kind is TermKind.BELOW:
                return ops.erfc(-u) / 2
            if kind is TermKind.ABOVE:
                return ops.erfc(u) / 2
            return ops.exp(-u * u) * self.mode
        if law.is_none:
            if kind is TermKind.DENSITY:
                raise ValueError("no density for 'none'")
            return (1 if positive else None) if kind is TermKind.BELOW else (None if positive else 1)
        lam = self.lam
        if law.two_sided:  # Laplace: weights ½, ½
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
    if zn.law.lower_weight == 0 and not above0:  # no threshold mass below 0 (exponential)
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


# --- the mass window ---------------------------------------------------------------------------------------
def _step(mech: SparseVector) -> Fraction:
    scales = [n.scale for n in (mech.threshold_noise, mech.query_noise) if not n.is_none]
    return max(scales) if scales else Fraction(1)


def _live(ops: Any, mech: SparseVector, piece: Piece) -> list[Segment]:
    """The segments between kinks where the integrand is not identically 0, with their formulas."""
    out = []
    for lo, hi in _segments(piece):
        f = _integrand(ops, mech, piece, lo, hi)
        if f is not None:
            out.append(Segment(lo, hi, f))
    return out


def _drop(digits: int) -> float:
    """Nats below the peak where the window is cut: the tails are then < 10^-(digits+5) of the mass."""
    return (digits + 5) * math.log(10)


# --- mpmath ----------------------------------------------------------------------------------------------
MAX_PASSES = 5


def first_panels(digits: int) -> int:
    """Equal panels of the window on the first pass (doubled on each later one): the window spans about
    ±√(2·drop) peak widths, so √drop / 2 panels give each a few widths."""
    return max(4, math.ceil(math.sqrt(_drop(digits)) / 2))


def mp_quad(mech: SparseVector, integrand: Integrand, digits: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(value, estimated relative error) by mpmath quadrature over the mass window (`mass`).

    Each piece is integrated on its window (`mass.locate`: mode of the log-concave integrand,
    cut where it is 10^-(digits+5) below the peak, so the tails are < 10^-(digits+5) of the
    mass) split into n equal panels plus every kink (Gauss-Legendre: the integrand is analytic
    on each panel), at ``digits`` + 10 working digits, then on 2n panels at ``digits`` + 15,
    and so on until two consecutive passes agree to 10^-(digits+1).  The estimate is the last
    disagreement + mpmath's own estimate + the tail bound, relative: an estimate, not a bound
    (`acb_enclosure` gives a bound).  `evaluate`'s callers see it; `mp_probability` refuses
    a value whose estimate exceeds 10^-digits."""
    if integrand.zero:
        return mpmath.mpf(0), mpmath.mpf(0)
    check_reach(mech, integrand)
    if digits > MAX_QUAD_DIGITS:
        raise InputError(f"digits: {digits} digits by quadrature (Gaussian noise); at most {MAX_QUAD_DIGITS} "
                         "(its cost grows as digits^3: 25 s at 250, 120 s at 400 for one query)")
    # rounding of long products, and the digits the exponents spend before the fraction
    extra = magnitude_digits(mech, integrand)
    guard = 10 + len(str(sum(len(p.terms) for p in integrand.pieces))) + extra
    with MPMATH_LOCK, mpmath.workdps(digits + guard + 5 * MAX_PASSES):
        ops = MpOps()
        total = constants(ops, integrand)
        rel_err = mpmath.mpf(0)
        for piece in integrand.pieces:
            if mech.threshold_noise.is_none:
                total = total * _point_piece(ops, mech, piece)
                continue
            segs = _live(ops, mech, piece)
            if not segs:
                return mpmath.mpf(0), mpmath.mpf(0)
            value, err = _piece_quad(segs, piece, digits, guard, _step(mech), extra)
            total = total * value
            rel_err += err
        with mpmath.workdps(digits + guard):
            return +total, +rel_err


#: Most digits the quadrature path gives (measured, one query: 3 s at 60, 7 s at 120, 25 s at 250, 120 s at 400).
MAX_QUAD_DIGITS = 200
#: The quadrature's mass window is found to 1e-6 scales at a point R scales from 0: beyond this
#: many scales the window search does not resolve the peak (seen at 1e25: 30 and 80 digits disagree).
MAX_REACH_SCALES = 10**12


def check_reach(mech: SparseVector, integrand: Integrand) -> None:
    """Refuse kinks and released values more than `MAX_REACH_SCALES` noise scales from the threshold."""
    scale = min((n.scale for n in (mech.threshold_noise, mech.query_noise) if not n.is_none), default=Fraction(1))
    reach = max([Fraction(0), *(abs(x) for p in integrand.pieces for x in p.kinks), *(abs(y) for _, y in integrand.constants)])
    if reach > MAX_REACH_SCALES * scale:
        raise InputError(f"queries: |q - t| (or a released value) up to {float(reach):.3g} is over {MAX_REACH_SCALES:.0e} "
                         f"noise scales ({float(scale):.3g}); the quadrature path (Gaussian noise) reaches that far at most")


def magnitude_digits(mech: SparseVector, integrand: Integrand) -> int:
    """Digits that z and the log-integrand take before the fraction: with R the largest kink (a
    query, the threshold or a cap, relative to t) and released value, the log of every factor is at
    most (2R + 1)/b (Laplace, exponential) or ((2R + 1)/σ)²/2 (Gaussian) per factor in magnitude;
    resolving it to 10^-D, the value's relative error, takes D + log10 of the sum digits."""
    reach = max((abs(x) for p in integrand.pieces for x in p.kinks), default=Fraction(0))
    reach = max([reach, *(abs(y) for _, y in integrand.constants)])
    factors = sum(len(p.terms) + 2 for p in integrand.pieces) + len(integrand.constants)
    bound = Fraction(1) + reach
    for noise in {mech.threshold_noise, mech.query_noise, *(n for n, _ in integrand.constants)}:
        if noise.is_none:
            continue
        w = (2 * reach + 1) / noise.scale
        bound += factors * (w * w / 2 if isinstance(noise.law, Gaussian) else w)
    return len(str(math.ceil(bound)))


def _piece_quad(segs: list[Segment], piece: Piece, digits: int, guard: int, step: Fraction,
                extra: int = 0) -> tuple[mpmath.mpf, mpmath.mpf]:
    window = locate(segs, _drop(digits), step, extra)
    target = mpmath.mpf(10) ** -(digits + 1)
    previous, est = None, mpmath.inf
    n = first_panels(digits)
    for k in range(MAX_PASSES):
        with mpmath.workdps(digits + guard + 5 * k):
            value, err = _window_quad(segs, window, piece.kinks, n)
            if previous is not None:
                gap = abs(value - previous) / value if value > 0 else (0 if value == previous else mpmath.inf)
                est = gap + (err / value if value > 0 else mpmath.inf) + window.tail
                if gap <= target:
                    return value, est
            previous, n = value, 2 * n
    return value, est


def _window_quad(segs: list[Segment], window: Window, kinks: list[Fraction], n: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    """∫ over the window on n panels, as (value, mpmath's error estimate).  The integrand is divided by
    its peak first: mpmath.quad stops when its error estimate is below eps *absolutely*
    (`QuadratureRule.summation`: ``if err <= epsilon: break``), so a 1e-699 integrand would be
    accepted at the first degree (seen: 4e-14 relative error on both this path and a dense-panel check)."""
    pts = panels(window, kinks, n)
    scale = mpmath.exp(-window.log_peak)
    value, err = mpmath.mpf(0), mpmath.mpf(0)
    for seg, nodes in _split(segs, pts):
        v, e = mpmath.quad(lambda z, f=seg.f: f(z) * scale, [mpmath.mpf(x.numerator) / x.denominator for x in nodes],
                           error=True, method="gauss-legendre")
        value += v
        err += abs(e)
    return value / scale, err / scale


def _split(segs: list[Segment], pts: list[Fraction]) -> list[tuple[Segment, list[Fraction]]]:
    """The breakpoints ``pts`` (which include every kink inside) grouped by the segment they lie in."""
    out = []
    for seg in segs:
        nodes = [x for x in pts if (seg.lo is None or x >= seg.lo) and (seg.hi is None or x <= seg.hi)]
        if len(nodes) >= 2:
            out.append((seg, nodes))
    return out


# --- arb --------------------------------------------------------------------------------------------------
def _tail(noise: Noise, beyond: Fraction, right: bool) -> Any:
    """Pr[Z > beyond] (right) or Pr[Z < -beyond] (left), beyond >= 0, as an arb ball (no underflow)."""
    import flint

    x = flint.arb(flint.fmpq(beyond.numerator, beyond.denominator)) / flint.arb(
        flint.fmpq(noise.scale.numerator, noise.scale.denominator))
    return noise.law.arb_tail(x, right)


def _mode(noise: Noise) -> Fraction:
    """A rational upper bound on the density's maximum (the family's `density_mode`)."""
    return noise.law.density_mode(noise.scale)


def acb_enclosure(mech: SparseVector, integrand: Integrand, prec: int = 128) -> Any:
    """A python-flint ``arb`` ball containing the exact value.

    Per piece: ``acb.integral`` (rigorous; every branch formula is entire) on the
    panels of the mass window (`mass.locate`, found in mpmath: it only decides
    where to cut, never what is claimed), with the absolute tolerance scaled to
    the peak; each tail beyond the window is enclosed in [0, B] with B the
    log-concavity bound g(R)(R - m)/(log g(m) - log g(R)) evaluated in ball
    arithmetic (`mass` docstring), or, where that is not established, the crude
    bound Pr[Z beyond R] · Π (density maxima) (F, S <= 1)."""
    import flint

    if integrand.zero:
        return flint.arb(0)
    with MPMATH_LOCK:
        old = flint.ctx.prec
        flint.ctx.prec = prec
        try:
            ops = AcbOps()
            total = constants(ops, integrand)
            for piece in integrand.pieces:
                if mech.threshold_noise.is_none:
                    total = total * _point_piece(ops, mech, piece)
                    continue
                with mpmath.workdps(max(30, int(prec * 0.302) + 10)):
                    segs = _live(MpOps(), mech, piece)
                    if not segs:
                        return flint.arb(0)
                    window = locate(segs, _drop(int(prec * 0.302)) + 10, _step(mech))
                total = total * _piece_ball(ops, mech, piece, window, prec)
            return total.real
        finally:
            flint.ctx.prec = old


def _piece_ball(ops: AcbOps, mech: SparseVector, piece: Piece, window: Window, prec: int) -> Any:
    import flint

    segs = _live(ops, mech, piece)
    size = window.hi - window.lo
    tol = (flint.arb(str(mpmath.nstr(window.log_peak, 20))).exp()
           * ops.num(size if size > 0 else 1).real * flint.arb(2) ** -(prec + 20))
    value = flint.acb(0)
    for seg, nodes in _split(segs, panels(window, piece.kinks, 2 * first_panels(int(prec * 0.302)))):
        for a, b in zip(nodes[:-1], nodes[1:]):
            value += flint.acb.integral(lambda z, _analytic, f=seg.f: f(z), ops.num(a), ops.num(b), abs_tol=tol)
    if not window.lo_end:
        value += _tail_ball(ops, mech, piece, segs, window, right=False)
    if not window.hi_end:
        value += _tail_ball(ops, mech, piece, segs, window, right=True)
    return value


def _at(ops: AcbOps, segs: list[Segment], z: Fraction) -> Any:
    for seg in segs:
        if (seg.lo is None or z >= seg.lo) and (seg.hi is None or z <= seg.hi):
            return seg.f(ops.num(z)).real
    return None


def _tail_ball(ops: AcbOps, mech: SparseVector, piece: Piece, segs: list[Segment], window: Window, right: bool) -> Any:
    """[0, B] ⊇ the mass beyond the window's cut on one side (`acb_enclosure`)."""
    import flint

    cut, m = (window.hi, window.mode) if right else (window.lo, window.mode)
    g_cut, g_m = _at(ops, segs, cut), _at(ops, segs, m)
    dist = (cut - m) if right else (m - cut)
    if g_cut is not None and g_m is not None and dist > 0 and g_cut > 0:
        d = (g_m / g_cut).log()
        if d > 0:  # certainly: the secant slope is certainly negative
            bound = (g_cut * ops.num(dist).real / d).upper()
            return flint.acb(flint.arb(0).union(bound))
    bound = Fraction(1)
    for term in piece.terms:
        if term.kind is TermKind.DENSITY:
            bound *= _mode(mech.query_noise)
    zn = mech.threshold_noise
    if (right and cut > 0) or (not right and cut < 0):
        mass = _tail(zn, abs(cut), right=right) * ops.num(bound).real
    else:
        mass = ops.num(bound).real
    return flint.acb(flint.arb(0).union(mass.upper()))
