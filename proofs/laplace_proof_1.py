"""Seed, Mechanism One, "Proof 1.": P1.*.

The proof fixes i and x_{i-1}, writes the conditional probability of s_i as
an integral over the threshold noise (display "Pr[A(D)=s_i ∥ X = x] = ... ="),
shifts it by κ = M(D,x) - M(D',x), and ends with "Comparing p(z) and
p(z+κ), F(-t-z-κ+q_i(D)) and F(-t-z+q_i(D')) finishes the proof."  The
comparison's bounds are left implicit; the claims P1.compare.* use the bounds
Proof 2 writes for the same two shifts (exp(Δ·ε/3Δ) and exp(2Δ·ε/3Δ)).
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from functools import cache
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from proofs import conditional as C
from proofs import seed as S
from proofs import symbolic as Y
from proofs.build import COND_PARAMS, COND_QUANTIFIERS, NEIGHBOUR_QUANTIFIERS, claim, conclusion, link
from proofs.claim import Evidence, Verdict
from proofs.numerics import mpf, nstr, point_from_params
from proofs.steps import equality_check, pointwise_check
from proofs.sweeps import EPSILONS, conditional_sweep, fmt_margin

SECTION = "Mechanism One, Proof 1"
FAMILY = "laplace"


# --- P1.event (shared with Proof 2 and Mechanism Two) ------------------------------------------------------------------
def run_algorithm(noisy_queries: tuple, noisy_threshold: Any) -> int | None:
    """The seed's Algorithm A lines 2-8 on given noisy values: the index of ⊥ (1-based) or None."""
    for i, qh in enumerate(noisy_queries, start=1):
        if qh >= noisy_threshold:
            return i
    return None


def event_holds(previous: tuple, noisy_threshold: Any, noisy_query: Any) -> bool:
    """M(D, X_{i-1}) < t̂ <= q̂_i(D), with the maximum over no index = -∞ (i = 1)."""
    m = max(previous) if previous else -np.inf
    return bool(m < noisy_threshold <= noisy_query)


def _weak_orders(n: int):
    """Every assignment of ranks 0..n-1 to n values up to relabelling (all weak orders)."""
    for ranks in itertools.product(range(n), repeat=n):
        used = sorted(set(ranks))
        if used == list(range(len(used))):
            yield ranks


@cache
def enumerate_event(max_i: int = 5) -> tuple[int, int]:
    """(order types checked, mismatches): both sides depend only on the order of
    (q̂_1, ..., q̂_{i-1}, t̂, q̂_i), so all weak orders decide the equivalence for each i."""
    checked = mismatches = 0
    for i in range(1, max_i + 1):
        for ranks in _weak_orders(i + 1):
            prev, th, qi = ranks[: i - 1], ranks[i - 1], ranks[i]
            alg = run_algorithm((*prev, qi), th) == i
            checked += 1
            mismatches += alg != event_holds(prev, th, qi)
    return checked, mismatches


def check_event(claim_id: str = "P1.event", previous: Any = None, noisy_threshold: Any = None, noisy_query: Any = None) -> Verdict:
    if previous is not None or noisy_threshold is not None or noisy_query is not None:
        prev = tuple(float(v) for v in (previous or ()))
        th, qi = float(noisy_threshold or 0), float(noisy_query or 0)
        alg = run_algorithm((*prev, qi), th) == len(prev) + 1
        ev = event_holds(prev, th, qi)
        ok = alg == ev
        return Verdict(
            claim_id,
            "consistent" if ok else "refuted",
            "the algorithm run on the values given against the event",
            Evidence(points=1, grid="the values given", notes=(f"A = s_i: {alg}; event: {ev}",)),
        ) if ok else Verdict(
            claim_id, "refuted", "the algorithm run on the values given against the event",
            Evidence(points=1, counterexample=_event_cx(prev, th, qi, alg, ev)),
        )
    checked, bad = enumerate_event()
    notes = (
        "both sides depend only on the order of q̂_1..q̂_{i-1}, t̂, q̂_i: every weak order (ties included) is one case",
        "for i > 5 the same holds because max_{j<i} q̂_j < t̂ iff q̂_j < t̂ for every j < i (maximum of a finite set)",
    )
    if bad == 0:
        return Verdict(
            claim_id,
            "proved",
            "exhaustive case analysis: the seed's algorithm (lines 2-8) against the event for every order type of (q̂_1..q̂_{i-1}, t̂, q̂_i), i = 1..5",
            Evidence(points=checked, grid="all weak orders, i = 1..5", notes=notes),
        )
    return Verdict(claim_id, "undecided", "case analysis found mismatches", Evidence(points=checked, notes=notes))


