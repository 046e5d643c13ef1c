"""The exact front door: every outcome probability (or density) of every variant, in mpmath.

Contract (one shape per call):

* `exact_evaluation(mech, queries, outcome, released=None, digits=30, engine="auto")` -> `Evaluation`:
  the value (an mpf), its kind (probability or density), the engine's name (``method``), the digits
  and, for quadrature, mpmath's relative error estimate (None where the value is correct to
  ``digits``);
* `exact_probability(...)` -> mpf: that value, refusing (`ArithmeticError`) a quadrature value whose
  estimate exceeds 10^-digits;
* `exact_distribution(mech, queries, digits=30, engine="auto")` -> dict outcome -> mpf: every outcome
  of a variant that releases nothing, in `SparseVector.outputs` order (A before B).

The engines, in the order the door tries them (`EXACT_ENGINES`; each declares ``supports(mech)`` and
a one-line ``refusal(mech)``, `verify.doors.contract`):

| engine | supports | computes with |
|---|---|---|
| ``closed form (geometric series)`` | discrete Laplace noise (or none) on ℤ | `verify.engine.discrete_closed_form` |
| ``direct sum`` | any noise on ℤ | `verify.engine.discrete_direct` (proven tail) |
| ``closed form`` | Laplace, exponential or no threshold and query noise | `verify.engine.piecewise.mp_closed_form` |
| ``quadrature`` | any continuous noise (Gaussian) | `verify.engine.quadrature.mp_quad` |
| ``quadrature (Report Noisy Max)`` | `ReportNoisyMax` | `verify.selection.probability.mp_outcome` |
| ``quadrature (Adaptive SVT)`` | `AdaptiveSVT` | `verify.adaptive.probability.outcome_density` |

``auto`` takes the first that supports the mechanism, except that an outcome string of more than
`CLOSED_FORM_MAX_LETTERS` letters goes to quadrature (the closed form's O(k³) expansion is slow
there).  A distribution by the closed form integrates the outcomes together (one pass over a trie
of shared prefixes) and clamps each value to 1 (a value above is rounding): the seed's rule.
Report Noisy Max (`verify.selection`) is served by ``quadrature (Report Noisy Max)``, an adapter over
`verify.selection.probability`'s public functions (an outcome is a `SelectionOutcome`, a distribution
every index's probability); Adaptive SVT (`verify.adaptive`) by ``quadrature (Adaptive SVT)``, an adapter over
`verify.adaptive.probability` (an outcome is a sequence of `verify.adaptive.model.Answer`s, its released values
in its answers; no distribution: middle and top answers release real values).  A further engine is one
`register` line.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath

from verify.adaptive.model import AdaptiveSVT, Branch
from verify.adaptive.probability import outcome_density
from verify.doors.contract import AUTO, Declared, pick
from verify.doors.contract import register as add_engine
from verify.engine import discrete_closed_form as geometric
from verify.engine import integrand as integrand_mod
from verify.engine.backends import MpmathBackend
from verify.engine.discrete_direct import direct_sum
from verify.engine.discrete_plan import Plan, build_plan
from verify.engine.integrand import Kind
from verify.engine.piecewise import mp_closed_form
from verify.engine.quadrature import mp_quad
from verify.errors import InputError
from verify.mechanism import SparseVector
from verify.noise.discrete_laplace import DiscreteLaplace
from verify.precision import MPMATH_LOCK, check_digits
from verify.selection.model import ReportNoisyMax, SelectionOutput

DEFAULT_DIGITS = 30
#: Longer outcome strings are integrated by quadrature when the engine is chosen automatically.
CLOSED_FORM_MAX_LETTERS = 60
DOOR = "exact door"


@dataclass(frozen=True)
class Evaluation:
    """One outcome's value on the exact door and how it was obtained."""

    value: mpmath.mpf
    kind: Kind
    method: str  # the engine's name: "closed form", "quadrature", "closed form (geometric series)", "direct sum"
    digits: int
    #: None where the value is correct to ``digits``; mpmath's relative error estimate for quadrature.
    error_estimate: mpmath.mpf | None


def _not_variant(mech: Any) -> str | None:
    return None if isinstance(mech, SparseVector) else f"a {type(mech).__name__}, not an SVT variant (SparseVector)"


