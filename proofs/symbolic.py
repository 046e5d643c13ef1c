"""sympy forms of the seed's noise and the lemmas the proofs' steps rest on.

ε and Δ are the library's positive symbols (`verify.probabilities.EPSILON`,
`DELTA`); the rate of both mechanisms' noise is λ = 1/b = ε/(3Δ) (seed,
Algorithm A line 1 and 3: scale 3Δ/ε).  Densities, CDFs and survival
functions are explicit `Piecewise` expressions (no ``Abs``/``Max``), so that an
integral over an interval whose position relative to the kinks is known can
be split at the kinks and each branch integrated exactly
(`integrate_split`).  A statement about all real ``y`` is proved by cases:
``y = -s``, ``y = 0``, ``y = s`` with ``s`` a positive symbol (`by_sign`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TypeVar

import sympy as sp

from proofs.engines import EngineFailure
from verify.certify.closed_forms import Integrator, integrate_exponentials, sympy_integral
from verify.noise import family_type
from verify.probabilities import DELTA, EPSILON

_Fn = TypeVar("_Fn", bound=Callable[..., Any])
_CACHED: list[Any] = []


def sympy_engine(fn: _Fn) -> _Fn:
    """Memoise a sympy lemma; if sympy crashes inside it, raise `EngineFailure` (the claim is then
    ``undecided`` with the reason) instead of letting the lemma read as "not shown"."""
    cached = functools.cache(fn)
    _CACHED.append(cached)

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return cached(*args, **kwargs)
        except EngineFailure:
            raise
        except Exception as exc:  # noqa: BLE001 - every crash of the engine becomes EngineFailure
            raise EngineFailure(f"sympy engine: {fn.__name__} failed ({type(exc).__name__}: {exc})") from exc

    wrapper.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
    return wrapper  # type: ignore[return-value]


def clear_caches() -> None:
    """Forget every memoised sympy lemma."""
    for c in _CACHED:
        c.cache_clear()

LAM = EPSILON / (3 * DELTA)
x, y, z, w = sp.symbols("x y z w", real=True)
s = sp.Symbol("s", positive=True)


def density(family: str, v: sp.Expr) -> sp.Expr:
    """Lap(3Δ/ε): λ/2·exp(-λ|v|) (seed, p_b); Exp(3Δ/ε): λ·exp(-λv) on v >= 0."""
    if family_type(family).two_sided:  # Lap; else Exp
        return sp.Piecewise((LAM / 2 * sp.exp(LAM * v), v < 0), (LAM / 2 * sp.exp(-LAM * v), True))
    return sp.Piecewise((0, v < 0), (LAM * sp.exp(-LAM * v), True))


def cdf(family: str, v: sp.Expr) -> sp.Expr:
    """F(v) = Pr[X <= v], as the project states it (checked by `cdf_lemma`)."""
    if family_type(family).two_sided:  # Lap; else Exp
        return sp.Piecewise((sp.exp(LAM * v) / 2, v < 0), (1 - sp.exp(-LAM * v) / 2, True))
    return sp.Piecewise((0, v < 0), (1 - sp.exp(-LAM * v), True))


def seed_survival_exp(v: sp.Expr) -> sp.Expr:
    """The seed's exp(-(ε/3Δ)·max{0, v}) (Mechanism Two proof), with max written by cases."""
    return sp.Piecewise((1, v < 0), (sp.exp(-LAM * v), True))


def select_branches(expr: sp.Expr, var: sp.Symbol, at: sp.Expr) -> sp.Expr:
    """Replace every Piecewise by the branch whose condition holds at ``var = at``.

    Valid on an interval containing ``at`` on which no condition changes
    value, i.e. between consecutive kinks.  Raises if a condition cannot be
    decided at ``at`` from the symbols' assumptions.
    """

    def choose(pw: sp.Piecewise) -> sp.Expr:
        for e, c in pw.args:
            val = c.subs(var, at) if c not in (sp.true, sp.false) else c
            val = sp.simplify(val) if val not in (sp.true, sp.false) else val
            if val == sp.true:
                return select_branches(e, var, at)
            if val != sp.false:
                raise ValueError(f"cannot decide the condition {c} at {var} = {at}")
        raise ValueError(f"no branch of {pw} holds at {var} = {at}")

    return expr.replace(lambda e: isinstance(e, sp.Piecewise), choose)


