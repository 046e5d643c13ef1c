"""The checks behind Proof 2's claims (`proofs.laplace_proof_2`): the double integrals, the substitution
(z', x_i') and its Jacobian, the shifts, and the ratio display.

Proof 2 (seed, Mechanism One, "Proof 2."): both conditional probabilities as double integrals over
(z, x_i), the substitution t + z' - M(D') = t + z - M(D), q_i(D') + x_i' - (t + z') = q_i(D) + x_i - (t + z),
|z' - z| <= Δ, |x_i' - x_i| <= 2Δ, Jacobian 1, and the ratio <= exp(Δ·ε/3Δ)·exp(2Δ·ε/3Δ) = exp(ε).
Every function returns a `proofs.claim.Outcome`.
"""

from __future__ import annotations

import functools
import random
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from proofs import conditional as C
from proofs import symbolic as Y
from proofs.build import conclusion
from proofs.claim import ClaimVerdict, Evidence, Outcome
from proofs.laplace_pointwise import SAMPLE_GRID, log_pdf_np, mp_log_pdf, sample
from proofs.numerics import Point, compare_values, mpf, nstr
from proofs.steps import equality_check, pointwise_check
from proofs.sweeps import conditional_sweep, fmt_margin
from proofs.symbolic import sympy_engine

FAMILY = "laplace"
#: The step of link 3 that no lemma covers.
DOUBLE_GAP = ("Pr[M < t + Z <= q_i + X_i] = ∬ p(z) p(x_i) I[M < t + z <= q_i + x_i] dx_i dz (the joint density of independent "
              "Z, X_i) and the iterated integral (Fubini-Tonelli for a non-negative integrand): theorems applied by hand, "
              "not machine-checked")

#: Points at which the double integrals are evaluated by nested quadrature (15 digits; slow).
NESTED_POINTS = (Point(Fraction(1), Fraction(1), Fraction(0), Fraction(1, 2), Fraction(1), Fraction(-1, 2), Fraction(2)),)
NESTED_DIGITS = 15


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


def check_double(side: str, lemmas: bool = True, **params: Any) -> Outcome:
    worst, notes = nested_notes(side) if not params else (mpmath.mpf(0), [])
    ok_nested = worst < mpmath.mpf(10) ** -(NESTED_DIGITS - 4)
    v = equality_check(lambda pt: C.library(FAMILY, pt, side),
        lambda pt: C.p1_survival_form(pt) if side == "D" else C.p1_integral_form(pt, "Dp"),
        [
            ("the inner integral ∫ p(x_i) I[t + z <= q_i + x_i] dx_i = ∫_{t+z-q_i}^∞ p = 1 - F(t + z - q_i) for every real argument", Y.cdf_lemma(FAMILY)),
            ("p integrates to 1", Y.normalised(FAMILY)),
        ] if lemmas else [],
        neighbours=side == "Dp",
        params=params,
        what="lhs: exact conditional probability; rhs: the double integral with its inner integral in closed form, outer by quadrature",
        gap=DOUBLE_GAP if lemmas else "",
        extra_notes=(
            "independence: the joint density of (Z, X_i) is p(z)·p(x_i); Fubini",
            f"the double integral as written, by nested quadrature at {NESTED_DIGITS} digits at {len(NESTED_POINTS)} points: "
            f"max relative discrepancy {nstr(worst, 3)}" if not params else "nested quadrature: not run at a user point",
            *notes,
        ),
    )
    if not ok_nested and v.verdict in (ClaimVerdict.PROVED, ClaimVerdict.CONSISTENT):
        return Outcome(ClaimVerdict.UNDECIDED, v.method + "; but the nested quadrature disagreed", v.evidence)
    return v



# --- the substitution -----------------------------------------------------------------------------------------------
zs, xs, zp, xp, t, Md, Mdp, qd, qdp = sp.symbols("z x_i z' x_i' t M_D M_Dp q_D q_Dp", real=True)
EQUATIONS = (sp.Eq(t + zp - Mdp, t + zs - Md), sp.Eq(qdp + xp - (t + zp), qd + xs - (t + zs)))


@sympy_engine
def solved() -> dict:
    """(z', x_i') in terms of (z, x_i) from the two equations (sympy)."""
    sol = sp.solve(EQUATIONS, [zp, xp], dict=True)
    return sol[0]


@sympy_engine
def indicator_identity() -> bool:
    """Under the equations the two conditions of the D' indicator are those of D:
    t + z' - M(D') > 0 iff t + z - M(D) > 0 and q_i(D') + x_i' - (t + z') >= 0 iff q_i(D) + x_i - (t + z) >= 0."""
    s = solved()
    c1 = sp.simplify((t + zp - Mdp).subs(s) - (t + zs - Md)) == 0
    c2 = sp.simplify((qdp + xp - (t + zp)).subs(s) - (qd + xs - (t + zs))) == 0
    return bool(c1 and c2)