def _event_cx(prev, th, qi, alg, ev):
    from proofs.claim import Counterexample

    return Counterexample(
        params=(("previous", str(prev)), ("noisy_threshold", str(th)), ("noisy_query", str(qi))),
        lhs=str(alg),
        rhs=str(ev),
        relation="iff",
        digits=30,
        confirmed=True,
        detail="exact comparison of the given values",
    )


EVENT_PARAMS = (("previous", "q̂_1..q̂_{i-1}"), ("noisy_threshold", "t̂"), ("noisy_query", "q̂_i(D)"))

claim(
    "P1.event",
    "s_i as the event M < t̂ <= q̂_i",
    SECTION,
    S.EVENT.rstrip("."),
    (S.EVENT_INTRO, S.EVENT, S.M_DEF),
    "definition of Algorithm A (halt at the first i with q̂_i(D) >= t̂) and of the maximum",
    lambda **p: check_event("P1.event", **p),
    hypotheses=("M(D, X_{i-1}) = max_{j<i}(q_j(D) + X_j), the maximum over no index being -∞ (i = 1)",),
    quantifiers=("i ∈ ℕ⁺", "all real values of t̂, q̂_1(D), ..., q̂_i(D)"),
    relation="iff",
    mechanism="M1",
    parameters=EVENT_PARAMS,
)


# --- P1.chain -------------------------------------------------------------------------------------------------------
#: Configurations (ε, Δ, t, q_1..q_{i-1}, q_i) of the total-probability checks.
TOTAL_CONFIGS = (
    ("1", "1", "0", (), "1/2"),
    ("1", "1", "0", ("1/2",), "-1"),
    ("1/2", "2", "1", ("1/2", "3"), "2"),
)


@cache
def total_probability_report(family: str, neighbour: bool = False) -> tuple[int, mpmath.mpf, list[str]]:
    """Integrate the conditional probability over the law of M(D, X_{i-1}) and compare with Pr[A(D) = s_i]."""
    from fractions import Fraction

    worst = mpmath.mpf(0)
    notes = []
    for eps, delta, t, prev, qi in TOTAL_CONFIGS:
        prev_f = tuple(Fraction(v) for v in prev)
        qi_f = Fraction(qi)
        if neighbour:  # D' with every query moved by ±Δ
            prev_f = tuple(v + Fraction(delta) for v in prev_f)
            qi_f = qi_f - Fraction(delta)
        val, ref = C.total_probability(family, Fraction(eps), Fraction(delta), Fraction(t), prev_f, qi_f)
        with mpmath.workdps(20):
            disc = abs(val - ref) / ref
        worst = max(worst, disc)
        notes.append(
            f"ε = {eps}, Δ = {delta}, t = {t}, queries {[str(v) for v in (*prev_f, qi_f)]}, i = {len(prev) + 1}: "
            f"∫ Pr[·∥x] dP(x) = {nstr(val, 15)}, Pr[A = s_i] = {nstr(ref, 15)}"
        )
    return len(TOTAL_CONFIGS), worst, notes


def check_chain_1(claim_id: str, family: str, **params: Any) -> Verdict:
    """The conditioning step: the conditional probability is Pr[M(D,x) < t̂ <= q̂_i(D)]."""
    n, worst, notes = total_probability_report(family)
    ok = worst < mpmath.mpf(10) ** -12
    verdict = "consistent" if ok else "undecided"
    return Verdict(
        claim_id,
        verdict,
        "law of total probability: ∫ Pr[M(D,x) < t̂ <= q̂_i(D)] dP_{X_{i-1}}(x) (quadrature over the law of M, 20 digits) "
        "equals the exact Pr[A(D) = s_i]; Z, X_i independent of X_{i-1} (definition of the conditional probability)",
        Evidence(points=n, grid="i = 1, 2, 3 configurations", digits=20, max_discrepancy=nstr(worst, 5), notes=tuple(notes)),
    )


