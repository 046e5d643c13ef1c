"""Seed, Mechanism One, "Proof 2.": P2.*.

Proof 2 writes both conditional probabilities as double integrals over
(z, x_i), substitutes (z', x_i') by two linear equations under which the
indicators agree, bounds the shifts |z' - z| <= Δ and |x_i' - x_i| <= 2Δ,
notes the Jacobian is 1, and bounds the ratio of the double integrals by
exp(Δ·ε/3Δ)·exp(2Δ·ε/3Δ) <= exp(ε).
"""

from __future__ import annotations

from typing import Any

import sympy as sp

from proofs import expressions as E
from proofs import seed as S
from proofs.build import COND_PARAMS, COND_QUANTIFIERS, NEIGHBOUR_QUANTIFIERS, claim, conclusion, link, theorem_conclusion
from proofs.claim import Outcome
from proofs.proof2_checks import (
    EQUATIONS,
    RATIO3_PARAMS,
    check_double,
    check_jacobian,
    check_ratio_1,
    check_ratio_2,
    check_ratio_3,
    check_substitution,
    exponent_identity,
    shift_x_identities,
    shift_z_identity,
    sym_check,
    triangle_vertices,
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
)

SECTION = "Mechanism One, Proof 2"
FAMILY = "laplace"
HYP = (
    "Z, X_i independent with densities p(z), p(x_i) of Lap(3Δ/ε)",
    "M(D, x_{i-1}) = max_{j<i}(q_j(D) + x_j), -∞ for i = 1",
)
claim(
    "P2.event",
    "s_i as the event M < t̂ <= q̂_i (Proof 2)",
    SECTION,
    S.EVENT.rstrip("."),
    (S.EVENT_INTRO, S.EVENT, S.M_DEF),
    "definition of Algorithm A and of the maximum (as P1.event)",
    check_event,
    hypotheses=("the maximum over no index is -∞ (i = 1)",),
    quantifiers=("i ∈ ℕ⁺", "all real values of t̂, q̂_1(D), ..., q̂_i(D)"),
    sides=(E.P_D, E.PR_HAT),
    relation="iff",
    mechanism="M1",
    parameters=EVENT_PARAMS,
)


def _double_conclusion(side: str, links: tuple[str, ...]):
    def check(**params: Any) -> Outcome:
        own = check_double(side, lemmas=False, **params)
        return own if params else conclusion(links, own)

    return check


for side, tag, cond, hat, noise, double, (pd, pr_hat, pr_noise, dbl) in (
    ("D", "P2.double_integral", S.COND_D, S.EV_HAT_D, S.EV_NOISE_D, S.P2_DOUBLE_D, (E.P_D, E.PR_HAT, E.PR_NOISE, E.P2_DOUBLE_D)),
    ("Dp", "P2.dprime", S.COND_DP, S.EV_HAT_DP, S.EV_NOISE_DP, S.P2_DOUBLE_DP,
     (E.P_Dp, E.PR_HAT_DP, E.PR_NOISE_DP, E.P2_DOUBLE_DP)),
):
    who = "D" if side == "D" else "D'"
    links = (f"{tag}.1", f"{tag}.2", f"{tag}.3")
    claim(
        f"{tag}.1",
        f"Proof 2, conditional probability of {who}, link 1",
        SECTION,
        link(cond, "=", hat),
        (cond, hat),
        "conditioning on X_{i-1} = x_{i-1} (P2.event; Z, X_i independent of X_{i-1})",
        lambda **p: check_conditioning(FAMILY, **p),
        hypotheses=HYP,
        quantifiers=COND_QUANTIFIERS,
        sides=(pd, pr_hat),
        relation="=",
        mechanism="M1",
    )
    claim(
        f"{tag}.2",
        f"Proof 2, conditional probability of {who}, link 2",
        SECTION,
        link(hat, "=", noise),
        (hat, noise),
        "definitions t̂ = t + Z, q̂_i = q_i + X_i",
        check_definitions,
        hypotheses=HYP,
        quantifiers=COND_QUANTIFIERS,
        sides=(pr_hat, pr_noise),
        relation="=",
        mechanism="M1",
    )
    claim(
        f"{tag}.3",
        f"Proof 2, conditional probability of {who}, link 3 (the double integral)",
        SECTION,
        link(noise, "=", double),
        (noise, double, S.INDEPENDENT),
        "independence: joint density p(z)·p(x_i); probability of an event as the integral of its indicator",
        (lambda sd: (lambda **p: check_double(sd, **p)))(side),
        hypotheses=HYP,
        quantifiers=NEIGHBOUR_QUANTIFIERS if side == "Dp" else COND_QUANTIFIERS,
        sides=(pr_noise, dbl),
        relation="=",
        mechanism="M1",
        parameters=COND_PARAMS,
    )
    claim(
        tag,
        f"Proof 2: the conditional probability of {who} as a double integral",
        SECTION,
        link(cond, "=", double),
        (cond, double),
        f"the links {tag}.1-3",
        _double_conclusion(side, links),
        hypotheses=HYP,
        quantifiers=NEIGHBOUR_QUANTIFIERS if side == "Dp" else COND_QUANTIFIERS,
        sides=(pd, dbl),
        relation="=",
        links=links,
        mechanism="M1",
        parameters=COND_PARAMS,
    )