def _indicator(M: Fraction, tt: Fraction, zz: Fraction, q: Fraction, x: Fraction) -> bool:
    return M < tt + zz <= q + x


@functools.cache
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


def check_substitution(**params: Any) -> Outcome:
    sym = indicator_identity()
    bad = indicator_points()
    ok = sym and bad == 0
    return Outcome(ClaimVerdict.PROVED if ok else ClaimVerdict.UNDECIDED,
        "sympy: solving the two equations for (z', x_i') turns each condition of the D' indicator into the same condition of the D indicator",
        Evidence(points=2000, grid="2000 exact rational points (seeded, ties included)", notes=(f"mismatches at exact points: {bad}",)),
    )



def sym_check(ok: bool, method: str, notes: tuple[str, ...] = ()) -> Outcome:
    return Outcome(ClaimVerdict.PROVED if ok else ClaimVerdict.UNDECIDED, method, Evidence(points=0, grid="symbolic", notes=notes))


@sympy_engine
def shift_z_identity() -> bool:
    s = solved()
    return sp.simplify(s[zp] - zs - (Mdp - Md)) == 0


@sympy_engine
def shift_x_identities() -> tuple[bool, bool]:
    s = solved()
    first = sp.simplify(s[xp] - xs - (s[zp] - qdp - zs + qd)) == 0
    second = sp.simplify((s[zp] - qdp - zs + qd) - (Mdp - Md + qd - qdp)) == 0
    return bool(first), bool(second)


DELTA_ = sp.Symbol("Delta", positive=True)


@sympy_engine
def triangle_vertices() -> bool:
    """|a + b| <= 2Δ on [-Δ, Δ]^2: |a + b| is convex, so its maximum is at a vertex (sympy evaluates the 4 vertices)."""
    a = [-DELTA_, DELTA_]
    return all(sp.simplify(2 * DELTA_ - sp.Abs(u + v)).is_nonnegative for u in a for v in a)




# --- Jacobian --------------------------------------------------------------------------------------------------------------
@sympy_engine
def jacobian() -> tuple[sp.Matrix, sp.Expr]:
    s = solved()
    J = sp.Matrix([[sp.diff(s[xp], xs), sp.diff(s[xp], zs)], [sp.diff(s[zp], xs), sp.diff(s[zp], zs)]])
    return J, sp.simplify(J.det())


def check_jacobian(**params: Any) -> Outcome:
    J, det = jacobian()
    ok = J == sp.eye(2) and det == 1
    return sym_check(
        ok,
        "sympy: differentiate (x_i', z') solved from the two equations; the matrix is the identity, determinant 1",
        (f"J = {J.tolist()}, det = {det}",),
    )



# --- the ratio display ---------------------------------------------------------------------------------------------------------
def check_ratio_1(**params: Any) -> Outcome:
    def lhs(pt: Point) -> mpmath.mpf:
        return C.library(FAMILY, pt, "D") / C.library(FAMILY, pt, "Dp")

    def rhs(pt: Point) -> mpmath.mpf:
        return C.p1_survival_form(pt) / C.p1_integral_form(pt, "Dp")

    own = equality_check(lhs,
        rhs,
        [],
        neighbours=True,
        params=params,
        what="lhs: ratio of the exact conditional probabilities; rhs: ratio of the double integrals (inner integral in closed form)",
        extra_notes=("the numerator and the denominator are P2.double_integral and P2.dprime",),
    )
    return own if params else conclusion(("P2.double_integral", "P2.dprime"), own)


@sympy_engine
def denominator_substitution() -> bool:
    """sympy, for arbitrary p: the change of variables z' = z + M(D') - M(D), x_i' = x_i + q_i(D) - q_i(D') + M(D') - M(D)
    (the two equations solved, `solved`; ``Integral.transform`` on each variable, Jacobian 1) turns
    ∬ p(z') p(x_i') I[M(D') < t + z' <= q_i(D') + x_i'] dx_i' dz' into the seed's
    ∬ p(z') p(x_i') I[M(D) < t + z <= q_i(D) + x_i] dx_i dz."""
    p = sp.Function("p")
    s = solved()
    cz, cx = sp.simplify(s[zp] - zs), sp.simplify(s[xp] - xs)
    if (cz.free_symbols | cx.free_symbols) & {zs, xs}:
        return False  # not a translation
    den = sp.Integral(p(zp) * p(xp) * sp.Piecewise((1, (t + zp - Mdp > 0) & (qdp + xp - t - zp >= 0)), (0, True)),
                      (xp, -sp.oo, sp.oo), (zp, -sp.oo, sp.oo))
    moved = den.transform(xp, (xs + cx, xs)).transform(zp, (zs + cz, zs))
    seed = sp.Integral(p(zs + cz) * p(xs + cx) * sp.Piecewise((1, (t + zs - Md > 0) & (qd + xs - t - zs >= 0)), (0, True)),
                       (xs, -sp.oo, sp.oo), (zs, -sp.oo, sp.oo))
    return moved.limits == seed.limits and sp.simplify(moved.function - seed.function) == 0