def integrate_split(expr: sp.Expr, var: sp.Symbol, lo: sp.Expr, hi: sp.Expr, inner: Sequence[sp.Expr] = (),
                    integrate: Integrator = integrate_exponentials) -> sp.Expr:
    """∫_lo^hi expr d var, split at the ``inner`` points (given in increasing order,
    strictly between lo and hi); each piece's branches chosen at an interior point.

    Each piece is integrated exactly by ``integrate``: by default
    `verify.certify.closed_forms.integrate_exponentials`, the antiderivative of each term c·e^{a·v+b}
    (the densities here are such sums on each piece; any other term goes to sympy.integrate);
    tests/test_closed_form_integrals.py passes `verify.certify.closed_forms.sympy_integral`
    (sympy.integrate, its Meijer G path: about 10x slower) as the reference."""
    pts = [lo, *inner, hi]
    total = sp.Integer(0)
    for a, b in zip(pts[:-1], pts[1:]):
        if a == -sp.oo:
            mid = b - 1
        elif b == sp.oo:
            mid = a + 1
        else:
            mid = (a + b) / 2
        piece = select_branches(expr, var, mid)
        total += integrate(piece, var, a, b)
    return total


def cancel_form(expr: sp.Expr) -> sp.Expr:
    """sympy.cancel of the expanded expression: the canonical p/q of a rational function of its generators
    (exponentials split by `expand`, e^{a+b} = e^a e^b); p = 0 is a proof that ``expr`` is 0, for any values
    of the generators.  Much cheaper than sympy.simplify, which it precedes in `is_zero`."""
    return sp.cancel(sp.expand(expr))


#: `is_zero`'s normal forms, cheapest first: any one giving 0 is a proof.
NORMAL_FORMS: tuple[Callable[[sp.Expr], sp.Expr], ...] = (
    cancel_form,
    lambda e: sp.simplify(e),
    lambda e: sp.expand(sp.powsimp(sp.expand(e))),
    lambda e: sp.simplify(sp.expand(e.rewrite(sp.exp))),
)


#: Values tried for a symbol in `nonzero_at_a_point`, first admissible one taken (ε: e^{-ε/3} = 1/2).
WITNESS_VALUES: dict[sp.Symbol, sp.Expr] = {EPSILON: 3 * sp.log(2), DELTA: sp.Integer(1)}


def _admissible(sym: sp.Symbol, value: sp.Expr) -> bool:
    """``value`` has every property the assumptions of ``sym`` state (positive, integer, ...)."""
    return all(getattr(value, f"is_{fact}") is holds for fact, holds in sym.assumptions0.items())


def nonzero_at_a_point(expr: sp.Expr) -> bool:
    """True if ``expr`` is a non-zero rational number, exactly, at one point its symbols' assumptions admit:
    ε = 3 ln 2 (so e^{-ε/3} = 1/2), Δ = 1, any other symbol 2 or 1 (integer n = 2, positive s = 2, ...).
    Then ``expr`` is not identically 0 and no normal form can show it is; sympy's exact arithmetic only
    (an exponential that does not reduce to a rational leaves the value irrational: no conclusion, False)."""
    point = {}
    for sym in expr.free_symbols:
        candidates = [WITNESS_VALUES[sym]] if sym in WITNESS_VALUES else [sp.Integer(2), sp.Integer(1)]
        value = next((v for v in candidates if _admissible(sym, v)), None)
        if value is None:
            return False
        point[sym] = value
    try:
        value = expr.subs(point)
    except Exception:  # noqa: BLE001 - no value at the point: no conclusion
        return False
    return bool(value.is_Rational) and value != 0


def is_zero(expr: sp.Expr) -> bool:
    """True only if sympy shows ``expr == 0`` (the `NORMAL_FORMS` tried in turn, cheapest first).

    When the first (sympy.cancel) does not give 0 and ``expr`` is a non-zero rational at an admissible point
    (`nonzero_at_a_point`), it is not identically 0: False at once, without the slower forms (which could
    not give 0 either).  A normal form that raises is simply not a proof; if every one raises, sympy
    itself failed and `EngineFailure` is raised."""
    errors = []
    for f in NORMAL_FORMS:
        try:
            if f(expr) == 0:
                return True
        except Exception as exc:  # noqa: BLE001 - a failed normal form is simply not a proof
            errors.append(f"{type(exc).__name__}: {exc}")
            continue
        if f is cancel_form and nonzero_at_a_point(expr):
            return False
    if len(errors) == len(NORMAL_FORMS):
        raise EngineFailure(f"sympy engine: every normal form failed ({'; '.join(errors)})")
    return False