claim(
    "P2.substitution",
    "under the two equations the indicators agree",
    SECTION,
    S.P2_INDICATORS.rstrip("."),
    (S.P2_EQ_Z, S.P2_EQ_X, S.P2_INDICATORS),
    "the two equations say t + z' - M(D') = t + z - M(D) and q_i(D') + x_i' - (t + z') = q_i(D) + x_i - (t + z)",
    check_substitution,
    hypotheses=tuple(f"{e.lhs} = {e.rhs}" for e in EQUATIONS),
    quantifiers=("z, x_i ∈ ℝ",),
    sides=(E.Ind(sp.And(E.Mp < E.t + E.zp, E.t + E.zp <= E.qp + E.xp)), E.Ind(sp.And(E.M < E.t + E.z, E.t + E.z <= E.q + E.x_i))),
    relation="=",
    mechanism="M1",
)


claim(
    "P2.shift_z.1",
    "|z' - z| = |M(D') - M(D)|",
    SECTION,
    r"|z' - z| = |M(D', \vec x_{i - 1}) - M(D, \vec x_{i - 1})|",
    (S.P2_SHIFT_Z, S.P2_EQ_Z),
    "the first equation solved for z'",
    lambda **p: sym_check(shift_z_identity(), "sympy: z' - z = M(D') - M(D) from the first equation"),
    hypotheses=("the two equations",),
    sides=(sp.Abs(E.zp - E.z), sp.Abs(E.Mp - E.M)),
    relation="=",
    mechanism="M1",
)
claim(
    "P2.shift_z.2",
    "|M(D') - M(D)| <= Δ",
    SECTION,
    r"|M(D', \vec x_{i - 1}) - M(D, \vec x_{i - 1})| \le \Delta",
    (S.P2_SHIFT_Z,),
    "each q_j has sensitivity at most Δ; the maximum is 1-Lipschitz (as P1.kappa_bound)",
    check_kappa,
    hypotheses=("|q_j(D) - q_j(D')| <= Δ for every j < i",),
    sides=(sp.Abs(E.Mp - E.M), E.DELTA),
    relation="<=",
    mechanism="M1",
    parameters=KAPPA_PARAMS,
)
claim(
    "P2.shift_z",
    "|z' - z| <= Δ",
    SECTION,
    r"|z' - z| \le \Delta",
    (S.P2_SHIFT_Z,),
    "P2.shift_z.1 and P2.shift_z.2",
    lambda **p: conclusion(("P2.shift_z.1", "P2.shift_z.2"),
                           None),
    hypotheses=("the two equations", "D ∼ D'"),
    sides=(sp.Abs(E.zp - E.z), E.DELTA),
    relation="<=",
    links=("P2.shift_z.1", "P2.shift_z.2"),
    mechanism="M1",
)
claim(
    "P2.shift_x.1",
    "|x_i' - x_i| = |z' - q_i(D') - z + q_i(D)|",
    SECTION,
    r"|x_i' - x_i| = |z' - q_i(D') - z + q_i(D)|",
    (S.P2_SHIFT_X1, S.P2_EQ_X),
    "the second equation solved for x_i'",
    lambda **p: sym_check(shift_x_identities()[0], "sympy: x_i' - x_i = z' - q_i(D') - z + q_i(D) from the second equation"),
    hypotheses=("the two equations",),
    sides=(sp.Abs(E.xp - E.x_i), sp.Abs(E.zp - E.qp - E.z + E.q)),
    relation="=",
    mechanism="M1",
)
claim(
    "P2.shift_x.2",
    "= |M(D') - M(D) + q_i(D) - q_i(D')|",
    SECTION,
    link(r"|z' - q_i(D') - z + q_i(D)|", "=", r"|M(D', \vec x_{i - 1}) - M(D, \vec x_{i - 1}) + q_i(D) - q_i(D')|"),
    (S.P2_SHIFT_X1, S.P2_SHIFT_X2),
    "substitute z' - z = M(D') - M(D) (first equation)",
    lambda **p: sym_check(shift_x_identities()[1], "sympy: substituting z' from the first equation"),
    hypotheses=("the two equations",),
    sides=(sp.Abs(E.zp - E.qp - E.z + E.q), sp.Abs(E.Mp - E.M + E.q - E.qp)),
    relation="=",
    mechanism="M1",
)
claim(
    "P2.shift_x.3",
    "<= 2Δ",
    SECTION,
    link(r"|M(D', \vec x_{i - 1}) - M(D, \vec x_{i - 1}) + q_i(D) - q_i(D')|", r"\le", r"2 \cdot \Delta"),
    (S.P2_SHIFT_X2, S.P2_SHIFT_X3),
    "triangle inequality with |M(D') - M(D)| <= Δ (P2.shift_z.2) and |q_i(D) - q_i(D')| <= Δ",
    lambda **p: conclusion(("P2.shift_z.2",),
        sym_check(triangle_vertices(),
                   "sympy: |a + b| <= 2Δ at the 4 vertices of [-Δ, Δ]^2, hence on the square (|a + b| is convex); a = M(D') - M(D), b = q_i(D) - q_i(D')"),
    ),
    hypotheses=("|M(D') - M(D)| <= Δ", "|q_i(D) - q_i(D')| <= Δ"),
    sides=(sp.Abs(E.Mp - E.M + E.q - E.qp), 2 * E.DELTA),
    relation="<=",
    links=("P2.shift_z.2",),
    mechanism="M1",
)
claim(
    "P2.shift_x",
    "|x_i' - x_i| <= 2Δ",
    SECTION,
    r"|x_i' - x_i| \le 2 \cdot \Delta",
    (S.P2_SHIFT_X1, S.P2_SHIFT_X3),
    "P2.shift_x.1-3",
    lambda **p: conclusion(("P2.shift_x.1", "P2.shift_x.2", "P2.shift_x.3"), None),
    hypotheses=("the two equations", "D ∼ D'"),
    sides=(sp.Abs(E.xp - E.x_i), 2 * E.DELTA),
    relation="<=",
    links=("P2.shift_x.1", "P2.shift_x.2", "P2.shift_x.3"),
    mechanism="M1",
)


