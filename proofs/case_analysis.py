"""Exhaustive case analyses, each case machine-checked by sympy with a linear certificate.

A *case* is a list of hypotheses h_k >= 0 (or > 0) and a goal g >= 0 (or > 0),
all linear in free real symbols.  The case holds for every value of the
symbols when there are rationals c_0, c_k >= 0 with

    g = c_0 + Σ_k c_k h_k   (an identity of polynomials, checked by sympy's ``expand``)

and, for a strict goal, c_0 > 0 or c_k > 0 for some strict hypothesis
(Farkas' lemma: a non-negative combination of true inequalities is true).
The coefficients are proposed by a linear program in floating point
(``scipy.optimize.linprog``), rounded to small rationals, and then checked
exactly: sympy verifies the identity with the rational coefficients, so the
verdict rests on that exact identity, never on floating point or on sampled
points (a proposal that does not survive the exact check is no certificate).

A `CaseAnalysis` is ``proved`` when every one of its finitely many cases is
certified; its ``coverage`` sentence says why the cases cover every input
(which index attains a maximum, which branch of max{0, ·}, which sign
orthant), for every number of queries k.

The lemmas (the seed's implicit steps):

* `max_lipschitz`: |max_l a_l - max_l b_l| <= Δ when |a_l - b_l| <= Δ for every l
  (P1.kappa_bound, P2.shift_z.2, M2.kappa_bound), by cases on the indices i, j
  attaining max a and max b;
* `event_equivalence`: the halting rule "q̂_j < t̂ for every j < i and q̂_i >= t̂"
  iff max_{j<i} q̂_j < t̂ <= q̂_i (P1.event, P2.event, M2.event);
* `noisy_max_equivalence`: the same rule iff the two report-noisy-max events
  (M2.noisy_max);
* `error_bound`: every empirical error term is at most |Z| + max_l |X_l|
  (U.error_bound.M1/.M2), by cases on the kind of the term (⊤ or ⊥), the
  branch of max{0, ·} and the sign orthant of (Z, X_j).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np
import sympy as sp
from scipy.optimize import linprog

from proofs.symbolic import sympy_engine

#: Largest certificate coefficient searched for (the lemmas need at most 2).
MAX_COEFFICIENT = 100


@dataclass(frozen=True)
class Ineq:
    """``expr >= 0`` (``> 0`` if strict), with a readable text."""

    expr: sp.Expr
    strict: bool = False
    text: str = ""

    def __str__(self) -> str:
        return self.text or f"{self.expr} {'>' if self.strict else '>='} 0"


def ge(a: sp.Expr, b: sp.Expr, text: str = "") -> Ineq:
    """a >= b."""
    return Ineq(sp.expand(a - b), False, text or f"{a} >= {b}")


def gt(a: sp.Expr, b: sp.Expr, text: str = "") -> Ineq:
    """a > b."""
    return Ineq(sp.expand(a - b), True, text or f"{a} > {b}")


@dataclass(frozen=True)
class Case:
    """One case: under ``hypotheses``, ``goal`` holds."""

    name: str
    hypotheses: tuple[Ineq, ...]
    goal: Ineq


@dataclass(frozen=True)
class CaseResult:
    case: Case
    certified: bool
    certificate: str


@dataclass(frozen=True)
class CaseAnalysis:
    """A finite set of cases that covers every input (``coverage`` says why)."""

    name: str
    coverage: str
    results: tuple[CaseResult, ...]

    @property
    def proved(self) -> bool:
        return bool(self.results) and all(r.certified for r in self.results)

    @property
    def failed(self) -> tuple[str, ...]:
        return tuple(r.case.name for r in self.results if not r.certified)

    def summary(self) -> str:
        ok = sum(r.certified for r in self.results)
        return f"{self.name}: {ok} of {len(self.results)} cases certified by sympy (linear certificates)"

    def report(self) -> str:
        """The summary and every case with its certificate (one line for the evidence)."""
        return self.summary() + ": " + "; ".join(f"{r.case.name}: {r.certificate}" for r in self.results)


def _linear(expr: sp.Expr, symbols: list[sp.Symbol]) -> dict[sp.Expr, sp.Expr]:
    """Coefficients of a linear expression (key 1 for the constant); ValueError if it is not linear."""
    poly = sp.Poly(expr, *symbols) if symbols else None
    if poly is not None and poly.total_degree() > 1:
        raise ValueError(f"case analysis: {expr} is not linear in {symbols}")
    coeffs = {s: sp.expand(expr).coeff(s) for s in symbols}
    coeffs[sp.Integer(1)] = sp.expand(expr).subs({s: 0 for s in symbols})
    return coeffs


def certify(case: Case) -> CaseResult:
    """Find rationals c_0, c_k >= 0 with goal = c_0 + Σ c_k h_k and check the identity exactly with sympy."""
    symbols = sorted(set().union(case.goal.expr.free_symbols, *(h.expr.free_symbols for h in case.hypotheses)), key=str)
    goal = _linear(case.goal.expr, symbols)
    hyps = [_linear(h.expr, symbols) for h in case.hypotheses]
    one = sp.Integer(1)
    # unknowns (c_1..c_m, c_0): one equation per symbol and one for the constant term
    a_eq = [[float(h[s]) for h in hyps] + [0.0] for s in symbols] + [[float(h[one]) for h in hyps] + [1.0]]
    b_eq = [float(goal[s]) for s in symbols] + [float(goal[one])]
    # for a strict goal, put as much weight as possible on c_0 and the strict hypotheses
    weight = [(-1.0 if (case.goal.strict and h.strict) else 0.0) for h in case.hypotheses] + [-1.0 if case.goal.strict else 0.0]
    lp = linprog(np.array(weight), A_eq=np.array(a_eq), b_eq=np.array(b_eq), bounds=[(0, MAX_COEFFICIENT)] * (len(hyps) + 1),
                 method="highs")
    if lp.status != 0:
        return CaseResult(case, False, "no non-negative combination of the hypotheses gives the goal")
    coef = [sp.Rational(Fraction(float(c)).limit_denominator(1000)) for c in lp.x[:-1]]
    # the exact check: the goal minus the combination is a non-negative constant (sympy identity)
    rest = sp.expand(case.goal.expr - sum(c * h.expr for c, h in zip(coef, case.hypotheses)))
    ok = not rest.free_symbols and all(c >= 0 for c in coef) and rest >= 0
    if ok and case.goal.strict:
        ok = rest > 0 or any(c > 0 for c, h in zip(coef, case.hypotheses) if h.strict)
    terms = " + ".join(f"{c}·[{h}]" for c, h in zip(coef, case.hypotheses) if c != 0) or "0"
    return CaseResult(case, bool(ok), f"[{case.goal}] = {rest} + {terms}")


def analyse(name: str, coverage: str, cases: list[Case]) -> CaseAnalysis:
    return CaseAnalysis(name, coverage, tuple(certify(c) for c in cases))


# --- the lemmas ----------------------------------------------------------------------------------------------
DELTA = sp.Symbol("Delta", positive=True)


@sympy_engine
def max_lipschitz() -> CaseAnalysis:
    """|M(D, x) - M(D', x)| <= Δ with M(·, x) = max_l (q_l(·) + x_l) and |q_l(D) - q_l(D')| <= Δ for every l.

    Cases on the indices attaining the maxima: i for D, j for D' (i = j or i ≠ j)."""
    qi, qpi, xi, qj, qpj, xj = sp.symbols("q_i q'_i x_i q_j q'_j x_j", real=True)
    a_i, b_i, a_j, b_j = qi + xi, qpi + xi, qj + xj, qpj + xj

    def sens(q: sp.Expr, qp: sp.Expr) -> tuple[Ineq, Ineq]:
        return ge(DELTA, q - qp, f"Δ >= {q} - {qp}"), ge(DELTA, qp - q, f"Δ >= {qp} - {q}")

    differ = (*sens(qi, qpi), *sens(qj, qpj), ge(a_i, a_j, "i attains max_l a_l: a_i >= a_j"),
              ge(b_j, b_i, "j attains max_l b_l: b_j >= b_i"))
    same = sens(qi, qpi)
    cases = [
        Case("i ≠ j: M(D) - M(D') <= Δ", differ, ge(DELTA, a_i - b_j, "Δ >= max a - max b = a_i - b_j")),
        Case("i ≠ j: M(D') - M(D) <= Δ", differ, ge(DELTA, b_j - a_i, "Δ >= max b - max a = b_j - a_i")),
        Case("i = j: M(D) - M(D') <= Δ", same, ge(DELTA, a_i - b_i, "Δ >= max a - max b = a_i - b_i")),
        Case("i = j: M(D') - M(D) <= Δ", same, ge(DELTA, b_i - a_i, "Δ >= max b - max a = b_i - a_i")),
    ]
    coverage = (
        "for every number i - 1 >= 1 of earlier queries and all real q(D), q(D'), x: with a_l = q_l(D) + x_l and "
        "b_l = q_l(D') + x_l, max a = a_i and max b = b_j for some indices i, j (a finite non-empty set attains its "
        "maximum); the two cases i = j and i ≠ j cover every pair, and the choice of i, j gives a_i >= a_j, b_j >= b_i"
    )
    return analyse("1-Lipschitz maximum", coverage, cases)


