"""Seed, Mechanism One, "Proof 2.": P2.*.

Proof 2 writes both conditional probabilities as double integrals over
(z, x_i), substitutes (z', x_i') by two linear equations under which the
indicators agree, bounds the shifts |z' - z| <= Δ and |x_i' - x_i| <= 2Δ,
notes the Jacobian is 1, and bounds the ratio of the double integrals by
exp(Δ·ε/3Δ)·exp(2Δ·ε/3Δ) <= exp(ε).
"""

from __future__ import annotations

import random
from fractions import Fraction
from functools import cache
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from proofs import conditional as C
from proofs import seed as S
from proofs import symbolic as Y
from proofs.build import COND_PARAMS, COND_QUANTIFIERS, NEIGHBOUR_QUANTIFIERS, claim, conclusion, link, theorem_conclusion
from proofs.claim import Evidence, Verdict
from proofs.laplace_proof_1 import (
    EVENT_PARAMS,
    KAPPA_PARAMS,
    SAMPLE_GRID,
    _log_pdf_np,
    _mp_log_pdf,
    _sample,
    check_chain_1,
    check_chain_2,
    check_event,
    check_integration,
    check_kappa,
    conditional_bound_check,
)
from proofs.numerics import Point, compare_values, mpf, nstr
from proofs.steps import equality_check, pointwise_check
from proofs.sweeps import conditional_sweep, fmt_margin

SECTION = "Mechanism One, Proof 2"
FAMILY = "laplace"
HYP = (
    "Z, X_i independent with densities p(z), p(x_i) of Lap(3Δ/ε)",
    "M(D, x_{i-1}) = max_{j<i}(q_j(D) + x_j), -∞ for i = 1",
)
#: Points at which the double integrals are evaluated by nested quadrature (15 digits; slow).
NESTED_POINTS = (Point(Fraction(1), Fraction(1), Fraction(0), Fraction(1, 2), Fraction(1), Fraction(-1, 2), Fraction(2)),)
NESTED_DIGITS = 15

claim(
    "P2.event",
    "s_i as the event M < t̂ <= q̂_i (Proof 2)",
    SECTION,
    S.EVENT.rstrip("."),
    (S.EVENT_INTRO, S.EVENT, S.M_DEF),
    "definition of Algorithm A and of the maximum (as P1.event)",
    lambda **p: check_event("P2.event", **p),
    hypotheses=("the maximum over no index is -∞ (i = 1)",),
    quantifiers=("i ∈ ℕ⁺", "all real values of t̂, q̂_1(D), ..., q̂_i(D)"),
    relation="iff",
    mechanism="M1",
    parameters=EVENT_PARAMS,
)


def nested_notes(side: str) -> tuple[mpmath.mpf, list[str]]:
    """The double integral as written (nested quadrature, 15 digits) against the exact value."""
    worst = mpmath.mpf(0)
    notes = []
    for pt in NESTED_POINTS:
        v = C.nested(FAMILY, pt, side, NESTED_DIGITS)
        ref = C.library(FAMILY, pt, side, 20)
        with mpmath.workdps(20):
            d = abs(v - ref) / ref
        worst = max(worst, d)
        notes.append(f"nested quadrature of the double integral at {dict(pt.as_params())}: {nstr(v, 14)} vs exact {nstr(ref, 14)}")
    return worst, notes


def check_double(claim_id: str, side: str, lemmas: bool = True, **params: Any) -> Verdict:
    worst, notes = nested_notes(side) if not params else (mpmath.mpf(0), [])
    ok_nested = worst < mpmath.mpf(10) ** -(NESTED_DIGITS - 4)
    v = equality_check(
        claim_id,
        lambda pt: C.library(FAMILY, pt, side),
        lambda pt: C.p1_survival_form(pt) if side == "D" else C.p1_integral_form(pt, "Dp"),
        [
            ("the inner integral ∫ p(x_i) I[t + z <= q_i + x_i] dx_i = ∫_{t+z-q_i}^∞ p = 1 - F(t + z - q_i) for every real argument", Y.cdf_lemma(FAMILY)),
            ("p integrates to 1", Y.normalised(FAMILY)),
        ] if lemmas else [],
        neighbours=side == "Dp",
        params=params,
        what="lhs: exact conditional probability; rhs: the double integral with its inner integral in closed form, outer by quadrature",
        extra_notes=(
            "independence: the joint density of (Z, X_i) is p(z)·p(x_i); Fubini",
            f"the double integral as written, by nested quadrature at {NESTED_DIGITS} digits at {len(NESTED_POINTS)} points: "
            f"max relative discrepancy {nstr(worst, 3)}" if not params else "nested quadrature: not run at a user point",
            *notes,
        ),
    )
    if not ok_nested and v.verdict in ("proved", "consistent"):
        return Verdict(claim_id, "undecided", v.method + "; but the nested quadrature disagreed", v.evidence)
    return v


