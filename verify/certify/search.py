"""Branch and bound for ``sup f <= bound`` of a piecewise closed form on the real line.

``f`` is given as closed pieces [lo, hi] (ends may be ±∞) with a sympy
expression in one symbol on each; on a piece boundary the piece's formula is
its limit, so certifying every closed piece certifies f everywhere.

Each box [lo, hi] is settled by the first test that succeeds:

1. ``constant``: the piece's formula does not depend on x; compared exactly
   (sympy rationals) or by interval evaluation.
2. ``value``: an interval enclosure of f over the box (`interval.evaluate`) lies
   below the bound.
3. ``monotone``: an enclosure of f' has a sign, so the supremum over the box is
   at one end; f is evaluated there (a point, or the limit at ±∞), first in
   interval arithmetic, then, if that touches the bound, exactly with sympy.
   This is how a bound that is *attained* (a tangency: f rises to the bound at
   a piece boundary and stays there) is certified with margin exactly 0.
4. otherwise the box is split (bisection; an infinite box [-∞, a] is split at
   a - max(1, |a|), so boxes grow geometrically towards infinity) until a
   width or count limit, after which it is reported undecided.

On an infinite box the formula is first rewritten by dividing numerator and
denominator by their dominant term in that direction (an exponential
polynomial ``Σ c x^j e^{γx}`` is dominated by the extreme γ, then the
highest j), so that the enclosure stays finite: this is an exact rewriting,
not a truncation.  A point where an interval evaluation of f is certainly
above the bound is returned as a witness (the caller confirms refutations at
high precision).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import sympy

from verify.certify.interval import INF, EvaluationError, Interval, endpoint_lt, evaluate, to_fraction
from verify.verdicts import CertificateVerdict

#: Boxes narrower than this are not split further (reported undecided).
MIN_WIDTH = Fraction(1, 2**40)
MAX_BOXES = 20000


@dataclass(frozen=True)
class Piece:
    """f = expr on the closed interval [lo, hi]; None is -∞ (lo) or +∞ (hi)."""

    lo: Fraction | None
    hi: Fraction | None
    expr: sympy.Expr

    def __post_init__(self) -> None:
        if self.lo is not None and self.hi is not None and self.lo > self.hi:
            raise ValueError(f"piece: lo {self.lo} > hi {self.hi}")


@dataclass(frozen=True)
class Box:
    """A settled box: f <= upper on [lo, hi] by the named test."""

    lo: Fraction | None
    hi: Fraction | None
    upper: Fraction
    test: str

    def contains(self, x: Fraction) -> bool:
        return (self.lo is None or self.lo <= x) and (self.hi is None or x <= self.hi)


@dataclass(frozen=True)
class SupResult:
    """Outcome of `certify_sup`: certified / refuted / undecided."""

    verdict: str
    bound: Fraction
    boxes: tuple[Box, ...]
    undecided: tuple[tuple[Fraction | None, Fraction | None], ...] = ()
    witness: Fraction | None = None
    witness_lower: Fraction | None = None
    attained: bool = False

    @property
    def min_margin(self) -> Fraction | None:
        """bound - (largest certified upper bound); exact rational, a lower bound of the true gap."""
        if self.verdict != CertificateVerdict.CERTIFIED or not self.boxes:
            return None
        return self.bound - max(b.upper for b in self.boxes)

    @property
    def count(self) -> int:
        return len(self.boxes) + len(self.undecided)


@dataclass
class _Forms:
    x: sympy.Symbol
    finite: sympy.Expr
    derivative: sympy.Expr
    at: dict = field(default_factory=dict)  # direction (+1/-1) -> (f form, f' form)
    limits: dict = field(default_factory=dict)  # direction -> sympy limit of f (memo)
    points: dict = field(default_factory=dict)  # rational point -> exact sympy value of f (memo)

    def pick(self, lo: Fraction | None, hi: Fraction | None) -> list[tuple[sympy.Expr, sympy.Expr]]:
        forms = []
        if lo is None and -1 in self.at:
            forms.append(self.at[-1])
        if hi is None and 1 in self.at:
            forms.append(self.at[1])
        if lo is not None and hi is not None or not forms:
            forms.append((self.finite, self.derivative))
        return forms


def _exp_poly_terms(expr: sympy.Expr, x: sympy.Symbol) -> list[tuple[sympy.Expr, int, sympy.Rational]] | None:
    """expr = Σ c·x^j·e^{γx} (c free of x, j >= 0 integer, γ rational) -> [(c, j, γ)], else None."""
    out = []
    for term in sympy.Add.make_args(sympy.expand(sympy.powsimp(sympy.expand(expr), combine="exp"))):
        coeff, dep = term.as_independent(x, as_Add=False)
        j, gamma = 0, sympy.Integer(0)
        for f in sympy.Mul.make_args(dep):
            if f == 1:
                continue
            if f == x:
                j += 1
            elif f.is_Pow and f.base == x and f.exp.is_Integer and f.exp > 0:
                j += int(f.exp)
            elif isinstance(f, sympy.exp):
                g = sympy.expand(f.args[0])
                c = g.coeff(x)
                if sympy.simplify(g - c * x) != 0 or not c.is_Rational:
                    return None
                gamma += c
            elif f.is_Pow and f.base == sympy.E:
                return None
            else:
                return None
        out.append((coeff, j, gamma))
    return out


def normalize_at_infinity(expr: sympy.Expr, x: sympy.Symbol, direction: int) -> sympy.Expr:
    """An equal expression whose terms stay bounded as x -> direction·∞ (when possible)."""
    num, den = sympy.fraction(sympy.together(expr))
    tn, td = _exp_poly_terms(num, x), _exp_poly_terms(den, x)
    if tn is None or td is None or not td:
        return expr
    # dominant term of the denominator in this direction
    gamma = max((direction * g for _, _, g in td))
    gamma = direction * gamma
    j = max(jj for _, jj, g in td if g == gamma)
    scale = x**j * sympy.exp(gamma * x)

    def rebuild(terms):
        return sympy.Add(*[c * x ** (jj - j) * sympy.exp((g - gamma) * x) for c, jj, g in terms])

    return rebuild(tn) / rebuild(td) if scale != 1 else expr


def _prepare(expr: sympy.Expr, x: sympy.Symbol, lo: Fraction | None, hi: Fraction | None) -> _Forms:
    f = sympy.simplify(expr)
    df = sympy.simplify(sympy.diff(f, x))
    forms = _Forms(x, f, df)
    for direction, open_end in ((-1, lo is None), (1, hi is None)):
        if open_end:
            forms.at[direction] = (normalize_at_infinity(f, x, direction), normalize_at_infinity(df, x, direction))
    return forms


def _enclose(forms: list[sympy.Expr], x: sympy.Symbol, box: Interval) -> Interval:
    """Intersection of the enclosures of several equal formulas."""
    best: Interval | None = None
    for form in forms:
        try:
            v = evaluate(form, {x: box})
        except (EvaluationError, ZeroDivisionError):
            continue
        if best is None:
            best = v
        else:
            lo = v.lo if _gt(v.lo, best.lo) else best.lo
            hi = v.hi if _gt(best.hi, v.hi) else best.hi
            best = Interval(lo, hi)
    return best if best is not None else Interval.everything()


def _gt(a, b) -> bool:
    return endpoint_lt(b, a)


def _upper_fraction(v: Interval) -> Fraction | None:
    if isinstance(v.hi, float):
        return None if v.hi == INF else Fraction(-10**300)
    return to_fraction(v.hi)


def _end_value(forms: _Forms, end: Fraction | None, direction: int, bound: Fraction) -> Fraction | None:
    """A certified upper bound of f at one end of a box (limit at ±∞); exact when possible."""
    if end is None:
        pair = forms.at.get(direction)
        if pair is None:
            return None
        v = _enclose([pair[0]], forms.x, Interval(INF * direction, INF * direction))
        up = _upper_fraction(v)
        if up is not None and up <= bound:
            return up
        if direction not in forms.limits:
            try:
                forms.limits[direction] = sympy.limit(forms.finite, forms.x, sympy.oo * direction)
            except Exception:  # pragma: no cover - sympy failure means "cannot decide"
                forms.limits[direction] = None
        lim = forms.limits[direction]
        return Fraction(int(lim.p), int(lim.q)) if lim is not None and lim.is_Rational else up
    v = _enclose([f for f, _ in forms.pick(end, end)], forms.x, Interval.of(end, end))
    up = _upper_fraction(v)
    if up is not None and up <= bound:
        return up
    if end not in forms.points:
        forms.points[end] = exact_value(forms.finite.subs(forms.x, sympy.Rational(end.numerator, end.denominator)))
    exact = forms.points[end]
    if exact.is_Rational:
        return Fraction(int(exact.p), int(exact.q))
    return up


#: The largest degree of R(t) that `exact_value` reduces itself (a larger one goes to sympy.simplify).
MAX_EXACT_DEGREE = 64


def exact_value(value: sympy.Expr) -> sympy.Expr:
    """A constant sympy expression, exactly: a Rational if its value is rational, else a non-Rational expression.

    When ``value`` is a rational function, with rational coefficients, of exponentials of rationals q_i (e
    included: q = 1), it is R(t) with t = e^g, g = gcd of the q_i (each q_i/g an integer).  t is transcendental
    (Hermite–Lindemann: e^a is transcendental for algebraic a != 0), so R(t) is rational if and only if R in
    lowest terms (sympy.cancel) is a constant: a non-constant P/Q equal to a rational c would make t a root of
    the non-zero polynomial P - cQ.  That decides it without sympy.simplify (about 0.1 s a call); any other form
    (a float, a root, a logarithm, π, a degree above `MAX_EXACT_DEGREE`) goes to sympy.simplify as before.
    """
    if value.is_Rational or value.free_symbols or value.has(sympy.Float):
        return value if value.is_Rational else sympy.simplify(value)
    exps = value.atoms(sympy.exp)
    qs = [e.args[0] for e in exps] + ([sympy.Integer(1)] if value.has(sympy.E) else [])
    if qs and all(q.is_Rational for q in qs):
        n = math.lcm(*(int(q.q) for q in qs))
        g = math.gcd(*(int(q * n) for q in qs))  # t = e^{g/n}
        powers = {q: int(q * n) // g for q in qs}
        if max(abs(k) for k in powers.values()) <= MAX_EXACT_DEGREE:
            t = sympy.Dummy("t", positive=True)
            swap = {e: t ** powers[e.args[0]] for e in exps}
            swap[sympy.E] = t ** powers.get(sympy.Integer(1), 1)
            try:
                num, den = sympy.fraction(sympy.cancel(value.xreplace(swap)))
                p, q = sympy.Poly(num, t, domain="QQ"), sympy.Poly(den, t, domain="QQ")
            except (sympy.PolynomialError, sympy.polys.polyerrors.CoercionFailed):
                return sympy.simplify(value)
            if p.is_zero:
                return sympy.Integer(0)
            if p.degree() == 0 and q.degree() == 0:
                return sympy.Rational(p.LC()) / sympy.Rational(q.LC())
            return value  # R(t) is not constant: the value is transcendental, not a Rational
    return sympy.simplify(value)


def _split_point(lo: Fraction | None, hi: Fraction | None) -> Fraction:
    if lo is None and hi is None:
        return Fraction(0)
    if lo is None:
        return hi - max(Fraction(1), abs(hi))
    if hi is None:
        return lo + max(Fraction(1), abs(lo))
    mid = (lo + hi) / 2
    # keep denominators small: a dyadic point inside the box
    k = 0
    while True:
        d = 2**k
        cand = Fraction(round(mid * d), d)
        if lo < cand < hi:
            return cand
        k += 1


def certify_sup(pieces: list[Piece], x: sympy.Symbol, bound: Fraction, max_boxes: int = MAX_BOXES) -> SupResult:
    """Certify f <= bound on the union of the pieces (see the module docstring)."""
    bound = Fraction(bound)
    boxes: list[Box] = []
    undecided: list[tuple[Fraction | None, Fraction | None]] = []
    witness: tuple[Fraction, Fraction] | None = None
    attained = False
    budget = max_boxes
    for piece in pieces:
        expr = sympy.sympify(piece.expr)
        if x not in expr.free_symbols:
            value = sympy.simplify(expr)
            if value.is_Rational:
                q = Fraction(int(value.p), int(value.q))
                if q <= bound:
                    boxes.append(Box(piece.lo, piece.hi, q, "constant"))
                    attained = attained or q == bound
                else:
                    witness = witness or (_witness_point(piece.lo, piece.hi), q)
                continue
            v = evaluate(value, {})
            up = _upper_fraction(v)
            if up is not None and up <= bound:
                boxes.append(Box(piece.lo, piece.hi, up, "constant"))
            else:
                if v.certainly_gt(bound):
                    witness = witness or (_witness_point(piece.lo, piece.hi), to_fraction(v.lo))
                undecided.append((piece.lo, piece.hi))
            continue
        forms = _prepare(expr, x, piece.lo, piece.hi)
        stack: list[tuple[Fraction | None, Fraction | None]] = []
        if piece.lo is None and piece.hi is None:
            stack += [(Fraction(0), None), (None, Fraction(0))]
        else:
            stack.append((piece.lo, piece.hi))
        while stack:
            lo, hi = stack.pop()
            budget -= 1
            box = Interval.of(lo, hi)
            pair = forms.pick(lo, hi)
            val = _enclose([f for f, _ in pair], x, box)
            up = _upper_fraction(val)
            if up is not None and up <= bound:
                boxes.append(Box(lo, hi, up, "value"))
                continue
            dval = _enclose([d for _, d in pair], x, box)
            settled = False
            for direction in (1, -1):
                rising = dval.certainly_ge(Fraction(0)) if direction == 1 else dval.certainly_le(Fraction(0))
                if not rising:
                    continue
                end = hi if direction == 1 else lo
                top = _end_value(forms, end, direction, bound)
                if top is not None and top <= bound:
                    boxes.append(Box(lo, hi, top, "monotone"))
                    attained = attained or top == bound
                    settled = True
                break
            if settled:
                continue
            probe = _witness_point(lo, hi)
            pv = _enclose([f for f, _ in forms.pick(probe, probe)], x, Interval.of(probe, probe))
            if pv.certainly_gt(bound):
                # a point certainly above the bound: the claim is refuted, no need to look further
                witness = witness or (probe, to_fraction(pv.lo))
                break
            too_small = lo is not None and hi is not None and hi - lo < MIN_WIDTH
            if too_small or budget <= 0:
                undecided.append((lo, hi))
                continue
            s = _split_point(lo, hi)
            stack += [(s, hi), (lo, s)]
    if witness is not None:
        verdict = CertificateVerdict.REFUTED
    elif undecided:
        verdict = CertificateVerdict.UNDECIDED
    else:
        verdict = CertificateVerdict.CERTIFIED
    return SupResult(
        verdict=verdict,
        bound=bound,
        boxes=tuple(boxes),
        undecided=tuple(undecided),
        witness=None if witness is None else witness[0],
        witness_lower=None if witness is None else witness[1],
        attained=attained,
    )


def _witness_point(lo: Fraction | None, hi: Fraction | None) -> Fraction:
    if lo is None and hi is None:
        return Fraction(0)
    if lo is None:
        return hi - 1
    if hi is None:
        return lo + 1
    return _split_point(lo, hi) if hi > lo else lo
