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

from functools import cache
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from proofs import conditional as C
from proofs import seed as S
from proofs import symbolic as Y
from proofs.build import (
    COND_PARAMS,
    COND_QUANTIFIERS,
    NEIGHBOUR_QUANTIFIERS,
    claim,
    conclusion,
    link,
    refuted_or_undecided,
    theorem_conclusion,
)
from proofs.claim import Evidence, Verdict
from proofs.laplace_proof_1 import (
    EVENT_PARAMS,
    KAPPA_PARAMS,
    _weak_orders,
    check_chain_1,
    check_chain_2,
    check_event,
    check_integration,
    check_kappa,
    conditional_bound_check,
    run_algorithm,
)
from proofs.mechanism_one import THEOREM_HYPOTHESES, THEOREM_PARAMS, THEOREM_QUANTIFIERS, ratio_sweep_check
from proofs.numerics import Point, confirm, mpf, nstr
from proofs.steps import equality_check, pointwise_check
from proofs.sweeps import EPSILONS

SECTION = "Mechanism Two"
FAMILY = "exponential"
HYP = (
    "Z, X_1, X_2, ... independent, Exp(3Δ/ε): density p(v) = (ε/3Δ) exp(-(ε/3Δ) v) on v >= 0, 0 below",
    "M(D, x_{i-1}) = max_{1<=j<=i-1}(q_j(D) + x_j), -∞ for i = 1",
)


def check_theorem(**params: Any) -> Verdict:
    return ratio_sweep_check("M2.theorem", FAMILY, "halt", **params)


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


# --- the remark: report noisy max twice --------------------------------------------------------------------------
@cache
def enumerate_noisy_max(max_i: int = 5) -> tuple[int, int]:
    """s_i iff [t̂ > q̂_j for all j < i] and [q̂_i >= t̂ and q̂_i >= q̂_j for all j < i], over all order types."""
    checked = bad = 0
    for i in range(1, max_i + 1):
        for ranks in _weak_orders(i + 1):
            prev, th, qi = ranks[: i - 1], ranks[i - 1], ranks[i]
            alg = run_algorithm((*prev, qi), th) == i
            threshold_is_max = all(th > v for v in prev)
            query_is_max = qi >= th and all(qi >= v for v in prev)
            checked += 1
            bad += alg != (threshold_is_max and query_is_max)
    return checked, bad


def check_noisy_max(**params: Any) -> Verdict:
    checked, bad = enumerate_noisy_max()
    notes = (
        "'t̂ max among (t̂, q̂_1..q̂_{i-1})' read as t̂ > q̂_j (strict, as the algorithm continues only when q̂_j < t̂); "
        "'q̂_i max among (t̂, q̂_1..q̂_i)' read as q̂_i >= every other entry; other tie conventions differ only on ties, "
        "which have probability 0 for continuous noise",
        "the remark's D_1, ..., D_i are read as the queries q_1(D), ..., q_i(D)",
    )
    return Verdict(
        "M2.noisy_max",
        "proved" if bad == 0 else "undecided",
        "exhaustive case analysis over every order type of (q̂_1..q̂_{i-1}, t̂, q̂_i), i = 1..5",
        Evidence(points=checked, grid="all weak orders, i = 1..5", notes=notes + (f"mismatches: {bad}",)),
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
    lambda **p: check_event("M2.event", **p),
    hypotheses=("the maximum over no index is -∞ (i = 1)",),
    quantifiers=("i ∈ ℕ⁺",),
    relation="iff",
    mechanism="M2",
    parameters=EVENT_PARAMS,
)


# --- the chains ----------------------------------------------------------------------------------------------------------
NESTED_POINTS = (Point(*(C.Fraction(v) for v in ("1/2", "2/3", "1/2", "1", "1/3", "1/3", "1"))),)
NESTED_DIGITS = 15