def _double_conclusion(cid: str, side: str, links: tuple[str, ...]):
    def check(**params: Any) -> Verdict:
        own = check_double(cid, side, lemmas=False, **params)
        return own if params else conclusion(cid, links, own)

    return check


for side, tag, cond, hat, noise, double in (
    ("D", "P2.double_integral", S.COND_D, S.EV_HAT_D, S.EV_NOISE_D, S.P2_DOUBLE_D),
    ("Dp", "P2.dprime", S.COND_DP, S.EV_HAT_DP, S.EV_NOISE_DP, S.P2_DOUBLE_DP),
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
        (lambda cid: (lambda **p: check_chain_1(cid, FAMILY, **p)))(f"{tag}.1"),
        hypotheses=HYP,
        quantifiers=COND_QUANTIFIERS,
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
        (lambda cid: (lambda **p: check_chain_2(cid, **p)))(f"{tag}.2"),
        hypotheses=HYP,
        quantifiers=COND_QUANTIFIERS,
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
        (lambda cid, sd: (lambda **p: check_double(cid, sd, **p)))(f"{tag}.3", side),
        hypotheses=HYP,
        quantifiers=NEIGHBOUR_QUANTIFIERS if side == "Dp" else COND_QUANTIFIERS,
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
        _double_conclusion(tag, side, links),
        hypotheses=HYP,
        quantifiers=NEIGHBOUR_QUANTIFIERS if side == "Dp" else COND_QUANTIFIERS,
        relation="=",
        links=links,
        mechanism="M1",
        parameters=COND_PARAMS,
    )


# --- the substitution -----------------------------------------------------------------------------------------------
zs, xs, zp, xp, t, Md, Mdp, qd, qdp = sp.symbols("z x_i z' x_i' t M_D M_Dp q_D q_Dp", real=True)
EQUATIONS = (sp.Eq(t + zp - Mdp, t + zs - Md), sp.Eq(qdp + xp - (t + zp), qd + xs - (t + zs)))


@cache
def solved() -> dict:
    """(z', x_i') in terms of (z, x_i) from the two equations (sympy)."""
    sol = sp.solve(EQUATIONS, [zp, xp], dict=True)
    return sol[0]


@cache
def indicator_identity() -> bool:
    """Under the equations the two conditions of the D' indicator are those of D:
    t + z' - M(D') > 0 iff t + z - M(D) > 0 and q_i(D') + x_i' - (t + z') >= 0 iff q_i(D) + x_i - (t + z) >= 0."""
    s = solved()
    c1 = sp.simplify((t + zp - Mdp).subs(s) - (t + zs - Md)) == 0
    c2 = sp.simplify((qdp + xp - (t + zp)).subs(s) - (qd + xs - (t + zs))) == 0
    return bool(c1 and c2)


def _indicator(M: Fraction, tt: Fraction, zz: Fraction, q: Fraction, x: Fraction) -> bool:
    return M < tt + zz <= q + x


@cache
def indicator_points(n: int = 2000, seed: int = 5) -> int:
    """Exact rational points (with ties) at which the two indicators are compared; returns mismatches."""
    rnd = random.Random(seed)
    bad = 0
    for _ in range(n):
        vals = [Fraction(rnd.randint(-6, 6), rnd.choice([1, 2, 3])) for _ in range(7)]
        M, Mp, tt, zz, q, qp, x = vals
        z2 = zz + Mp - M  # the first equation solved for z'
        x2 = q + x - (tt + zz) - qp + (tt + z2)  # the second equation solved for x_i'
        bad += _indicator(Mp, tt, z2, qp, x2) != _indicator(M, tt, zz, q, x)
    return bad


