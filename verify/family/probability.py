"""Exact output probabilities (and densities) of every SVT variant.

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
from dataclasses import dataclass
from typing import Any

import mpmath
import sympy

from verify.discrete import probability as discrete
from verify.discrete.probability import arb_probability as discrete_arb
from verify.discrete.probability import symbolic_probability as discrete_symbolic
from verify.engine import integrand as integrand_mod
from verify.engine.backends import ArbBackend, SympyBackend
from verify.engine.discrete_plan import build_plan
from verify.engine.integrand import Kind
from verify.engine.piecewise import ClosedForm, mp_closed_form
from verify.engine.quadrature import acb_enclosure, mp_quad
from verify.errors import InputError
from verify.mechanism import SparseVector, as_variant
from verify.precision import MAX_DIGITS, MIN_DIGITS, MPMATH_LOCK, check_digits  # noqa: F401 (re-exported)

DEFAULT_DIGITS = 30
#: Longer outcome strings are integrated by quadrature on the mpmath path.
CLOSED_FORM_MAX_LETTERS = 60




def closed_form_applies(mech: SparseVector) -> bool:
    """Threshold and query noise Laplace, exponential or none (a fresh release noise may be anything:
    it only enters as a constant density)."""
    return mech.threshold_noise.is_piecewise and mech.query_noise.is_piecewise


@dataclass(frozen=True)
class Evaluation:
    """One output's value on the mpmath path and how it was obtained."""

    value: mpmath.mpf
    kind: Kind
    method: str  # "closed form" or "quadrature"
    digits: int
    #: None for the closed form (correct to ``digits``); mpmath's relative error estimate for quadrature.
    error_estimate: mpmath.mpf | None


def evaluate(mech: SparseVector, queries: Sequence[object], outcome: str, released: Sequence[object] | None = None,
             digits: int = DEFAULT_DIGITS, method: str = "auto") -> Evaluation:
    """Pr[outcome] (or its density at the released values) on the mpmath path.

    ``method``: ``auto`` (closed form where it applies and the string has at most
    `CLOSED_FORM_MAX_LETTERS` letters, else quadrature), ``closed`` or ``quadrature``."""
    check_digits(digits)
    mech = as_variant(mech)
    if mech.is_discrete:  # sums over ℤ (`verify.discrete`): geometric series or a direct sum with a proven tail
        return _discrete_evaluation(mech, queries, outcome, released, digits, method)
    integ = integrand_mod.build(mech, queries, outcome, released)
    if method not in ("auto", "closed", "quadrature"):
        raise InputError(f"method: {method!r} is not one of auto, closed, quadrature")
    closed = closed_form_applies(mech) and (method == "closed" or (method == "auto" and len(outcome) <= CLOSED_FORM_MAX_LETTERS))
    if method == "closed" and not closed_form_applies(mech):
        raise InputError(f"closed form: {mech.name} has Gaussian noise; no closed form exists, use quadrature")
    if closed:
        return Evaluation(mp_closed_form(mech, [integ], digits)[0], integ.kind, "closed form", digits, None)
    value, err = mp_quad(mech, integ, digits)
    return Evaluation(value, integ.kind, "quadrature", digits, err)


def _discrete_evaluation(mech: SparseVector, queries: Sequence[object], outcome: str, released: Sequence[object] | None,
                         digits: int, method: str) -> Evaluation:
    """`evaluate` for a discrete variant: the closed form (discrete Laplace) or the direct sum, to ``digits``."""

    if released:
        raise InputError(f"released: {mech.name} has discrete noise and releases nothing")
    if method not in ("auto", "closed"):
        raise InputError(f"method: {method!r} does not apply to discrete noise (sums over the integers): use auto or closed")
    how = discrete.evaluation_method("closed" if method == "closed" else "auto", build_plan(mech, queries, outcome))
    value = discrete.mp_probability(mech, queries, outcome, digits, how)
    return Evaluation(value, Kind.PROBABILITY, "closed form (geometric series)" if how == "closed" else "direct sum", digits, None)


def mp_probability(mech: SparseVector, queries: Sequence[object], outcome: str, released: Sequence[object] | None = None,
                   digits: int = DEFAULT_DIGITS) -> mpmath.mpf:
    """Pr[outcome] (density where values are released) as an mpf (`evaluate`, method auto).

    >>> from verify.family.presets import preset
    >>> mpmath.nstr(mp_probability(preset("lyu-1", cutoff=2), [0, 0], "AA", digits=20), 15)
    '0.266666666666667'
    """
    e = evaluate(mech, queries, outcome, released, digits)
    if e.error_estimate is not None and e.error_estimate > mpmath.mpf(10) ** -digits:
        raise ArithmeticError(f"quadrature: estimated relative error {mpmath.nstr(e.error_estimate, 3)} exceeds "
                              f"10^-{digits}; use evaluate() to see it, or arb_probability for a rigorous ball")
    return e.value


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
    """Pr of every outcome string (`SparseVector.outputs`) for a variant that releases nothing."""
    if mech.releases_values:
        raise InputError(f"distribution: {mech.name} releases values; its outputs have densities, give them one at a time")
    k = len(queries)
    return {s: mp_probability(mech, queries, s, None, digits) for s in mech.outputs(k)}
