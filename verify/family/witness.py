"""A confirmed witness of privacy loss for an SVT variant: exact neighbours, output, and the loss at 50 digits."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath

from verify.exact import fmt
from verify.family.oracle import output_probability
from verify.mechanism import SparseVector
from verify.precision import MPMATH_LOCK
from verify.ratio import log_ratio

VIOLATION_DIGITS = 50


@dataclass(frozen=True)
class FamilyWitness:
    """q(D), q(D'), the outcome string and released values (exact), with both probabilities at ``digits``.

    ``kind`` is ``probability`` or ``density`` (released values: the ratio of densities).
    The loss is |log Pr[A(D)=o] - log Pr[A(D')=o]|, inf when exactly one side is 0.
    """

    queries: tuple[Fraction, ...]
    neighbour: tuple[Fraction, ...]
    outcome: str
    released: tuple[Fraction, ...]
    probability: mpmath.mpf
    neighbour_probability: mpmath.mpf
    digits: int

    @property
    def kind(self) -> str:
        return "density" if self.released else "probability"

    @property
    def log_ratio(self) -> mpmath.mpf:
        with MPMATH_LOCK, mpmath.workdps(self.digits + 15):
            return log_ratio(self.probability, self.neighbour_probability)

    @property
    def loss(self) -> mpmath.mpf:
        with MPMATH_LOCK, mpmath.workdps(self.digits + 15):
            return abs(self.log_ratio)

    def describe(self) -> str:
        rel = f", released ({', '.join(fmt(x) for x in self.released)})" if self.released else ""
        return (f"q(D) = ({', '.join(fmt(x) for x in self.queries)}), q(D') = ({', '.join(fmt(x) for x in self.neighbour)}), "
                f"output {self.outcome}{rel}")

    def ratio_command(self, preset_flags: str) -> str:
        """The `svt-verify ratio` command line that recomputes this witness (the family flags)."""
        rel = f" --released={','.join(fmt(x) for x in self.released)}" if self.released else ""
        return (f"svt-verify ratio {preset_flags} --queries={','.join(fmt(x) for x in self.queries)} "
                f"--neighbour-queries={','.join(fmt(x) for x in self.neighbour)} --outcomes {self.outcome}{rel} --digits {self.digits}")

    def to_json(self) -> dict[str, Any]:
        with MPMATH_LOCK, mpmath.workdps(self.digits + 15):
            lr = self.log_ratio
            return {
                "queries": [fmt(x) for x in self.queries],
                "neighbour_queries": [fmt(x) for x in self.neighbour],
                "outcomes": self.outcome,
                "released": [fmt(x) for x in self.released],
                "kind": self.kind,
                "probability": mpmath.nstr(self.probability, self.digits),
                "neighbour_probability": mpmath.nstr(self.neighbour_probability, self.digits),
                "log_ratio": "inf" if mpmath.isinf(lr) and lr > 0 else "-inf" if mpmath.isinf(lr) else mpmath.nstr(lr, self.digits),
                "digits": self.digits,
            }


def confirm(shape: SparseVector, queries, neighbour, outcome: str, released=(), digits: int = VIOLATION_DIGITS) -> FamilyWitness:
    """Both probabilities by the exact mpmath path (`verify.family.oracle`) at ``digits``."""
    q, qn, rel = tuple(queries), tuple(neighbour), tuple(released)
    for a, b in zip(q, qn):
        if abs(a - b) > shape.sensitivity:
            raise ValueError(f"witness: |{fmt(a)} - {fmt(b)}| exceeds Δ = {fmt(shape.sensitivity)}")
    p = output_probability(shape, q, outcome, rel, digits)
    pn = output_probability(shape, qn, outcome, rel, digits)
    return FamilyWitness(q, qn, outcome, rel, p, pn, digits)