def check_nested(claim_id: str, side: str, **params: Any) -> Verdict:
    """The nested integral: library vs the outer quadrature with the inner integral in closed form (40 digits);
    the nested integral as written by quadrature at a few points (15 digits)."""
    notes = []
    worst = mpmath.mpf(0)
    if not params:
        for pt in NESTED_POINTS:
            v = C.nested(FAMILY, pt, side, NESTED_DIGITS)
            ref = C.library(FAMILY, pt, side, 20)
            with mpmath.workdps(20):
                worst = max(worst, abs(v - ref) / ref)
            notes.append(f"nested quadrature at {dict(pt.as_params())}: {nstr(v, 14)} vs exact {nstr(ref, 14)}")
    v = equality_check(
        claim_id,
        lambda pt: C.library(FAMILY, pt, side),
        lambda pt: C.m2_survival_form(pt, side),
        [("the inner integral ∫_{t+z-q_i}^∞ p(x_i) dx_i = exp(-(ε/3Δ) max{0, t+z-q_i}) for every real argument", Y.exp_survival_lemma()),
         ("p integrates to 1", Y.normalised(FAMILY))],
        neighbours=side == "Dp",
        params=params,
        what="lhs: exact conditional probability; rhs: the nested integral, inner integral in closed form",
        extra_notes=("Fubini: Z, X_i independent", f"nested quadrature max relative discrepancy {nstr(worst, 3)}", *notes),
    )
    if worst > mpmath.mpf(10) ** -(NESTED_DIGITS - 4):
        return Verdict(claim_id, "undecided", v.method + "; but the nested quadrature disagreed", v.evidence)
    return v


@cache
def inner_values() -> tuple[int, mpmath.mpf]:
    """∫_y^∞ p(x) dx by quadrature against exp(-(ε/3Δ) max{0, y}) at 40 digits on a grid of y and ε."""
    worst = mpmath.mpf(0)
    n = 0
    with mpmath.workdps(40):
        for e in ("1/10", "1", "3"):
            b = 3 / mpf(e)
            for y in ("-5", "-1/3", "0", "1/7", "2", "9"):
                yy = mpf(y)
                val = C.quad(lambda x, b=b: C.pdf(FAMILY, x, b), yy, None, [0])
                ref = mpmath.exp(-max(mpmath.mpf(0), yy) / b)
                worst = max(worst, abs(val - ref) / ref)
                n += 1
    return n, worst


def check_survival(claim_id: str, **params: Any) -> Verdict:
    n, worst = inner_values()
    ok_num = worst < mpmath.mpf(10) ** -32
    ok = Y.exp_survival_lemma() and ok_num
    return Verdict(
        claim_id,
        "proved" if ok else ("consistent" if ok_num else "undecided"),
        "sympy: ∫_y^∞ p = exp(-(ε/3Δ) max{0, y}) for every real y (cases y < 0, y = 0, y > 0); "
        "the integrands of the two sides agree for every z, hence the integrals",
        Evidence(points=n, grid="y ∈ {-5, -1/3, 0, 1/7, 2, 9}, ε ∈ {1/10, 1, 3}: inner integral by quadrature", digits=40,
                 max_discrepancy=nstr(worst, 5)),
    )


@cache
def m2_substitution() -> bool:
    """sympy, for arbitrary p: the D' integrand p(z)·exp(-λ max{0, t+z-q'}) at z = y - κ is the seed's
    p(y - κ)·exp(-λ max{0, t+y-κ-q'}), and the lower limit M(D')-t moves to M(D)-t."""
    p = sp.Function("p")
    yy, zz, k, t, q, Md, Mdp = sp.symbols("y z kappa t q M_D M_Dp", real=True)
    lam = Y.LAM
    before = p(zz) * sp.exp(-lam * sp.Max(0, t + zz - q))
    after = p(yy - k) * sp.exp(-lam * sp.Max(0, t + yy - k - q))
    same = sp.simplify(before.subs(zz, yy - k) - after) == 0
    limit = sp.simplify(((Mdp - t) + k).subs(k, Md - Mdp) - (Md - t)) == 0
    return bool(same and limit)


def check_m2_shift(**params: Any) -> Verdict:
    return equality_check(
        "M2.dprime.5",
        lambda pt: C.m2_survival_form(pt, "Dp"),
        lambda pt: C.m2_shifted_form(pt),
        [("substitution y = z + κ (Jacobian 1): integrand and lower limit map onto the seed's", m2_substitution())],
        neighbours=True,
        params=params,
        what="lhs: ∫_{M(D')-t}^∞ p(z) exp(-(ε/3Δ) max{0, t+z-q_i(D')}) dz; rhs: the substituted integral",
    )