def check_ratio_2(**params: Any) -> Outcome:
    """The denominator after the change of variables (x_i', z') -> (x_i, z)."""
    pts = NESTED_POINTS
    with mpmath.workdps(20):
        rep = compare_values(pts, lambda pt: C.library(FAMILY, pt, "Dp", 20), lambda pt: C.p2_substituted_denominator(pt, NESTED_DIGITS), 20)
    ok_num = rep.max_discrepancy < mpmath.mpf(10) ** -(NESTED_DIGITS - 4)
    ok_sym = denominator_substitution() and indicator_identity() and jacobian()[1] == 1
    ev = Evidence(
        points=len(pts),
        grid=f"{len(pts)} points, nested quadrature at {NESTED_DIGITS} digits (the substituted denominator is a genuine double integral)",
        digits=NESTED_DIGITS,
        max_discrepancy=nstr(rep.max_discrepancy, 3),
        notes=("the map (x_i, z) -> (x_i', z') is a translation of ℝ² (P2.jacobian), the indicators agree (P2.substitution)",),
    )
    if ok_sym and ok_num:
        return Outcome(ClaimVerdict.PROVED, "sympy: the change of variables (x_i', z') -> (x_i, z), a translation (Integral.transform on "
                       "each variable, Jacobian 1), turns the denominator into the seed's with the indicator of D (for arbitrary p); "
                       "nested quadrature agrees", ev)
    return Outcome(ClaimVerdict.UNDECIDED, "the substitution could not be confirmed", ev)


def ratio3_sample(rng: np.random.Generator) -> dict[str, np.ndarray]:
    p = sample(rng)
    b = 3.0 / p["eps"]
    p["x"] = rng.uniform(-8, 8, len(b)) * b
    return p


def ratio3_lr(p: dict[str, np.ndarray]) -> np.ndarray:
    """ln p(z)p(x_i) - ln p(z')p(x_i') with z' = z - κ, x_i' = x_i - κ + δ (δ = q_i(D) - q_i(D'))."""
    b = 3.0 / p["eps"]
    z2 = p["z"] - p["kappa"]
    x2 = p["x"] - p["kappa"] + p["delta_q"]
    return log_pdf_np(p["z"], b) + log_pdf_np(p["x"], b) - log_pdf_np(z2, b) - log_pdf_np(x2, b)


def mp_ratio3(pt: dict[str, Any]):
    eps = mpf(pt.get("eps", 1))
    b = 3 / eps
    z, x, k, dl = (mpf(pt.get(n, 0)) for n in ("z", "x", "kappa", "delta_q"))
    lr = mp_log_pdf(z, b) + mp_log_pdf(x, b) - mp_log_pdf(z - k, b) - mp_log_pdf(x - k + dl, b)
    return lr, eps / 3 + 2 * eps / 3, None


def check_ratio_3(**params: Any) -> Outcome:
    pw = pointwise_check(ratio3_lr,
        ratio3_sample,
        lambda p_: p_["eps"],
        None,
        mp_ratio3,
        SAMPLE_GRID + "; x_i in [-8b, 8b]",
        "integrand ratio <= exp(ε/3)·exp(2ε/3)",
        params=params,
        notes=("pointwise: p(z)/p(z') <= exp(|z - z'|/b) <= exp(Δ·ε/3Δ) and p(x_i)/p(x_i') <= exp(2Δ·ε/3Δ)",),
        certify=("factor:double_integrand", FAMILY),
    )
    if params or pw.verdict == ClaimVerdict.REFUTED:
        return pw
    sw = conditional_sweep(FAMILY)
    with mpmath.workdps(40):
        ok = sw.violation is None and sw.min_margin >= -mpmath.mpf(10) ** -30
    notes = pw.evidence.notes + (
        f"the ratio of the integrals itself (conditional sweep, {sw.points} points): smallest margin {fmt_margin(sw.min_margin)} nats",
    )
    ev = Evidence(points=pw.evidence.points + sw.points, grid=pw.evidence.grid + "; and the conditional sweep", digits=40,
                  min_margin=pw.evidence.min_margin, margin_unit=pw.evidence.margin_unit, notes=notes)
    return Outcome(pw.verdict if ok else ClaimVerdict.UNDECIDED, pw.method + "; the ratio of the integrals by the conditional sweep", ev)


@sympy_engine
def exponent_identity() -> bool:
    from verify.probabilities import DELTA, EPSILON

    return Y.is_zero(sp.exp(DELTA * EPSILON / (3 * DELTA)) * sp.exp(2 * DELTA * EPSILON / (3 * DELTA)) - sp.exp(EPSILON))



RATIO3_PARAMS = (("eps", "ε"), ("z", "z"), ("x", "x_i"), ("kappa", "κ"), ("delta_q", "q_i(D) - q_i(D')"))
