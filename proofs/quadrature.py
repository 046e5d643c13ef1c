"""The claims' quadrature: tanh-sinh as mpmath 1.3's ``quad`` computes it, with work reused, and the
exponential map of the infinite ends (`quad`'s ``decay``).

`quad` without ``decay`` is ``mpmath.quad`` over the same breakpoints, bit for bit
(tests/test_quadrature_reuse.py); with ``decay`` = b the infinite ends are integrated on
z = c ∓ b·ln u, u in (0, 1) (`exp_tail`), where the claims' integrands (densities of scale b times
constants plus exponentials in z/b) become polynomials in u and tanh-sinh stops at a low degree
(tests/test_quadrature_tails.py).  A quadrature error is an estimate, never a bound.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Sequence
from fractions import Fraction
from typing import Any

import mpmath
from mpmath.calculus.quadrature import GaussLegendre, TanhSinh
from mpmath.libmp import mpf_add, mpf_div, mpf_mul, mpf_sub

_TWO = mpmath.mpf(2)._mpf_


def mpf(x: Any) -> mpmath.mpf:
    """An mpf from a Fraction/int/str/mpf at the current precision (exact input rounded once)."""
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    if isinstance(x, str):
        return mpf(Fraction(x))
    return mpmath.mpf(x)


def quad(
    f: Callable[[mpmath.mpf], mpmath.mpf],
    lo: mpmath.mpf | None,
    hi: mpmath.mpf | None,
    kinks: Iterable[Any] = (),
    key: Hashable | None = None,
    decay: Any = None,
) -> mpmath.mpf:
    """∫_lo^hi f with every kink strictly inside (lo, hi) as a breakpoint (None = ∓∞).

    ``key``: a hashable name of the integrand (equal keys only for the same function of x, e.g.
    ``("pdf", family, b)``); with it, the sum of each interval between breakpoints is remembered
    (`interval_quad`), so that an interval met again (the ∫_0^∞ half of an inner integral, the same
    for every outer node) is not summed twice.  Without ``decay`` the result is that of
    ``mpmath.quad(f, pts)``, bit for bit.

    ``decay``: the length b over which f decays by a factor e beyond its outermost kinks (the noise
    scale: every integrand of the claims is a density exp(-|z|/b)/(2b) or exp(-z/b)/b times factors
    that are constants plus exponentials in z/b there).  The infinite ends are then integrated on the
    exponential map of `exp_tail` instead of mpmath's algebraic map of a half line (made for algebraic
    decay), and every piece (f is analytic between kinks) first by Gauss-Legendre (`gauss_sum`: 3, 6,
    12, ... nodes until two consecutive degrees agree within ε), by tanh-sinh where they do not: the
    same integrand, evaluated at other nodes."""
    a = mpmath.ninf if lo is None else mpf(lo)
    c = mpmath.inf if hi is None else mpf(hi)
    inner = sorted({mpf(k) for k in kinks if k is not None and a < mpf(k) < c})
    pts = [a, *inner, c]
    if decay is None:
        return interval_quad(f, pts, key)
    return pieces_quad(exp_tail_pieces(f, pts, mpf(decay), key), gauss=True)


Piece = tuple[Callable[[mpmath.mpf], mpmath.mpf], mpmath.mpf, mpmath.mpf, Hashable]


def exp_tail(f: Callable[[mpmath.mpf], mpmath.mpf], c: mpmath.mpf, b: mpmath.mpf, right: bool) -> Callable[[mpmath.mpf], mpmath.mpf]:
    """The integrand on (0, 1) of ∫_c^∞ f (``right``) or ∫_{-∞}^c f after z = c ∓ b·ln u, dz = ∓ b du/u:
    g(u) = f(c - b ln u)·b/u (or f(c + b ln u)·b/u), so that ∫_c^∞ f(z) dz = ∫_0^1 g(u) du.

    Beyond the outermost kink the claims' integrands are sums of A·exp(-n|z|/b), n = 1, 2, ..., on which
    g is the polynomial Σ A'·u^(n-1): tanh-sinh on [0, 1] converges at its first degrees, where on
    mpmath's map of [c, ∞) it needs 535 nodes at 40 digits (tests/test_quadrature_tails.py).  An
    integrand of another form is still integrated correctly, only not as fast (u^(αb-1), integrable for
    any decay rate α > 0, is the endpoint behaviour tanh-sinh is made for)."""
    sign = -1 if right else 1

    def g(u: mpmath.mpf) -> mpmath.mpf:
        return f(c + sign * b * mpmath.ln(u)) * b / u

    return g


def exp_tail_pieces(f: Callable[[mpmath.mpf], mpmath.mpf], pts: Sequence[mpmath.mpf], b: mpmath.mpf, key: Hashable | None) -> list[Piece]:
    """The pieces of ∫ f over the breakpoints ``pts``: the finite intervals as they are, each infinite end
    on (0, 1) by `exp_tail` (0 is the anchor when no breakpoint is finite)."""
    pts = list(pts)
    if len(pts) == 2 and mpmath.isinf(pts[0]) and mpmath.isinf(pts[1]):
        pts.insert(1, mpmath.mpf(0))
    zero, one = mpmath.mpf(0), mpmath.mpf(1)
    pieces: list[Piece] = []
    if pts[0] == mpmath.ninf:
        pts.pop(0)
        pieces.append((exp_tail(f, pts[0], b, False), zero, one, None if key is None else ("exp tail", key, "left", pts[0], b)))
    right = None
    if pts[-1] == mpmath.inf:
        pts.pop()
        right = (exp_tail(f, pts[-1], b, True), zero, one, None if key is None else ("exp tail", key, "right", pts[-1], b))
    pieces += [(f, lo, hi, key) for lo, hi in zip(pts[:-1], pts[1:])]
    if right is not None:
        pieces.append(right)
    return pieces


#: The tanh-sinh rule of `interval_quad` (its own cache of nodes, computed as mpmath.quad's own rule computes them).
_RULE = TanhSinh(mpmath.mp)
#: (key, a, b, prec, epsilon, max degree) -> (sum over [a, b], its error estimate), at prec + 20 bits.
_INTERVALS: dict[tuple, tuple[mpmath.mpf, mpmath.mpf]] = {}
_INTERVALS_MAX = 1 << 16


def interval_quad(f: Callable[[mpmath.mpf], mpmath.mpf], pts: Sequence[mpmath.mpf], key: Hashable) -> mpmath.mpf:
    """``mpmath.quad(f, pts)`` (tanh-sinh, one dimension) with each interval's sum remembered under ``key``.

    The same steps as mpmath 1.3's ``quad`` and ``QuadratureRule.summation``: working precision
    prec + 20 bits, ε = eps/8 at prec, degrees 1 .. guess_degree(prec) until the error estimate is
    below ε, the intervals' sums added in order and rounded once to prec; an interval's sum is a
    function of (f, a, b, prec) only, so a remembered one is the value mpmath would compute again."""
    return pieces_quad([(f, a, b, key) for a, b in zip(pts[:-1], pts[1:])])


def pieces_quad(pieces: Sequence[Piece], gauss: bool = False) -> mpmath.mpf:
    """Σ ∫_a^b f over the pieces (f, a, b, key), each summed as `interval_quad` sums an interval
    (remembered under its key unless None), added at prec + 20 bits and rounded once to prec.

    ``gauss``: each finite piece first by `gauss_sum`, by tanh-sinh only when its estimate stays above ε."""
    ctx = mpmath.mp
    prec = ctx.prec
    epsilon = ctx.eps / 8
    m = _RULE.guess_degree(prec)
    if len(_INTERVALS) > _INTERVALS_MAX:
        _INTERVALS.clear()
    try:
        ctx.prec += 20
        total = ctx.zero
        for f, a, b, key in pieces:
            if a == b:
                continue
            k = (key, a, b, prec, epsilon, m, gauss)
            hit = None if key is None else _INTERVALS.get(k)
            if hit is None and gauss and not (ctx.isinf(a) or ctx.isinf(b)):
                hit = gauss_sum(f, a, b, prec, epsilon)
            if hit is None:
                hit = _interval_sum(f, a, b, prec, epsilon, m)
                if key is not None:
                    _INTERVALS[k] = hit
            total += hit[0]
    finally:
        ctx.prec = prec
    return +total


#: Gauss-Legendre as mpmath 1.3 computes its nodes (degree k: 3·2^(k-1) nodes on [-1, 1]); `gauss_sum` goes up to degree 6.
_GAUSS = GaussLegendre(mpmath.mp)
GAUSS_DEGREES = 6


def gauss_sum(f: Callable[[mpmath.mpf], mpmath.mpf], a: mpmath.mpf, b: mpmath.mpf, prec: int,
              epsilon: mpmath.mpf) -> tuple[mpmath.mpf, mpmath.mpf] | None:
    """∫_a^b f (a < b finite) by Gauss-Legendre with 3, 6, 12, ... 96 nodes, until two consecutive degrees
    agree within ε: (the sum of the higher one, |difference|, its error estimate), else None (then the
    caller sums by tanh-sinh).  For f analytic on [a, b] the error of n nodes falls faster than any power
    of 1/n, so the estimate, like tanh-sinh's, is one of the rule's own convergence; on the exponential
    map of the claims' tails f is a polynomial of low degree, integrated exactly by 3 nodes."""
    ctx = mpmath.mp
    C, D = (b - a) / 2, (b + a) / 2  # at prec + 20 bits, as mpmath maps [-1, 1] to [a, b]
    previous = None
    for degree in range(1, GAUSS_DEGREES + 1):
        nodes = _GAUSS.standard_cache.get((degree, prec))
        if nodes is None:
            nodes = _GAUSS.get_nodes(-ctx.one, ctx.one, degree, prec)  # computes and keeps the standard nodes
        s = C * ctx.fdot((w, f(D + C * x)) for x, w in nodes)
        if previous is not None:
            err = abs(s - previous)
            if err <= epsilon:
                return s, err
        previous = s
    return None