def _chain(tag: str, side: str, texts: list[tuple[str, str]], extra: list | None = None) -> tuple[str, ...]:
    who = "D" if side == "D" else "D'"
    checks = [
        ("conditioning on X_{i-1} = x_{i-1} (M2.event; Z, X_i independent of X_{i-1})", lambda cid: (lambda **p: check_chain_1(cid, FAMILY, **p)), ()),
        ("definitions t̂ = t + Z, q̂_i = q_i + X_i", lambda cid: (lambda **p: check_chain_2(cid, **p)), ()),
        ("independence of Z and X_i; Fubini", lambda cid: (lambda **p: check_nested(cid, side, **p)), COND_PARAMS),
        ("survival function of Exp(3Δ/ε): ∫_y^∞ p = exp(-(ε/3Δ) max{0, y})", lambda cid: (lambda **p: check_survival(cid, **p)), ()),
    ]
    if extra:
        checks += extra
    ids = []
    for n, ((a, b), (why, make, params)) in enumerate(zip(texts, checks), start=1):
        cid = f"{tag}.{n}"
        ids.append(cid)
        claim(
            cid,
            f"Mechanism Two, conditional probability of {who}, link {n}",
            SECTION,
            link(a, "=" if n < 5 else S.M2_SUBST, b),
            (a, b) if n < 5 else (a, S.M2_SUBST, b),
            why,
            make(cid),
            hypotheses=HYP,
            quantifiers=NEIGHBOUR_QUANTIFIERS if (side == "Dp" or n == 5) else COND_QUANTIFIERS,
            relation="=",
            mechanism="M2",
            parameters=params,
        )
    return tuple(ids)


CHAIN_LINKS = _chain(
    "M2.chain",
    "D",
    [(S.COND_D, S.EV_HAT_D), (S.EV_HAT_D, S.EV_NOISE_D), (S.EV_NOISE_D, S.M2_NESTED_D), (S.M2_NESTED_D, S.M2_SURV_D)],
)


def check_chain(**params: Any) -> Verdict:
    own = equality_check(
        "M2.chain",
        lambda pt: C.library(FAMILY, pt),
        lambda pt: C.m2_survival_form(pt),
        [],
        params=params,
        what="lhs: exact conditional probability; rhs: the last expression of the display",
    )
    return own if params else conclusion("M2.chain", CHAIN_LINKS, own)


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
    lambda **p: check_kappa("M2.kappa_bound", **p),
    hypotheses=("|q_j(D) - q_j(D')| <= Δ for every j < i",),
    relation="in [-Δ, Δ]",
    mechanism="M2",
    parameters=KAPPA_PARAMS,
)

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
    extra=[("substitution y = z + κ (Jacobian 1)", lambda cid: check_m2_shift, COND_PARAMS)],
)


def check_dprime(**params: Any) -> Verdict:
    own = equality_check(
        "M2.dprime",
        lambda pt: C.library(FAMILY, pt, "Dp"),
        lambda pt: C.m2_shifted_form(pt),
        [],
        neighbours=True,
        params=params,
        what="lhs: exact Pr[A(D') = s_i ∥ x]; rhs: the substituted integral",
    )
    return own if params else conclusion("M2.dprime", DPRIME_LINKS, own)


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
    relation="=",
    links=DPRIME_LINKS,
    mechanism="M2",
    parameters=COND_PARAMS,
)


