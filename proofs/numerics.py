"""High-precision evaluation of the seed's own expressions (mpmath).

The seed's integrals are evaluated here *as the seed writes them* (density
times CDF or survival function, integrated by tanh-sinh quadrature with the
kinks as breakpoints: STYLE, "give the integrator the kinks"; `proofs.quadrature`,
whose ``decay`` puts the infinite ends on an exponential map), independently of the
library's closed forms in `verify.probabilities`, so that comparing the two
checks the seed's step.  A quadrature error is an estimate, never a bound: the
equality checks ask for agreement to ``digits - 8`` significant digits at a
working precision of ``digits`` and report the largest discrepancy seen.

Noise of both mechanisms has scale b = 3Δ/ε (seed, Algorithm A, lines 1 and 3
of Mechanism One and of Mechanism Two); Lap(b) has density
p_b(x) = exp(-|x|/b)/(2b) (seed, Definition of Lap(b)), Exp(b) density
exp(-x/b)/b on x >= 0 (the parametrisation whose survival function the seed's
Mechanism Two proof writes as exp(-(ε/3Δ) max{0, y})).
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
from mpmath.libmp import from_int, mpf_abs, mpf_div, mpf_exp, mpf_mul_int, mpf_neg, mpf_sign, mpf_sub

from proofs.claim import CONFIRM_DIGITS, Counterexample
from proofs.quadrature import exp_tail, interval_quad, mpf, pieces_quad, quad, rule_nodes  # noqa: F401  (the claims' quadrature, imported from here)
from verify.noise import family_type

#: Working precision of the numerical checks of equalities.
DIGITS = 40
#: Precisions at which a counterexample is evaluated twice.
CONFIRM_PRECISIONS = (45, 70)
NINF = None  # M(D, x) for i = 1: the maximum over the empty set


def fstr(x: Any) -> str:
    """Exact text of a parameter value."""
    if x is None:
        return "-inf"
    if isinstance(x, Fraction):
        return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"
    return str(x)


def nstr(x: mpmath.mpf, digits: int = 20) -> str:
    if x == 0:
        return "0"
    if mpmath.isinf(x):
        return "inf" if x > 0 else "-inf"
    return mpmath.nstr(x, digits, strip_zeros=False)


# --- the noise of the seed -------------------------------------------------------------------------
def scale(eps: Any, delta: Any) -> mpmath.mpf:
    """b = 3Δ/ε."""
    return 3 * mpf(delta) / mpf(eps)


#: (function, family, x, b, prec) -> value: densities and CDFs already evaluated at a node (a form and its
#: neighbours integrate over the same nodes: about a third of the densities and two thirds of the CDFs
#: of the claims repeat).  A value is a function of exactly these, so a remembered one is bit for bit the same.
_VALUES: dict[tuple, mpmath.mpf] = {}
_VALUES_MAX = 1 << 17
#: family -> whether its noise is two-sided (Laplace) or one-sided (Exp): looked up once per family.
_TWO_SIDED: dict[str, bool] = {}
_FZERO = mpmath.mpf(0)._mpf_
_ONE, _TWO = from_int(1), from_int(2)


def _two_sided(family: str) -> bool:
    two = _TWO_SIDED.get(family)
    if two is None:
        two = _TWO_SIDED[family] = family_type(family).two_sided
    return two


def _remembered(which: str, family: str, x: Any, b: Any, compute: Callable[[], mpmath.mpf]) -> mpmath.mpf:
    if type(x) is not mpmath.mpf or type(b) is not mpmath.mpf:
        return compute()
    key = (which, family, x._mpf_, b._mpf_, mpmath.mp.prec)
    v = _VALUES.get(key)
    if v is None:
        if len(_VALUES) >= _VALUES_MAX:
            _VALUES.clear()
        v = _VALUES[key] = compute()
    return v


def _stored(key: tuple, value: tuple) -> mpmath.mpf:
    if len(_VALUES) >= _VALUES_MAX:
        _VALUES.clear()
    v = _VALUES[key] = mpmath.mp.make_mpf(value)
    return v


def pdf(family: str, x: mpmath.mpf, b: mpmath.mpf) -> mpmath.mpf:
    """Density of Lap(b) (seed: p_b(x) = exp(-|x|/b)/(2b)) or Exp(b).

    For mpf arguments `_pdf`'s very operations on mpmath's raw values (``mpmath.libmp``, the same
    rounding at the current precision: the same value bit for bit, tests/test_seed_densities.py) without
    its number objects in between: the claims' quadratures evaluate half a million densities."""
    if type(x) is not mpmath.mpf or type(b) is not mpmath.mpf:
        return _pdf(family, x, b)
    prec, rnd = mpmath.mp._prec_rounding
    bm = b._mpf_
    if _two_sided(family):  # Lap(b), a function of |x|: the nodes of -x share it
        ax = mpf_abs(x._mpf_, prec, rnd)
        key = ("pdf", family, ax, bm, prec)
        v = _VALUES.get(key)
        if v is not None:
            return v
        e = mpf_exp(mpf_div(mpf_neg(ax, prec, rnd), bm, prec, rnd), prec, rnd)  # exp(-|x|/b)
        return _stored(key, mpf_div(e, mpf_mul_int(bm, 2, prec, rnd), prec, rnd))  # / (2b)
    xm = x._mpf_
    key = ("pdf", family, xm, bm, prec)
    v = _VALUES.get(key)
    if v is not None:
        return v
    if mpf_sign(xm) < 0:  # Exp(b): 0 below 0
        return _stored(key, _FZERO)
    e = mpf_exp(mpf_div(mpf_neg(xm, prec, rnd), bm, prec, rnd), prec, rnd)  # exp(-x/b)
    return _stored(key, mpf_div(e, bm, prec, rnd))  # / b