@cache
def definition_substitution() -> bool:
    """sympy: substituting t̂ = t + Z and q̂_i = q_i(D) + X_i turns the first event into the second."""
    Mx, t, Z, q, X, th, qh = sp.symbols("M t Z q X that qhat", real=True)
    first = sp.And(Mx < th, th <= qh)
    second = sp.And(Mx < t + Z, t + Z <= q + X)
    return first.subs({th: t + Z, qh: q + X}) == second


def check_chain_2(claim_id: str, **params: Any) -> Verdict:
    ok = definition_substitution()
    return Verdict(
        claim_id,
        "proved" if ok else "undecided",
        "sympy: substituting the definitions t̂ = t + Z (line 1) and q̂_i(D) = q_i(D) + X_i (line 3) gives the second event",
        Evidence(points=0, grid="symbolic", notes=("the two probabilities are of the same event",)),
    )


def check_chain_3(**params: Any) -> Verdict:
    return equality_check(
        "P1.chain.3",
        lambda pt: C.library(FAMILY, pt),
        lambda pt: C.p1_survival_form(pt),
        [
            ("∫_y^∞ p = 1 - F(y) for every real y (so Pr[X_i >= y] = 1 - F(y))", Y.cdf_lemma(FAMILY)),
            ("p integrates to 1", Y.normalised(FAMILY)),
        ],
        params=params,
        what="lhs: exact Pr[M < t + Z <= q_i(D) + X_i] (library); rhs: E_z[I[M < t+z](1 - F(t+z-q_i(D)))] by quadrature",
        extra_notes=("Fubini: Z independent of X_i, integrate X_i first",),
    )


def check_chain_4(**params: Any) -> Verdict:
    return equality_check(
        "P1.chain.4",
        lambda pt: C.p1_survival_form(pt),
        lambda pt: C.p1_expectation_cdf_form(pt),
        [("1 - F(y) = F(-y) for every real y", Y.laplace_symmetry())],
        params=params,
        what="lhs: E_z[I[M<t+z](1 - F(t+z-q_i))]; rhs: E_z[I[M<t+z] F(-t-z+q_i)]",
    )


@cache
def indicator_limit() -> bool:
    """sympy: M < t + z is the same inequality as z > M - t."""
    Mx, t, zz = sp.symbols("M t z", real=True)
    return sp.simplify((t + zz - Mx) - (zz - (Mx - t))) == 0


def check_chain_5(**params: Any) -> Verdict:
    return equality_check(
        "P1.chain.5",
        lambda pt: C.p1_expectation_cdf_form(pt),
        lambda pt: C.p1_integral_form(pt),
        [("I[M < t + z] = I[z > M - t]", indicator_limit()), ("E_{z~μ}[g(z)] = ∫ p(z) g(z) dz with p the density of μ", Y.normalised(FAMILY))],
        params=params,
        what="lhs: the expectation with the indicator over ℝ; rhs: ∫_{M-t}^∞ p(z) F(-t-z+q_i(D)) dz",
    )


@cache
def shift_substitution(lower_shift: bool = True) -> bool:
    """sympy, for arbitrary p and F: the integrand after the substitution z -> z + κ is the seed's
    p(z+κ) F(-t-z-κ+q_i(D)), and the lower limit M(D)-t becomes M(D')-t with κ = M(D) - M(D')."""
    p, F = sp.Function("p"), sp.Function("F")
    zz, k, t, q, Md, Mdp = sp.symbols("z kappa t q M_D M_Dp", real=True)
    before = p(zz) * F(-t - zz + q)
    after = p(zz + k) * F(-t - zz - k + q)
    same_integrand = sp.simplify(before.subs(zz, zz + k) - after) == 0
    same_limit = sp.simplify(((Mdp - t) + k).subs(k, Md - Mdp) - (Md - t)) == 0
    return bool(same_integrand and same_limit)


def check_chain_6(**params: Any) -> Verdict:
    return equality_check(
        "P1.chain.6",
        lambda pt: C.p1_integral_form(pt),
        lambda pt: C.p1_shifted_form(pt),
        [("substitution z = w + κ (Jacobian 1): integrand and lower limit map onto the seed's", shift_substitution())],
        neighbours=True,
        params=params,
        what="lhs: ∫_{M(D)-t}^∞ p(z) F(-t-z+q_i(D)) dz; rhs: ∫_{M(D')-t}^∞ p(z+κ) F(-t-z-κ+q_i(D)) dz",
    )