# --- comparing the integrands -----------------------------------------------------------------------------------------------------
def _log_pdf_exp(v: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(divide="ignore"):
        return np.where(v >= 0, -v / b - np.log(b), -np.inf)


def integrand_lr(p: dict[str, np.ndarray]) -> np.ndarray:
    """ln [p(y) S(t+y-q_i(D))] - ln [p(y-κ) S(t+y-κ-q_i(D'))] with S(v) = exp(-max{0, v}/b); t = 0, Δ = 1."""
    b = 3.0 / p["eps"]
    y, k, d, dl = p["y"], p["kappa"], p["d"], p["delta_q"]
    a = _log_pdf_exp(y, b) - np.maximum(0, y - d) / b
    c = _log_pdf_exp(y - k, b) - np.maximum(0, y - k - (d - dl)) / b
    with np.errstate(invalid="ignore"):
        out = a - c
    return np.where(np.isneginf(a), -np.inf, out)


def _sample_y(rng: np.random.Generator, n: int = 40000) -> dict[str, np.ndarray]:
    eps = rng.choice([float(e) for e in EPSILONS], n)
    b = 3.0 / eps
    y = np.where(rng.random(n) < 0.3, rng.uniform(-1.5, 1.5, n), rng.uniform(-2, 8, n) * b)
    k = np.where(rng.random(n) < 0.5, rng.choice([-1.0, 1.0], n), rng.uniform(-1, 1, n))
    dl = np.where(rng.random(n) < 0.5, rng.choice([-1.0, 1.0], n), rng.uniform(-1, 1, n))
    d = rng.uniform(-8, 8, n) * b
    return {"eps": eps, "y": y, "kappa": k, "d": d, "delta_q": dl}


Y_GRID = (
    "40000 seeded points: ε ∈ {1/10, 1/2, 1, 2, 5}, Δ = 1, t = 0, y in [-2b, 8b] (30% in [-1.5, 1.5], near the supports' edges), "
    "κ and δ = q_i(D) - q_i(D') = ±Δ (50%) or uniform, d = q_i(D) - t in [-8b, 8b]; y >= M(D,x) - t is no restriction "
    "(M(D,x) - t can be any value <= y)"
)


def _mp_integrands(pt: dict[str, Any]) -> tuple[mpmath.mpf, mpmath.mpf]:
    eps = mpf(pt.get("eps", 1))
    b = 3 / eps
    y, k, d, dl = (mpf(pt.get(n, 0)) for n in ("y", "kappa", "d", "delta_q"))
    zero = mpmath.mpf(0)
    lhs = C.pdf(FAMILY, y, b) * mpmath.exp(-max(zero, y - d) / b)
    rhs = mpmath.exp(eps) * C.pdf(FAMILY, y - k, b) * mpmath.exp(-max(zero, y - k - (d - dl)) / b)
    return lhs, rhs


#: A counterexample found by reasoning about the supports (κ > 0, 0 <= y < κ), confirmed numerically.
CANONICAL = {"eps": "1", "y": "1/2", "kappa": "1", "d": "0", "delta_q": "0"}


def check_compare(**params: Any) -> Verdict:
    from proofs.sweeps import pointwise_sweep

    cid = "M2.compare.integrand"
    if params:
        pts = [dict(params)]
        n = 1
        grid = "the point given"
        found = 1
    else:
        sw = pointwise_sweep(integrand_lr, _sample_y, lambda p_: p_["eps"], None)
        n, grid, found = sw.points, Y_GRID, len(sw.violations)
        pts = [CANONICAL] + [{k: v for k, v in x.items() if not k.startswith("_")} for x in sw.violations[:1]]
    notes = [f"violations in the sweep: at least {found} points (first 20 kept)" if not params else ""]
    if not params:
        from proofs.engines import certification

        notes.append(certification("factor:survival_integrand", FAMILY).note + " (a refuted density ratio agrees with this refutation)")
    for pt in pts:
        with mpmath.workdps(40):
            lhs, rhs = _mp_integrands(pt)
        if lhs > rhs:
            cx = confirm(
                lambda p_: _mp_integrands(p_),
                pt,
                (*((k, str(v)) for k, v in pt.items()), ("t", "0"), ("delta", "1"), ("M(D,x)-t", str(pt["y"]))),
                "<=",
                lambda a, b: a > b,
                detail="lhs: p(y)·exp(-(ε/3Δ)max{0,t+y-q_i(D)}); rhs: e^ε·p(y-κ)·exp(-(ε/3Δ)max{0,t+y-κ-q_i(D')}); "
                "p(y-κ) = 0 because y - κ < 0 while p(y) > 0",
            )
            notes.append(f"counterexample ({'canonical' if pt is CANONICAL else 'from the sweep'}): {pt}")
            return refuted_or_undecided(cid, "the two integrands at a point (mpmath at two precisions)", cx,
                                        dict(points=n, grid=grid, digits=40, notes=tuple(x for x in notes if x)))
    return Verdict(cid, "consistent", "float64 sweep and mpmath at the points", Evidence(points=n, grid=grid, digits=40))


COMPARE_LATEX = (
    r"p(y) \cdot \exp \left( -\frac{\epsilon}{3 \Delta} \cdot \max \big\{ 0, t + y - q_i (D) \big\} \right) \le e^{\epsilon} \, "
    r"p(y - \kappa) \cdot \exp \left( -\frac{\epsilon}{3 \Delta} \cdot \max \big\{ 0, t + y - \kappa - q_i (D') \big\} \right) "
    r"\quad \forall y \ge M(D, \vec x_{i - 1}) - t"
)
Y_PARAMS = (("eps", "ε (Δ = 1, t = 0)"), ("y", "y"), ("kappa", "κ ∈ [-1, 1]"), ("d", "q_i(D) - t"), ("delta_q", "q_i(D) - q_i(D') ∈ [-1, 1]"))

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
    relation="<=",
    mechanism="M2",
    parameters=Y_PARAMS,
)