claim(
    "P2.jacobian",
    "the Jacobian of (x_i, z) -> (x_i', z') is 1",
    SECTION,
    S.P2_JACOBIAN.rstrip(","),
    (S.P2_JACOBIAN,),
    "(x_i', z') is (x_i, z) plus a constant (the two equations)",
    check_jacobian,
    hypotheses=("the two equations",),
    sides=(sp.Matrix([[1, 0], [0, 1]]).det(), sp.Integer(1)),
    relation="=",
    mechanism="M1",
)


RATIO_LINKS = ("P2.ratio.1", "P2.ratio.2", "P2.ratio.3", "P2.ratio.4")
RATIO_SIDES = {
    3: (E.P_D / E.P_Dp, sp.exp(E.DELTA * E.EPSILON / (3 * E.DELTA)) * sp.exp(2 * E.DELTA * E.EPSILON / (3 * E.DELTA))),
    4: (sp.Mul(sp.exp(E.EPSILON / 3, evaluate=False), sp.exp(2 * E.EPSILON / 3, evaluate=False), evaluate=False), sp.exp(E.EPSILON)),
}
for n, (a, rel, b, why, chk, _extra) in enumerate(
    (
        (S.P2_RATIO_LHS, "=", S.P2_RATIO_1, "P2.double_integral and P2.dprime", check_ratio_1, {}),
        (S.P2_RATIO_1, "=", S.P2_RATIO_2, "integration by substitution (P2.substitution, P2.jacobian)", check_ratio_2, {}),
        (S.P2_RATIO_2, r"\le", S.P2_RATIO_3, "pointwise: p(z)/p(z') <= exp(|z'-z|/b), p(x_i)/p(x_i') <= exp(|x_i'-x_i|/b) with P2.shift_z, P2.shift_x", check_ratio_3, {}),
        (S.P2_RATIO_3, r"\le", S.P2_RATIO_4, "exp(ε/3)·exp(2ε/3) = exp(ε)",
         lambda **p: sym_check(exponent_identity(), "sympy: exp(Δ·ε/3Δ)·exp(2Δ·ε/3Δ) - exp(ε) = 0, so <= holds (with equality)"), {}),
    ),
    start=1,
):
    claim(
        f"P2.ratio.{n}",
        f"Proof 2 ratio display, link {n}",
        SECTION,
        link(a, rel, b),
        (a, b),
        why,
        chk,
        hypotheses=HYP + ("D ∼ D'",),
        quantifiers=NEIGHBOUR_QUANTIFIERS,
        sides=RATIO_SIDES.get(n),
        relation="=" if rel == "=" else "<=",
        mechanism="M1",
        parameters=COND_PARAMS if n == 1 else RATIO3_PARAMS if n == 3 else (),
    )