CHAIN_LINKS = ("P1.chain.1", "P1.chain.2", "P1.chain.3", "P1.chain.4", "P1.chain.5", "P1.chain.6")


def check_chain(**params: Any) -> Verdict:
    own = equality_check(
        "P1.chain",
        lambda pt: C.library(FAMILY, pt),
        lambda pt: C.p1_shifted_form(pt),
        [],
        neighbours=True,
        params=params,
        what="lhs: exact conditional probability; rhs: the last expression of the display",
    )
    return own if params else conclusion("P1.chain", CHAIN_LINKS, own)


CHAIN_HYP = (
    "Z, X_1, X_2, ... independent, Lap(3Δ/ε) (μ, density p, CDF F)",
    "M(D, x_{i-1}) = max_{j<i}(q_j(D) + x_j), -∞ for i = 1",
)
LINKS_TEXT = [
    (S.COND_D, S.EV_HAT_D, "conditioning on X_{i-1} = x_{i-1} (P1.event; Z, X_i independent of X_{i-1})", lambda **p: check_chain_1("P1.chain.1", FAMILY, **p)),
    (S.EV_HAT_D, S.EV_NOISE_D, "definitions t̂ = t + Z, q̂_i(D) = q_i(D) + X_i", lambda **p: check_chain_2("P1.chain.2", **p)),
    (S.EV_NOISE_D, S.P1_E_SURVIVAL, "Fubini (integrate X_i first): Pr[X_i >= y] = 1 - F(y)", check_chain_3),
    (S.P1_E_SURVIVAL, S.P1_E_CDF, "symmetry of the Laplace CDF: 1 - F(y) = F(-y)", check_chain_4),
    (S.P1_E_CDF, S.P1_INTEGRAL_D, "expectation as an integral against the density; the indicator as the lower limit", check_chain_5),
    (S.P1_INTEGRAL_D, S.P1_SHIFTED, "substitution z -> z + κ, κ = M(D,x) - M(D',x) (Jacobian 1)", check_chain_6),
]
for n, (a, b, why, chk) in enumerate(LINKS_TEXT, start=1):
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
    relation="=",
    links=CHAIN_LINKS,
    mechanism="M1",
    parameters=COND_PARAMS,
)


def check_dprime(**params: Any) -> Verdict:
    own = equality_check(
        "P1.dprime",
        lambda pt: C.library(FAMILY, pt, "Dp"),
        lambda pt: C.p1_integral_form(pt, "Dp"),
        [],
        neighbours=True,
        params=params,
        what="lhs: exact Pr[A(D') = s_i ∥ x]; rhs: ∫_{M(D')-t}^∞ p(z) F(-t-z+q_i(D')) dz",
    )
    return own if params else conclusion("P1.dprime", CHAIN_LINKS[:5], own)


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
    relation="=",
    links=CHAIN_LINKS[:5],
    mechanism="M1",
    parameters=COND_PARAMS,
)


# --- κ ---------------------------------------------------------------------------------------------------------------------
@cache
def kappa_sweep(n: int = 1000, seed: int = 11) -> tuple[int, Fraction, list]:
    """Δ - |M(D,x) - M(D',x)| in exact rational arithmetic (Δ = 1) for seeded random queries,
    neighbours (shifts ±Δ or rational in [-Δ, Δ]) and noises, i - 1 = 1..6 earlier queries."""
    import random

    rnd = random.Random(seed)
    worst = Fraction(10**9)
    bad = []
    total = 0
    for m in range(1, 7):
        for _ in range(n):
            q = [Fraction(rnd.randint(-500, 500), 100) for _ in range(m)]
            shift = [Fraction(rnd.choice([-1, 1])) if rnd.random() < 0.5 else Fraction(rnd.randint(-100, 100), 100) for _ in range(m)]
            x = [Fraction(rnd.randint(-900, 900), 100) for _ in range(m)]
            M = max(a + b for a, b in zip(q, x))
            Mp = max(a + s + b for a, s, b in zip(q, shift, x))
            margin = 1 - abs(M - Mp)
            total += 1
            worst = min(worst, margin)
            if margin < 0 and len(bad) < 3:
                bad.append((q, shift, x))
    return total, worst, bad