def _pdf(family: str, x: mpmath.mpf, b: mpmath.mpf) -> mpmath.mpf:
    if family_type(family).two_sided:  # Lap(b); else Exp(b)
        return mpmath.exp(-abs(x) / b) / (2 * b)
    return mpmath.exp(-x / b) / b if x >= 0 else mpmath.mpf(0)


def cdf(family: str, y: mpmath.mpf, b: mpmath.mpf) -> mpmath.mpf:
    """F(y) = Pr[X <= y] (seed, Proof 1: "F be its cumulative function"); for Lap(b) and mpf arguments
    `_cdf`'s very operations on mpmath's raw values, as in `pdf`."""
    if type(y) is not mpmath.mpf or type(b) is not mpmath.mpf or not _two_sided(family):
        return _remembered("cdf", family, y, b, lambda: _cdf(family, y, b))
    prec, rnd = mpmath.mp._prec_rounding
    ym, bm = y._mpf_, b._mpf_
    key = ("cdf", family, ym, bm, prec)
    v = _VALUES.get(key)
    if v is not None:
        return v
    if mpf_sign(ym) < 0:  # exp(y/b)/2
        return _stored(key, mpf_div(mpf_exp(mpf_div(ym, bm, prec, rnd), prec, rnd), _TWO, prec, rnd))
    e = mpf_exp(mpf_div(mpf_neg(ym, prec, rnd), bm, prec, rnd), prec, rnd)  # 1 - exp(-y/b)/2
    return _stored(key, mpf_sub(_ONE, mpf_div(e, _TWO, prec, rnd), prec, rnd))


def _cdf(family: str, y: mpmath.mpf, b: mpmath.mpf) -> mpmath.mpf:
    if family_type(family).two_sided:  # Lap(b); else Exp(b)
        return mpmath.exp(y / b) / 2 if y < 0 else 1 - mpmath.exp(-y / b) / 2
    return -mpmath.expm1(-y / b) if y > 0 else mpmath.mpf(0)


def survival(family: str, y: mpmath.mpf, b: mpmath.mpf) -> mpmath.mpf:
    """Pr[X >= y]; for Exp(b) the seed's exp(-(ε/3Δ)·max{0, y})."""
    if family_type(family).two_sided:  # Lap(b); else Exp(b)
        return 1 - mpmath.exp(y / b) / 2 if y < 0 else mpmath.exp(-y / b) / 2
    return mpmath.exp(-max(mpmath.mpf(0), y) / b)