class _ExactEngine(Declared):
    """One outcome by ``evaluation``; a distribution outcome by outcome (an engine may do better)."""

    def evaluation(self, mech: Any, queries: Sequence[object], outcome: Any, released: Sequence[object] | None,
                   digits: int) -> Evaluation:  # pragma: no cover - every engine overrides it
        raise NotImplementedError

    def distribution(self, mech: Any, queries: Sequence[object], digits: int) -> dict[Any, mpmath.mpf]:
        if mech.releases_values:
            raise InputError(f"distribution: {mech.name} releases values; its outputs have densities, give them one at a time")
        return {s: _checked(self.evaluation(mech, queries, s, None, digits)) for s in mech.outputs(len(queries))}


# --- continuous noise: integrals of densities -------------------------------------------------------------
def closed_form_applies(mech: SparseVector) -> bool:
    """Threshold and query noise Laplace, exponential or none (a fresh release noise may be anything:
    it only enters as a constant density)."""
    return mech.threshold_noise.is_piecewise and mech.query_noise.is_piecewise


def closed_form_values(mech: SparseVector, queries: Sequence[object], outcomes: Sequence[str], digits: int,
                       floor: Fraction | None = None) -> list[mpmath.mpf]:
    """The closed form of several outcomes together (`mp_closed_form`), each clamped to 1 (a value above
    is rounding); ``floor``: the integral restricted to z > floor (the proofs' conditional form)."""
    integs = integrand_mod.build_all(mech, queries, outcomes)
    return [min(v, mpmath.mpf(1)) for v in mp_closed_form(mech, integs, digits, floor)]


class ClosedFormEngine(_ExactEngine):
    name = "closed form"

    def refusal(self, mech: Any) -> str | None:
        if (why := _not_variant(mech)) is not None:
            return why
        if mech.is_discrete:
            return "noise on the integers (sums over ℤ, not integrals of a density)"
        for role, noise in (("threshold", mech.threshold_noise), ("query", mech.query_noise)):
            if not noise.is_piecewise:
                return f"{noise.family} {role} noise has no closed form (Laplace, exponential, none only)"
        return None

    def suits(self, outcome: object) -> bool:
        return not isinstance(outcome, str) or len(outcome) <= CLOSED_FORM_MAX_LETTERS

    def evaluation(self, mech, queries, outcome, released, digits) -> Evaluation:
        integ = integrand_mod.build(mech, queries, outcome, released)
        return Evaluation(mp_closed_form(mech, [integ], digits)[0], integ.kind, self.name, digits, None)

    def distribution(self, mech, queries, digits) -> dict[Any, mpmath.mpf]:
        if mech.releases_values:
            return super().distribution(mech, queries, digits)
        outs = mech.outputs(len(queries))
        return dict(zip(outs, closed_form_values(mech, queries, outs, digits)))


class QuadratureEngine(_ExactEngine):
    name = "quadrature"

    def refusal(self, mech: Any) -> str | None:
        if (why := _not_variant(mech)) is not None:
            return why
        return "noise on the integers (sums over ℤ, not integrals of a density)" if mech.is_discrete else None

    def evaluation(self, mech, queries, outcome, released, digits) -> Evaluation:
        integ = integrand_mod.build(mech, queries, outcome, released)
        value, err = mp_quad(mech, integ, digits)
        return Evaluation(value, integ.kind, self.name, digits, err)


# --- noise on ℤ: sums ---------------------------------------------------------------------------------------
def _discrete_refusal(mech: Any) -> str | None:
    if (why := _not_variant(mech)) is not None:
        return why
    return None if mech.is_discrete else "continuous noise (integrals of a density, not sums over ℤ)"


def _discrete_plan(mech: SparseVector, queries: Sequence[object], outcome: str, released: Sequence[object] | None) -> Plan:
    if released:
        raise InputError(f"released: {mech.name} has discrete noise and releases nothing")
    return build_plan(mech, queries, outcome)


