"""The float64 front door: log probabilities of every variant for many query vectors at once.

Contract (one shape): both calls return a `FastLogs`, the log values (natural log, float64;
-inf where the probability is 0) with the outcomes in column order, the engine's name, the
tolerance and the number of rows recomputed.  **Every value's estimated relative error is at most
``tolerance``** (default `verify.precision.FAST_TOLERANCE`, 1e-12): a value whose engine estimate
is above it is recomputed (long double where the engine has it, the halting path for the seed's shape, then the exact door,
`verify.doors.exact`, at 20 digits); so |log p̂ − log p| ≲ tolerance plus the rounding of the log itself
(2^-53·|log p|).

* `fast_log_probability(mech, queries (n, k), outcome, released=None)`: ``log_values`` (n,);
* `fast_log_distribution(mech, queries (n, k))`: ``log_values`` (n, outcomes), every outcome of a
  variant that releases nothing.

The engines (`FAST_DISTRIBUTION_ENGINES`, `FAST_PROBABILITY_ENGINES`; each declares
``supports(mech)`` and a one-line ``refusal``, `verify.doors.contract`), in the order tried:

| engine | supports | computes with |
|---|---|---|
| ``closed form float64`` (distributions) | the seed's AboveThreshold shape: cutoff 1, no release, Laplace / exponential / no noise | `verify.engine.fast_closed_form` up to `SEED_FAST_MAX_K` queries, the Gauss–Legendre halting path above (`verify.engine.fast_halting`, where its precondition holds) |
| ``sums over ℤ float64`` | noise on ℤ | `verify.engine.discrete_fast`, row by row |
| ``Gauss–Legendre float64`` | any continuous variant | `verify.engine.fast_generic`, outcome by outcome |
| ``float64 (Report Noisy Max)`` | `ReportNoisyMax` (index and value outputs) | `verify.selection.fast`: all k index probabilities of a row in one pass (`SelectionFast`) |

Report Noisy Max's outcomes are `verify.selection.probability.SelectionOutcome`s (a distribution's columns:
every index), as on the exact door.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from verify.doors.contract import AUTO, Declared, pick
from verify.doors.contract import register as add_engine
from verify.doors.exact import closed_form_values, exact_distribution, exact_evaluation
from verify.engine.discrete_fast import fast_log_probability as discrete_fast
from verify.engine.fast_closed_form import FastIntegrator
from verify.engine.fast_generic import log_probability
from verify.engine.fast_halting import escalate_row, halting_distribution, halting_refusal
from verify.errors import InputError
from verify.mechanism import SparseVector
from verify.precision import FAST_TOLERANCE, MPMATH_LOCK
from verify.selection.model import ReportNoisyMax, SelectionOutput
from verify.validate import float_rows

#: Up to this many queries the closed-form engine uses the vectorised closed form
#: (`verify.engine.fast_closed_form`, the fastest mode at small k: benchmarks/bench_probabilities.py);
#: above it the Gauss–Legendre halting path, whose cost is O(k·N) where the closed form's grows as k³
#: (one row of 64 spread queries: 4 s of CPU and an estimate of 5e-5, so every row went to mpmath).
#: 24, not the family door's former 12: the halting path's panel-rule estimate was low for exponential
#: query noise in the deep tail until its panels were graded at a kink shared by many queries
#: (tests/test_family_long_vectors.py), and the seed's tests at k = 20 hold the closed form to 1e-10 there.
SEED_FAST_MAX_K = 24
DOOR = "float64 door"


@dataclass(frozen=True)
class FastLogs:
    """The float64 door's answer (module docstring): each value's estimated relative error <= ``tolerance``."""

    log_values: np.ndarray
    outcomes: tuple[Any, ...]  # outcome strings; Report Noisy Max: `SelectionOutcome`s
    engine: str
    tolerance: float
    refined: int


def _mp_digits(tolerance: float) -> int:
    return max(20, int(-math.log10(tolerance)) + 5)


def _log(value: mpmath.mpf, dps: int) -> float:
    with MPMATH_LOCK, mpmath.workdps(dps):
        return float(mpmath.log(value)) if value > 0 else -math.inf


def _exact_log(mech: SparseVector, row: np.ndarray, outcome: str, released: Sequence[float] | None) -> float:
    """log Pr[outcome] at the float64 queries of ``row`` on the exact door (20 digits): the last escalation."""
    rel = None if released is None else [Fraction(float(x)) for x in released]
    return _log(exact_evaluation(mech, [Fraction(float(x)) for x in row], outcome, rel, digits=20).value, 25)


def _variant_refusal(mech: Any) -> str | None:
    return None if isinstance(mech, SparseVector) else f"a {type(mech).__name__}, not an SVT variant (SparseVector)"


# --- the seed's shape: the vectorised closed form, the halting path above SEED_FAST_MAX_K -----------------------
def closed_form_log_distribution(mech: SparseVector, q: np.ndarray, tolerance: float = FAST_TOLERANCE,
                                 cutoff: np.ndarray | None = None) -> tuple[np.ndarray, int]:
    """log Pr of B^{i-1}A (i = 1..k) and B^k for each row of ``q`` (n, k), and the rows recomputed.

    Rows whose float64 error estimate exceeds ``tolerance`` are re-evaluated in extended precision
    (np.longdouble, where it is wider than float64), then (no ``cutoff``, where its precondition holds)
    by the Gauss–Legendre halting path, which has no cancellation (`verify.engine.fast_halting`: the
    closed form's alternating sums lose digits when a query sits far from the others, e.g. 20 queries at
    ±32 scales), and those still above it by the mpmath closed form; the count returned is of the rows
    the mpmath closed form computed.  With ``cutoff`` (n,), the conditional form z > cutoff - t is used
    (one query).  Above `SEED_FAST_MAX_K` queries, the halting path (`halting_log_distribution`)."""
    halting = cutoff is None and not mech.threshold_noise.is_none and halting_refusal(mech) is None
    if halting and q.shape[1] > SEED_FAST_MAX_K:
        return halting_log_distribution(mech, q, tolerance)
    res = FastIntegrator(mech).events(q, cutoff)
    logp = res.log_probability.copy()
    bad = np.nonzero((res.error_estimate > tolerance).any(axis=1))[0]
    if len(bad) and np.finfo(np.longdouble).eps < 1e-17:
        # extended precision first (3 more digits on x86-64), mpmath only where even that is not enough
        ext = FastIntegrator(mech, np.longdouble).events(q[bad], None if cutoff is None else np.asarray(cutoff)[bad])
        ok = ~(ext.error_estimate > tolerance).any(axis=1)
        logp[bad[ok]] = ext.log_probability[ok]
        bad = bad[~ok]
    if len(bad) and halting:
        halt = halting_distribution(mech, q[bad])
        ok = ~(halt.error_estimate > tolerance).any(axis=1)
        logp[bad[ok]] = halt.log_value[ok]
        bad = bad[~ok]
    digits = _mp_digits(tolerance)
    for row in bad:
        exact_row = [Fraction(float(x)) for x in q[row]]
        cut = None
        if cutoff is not None:
            c = float(cutoff[row])
            cut = None if c == -math.inf else Fraction(c) - mech.threshold
        vals = closed_form_values(mech, exact_row, mech.outputs(len(exact_row)), digits, cut)
        logp[row] = [_log(v, digits) for v in vals]
    # a probability is at most 1: a log above 0 is rounding (within the tolerance, or the row was recomputed)
    return np.minimum(logp, 0.0), len(bad)


def _mp_log_outcome(mech: SparseVector, row: np.ndarray, s: str, digits: int) -> float:
    """log Pr[s] at the float64 queries of ``row``, on the mpmath closed form (the escalation's last step)."""
    (v,) = closed_form_values(mech, [Fraction(float(x)) for x in row], [s], digits)
    return _log(v, digits)


def halting_log_distribution(mech: SparseVector, q: np.ndarray, tolerance: float) -> tuple[np.ndarray, int]:
    """The Gauss–Legendre halting path (`verify.engine.fast_halting`), O(k·N) and without cancellation;
    every output whose estimate is above ``tolerance`` finishes on `escalate_row`, whose last step is
    the mpmath closed form."""
    res = halting_distribution(mech, q)
    logp = res.log_value.copy()
    outs = mech.outputs(q.shape[1])
    bad_rows = np.nonzero((res.error_estimate > tolerance).any(axis=1))[0]
    digits = _mp_digits(tolerance)
    for r in bad_rows:
        escalate_row(mech, q[r], outs, logp[r], res.error_estimate[r], tolerance,
                     lambda row, s: _mp_log_outcome(mech, row, s, digits))
    return np.minimum(logp, 0.0), len(bad_rows)


class ClosedFormFast(Declared):
    name = "closed form float64"

    def refusal(self, mech: Any) -> str | None:
        if (why := _variant_refusal(mech)) is not None:
            return why
        if mech.is_above_threshold:
            return None
        cut = "unlimited" if mech.cutoff is None else mech.cutoff
        return (f"cutoff {cut}, release {mech.release.value}, noise {mech.threshold_noise.family}/{mech.query_noise.family}: "
                "the vectorised closed form is the seed's shape (cutoff 1, no release, Laplace, exponential or none)")

    def log_distribution(self, mech: SparseVector, q: np.ndarray, tolerance: float) -> tuple[np.ndarray, int]:
        return closed_form_log_distribution(mech, q, tolerance)


# --- noise on ℤ -------------------------------------------------------------------------------------------------
class SumsFast(Declared):
    name = "sums over ℤ float64"

    def refusal(self, mech: Any) -> str | None:
        if (why := _variant_refusal(mech)) is not None:
            return why
        return None if mech.is_discrete else "continuous noise (integrals of a density, not sums over ℤ)"

    def rows(self, mech, q, outcome, released, tolerance) -> tuple[np.ndarray, np.ndarray]:
        """`verify.engine.discrete_fast` row by row; a row above ``tolerance`` goes to the exact door.
        Returns (log values, the rows recomputed)."""
        if released is not None:
            raise InputError(f"released: {mech.name} has discrete noise and releases nothing")
        logv = np.empty(q.shape[0])
        bad = []
        for r, row in enumerate(q):
            fv = discrete_fast(mech, [Fraction(float(x)) for x in row], outcome)
            if fv.error_estimate > tolerance:
                bad.append(r)
                logv[r] = _exact_log(mech, row, outcome, None)
            else:
                logv[r] = fv.log_value
        return logv, np.array(bad, dtype=int)

    def log_probability(self, mech, q, outcome, released, tolerance) -> tuple[np.ndarray, int]:
        logv, bad = self.rows(mech, q, outcome, released, tolerance)
        return logv, len(bad)

    def log_distribution(self, mech, q, tolerance) -> tuple[np.ndarray, int]:
        return _by_outcome(self, mech, q, tolerance)


def _by_outcome(engine: Any, mech: SparseVector, q: np.ndarray, tolerance: float) -> tuple[np.ndarray, int]:
    """A distribution outcome by outcome; the rows counted once however many of their outcomes were recomputed."""
    if mech.releases_values:
        raise InputError(f"distribution: {mech.name} releases values; its outputs have densities, give them one at a time")
    outs = mech.outputs(q.shape[1])
    logp = np.empty((q.shape[0], len(outs)))
    rows: set[int] = set()
    for c, s in enumerate(outs):
        logp[:, c], bad = engine.rows(mech, q, s, None, tolerance)
        rows.update(int(r) for r in bad)
    return logp, len(rows)


# --- any continuous variant ---------------------------------------------------------------------------------
class GenericFast(Declared):
    name = "Gauss–Legendre float64"

    def refusal(self, mech: Any) -> str | None:
        if (why := _variant_refusal(mech)) is not None:
            return why
        return "noise on the integers (sums over ℤ, not integrals of a density)" if mech.is_discrete else None

    def rows(self, mech, q, outcome, released, tolerance) -> tuple[np.ndarray, np.ndarray]:
        """(log values, the rows recomputed on the exact door)."""
        res = log_probability(mech, q, outcome, released)
        logv = res.log_value.copy()
        bad = np.nonzero(res.error_estimate > tolerance)[0]
        rel = None
        if released is not None and mech.releases_values:
            rel = np.broadcast_to(np.atleast_2d(np.asarray(released, dtype=float)), (q.shape[0], outcome.count("A")))
        for r in bad:
            logv[r] = _exact_log(mech, q[r], outcome, None if rel is None else rel[r])
        return logv, bad

    def log_probability(self, mech, q, outcome, released, tolerance) -> tuple[np.ndarray, int]:
        logv, bad = self.rows(mech, q, outcome, released, tolerance)
        return logv, len(bad)

    def log_distribution(self, mech, q, tolerance) -> tuple[np.ndarray, int]:
        return _by_outcome(self, mech, q, tolerance)


# --- Report Noisy Max (docs/selection.md): an adapter over verify.selection.fast ------------------------------
#: float64's unit roundoff: the released value's density is a sum of products (no integral), so its error is rounding.
_EPS = float(np.finfo(float).eps)


class SelectionFast(Declared):
    """Report Noisy Max in float64 (`verify.selection.fast`): every index probability of a row in one pass (one
    Gauss–Legendre pass over panels between the scores; Laplace in O(nodes + k)), its estimate the 12-against-16-node
    difference (48 against 64 for exponential noise; the softmax's rounding for Gumbel).  A row whose estimate is
    above the tolerance, or not finite, is redone on the exact door (`verify.doors.exact`, Report Noisy Max's
    quadrature).  The released value's log density is a sum of k logs, its estimate their rounding,
    4·2^-52·(k + Σ|log term|) (−inf is exact there: a value outside the noise's support).  The gap's density is an integral this engine does not have: refused."""

    name = "float64 (Report Noisy Max)"

    def refusal(self, mech: Any) -> str | None:
        return None if isinstance(mech, ReportNoisyMax) else f"a {type(mech).__name__}, not Report Noisy Max"

    def outcomes(self, mech: ReportNoisyMax, k: int) -> tuple[Any, ...]:
        """Every index outcome (`verify.selection.probability.SelectionOutcome`) of ``k`` scores."""
        # Report Noisy Max's modules load scipy.special (0.4 s of CPU), which the SVT variants never use
        from verify.selection.probability import SelectionOutcome  # lazy: start-up time

        if mech.output is not SelectionOutput.INDEX:
            raise InputError(f"distribution: {mech.name} releases a {mech.output.value}; its outputs have densities, "
                             "give them one at a time")
        return tuple(SelectionOutcome(SelectionOutput.INDEX, i) for i in range(k))

    def _index_rows(self, mech: ReportNoisyMax, q: np.ndarray, tolerance: float) -> tuple[np.ndarray, int]:
        from verify.selection.fast import fast_index_log_probabilities  # lazy: start-up time (as in outcomes)

        logp = np.empty(q.shape)
        refined = 0
        for r, row in enumerate(q):
            exact_row = [Fraction(float(x)) for x in row]
            with np.errstate(divide="ignore", invalid="ignore"):  # an underflow: the estimate is then not finite
                logp[r], err = fast_index_log_probabilities(mech, exact_row)
            if not err <= tolerance:  # above the tolerance, or not finite (an underflowed probability): exactly
                refined += 1
                digits = _mp_digits(tolerance)
                dist = exact_distribution(mech, exact_row, digits)
                logp[r] = [_log(dist[o], digits + 5) for o in self.outcomes(mech, len(row))]
        return np.minimum(logp, 0.0), refined

    def log_distribution(self, mech, q, tolerance) -> tuple[np.ndarray, int]:
        self.outcomes(mech, q.shape[1])  # index outputs only
        return self._index_rows(mech, q, tolerance)

    def log_probability(self, mech, q, outcome, released, tolerance) -> tuple[np.ndarray, int]:
        from verify.selection.fast import fast_value_log_density  # lazy: start-up time (as in outcomes)
        from verify.selection.probability import SelectionOutcome  # lazy: start-up time (as in outcomes)

        if not isinstance(outcome, SelectionOutcome) or outcome.kind is not mech.output:
            raise InputError(f"outcome: {outcome!r} is not an outcome of {mech.name} (a SelectionOutcome of kind "
                             f"{mech.output.value})")
        if released is not None:
            raise InputError(f"released: {mech.name}'s outcome carries its value; give it in the SelectionOutcome")
        if outcome.kind is SelectionOutput.INDEX:
            if not 0 <= outcome.index < q.shape[1]:
                raise InputError(f"outcome: index {outcome.index + 1} is outside 1..{q.shape[1]}")
            logp, refined = self._index_rows(mech, q, tolerance)
            return logp[:, outcome.index], refined
        if outcome.kind is SelectionOutput.GAP:
            raise InputError(f"outcome: {outcome.describe()}: the gap's density is an integral with no float64 path "
                             "(use the exact door)")
        v = float(outcome.value)
        logv = np.empty(q.shape[0])
        refined = 0
        for r, row in enumerate(q):
            exact_row = [Fraction(float(x)) for x in row]
            logv[r] = fast_value_log_density(mech, exact_row, v)
            s = np.array([float(x) for x in mech.effective_scores(mech.check_queries(exact_row))])
            terms = np.abs(np.concatenate((mech.law.log_cdf(v - s, float(mech.b)), mech.law.log_pdf(v - s, float(mech.b)))))
            err = 4 * _EPS * (len(s) + float(np.sum(terms[np.isfinite(terms)])))
            if not err <= tolerance or math.isnan(logv[r]):  # -inf is exact: a value outside the laws' support
                refined += 1
                ev = exact_evaluation(mech, exact_row, outcome, None, _mp_digits(tolerance))
                logv[r] = _log(ev.value, _mp_digits(tolerance) + 5)
        return logv, refined


#: The engines of a distribution and of one outcome, in the order ``auto`` tries them (open: `register`).
FAST_DISTRIBUTION_ENGINES: list[Any] = [ClosedFormFast(), SumsFast(), GenericFast()]
FAST_PROBABILITY_ENGINES: list[Any] = [FAST_DISTRIBUTION_ENGINES[1], FAST_DISTRIBUTION_ENGINES[2]]


def register(engine: Any, distribution: bool = True, probability: bool = True, before: str | None = None) -> None:
    """Add an engine (with ``log_distribution`` and/or ``log_probability`` of this contract) to the door."""
    for wanted, engines in ((distribution, FAST_DISTRIBUTION_ENGINES), (probability, FAST_PROBABILITY_ENGINES)):
        if wanted:
            add_engine(engines, engine, before)


register(SelectionFast())  # Report Noisy Max (verify.selection.fast)


def fast_log_probability(mech: Any, queries: np.ndarray, outcome: str, released: np.ndarray | Sequence | None = None,
                         tolerance: float = FAST_TOLERANCE, engine: str = AUTO) -> FastLogs:
    """log Pr[outcome] (log density at the released values) for each row of ``queries`` (module docstring)."""
    chosen = pick(FAST_PROBABILITY_ENGINES, mech, DOOR, engine, outcome)
    q = float_rows(queries)
    logv, refined = chosen.log_probability(mech, q, outcome, released, tolerance)
    return FastLogs(logv, (outcome,), chosen.name, tolerance, refined)


def fast_log_distribution(mech: Any, queries: np.ndarray, tolerance: float = FAST_TOLERANCE,
                          engine: str = AUTO) -> FastLogs:
    """log Pr of every outcome for each row of ``queries`` (n, k) -> (n, outcomes) (module docstring)."""
    chosen = pick(FAST_DISTRIBUTION_ENGINES, mech, DOOR, engine)
    q = float_rows(queries)
    logp, refined = chosen.log_distribution(mech, q, tolerance)
    outs = chosen.outcomes(mech, q.shape[1]) if hasattr(chosen, "outcomes") else tuple(mech.outputs(q.shape[1]))
    return FastLogs(logp, outs, chosen.name, tolerance, refined)