def _interval_sum(f: Callable[[mpmath.mpf], mpmath.mpf], a: mpmath.mpf, b: mpmath.mpf, prec: int, epsilon: mpmath.mpf,
                  m: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    """One interval of ``QuadratureRule.summation`` (mpmath 1.3): degrees 1..m until the error estimate is <= ε."""
    ctx = mpmath.mp
    if (a, b) == (ctx.ninf, ctx.inf):
        g = f

        def f(x: mpmath.mpf) -> mpmath.mpf:
            return g(-x) + g(x)

        a, b = ctx.zero, ctx.inf
    results: list[mpmath.mpf] = []
    err = ctx.zero
    for degree in range(1, m + 1):
        nodes = rule_nodes(a, b, degree, prec)
        results.append(_RULE.sum_next(f, nodes, degree, prec, results))
        if degree > 1:
            err = _RULE.estimate_error(results, prec, epsilon)
            if err <= epsilon:
                break
    return results[-1], err


#: (degree, prec) -> [(u_k, w_k·u_k²/2)] with u_k = 2/(x_k + 1): the part of the nodes on [a, ∞) that does not depend on a.
_HALF_LINE: dict[tuple[int, int], list[tuple[tuple, mpmath.mpf]]] = {}


def rule_nodes(a: mpmath.mpf, b: mpmath.mpf, degree: int, prec: int) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
    """The rule's nodes on [a, b], as ``TanhSinh.get_nodes`` gives them (mpmath 1.3's ``transform_nodes``).

    On [a, ∞) mpmath maps a standard node x to a - 1 + u, u = 2/(x + 1), with weight w·(u²/2): only the
    last addition depends on a, so u and the weight are computed once per (degree, prec) and reused for
    every a (the same operations at the same precision, prec + 20 bits: the same nodes, bit for bit)."""
    ctx = mpmath.mp
    if ctx.isinf(a) or (ctx.isinf(b) and b != ctx.inf):
        return _RULE.get_nodes(a, b, degree, prec)
    if b != ctx.inf:
        return _finite_nodes(a, b, degree, prec)
    orig = ctx.prec
    try:
        ctx.prec = prec + 20
        base = _HALF_LINE.get((degree, prec))
        if base is None:
            one, half = ctx.one, ctx.mpf(0.5)
            base = []
            for x, w in _RULE.get_nodes(-one, one, degree, prec):
                u = 2 / (x + one)
                base.append((u._mpf_, w * (half * u**2)))
            _HALF_LINE[degree, prec] = base
        a1 = (ctx.convert(a) - 1)._mpf_
        p, rnd = prec + 20, ctx._prec_rounding[1]
        make = ctx.make_mpf
        return [(make(mpf_add(a1, u, p, rnd)), w) for u, w in base]  # a1 + u at prec + 20
    finally:
        ctx.prec = orig


def _finite_nodes(a: mpmath.mpf, b: mpmath.mpf, degree: int, prec: int) -> list[tuple[mpmath.mpf, mpmath.mpf]]:
    """``TanhSinh.get_nodes(a, b, degree, prec)`` for finite a, b: mpmath 1.3's linear map x -> D + C·x,
    w -> C·w with C = (b - a)/2, D = (b + a)/2, all at prec + 20 bits, done on mpmath's raw values (the
    same operations and roundings: the same nodes, bit for bit, tests/test_seed_densities.py)."""
    ctx = mpmath.mp
    key = (a, b, degree, prec)
    hit = _RULE.transformed_cache.get(key)
    if hit is not None:
        return hit
    orig = ctx.prec
    try:
        ctx.prec = prec + 20
        a, b = ctx.convert(a), ctx.convert(b)
        if (a, b) == (-ctx.one, ctx.one):
            return _RULE.get_nodes(a, b, degree, prec)
        nodes = _RULE.standard_cache.get((degree, prec))
        if nodes is None:
            return _RULE.get_nodes(a, b, degree, prec)  # computes the standard nodes once
        p, rnd = ctx._prec_rounding
        C = mpf_div(mpf_sub(b._mpf_, a._mpf_, p, rnd), _TWO, p, rnd)
        D = mpf_div(mpf_add(b._mpf_, a._mpf_, p, rnd), _TWO, p, rnd)
        make = ctx.make_mpf
        return [(make(mpf_add(D, mpf_mul(C, x._mpf_, p, rnd), p, rnd)), make(mpf_mul(C, w._mpf_, p, rnd))) for x, w in nodes]
    finally:
        ctx.prec = orig