def check_substitution(**params: Any) -> Verdict:
    sym = indicator_identity()
    bad = indicator_points()
    ok = sym and bad == 0
    return Verdict(
        "P2.substitution",
        "proved" if ok else "undecided",
        "sympy: solving the two equations for (z', x_i') turns each condition of the D' indicator into the same condition of the D indicator",
        Evidence(points=2000, grid="2000 exact rational points (seeded, ties included)", notes=(f"mismatches at exact points: {bad}",)),
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
    relation="=",
    mechanism="M1",
)


def _sym_check(claim_id: str, ok: bool, method: str, notes: tuple[str, ...] = ()) -> Verdict:
    return Verdict(claim_id, "proved" if ok else "undecided", method, Evidence(points=0, grid="symbolic", notes=notes))


@cache
def shift_z_identity() -> bool:
    s = solved()
    return sp.simplify(s[zp] - zs - (Mdp - Md)) == 0


@cache
def shift_x_identities() -> tuple[bool, bool]:
    s = solved()
    first = sp.simplify(s[xp] - xs - (s[zp] - qdp - zs + qd)) == 0
    second = sp.simplify((s[zp] - qdp - zs + qd) - (Mdp - Md + qd - qdp)) == 0
    return bool(first), bool(second)


DELTA_ = sp.Symbol("Delta", positive=True)


@cache
def triangle_vertices() -> bool:
    """|a + b| <= 2Δ on [-Δ, Δ]^2: |a + b| is convex, so its maximum is at a vertex (sympy evaluates the 4 vertices)."""
    a = [-DELTA_, DELTA_]
    return all(sp.simplify(2 * DELTA_ - sp.Abs(u + v)).is_nonnegative for u in a for v in a)



claim(
    "P2.shift_z.1",
    "|z' - z| = |M(D') - M(D)|",
    SECTION,
    r"|z' - z| = |M(D', \vec x_{i - 1}) - M(D, \vec x_{i - 1})|",
    (S.P2_SHIFT_Z, S.P2_EQ_Z),
    "the first equation solved for z'",
    lambda **p: _sym_check("P2.shift_z.1", shift_z_identity(), "sympy: z' - z = M(D') - M(D) from the first equation"),
    hypotheses=("the two equations",),
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
    lambda **p: check_kappa("P2.shift_z.2", **p),
    hypotheses=("|q_j(D) - q_j(D')| <= Δ for every j < i",),
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
    lambda **p: conclusion("P2.shift_z", ("P2.shift_z.1", "P2.shift_z.2"),
                           None),
    hypotheses=("the two equations", "D ∼ D'"),
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
    lambda **p: _sym_check("P2.shift_x.1", shift_x_identities()[0], "sympy: x_i' - x_i = z' - q_i(D') - z + q_i(D) from the second equation"),
    hypotheses=("the two equations",),
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
    lambda **p: _sym_check("P2.shift_x.2", shift_x_identities()[1], "sympy: substituting z' from the first equation"),
    hypotheses=("the two equations",),
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
    lambda **p: conclusion(
        "P2.shift_x.3",
        ("P2.shift_z.2",),
        _sym_check("P2.shift_x.3", triangle_vertices(),
                   "sympy: |a + b| <= 2Δ at the 4 vertices of [-Δ, Δ]^2, hence on the square (|a + b| is convex); a = M(D') - M(D), b = q_i(D) - q_i(D')"),
    ),
    hypotheses=("|M(D') - M(D)| <= Δ", "|q_i(D) - q_i(D')| <= Δ"),
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
    lambda **p: conclusion("P2.shift_x", ("P2.shift_x.1", "P2.shift_x.2", "P2.shift_x.3"), None),
    hypotheses=("the two equations", "D ∼ D'"),
    relation="<=",
    links=("P2.shift_x.1", "P2.shift_x.2", "P2.shift_x.3"),
    mechanism="M1",
)


# --- Jacobian --------------------------------------------------------------------------------------------------------------
@cache
def jacobian() -> tuple[sp.Matrix, sp.Expr]:
    s = solved()
    J = sp.Matrix([[sp.diff(s[xp], xs), sp.diff(s[xp], zs)], [sp.diff(s[zp], xs), sp.diff(s[zp], zs)]])
    return J, sp.simplify(J.det())