@cache
def lipschitz_algebra() -> bool:
    """sympy: with j* an argmax for D, M(D) - M(D') <= (q_{j*}(D)+x_{j*}) - (q_{j*}(D')+x_{j*}) = q_{j*}(D) - q_{j*}(D')."""
    qd, qdp, xj = sp.symbols("q_D q_Dp x", real=True)
    return sp.simplify((qd + xj) - (qdp + xj) - (qd - qdp)) == 0


def check_kappa(claim_id: str = "P1.kappa_bound", **params: Any) -> Verdict:
    if params:
        from verify.exact import parse_vector

        q = parse_vector(str(params["queries"]))
        qp = parse_vector(str(params["neighbour"]))
        x = parse_vector(str(params["noise"]))
        delta = mpf(params.get("delta", 1))
        M = max(a + b for a, b in zip(q, x))
        Mp = max(a + b for a, b in zip(qp, x))
        ok = abs(M - Mp) <= max(abs(a - b) for a, b in zip(q, qp))
        return Verdict(claim_id, "consistent" if ok else "refuted", "exact evaluation at the point",
                       Evidence(points=1, notes=(f"|κ| = {abs(M - Mp)}, Δ = {delta}",))) if ok else Verdict(
            claim_id, "undecided", "exact evaluation at the point: |κ| exceeds max_j |q_j(D) - q_j(D')|", Evidence(points=1))
    total, worst, bad = kappa_sweep()
    ev = Evidence(
        points=total,
        grid="i - 1 = 1..6 earlier queries, 1000 seeded points each: q_j(D), x_j rational in [-5, 5] and [-9, 9], "
        "q_j(D') - q_j(D) = ±Δ (50%) or rational in [-Δ, Δ], Δ = 1",
        digits=None,
        min_margin=str(worst),
        margin_unit="Δ - |κ|, exact rational arithmetic (0 = attained)",
        notes=("lemma: the maximum is 1-Lipschitz in the sup norm; with j* an argmax for D, "
               "M(D) - M(D') <= q_{j*}(D) - q_{j*}(D') <= Δ, and symmetrically",),
    )
    if bad:
        return Verdict(claim_id, "undecided", "exact arithmetic found |κ| > Δ: the lemma's check failed", ev)
    if lipschitz_algebra():
        return Verdict(claim_id, "proved", "argmax argument (the maximum is 1-Lipschitz in the sup norm), algebra by sympy; exact rational checks agree", ev)
    return Verdict(claim_id, "consistent", "exact rational checks", ev)


KAPPA_PARAMS = (("queries", "q_1(D),..,q_{i-1}(D)"), ("neighbour", "q_1(D'),..,q_{i-1}(D')"), ("noise", "x_1,..,x_{i-1}"), ("delta", "Δ"))

claim(
    "P1.kappa_bound",
    "|κ| <= Δ",
    SECTION,
    r"|\kappa| = |M(D, \vec x_{i - 1}) - M(D', \vec x_{i - 1})| \le \Delta",
    (S.P1_KAPPA, S.P1_COMPARE),
    "each q_j has sensitivity at most Δ; the maximum is 1-Lipschitz",
    lambda **p: check_kappa("P1.kappa_bound", **p),
    explicit=False,
    hypotheses=("|q_j(D) - q_j(D')| <= Δ for every j < i",),
    quantifiers=("i >= 2, x_{i-1} ∈ ℝ^{i-1}",),
    relation="<=",
    mechanism="M1",
    parameters=KAPPA_PARAMS,
)


# --- the comparisons ----------------------------------------------------------------------------------------------------------
def _log_cdf_np(y: np.ndarray, b: np.ndarray) -> np.ndarray:
    u = y / b
    return np.where(u < 0, u - np.log(2.0), np.log1p(-0.5 * np.exp(-np.maximum(u, 0))))


def _log_pdf_np(x: np.ndarray, b: np.ndarray) -> np.ndarray:
    return -np.abs(x) / b - np.log(2 * b)


