"""Closed forms, derived with sympy, of the pieces the certificates need.

Noise families (`verify.noise`): ``laplace`` (density (r/2)e^{-r|x|}),
``exponential`` (density r e^{-rx} on x >= 0), ``none`` (X = 0); r = 1/b is
the rate.  S(x) = Pr[X >= x] and F(x) = Pr[X < x].

The proofs' conditional probability (seed, Proof 1 display ending in
∫_{M(D,x)-t}^∞ p(z) F(-t-z+q_i(D)) dz; Mechanism Two, the display ending in
∫_{M(D,x)-t}^∞ p(z) exp(-(ε/3Δ) max{0, t+z-q_i(D)}) dz) is

    C(m, d) = ∫_m^∞ p_Z(z) S_X(z - d) dz,   m = M(D,x) - t,  d = q_i(D) - t,

(m = -∞ for i = 1).  Between the kinks z = m, 0, d the integrand is a sum of
exponentials, so `conditional_cell` integrates it exactly for each order of
m, 0 and d (a "cell").  With α = rate of Z and β = rate of X, on the *tail
cell* A = {m >= 0, d <= m} both factors are pure exponentials,

    C(m, d) = a_Z a_X e^{βd - (α+β)m} / (α + β)        (a = α/2 or α for Laplace
                                                        or exponential Z, 1/2 or 1 for X),

which `tail_cell_identity` checks symbolically; there
log C(m,d) - log C(m+h, d-h) = (α + 2β)·h exactly.

Two one-dimensional functions carry the whole certificate
(`verify.certify.conditional`):

* the hazard of X, haz(x) = p_X(x) / S_X(x);
* the tilted hazard of Z, φ(m) = p_Z(m) e^{-βm} / ∫_m^∞ p_Z(z) e^{-βz} dz.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable
from fractions import Fraction
from typing import Union

import sympy

from verify.certify.search import Piece
from verify.noise import NoiseFamily, family_type

Z, M, D, X = sympy.symbols("z m d x", real=True)
Bound = Union[sympy.Expr, None]  # None = ∓∞



def rat(q: Fraction | int) -> sympy.Rational:
    q = Fraction(q)
    return sympy.Rational(q.numerator, q.denominator)


def _weighted(weight: Fraction, expr: sympy.Expr) -> sympy.Expr:
    """weight·expr, a weight of 1 left out."""
    return expr if weight == 1 else rat(weight) * expr


def _piecewise_law(family: str, what: str) -> NoiseFamily:
    law = family_type(family)
    if not law.piecewise:
        raise ValueError(f"{what}: family {family!r} is not piecewise exponential")
    return law


def density_pieces(family: str, r: sympy.Expr, v: sympy.Symbol = Z) -> list[tuple[Bound, Bound, sympy.Expr]]:
    """The density on closed pieces (zero outside them): ``w₋·r·e^{rv}`` on v <= 0 and
    ``w₊·r·e^{-rv}`` on v >= 0 with the family's exact weights; no density for ``none``."""
    law = _piecewise_law(family, "density_pieces")
    if law.is_none:
        raise ValueError(f"density_pieces: family {family!r} has no density")
    pieces: list[tuple[Bound, Bound, sympy.Expr]] = []
    if law.lower_weight:
        pieces.append((None, sympy.Integer(0), _weighted(law.lower_weight, r) * sympy.exp(r * v)))
    pieces.append((sympy.Integer(0), None, _weighted(law.upper_weight, r) * sympy.exp(-r * v)))
    return pieces


def survival_pieces(family: str, r: sympy.Expr, v: sympy.Symbol = X) -> list[tuple[Bound, Bound, sympy.Expr]]:
    """S(v) = Pr[X >= v] on closed pieces: ``1 - w₋e^{rv}`` on v <= 0, ``w₊e^{-rv}`` on v >= 0
    (for ``none``, S = 1 on v <= 0 and 0 on v > 0)."""
    law = _piecewise_law(family, "survival_pieces")
    if law.is_none:
        return [(None, sympy.Integer(0), sympy.Integer(1)), (sympy.Integer(0), None, sympy.Integer(0))]
    lower = 1 - rat(law.lower_weight) * sympy.exp(r * v) if law.lower_weight else sympy.Integer(1)
    return [(None, sympy.Integer(0), lower), (sympy.Integer(0), None, _weighted(law.upper_weight, sympy.exp(-r * v)))]


