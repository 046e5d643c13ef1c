"""Mechanism Two's remark read quantitatively (proofs/noisy_max_twice.py): the probabilities of the two
report-noisy-max events against Mechanism Two's, with values derived by hand.

Hand values (b = 3Δ/ε = 3 at ε = Δ = 1, t = 0, q = (1/2, -1)), from exponential RNM's closed form
Pr[i] = Σ_{A ⊆ others} (-1)^{|A|} e^{(s_i + Σ_A s_j - (1+|A|)m)/b}/(1+|A|), m = max s:
R_1 = Pr[t̂ > q̂_1] = e^{-1/6}/2; R_2 = Pr[t̂ > q̂_1, q̂_2] = e^{-1/6}/2 - e^{-2/3}/6; so Pr[s_1] = 1 - R_1,
Pr[s_2] = R_1 - R_2 = e^{-2/3}/6 and Pr[⊤^2] = R_2; Pr[E_2] = Pr[q̂_2 is the max] = e^{-1/2}/2 - e^{-2/3}/6.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from proofs import get_claim
from proofs.claim import ClaimVerdict

HALF, ONE = Fraction(1, 2), Fraction(1)


def _remark():
    """proofs.noisy_max_twice, imported once every claim module is (importing it at collection would register its
    claims before the others and change the order of `proofs.all_claims`, which the generated tables follow)."""
    get_claim("M2.noisy_max.product")
    import proofs.noisy_max_twice as remark

    return remark


def _hand() -> dict[str, mpmath.mpf]:
    r1 = mpmath.exp(-mpmath.mpf(1) / 6) / 2
    r2 = r1 - mpmath.exp(-mpmath.mpf(2) / 3) / 6
    e2 = mpmath.exp(-mpmath.mpf(1) / 2) / 2 - mpmath.exp(-mpmath.mpf(2) / 3) / 6
    return {"R1": r1, "R2": r2, "s1": 1 - r1, "s2": r1 - r2, "top2": r2, "E2": e2}


def _close(a, b, digits: int = 28) -> bool:
    return abs(mpmath.mpf(a) - b) <= abs(b) * mpmath.mpf(10) ** -digits


def test_threshold_probabilities_of_the_model_match_the_hand_values() -> None:
    model_index = _remark().model_index
    with mpmath.workdps(40):
        h = _hand()
        assert _close(model_index(ONE, (Fraction(0), HALF), 0), h["R1"])
        assert _close(model_index(ONE, (Fraction(0), HALF, Fraction(-1)), 0), h["R2"])
        assert _close(model_index(ONE, (Fraction(0), HALF, Fraction(-1)), 2), h["E2"])


def test_mechanism_two_is_the_difference_in_this_direction() -> None:
    """Pr[s_i] = R_{i-1} - R_i (threshold beats the first i-1 queries but not the i-th), not R_i - R_{i-1}."""
    with mpmath.workdps(40):
        h = _hand()
        p = _remark().m2_outputs(ONE, (HALF, Fraction(-1)))
        assert _close(p[0], h["s1"]) and _close(p[1], h["s2"]) and _close(p[2], h["top2"])
        assert h["s2"] > 0 and _close(p[1], h["R1"] - h["R2"])


def test_the_corrected_claim_holds_by_the_model_and_the_closed_form() -> None:
    v = get_claim("M2.noisy_max.product.corrected").check()
    assert v.verdict is ClaimVerdict.CONSISTENT, v.method
    assert v.evidence.points >= 40 and v.evidence.digits == 30
    assert mpmath.mpf(v.evidence.max_discrepancy) < mpmath.mpf(10) ** -28
    assert v.evidence.by_hand, "additivity and the tie convention are steps by hand"
    assert any("0 mismatches" in n for n in v.evidence.notes)
    at = get_claim("M2.noisy_max.product.corrected").check(eps="1/2", queries="3,0,-1")
    assert at.verdict is ClaimVerdict.CONSISTENT


def test_the_product_reading_is_refuted_with_the_hand_values() -> None:
    v = get_claim("M2.noisy_max.product").check()
    assert v.verdict is ClaimVerdict.REFUTED
    cx = v.evidence.counterexample
    assert cx.values == {"eps": "1", "queries": "1/2,-1"}
    with mpmath.workdps(40):
        h = _hand()
        assert _close(cx.lhs, h["s2"]) and _close(cx.rhs, h["R1"] * h["E2"])
        gap = (mpmath.exp(-mpmath.mpf(2) / 3) - mpmath.exp(-mpmath.mpf(5) / 6)) / 12
        assert _close(mpmath.mpf(cx.rhs) - mpmath.mpf(cx.lhs), gap, 25)


def test_the_product_holds_where_the_noises_are_exchangeable() -> None:
    """At q = (0, 0) = t the three noisy values are exchangeable: Pr[s_2] = 1/6 = 1/2·1/3."""
    v = get_claim("M2.noisy_max.product").check(eps="1", queries="0,0")
    assert v.verdict is ClaimVerdict.CONSISTENT


@pytest.mark.parametrize("index", [0, 1, 2])
def test_closed_form_against_the_model_on_every_index(index: int) -> None:
    scores = (Fraction(0), Fraction(5, 2), Fraction(-3, 4))
    remark = _remark()
    with mpmath.workdps(40):
        assert _close(remark.closed_index(scores, index, Fraction(3, 2)), remark.model_index(Fraction(2), scores, index))


def test_the_budget_reading_costs_a_third_and_two_thirds() -> None:
    """E_1 = [t̂ beats q̂_1..q̂_{i-1}] costs exactly ε/3 (attained: Pr[E_1] = e^{-q_1/b}/2 for one query q_1 >= t), E_2 at
    most 2ε/3 (approached, never reached in the sweep); a bound swapped between the two events would fail here."""
    v = get_claim("M2.noisy_max.budget").check()
    assert v.verdict is ClaimVerdict.CONSISTENT, v.method
    assert v.evidence.by_hand
    remark = _remark()
    n, worst1, worst2, bad = remark.budget_sweep()
    assert not bad and n >= 100
    assert abs(worst1 - 1) < mpmath.mpf(10) ** -25  # ε/3 attained by E_1
    assert mpmath.mpf("0.9") < worst2 < 1  # 2ε/3 approached by E_2, not attained at these bases
    assert worst2 > mpmath.mpf(1) / 2  # E_2 costs more than ε/3: the two budgets are not interchangeable
    with mpmath.workdps(40):
        loss = remark.event_loss(ONE, (Fraction(0),), (ONE,), 1)
        assert abs(loss - mpmath.mpf(1) / 3) < mpmath.mpf(10) ** -30
