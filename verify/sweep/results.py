"""What a sweep found: witnesses, per-ε summaries and the result, each serialising itself.

All result types are frozen: the driver folds chunk tallies (`Tally.plus`, a
pure function) and labels each ε's total an `EpsilonSummary`.
Exact numbers are printed by `verify.serialize` so that they parse back to the
checked values; high-precision values at their ``digits``.
"""

from __future__ import annotations

import csv
from collections.abc import Callable
from dataclasses import dataclass, fields, replace
from enum import StrEnum
from fractions import Fraction
from typing import Any

import mpmath

from verify.errors import InputError
from verify.exact import fmt
from verify.mechanism import Output, SparseVector
from verify.screen import Position, classify
from verify.serialize import mechanism_json, mp_number, output_json
from verify.sweep.specs import ConditionalGridSpec, GridSpec
from verify.verdicts import SweepVerdict


class WitnessKind(StrEnum):
    """Why a point is listed: the largest |log ratio| of its ε, an example at the bound, or a violation."""

    WITNESS = "witness"
    AT_BOUND = "at_bound"
    VIOLATION = "violation"


def mpf_of(x: Fraction) -> mpmath.mpf:
    """A Fraction as an mpf at the working precision."""
    return mpmath.mpf(x.numerator) / x.denominator


@dataclass(frozen=True)
class Witness:
    """One point with its high-precision ratio.

    Output sweep: ``queries`` (q(D)), ``neighbour_queries`` (q(D')), ``output``.
    Conditional sweep: ``gap_max`` (None = -∞, i = 1), ``kappa``, ``gap_query``, ``delta``.
    """

    epsilon: Fraction
    log_ratio: str
    ratio: str
    probability: str
    neighbour_probability: str
    digits: int
    queries: tuple[Fraction, ...] | None = None
    neighbour_queries: tuple[Fraction, ...] | None = None
    output: Output | None = None
    gap_max: Fraction | None = None
    kappa: Fraction | None = None
    gap_query: Fraction | None = None
    delta: Fraction | None = None
    kind: WitnessKind = WitnessKind.WITNESS

    @property
    def abs_log_ratio(self) -> mpmath.mpf:
        with mpmath.workdps(self.digits + 5):
            return abs(mpmath.mpf(self.log_ratio))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"epsilon": fmt(self.epsilon)}
        if self.queries is not None:
            out.update(queries=[fmt(x) for x in self.queries], neighbour_queries=[fmt(x) for x in self.neighbour_queries],
                       output=output_json(self.output))
        else:
            out.update(gap_max="-inf" if self.gap_max is None else fmt(self.gap_max), kappa=fmt(self.kappa),
                       gap_query=fmt(self.gap_query), delta=fmt(self.delta))
        out.update(log_ratio=self.log_ratio, ratio=self.ratio, probability=self.probability,
                   neighbour_probability=self.neighbour_probability, digits=self.digits)
        return out


@dataclass(frozen=True)
class Candidate:
    """A violation by float64 not yet re-evaluated at high precision: ``confirm(*args, kind)`` (a
    module-level function, picklable) gives its `Witness`.  Chunks return candidates and the fold
    confirms them in grid order, so that at most ``cap`` points per ε are re-evaluated, however many
    chunks the grid has."""

    confirm: Callable[..., Witness]
    args: tuple

    def witness(self) -> Witness:
        return self.confirm(*self.args, WitnessKind.VIOLATION)


@dataclass(frozen=True, kw_only=True)
class Tally:
    """Counts and witnesses of checked points: one chunk's, or several chunks' folded total.
    ``candidates``: a chunk's unconfirmed violations (empty in a folded total)."""

    points: int = 0
    violation_count: int = 0
    violations: tuple[Witness, ...] = ()
    near_bound_reevaluated: int = 0
    at_bound: int = 0
    at_bound_example: Witness | None = None
    fast_path_disagreements: int = 0
    refined_by_mpmath: int = 0
    witness: Witness | None = None
    candidates: tuple[Candidate, ...] = ()

    def plus(self, r: Tally, cap: int) -> Tally:
        """This total followed by chunk ``r`` (chunks are folded in grid order): counts add, at most
        ``cap`` violations are listed, the first at-bound example and the larger witness are kept.
        ``r``'s candidates are confirmed here, in order, until ``cap`` are listed; one that the
        high-precision value does not place beyond ε is not a violation (a fast-path disagreement)."""
        witness = self.witness
        if r.witness is not None and (witness is None or r.witness.abs_log_ratio > witness.abs_log_ratio):
            witness = r.witness
        listed, count, disagreements = list(self.violations), self.violation_count + r.violation_count, 0
        for w in r.violations[: max(0, cap - len(listed))]:
            listed.append(w)
        for c in r.candidates:
            if len(listed) >= cap:
                break
            w = c.witness()
            if classify(w.abs_log_ratio, w.epsilon, w.digits) is Position.VIOLATION:
                listed.append(w)
            else:
                count, disagreements = count - 1, disagreements + 1
        return replace(
            self,
            points=self.points + r.points,
            violation_count=count,
            violations=tuple(listed),
            near_bound_reevaluated=self.near_bound_reevaluated + r.near_bound_reevaluated,
            at_bound=self.at_bound + r.at_bound,
            at_bound_example=self.at_bound_example if self.at_bound_example is not None else r.at_bound_example,
            fast_path_disagreements=self.fast_path_disagreements + r.fast_path_disagreements + disagreements,
            refined_by_mpmath=self.refined_by_mpmath + r.refined_by_mpmath,
            witness=witness,
        )