def check_jacobian(**params: Any) -> Verdict:
    J, det = jacobian()
    ok = J == sp.eye(2) and det == 1
    return _sym_check(
        "P2.jacobian",
        ok,
        "sympy: differentiate (x_i', z') solved from the two equations; the matrix is the identity, determinant 1",
        (f"J = {J.tolist()}, det = {det}",),
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
    relation="=",
    mechanism="M1",
)


# --- the ratio display ---------------------------------------------------------------------------------------------------------
def check_ratio_1(**params: Any) -> Verdict:
    def lhs(pt: Point) -> mpmath.mpf:
        return C.library(FAMILY, pt, "D") / C.library(FAMILY, pt, "Dp")

    def rhs(pt: Point) -> mpmath.mpf:
        return C.p1_survival_form(pt) / C.p1_integral_form(pt, "Dp")

    own = equality_check(
        "P2.ratio.1",
        lhs,
        rhs,
        [],
        neighbours=True,
        params=params,
        what="lhs: ratio of the exact conditional probabilities; rhs: ratio of the double integrals (inner integral in closed form)",
        extra_notes=("the numerator and the denominator are P2.double_integral and P2.dprime",),
    )
    return own if params else conclusion("P2.ratio.1", ("P2.double_integral", "P2.dprime"), own)


def check_ratio_2(**params: Any) -> Verdict:
    """The denominator after the change of variables (x_i', z') -> (x_i, z)."""
    pts = NESTED_POINTS
    with mpmath.workdps(20):
        rep = compare_values(pts, lambda pt: C.library(FAMILY, pt, "Dp", 20), lambda pt: C.p2_substituted_denominator(pt, NESTED_DIGITS), 20)
    ok_num = rep.max_discrepancy < mpmath.mpf(10) ** -(NESTED_DIGITS - 4)
    ok_sym = indicator_identity() and jacobian()[1] == 1
    ev = Evidence(
        points=len(pts),
        grid=f"{len(pts)} points, nested quadrature at {NESTED_DIGITS} digits (the substituted denominator is a genuine double integral)",
        digits=NESTED_DIGITS,
        max_discrepancy=nstr(rep.max_discrepancy, 3),
        notes=("the map (x_i, z) -> (x_i', z') is a translation of ℝ² (P2.jacobian), the indicators agree (P2.substitution)",),
    )
    if ok_sym and ok_num:
        return Verdict("P2.ratio.2", "proved", "sympy: change of variables by a translation (Jacobian 1, indicators equal); nested quadrature agrees", ev)
    return Verdict("P2.ratio.2", "undecided", "the substitution could not be confirmed", ev)


def _ratio3_sample(rng: np.random.Generator) -> dict[str, np.ndarray]:
    p = _sample(rng)
    b = 3.0 / p["eps"]
    p["x"] = rng.uniform(-8, 8, len(b)) * b
    return p


def ratio3_lr(p: dict[str, np.ndarray]) -> np.ndarray:
    """ln p(z)p(x_i) - ln p(z')p(x_i') with z' = z - κ, x_i' = x_i - κ + δ (δ = q_i(D) - q_i(D'))."""
    b = 3.0 / p["eps"]
    z2 = p["z"] - p["kappa"]
    x2 = p["x"] - p["kappa"] + p["delta_q"]
    return _log_pdf_np(p["z"], b) + _log_pdf_np(p["x"], b) - _log_pdf_np(z2, b) - _log_pdf_np(x2, b)


def mp_ratio3(pt: dict[str, Any]):
    eps = mpf(pt.get("eps", 1))
    b = 3 / eps
    z, x, k, dl = (mpf(pt.get(n, 0)) for n in ("z", "x", "kappa", "delta_q"))
    lr = _mp_log_pdf(z, b) + _mp_log_pdf(x, b) - _mp_log_pdf(z - k, b) - _mp_log_pdf(x - k + dl, b)
    return lr, eps / 3 + 2 * eps / 3, None


