"""Tightness of the bound ε: attained, approached as the queries are pushed, or loose.

* attained: a structured witness at moderate queries (|q - t| <= 2 scales) whose
  loss equals ε to 50 digits (and, when cheap, the exact ratio by sympy);
* approached: along the best s_k family with the queries pushed out
  (L = unit·2^j, j = 0..7) the gap ε - loss decreases strictly to below 1e-6·ε;
* loose otherwise; exceeded when the verdict is not_private or the loss is unbounded.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np

from verify.exact import fmt
from verify.mechanism import AboveThreshold
from verify.screen import confirm_tolerance, float_margin
from verify.verdicts import MechanismVerdict, Tightness
from verify.worstcase.family import family_log_ratio
from verify.worstcase.results import VIOLATION_DIGITS, KRow, LossWitness, epsilon_mpf
from verify.worstcase.search import SHIFT_PATTERNS, Best, confirm, family_vectors, search_scale


@dataclass(frozen=True)
class TightnessStudy:
    """The tightness, its evidence, the push study and the witness to report (the attaining one if found)."""

    tightness: Tightness
    evidence: str
    witness: LossWitness
    push: tuple[tuple[int, Fraction, mpmath.mpf], ...] = ()
    push_family: str | None = None


def exceeded_study(witness: LossWitness, evidence: str) -> TightnessStudy:
    return TightnessStudy(Tightness.EXCEEDED, evidence, witness)


def study_tightness(mech: AboveThreshold, verdict: MechanismVerdict, witness: LossWitness, by_k: tuple[KRow, ...],
                    families: dict[tuple[int, bool], Best], unit: Fraction, digits: int) -> TightnessStudy:
    """Is ε attained, approached as the queries are pushed or k grows, or loose?"""
    eps = epsilon_mpf(mech)
    tol = confirm_tolerance(mech.epsilon, digits)
    if verdict == MechanismVerdict.NOT_PRIVATE:
        return exceeded_study(witness, f"loss {mpmath.nstr(witness.loss, 15)} > ε")
    scale = search_scale(mech)
    # attained: a witness at moderate queries (|q - t| <= 2 scales) whose loss is ε to 50 digits
    near = moderate_at_bound(mech, scale, unit)
    if near is not None:
        w = confirm(mech, near[0], near[1], near[2], VIOLATION_DIGITS)
        if abs(w.loss - eps) <= mpmath.mpf(10) ** (-(VIOLATION_DIGITS - 5)):
            exact = symbolic_ratio(mech, w)
            evidence = (
                f"log ratio = ε to {VIOLATION_DIGITS} digits at q(D) = ({', '.join(fmt(x) for x in w.queries)}), "
                f"q(D') = ({', '.join(fmt(x) for x in w.neighbour_queries)}), output {w.output}"
                + (f"; sympy: Pr[A(D)]/Pr[A(D')] = {exact} exactly" if exact else ""))
            return TightnessStudy(Tightness.ATTAINED, evidence, w if w.loss >= witness.loss - tol else witness)
    # push study: the best s_k family for small k, queries pushed out along its signs
    ks = sorted({min(k, len(by_k)) for k in (2, 3, 4)})
    pushes = [Fraction(2**j) * unit for j in range(0, 8)]
    studies = []
    push: list[tuple[int, Fraction, mpmath.mpf]] = []
    for k in ks:
        b = families[(k, True)]
        su = 1 if b.u >= 0 else -1
        sv = 1 if b.v >= 0 else -1
        vals = []
        for p in pushes:
            q, qn, out = family_vectors(mech, k - 1, True, su * p, sv * p, b.s1, b.s2)
            vals.append((k, p, confirm(mech, q, qn, out, digits).loss))
        push += vals
        fam = (f"s_{k}: q_j(D) = t {'+' if su > 0 else '-'} L (j < {k}), q_{k}(D) = t {'+' if sv > 0 else '-'} L, "
               f"q(D') shifted by {b.s1:+d}Δ (j < {k}) and {b.s2:+d}Δ")
        studies.append((k, fam, [eps - v for _, _, v in vals]))
    push_family = "; ".join(f for _, f, _ in studies)
    by_k_text = ", ".join(f"k={r.k}: {mpmath.nstr(r.loss, 8)}" for r in by_k)

    def approaching(gaps):
        live = [g for g in gaps if g > tol]
        return all(g1 > g2 for g1, g2 in zip(live, live[1:])) and gaps[-1] < mpmath.mpf("1e-6") * eps

    good = [(k, fam, g) for k, fam, g in studies if approaching(g)]
    if good:
        k, fam, g = good[0]
        evidence = (
            f"not attained at moderate queries; the gap ε - loss falls from {mpmath.nstr(g[0], 3)} (L = {fmt(pushes[0])}) "
            f"to {mpmath.nstr(max(g[-1], mpmath.mpf(0)), 3)} (L = {fmt(pushes[-1])}) along {fam}; "
            + "; ".join(f"k={kk}: gap {mpmath.nstr(gg[0], 3)} -> {mpmath.nstr(max(gg[-1], mpmath.mpf(0)), 3)}" for kk, _, gg in studies)
            + f"; best loss by k (pushed to the search box): {by_k_text}")
        return TightnessStudy(Tightness.APPROACHED, evidence, witness, tuple(push), push_family)
    evidence = (f"largest loss found {mpmath.nstr(witness.loss, 10)} = {mpmath.nstr(witness.loss / eps, 6)}·ε; "
                f"gaps at the largest push: " + ", ".join(f"k={k}: {mpmath.nstr(g[-1], 3)}" for k, _, g in studies))
    return TightnessStudy(Tightness.LOOSE, evidence, witness, tuple(push), push_family)


def moderate_at_bound(mech: AboveThreshold, scale: float, unit: Fraction) -> tuple | None:
    """The structured witness with the smallest |queries - t| whose float64 loss is within
    `verify.screen.float_margin` of ε, over k <= 3 and the grid u, v ∈ unit·{-2..2}/2 (None if none)."""
    eps = float(mech.epsilon)
    delta = float(mech.sensitivity)
    vals = sorted({Fraction(j, 2) * unit for j in range(-4, 5)} | {Fraction(0)}, key=lambda x: (abs(x), x))
    best = None
    for k in (2, 3):
        for u in vals:
            for v in vals:
                for s1, s2 in SHIFT_PATTERNS:
                    lr = family_log_ratio(mech, k - 1, np.array([float(u)]), np.array([float(v)]), s1 * delta, s2 * delta)[0]
                    if abs(abs(lr) - eps) <= float_margin(eps):
                        size = max(abs(u), abs(v))
                        if best is None or size < best[0]:
                            q, qn, out = family_vectors(mech, k - 1, True, u, v, s1, s2)
                            best = (size, q, qn, out)
        if best is not None:
            return best[1:]
    return None


def symbolic_ratio(mech: AboveThreshold, w: LossWitness) -> str | None:
    """Exact Pr[A(D)=s]/Pr[A(D')=s] by sympy with ε, Δ symbolic (queries in units of Δ), when cheap."""
    if len(w.queries) > 3 or any(s.multiplier is None for s in (mech.threshold_spec, mech.query_spec) if not s.is_none):
        return None
    import sympy

    from verify.mechanism import output_column
    from verify.probabilities import symbolic_distribution

    d, t = mech.sensitivity, mech.threshold
    q = [(x - t) / d for x in w.queries]
    qn = [(x - t) / d for x in w.neighbour_queries]
    m0 = AboveThreshold(mech.epsilon, mech.sensitivity, 0, mech.threshold_spec, mech.query_spec)
    c = output_column(w.output, len(q))
    p = symbolic_distribution(m0, q, symbolic_parameters=True)[c]
    pn = symbolic_distribution(m0, qn, symbolic_parameters=True)[c]
    return str(sympy.simplify(p / pn))