def _sample(rng: np.random.Generator, n: int = 40000) -> dict[str, np.ndarray]:
    """ε from the sweep list, Δ = 1, t = 0; z, d = q_i(D) - t in [-8b, 8b] plus the kinks; κ, δ = ±Δ or uniform."""
    eps = rng.choice([float(e) for e in EPSILONS], n)
    b = 3.0 / eps
    z = rng.uniform(-8, 8, n) * b
    kinks = rng.random(n) < 0.2
    z = np.where(kinks, rng.choice([-1.0, -0.5, 0.0, 0.5, 1.0], n), z)
    kap = np.where(rng.random(n) < 0.5, rng.choice([-1.0, 1.0], n), rng.uniform(-1, 1, n))
    dl = np.where(rng.random(n) < 0.5, rng.choice([-1.0, 1.0], n), rng.uniform(-1, 1, n))
    d = np.where(rng.random(n) < 0.3, z + rng.choice([-1.0, 0.0, 1.0, 2.0], n), rng.uniform(-8, 8, n) * b)
    return {"eps": eps, "z": z, "kappa": kap, "d": d, "delta_q": dl}


SAMPLE_GRID = (
    "40000 seeded points: ε ∈ {1/10, 1/2, 1, 2, 5}, Δ = 1, t = 0, z and d = q_i(D) - t in [-8b, 8b] (20% at the kinks), "
    "κ and δ = q_i(D) - q_i(D') = ±Δ (50%) or uniform in [-Δ, Δ]"
)


def _mp_log_pdf(x: mpmath.mpf, b: mpmath.mpf) -> mpmath.mpf:
    return -abs(x) / b - mpmath.log(2 * b)


def _mp_log_cdf(y: mpmath.mpf, b: mpmath.mpf) -> mpmath.mpf:
    return y / b - mpmath.log(2) if y < 0 else mpmath.log1p(-mpmath.exp(-y / b) / 2)


def _mp_args(pt: dict[str, Any]) -> tuple[mpmath.mpf, ...]:
    eps = mpf(pt.get("eps", 1))
    b = 3 / eps
    return eps, b, mpf(pt.get("z", 0)), mpf(pt.get("kappa", 0)), mpf(pt.get("d", 0)), mpf(pt.get("delta_q", 0))


def density_lr(p: dict[str, np.ndarray]) -> np.ndarray:
    b = 3.0 / p["eps"]
    return _log_pdf_np(p["z"] + p["kappa"], b) - _log_pdf_np(p["z"], b)


def cdf_lr(p: dict[str, np.ndarray]) -> np.ndarray:
    """ln F(-t-z-κ+q_i(D)) - ln F(-t-z+q_i(D')), with q_i(D') = q_i(D) - δ."""
    b = 3.0 / p["eps"]
    return _log_cdf_np(-p["z"] - p["kappa"] + p["d"], b) - _log_cdf_np(-p["z"] + p["d"] - p["delta_q"], b)


def mp_density(pt: dict[str, Any]):
    eps, b, z, k, d, dl = _mp_args(pt)
    return _mp_log_pdf(z + k, b) - _mp_log_pdf(z, b), eps / 3, -eps / 3


def mp_cdf(pt: dict[str, Any]):
    eps, b, z, k, d, dl = _mp_args(pt)
    return _mp_log_cdf(-z - k + d, b) - _mp_log_cdf(-z + d - dl, b), 2 * eps / 3, -2 * eps / 3


def mp_integrand(pt: dict[str, Any]):
    a, _, _ = mp_density(pt)
    c, _, _ = mp_cdf(pt)
    eps = mpf(pt.get("eps", 1))
    return a + c, eps, -eps


POINT_PARAMS = (("eps", "ε"), ("z", "z (Δ = 1, t = 0)"), ("kappa", "κ ∈ [-1, 1]"), ("d", "q_i(D) - t"), ("delta_q", "q_i(D) - q_i(D') ∈ [-1, 1]"))

