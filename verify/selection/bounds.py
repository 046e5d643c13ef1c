"""Proven upper bounds on Report Noisy Max's privacy loss (docs/selection.md, "The bound").

The index, for a continuous noise family whose log S (S(x) = Pr[X >= x]) is L-Lipschitz
(`NoiseFamily.sf_lipschitz`: 1/b for Laplace, exponential and Gumbel).  Fix i and condition on the
other noises X_{-i}: with m = max_{j≠i} (s_j + X_j), i wins iff X_i > m − s_i (ties have probability
0), so Pr[i | X_{-i}] = S(m − s_i) (up to a null set).  For neighbours s' with |s'_j − s_j| <= Δ,
m' <= m + Δ and s'_i >= s_i − Δ, hence m' − s'_i <= m − s_i + 2Δ and, S being non-increasing,
S(m' − s'_i) >= S(m − s_i + 2Δ) >= e^{−2ΔL}·S(m − s_i).  Integrating over X_{-i} (the same law under
both) gives Pr'[i] >= e^{−2ΔL}·Pr[i]: the loss is at most 2ΔL = 2Δ/b.  Monotone neighbours (every
score moves the same way): if all move up, m' <= m + Δ and s'_i >= s_i; if all move down, m' <= m and
s'_i >= s_i − Δ; either way m' − s'_i <= m − s_i + Δ, and the loss is at most ΔL = Δ/b.
(Dwork and Roth 2014, Claim 3.9, for Laplace; the same argument with L.)

The released value and the gap: this argument gives none (the value's density has a factor per score:
it is the search that decides, `verify.selection.search`).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from verify.exact import fmt
from verify.selection.model import ReportNoisyMax, SelectionOutput


@dataclass(frozen=True)
class SelectionBound:
    """A proven bound (``value`` in nats) with its formula, or None with the reason there is none."""

    value: Fraction | None
    formula: str
    reason: str

    def to_json(self) -> dict[str, object]:
        return {"value": None if self.value is None else fmt(self.value), "formula": self.formula, "reason": self.reason}


def proven_bound(mech: ReportNoisyMax) -> SelectionBound:
    """The bound of the module docstring for the index; none for the value or the gap."""
    if mech.output is not SelectionOutput.INDEX:
        return SelectionBound(None, "", f"releasing the {mech.output.value} puts a density factor per score in the "
                                        "outcome's law; the conditioning argument bounds the index only")
    lip = mech.law.sf_lipschitz(mech.b)
    if lip is None:
        return SelectionBound(None, "", f"log S of {mech.law.name} noise has no Lipschitz constant")
    times = 1 if mech.monotone else 2
    return SelectionBound(times * mech.sensitivity * lip, f"{'' if times == 1 else '2'}Δ·L_S = {'' if times == 1 else '2'}Δ/b",
                          f"conditioning on the other noises: Pr'[i] >= e^(-{times}ΔL)·Pr[i] "
                          f"({'monotone' if times == 1 else 'any direction'} neighbours; Dwork and Roth 2014, Claim 3.9)")
