"""Checks shared by several proofs (Proof 1, Proof 2, Mechanism Two, the theorems, X.*).

* the event s_i = {M < t̂ <= q̂_i} (P1.event, P2.event, M2.event): the case
  analysis `proofs.case_analysis.event_equivalence` for every i, and the seed's
  algorithm run on every order type for i <= 5;
* the conditioning and definition steps (link 1 and 2 of every chain);
* |κ| = |M(D,x) - M(D',x)| <= Δ (P1.kappa_bound, P2.shift_z.2, M2.kappa_bound):
  the case analysis `proofs.case_analysis.max_lipschitz`;
* the conditional ratio bound (P1.conclusion.1, P2.ratio, M2.ratio), the
  integration over x_{i-1}, and the theorems' ratio sweep (M1.theorem,
  M2.theorem, X.no_halt).

Every function returns a `proofs.claim.Outcome`; the claim adds its ID.
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from functools import cache
from typing import Any

import mpmath
import numpy as np
import sympy as sp

from proofs import case_analysis as CA
from proofs import conditional as C
from proofs.build import case_outcome, on_certificate, refuted_or_undecided
from proofs.claim import ClaimVerdict, Counterexample, Evidence, Outcome
from proofs.engines import INTEGRATION_BY_HAND, CheckerFinding, certification, checker_sweep, checker_worst_case
from proofs.numerics import confirm, fstr, nstr, point_from_params
from proofs.sweeps import conditional_sweep, eps_mp, fmt_margin, mechanism, theorem_sweep
from proofs.symbolic import sympy_engine
from verify.mechanism import output_name


# --- the event s_i = {M < t̂ <= q̂_i} ----------------------------------------------------------------------------------
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


def weak_orders(n: int):
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
        for ranks in weak_orders(i + 1):
            prev, th, qi = ranks[: i - 1], ranks[i - 1], ranks[i]
            alg = run_algorithm((*prev, qi), th) == i
            checked += 1
            mismatches += alg != event_holds(prev, th, qi)
    return checked, mismatches


def check_event(previous: Any = None, noisy_threshold: Any = None, noisy_query: Any = None) -> Outcome:
    """A = s_i iff M(D, X_{i-1}) < t̂ <= q̂_i(D): a case analysis for every i; at given values, the algorithm run on them."""
    if previous is not None or noisy_threshold is not None or noisy_query is not None:
        from verify.exact import parse_vector, to_fraction

        if isinstance(previous, str):
            prev = parse_vector(previous, "previous") if previous.strip() else ()
        else:
            prev = tuple(to_fraction(v, "previous") for v in previous or ())
        th = to_fraction(noisy_threshold if noisy_threshold is not None else 0, "noisy_threshold")
        qi = to_fraction(noisy_query if noisy_query is not None else 0, "noisy_query")
        alg = run_algorithm((*prev, qi), th) == len(prev) + 1
        ev = event_holds(prev, th, qi)
        if alg == ev:
            return Outcome(ClaimVerdict.CONSISTENT, "the algorithm run on the values given against the event (exact)",
                           Evidence(points=1, grid="the values given", notes=(f"A = s_i: {alg}; event: {ev}",)))
        cx = Counterexample(
            params=(("previous", ",".join(fstr(v) for v in prev)), ("noisy_threshold", fstr(th)), ("noisy_query", fstr(qi))),
            digits=30, lhs=str(alg), rhs=str(ev), relation="iff", detail="exact comparison of the given values")
        return Outcome(ClaimVerdict.REFUTED, "the algorithm run on the values given against the event (exact)",
                       Evidence(points=1, counterexample=cx))
    ca = CA.event_equivalence()
    checked, bad = enumerate_event()
    notes = (
        ca.report(),
        "the halting rule (seed, Algorithm A lines 2-8: halt at the first i with q̂_i >= t̂) reads A = s_i iff q̂_j < t̂ for every "
        "j < i and q̂_i >= t̂; the case analysis turns that into the event",
        f"the project's run of the algorithm against the event on every order type of (q̂_1..q̂_{{i-1}}, t̂, q̂_i), i = 1..5: "
        f"{checked} order types, {bad} mismatches",
    )
    ev = Evidence(points=len(ca.results), grid="symbolic: " + ca.coverage, notes=notes)
    return case_outcome(ca, ev, contradicted="the algorithm disagrees with the event on an order type" if bad else "",
                        proved="exhaustive case analysis for every i (which index attains the maximum), each case certified by "
                        "sympy; the algorithm agrees on every order type for i <= 5",
                        fallback="the algorithm agrees with the event on every order type for i <= 5, not shown for every i")


EVENT_PARAMS = (("previous", "q̂_1..q̂_{i-1}"), ("noisy_threshold", "t̂"), ("noisy_query", "q̂_i(D)"))


#: Configurations (ε, Δ, t, q_1..q_{i-1}, q_i) of the total-probability checks.
TOTAL_CONFIGS = (
    ("1", "1", "0", (), "1/2"),
    ("1", "1", "0", ("1/2",), "-1"),
    ("1/2", "2", "1", ("1/2", "3"), "2"),
)


@cache
def total_probability_report(family: str, neighbour: bool = False) -> tuple[int, mpmath.mpf, list[str]]:
    """Integrate the conditional probability over the law of M(D, X_{i-1}) and compare with Pr[A(D) = s_i]."""
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


def check_conditioning(family: str, **params: Any) -> Outcome:
    """The conditioning step: the conditional probability is Pr[M(D,x) < t̂ <= q̂_i(D)]."""
    n, worst, notes = total_probability_report(family)
    ok = worst < mpmath.mpf(10) ** -12
    verdict = ClaimVerdict.CONSISTENT if ok else ClaimVerdict.UNDECIDED
    return Outcome(verdict,
        "law of total probability: ∫ Pr[M(D,x) < t̂ <= q̂_i(D)] dP_{X_{i-1}}(x) (quadrature over the law of M, 20 digits) "
        "equals the exact Pr[A(D) = s_i]; Z, X_i independent of X_{i-1} (definition of the conditional probability)",
        Evidence(points=n, grid="i = 1, 2, 3 configurations", digits=20, max_discrepancy=nstr(worst, 5), notes=tuple(notes),
                 by_hand=("conditioning on X_{i-1} = x: the conditional probability is Pr[M(D,x) < t̂ <= q̂_i(D)] "
                          "(Z, X_i independent of X_{i-1}; definition of the conditional probability), by hand",)),
    )


@sympy_engine
def definition_substitution() -> bool:
    """sympy: substituting t̂ = t + Z and q̂_i = q_i(D) + X_i turns the first event into the second."""
    Mx, t, Z, q, X, th, qh = sp.symbols("M t Z q X that qhat", real=True)
    first = sp.And(Mx < th, th <= qh)
    second = sp.And(Mx < t + Z, t + Z <= q + X)
    return first.subs({th: t + Z, qh: q + X}) == second


def check_definitions(**params: Any) -> Outcome:
    ok = definition_substitution()
    return Outcome(ClaimVerdict.PROVED if ok else ClaimVerdict.UNDECIDED,
        "sympy: substituting the definitions t̂ = t + Z (line 1) and q̂_i(D) = q_i(D) + X_i (line 3) gives the second event",
        Evidence(points=0, grid="symbolic", notes=("the two probabilities are of the same event",)),
    )


# --- κ ---------------------------------------------------------------------------------------------------------------------
@cache
def kappa_sweep(n: int = 1000, seed: int = 11) -> tuple[int, Fraction, list]:
    """Δ - |M(D,x) - M(D',x)| in exact rational arithmetic (Δ = 1) for seeded random queries,
    neighbours (shifts ±Δ or rational in [-Δ, Δ]) and noises, i - 1 = 1..6 earlier queries.

    Every value drawn is a multiple of 1/100, so the sums, maxima and margins are exact in hundredths
    (integers); the margins are returned as the same Fractions."""
    import random

    rnd = random.Random(seed)
    worst = 10**11  # hundredths: Fraction(10**9)
    bad = []
    total = 0
    for m in range(1, 7):
        for _ in range(n):
            q = [rnd.randint(-500, 500) for _ in range(m)]
            shift = [100 * rnd.choice([-1, 1]) if rnd.random() < 0.5 else rnd.randint(-100, 100) for _ in range(m)]
            x = [rnd.randint(-900, 900) for _ in range(m)]
            M = max(a + b for a, b in zip(q, x))
            Mp = max(a + s + b for a, s, b in zip(q, shift, x))
            margin = 100 - abs(M - Mp)
            total += 1
            worst = min(worst, margin)
            if margin < 0 and len(bad) < 3:
                bad.append(tuple([Fraction(v, 100) for v in vs] for vs in (q, shift, x)))
    return total, Fraction(worst, 100), bad


def check_kappa(**params: Any) -> Outcome:
    """|κ| = |M(D, x) - M(D', x)| <= Δ: the case analysis `proofs.case_analysis.max_lipschitz` for every i;
    at given values, exact evaluation."""
    if params:
        from verify.exact import parse_vector, to_fraction

        def vec(v: Any, name: str) -> tuple[Fraction, ...]:
            return parse_vector(v, name) if isinstance(v, str) else tuple(to_fraction(x, name) for x in v)

        q, qp, x = vec(params["queries"], "queries"), vec(params["neighbour"], "neighbour"), vec(params["noise"], "noise")
        delta = to_fraction(params.get("delta", 1), "delta")
        if not (len(q) == len(qp) == len(x)) or max(abs(a - b) for a, b in zip(q, qp)) > delta:
            raise ValueError(f"queries, neighbour, noise: need equal lengths and |q_j(D) - q_j(D')| <= Δ = {delta}")
        kappa = abs(max(a + b for a, b in zip(q, x)) - max(a + b for a, b in zip(qp, x)))
        if kappa <= delta:
            return Outcome(ClaimVerdict.CONSISTENT, "exact evaluation at the point", Evidence(points=1, notes=(f"|κ| = {kappa}, Δ = {delta}",)))
        cx = Counterexample(params=tuple((k, ",".join(fstr(v) for v in vs)) for k, vs in (("queries", q), ("neighbour", qp), ("noise", x)))
                            + (("delta", fstr(delta)),), digits=30, lhs=fstr(kappa), rhs=fstr(delta), relation="<=",
                            detail="exact rational arithmetic")
        return Outcome(ClaimVerdict.REFUTED, "exact evaluation at the point", Evidence(points=1, counterexample=cx))
    ca = CA.max_lipschitz()
    total, worst, bad = kappa_sweep()
    ev = Evidence(
        points=len(ca.results),
        grid="symbolic: " + ca.coverage,
        min_margin=str(worst),
        margin_unit="Δ - |κ| over the exact rational corroboration points (0 = attained)",
        notes=(ca.report(),
               f"corroboration (not part of the proof): {total} seeded exact rational points, i - 1 = 1..6, Δ = 1; "
               f"{len(bad)} with |κ| > Δ"),
    )
    return case_outcome(ca, ev, contradicted="exact arithmetic found |κ| > Δ at a point" if bad else "",
                        proved="exhaustive case analysis on the indices i, j attaining max_l (q_l(D) + x_l) and max_l (q_l(D') + x_l) "
                        "(i = j, i ≠ j), each case certified by sympy, for every number of queries",
                        fallback="exact rational points only")


KAPPA_PARAMS = (("queries", "q_1(D),..,q_{i-1}(D)"), ("neighbour", "q_1(D'),..,q_{i-1}(D')"), ("noise", "x_1,..,x_{i-1}"), ("delta", "Δ"))


# --- the conclusion ---------------------------------------------------------------------------------------------------------------
def conditional_bound_check(family: str, **params: Any) -> Outcome:
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
        return Outcome(ClaimVerdict.CONSISTENT if ok else ClaimVerdict.UNDECIDED,
            "exact conditional ratio at the point (mpmath, 40 digits)" + ("" if ok else ": bound exceeded at this point"),
            Evidence(points=1, grid="the point given", digits=40, min_margin=fmt_margin(margin), margin_unit="nats: ε - |ln ratio|"),
        )
    sw = conditional_sweep(family)
    eng = certification("conditional", family)
    if eng.refuted and sw.violation is None:
        return Outcome(ClaimVerdict.UNDECIDED, "certification refuted the bound, the sweep found no violation", Evidence(
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
        cx = confirm(
            lambda _: (abs(mp_conditional_log_ratio(family, v.eps, v.gap_max, v.gap_query, v.gap_max_n, v.gap_query_n, mpmath.mp.dps - 5)),
                       mpmath.mpf(v.eps.numerator) / v.eps.denominator),
            None,
            (("eps", str(v.eps)), ("M-t", str(v.gap_max)), ("q-t", str(v.gap_query)), ("M'-t", str(v.gap_max_n)), ("q'-t", str(v.gap_query_n))),
            "|ln ratio| <= ε",
            lambda a, b: a > b,
        )
        return refuted_or_undecided("sweep of the exact conditional ratio, confirmed with mpmath", cx, ev)
    if eng.certified:
        return on_certificate(eng.by_hand, "rigorous enclosures (verify.certify) and the sweep", ev)
    return Outcome(ClaimVerdict.CONSISTENT, "sweep of the exact conditional ratio (library fast path, float64; worst point by mpmath at 40 digits)", Evidence(**ev))


def check_integration(family: str, **params: Any) -> Outcome:
    """Integrating over x: both conditional probabilities integrate to the unconditional ones
    against the same law of X_{i-1} (the noise does not depend on the data)."""
    n1, w1, notes1 = total_probability_report(family)
    n2, w2, notes2 = total_probability_report(family, neighbour=True)
    worst = max(w1, w2)
    ok = worst < mpmath.mpf(10) ** -12
    return Outcome(ClaimVerdict.CONSISTENT if ok else ClaimVerdict.UNDECIDED,
        "law of total probability for D and for D' (quadrature over the law of M, 20 digits) against the exact Pr[A = s_i]; "
        "a pointwise bound between two integrands with the same weight dP(x) integrates to the same bound",
        Evidence(points=n1 + n2, grid="i = 1, 2, 3 configurations, D and D' (queries moved by ±Δ)", digits=20,
                 max_discrepancy=nstr(worst, 5), notes=tuple(notes1 + notes2), by_hand=(INTEGRATION_BY_HAND,)),
    )


# --- shared by M1.theorem, M2.theorem and the X.* claims ---------------------------------------------------
def ratio_sweep_check(family: str, which: str, bound_factor: Fraction = Fraction(1), **params: Any) -> Outcome:
    """|ln Pr[A(D)=s]/Pr[A(D')=s]| <= ε over the outputs s_i (``which="halt"``) or ⊤^k (``"none"``)."""
    if params:
        return _ratio_point(family, which, **params)
    sw = theorem_sweep(family, which)
    eng = certification("theorem" if which == "halt" else "no_halt", family)
    checkers = [checker_sweep(family)] + ([checker_worst_case(family)] if which == "halt" else [])
    notes = [e.note for e in [eng, *checkers]]
    if sw.worst is not None:
        w = sw.worst
        notes.append(
            f"worst point: ε = {w.eps}, D = {[str(v) for v in w.queries]}, D' = {[str(v) for v in w.neighbour]}, "
            f"output {output_name(w.output, len(w.queries))}: ln ratio = {nstr(w.log_ratio, 25)} (mpmath, 40 digits)"
        )
    evidence = dict(
        points=sw.points,
        grid=sw.description,
        digits=40,
        min_margin=fmt_margin(sw.min_margin),
        margin_unit="nats: ε - |ln ratio| (0 means the bound is attained to 30 digits)",
    )
    candidates = []
    if sw.violation is not None:
        v = sw.violation
        candidates.append((v.eps, v.queries, v.neighbour, v.output))
    for c in checkers:
        if c.status is CheckerFinding.VIOLATION and c.witness is not None:
            e, q, qn, out = c.witness
            if (out == "none") == (which == "none"):
                candidates.append((Fraction(e), tuple(q), tuple(qn), out))
    for e, q, qn, out in candidates:
        mech = mechanism(family, e)

        def evaluate(_: Any, mech=mech, q=q, qn=qn, out=out, e=e) -> tuple[mpmath.mpf, mpmath.mpf]:
            from verify.ratio import privacy_ratio

            r = privacy_ratio(mech, q, qn, outputs=[out], digits=mpmath.mp.dps - 5).outputs[0]
            return abs(r.log_ratio), eps_mp(e)

        cx = confirm(
            evaluate,
            None,
            (("eps", str(e)), ("queries", ",".join(map(str, q))), ("neighbour", ",".join(map(str, qn))), ("output", str(out))),
            "|ln ratio| <= ε",
            lambda a, b: a > b,
        )
        if cx.confirmed:
            return refuted_or_undecided("sweep of the exact ratio (float64), violation confirmed with mpmath", cx, {**evidence, "notes": tuple(notes)})
    if candidates:
        return Outcome(ClaimVerdict.UNDECIDED, "a sweep reported a violation that mpmath did not confirm", Evidence(**evidence, notes=tuple(notes)))
    if eng.refuted:
        return Outcome(ClaimVerdict.UNDECIDED, "certification refuted the conditional bound but no violation of the theorem was confirmed",
                       Evidence(**evidence, notes=tuple(notes)))
    if eng.certified:
        what = "conditional ratio" if which == "halt" else "survival of the threshold noise (Pr[⊤^k | x] = S_Z(M(D,x) - t))"
        return on_certificate(eng.by_hand, f"rigorous enclosures of the {what} (verify.certify) integrated over x; "
                              "the sweeps agree", {**evidence, "notes": tuple(notes)})
    return Outcome(ClaimVerdict.CONSISTENT,
        "sweep of the exact ratio over neighbouring query vectors (library fast path, float64; worst point by mpmath at 40 digits)"
        + ("; the checker's " + (" and ".join(("sweep", "worst-case search")[: len(checkers)])) + " agree" if all(c.status is CheckerFinding.NONE for c in checkers) else ""),
        Evidence(**evidence, notes=tuple(notes)),
    )


def _ratio_point(family: str, which: str, eps: Any = 1, delta: Any = 1, t: Any = 0, queries: Any = None, neighbour: Any = None) -> Outcome:
    from verify.exact import parse_vector, to_fraction
    from verify.ratio import privacy_ratio

    def vec(v: Any, name: str) -> tuple[Fraction, ...]:
        if isinstance(v, str):
            return parse_vector(v, name)
        return tuple(to_fraction(x, name) for x in v)

    if queries is None or neighbour is None:
        raise ValueError("give queries and neighbour (query values for D and D')")
    q, qn = vec(queries, "queries"), vec(neighbour, "neighbour")
    e = to_fraction(eps, "eps")
    mech = mechanism(family, e, to_fraction(delta, "delta"), to_fraction(t, "t"))
    k = len(q)
    outs = list(range(1, k + 1)) if which == "halt" else ["none"]
    rep = privacy_ratio(mech, q, qn, outputs=outs, digits=40)
    worst = max(rep.outputs, key=lambda o: abs(o.log_ratio))
    params = (("eps", fstr(e)), ("delta", fstr(to_fraction(delta, "delta"))), ("t", fstr(to_fraction(t, "t"))),
              ("queries", ",".join(map(fstr, q))), ("neighbour", ",".join(map(fstr, qn))))
    with mpmath.workdps(40):
        margin = eps_mp(e) - abs(worst.log_ratio)
    ev = dict(points=len(outs), grid="the point given", digits=40, min_margin=fmt_margin(margin), margin_unit="nats: ε - |ln ratio|")
    if margin < -mpmath.mpf(10) ** -30:

        def evaluate(_: Any) -> tuple[mpmath.mpf, mpmath.mpf]:
            r = privacy_ratio(mech, q, qn, outputs=[worst.output], digits=mpmath.mp.dps - 5).outputs[0]
            return abs(r.log_ratio), eps_mp(e)

        cx = confirm(evaluate, None, params, "|ln ratio| <= ε", lambda a, b: a > b, detail=f"output {output_name(worst.output, len(q))}")
        return refuted_or_undecided("exact ratio at the point (mpmath)", cx, ev)
    return Outcome(ClaimVerdict.CONSISTENT, "exact ratio at the point given (mpmath, 40 digits)", Evidence(**ev))