def check_ratio_3(**params: Any) -> Verdict:
    pw = pointwise_check(
        "P2.ratio.3",
        ratio3_lr,
        _ratio3_sample,
        lambda p_: p_["eps"],
        None,
        mp_ratio3,
        SAMPLE_GRID + "; x_i in [-8b, 8b]",
        "integrand ratio <= exp(ε/3)·exp(2ε/3)",
        params=params,
        notes=("pointwise: p(z)/p(z') <= exp(|z - z'|/b) <= exp(Δ·ε/3Δ) and p(x_i)/p(x_i') <= exp(2Δ·ε/3Δ)",),
        certify=("factor:double_integrand", FAMILY),
    )
    if params or pw.verdict == "refuted":
        return pw
    sw = conditional_sweep(FAMILY)
    with mpmath.workdps(40):
        ok = sw.violation is None and sw.min_margin >= -mpmath.mpf(10) ** -30
    notes = pw.evidence.notes + (
        f"the ratio of the integrals itself (conditional sweep, {sw.points} points): smallest margin {fmt_margin(sw.min_margin)} nats",
    )
    ev = Evidence(points=pw.evidence.points + sw.points, grid=pw.evidence.grid + "; and the conditional sweep", digits=40,
                  min_margin=pw.evidence.min_margin, margin_unit=pw.evidence.margin_unit, notes=notes)
    return Verdict("P2.ratio.3", pw.verdict if ok else "undecided", pw.method + "; the ratio of the integrals by the conditional sweep", ev)


@cache
def exponent_identity() -> bool:
    from verify.probabilities import DELTA, EPSILON

    return Y.is_zero(sp.exp(DELTA * EPSILON / (3 * DELTA)) * sp.exp(2 * DELTA * EPSILON / (3 * DELTA)) - sp.exp(EPSILON))


RATIO3_PARAMS = (("eps", "ε"), ("z", "z"), ("x", "x_i"), ("kappa", "κ"), ("delta_q", "q_i(D) - q_i(D')"))
RATIO_LINKS = ("P2.ratio.1", "P2.ratio.2", "P2.ratio.3", "P2.ratio.4")
for n, (a, rel, b, why, chk, _extra) in enumerate(
    (
        (S.P2_RATIO_LHS, "=", S.P2_RATIO_1, "P2.double_integral and P2.dprime", check_ratio_1, {}),
        (S.P2_RATIO_1, "=", S.P2_RATIO_2, "integration by substitution (P2.substitution, P2.jacobian)", check_ratio_2, {}),
        (S.P2_RATIO_2, r"\le", S.P2_RATIO_3, "pointwise: p(z)/p(z') <= exp(|z'-z|/b), p(x_i)/p(x_i') <= exp(|x_i'-x_i|/b) with P2.shift_z, P2.shift_x", check_ratio_3, {}),
        (S.P2_RATIO_3, r"\le", S.P2_RATIO_4, "exp(ε/3)·exp(2ε/3) = exp(ε)",
         lambda **p: _sym_check("P2.ratio.4", exponent_identity(), "sympy: exp(Δ·ε/3Δ)·exp(2Δ·ε/3Δ) - exp(ε) = 0, so <= holds (with equality)"), {}),
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
        relation="=" if rel == "=" else "<=",
        mechanism="M1",
        parameters=COND_PARAMS if n == 1 else RATIO3_PARAMS if n == 3 else (),
    )


def check_ratio(**params: Any) -> Verdict:
    own = conditional_bound_check("P2.ratio", FAMILY, **params)
    return own if params else conclusion("P2.ratio", RATIO_LINKS, own)


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
    relation="<=",
    links=RATIO_LINKS,
    mechanism="M1",
    parameters=COND_PARAMS,
)


def check_conclusion(**params: Any) -> Verdict:
    return theorem_conclusion("P2.conclusion", "M1.theorem", ("P2.ratio", "P2.integration"),
                              "Proof 2 shows only the upper bound; the lower bound e^-ε follows by exchanging D and D' (neighbouring is symmetric)", params)


claim(
    "P2.integration",
    "integrating over x_{i-1} carries the bound to Pr[A(D) = s_i] (Proof 2)",
    SECTION,
    r"\Pr[\mathcal{A}(D) = s_i] = \int \Pr \big[ \mathcal{A}(D) = s_i \Vert \vec X_{i - 1} = \vec x_{i - 1} \big] \, dP_{\vec X_{i-1}}(\vec x_{i-1}) \ \text{(and for } D'\text{)}",
    (S.INTEGRATING,),
    "law of total probability; X_{i-1} has the same law under D and D'",
    lambda **p: check_integration("P2.integration", FAMILY, **p),
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