def mp_geometric(mech: SparseVector, plan: Plan, digits: int) -> mpmath.mpf:
    """The geometric-series closed form, the working precision raised until its cancellation (the
    expansion on absolute values) is covered with 8 guard digits."""
    dps = digits + 10
    for _ in range(8):
        with MPMATH_LOCK, mpmath.workdps(dps):
            ev = geometric.make(plan, mech, MpmathBackend(), mpmath.mpf(mech.epsilon.numerator) / mech.epsilon.denominator,
                                track=True).evaluate(plan)
            if ev.zero:
                return mpmath.mpf(0)
            lost = math.inf if ev.value <= 0 else float(mpmath.log10(ev.magnitude / ev.value))
            if dps - lost >= digits + 8:
                return +ev.value
        dps = dps * 2 if math.isinf(lost) else int(digits + lost + 20)
    raise ArithmeticError(f"discrete closed form: could not reach {digits} digits (cancellation)")  # pragma: no cover


def mp_direct(plan: Plan, digits: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    """The direct sum and the bound on its left-out mass, at ``digits`` digits."""
    bits = int(digits * 3.33) + 20
    with MPMATH_LOCK, mpmath.workdps(digits + 15):
        value, err = direct_sum(plan, "mp", bits)
        return +value, +err


class GeometricEngine(_ExactEngine):
    name = "closed form (geometric series)"

    def refusal(self, mech: Any) -> str | None:
        if (why := _discrete_refusal(mech)) is not None:
            return why
        if all(n.is_none or isinstance(n.law, DiscreteLaplace) for n in (mech.threshold_noise, mech.query_noise)):
            return None
        return "the closed form covers discrete Laplace noise only; the discrete Gaussian is summed ('direct')"

    def evaluation(self, mech, queries, outcome, released, digits) -> Evaluation:
        value = mp_geometric(mech, _discrete_plan(mech, queries, outcome, released), digits)
        return Evaluation(value, Kind.PROBABILITY, self.name, digits, None)


class DirectSumEngine(_ExactEngine):
    name = "direct sum"

    def refusal(self, mech: Any) -> str | None:
        return _discrete_refusal(mech)

    def evaluation(self, mech, queries, outcome, released, digits) -> Evaluation:
        value, err = mp_direct(_discrete_plan(mech, queries, outcome, released), digits)
        if value > 0 and err > value * mpmath.mpf(10) ** -digits:
            raise ArithmeticError(f"direct sum: the left-out mass {mpmath.nstr(err, 3)} exceeds 10^-{digits} of the value")
        return Evaluation(value, Kind.PROBABILITY, self.name, digits, None)


# --- Report Noisy Max (docs/selection.md): an adapter over verify.selection.probability's public functions ---
class SelectionEngine(_ExactEngine):
    """Report Noisy Max's mpmath quadrature (`verify.selection.probability`; not yet on the engine room's
    description).  An outcome is a `SelectionOutcome`; a distribution is every index's probability."""

    name = "quadrature (Report Noisy Max)"

    def refusal(self, mech: Any) -> str | None:
        return None if isinstance(mech, ReportNoisyMax) else f"a {type(mech).__name__}, not Report Noisy Max"

    def evaluation(self, mech, queries, outcome, released, digits) -> Evaluation:
        # Report Noisy Max's probabilities load scipy.special (0.4 s of CPU), which the SVT variants never use
        from verify.selection.probability import SelectionOutcome, mp_outcome  # lazy: start-up time

        if not isinstance(outcome, SelectionOutcome):
            raise InputError(f"outcome: {outcome!r} is not a SelectionOutcome (Report Noisy Max's index, value or gap)")
        if released:
            raise InputError(f"released: {mech.name}'s outcome carries its value; give it in the SelectionOutcome")
        kind = Kind.PROBABILITY if outcome.kind is SelectionOutput.INDEX else Kind.DENSITY
        return Evaluation(mp_outcome(mech, queries, outcome, digits), kind, self.name, digits, None)

    def distribution(self, mech, queries, digits) -> dict[Any, mpmath.mpf]:
        if mech.output is not SelectionOutput.INDEX:
            raise InputError(f"distribution: {mech.name} releases a {mech.output.value}; its outputs have densities, "
                             "give them one at a time")
        from verify.selection.probability import SelectionOutcome, mp_index_probabilities  # lazy: start-up time

        probs = mp_index_probabilities(mech, queries, digits)
        return {SelectionOutcome(SelectionOutput.INDEX, i): p for i, p in enumerate(probs)}


# --- Adaptive SVT (docs/adaptive.md): an adapter over verify.adaptive.probability's public functions -----------
class AdaptiveEngine(_ExactEngine):
    """Adaptive SVT's mpmath quadrature over the threshold noise (`verify.adaptive.probability.outcome_density`,
    correct to ``digits`` or `ArithmeticError`).  An outcome is a sequence of `Answer`s: a probability when
    every answer is below, else a density at the released gaps (or values)."""

    name = "quadrature (Adaptive SVT)"

    def refusal(self, mech: Any) -> str | None:
        return None if isinstance(mech, AdaptiveSVT) else f"a {type(mech).__name__}, not Adaptive SVT"

    def evaluation(self, mech, queries, outcome, released, digits) -> Evaluation:
        if released:
            raise InputError(f"released: {mech.name}'s outcome carries its values in its answers (middle(g), top(g))")
        answers = mech.check_outcome(outcome if isinstance(outcome, (list, tuple)) else [outcome], len(queries))
        kind = Kind.PROBABILITY if all(a.branch is Branch.BELOW for a in answers) else Kind.DENSITY
        return Evaluation(outcome_density(mech, queries, answers, digits), kind, self.name, digits, None)

    def distribution(self, mech, queries, digits) -> dict[Any, mpmath.mpf]:
        raise InputError(f"distribution: {mech.name}'s middle and top answers release real values; its outcomes "
                         "have densities, give them one at a time")


#: The exact door's engines, in the order ``auto`` tries them (open: `register`).
EXACT_ENGINES: list[Any] = [GeometricEngine(), DirectSumEngine(), ClosedFormEngine(), QuadratureEngine(), SelectionEngine(),
                            AdaptiveEngine()]


def register(engine: Any, before: str | None = None) -> None:
    """Add an engine to the exact door (it declares ``name``, ``refusal``, ``supports``, ``suits`` and
    has ``evaluation`` and ``distribution`` of this module's contract)."""
    add_engine(EXACT_ENGINES, engine, before)


def engine_for(mech: Any, engine: str = AUTO, outcome: object = None) -> Any:
    """The engine the exact door uses for ``mech`` (and ``outcome``), or the door's one-line refusal."""
    return pick(EXACT_ENGINES, mech, DOOR, engine, outcome)


def _checked(e: Evaluation) -> mpmath.mpf:
    if e.error_estimate is not None and e.error_estimate > mpmath.mpf(10) ** -e.digits:
        raise ArithmeticError(f"quadrature: estimated relative error {mpmath.nstr(e.error_estimate, 3)} exceeds "
                              f"10^-{e.digits}; use evaluate() to see it, or arb_probability for a rigorous ball")
    return e.value


def exact_evaluation(mech: Any, queries: Sequence[object], outcome: Any, released: Sequence[object] | None = None,
                     digits: int = DEFAULT_DIGITS, engine: str = AUTO) -> Evaluation:
    """Pr[outcome] (its density at the released values) and how it was obtained (module docstring)."""
    check_digits(digits)
    return engine_for(mech, engine, outcome).evaluation(mech, queries, outcome, released, digits)


def exact_probability(mech: Any, queries: Sequence[object], outcome: Any, released: Sequence[object] | None = None,
                      digits: int = DEFAULT_DIGITS, engine: str = AUTO) -> mpmath.mpf:
    """Pr[outcome] (density where values are released) as one mpf correct to ``digits``.

    >>> from verify.family.presets import preset
    >>> mpmath.nstr(exact_probability(preset("lyu-1", cutoff=2), [0, 0], "AA", digits=20), 15)
    '0.266666666666667'
    """
    return _checked(exact_evaluation(mech, queries, outcome, released, digits, engine))


def exact_distribution(mech: Any, queries: Sequence[object], digits: int = DEFAULT_DIGITS,
                       engine: str = AUTO) -> dict[Any, mpmath.mpf]:
    """Pr of every outcome, outcome -> mpf in `SparseVector.outputs` order (module docstring).

    >>> from verify.mechanism import AboveThreshold
    >>> {s: mpmath.nstr(p, 10) for s, p in exact_distribution(AboveThreshold.mechanism_one(1), [0], 20).items()}
    {'A': '0.5', 'B': '0.5'}
    """
    check_digits(digits)
    return engine_for(mech, engine).distribution(mech, queries, digits)
