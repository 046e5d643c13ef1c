"""The verdict on an Adaptive SVT (docs/adaptive.md): private / not_private / undecided.

* ``private`` only with the proven alignment bound (`verify.adaptive.bounds`) <= ε, decided exactly;
* ``not_private`` only with a witness whose log ratio, recomputed in mpmath at `WITNESS_DIGITS` digits,
  exceeds ε (`verify.exact.exceeds`);
* ``undecided`` otherwise.

The bad variant's loss grows without bound in the number of queries (`growth`, a proof): when the
search's pairs stay below ε, the growth family's first member above ε (`growth_pair`, possibly more
queries than ``max_queries``) is confirmed at 50 digits and becomes the witness.

When the bound already decides (``private``), the search's best pair is confirmed at `BOUND_DIGITS`
digits (its loss is then reported, not used); a pair that could decide ``not_private`` always at 50.
The search runs in every case: its confirmed loss is reported beside the bound (a lower bound on the
loss; a confirmed loss above a proven bound is a bug and raises).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath

from verify.adaptive.bounds import AdaptiveBound, alignment_bound
from verify.adaptive.model import AdaptiveSVT, Answer, Branch, TopRelease
from verify.adaptive.probability import mp_log_ratio
from verify.adaptive.search import AdaptiveCandidate, structured_search
from verify.exact import bound_or_witness, confirmation_tolerance, exceeds, fmt
from verify.precision import MPMATH_LOCK
from verify.verdicts import MechanismVerdict

#: Digits of the witness's re-evaluation.
WITNESS_DIGITS = 50
#: Digits of the best pair's re-evaluation when a proven bound <= ε decides (the loss is reported only).
BOUND_DIGITS = 20


@dataclass(frozen=True)
class AdaptiveVerdict:
    """The verdict, the best pair with its 50-digit |log ratio|, the bound and the float64 loss by n."""

    mechanism: AdaptiveSVT
    verdict: MechanismVerdict
    method: str
    witness: AdaptiveCandidate | None
    loss: Any
    bound: AdaptiveBound
    loss_by_k: dict[int, float] = field(default_factory=dict)
    digits: int = WITNESS_DIGITS
    unbounded: bool = False
    unbounded_evidence: str = ""

    def loss_text(self, digits: int = 20) -> str:
        if self.loss is None:
            return "none"
        return "inf" if mpmath.isinf(self.loss) else mpmath.nstr(self.loss, digits)

    def loss_over_epsilon(self) -> str | None:
        if self.loss is None:
            return None
        if mpmath.isinf(self.loss):
            return "inf"
        with MPMATH_LOCK, mpmath.workdps(WITNESS_DIGITS):
            eps = self.mechanism.epsilon
            return mpmath.nstr(self.loss / (mpmath.mpf(eps.numerator) / eps.denominator), 15)

    def to_json(self) -> dict[str, Any]:
        w = self.witness
        return {
            "verdict": self.verdict.value, "method": self.method, "mechanism": self.mechanism.to_json(),
            "loss": self.loss_text(WITNESS_DIGITS), "loss_over_epsilon": self.loss_over_epsilon(),
            "witness": None if w is None else {"queries": [fmt(x) for x in w.queries], "neighbour": [fmt(x) for x in w.neighbour],
                                               "outcome": [a.to_json() for a in w.answers], "log_ratio_digits": self.digits},
            "upper_bound": self.bound.to_json(), "unbounded": self.unbounded, "unbounded_evidence": self.unbounded_evidence,
            "loss_by_k_float64_search": {str(k): float(v) for k, v in self.loss_by_k.items()},
        }


def adaptive_verdict(mech: AdaptiveSVT, max_queries: int = 4) -> AdaptiveVerdict:
    """Search, confirm the best pair at 50 digits, and decide (module docstring)."""
    cand, by_k = structured_search(mech, max_queries)
    bound = alignment_bound(mech)
    proven = bound.value is not None and bound.value <= mech.epsilon
    digits = BOUND_DIGITS if proven else WITNESS_DIGITS
    loss = None
    if cand is not None:
        with MPMATH_LOCK, mpmath.workdps(digits):
            loss = abs(mp_log_ratio(mech, cand.queries, cand.neighbour, cand.answers, digits))
    tol = confirmation_tolerance(digits, mech.epsilon)  # a loss equal to ε (attained) is no witness
    violated = loss is not None and exceeds(loss, mech.epsilon + tol)
    unbounded, evidence = growth(mech)
    if unbounded and not violated:  # the growth family's first member above ε, beyond the search's queries
        cand = growth_pair(mech)
        with MPMATH_LOCK, mpmath.workdps(digits):
            loss = abs(mp_log_ratio(mech, cand.queries, cand.neighbour, cand.answers, digits))
        violated = exceeds(loss, mech.epsilon + tol)
    if loss is not None and bound.value is not None and exceeds(loss, bound.value + tol):
        raise AssertionError(f"{mech.name}: a confirmed loss {mpmath.nstr(loss, 20)} exceeds the proven bound "
                             f"{fmt(bound.value)}: a bug")
    verdict, method = bound_or_witness(bound.value, mech.epsilon, violated, digits)
    return AdaptiveVerdict(mech, verdict, method, cand, loss, bound, by_k, digits, unbounded, evidence)


def growth_loss(mech: AdaptiveSVT, m: int) -> Fraction:
    """The exact loss of the growth family below with m BELOW answers: m·Δ(1/b_top + 1/b_mid) + Δ/b_top."""
    d = mech.sensitivity
    return m * d * (1 / mech.b_top + 1 / mech.b_middle) + d / mech.b_top


def growth_pair(mech: AdaptiveSVT) -> AdaptiveCandidate:
    """The growth family's member with the fewest BELOW answers whose loss exceeds ε: q_n = t,
    v = t + σ + b_top (rounded up to a short decimal), Q = v; its float loss is the closed form."""
    m = 0
    while growth_loss(mech, m) <= mech.epsilon:
        m += 1
    v = Fraction(math.ceil((float(mech.threshold) + mech.sigma_value() + float(mech.b_top)) * 1000), 1000)
    q = (v,) * m + (mech.threshold,)
    qn = tuple(x + mech.sensitivity for x in q[:-1]) + (q[-1] - mech.sensitivity,)
    return AdaptiveCandidate(qn, q, (Answer(Branch.BELOW),) * m + (Answer(Branch.TOP, v),), float(growth_loss(mech, m)))


def growth(mech: AdaptiveSVT) -> tuple[bool, str]:
    """The bad variant's loss grows without bound in the number of queries (proof in the text returned).

    Take m BELOW answers at one query value Q, then a TOP releasing v = q_n + ξ_n with v >= q_n, the
    outcome (⊥^m, top(v)); on D' every below query is Q + Δ and the last q_n − Δ.  The TOP factor
    p(v − q_n) cuts the threshold noise at z <= v − σ − t; for Q >= v every below factor's arguments
    σ + t + z − Q and t + z − Q are negative there, so F(x) = ½e^{x/b} and the below product is
    C·e^{mz(1/b_top + 1/b_mid)}, which D' multiplies by exactly e^{−mΔ(1/b_top + 1/b_mid)} for every z
    in the range; the threshold integral is the same on both sides, and the TOP factor's ratio is
    e^{Δ/b_top} (v − q_n >= 0).  So the loss is exactly `growth_loss` (a pair exists for every m when the
    budget lets m BELOW answers run: c₀ <= B)."""
    if mech.top_release is not TopRelease.VALUE or mech.initial_cost > mech.budget:
        return False, ""
    return True, (f"m below answers at a value Q >= v before a TOP releasing v: the loss is exactly "
                  f"m·{fmt(mech.sensitivity * (1 / mech.b_top + 1 / mech.b_middle))} + {fmt(mech.sensitivity / mech.b_top)}, "
                  "without bound in m (verify.adaptive.verdict.growth)")