# --- parameter points ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class Point:
    """One parameter point of a conditional-probability claim (exact values).

    eps, delta: ε, Δ; t: the threshold; M, Mp: M(D, x) and M(D', x) (None for
    i = 1, the maximum over the empty set); q, qp: q_i(D) and q_i(D').
    """

    eps: Fraction
    delta: Fraction
    t: Fraction
    M: Fraction | None
    q: Fraction
    Mp: Fraction | None
    qp: Fraction

    def as_params(self) -> tuple[tuple[str, str], ...]:
        return tuple((k, fstr(getattr(self, k))) for k in ("eps", "delta", "t", "M", "q", "Mp", "qp"))

    @property
    def kappa(self) -> Fraction:
        """κ = M(D, x) - M(D', x) (0 for i = 1)."""
        if self.M is None:
            return Fraction(0)
        return self.M - self.Mp


def point_from_params(params: dict[str, Any]) -> Point:
    """A `Point` from user parameters (missing ones default to ε = Δ = 1, t = 0, D' = D)."""
    from verify.validate import to_number

    def get(name: str, default: Any) -> Any:
        v = params.get(name, default)
        if v is None or (isinstance(v, str) and v.strip().lower() in ("-inf", "none")):
            return None
        return to_number(v, name)

    eps = get("eps", 1)
    delta = get("delta", 1)
    if eps is None or eps <= 0 or delta is None or delta <= 0:
        raise ValueError(f"eps, delta: {params.get('eps')}, {params.get('delta')} must both be > 0")
    t = get("t", 0)
    M = get("M", None)
    q = get("q", 0)
    Mp = get("Mp", M)
    qp = get("qp", q)
    if (M is None) != (Mp is None):
        raise ValueError("M, Mp: either both are -inf (i = 1) or both finite")
    if t is None or q is None or qp is None:
        raise ValueError("t, q, qp must be finite numbers")
    return Point(eps, delta, t, M, q, Mp, qp)


def conditional_points(seed: int, n_random: int, neighbours: bool = True) -> list[Point]:
    """A structured grid plus seeded random points for the conditional-probability claims.

    Structured (17 points): ε ∈ {1, 1/2, 3}, Δ ∈ {1, 2/3}, t ∈ {0, 1/2, -1};
    (M - t)/Δ ∈ {-∞ (i = 1), -2, 0, 1/3, 3} and (q - t)/Δ ∈ {-1, 0, 1/2, 4, 1/3}
    in a Latin-square design (every value of each, 15 points), plus two ties
    (M = q_i = t + Δ/2; M = q_i = t); neighbours at the extreme shifts ±Δ.  Random: ε ∈ [0.05, 5], Δ ∈ [0.1, 3], t ∈ [-2, 2], gaps
    in [-8Δ, 8Δ], shifts uniform in [-Δ, Δ] (rational, from `random.Random(seed)`).
    """
    pts: list[Point] = []
    gaps = [None, Fraction(-2), Fraction(0), Fraction(1, 3), Fraction(3)]
    qgaps = [Fraction(-1), Fraction(0), Fraction(1, 2), Fraction(4), Fraction(1, 3)]
    combos = [(Fraction(1), Fraction(1), Fraction(0)), (Fraction(1, 2), Fraction(2, 3), Fraction(1, 2)), (Fraction(3), Fraction(1), Fraction(-1))]
    for ci, (eps, delta, t) in enumerate(combos):
        for gi, g in enumerate(gaps):
            for hi, h in enumerate(qgaps):
                if (hi - gi - 2 * ci) % len(qgaps) != 0:  # a Latin-square design: every gap and every query gap, few points
                    continue
                M = None if g is None else t + g * delta
                q = t + h * delta
                if neighbours:
                    s1 = delta if (gi + ci) % 3 else -delta
                    s2 = -delta if (hi + ci) % 2 else delta
                    Mp = None if M is None else M - s1
                    qp = q - s2
                else:
                    Mp, qp = M, q
                pts.append(Point(eps, delta, t, M, q, Mp, qp))
    # ties at the kinks: M = q_i (both gaps equal), and everything at the threshold
    one, half = Fraction(1), Fraction(1, 2)
    pts.append(Point(one, one, Fraction(0), half, half, -half if neighbours else half, 3 * half if neighbours else half))
    pts.append(Point(one, one, Fraction(0), Fraction(0), Fraction(0), one if neighbours else Fraction(0), -one if neighbours else Fraction(0)))
    rnd = random.Random(seed)

    def r(lo: float, hi: float, den: int = 997) -> Fraction:
        return Fraction(round(rnd.uniform(lo, hi) * den), den)

    for _ in range(n_random):
        eps = max(r(0.05, 5), Fraction(1, 20))
        delta = max(r(0.1, 3), Fraction(1, 10))
        t = r(-2, 2)
        M = None if rnd.random() < 0.15 else t + r(-8, 8) * delta
        q = t + r(-8, 8) * delta
        if neighbours:
            Mp = None if M is None else M - r(-1, 1) * delta
            qp = q - r(-1, 1) * delta
        else:
            Mp, qp = M, q
        pts.append(Point(eps, delta, t, M, q, Mp, qp))
    return pts


