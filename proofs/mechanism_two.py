"""Seed, "Mechanism Two" (Exp(3Δ/ε) noise) and its proof: M2.*.

The proof writes the conditional probability of s_i with the survival
function exp(-(ε/3Δ) max{0, t+z-q_i(D)}), substitutes y = z + κ in the one of
D', and concludes "Comparing the integrands we have" the ratio <= exp(ε).
The pointwise comparison fails where the supports differ: for κ > 0 and
0 <= y < κ the density p(y - κ) of the shifted D' integrand is 0 while
p(y) > 0 (M2.compare.integrand, refuted).  A case split on the sign of κ
repairs the step (M2.compare.integrand.corrected).
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from proofs import conditional as C
from proofs import expressions as E
from proofs import seed as S
from proofs.build import (
    COND_PARAMS,
    COND_QUANTIFIERS,
    NEIGHBOUR_QUANTIFIERS,
    claim,
    conclusion,
    link,
    theorem_conclusion,
    with_notes,
)
from proofs.claim import Outcome
from proofs.mechanism_one import THEOREM_HYPOTHESES, THEOREM_PARAMS, THEOREM_QUANTIFIERS
from proofs.mechanism_two_checks import (
    Y_GRID,
    Y_PARAMS,
    check_compare,
    check_m2_shift,
    check_nested,
    check_noisy_max,
    check_survival,
    corrected_lr,
    corrected_upper,
    mp_corrected,
    sample_y,
)
from proofs.shared_checks import (
    EVENT_PARAMS,
    KAPPA_PARAMS,
    check_conditioning,
    check_definitions,
    check_event,
    check_integration,
    check_kappa,
    conditional_bound_check,
    ratio_sweep_check,
)
from proofs.steps import equality_check, pointwise_check

SECTION = "Mechanism Two"
FAMILY = "exponential"
HYP = (
    "Z, X_1, X_2, ... independent, Exp(3Δ/ε): density p(v) = (ε/3Δ) exp(-(ε/3Δ) v) on v >= 0, 0 below",
    "M(D, x_{i-1}) = max_{1<=j<=i-1}(q_j(D) + x_j), -∞ for i = 1",
)


def check_theorem(**params: Any) -> Outcome:
    return ratio_sweep_check(FAMILY, "halt", **params)


claim(
    "M2.theorem",
    "privacy of Mechanism Two for every s_i",
    "Mechanism Two, Privacy Guarantee",
    S.THEOREM,
    (S.S_I, S.THEOREM, S.M2_Z, S.M2_X),
    "the proof of Mechanism Two",
    check_theorem,
    hypotheses=THEOREM_HYPOTHESES,
    quantifiers=THEOREM_QUANTIFIERS,
    relation="in [e^-ε, e^ε]",
    mechanism="M2",
    parameters=THEOREM_PARAMS,
)


claim(
    "M2.noisy_max",
    "s_i as two report-noisy-max events",
    SECTION,
    r"\mathcal{A}(D) = s_i \iff \hat t = \max(\hat t, \hat q(D_1), \ldots, \hat q(D_{i - 1})) \ \wedge\ \hat q(D_i) = \max(\hat t, \hat q(D_1), \ldots, \hat q(D_{i}))",
    (S.NOISY_MAX,),
    "definition of Algorithm A",
    check_noisy_max,
    explicit=False,
    hypotheses=("ties (probability 0) resolved as in the algorithm",),
    quantifiers=("i ∈ ℕ⁺",),
    relation="iff",
    mechanism="M2",
)

claim(
    "M2.event",
    "s_i as the event M < t̂ <= q̂_i (Mechanism Two)",
    SECTION,
    S.EVENT.rstrip("."),
    (S.EVENT, S.M2_M_DEF),
    "definition of Algorithm A and of the maximum (as P1.event)",
    check_event,
    hypotheses=("the maximum over no index is -∞ (i = 1)",),
    quantifiers=("i ∈ ℕ⁺",),
    sides=(E.P_D, E.PR_HAT),
    relation="iff",
    mechanism="M2",
    parameters=EVENT_PARAMS,
)


def _chain(tag: str, side: str, texts: list[tuple[str, str]], sides: list[tuple[Any, Any]], extra: list | None = None) -> tuple[str, ...]:
    who = "D" if side == "D" else "D'"
    checks = [
        ("conditioning on X_{i-1} = x_{i-1} (M2.event; Z, X_i independent of X_{i-1})", lambda **p: check_conditioning(FAMILY, **p), ()),
        ("definitions t̂ = t + Z, q̂_i = q_i + X_i", check_definitions, ()),
        ("independence of Z and X_i; Fubini", lambda **p: check_nested(side, **p), COND_PARAMS),
        ("survival function of Exp(3Δ/ε): ∫_y^∞ p = exp(-(ε/3Δ) max{0, y})", check_survival, ()),
    ]
    if extra:
        checks += extra
    ids = []
    for n, ((a, b), (why, check, params), link_sides) in enumerate(zip(texts, checks, sides, strict=True), start=1):
        cid = f"{tag}.{n}"
        ids.append(cid)
        claim(
            cid,
            f"Mechanism Two, conditional probability of {who}, link {n}",
            SECTION,
            link(a, "=" if n < 5 else S.M2_SUBST, b),
            (a, b) if n < 5 else (a, S.M2_SUBST, b),
            why,
            check,
            hypotheses=HYP,
            quantifiers=NEIGHBOUR_QUANTIFIERS if (side == "Dp" or n == 5) else COND_QUANTIFIERS,
            sides=link_sides,
            relation="=",
            mechanism="M2",
            parameters=params,
        )
    return tuple(ids)


CHAIN_LINKS = _chain(
    "M2.chain",
    "D",
    [(S.COND_D, S.EV_HAT_D), (S.EV_HAT_D, S.EV_NOISE_D), (S.EV_NOISE_D, S.M2_NESTED_D), (S.M2_NESTED_D, S.M2_SURV_D)],
    [(E.P_D, E.PR_HAT), (E.PR_HAT, E.PR_NOISE), (E.PR_NOISE, E.M2_NESTED_D), (E.M2_NESTED_D, E.M2_SURV_D)],
)


def check_chain(**params: Any) -> Outcome:
    own = equality_check(lambda pt: C.library(FAMILY, pt),
        lambda pt: C.m2_survival_form(pt),
        [],
        params=params,
        what="lhs: exact conditional probability; rhs: the last expression of the display",
    )
    return own if params else conclusion(CHAIN_LINKS, own)


claim(
    "M2.chain",
    "Mechanism Two display: the conditional probability of D with the survival form",
    SECTION,
    link(S.COND_D, "=", S.M2_SURV_D),
    (S.COND_D, S.M2_SURV_D),
    "the links M2.chain.1-4",
    check_chain,
    hypotheses=HYP,
    quantifiers=COND_QUANTIFIERS,
    sides=(E.P_D, E.M2_SURV_D),
    relation="=",
    links=CHAIN_LINKS,
    mechanism="M2",
    parameters=COND_PARAMS,
)

claim(
    "M2.kappa_bound",
    "κ ∈ [-Δ, Δ]",
    SECTION,
    S.M2_KAPPA.rstrip(" ."),
    (S.M2_KAPPA,),
    "each q_j has sensitivity at most Δ; the maximum is 1-Lipschitz (as P1.kappa_bound)",
    check_kappa,
    hypotheses=("|q_j(D) - q_j(D')| <= Δ for every j < i",),
    sides=(sp.Abs(E.kappa), E.DELTA),
    relation="in [-Δ, Δ]",
    mechanism="M2",
    parameters=KAPPA_PARAMS,
)

M2_NESTED_DP = sp.Integral(E.p(E.z) * sp.Integral(E.p(E.x_i), (E.x_i, E.t + E.z - E.qp, sp.oo)), (E.z, E.Mp - E.t, sp.oo))
DPRIME_LINKS = _chain(
    "M2.dprime",
    "Dp",
    [
        (S.COND_DP, S.EV_HAT_DP),
        (S.EV_HAT_DP, S.EV_NOISE_DP),
        (S.EV_NOISE_DP, S.M2_NESTED_DP),
        (S.M2_NESTED_DP, S.M2_SURV_DP),
        (S.M2_SURV_DP, S.M2_SHIFTED),
    ],
    [(E.P_Dp, E.PR_HAT_DP), (E.PR_HAT_DP, E.PR_NOISE_DP), (E.PR_NOISE_DP, M2_NESTED_DP), (M2_NESTED_DP, E.M2_SURV_DP),
     (E.M2_SURV_DP, E.M2_SHIFTED)],
    extra=[("substitution y = z + κ (Jacobian 1)", check_m2_shift, COND_PARAMS)],
)


def check_dprime(**params: Any) -> Outcome:
    own = equality_check(lambda pt: C.library(FAMILY, pt, "Dp"),
        lambda pt: C.m2_shifted_form(pt),
        [],
        neighbours=True,
        params=params,
        what="lhs: exact Pr[A(D') = s_i ∥ x]; rhs: the substituted integral",
    )
    return own if params else conclusion(DPRIME_LINKS, own)


claim(
    "M2.dprime",
    "Mechanism Two display for D', ending with the substitution y = z + κ",
    SECTION,
    link(S.COND_DP, "=", S.M2_SHIFTED),
    (S.COND_DP, S.M2_SUBST, S.M2_SHIFTED),
    "the links M2.dprime.1-5",
    check_dprime,
    hypotheses=HYP,
    quantifiers=NEIGHBOUR_QUANTIFIERS,
    sides=(E.P_Dp, E.M2_SHIFTED),
    relation="=",
    links=DPRIME_LINKS,
    mechanism="M2",
    parameters=COND_PARAMS,
)


COMPARE_LATEX = (
    r"p(y) \cdot \exp \left( -\frac{\epsilon}{3 \Delta} \cdot \max \big\{ 0, t + y - q_i (D) \big\} \right) \le e^{\epsilon} \, "
    r"p(y - \kappa) \cdot \exp \left( -\frac{\epsilon}{3 \Delta} \cdot \max \big\{ 0, t + y - \kappa - q_i (D') \big\} \right) "
    r"\quad \forall y \ge M(D, \vec x_{i - 1}) - t"
)

claim(
    "M2.compare.integrand",
    "the integrands compared pointwise (Mechanism Two)",
    SECTION,
    COMPARE_LATEX,
    (S.M2_COMPARE, S.M2_SURV_D, S.M2_SHIFTED, S.M2_RATIO),
    "'Comparing the integrands': p(y)/p(y-κ) <= e^{ε/3}, survival factors <= e^{2ε/3}",
    check_compare,
    explicit=False,
    hypotheses=("|κ| <= Δ (M2.kappa_bound)", "|q_i(D) - q_i(D')| <= Δ"),
    quantifiers=("every y >= M(D, x) - t", "ε > 0, Δ > 0, t ∈ ℝ"),
    sides=(E.p(E.y) * sp.exp(-E.LAM * sp.Max(0, E.t + E.y - E.q)),
           sp.exp(E.EPSILON) * E.p(E.y - E.kappa) * sp.exp(-E.LAM * sp.Max(0, E.t + E.y - E.kappa - E.qp))),
    relation="<=",
    mechanism="M2",
    parameters=Y_PARAMS,
)


claim(
    "M2.compare.integrand.corrected",
    "the comparison with a case split on the sign of κ",
    SECTION,
    r"\kappa \le 0:\ " + COMPARE_LATEX + r";\qquad \kappa > 0:\ p(z) e^{-\frac{\epsilon}{3\Delta}\max\{0, t + z - q_i(D)\}} \le e^{\epsilon/3}\, "
    r"p(z) e^{-\frac{\epsilon}{3\Delta}\max\{0, t + z - q_i(D')\}}\ \forall z,\ \text{and } M(D', \vec x_{i-1}) < M(D, \vec x_{i-1})",
    (S.M2_COMPARE,),
    "κ <= 0: where p(y) > 0 also p(y - κ) > 0 and p(y)/p(y - κ) = e^{ε|κ|/3Δ} <= e^{ε/3}, so the seed's comparison holds; "
    "κ > 0: the D' integral runs over [M(D')-t, ∞) ⊇ [M(D)-t, ∞) and only the survival factor changes (by at most e^{ε/3})",
    lambda **p: pointwise_check(corrected_lr, sample_y, corrected_upper, None, mp_corrected, Y_GRID,
        "ln ratio <= ε (κ <= 0), <= ε/3 (κ > 0)", params=p,
        notes=("with κ > 0 the conditional ratio is then <= e^{ε/3}: Pr[D'|x] >= ∫_{M(D)-t}^∞ p(z) S(t+z-q_i(D')) dz >= e^{-ε/3} Pr[D|x]",),
    ),
    explicit=False,
    hypotheses=("|κ| <= Δ", "|q_i(D) - q_i(D')| <= Δ"),
    quantifiers=("every real y (z)", "ε > 0, Δ > 0"),
    relation="<=",
    mechanism="M2",
    parameters=Y_PARAMS,
    corrects="M2.compare.integrand",
)


RATIO_LINKS = ("M2.chain", "M2.dprime", "M2.kappa_bound", "M2.compare.integrand")


def check_ratio(**params: Any) -> Outcome:
    own = conditional_bound_check(FAMILY, **params)
    if params:
        return own
    return with_notes(conclusion(RATIO_LINKS, own),
                      "the seed's inference ('comparing the integrands') rests on M2.compare.integrand, which is refuted; "
                      "the conclusion itself holds in the sweep, and M2.compare.integrand.corrected gives a valid comparison")


claim(
    "M2.ratio",
    "the conditional ratio is at most exp(ε) (Mechanism Two)",
    SECTION,
    link(S.P2_RATIO_LHS, r"\le", r"\exp(\epsilon)"),
    (S.M2_COMPARE, S.M2_RATIO),
    "'Comparing the integrands' (M2.compare.integrand) in the integrals M2.chain and M2.dprime",
    check_ratio,
    hypotheses=HYP + ("D ∼ D'",),
    quantifiers=NEIGHBOUR_QUANTIFIERS,
    sides=(E.P_D / E.P_Dp, sp.exp(E.EPSILON)),
    relation="<=",
    links=RATIO_LINKS,
    mechanism="M2",
    parameters=COND_PARAMS,
)

claim(
    "M2.integration",
    "integrating over x_{i-1} carries the bound to Pr[A(D) = s_i] (Mechanism Two)",
    SECTION,
    r"\Pr[\mathcal{A}(D) = s_i] = \int \Pr \big[ \mathcal{A}(D) = s_i \Vert \vec X_{i - 1} = \vec x_{i - 1} \big] \, dP_{\vec X_{i-1}}(\vec x_{i-1}) \ \text{(and for } D'\text{)}",
    (S.INTEGRATING,),
    "law of total probability; X_{i-1} has the same law under D and D'",
    lambda **p: check_integration(FAMILY, **p),
    explicit=False,
    hypotheses=("the noise X_{i-1} does not depend on the data",),
    relation="=",
    mechanism="M2",
)


def check_conclusion(**params: Any) -> Outcome:
    return theorem_conclusion("M2.theorem", ("M2.ratio", "M2.integration"),
                              "the proof shows only the upper bound; the lower bound follows by exchanging D and D'", params)


claim(
    "M2.conclusion",
    "Mechanism Two's proof concludes Pr[A(D)=s_i] <= e^ε Pr[A(D')=s_i]",
    SECTION,
    S.UPPER.rstrip("."),
    (S.INTEGRATING, S.UPPER),
    "integrating the conditional bound (M2.ratio) over x_{i-1} (M2.integration)",
    check_conclusion,
    hypotheses=("D ∼ D'",),
    quantifiers=("i ∈ ℕ⁺", "ε > 0, Δ > 0, t ∈ ℝ"),
    relation="<=",
    links=("M2.ratio", "M2.integration"),
    mechanism="M2",
    parameters=THEOREM_PARAMS,
)
