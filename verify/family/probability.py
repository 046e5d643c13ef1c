"""Exact output probabilities (and densities) of every SVT variant: the family's names.

`evaluate`, `mp_probability` and `mp_distribution` are views over the exact front door
(`verify.doors.exact`, which picks the engine that supports the variant); `symbolic_probability`
and `arb_probability` give the sympy and arb forms.

The output is an outcome string (`model`) with, when the variant releases
values, one released value per A; its probability (or density) is the
product of one-dimensional integrals described in `integrand`.  Paths:

* ``mpmath`` (`mp_probability`): for Laplace, exponential and no noise the
  one closed form (`verify.engine.piecewise`, shared with the seed's front door), evaluated with the working precision
  raised until its condition number is covered with 8 guard digits (correct
  to the digits asked); for long outcome strings (more than
  `CLOSED_FORM_MAX_LETTERS` letters, where the closed form's O(k³) expansion
  is slow) and for **Gaussian noise, where no closed form exists**, mpmath
  quadrature over the integrand's mass window with every kink as a breakpoint
  (`quadrature.mp_quad`; its error is an estimate, reported, not a bound;
  `mp_probability` refuses a value whose estimate exceeds 10^-digits).
* ``symbolic`` (`symbolic_probability`): the closed form as an exact sympy
  expression (rational inputs, piecewise noise; small k).
* ``arb`` (`arb_probability`): a rigorous enclosure, a python-flint ball that
  contains the exact value: the closed form in ball arithmetic where it
  applies, ``acb.integral`` with bounded tails for Gaussian noise.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import mpmath
import sympy

from verify.discrete.probability import arb_probability as discrete_arb
from verify.discrete.probability import symbolic_probability as discrete_symbolic
from verify.doors.exact import (  # noqa: F401 (closed_form_applies, Evaluation, CLOSED_FORM_MAX_LETTERS re-exported)
    CLOSED_FORM_MAX_LETTERS,
    ClosedFormEngine,
    Evaluation,
    GeometricEngine,
    QuadratureEngine,
    closed_form_applies,
    exact_distribution,
    exact_evaluation,
    exact_probability,
)
from verify.engine import integrand as integrand_mod
from verify.engine.backends import ArbBackend, SympyBackend
from verify.engine.piecewise import ClosedForm
from verify.engine.quadrature import acb_enclosure
from verify.errors import InputError
from verify.mechanism import SparseVector, as_variant
from verify.precision import MAX_DIGITS, MIN_DIGITS, MPMATH_LOCK, check_digits  # noqa: F401 (re-exported)

DEFAULT_DIGITS = 30
#: ``method`` of `evaluate` -> the exact door's engine, for continuous and for discrete noise.
_CONTINUOUS = {"auto": "auto", "closed": ClosedFormEngine.name, "quadrature": QuadratureEngine.name}
_DISCRETE = {"auto": "auto", "closed": GeometricEngine.name}


def evaluate(mech: SparseVector, queries: Sequence[object], outcome: str, released: Sequence[object] | None = None,
             digits: int = DEFAULT_DIGITS, method: str = "auto") -> Evaluation:
    """Pr[outcome] (or its density at the released values) on the mpmath path: a view of the exact door
    (`verify.doors.exact.exact_evaluation`).

    ``method``: ``auto`` (closed form where it applies and the string has at most
    `CLOSED_FORM_MAX_LETTERS` letters, else quadrature; sums over ℤ for discrete noise), ``closed`` or
    ``quadrature``."""
    check_digits(digits)
    mech = as_variant(mech)
    if mech.is_discrete:  # sums over ℤ: geometric series or a direct sum with a proven tail
        if released:
            raise InputError(f"released: {mech.name} has discrete noise and releases nothing")
        if method not in _DISCRETE:
            raise InputError(f"method: {method!r} does not apply to discrete noise (sums over the integers): use auto or closed")
        return exact_evaluation(mech, queries, outcome, None, digits, _DISCRETE[method])
    if method not in _CONTINUOUS:
        raise InputError(f"method: {method!r} is not one of auto, closed, quadrature")
    if method == "closed" and not closed_form_applies(mech):
        raise InputError(f"closed form: {mech.name} has Gaussian noise; no closed form exists, use quadrature")
    return exact_evaluation(mech, queries, outcome, released, digits, _CONTINUOUS[method])


def mp_probability(mech: SparseVector, queries: Sequence[object], outcome: str, released: Sequence[object] | None = None,
                   digits: int = DEFAULT_DIGITS) -> mpmath.mpf:
    """Pr[outcome] (density where values are released) as an mpf: a view of the exact door
    (`verify.doors.exact.exact_probability`, engine auto).

    >>> from verify.family.presets import preset
    >>> mpmath.nstr(mp_probability(preset("lyu-1", cutoff=2), [0, 0], "AA", digits=20), 15)
    '0.266666666666667'
    """
    return exact_probability(as_variant(mech), queries, outcome, released, digits)


def symbolic_probability(mech: SparseVector, queries: Sequence[object], outcome: str,
                         released: Sequence[object] | None = None) -> sympy.Expr:
    """The exact value as a sympy expression (closed-form families only; discrete Laplace in ``e^{-ε/(cΔ)}``)."""
    if mech.is_discrete:

        if released:
            raise InputError(f"released: {mech.name} has discrete noise and releases nothing")
        return discrete_symbolic(mech, queries, outcome, symbolic_epsilon=False)
    if not closed_form_applies(mech):
        raise InputError(f"symbolic: {mech.name} has Gaussian noise; no closed form exists")
    integ = integrand_mod.build(mech, queries, outcome, released)
    value, pieces = ClosedForm.of(mech, SympyBackend()).evaluate(integ)
    return sympy.Integer(0) if any(p.zero for p in pieces) else value


def arb_probability(mech: SparseVector, queries: Sequence[object], outcome: str, released: Sequence[object] | None = None,
                    prec: int = 128) -> Any:
    """A python-flint ``arb`` ball containing the exact value (module docstring)."""
    import flint

    if isinstance(prec, bool) or not isinstance(prec, int) or not 30 <= prec <= 10000:
        raise InputError(f"prec: {prec!r} must be an integer number of bits from 30 to 10000")
    if mech.is_discrete:

        return discrete_arb(mech, queries, outcome, prec)
    integ = integrand_mod.build(mech, queries, outcome, released)
    if not closed_form_applies(mech):
        return acb_enclosure(mech, integ, prec)
    with MPMATH_LOCK:  # flint's precision is global to the process as well
        old = flint.ctx.prec
        flint.ctx.prec = prec
        try:
            value, pieces = ClosedForm.of(mech, ArbBackend()).evaluate(integ)
            return flint.arb(0) if any(p.zero for p in pieces) else value
        finally:
            flint.ctx.prec = old


def mp_distribution(mech: SparseVector, queries: Sequence[object], digits: int = DEFAULT_DIGITS) -> dict[str, mpmath.mpf]:
    """Pr of every outcome string (`SparseVector.outputs`) for a variant that releases nothing: the exact
    door's distribution (`verify.doors.exact.exact_distribution`)."""
    mech = as_variant(mech)
    if mech.releases_values:
        raise InputError(f"distribution: {mech.name} releases values; its outputs have densities, give them one at a time")
    return exact_distribution(mech, queries, digits)