@sympy_engine
def event_equivalence() -> CaseAnalysis:
    """[q̂_j < t̂ for all j < i] and q̂_i >= t̂  iff  max_{j<i} q̂_j < t̂ <= q̂_i."""
    th, qi, qj, qs, m = sp.symbols("that qhat_i qhat_j qhat_jstar M", real=True)
    cases = [
        Case("=>: j* attains the maximum M, and q̂_{j*} < t̂", (gt(th, qs, "q̂_{j*} < t̂ (the algorithm continued at j*)"),
                                                              ge(m, qs, "M >= q̂_{j*}"), ge(qs, m, "M <= q̂_{j*} (j* attains M)")),
             gt(th, m, "M < t̂")),
        Case("<=: any j < i", (gt(th, m, "M < t̂"), ge(m, qj, "M >= q̂_j (M is the maximum)")), gt(th, qj, "q̂_j < t̂")),
        Case("both directions: t̂ <= q̂_i", (ge(qi, th, "t̂ <= q̂_i"),), ge(qi, th, "t̂ <= q̂_i")),
    ]
    coverage = (
        "for every i >= 2 (i = 1: no earlier query, M = -∞ and both sides read t̂ <= q̂_1) and all real noisy values: the "
        "maximum M over the finite set {q̂_j : j < i} is attained at some j* (case =>), and M >= q̂_j for every j < i (case <=)"
    )
    return analyse("halting rule as the event M < t̂ <= q̂_i", coverage, cases)