def cdf_pieces(family: str, r: sympy.Expr, v: sympy.Symbol = X) -> list[tuple[Bound, Bound, sympy.Expr]]:
    """F(v) = Pr[X < v] = 1 - S(v)."""
    return [(lo, hi, sympy.simplify(1 - e)) for lo, hi, e in survival_pieces(family, r, v)]


def tail_constants(zfamily: str, xfamily: str, alpha: sympy.Expr) -> tuple[sympy.Expr, sympy.Expr]:
    """(a_Z, a_X): p_Z(z) = a_Z e^{-αz} for z >= 0 and S_X(x) = a_X e^{-βx} for x >= 0."""
    a_z = _weighted(family_type(zfamily).upper_weight, alpha)
    a_x = rat(family_type(xfamily).upper_weight)
    return a_z, a_x


# --- exact integrals of sums of exponentials -----------------------------------------------------------------
Integrator = Callable[[sympy.Expr, sympy.Symbol, sympy.Expr, sympy.Expr], sympy.Expr]


@functools.lru_cache(maxsize=1024)
def sympy_integral(expr: sympy.Expr, v: sympy.Symbol, lo: sympy.Expr, hi: sympy.Expr) -> sympy.Expr:
    """∫_lo^hi expr dv by sympy's general integrator (its Meijer G path for these integrands: slow).

    Remembered (sympy expressions are immutable and hash by structure): the cells of one family pair
    integrate some terms alike, e.g. e^{(α-β)z} between m and d, whose α - β has no known sign."""
    return sympy.integrate(expr, (v, lo, hi))


def _exponential_term(term: sympy.Expr, v: sympy.Symbol) -> tuple[sympy.Expr, sympy.Expr, sympy.Expr] | None:
    """(c, a, b) with term = c·e^{a·v + b}, c, a and b free of v; None if the term is not of that form."""
    coeff, rest = term.as_independent(v, as_Add=False)
    exponent = sympy.Integer(0)
    for f in sympy.Mul.make_args(rest):
        if f == 1:
            continue
        if not isinstance(f, sympy.exp):
            return None
        exponent += f.args[0]
    a = sympy.diff(exponent, v)
    b = sympy.expand(exponent - a * v)
    if v in a.free_symbols or v in b.free_symbols:
        return None
    return coeff, a, b


def integrate_exponentials(expr: sympy.Expr, v: sympy.Symbol, lo: sympy.Expr, hi: sympy.Expr) -> sympy.Expr:
    """∫_lo^hi expr dv for expr a sum of terms c·e^{a·v + b} (c, a, b free of v), term by term:

        ∫_lo^hi c e^{av+b} dv = c (e^{a·hi+b} - e^{a·lo+b}) / a   (a != 0),   c e^b (hi - lo)   (a = 0),

    with e^{a·hi} = 0 at hi = +∞ when a < 0 and e^{a·lo} = 0 at lo = -∞ when a > 0 (the integrals the
    closed forms need converge).  A term of another form, or whose a has an unknown sign where a bound is
    infinite or an unknown zero-ness, goes to `sympy_integral`: the result is the same exact integral.
    """
    total = sympy.Integer(0)
    for term in sympy.Add.make_args(sympy.expand(expr)):
        parts = _exponential_term(term, v)
        if parts is None:
            total += sympy_integral(term, v, lo, hi)
            continue
        c, a, b = parts
        if a.is_zero:
            if lo.is_infinite or hi.is_infinite:
                total += sympy_integral(term, v, lo, hi)
            else:
                total += c * sympy.exp(b) * (hi - lo)
            continue
        if a.is_zero is None or (hi is sympy.oo and a.is_negative is not True) or (lo is -sympy.oo and a.is_positive is not True):
            total += sympy_integral(term, v, lo, hi)
            continue
        upper = sympy.Integer(0) if hi is sympy.oo else sympy.exp(a * hi + b)
        lower = sympy.Integer(0) if lo is -sympy.oo else sympy.exp(a * lo + b)
        total += c * (upper - lower) / a
    return total


