"""The privacy verdict of a discrete variant: a proven bound, or a witness confirmed at 50 digits.

* ``private`` when the proven bound of `verify.discrete.bound` is <= ε (a proof
  by the integer change of variables, evaluated exactly in rationals);
* ``not_private`` when the exhaustive search of `verify.discrete.search` finds
  a pair whose loss, confirmed at 50 digits, exceeds ε by more than the
  confirmation tolerance of `verify.screen`;
* ``undecided`` otherwise (the searched domain is reported).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath

from verify.discrete.bound import proven_bound
from verify.discrete.search import SearchResult, search_worst_case, structured_search
from verify.exact import fmt
from verify.screen import Position, classify
from verify.verdicts import MechanismVerdict


@dataclass(frozen=True)
class DiscreteVerdict:
    """A verdict with the evidence behind it."""

    mechanism: str
    epsilon: Fraction
    verdict: MechanismVerdict
    method: str
    bound: Fraction | None
    bound_reason: str
    search: SearchResult

    def to_json(self) -> dict[str, Any]:
        s = self.search
        return {
            "mechanism": self.mechanism,
            "epsilon": fmt(self.epsilon),
            "verdict": self.verdict.value,
            "method": self.method,
            "proven_bound": None if self.bound is None else fmt(self.bound),
            "proven_bound_note": self.bound_reason,
            "search": {
                "domain": s.domain,
                "query_vectors": s.vectors,
                "largest_loss_float64": s.loss_float,
                "witness": {"queries": list(s.queries), "neighbour": list(s.neighbour), "outcome": s.outcome,
                            f"loss_{s.digits}_digits": mpmath.nstr(s.loss_confirmed, 20)},
            },
        }


def discrete_verdict(mech: Any, max_queries: int = 2, width: int = 8, digits: int = 50,
                     structured: bool = False) -> DiscreteVerdict:
    """Bound first; the search always runs (it reports how close the bound is to being attained).
    ``structured``: the structured search of `verify.discrete.search` (AboveThreshold only) instead
    of the exhaustive one."""
    pb = proven_bound(mech)
    if structured:
        found = structured_search(mech, max_queries, width, digits)
    else:
        found = search_worst_case(mech, max_queries, width, digits)
    if pb.value is not None and pb.value <= mech.epsilon:
        verdict, method = MechanismVerdict.PRIVATE, "proven bound (integer change of variables) <= ε"
    elif classify(found.loss_confirmed, mech.epsilon, digits) is Position.VIOLATION:
        verdict, method = MechanismVerdict.NOT_PRIVATE, f"witness confirmed at {digits} digits exceeds ε"
    else:
        verdict, method = MechanismVerdict.UNDECIDED, "no proven bound <= ε and no witness above ε in the searched domain"
    return DiscreteVerdict(mech.name, mech.epsilon, verdict, method, pb.value, pb.reason, found)