def corrected_lr(p: dict[str, np.ndarray]) -> np.ndarray:
    """κ <= 0: the seed's shifted comparison; κ > 0: the unshifted one, p(z)S(t+z-q_i(D)) / p(z)S(t+z-q_i(D'))."""
    b = 3.0 / p["eps"]
    y, d, dl = p["y"], p["d"], p["delta_q"]
    unshifted = (np.maximum(0, y - (d - dl)) - np.maximum(0, y - d)) / b
    unshifted = np.where(y < 0, -np.inf, unshifted)
    return np.where(p["kappa"] <= 0, integrand_lr(p), unshifted)


def corrected_upper(p: dict[str, np.ndarray]) -> np.ndarray:
    return np.where(p["kappa"] <= 0, p["eps"], p["eps"] / 3)


def mp_corrected(pt: dict[str, Any]):
    eps = mpf(pt.get("eps", 1))
    b = 3 / eps
    y, k, d, dl = (mpf(pt.get(n, 0)) for n in ("y", "kappa", "d", "delta_q"))
    zero = mpmath.mpf(0)
    if k <= 0:
        lhs, rhs = _mp_integrands(pt)
        lr = mpmath.ninf if lhs == 0 else (mpmath.inf if rhs == 0 else mpmath.log(lhs / rhs) + eps)
        return lr, eps, None
    if y < 0:
        return mpmath.ninf, eps / 3, None
    return (max(zero, y - (d - dl)) - max(zero, y - d)) / b, eps / 3, None


claim(
    "M2.compare.integrand.corrected",
    "the comparison with a case split on the sign of κ",
    SECTION,
    r"\kappa \le 0:\ " + COMPARE_LATEX + r";\qquad \kappa > 0:\ p(z) e^{-\frac{\epsilon}{3\Delta}\max\{0, t + z - q_i(D)\}} \le e^{\epsilon/3}\, "
    r"p(z) e^{-\frac{\epsilon}{3\Delta}\max\{0, t + z - q_i(D')\}}\ \forall z,\ \text{and } M(D', \vec x_{i-1}) < M(D, \vec x_{i-1})",
    (S.M2_COMPARE,),
    "κ <= 0: where p(y) > 0 also p(y - κ) > 0 and p(y)/p(y - κ) = e^{ε|κ|/3Δ} <= e^{ε/3}, so the seed's comparison holds; "
    "κ > 0: the D' integral runs over [M(D')-t, ∞) ⊇ [M(D)-t, ∞) and only the survival factor changes (by at most e^{ε/3})",
    lambda **p: pointwise_check(
        "M2.compare.integrand.corrected", corrected_lr, _sample_y, corrected_upper, None, mp_corrected, Y_GRID,
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


def check_ratio(**params: Any) -> Verdict:
    own = conditional_bound_check("M2.ratio", FAMILY, **params)
    if params:
        return own
    v = conclusion("M2.ratio", RATIO_LINKS, own)
    return Verdict(v.claim_id, v.verdict, v.method, Evidence(
        **{**v.evidence.__dict__, "notes": v.evidence.notes + (
            "the seed's inference ('comparing the integrands') rests on M2.compare.integrand, which is refuted; "
            "the conclusion itself holds in the sweep, and M2.compare.integrand.corrected gives a valid comparison",)}))


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
    lambda **p: check_integration("M2.integration", FAMILY, **p),
    explicit=False,
    hypotheses=("the noise X_{i-1} does not depend on the data",),
    relation="=",
    mechanism="M2",
)


def check_conclusion(**params: Any) -> Verdict:
    return theorem_conclusion("M2.conclusion", "M2.theorem", ("M2.ratio", "M2.integration"),
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