# --- the conditional probability, cell by cell ------------------------------------------------------------
def cells(with_m: bool = True) -> list[tuple[str, ...]]:
    """The orders of (m, 0, d) (or of (0, d) when m = -∞), smallest first."""
    names = ("m", "0", "d") if with_m else ("0", "d")
    return [tuple(p) for p in itertools.permutations(names)]


def _sample_point(order: tuple[str, ...]) -> dict[str, Fraction]:
    """A rational point strictly inside a cell, e.g. m < 0 < d -> m=-1, d=1."""
    pos = {name: i for i, name in enumerate(order)}
    shift = pos["0"]
    return {name: Fraction(i - shift) for name, i in pos.items()}


def conditional_cell(zfamily: str, xfamily: str, alpha: sympy.Expr, beta: sympy.Expr, order: tuple[str, ...],
                     integrate: Integrator = integrate_exponentials, simplified: bool = True) -> sympy.Expr:
    """C(m, d) in closed form on the cell given by ``order`` (m absent: m = -∞).

    Integrates p_Z(z) S_X(z - d) exactly over each segment between the kinks, by ``integrate``
    (default `integrate_exponentials`, the antiderivative of each exponential; tests pass
    `sympy_integral`, sympy's general integrator, as the reference); the sum is returned through
    sympy.simplify unless ``simplified`` is False.
    """
    with_m = "m" in order
    if family_type(zfamily).is_none:  # Z = 0: C = [m < 0] · S_X(-d)
        if with_m and order.index("m") > order.index("0"):
            return sympy.Integer(0)
        return _piece_at(survival_pieces(xfamily, beta, X), order.index("d") > order.index("0")).subs(X, -D)
    points = {"m": M, "0": sympy.Integer(0), "d": D}
    seq = [points[n] for n in order]
    start = order.index("m") if with_m else 0
    ends: list[Bound] = ([None] if not with_m else []) + seq[start:] + [None]
    names = ([None] if not with_m else []) + list(order[start:]) + [None]
    total = sympy.Integer(0)
    for k in range(len(ends) - 1):
        lo, hi = ends[k], ends[k + 1]
        # position of the segment relative to 0 and to d, read off the order
        above_zero = _segment_above(names, k, "0", order)
        above_d = _segment_above(names, k, "d", order)
        p = _density_on(zfamily, alpha, above_zero)
        if p is None:
            continue
        s = _piece_at(survival_pieces(xfamily, beta, X), not above_d).subs(X, Z - D)
        if s == 0:
            continue
        total += integrate(p * s, Z, -sympy.oo if lo is None else lo, sympy.oo if hi is None else hi)
    return sympy.simplify(total) if simplified else total


def _segment_above(names: list, k: int, ref: str, order: tuple[str, ...]) -> bool:
    """Is segment k (between names[k] and names[k+1]) above the point ``ref``?"""
    left = names[k]
    if left is None:
        return False
    return order.index(left) >= order.index(ref)


def _density_on(family: str, r: sympy.Expr, above_zero: bool) -> sympy.Expr | None:
    for lo, hi, e in density_pieces(family, r, Z):
        if above_zero and lo is not None and hi is None:
            return e
        if not above_zero and lo is None:
            return e
    return None


def _piece_at(pieces, below_zero: bool) -> sympy.Expr:
    """The piece for arguments below 0 (``below_zero``) or above 0."""
    return pieces[0][2] if below_zero else pieces[-1][2]


def tail_cell_identity(zfamily: str, xfamily: str, alpha: sympy.Expr, beta: sympy.Expr) -> tuple[bool, sympy.Expr]:
    """Check symbolically that C = a_Z a_X e^{βd-(α+β)m}/(α+β) on both orders of the tail cell A.

    The difference of the two goes through sympy.cancel (the canonical p/q of a rational function of
    its generators, here the exponentials): p = 0 proves the identity, and only otherwise is
    sympy.simplify asked (slower; it also imports sympy.physics on first use).  Returns (holds, the tail form).
    """
    a_z, a_x = tail_constants(zfamily, xfamily, alpha)
    form = a_z * a_x * sympy.exp(beta * D - (alpha + beta) * M) / (alpha + beta)
    ok = True
    for order in (("0", "d", "m"), ("d", "0", "m")):
        diff = conditional_cell(zfamily, xfamily, alpha, beta, order, simplified=False) - form
        ok = ok and (sympy.cancel(diff) == 0 or sympy.simplify(diff) == 0)
    return ok, form


