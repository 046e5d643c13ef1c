"""The result of the family's worst-case search (`verify.family.worstcase.family_worst_case`): verdict, witness,
proven bound, growth evidence, tightness, and the search's float64 values per k."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath

from verify.exact import fmt
from verify.family.bounds import ProvenBound
from verify.family.witness import VIOLATION_DIGITS, FamilyWitness
from verify.mechanism import SparseVector
from verify.notebook import worst_case_markdown
from verify.precision import MPMATH_LOCK
from verify.verdicts import MechanismVerdict, Tightness


@dataclass
class FamilyWorstCase:
    """The result of `family_worst_case` (see the module docstring)."""

    shape: SparseVector
    monotone: bool
    max_queries: int
    verdict: MechanismVerdict
    witness: FamilyWitness
    upper_bound: ProvenBound | None
    no_bound_reason: str | None
    unbounded: bool
    unbounded_evidence: str | None
    tightness: Tightness
    tightness_evidence: str
    loss_by_k: dict[int, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    #: confirmed witnesses of the best point of each searched layout, by outcome string (``rows=True``)
    rows: dict[str, FamilyWitness] = field(default_factory=dict)
    #: the push table: (k, L, confirmed loss) along the best layout, queries at t ± L (``push_table=True``)
    push: list[tuple[int, Fraction, mpmath.mpf]] = field(default_factory=list)
    push_family: str | None = None
    #: the integer domain searched, for a discrete variant (`verify.discrete.search`); None for the float search
    search_domain: str | None = None

    @property
    def loss(self) -> mpmath.mpf:
        return self.witness.loss

    @property
    def loss_over_epsilon(self) -> mpmath.mpf:
        with MPMATH_LOCK, mpmath.workdps(VIOLATION_DIGITS + 15):
            e = self.shape.epsilon
            return self.loss / (mpmath.mpf(e.numerator) / e.denominator)

    def _repr_markdown_(self) -> str:
        return worst_case_markdown(self)

    def to_json(self) -> dict[str, Any]:
        with MPMATH_LOCK, mpmath.workdps(VIOLATION_DIGITS + 15):
            loss = self.loss
            return {
                "variant": self.shape.describe(),
                "epsilon": fmt(self.shape.epsilon),
                "monotone": self.monotone,
                "max_queries": self.max_queries,
                "verdict": str(self.verdict),
                "loss": "inf" if mpmath.isinf(loss) else mpmath.nstr(loss, 30),
                "loss_over_epsilon": "inf" if mpmath.isinf(loss) else mpmath.nstr(self.loss_over_epsilon, 15),
                "upper_bound": None if self.upper_bound is None else fmt(self.upper_bound.value),
                "upper_bound_formula": None if self.upper_bound is None else self.upper_bound.formula,
                "upper_bound_source": None if self.upper_bound is None else self.upper_bound.source,
                "no_bound_reason": self.no_bound_reason,
                "unbounded": self.unbounded,
                "unbounded_evidence": self.unbounded_evidence,
                "tightness": str(self.tightness),
                "tightness_evidence": self.tightness_evidence,
                "witness": self.witness.to_json(),
                "loss_by_k_float64_search": {str(k): (v if math.isfinite(v) else "inf") for k, v in sorted(self.loss_by_k.items())},
                "notes": self.notes,
                "search_domain": self.search_domain,
                "seconds": round(self.seconds, 3),
            }