claim(
    "P1.compare.density",
    "p(z+κ)/p(z) within e^{±ε/3}",
    SECTION,
    r"e^{-\epsilon/3} \le \frac{p(z + \kappa)}{p(z)} \le e^{\epsilon/3} \quad (|\kappa| \le \Delta)",
    (S.P1_COMPARE, S.P2_RATIO_3),
    "|z| - |z + κ| <= |κ| (triangle inequality) and p_b(x) ∝ exp(-|x|/b), b = 3Δ/ε; bound as in Proof 2's exp(Δ·ε/3Δ)",
    lambda **p: pointwise_check(
        "P1.compare.density", density_lr, _sample, lambda p_: p_["eps"] / 3, lambda p_: -p_["eps"] / 3, mp_density,
        SAMPLE_GRID, "e^{-ε/3} <= ratio <= e^{ε/3}", params=p, certify=("factor:density", FAMILY),
    ),
    explicit=False,
    hypotheses=("|κ| <= Δ (P1.kappa_bound)",),
    quantifiers=("z ∈ ℝ", "ε > 0, Δ > 0"),
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
    lambda **p: pointwise_check(
        "P1.compare.cdf", cdf_lr, _sample, lambda p_: 2 * p_["eps"] / 3, lambda p_: -2 * p_["eps"] / 3, mp_cdf,
        SAMPLE_GRID, "e^{-2ε/3} <= ratio <= e^{2ε/3}", params=p, certify=("factor:cdf", FAMILY),
    ),
    explicit=False,
    hypotheses=("|κ| <= Δ", "|q_i(D) - q_i(D')| <= Δ"),
    quantifiers=("z ∈ ℝ, t ∈ ℝ", "ε > 0, Δ > 0"),
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
    lambda **p: pointwise_check(
        "P1.compare.integrand", lambda p_: density_lr(p_) + cdf_lr(p_), _sample, lambda p_: p_["eps"], lambda p_: -p_["eps"], mp_integrand,
        SAMPLE_GRID, "e^{-ε} <= ratio <= e^{ε}", params=p, certify=("factor:integrand", FAMILY),
    ),
    explicit=False,
    hypotheses=("|κ| <= Δ", "|q_i(D) - q_i(D')| <= Δ"),
    quantifiers=("z >= M(D', x) - t (every real z)", "ε > 0, Δ > 0"),
    relation="in [e^-ε, e^ε]",
    mechanism="M1",
    parameters=POINT_PARAMS,
)


# --- the conclusion ---------------------------------------------------------------------------------------------------------------
def conditional_bound_check(claim_id: str, family: str, **params: Any) -> Verdict:
    """e^{-ε} <= Pr[A(D)=s_i ∥ x] / Pr[A(D')=s_i ∥ x] <= e^{ε}: sweep of the exact conditional ratio."""
    from proofs.sweeps import mp_conditional_log_ratio

    if params:
        pt = point_from_params(params)
        # rescale to Δ = 1, t = 0 (the ratio depends on the gaps in units of Δ)
        def g(v):
            return None if v is None else (v - pt.t) / pt.delta

        lr = mp_conditional_log_ratio(family, pt.eps, g(pt.M), g(pt.q), g(pt.Mp), g(pt.qp))
        with mpmath.workdps(40):
            margin = mpmath.mpf(pt.eps.numerator) / pt.eps.denominator - abs(lr)
        ok = margin >= -mpmath.mpf(10) ** -30
        return Verdict(
            claim_id,
            "consistent" if ok else "undecided",
            "exact conditional ratio at the point (mpmath, 40 digits)" + ("" if ok else ": bound exceeded at this point"),
            Evidence(points=1, grid="the point given", digits=40, min_margin=fmt_margin(margin), margin_unit="nats: ε - |ln ratio|"),
        )
    sw = conditional_sweep(family)
    from proofs.engines import certification

    eng = certification("conditional", family)
    if eng.status == "refuted" and sw.violation is None:
        return Verdict(claim_id, "undecided", "certification refuted the bound, the sweep found no violation", Evidence(
            points=sw.points, grid=sw.description, digits=40, notes=(eng.note,)))
    w = sw.worst
    notes = (
        eng.note,
        f"worst point: ε = {w.eps}, M(D)-t = {w.gap_max}, q_i(D)-t = {w.gap_query}, M(D')-t = {w.gap_max_n}, "
        f"q_i(D')-t = {w.gap_query_n}: ln ratio = {nstr(w.log_ratio, 25)}",
    )
    ev = dict(points=sw.points, grid=sw.description, digits=40, min_margin=fmt_margin(sw.min_margin),
              margin_unit="nats: ε - |ln ratio| (0 means attained to 30 digits)", notes=notes)
    if sw.violation is not None:
        v = sw.violation
        from proofs.numerics import confirm

        cx = confirm(
            lambda _: (abs(mp_conditional_log_ratio(family, v.eps, v.gap_max, v.gap_query, v.gap_max_n, v.gap_query_n, mpmath.mp.dps - 5)),
                       mpmath.mpf(v.eps.numerator) / v.eps.denominator),
            None,
            (("eps", str(v.eps)), ("M-t", str(v.gap_max)), ("q-t", str(v.gap_query)), ("M'-t", str(v.gap_max_n)), ("q'-t", str(v.gap_query_n))),
            "|ln ratio| <= ε",
            lambda a, b: a > b,
        )
        from proofs.build import refuted_or_undecided

        return refuted_or_undecided(claim_id, "sweep of the exact conditional ratio, confirmed with mpmath", cx, ev)
    if eng.certified:
        return Verdict(claim_id, "certified", "rigorous enclosures (verify.certify) and the sweep", Evidence(**ev))
    return Verdict(claim_id, "consistent", "sweep of the exact conditional ratio (library fast path, float64; worst point by mpmath at 40 digits)", Evidence(**ev))