@dataclass(frozen=True, kw_only=True)
class EpsilonSummary(Tally):
    """Folded results for one ε."""

    epsilon: Fraction

    @classmethod
    def of(cls, epsilon: Fraction, tally: Tally) -> EpsilonSummary:
        return cls(epsilon=epsilon, **{f.name: getattr(tally, f.name) for f in fields(Tally) if f.name != "candidates"})

    def to_json(self) -> dict[str, Any]:
        w = self.witness
        return {
            "epsilon": fmt(self.epsilon),
            "points": self.points,
            "violations": self.violation_count,
            "near_bound_reevaluated": self.near_bound_reevaluated,
            "at_bound": self.at_bound,
            "max_abs_log_ratio": None if w is None else mp_number(w.abs_log_ratio),
            "max_abs_log_ratio_over_epsilon": None if w is None else mp_number(w.abs_log_ratio / mpf_of(self.epsilon)),
        }


@dataclass(frozen=True)
class SweepResult:
    """What a sweep found.  ``complete`` is False for an interrupted sweep (the
    figures then cover the chunks finished, in grid order)."""

    kind: str  # "outputs" or "conditional"
    mechanism: SparseVector
    spec: GridSpec | ConditionalGridSpec
    per_epsilon: tuple[EpsilonSummary, ...]
    chunks_done: int
    chunks_total: int
    seconds: float
    runner: str

    @property
    def complete(self) -> bool:
        return self.chunks_done == self.chunks_total

    @property
    def points(self) -> int:
        return sum(e.points for e in self.per_epsilon)

    @property
    def violation_count(self) -> int:
        return sum(e.violation_count for e in self.per_epsilon)

    @property
    def violations(self) -> list[Witness]:
        return [v for e in self.per_epsilon for v in e.violations]

    @property
    def witness(self) -> Witness | None:
        """The point with the largest |log ratio|/ε (first in grid order on ties)."""
        best, best_val = None, None
        for e in self.per_epsilon:
            if e.witness is None:
                continue
            val = e.witness.abs_log_ratio / mpf_of(e.epsilon)
            if best_val is None or val > best_val:
                best, best_val = e.witness, val
        return best

    @property
    def max_abs_log_ratio(self) -> mpmath.mpf | None:
        w = self.witness
        return None if w is None else w.abs_log_ratio

    @property
    def max_abs_log_ratio_over_epsilon(self) -> mpmath.mpf | None:
        w = self.witness
        return None if w is None else w.abs_log_ratio / mpf_of(w.epsilon)

    @property
    def verdict(self) -> SweepVerdict:
        """``refuted`` (a violation confirmed at high precision) or ``consistent``
        (float64 checks over the stated grid, near-bound points at high precision,
        nothing violated); never ``proved``: a grid is not a proof."""
        if self.violation_count == 0:
            return SweepVerdict.CONSISTENT
        return SweepVerdict.REFUTED if self.violations else SweepVerdict.REFUTED_FLOAT64

    def to_json(self) -> dict[str, Any]:
        w = self.witness
        return {
            "sweep": self.kind,
            "mechanism": mechanism_json(self.mechanism),
            "grid": self.spec.to_json(),
            "grid_description": self.spec.describe(),
            "complete": self.complete,
            "chunks_done": self.chunks_done,
            "chunks_total": self.chunks_total,
            "points": self.points,
            "violations": [v.to_json() for v in self.violations],
            "violation_count": self.violation_count,
            "max_abs_log_ratio": None if w is None else mp_number(self.max_abs_log_ratio),
            "max_abs_log_ratio_over_epsilon": None if w is None else mp_number(self.max_abs_log_ratio_over_epsilon),
            "witness": None if w is None else w.to_json(),
            "verdict": self.verdict,
            "near_bound_reevaluated": sum(e.near_bound_reevaluated for e in self.per_epsilon),
            "at_bound": sum(e.at_bound for e in self.per_epsilon),
            "at_bound_example": next((e.at_bound_example.to_json() for e in self.per_epsilon if e.at_bound_example), None),
            "fast_path_disagreements": sum(e.fast_path_disagreements for e in self.per_epsilon),
            "refined_by_mpmath": sum(e.refined_by_mpmath for e in self.per_epsilon),
            "per_epsilon": [e.to_json() for e in self.per_epsilon],
            "seconds": round(self.seconds, 3),
            "runner": self.runner,
        }

    def write_csv(self, path: str) -> int:
        """One row for the witness of each ε, each at-bound example and each listed
        violation; returns the number of rows written."""
        cols = ["kind", "epsilon", "output", "queries", "neighbour_queries", "gap_max", "kappa", "gap_query", "delta",
                "log_ratio", "ratio", "probability", "neighbour_probability", "digits"]
        rows = []
        for e in self.per_epsilon:
            items = ([e.witness] if e.witness else []) + ([e.at_bound_example] if e.at_bound_example else []) + list(e.violations)
            for w in items:
                j = w.to_json()
                rows.append({
                    "kind": str(w.kind),
                    "epsilon": j["epsilon"],
                    "output": j.get("output", ""),
                    "queries": " ".join(j.get("queries", [])),
                    "neighbour_queries": " ".join(j.get("neighbour_queries", [])),
                    "gap_max": j.get("gap_max", ""),
                    "kappa": j.get("kappa", ""),
                    "gap_query": j.get("gap_query", ""),
                    "delta": j.get("delta", ""),
                    "log_ratio": w.log_ratio, "ratio": w.ratio, "probability": w.probability,
                    "neighbour_probability": w.neighbour_probability, "digits": w.digits,
                })
        try:
            with open(path, "w", newline="", encoding="utf-8") as fh:
                writer = csv.DictWriter(fh, fieldnames=cols)
                writer.writeheader()
                writer.writerows(rows)
        except OSError as exc:
            raise InputError(f"--csv: cannot write {path!r} ({exc.strerror})") from None
        return len(rows)