def conditional_value(zfamily: str, xfamily: str, alpha: Fraction, beta: Fraction, m: Fraction | None, d: Fraction) -> sympy.Expr:
    """C(m, d) at a rational point, exact (sympy), from the cell closed form.

    The cell's sum of integrals is evaluated at the point and simplified there (sympy.simplify of a constant),
    not simplified as a function of m and d first (the same value, several times faster)."""
    pts = {"0": Fraction(0), "d": Fraction(d)}
    if m is not None:
        pts["m"] = Fraction(m)
    order = tuple(sorted(pts, key=lambda n: (pts[n], ["m", "0", "d"].index(n))))
    expr = conditional_cell(zfamily, xfamily, rat(alpha), rat(beta), order, simplified=False)
    subs = {D: rat(pts["d"])}
    if m is not None:
        subs[M] = rat(pts["m"])
    return sympy.simplify(expr.subs(subs))


# --- the one-dimensional functions --------------------------------------------------------------------------
def hazard_pieces(family: str, r: sympy.Expr, v: sympy.Symbol = X) -> list[Piece]:
    """haz(v) = p(v)/S(v) = Pr density over survival, on closed pieces (0 where p = 0)."""
    out = []
    dens = {(lo, hi): e for lo, hi, e in density_pieces(family, r, v)}
    for lo, hi, s in survival_pieces(family, r, v):
        p = dens.get((lo, hi), sympy.Integer(0))
        out.append(Piece(_frac(lo), _frac(hi), sympy.simplify(p / s)))
    return out


def reverse_hazard_pieces(family: str, r: sympy.Expr, v: sympy.Symbol = X) -> list[Piece]:
    """p(v)/F(v) (the derivative of log F) where F > 0."""
    out = []
    dens = {(lo, hi): e for lo, hi, e in density_pieces(family, r, v)}
    for lo, hi, f in cdf_pieces(family, r, v):
        if f == 0:
            continue
        p = dens.get((lo, hi), sympy.Integer(0))
        out.append(Piece(_frac(lo), _frac(hi), sympy.simplify(p / f)))
    return out


def log_density_slope_pieces(family: str, r: sympy.Expr, v: sympy.Symbol = Z) -> list[Piece]:
    """d/dv log p(v) on the pieces where p > 0."""
    return [Piece(_frac(lo), _frac(hi), sympy.simplify(sympy.diff(sympy.log(e), v))) for lo, hi, e in density_pieces(family, r, v)]


def tilted_hazard_pieces(family: str, alpha: sympy.Expr, beta: sympy.Expr, v: sympy.Symbol = M,
                         integrate: Integrator = integrate_exponentials) -> list[Piece]:
    """φ(v) = p_Z(v) e^{-βv} / G(v), G(v) = ∫_v^∞ p_Z(z) e^{-βz} dz, on closed pieces in v
    (G by ``integrate``, as in `conditional_cell`)."""
    pieces = density_pieces(family, alpha, Z)
    out = []
    breaks = [None, sympy.Integer(0), None]
    for lo, hi in zip(breaks[:-1], breaks[1:]):
        # G(v) for v in [lo, hi]: the part of the tilted density above v
        g = sympy.Integer(0)
        p_here = sympy.Integer(0)
        for plo, _hi, e in pieces:
            tilted = e * sympy.exp(-beta * Z)
            if plo is None:  # density piece on (-∞, 0]
                if hi is not None and hi <= 0 and lo is None:
                    g += integrate(tilted, Z, v, sympy.Integer(0))
                    p_here = e.subs(Z, v)
            else:  # piece on [0, ∞)
                if lo is not None and lo >= 0:
                    g += integrate(tilted, Z, v, sympy.oo)
                    p_here = e.subs(Z, v)
                else:
                    g += integrate(tilted, Z, sympy.Integer(0), sympy.oo)
        phi_expr = sympy.Integer(0) if p_here == 0 else sympy.simplify(p_here * sympy.exp(-beta * v) / g)
        out.append(Piece(_frac(lo), _frac(hi), phi_expr))
    return out


def _frac(b: Bound) -> Fraction | None:
    if b is None:
        return None
    return Fraction(int(b.p), int(b.q))