def check_ratio(**params: Any) -> Outcome:
    own = conditional_bound_check(FAMILY, **params)
    return own if params else conclusion(RATIO_LINKS, own)


claim(
    "P2.ratio",
    "the conditional ratio is at most exp(ε)",
    SECTION,
    link(S.P2_RATIO_LHS, r"\le", S.P2_RATIO_4),
    (S.P2_RATIO_LHS, S.P2_RATIO_4),
    "the links P2.ratio.1-4",
    check_ratio,
    hypotheses=HYP + ("D ∼ D'",),
    quantifiers=NEIGHBOUR_QUANTIFIERS,
    sides=(E.P_D / E.P_Dp, sp.exp(E.EPSILON)),
    relation="<=",
    links=RATIO_LINKS,
    mechanism="M1",
    parameters=COND_PARAMS,
)


def check_conclusion(**params: Any) -> Outcome:
    return theorem_conclusion("M1.theorem", ("P2.ratio", "P2.integration"),
                              "Proof 2 shows only the upper bound; the lower bound e^-ε follows by exchanging D and D' (neighbouring is symmetric)", params)


claim(
    "P2.integration",
    "integrating over x_{i-1} carries the bound to Pr[A(D) = s_i] (Proof 2)",
    SECTION,
    r"\Pr[\mathcal{A}(D) = s_i] = \int \Pr \big[ \mathcal{A}(D) = s_i \Vert \vec X_{i - 1} = \vec x_{i - 1} \big] \, dP_{\vec X_{i-1}}(\vec x_{i-1}) \ \text{(and for } D'\text{)}",
    (S.INTEGRATING,),
    "law of total probability; X_{i-1} has the same law under D and D'",
    lambda **p: check_integration(FAMILY, **p),
    explicit=False,
    hypotheses=("the noise X_{i-1} does not depend on the data",),
    relation="=",
    mechanism="M1",
)

claim(
    "P2.conclusion",
    "Proof 2 concludes Pr[A(D)=s_i] <= e^ε Pr[A(D')=s_i]",
    SECTION,
    S.UPPER.rstrip("."),
    (S.INTEGRATING, S.UPPER),
    "integrating the conditional bound (P2.ratio) over x_{i-1} (P2.integration)",
    check_conclusion,
    hypotheses=("D ∼ D'",),
    quantifiers=("i ∈ ℕ⁺", "ε > 0, Δ > 0, t ∈ ℝ"),
    relation="<=",
    links=("P2.ratio", "P2.integration"),
    mechanism="M1",
    parameters=(("eps", "ε"), ("delta", "Δ"), ("t", "t"), ("queries", "q(D)"), ("neighbour", "q(D')")),
)