# --- equality and counterexample helpers ------------------------------------------------------------
@dataclass
class EqualityReport:
    points: int
    max_discrepancy: mpmath.mpf
    worst: Point | None
    failures: list[tuple[Any, mpmath.mpf, mpmath.mpf]]


def compare_values(points: Sequence[Any], lhs: Callable[[Any], mpmath.mpf], rhs: Callable[[Any], mpmath.mpf], digits: int = DIGITS) -> EqualityReport:
    """Evaluate both sides at every point at ``digits`` digits; a point fails when the
    relative discrepancy exceeds 10^-(digits-8) (quadrature error is an estimate)."""
    worst = mpmath.mpf(0)
    worst_pt = None
    failures = []
    with mpmath.workdps(digits):
        tol = mpmath.mpf(10) ** (-(digits - 8))
        for pt in points:
            a, b = lhs(pt), rhs(pt)
            scale_ = max(abs(a), abs(b))
            disc = abs(a - b) / scale_ if scale_ > 0 else mpmath.mpf(0)
            if disc > worst:
                worst, worst_pt = disc, pt
            if disc > tol:
                failures.append((pt, a, b))
    return EqualityReport(len(points), worst, worst_pt, failures)


def confirm(
    evaluate: Callable[[Any], tuple[mpmath.mpf, mpmath.mpf]],
    point: Any,
    params: tuple[tuple[str, str], ...],
    relation: str,
    violated: Callable[[mpmath.mpf, mpmath.mpf], bool],
    detail: str = "",
) -> Counterexample:
    """Evaluate a candidate counterexample at two working precisions.

    It is confirmed when the two evaluations of each side agree to at least
    `CONFIRM_DIGITS` significant digits and the relation is violated at both.
    """
    vals = []
    for dps in CONFIRM_PRECISIONS:
        with mpmath.workdps(dps):
            vals.append(evaluate(point))
    (a1, b1), (a2, b2) = vals
    with mpmath.workdps(CONFIRM_PRECISIONS[1]):
        def agree(x: mpmath.mpf, y: mpmath.mpf) -> bool:
            if x == y:
                return True
            if mpmath.isinf(x) or mpmath.isinf(y):
                return x == y
            return abs(x - y) <= abs(y) * mpmath.mpf(10) ** (-CONFIRM_DIGITS - 1)

        ok = agree(a1, a2) and agree(b1, b2) and violated(a1, b1) and violated(a2, b2)
        return Counterexample(
            params=params,
            lhs=nstr(a2, CONFIRM_DIGITS + 5),
            rhs=nstr(b2, CONFIRM_DIGITS + 5),
            relation=relation,
            digits=CONFIRM_DIGITS,
            confirmed=bool(ok),
            detail=detail,
        )


def log10_str(x: mpmath.mpf) -> str:
    if x == 0:
        return "0"
    return f"1e{int(math.floor(float(mpmath.log10(x))))}"