claim(
    "P1.conclusion.1",
    "the conditional ratio lies in [e^{-ε}, e^{ε}]",
    SECTION,
    r"e^{-\epsilon} \le \frac{\Pr \big[ \mathcal{A}(D) = s_i \Vert \vec X_{i - 1} = \vec x_{i - 1} \big]}{\Pr \big[ \mathcal{A}(D') = s_i \Vert \vec X_{i - 1} = \vec x_{i - 1} \big]} \le e^{\epsilon}",
    (S.P1_COMPARE, S.COND_D, S.COND_DP),
    "integrate the pointwise bound P1.compare.integrand over z >= M(D',x) - t (P1.chain, P1.dprime)",
    lambda **p: conditional_bound_check("P1.conclusion.1", FAMILY, **p),
    explicit=False,
    hypotheses=("D ∼ D'",),
    quantifiers=NEIGHBOUR_QUANTIFIERS,
    relation="in [e^-ε, e^ε]",
    mechanism="M1",
    parameters=COND_PARAMS,
)


def check_integration(claim_id: str, family: str, **params: Any) -> Verdict:
    """Integrating over x: both conditional probabilities integrate to the unconditional ones
    against the same law of X_{i-1} (the noise does not depend on the data)."""
    n1, w1, notes1 = total_probability_report(family)
    n2, w2, notes2 = total_probability_report(family, neighbour=True)
    worst = max(w1, w2)
    ok = worst < mpmath.mpf(10) ** -12
    return Verdict(
        claim_id,
        "consistent" if ok else "undecided",
        "law of total probability for D and for D' (quadrature over the law of M, 20 digits) against the exact Pr[A = s_i]; "
        "a pointwise bound between two integrands with the same weight dP(x) integrates to the same bound",
        Evidence(points=n1 + n2, grid="i = 1, 2, 3 configurations, D and D' (queries moved by ±Δ)", digits=20,
                 max_discrepancy=nstr(worst, 5), notes=tuple(notes1 + notes2)),
    )


claim(
    "P1.conclusion.2",
    "integrating over x_{i-1} carries the bound to Pr[A(D) = s_i]",
    SECTION,
    r"\Pr[\mathcal{A}(D) = s_i] = \int \Pr \big[ \mathcal{A}(D) = s_i \Vert \vec X_{i - 1} = \vec x_{i - 1} \big] \, dP_{\vec X_{i-1}}(\vec x_{i-1}) \ \text{(and for } D'\text{)}",
    (S.P1_COMPARE,),
    "law of total probability; X_{i-1} has the same law under D and D'",
    lambda **p: check_integration("P1.conclusion.2", FAMILY, **p),
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


def check_conclusion(**params: Any) -> Verdict:
    from proofs.registry import get_claim

    thm = get_claim("M1.theorem").check(**params) if params else get_claim("M1.theorem").check()
    own = Verdict("P1.conclusion", thm.verdict, f"the theorem's own check (M1.theorem): {thm.method}", thm.evidence)
    return own if params else conclusion("P1.conclusion", CONCLUSION_LINKS, own)


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
