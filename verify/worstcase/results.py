"""What the worst-case search found: confirmed witnesses, the loss by k, the verdict; frozen, serialising themselves."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath

from verify.exact import fmt
from verify.family.bounds import ProvenBound
from verify.mechanism import AboveThreshold, Output
from verify.notebook import worst_case_markdown
from verify.serialize import mechanism_json, mp_number, mp_str, output_json
from verify.verdicts import MechanismVerdict, Tightness

DEFAULT_DIGITS = 30
#: Digits at which a violation (and an attained bound) is confirmed.
VIOLATION_DIGITS = 50


def epsilon_mpf(mech: AboveThreshold) -> mpmath.mpf:
    """ε as an mpf at the working precision."""
    return mpmath.mpf(mech.epsilon.numerator) / mech.epsilon.denominator


@dataclass(frozen=True)
class LossWitness:
    """A confirmed witness: exact queries, output and the log ratio at ``digits``."""

    queries: tuple[Fraction, ...]
    neighbour_queries: tuple[Fraction, ...]
    output: Output
    log_ratio: mpmath.mpf
    probability: mpmath.mpf
    neighbour_probability: mpmath.mpf
    digits: int

    @property
    def loss(self) -> mpmath.mpf:
        with mpmath.workdps(self.digits + 10):
            return abs(self.log_ratio)

    def to_json(self) -> dict[str, Any]:
        return {
            "queries": [fmt(x) for x in self.queries],
            "neighbour_queries": [fmt(x) for x in self.neighbour_queries],
            "output": output_json(self.output),
            "log_ratio": mp_str(self.log_ratio, self.digits),
            "probability": mp_str(self.probability, self.digits),
            "neighbour_probability": mp_str(self.neighbour_probability, self.digits),
            "digits": self.digits,
        }


@dataclass(frozen=True)
class KRow:
    """Best loss found with k queries, for s_k and for ⊤^k."""

    k: int
    halt: LossWitness
    no_halt: LossWitness

    @property
    def loss(self) -> mpmath.mpf:
        return max(self.halt.loss, self.no_halt.loss)

    def to_json(self) -> dict[str, Any]:
        return {"k": self.k, "loss_s_k": mp_number(self.halt.loss), "loss_top_k": mp_number(self.no_halt.loss),
                "witness_s_k": self.halt.to_json(), "witness_top_k": self.no_halt.to_json()}


@dataclass(frozen=True)
class WorstCaseResult:
    """The outcome of `verify.worstcase.worst_case`, built once when the search ends."""

    mechanism: AboveThreshold
    verdict: MechanismVerdict
    witness: LossWitness
    upper_bound: ProvenBound | None
    unbounded: bool
    unbounded_evidence: str | None
    by_k: tuple[KRow, ...]
    push: tuple[tuple[int, Fraction, mpmath.mpf], ...] = ()
    push_family: str | None = None
    tightness: Tightness | None = None
    tightness_evidence: str | None = None
    notes: tuple[str, ...] = ()
    seconds: float = 0.0

    @property
    def loss(self) -> mpmath.mpf:
        return self.witness.loss

    @property
    def loss_over_epsilon(self) -> mpmath.mpf:
        with mpmath.workdps(self.witness.digits + 10):
            return self.loss / epsilon_mpf(self.mechanism)

    def to_json(self) -> dict[str, Any]:
        with mpmath.workdps(VIOLATION_DIGITS + 10):
            return self._json()

    def _repr_markdown_(self) -> str:

        return worst_case_markdown(self)

    def _json(self) -> dict[str, Any]:
        return {
            "mechanism": mechanism_json(self.mechanism),
            "epsilon": fmt(self.mechanism.epsilon),
            "verdict": self.verdict,
            "loss": mp_number(self.loss),
            "loss_over_epsilon": mp_number(self.loss_over_epsilon),
            "upper_bound": None if self.upper_bound is None else float(self.upper_bound.value),
            "upper_bound_exact": None if self.upper_bound is None else fmt(self.upper_bound.value),
            "upper_bound_source": None if self.upper_bound is None else self.upper_bound.source,
            "unbounded": self.unbounded,
            "unbounded_evidence": self.unbounded_evidence,
            "witness": self.witness.to_json(),
            "loss_by_k": [r.to_json() for r in self.by_k],
            "push_family": self.push_family,
            "loss_by_push": [{"k": k, "push": fmt(p), "loss": mp_str(v, 30),
                              "gap_to_epsilon": mp_str(epsilon_mpf(self.mechanism) - v, 5) if not mpmath.isinf(v) else "-inf"}
                             for k, p, v in self.push],
            "tightness": self.tightness,
            "tightness_evidence": self.tightness_evidence,
            "notes": list(self.notes),
            "seconds": round(self.seconds, 3),
        }


