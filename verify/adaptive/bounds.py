"""The proven bound on Adaptive SVT's privacy loss: randomness alignment (docs/adaptive.md).

Ding et al. (PVLDB 2019) prove Adaptive Sparse Vector with Gap ε-DP by randomness alignment; the
argument, in this model's terms (Laplace noise, density (1/b)-log-Lipschitz:
`NoiseFamily.density_lipschitz`).  Fix neighbours q, q' (|q_i − q'_i| <= Δ) and an outcome ω.  Map
the noises of a run on q to those of a run on q': Z' = Z + Δ; for a BELOW answer ξ'_i = ξ_i and
η'_i = η_i (q'_i + ξ_i − T̂' <= q_i + ξ_i − T̂ < σ, the same for η: still below); for a MIDDLE answer
ξ'_i = ξ_i (the top test still fails) and η'_i = η_i + q_i − q'_i + Δ (the gap q'_i + η'_i − T̂' is
unchanged); for a TOP answer releasing the gap, ξ'_i = ξ_i + q_i − q'_i + Δ (the gap, hence the test
gap >= σ, unchanged).  Every shift is at most Δ (Z) or 2Δ (ξ_i, η_i), the map is a translation
(Jacobian 1) and it sends the runs giving ω on q into those giving ω on q', so

    density(ω | q) <= exp(Δ/b_Z + n_top(ω)·2Δ/b_top + n_mid(ω)·2Δ/b_mid) · density(ω | q').

The halting rule bounds the counts: every answer but the last leaves the cost at most B, so
c₀ + n_top'·c_top + n_mid'·c_mid <= B over the answers before the last, and the last adds one TOP or
MIDDLE at most.  The bound is the largest exponent over those counts (exact, rational).  With CheckDP's
and the paper's parameters it is exactly ε (the costs are these per-answer losses, times 4k/ε for
CheckDP's).  It does not apply when TOP releases q_i + ξ_i (the bad variant): the released value pins
ξ_i, so ξ'_i cannot move, and Z' = Z + Δ changes the top test.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from verify.adaptive.model import AdaptiveSVT, TopRelease
from verify.exact import fmt


@dataclass(frozen=True)
class AdaptiveBound:
    """A proven bound (``value`` in nats) with the counts that attain it, or None with the reason."""

    value: Fraction | None
    formula: str
    reason: str

    def to_json(self) -> dict[str, object]:
        return {"value": None if self.value is None else fmt(self.value), "formula": self.formula, "reason": self.reason}


def alignment_bound(mech: AdaptiveSVT) -> AdaptiveBound:
    """The bound of the module docstring (None for the bad variant or a branch that costs nothing)."""
    if mech.top_release is not TopRelease.GAP:
        return AdaptiveBound(None, "", "TOP releases q_i + ξ_i: the alignment cannot shift ξ_i (the released value pins it), "
                                       "so no bound follows; the search decides")
    law, d = mech.law, mech.sensitivity
    per_z = d * law.density_lipschitz(mech.b_threshold)
    per_top = 2 * d * law.density_lipschitz(mech.b_top)
    per_mid = 2 * d * law.density_lipschitz(mech.b_middle)
    last = max(per_top, per_mid)
    room = mech.budget - mech.initial_cost
    if room < 0:
        return AdaptiveBound(per_z + last, "Δ/b_Z + max(2Δ/b_top, 2Δ/b_mid)",
                             "c₀ > B: every run halts after its first query")
    if mech.top_cost == 0 or mech.middle_cost == 0:
        return AdaptiveBound(None, "", "a TOP or MIDDLE answer that costs nothing never brings the halt: the counts are unbounded")
    best, best_counts = Fraction(0), (0, 0)
    for a in range(int(room // mech.top_cost) + 1):
        m = int((room - a * mech.top_cost) // mech.middle_cost)
        value = a * per_top + m * per_mid
        if value > best:
            best, best_counts = value, (a, m)
    total = per_z + best + last
    return AdaptiveBound(total, "Δ/b_Z + n_top·2Δ/b_top + n_mid·2Δ/b_mid, the counts the budget allows",
                         f"randomness alignment (Ding et al. 2019): {fmt(per_z)} for the threshold, at most "
                         f"{best_counts[0]} top and {best_counts[1]} middle answers before the last "
                         f"({fmt(per_top)}, {fmt(per_mid)} each) and one more ({fmt(last)})")