def same_integral(a: sp.Integral, b: sp.Integral) -> bool:
    """True if sympy shows that two one-dimensional integrals are the same expression: equal limits and
    equal integrands once the integration variable of ``b`` is renamed to that of ``a``."""
    (va, lo_a, hi_a), (vb, lo_b, hi_b) = a.limits[0], b.limits[0]
    fb = b.function.subs(vb, va)
    return all(x == y or sp.simplify(x - y) == 0 for x, y in ((lo_a, lo_b), (hi_a, hi_b))) and sp.simplify(a.function - fb) == 0


def by_sign(expr_of: callable, cases: Iterable[sp.Expr] = (-s, sp.Integer(0), s)) -> bool:
    """True if ``expr_of(v)`` is shown to be zero for v = -s, 0, s (s > 0): every real v."""
    return all(is_zero(expr_of(v)) for v in cases)


# --- lemmas ---------------------------------------------------------------------------------------------
@sympy_engine
def cdf_lemma(family: str) -> bool:
    """∫_{-∞}^v p = F(v) and ∫_v^∞ p = 1 - F(v) for every real v (sympy, by the sign of v)."""
    p = density(family, x)

    def lower(v: sp.Expr) -> sp.Expr:
        inner = [sp.Integer(0)] if (v.is_positive) else []
        return integrate_split(p, x, -sp.oo, v, inner) - cdf(family, v)

    def upper(v: sp.Expr) -> sp.Expr:
        inner = [sp.Integer(0)] if (v.is_negative) else []
        return integrate_split(p, x, v, sp.oo, inner) - (1 - cdf(family, v))

    return by_sign(lower) and by_sign(upper)


@sympy_engine
def normalised(family: str) -> bool:
    """∫ p = 1."""
    return is_zero(integrate_split(density(family, x), x, -sp.oo, sp.oo, [sp.Integer(0)]) - 1)


@sympy_engine
def laplace_symmetry() -> bool:
    """1 - F(v) = F(-v) for every real v (symmetry of the Laplace CDF)."""
    return by_sign(lambda v: 1 - cdf("laplace", v) - cdf("laplace", -v))


@sympy_engine
def exp_survival_lemma() -> bool:
    """∫_v^∞ p_Exp = exp(-(ε/3Δ) max{0, v}) for every real v (seed, Mechanism Two proof)."""

    def diff(v: sp.Expr) -> sp.Expr:
        inner = [sp.Integer(0)] if v.is_negative else []
        return integrate_split(density("exponential", x), x, v, sp.oo, inner) - seed_survival_exp(v)

    return by_sign(diff)


@sympy_engine
def tail_abs(family: str) -> sp.Expr:
    """Pr[|X| >= c] for c > 0, exact: ∫_{-∞}^{-c} p + ∫_c^∞ p by sympy.integrate (the reference of
    `proofs.utility_checks.tail_abs`, which integrates term by term; tests/test_utility_closed_forms.py)."""
    c = sp.Symbol("c", positive=True)
    p = density(family, x)
    val = integrate_split(p, x, -sp.oo, -c, integrate=sympy_integral) + integrate_split(p, x, c, sp.oo, integrate=sympy_integral)
    return sp.simplify(val)


TAIL_C = sp.Symbol("c", positive=True)


U = sp.Symbol("u", positive=True)


def positive_for_all_epsilon(expr: sp.Expr) -> tuple[bool, str]:
    """Decide ``expr > 0`` for every ε > 0 when expr is a rational function of u = e^{-ε/3}.

    Substitutes ε = -3 ln u (u ∈ (0, 1)), writes the result as P(u)/Q(u) with
    integer polynomials, and proves that neither has a root in (0, 1) (sympy's
    exact real-root isolation) and that P/Q > 0 at u = 1/2.  Returns
    (proved, the rational function as text).
    """
    if DELTA in expr.free_symbols:
        return False, "depends on Δ"
    r = sp.factor(sp.simplify(sp.powsimp(sp.expand(expr.subs(EPSILON, -3 * sp.log(U))), force=True)))
    if r.free_symbols - {U}:
        return False, f"not a function of u alone: {r}"
    num, den = sp.fraction(sp.together(r))
    try:
        pn, pd = sp.Poly(num, U), sp.Poly(den, U)
    except sp.PolynomialError:
        return False, f"not a rational function of u: {r}"
    for poly in (pn, pd):
        for root in poly.real_roots():
            if 0 < root < 1:
                return False, f"{r} has the root u = {root} in (0, 1)"
    ok = bool(r.subs(U, sp.Rational(1, 2)) > 0)
    return ok, str(r)
