"""Seed, Mechanism One, "Proof 1.": P1.*.

The proof fixes i and x_{i-1}, writes the conditional probability of s_i as
an integral over the threshold noise (display "Pr[A(D)=s_i ∥ X = x] = ... ="),
shifts it by κ = M(D,x) - M(D',x), and ends with "Comparing p(z) and
p(z+κ), F(-t-z-κ+q_i(D)) and F(-t-z+q_i(D')) finishes the proof."  The
comparison's bounds are left implicit; the claims P1.compare.* use the bounds
Proof 2 writes for the same two shifts (exp(Δ·ε/3Δ) and exp(2Δ·ε/3Δ)).
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from proofs import conditional as C
from proofs import expressions as E
from proofs import seed as S
from proofs import symbolic as Y
from proofs.build import COND_PARAMS, COND_QUANTIFIERS, NEIGHBOUR_QUANTIFIERS, claim, conclusion, link, theorem_conclusion
from proofs.claim import Outcome
from proofs.laplace_pointwise import POINT_PARAMS, SAMPLE_GRID, cdf_lr, density_lr, mp_cdf, mp_density, mp_integrand, sample
from proofs.shared_checks import (
    EVENT_PARAMS,
    KAPPA_PARAMS,
    check_conditioning,
    check_definitions,
    check_event,
    check_integration,
    check_kappa,
    conditional_bound_check,
)
from proofs.steps import equality_check, pointwise_check
from proofs.symbolic import sympy_engine

#: The step of links 3 and 5 that no lemma covers: they hold by the definitions of a joint density and an expectation.
FUBINI_GAP = ("Pr[M < t + Z <= q_i + X_i] = ∫ p(z) I[M < t + z] Pr[X_i >= t + z - q_i] dz (independence: joint density "
              "p(z)p(x_i); Fubini-Tonelli for the non-negative integrand), a theorem applied by hand, not machine-checked")
DENSITY_GAP = ("E_{z~μ}[g(z)] = ∫ p(z) g(z) dz and ∫_ℝ h(z) I[z > a] dz = ∫_a^∞ h(z) dz (definitions of a density and of the "
               "integral over a half-line), applied by hand, not machine-checked")

SECTION = "Mechanism One, Proof 1"
FAMILY = "laplace"


claim(
    "P1.event",
    "s_i as the event M < t̂ <= q̂_i",
    SECTION,
    S.EVENT.rstrip("."),
    (S.EVENT_INTRO, S.EVENT, S.M_DEF),
    "definition of Algorithm A (halt at the first i with q̂_i(D) >= t̂) and of the maximum",
    check_event,
    hypotheses=("M(D, X_{i-1}) = max_{j<i}(q_j(D) + X_j), the maximum over no index being -∞ (i = 1)",),
    quantifiers=("i ∈ ℕ⁺", "all real values of t̂, q̂_1(D), ..., q̂_i(D)"),
    sides=(E.P_D, E.PR_HAT),
    relation="iff",
    mechanism="M1",
    parameters=EVENT_PARAMS,
)


# --- P1.chain -------------------------------------------------------------------------------------------------------
def check_chain_3(**params: Any) -> Outcome:
    return equality_check(lambda pt: C.library(FAMILY, pt),
        lambda pt: C.p1_survival_form(pt),
        [
            ("∫_y^∞ p = 1 - F(y) for every real y (so Pr[X_i >= y] = 1 - F(y))", Y.cdf_lemma(FAMILY)),
            ("p integrates to 1", Y.normalised(FAMILY)),
        ],
        params=params,
        what="lhs: exact Pr[M < t + Z <= q_i(D) + X_i] (library); rhs: E_z[I[M < t+z](1 - F(t+z-q_i(D)))] by quadrature",
        gap=FUBINI_GAP,
    )


def check_chain_4(**params: Any) -> Outcome:
    return equality_check(lambda pt: C.p1_survival_form(pt),
        lambda pt: C.p1_expectation_cdf_form(pt),
        [("1 - F(y) = F(-y) for every real y", Y.laplace_symmetry())],
        params=params,
        what="lhs: E_z[I[M<t+z](1 - F(t+z-q_i))]; rhs: E_z[I[M<t+z] F(-t-z+q_i)]",
    )


@sympy_engine
def indicator_limit() -> bool:
    """sympy: M < t + z is the same inequality as z > M - t."""
    Mx, t, zz = sp.symbols("M t z", real=True)
    return sp.simplify((t + zz - Mx) - (zz - (Mx - t))) == 0


def check_chain_5(**params: Any) -> Outcome:
    return equality_check(lambda pt: C.p1_expectation_cdf_form(pt),
        lambda pt: C.p1_integral_form(pt),
        [("I[M < t + z] = I[z > M - t]", indicator_limit()), ("p integrates to 1", Y.normalised(FAMILY))],
        params=params,
        gap=DENSITY_GAP,
        what="lhs: the expectation with the indicator over ℝ; rhs: ∫_{M-t}^∞ p(z) F(-t-z+q_i(D)) dz",
    )


@sympy_engine
def shift_substitution() -> bool:
    """sympy, for arbitrary p and F: the change of variables z = w + κ (``Integral.transform``, which
    multiplies by the Jacobian and moves the limits) turns ∫_{M(D)-t}^∞ p(z) F(-t-z+q_i(D)) dz into the seed's
    ∫_{M(D')-t}^∞ p(w+κ) F(-t-w-κ+q_i(D)) dw, with κ = M(D) - M(D')."""
    p, F = sp.Function("p"), sp.Function("F")
    zz, w, k, t, q, Md, Mdp = sp.symbols("z w kappa t q M_D M_Dp", real=True)
    before = sp.Integral(p(zz) * F(-t - zz + q), (zz, Md - t, sp.oo))
    seed = sp.Integral(p(w + k) * F(-t - w - k + q), (w, Mdp - t, sp.oo))
    moved = before.transform(zz, (w + k, w))
    return Y.same_integral(moved.subs(k, Md - Mdp), seed.subs(k, Md - Mdp))


def check_chain_6(**params: Any) -> Outcome:
    return equality_check(lambda pt: C.p1_integral_form(pt),
        lambda pt: C.p1_shifted_form(pt),
        [("the change of variables z = w + κ (sympy's Integral.transform: Jacobian 1, limits moved) turns the integral into the "
          "seed's, for arbitrary p and F", shift_substitution())],
        neighbours=True,
        params=params,
        what="lhs: ∫_{M(D)-t}^∞ p(z) F(-t-z+q_i(D)) dz; rhs: ∫_{M(D')-t}^∞ p(z+κ) F(-t-z-κ+q_i(D)) dz",
    )


CHAIN_LINKS = ("P1.chain.1", "P1.chain.2", "P1.chain.3", "P1.chain.4", "P1.chain.5", "P1.chain.6")


def check_chain(**params: Any) -> Outcome:
    own = equality_check(lambda pt: C.library(FAMILY, pt),
        lambda pt: C.p1_shifted_form(pt),
        [],
        neighbours=True,
        params=params,
        what="lhs: exact conditional probability; rhs: the last expression of the display",
    )
    return own if params else conclusion(CHAIN_LINKS, own)


CHAIN_HYP = (
    "Z, X_1, X_2, ... independent, Lap(3Δ/ε) (μ, density p, CDF F)",
    "M(D, x_{i-1}) = max_{j<i}(q_j(D) + x_j), -∞ for i = 1",
)
LINKS_TEXT = [
    (S.COND_D, S.EV_HAT_D, "conditioning on X_{i-1} = x_{i-1} (P1.event; Z, X_i independent of X_{i-1})",
     lambda **p: check_conditioning(FAMILY, **p), (E.P_D, E.PR_HAT)),
    (S.EV_HAT_D, S.EV_NOISE_D, "definitions t̂ = t + Z, q̂_i(D) = q_i(D) + X_i", check_definitions, (E.PR_HAT, E.PR_NOISE)),
    (S.EV_NOISE_D, S.P1_E_SURVIVAL, "Fubini (integrate X_i first): Pr[X_i >= y] = 1 - F(y)", check_chain_3, (E.PR_NOISE, E.P1_SURVIVAL)),
    (S.P1_E_SURVIVAL, S.P1_E_CDF, "symmetry of the Laplace CDF: 1 - F(y) = F(-y)", check_chain_4, (E.P1_SURVIVAL, E.P1_E_CDF)),
    (S.P1_E_CDF, S.P1_INTEGRAL_D, "expectation as an integral against the density; the indicator as the lower limit", check_chain_5,
     (E.P1_E_CDF, E.P1_INTEGRAL_D)),
    (S.P1_INTEGRAL_D, S.P1_SHIFTED, "substitution z -> z + κ, κ = M(D,x) - M(D',x) (Jacobian 1)", check_chain_6,
     (E.P1_INTEGRAL_D, E.P1_SHIFTED)),
]
for n, (a, b, why, chk, sides) in enumerate(LINKS_TEXT, start=1):
    claim(
        f"P1.chain.{n}",
        f"Proof 1 display, link {n}",
        SECTION,
        link(a, "=", b),
        (a, b, *((S.P1_KAPPA,) if n == 6 else ()), *((S.P1_FUBINI,) if n == 3 else ())),
        why,
        chk,
        hypotheses=CHAIN_HYP,
        quantifiers=NEIGHBOUR_QUANTIFIERS if n == 6 else COND_QUANTIFIERS,
        sides=sides,
        relation="=",
        mechanism="M1",
        parameters=() if n <= 2 else COND_PARAMS,
    )

claim(
    "P1.chain",
    "Proof 1 display: the conditional probability as the shifted integral",
    SECTION,
    link(S.COND_D, "=", S.P1_SHIFTED),
    (S.COND_D, S.P1_SHIFTED, S.P1_KAPPA),
    "the links P1.chain.1-6",
    check_chain,
    hypotheses=CHAIN_HYP,
    quantifiers=NEIGHBOUR_QUANTIFIERS,
    sides=(E.P_D, E.P1_SHIFTED),
    relation="=",
    links=CHAIN_LINKS,
    mechanism="M1",
    parameters=COND_PARAMS,
)


def check_dprime(**params: Any) -> Outcome:
    own = equality_check(lambda pt: C.library(FAMILY, pt, "Dp"),
        lambda pt: C.p1_integral_form(pt, "Dp"),
        [],
        neighbours=True,
        params=params,
        what="lhs: exact Pr[A(D') = s_i ∥ x]; rhs: ∫_{M(D')-t}^∞ p(z) F(-t-z+q_i(D')) dz",
    )
    return own if params else conclusion(CHAIN_LINKS[:5], own)


claim(
    "P1.dprime",
    "the conditional probability for D'",
    SECTION,
    link(S.COND_DP, "=", S.P1_INTEGRAL_DP),
    (S.COND_DP, S.P1_INTEGRAL_DP),
    "'Similarly': the links P1.chain.1-5 with D' in place of D",
    check_dprime,
    hypotheses=CHAIN_HYP,
    quantifiers=NEIGHBOUR_QUANTIFIERS,
    sides=(E.P_Dp, E.P1_INTEGRAL_DP),
    relation="=",
    links=CHAIN_LINKS[:5],
    mechanism="M1",
    parameters=COND_PARAMS,
)


claim(
    "P1.kappa_bound",
    "|κ| <= Δ",
    SECTION,
    r"|\kappa| = |M(D, \vec x_{i - 1}) - M(D', \vec x_{i - 1})| \le \Delta",
    (S.P1_KAPPA, S.P1_COMPARE),
    "each q_j has sensitivity at most Δ; the maximum is 1-Lipschitz",
    check_kappa,
    explicit=False,
    hypotheses=("|q_j(D) - q_j(D')| <= Δ for every j < i",),
    quantifiers=("i >= 2, x_{i-1} ∈ ℝ^{i-1}",),
    sides=(sp.Abs(E.M - E.Mp), E.DELTA),
    relation="<=",
    mechanism="M1",
    parameters=KAPPA_PARAMS,
)



claim(
    "P1.compare.density",
    "p(z+κ)/p(z) within e^{±ε/3}",
    SECTION,
    r"e^{-\epsilon/3} \le \frac{p(z + \kappa)}{p(z)} \le e^{\epsilon/3} \quad (|\kappa| \le \Delta)",
    (S.P1_COMPARE, S.P2_RATIO_3),
    "|z| - |z + κ| <= |κ| (triangle inequality) and p_b(x) ∝ exp(-|x|/b), b = 3Δ/ε; bound as in Proof 2's exp(Δ·ε/3Δ)",
    lambda **p: pointwise_check(density_lr, sample, lambda p_: p_["eps"] / 3, lambda p_: -p_["eps"] / 3, mp_density,
        SAMPLE_GRID, "e^{-ε/3} <= ratio <= e^{ε/3}", params=p, certify=("factor:density", FAMILY),
    ),
    explicit=False,
    hypotheses=("|κ| <= Δ (P1.kappa_bound)",),
    quantifiers=("z ∈ ℝ", "ε > 0, Δ > 0"),
    sides=(E.p(E.z + E.kappa) / E.p(E.z), sp.exp(E.EPSILON / 3)),
    relation="in [e^-ε/3, e^ε/3]",
    mechanism="M1",
    parameters=POINT_PARAMS,
)

claim(
    "P1.compare.cdf",
    "F(-t-z-κ+q_i(D))/F(-t-z+q_i(D')) within e^{±2ε/3}",
    SECTION,
    r"e^{-2\epsilon/3} \le \frac{F \big( - t - z - \kappa + q_i(D) \big)}{F \big( - t - z + q_i(D') \big)} \le e^{2\epsilon/3}",
    (S.P1_COMPARE, S.P2_RATIO_3),
    "the arguments differ by q_i(D) - q_i(D') - κ ∈ [-2Δ, 2Δ] and ln F is (1/b)-Lipschitz; bound as in Proof 2's exp(2Δ·ε/3Δ)",
    lambda **p: pointwise_check(cdf_lr, sample, lambda p_: 2 * p_["eps"] / 3, lambda p_: -2 * p_["eps"] / 3, mp_cdf,
        SAMPLE_GRID, "e^{-2ε/3} <= ratio <= e^{2ε/3}", params=p, certify=("factor:cdf", FAMILY),
    ),
    explicit=False,
    hypotheses=("|κ| <= Δ", "|q_i(D) - q_i(D')| <= Δ"),
    quantifiers=("z ∈ ℝ, t ∈ ℝ", "ε > 0, Δ > 0"),
    sides=(E.F(-E.t - E.z - E.kappa + E.q) / E.F(-E.t - E.z + E.qp), sp.exp(2 * E.EPSILON / 3)),
    relation="in [e^-2ε/3, e^2ε/3]",
    mechanism="M1",
    parameters=POINT_PARAMS,
)

claim(
    "P1.compare.integrand",
    "the integrands of D and D' within e^{±ε} pointwise",
    SECTION,
    r"e^{-\epsilon} \le \frac{p(z + \kappa) \cdot F \big( - t - z - \kappa + q_i(D) \big)}{p(z) \cdot F \big( - t - z + q_i(D') \big)} \le e^{\epsilon}",
    (S.P1_COMPARE, S.P1_SHIFTED, S.P1_INTEGRAL_DP),
    "product of P1.compare.density and P1.compare.cdf: ε/3 + 2ε/3 = ε",
    lambda **p: pointwise_check(lambda p_: density_lr(p_) + cdf_lr(p_), sample, lambda p_: p_["eps"], lambda p_: -p_["eps"], mp_integrand,
        SAMPLE_GRID, "e^{-ε} <= ratio <= e^{ε}", params=p, certify=("factor:integrand", FAMILY),
    ),
    explicit=False,
    hypotheses=("|κ| <= Δ", "|q_i(D) - q_i(D')| <= Δ"),
    quantifiers=("z >= M(D', x) - t (every real z)", "ε > 0, Δ > 0"),
    sides=(E.p(E.z + E.kappa) * E.F(-E.t - E.z - E.kappa + E.q) / (E.p(E.z) * E.F(-E.t - E.z + E.qp)), sp.exp(E.EPSILON)),
    relation="in [e^-ε, e^ε]",
    mechanism="M1",
    parameters=POINT_PARAMS,
)


claim(
    "P1.conclusion.1",
    "the conditional ratio lies in [e^{-ε}, e^{ε}]",
    SECTION,
    r"e^{-\epsilon} \le \frac{\Pr \big[ \mathcal{A}(D) = s_i \Vert \vec X_{i - 1} = \vec x_{i - 1} \big]}{\Pr \big[ \mathcal{A}(D') = s_i \Vert \vec X_{i - 1} = \vec x_{i - 1} \big]} \le e^{\epsilon}",
    (S.P1_COMPARE, S.COND_D, S.COND_DP),
    "integrate the pointwise bound P1.compare.integrand over z >= M(D',x) - t (P1.chain, P1.dprime)",
    lambda **p: conditional_bound_check(FAMILY, **p),
    explicit=False,
    hypotheses=("D ∼ D'",),
    quantifiers=NEIGHBOUR_QUANTIFIERS,
    sides=(E.P_D / E.P_Dp, sp.exp(E.EPSILON)),
    relation="in [e^-ε, e^ε]",
    mechanism="M1",
    parameters=COND_PARAMS,
)


claim(
    "P1.conclusion.2",
    "integrating over x_{i-1} carries the bound to Pr[A(D) = s_i]",
    SECTION,
    r"\Pr[\mathcal{A}(D) = s_i] = \int \Pr \big[ \mathcal{A}(D) = s_i \Vert \vec X_{i - 1} = \vec x_{i - 1} \big] \, dP_{\vec X_{i-1}}(\vec x_{i-1}) \ \text{(and for } D'\text{)}",
    (S.P1_COMPARE,),
    "law of total probability; X_{i-1} has the same law under D and D'",
    lambda **p: check_integration(FAMILY, **p),
    explicit=False,
    hypotheses=("the noise X_{i-1} does not depend on the data",),
    quantifiers=("i ∈ ℕ⁺",),
    relation="=",
    mechanism="M1",
)

CONCLUSION_LINKS = (
    "P1.chain",
    "P1.dprime",
    "P1.kappa_bound",
    "P1.compare.density",
    "P1.compare.cdf",
    "P1.compare.integrand",
    "P1.conclusion.1",
    "P1.conclusion.2",
)


def check_conclusion(**params: Any) -> Outcome:
    return theorem_conclusion("M1.theorem", CONCLUSION_LINKS, "Proof 1 concludes both bounds (the comparisons are two-sided)", params)


claim(
    "P1.conclusion",
    "Proof 1 concludes the theorem",
    SECTION,
    S.THEOREM,
    (S.P1_COMPARE, S.THEOREM),
    "'Comparing ... finishes the proof': the comparisons bound the conditional ratio; integrating over x gives the theorem",
    check_conclusion,
    explicit=False,
    hypotheses=("D ∼ D'",),
    quantifiers=("i ∈ ℕ⁺",),
    relation="in [e^-ε, e^ε]",
    links=CONCLUSION_LINKS,
    mechanism="M1",
    parameters=(("eps", "ε"), ("delta", "Δ"), ("t", "t"), ("queries", "q(D)"), ("neighbour", "q(D')")),
)
