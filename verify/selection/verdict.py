"""The verdict on a Report Noisy Max (docs/selection.md): private / not_private / undecided.

* ``private`` only with a proven bound (`verify.selection.bounds`) <= ε, decided exactly;
* ``not_private`` only with a witness whose log ratio, recomputed in mpmath at `WITNESS_DIGITS` digits,
  exceeds ε (decided exactly with `verify.exact.exceeds`; +inf when one side's probability is 0);
* ``undecided`` otherwise.

For the index with Laplace, exponential or Gumbel noise the witness's loss is also enclosed in an arb
ball (`verify.selection.enclosure`, 128 bits) and stated in the notes: a rigorous interval beside the
50-digit value, and whether its lower end exceeds ε.

The released value with Laplace noise is ``unbounded``: with k scores all moved up by Δ and the value
below every score, every factor of the density is on its lower branch, so the density ratio is
exactly e^{kΔ/b}; the loss at k scores is at least kΔ/b, without bound in k.  With exponential noise
a value between the two supports' lower ends has density 0 on one side only: the loss is infinite.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import mpmath

from verify.exact import bound_or_witness, confirmation_tolerance, exceeds, fmt
from verify.precision import MPMATH_LOCK
from verify.selection.bounds import SelectionBound, proven_bound
from verify.selection.enclosure import ENCLOSED_FAMILIES, arb_log_ratio
from verify.selection.model import ReportNoisyMax, SelectionOutput
from verify.selection.probability import mp_log_ratio
from verify.selection.search import Candidate, structured_search
from verify.verdicts import MechanismVerdict

#: Digits of the witness's re-evaluation.
WITNESS_DIGITS = 50


@dataclass(frozen=True)
class SelectionVerdict:
    """The verdict, the best pair found with its exact (50-digit) log ratio, the bound and the loss by k."""

    mechanism: ReportNoisyMax
    verdict: MechanismVerdict
    method: str
    witness: Candidate | None
    loss: Any  # mpf at WITNESS_DIGITS digits (+inf possible), or None without a pair
    bound: SelectionBound
    unbounded: bool
    unbounded_evidence: str
    loss_by_k: dict[int, float] = field(default_factory=dict)
    notes: tuple[str, ...] = ()

    def loss_text(self, digits: int = 20) -> str:
        if self.loss is None:
            return "none"
        return "inf" if mpmath.isinf(self.loss) else mpmath.nstr(self.loss, digits)

    def to_json(self) -> dict[str, Any]:
        w = self.witness
        with MPMATH_LOCK, mpmath.workdps(WITNESS_DIGITS):
            over = None if self.loss is None else ("inf" if mpmath.isinf(self.loss)
                                                  else mpmath.nstr(self.loss / (mpmath.mpf(self.mechanism.epsilon.numerator)
                                                                                / self.mechanism.epsilon.denominator), 15))
            return {
                "verdict": self.verdict.value, "method": self.method, "mechanism": self.mechanism.to_json(),
                "loss": self.loss_text(WITNESS_DIGITS), "loss_over_epsilon": over,
                "witness": None if w is None else {"queries": [fmt(x) for x in w.queries],
                                                   "neighbour": [fmt(x) for x in w.neighbour],
                                                   "outcome": w.outcome.to_json(), "log_ratio_digits": WITNESS_DIGITS},
                "upper_bound": self.bound.to_json(), "unbounded": self.unbounded,
                "unbounded_evidence": self.unbounded_evidence,
                "loss_by_k_float64_search": {str(k): (str(v) if v in (float("inf"),) else float(v)) for k, v in self.loss_by_k.items()},
                "notes": list(self.notes),
            }


def _unbounded(mech: ReportNoisyMax, loss: Any) -> tuple[bool, str]:
    if mech.output is not SelectionOutput.VALUE:
        return False, ""
    if loss is not None and mpmath.isinf(loss):
        return True, "a value between the two supports' lower ends has density 0 under one neighbour only: infinite loss"
    if mech.law.two_sided and mech.law.lower_weight:
        return True, (f"below every score each density factor is on its lower branch, so with every score up by Δ the "
                      f"ratio is exactly e^(kΔ/b): loss >= k·{fmt(mech.sensitivity / mech.b)} at k scores, without bound in k")
    return False, ""


def selection_verdict(mech: ReportNoisyMax, max_queries: int = 4) -> SelectionVerdict:
    """Search, confirm the best pair at 50 digits, and decide (module docstring)."""
    cand, by_k = structured_search(mech, max_queries)
    bound = proven_bound(mech)
    loss = None
    if cand is not None:
        with MPMATH_LOCK, mpmath.workdps(WITNESS_DIGITS):
            loss = abs(mp_log_ratio(mech, cand.queries, cand.neighbour, cand.outcome, WITNESS_DIGITS))
    unbounded, evidence = _unbounded(mech, loss)
    tol = confirmation_tolerance(WITNESS_DIGITS, mech.epsilon)  # a loss equal to ε (attained) is no witness
    violated = loss is not None and exceeds(loss, mech.epsilon + tol)
    proven = bound.value is not None and bound.value <= mech.epsilon
    if violated and proven:
        raise AssertionError(f"{mech.name}: a witness with loss {mpmath.nstr(loss, 20)} exceeds ε = {fmt(mech.epsilon)} "
                             f"under a proven bound {fmt(bound.value)}: a bug")
    verdict, method = bound_or_witness(bound.value, mech.epsilon, violated, WITNESS_DIGITS)
    notes = []
    if mech.claimed_rho is not None:
        notes.append(f"the source's map claims ρ = {fmt(mech.claimed_rho)} (zCDP); this verdict is on pure ε-DP")
    if mech.claimed:
        notes.append(f"the source claims: {mech.claimed}")
    if cand is not None and mech.output is SelectionOutput.INDEX and mech.family in ENCLOSED_FAMILIES:
        notes.append(_loss_enclosure_note(mech, cand))
    return SelectionVerdict(mech, verdict, method, cand, loss, bound, unbounded, evidence, by_k, tuple(notes))


def _loss_enclosure_note(mech: ReportNoisyMax, cand: Candidate) -> str:
    """The witness's |log ratio| as an arb ball (`arb_log_ratio`, 128 bits), and whether it lies above ε."""
    ball, side_of_eps = arb_log_ratio(mech, cand.queries, cand.neighbour, cand.outcome.index, mech.epsilon)
    side = {1: "its lower end exceeds ε", -1: "its upper end is below ε", 0: "it contains ε"}[side_of_eps]
    return f"the witness's loss enclosed in arb (128 bits, rigorous): {ball}; {side}"
