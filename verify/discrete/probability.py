"""Exact output probabilities of discrete variants: the front door.

Paths (``Pr[outcome | queries]``, integer queries, `verify.engine.discrete_plan`):

* `symbolic_probability`: discrete Laplace only; the closed form of
  `verify.engine.discrete_closed_form` as an exact sympy expression, in the symbol ε
  when every scale is a multiple of Δ/ε (``r = e^{-ε/(cΔ)}``), else at the
  variant's rational ε;
* `mp_probability`: discrete Laplace by the closed form, the working
  precision raised until its cancellation (the expansion on absolute values)
  is covered with 8 guard digits; discrete Gaussian (or a discrete-Laplace
  outcome with ``method="direct"``) by the direct sum with its proven tail,
  refused if the tail bound exceeds ``10^-digits`` relative;
* `arb_probability`: a python-flint ball containing the exact value (the
  closed form in ball arithmetic, or the direct sum with the left-out mass
  inside the ball);
* `oracle_probability`: the direct sum at 50 digits, independent of the
  closed form (the cross-check).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import mpmath

if TYPE_CHECKING:
    import sympy

from verify.doors.exact import DirectSumEngine, GeometricEngine, engine_for, exact_probability, mp_direct
from verify.engine import discrete_closed_form as closed_form
from verify.engine.backends import ArbBackend, SympyBackend
from verify.engine.discrete_direct import direct_sum
from verify.engine.discrete_plan import build_plan
from verify.errors import InputError
from verify.precision import MPMATH_LOCK

DEFAULT_DIGITS = 30
METHODS = ("auto", "closed", "direct")
_ENGINES = {"auto": "auto", "closed": GeometricEngine.name, "direct": DirectSumEngine.name}  # method -> the exact door's engine


def _engine(mech: Any, method: str) -> str:
    """The exact door's engine that ``method`` names (``auto``: the geometric series where it applies, else
    the direct sum), refused in one line (the engine's declaration) where it does not take ``mech``."""
    if method not in METHODS:
        raise InputError(f"method: {method!r} is not one of {', '.join(METHODS)}")
    name = _ENGINES[method]
    if name == "auto":
        name = GeometricEngine.name if GeometricEngine().supports(mech) else DirectSumEngine.name
    return engine_for(mech, name).name


def _check_digits(digits: int) -> int:
    if isinstance(digits, bool) or not isinstance(digits, int) or not 5 <= digits <= 1000:
        raise InputError(f"digits: {digits!r} must be an integer from 5 to 1000")
    return digits


def symbolic_probability(mech: Any, queries: Sequence[object], outcome: str, symbolic_epsilon: bool = True) -> sympy.Expr:
    """The exact value as a sympy expression (discrete Laplace; module docstring).

    With one query, ``Pr[X >= Z] = (1 + Pr[X = Z])/2`` for X, Z iid (symmetry):

    >>> import sympy
    >>> from verify.family.presets import preset
    >>> expr = symbolic_probability(preset("dlap-seed-m1"), [0], "A")
    >>> sympy.N(expr.subs(sympy.Symbol("epsilon", positive=True), 1), 15)
    0.542411003978083
    """
    import sympy  # lazy: start-up time (about 0.5 s of CPU; the mpmath and arb paths of this module never use it)

    _engine(mech, "closed")
    plan = build_plan(mech, queries, outcome)
    eps_sym = sympy.Symbol("epsilon", positive=True)
    be = SympyBackend()
    mults = (mech.threshold_spec.multiplier, mech.query_spec.multiplier)
    by_eps = closed_form.uses_epsilon(plan, mults)
    eps = eps_sym if (symbolic_epsilon and by_eps) else be.num(mech.epsilon)
    ev = closed_form.make(plan, mech, be, eps, track=False).evaluate(plan)
    return sympy.Integer(0) if ev.zero else ev.value


def mp_probability(mech: Any, queries: Sequence[object], outcome: str, digits: int = DEFAULT_DIGITS,
                   method: str = "auto") -> mpmath.mpf:
    """Pr[outcome] as an mpf correct to about ``digits`` significant digits (module docstring): a view of
    the exact door (`verify.doors.exact.exact_probability`; ``closed`` is its engine
    ``closed form (geometric series)``, ``direct`` its ``direct sum``).

    >>> from verify.family.presets import preset
    >>> mpmath.nstr(mp_probability(preset("dlap-seed-m1"), [0], "A", digits=20), 15)
    '0.542411003978083'
    """
    _check_digits(digits)
    return exact_probability(mech, queries, outcome, None, digits, _engine(mech, method))


def oracle_probability(mech: Any, queries: Sequence[object], outcome: str, digits: int = 50) -> tuple[mpmath.mpf, mpmath.mpf]:
    """The direct sum (value, bound on the left-out mass) at ``digits`` digits: the cross-check of the closed form."""
    _check_digits(digits)
    return mp_direct(build_plan(mech, queries, outcome), digits)


def arb_probability(mech: Any, queries: Sequence[object], outcome: str, prec: int = 128, method: str = "auto") -> Any:
    """A python-flint ``arb`` ball that contains the exact probability."""
    import flint

    if isinstance(prec, bool) or not isinstance(prec, int) or not 30 <= prec <= 10000:
        raise InputError(f"prec: {prec!r} must be an integer number of bits from 30 to 10000")
    how = "closed" if _engine(mech, method) == GeometricEngine.name else "direct"
    plan = build_plan(mech, queries, outcome)
    with MPMATH_LOCK:  # flint's precision is global to the process as well
        old = flint.ctx.prec
        try:
            work = prec + 30
            for _ in range(6):
                flint.ctx.prec = work
                if how == "closed":
                    eps = flint.arb(flint.fmpq(mech.epsilon.numerator, mech.epsilon.denominator))
                    ev = closed_form.make(plan, mech, ArbBackend(), eps, track=False).evaluate(plan)
                    ball = flint.arb(0) if ev.zero else ev.value
                else:
                    ball, _ = direct_sum(plan, "arb", prec)
                if ball == 0 or ball.rel_accuracy_bits() >= prec - 10:
                    return ball
                work *= 2
            return ball
        finally:
            flint.ctx.prec = old


def mp_distribution(mech: Any, queries: Sequence[object], digits: int = DEFAULT_DIGITS) -> dict[str, mpmath.mpf]:
    """Pr of every outcome string for ``len(queries)`` queries."""
    return {s: mp_probability(mech, queries, s, digits) for s in mech.outputs(len(queries))}