@sympy_engine
def noisy_max_equivalence() -> CaseAnalysis:
    """[q̂_j < t̂ for all j < i] and q̂_i >= t̂  iff  [t̂ > q̂_j for all j < i] and [q̂_i >= t̂ and q̂_i >= q̂_j for all j < i]."""
    th, qi, qj = sp.symbols("that qhat_i qhat_j", real=True)
    cases = [
        Case("=>: q̂_i >= q̂_j for any j < i", (ge(qi, th, "q̂_i >= t̂"), gt(th, qj, "q̂_j < t̂")), ge(qi, qj, "q̂_i >= q̂_j")),
        Case("=>: t̂ > q̂_j, q̂_i >= t̂ (hypotheses of the rule)", (gt(th, qj, "q̂_j < t̂"), ge(qi, th, "q̂_i >= t̂")), gt(th, qj, "t̂ > q̂_j")),
        Case("<=: the rule's conditions are among the noisy-max conditions", (gt(th, qj, "t̂ > q̂_j"), ge(qi, th, "q̂_i >= t̂"),
                                                                               ge(qi, qj, "q̂_i >= q̂_j")), ge(qi, th, "q̂_i >= t̂")),
    ]
    coverage = "for every i >= 1 and every j < i (a generic index: the conditions are the same for each j), all real noisy values"
    return analyse("halting rule as two report-noisy-max events", coverage, cases)


@sympy_engine
def error_bound() -> CaseAnalysis:
    """Every empirical error term of a run is at most |Z| + max_l |X_l| (seed, Utility Guarantee).

    A run's output is s_i (⊤ at j < i, ⊥ at i) or ⊤^k; a ⊤ at j means q_j + X_j < t + Z and costs
    max{0, q_j - t}; the ⊥ at i means q_i + X_i >= t + Z and costs max{0, t - q_i}."""
    q, t, z, x, m = sp.symbols("q_j t Z X_j m", real=True)
    cases = []
    for sz, sx in ((1, 1), (1, -1), (-1, 1), (-1, -1)):
        az, ax = sz * z, sx * x  # |Z| and |X_j| in this sign orthant
        orthant = (ge(az, 0, f"{'Z >= 0' if sz > 0 else 'Z <= 0'}"), ge(ax, 0, f"{'X_j >= 0' if sx > 0 else 'X_j <= 0'}"),
                   ge(m, ax, "m = max_l |X_l| >= |X_j|"))
        tag = f"Z {'>=' if sz > 0 else '<='} 0, X_j {'>=' if sx > 0 else '<='} 0"
        cases.append(Case(f"term 0 (max{{0, ·}} at 0), {tag}", orthant, ge(az + m, 0, "|Z| + m >= 0")))
        cases.append(Case(f"⊤ at j with q_j > t, {tag}", (*orthant, gt(t + z, q + x, "q_j + X_j < t + Z (⊤)"), gt(q, t, "q_j > t")),
                          ge(az + m, q - t, "|Z| + m >= q_j - t")))
        cases.append(Case(f"⊥ at j with q_j < t, {tag}", (*orthant, ge(q + x, t + z, "q_j + X_j >= t + Z (⊥)"), gt(t, q, "q_j < t")),
                          ge(az + m, t - q, "|Z| + m >= t - q_j")))
    coverage = (
        "for every k >= 1, every t, q_1..q_k and every run (every value of Z, X_1..X_k): the maximum error is one of the "
        "k' <= k terms of the run, each either 0 (the max{0, ·} at 0) or the positive branch of a ⊤ (j before the halt, or any "
        "j for ⊤^k) or of the ⊥; the four sign orthants of (Z, X_j) cover ℝ² (|·| written by its sign)"
    )
    return analyse("empirical error <= |Z| + max|X_l|", coverage, cases)
