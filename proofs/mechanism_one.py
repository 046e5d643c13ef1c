"""Seed, "Mechanism One" and its "Privacy Guarantee": M1.*.

* ``M1.theorem``: for every i, e^{-ε} <= Pr[A(D)=s_i]/Pr[A(D')=s_i] <= e^{ε}
  (Lap(3Δ/ε) on threshold and queries).
* ``M1.threshold_noise_needed``: "it is necessary to add noise to t": without
  it the mechanism is not ε-DP.
* ``M1.example.D`` / ``M1.example.Dprime``: the two displayed probabilities of
  ⊤^n⊥ when t̂ = t = 0, q_i(D) = Δ, q_i(D') = 0 (the seed's "Otherwise" case).
"""

from __future__ import annotations

from fractions import Fraction
from functools import cache
from typing import Any

import mpmath
import sympy as sp

from proofs import seed as S
from proofs import symbolic as Y
from proofs.build import claim, refuted_or_undecided
from proofs.claim import Evidence, Verdict
from proofs.engines import certification, checker_sweep, checker_worst_case
from proofs.numerics import confirm, nstr
from proofs.sweeps import eps_mp, fmt_margin, mechanism, theorem_sweep
from verify.mechanism import AboveThreshold
from verify.probabilities import DELTA, EPSILON, mp_distribution, symbolic_distribution

SECTION = "Mechanism One"
N = sp.Symbol("n", integer=True, nonnegative=True)

THEOREM_HYPOTHESES = (
    "D ∼ D' neighbouring: |q_j(D) - q_j(D')| <= Δ for every query j (each q_j has sensitivity at most Δ)",
    "Pr[A(D') = s_i] > 0 (true for both mechanisms: every s_i has positive probability)",
)
THEOREM_QUANTIFIERS = ("ε > 0, Δ > 0, t ∈ ℝ", "every query sequence q_1, q_2, ... and every i ∈ ℕ⁺")
THEOREM_PARAMS = (
    ("eps", "ε > 0"),
    ("delta", "Δ > 0"),
    ("t", "threshold t"),
    ("queries", "q_1(D), ..., q_k(D)"),
    ("neighbour", "q_1(D'), ..., q_k(D'), each within Δ"),
)


# --- shared by M1.theorem, M2.theorem and the X.* claims ---------------------------------------------------
def ratio_sweep_check(claim_id: str, family: str, which: str, bound_factor: Fraction = Fraction(1), **params: Any) -> Verdict:
    """|ln Pr[A(D)=s]/Pr[A(D')=s]| <= ε over the outputs s_i (``which="halt"``) or ⊤^k (``"none"``)."""
    if params:
        return _ratio_point(claim_id, family, which, **params)
    sw = theorem_sweep(family, which)
    eng = certification("theorem" if which == "halt" else "no_halt", family)
    checkers = [checker_sweep(family)] + ([checker_worst_case(family)] if which == "halt" else [])
    notes = [e.note for e in ([eng] if eng else []) + checkers]
    if sw.worst is not None:
        w = sw.worst
        notes.append(
            f"worst point: ε = {w.eps}, D = {[str(v) for v in w.queries]}, D' = {[str(v) for v in w.neighbour]}, "
            f"output {w.output}: ln ratio = {nstr(w.log_ratio, 25)} (mpmath, 40 digits)"
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
        if c.status == "violation" and c.witness is not None:
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
            return refuted_or_undecided(claim_id, "sweep of the exact ratio (float64), violation confirmed with mpmath", cx, {**evidence, "notes": tuple(notes)})
    if candidates:
        return Verdict(claim_id, "undecided", "a sweep reported a violation that mpmath did not confirm", Evidence(**evidence, notes=tuple(notes)))
    if eng is not None and eng.status == "refuted":
        return Verdict(claim_id, "undecided", "certification refuted the conditional bound but no violation of the theorem was confirmed",
                       Evidence(**evidence, notes=tuple(notes)))
    if eng is not None and eng.certified:
        what = "conditional ratio" if which == "halt" else "survival of the threshold noise (Pr[⊤^k | x] = S_Z(M(D,x) - t))"
        return Verdict(claim_id, "certified", f"rigorous enclosures of the {what} (verify.certify) integrated over x; "
                       "the sweeps agree", Evidence(**evidence, notes=tuple(notes)))
    return Verdict(
        claim_id,
        "consistent",
        "sweep of the exact ratio over neighbouring query vectors (library fast path, float64; worst point by mpmath at 40 digits)"
        + ("; the checker's " + (" and ".join(("sweep", "worst-case search")[: len(checkers)])) + " agree" if all(c.status == "none" for c in checkers) else ""),
        Evidence(**evidence, notes=tuple(notes)),
    )


def _ratio_point(claim_id: str, family: str, which: str, eps: Any = 1, delta: Any = 1, t: Any = 0, queries: Any = None, neighbour: Any = None) -> Verdict:
    from verify.exact import parse_vector, to_fraction
    from verify.ratio import privacy_ratio

    def vec(v: Any, name: str) -> tuple[Fraction, ...]:
        if isinstance(v, str):
            return parse_vector(v, name)
        return tuple(to_fraction(x, name) for x in v)

    if queries is None or neighbour is None:
        raise ValueError(f"{claim_id}: give queries and neighbour (query values for D and D')")
    q, qn = vec(queries, "queries"), vec(neighbour, "neighbour")
    e = to_fraction(eps, "eps")
    mech = mechanism(family, e, to_fraction(delta, "delta"), to_fraction(t, "t"))
    k = len(q)
    outs = list(range(1, k + 1)) if which == "halt" else ["none"]
    rep = privacy_ratio(mech, q, qn, outputs=outs, digits=40)
    worst = max(rep.outputs, key=lambda o: abs(o.log_ratio))
    params = (("eps", str(e)), ("delta", str(delta)), ("t", str(t)), ("queries", ",".join(map(str, q))), ("neighbour", ",".join(map(str, qn))))
    with mpmath.workdps(40):
        margin = eps_mp(e) - abs(worst.log_ratio)
    ev = dict(points=len(outs), grid="the point given", digits=40, min_margin=fmt_margin(margin), margin_unit="nats: ε - |ln ratio|")
    if margin < -mpmath.mpf(10) ** -30:

        def evaluate(_: Any) -> tuple[mpmath.mpf, mpmath.mpf]:
            r = privacy_ratio(mech, q, qn, outputs=[worst.output], digits=mpmath.mp.dps - 5).outputs[0]
            return abs(r.log_ratio), eps_mp(e)

        cx = confirm(evaluate, None, (*params, ("output", str(worst.output))), "|ln ratio| <= ε", lambda a, b: a > b)
        return refuted_or_undecided(claim_id, "exact ratio at the point (mpmath)", cx, ev)
    return Verdict(claim_id, "consistent", "exact ratio at the point given (mpmath, 40 digits)", Evidence(**ev))


# --- M1.theorem -------------------------------------------------------------------------------------------------
def check_theorem(**params: Any) -> Verdict:
    return ratio_sweep_check("M1.theorem", "laplace", "halt", **params)


claim(
    "M1.theorem",
    "privacy of Mechanism One for every s_i",
    "Mechanism One, Privacy Guarantee",
    S.THEOREM,
    (S.S_I, S.THEOREM, S.M1_Z, S.M1_X),
    "Proof 1 and Proof 2",
    check_theorem,
    hypotheses=THEOREM_HYPOTHESES,
    quantifiers=THEOREM_QUANTIFIERS,
    relation="in [e^-ε, e^ε]",
    mechanism="M1",
    parameters=THEOREM_PARAMS,
)


# --- M1.threshold_noise_needed ---------------------------------------------------------------------------------
def no_threshold_noise(eps: Any = 1, delta: Any = 1) -> AboveThreshold:
    """Mechanism One with t̂ = t (the seed's "Otherwise" case): queries Lap(3Δ/ε), threshold exact."""
    return AboveThreshold.with_noise("laplace", eps, delta, 0, threshold_multiplier=0, query_multiplier=3)


@cache
def example_probabilities(n: int) -> tuple[sp.Expr, sp.Expr]:
    """Exact Pr[A(D)=⊤^n⊥], Pr[A(D')=⊤^n⊥] without threshold noise, ε and Δ symbolic
    (library path 1; queries q_i(D) = Δ, q_i(D') = 0, t = 0)."""
    mech = no_threshold_noise()
    pd = symbolic_distribution(mech, [1] * (n + 1), symbolic_parameters=True)[n]
    pdp = symbolic_distribution(mech, [0] * (n + 1), symbolic_parameters=True)[n]
    return sp.simplify(pd), sp.simplify(pdp)


WITNESS_N = 4


def check_noise_needed(eps: Any = None, n: Any = None) -> Verdict:
    cid = "M1.threshold_noise_needed"
    if eps is not None or n is not None:
        e = Fraction(str(eps if eps is not None else 1))
        nn = int(n if n is not None else WITNESS_N)
        mech = no_threshold_noise(e)
        with mpmath.workdps(40):
            a = mp_distribution(mech, [1] * (nn + 1), 40)[nn]
            b = mp_distribution(mech, [0] * (nn + 1), 40)[nn]
            lr = mpmath.log(a) - mpmath.log(b)
            viol = abs(lr) > eps_mp(e)
        ev = Evidence(points=1, grid=f"ε = {e}, n = {nn}, Δ = 1, t = 0", digits=40, notes=(f"ln ratio = {nstr(lr, 25)}, ε = {e}",))
        if viol:
            return Verdict(cid, "consistent", "witness at the point: |ln ratio| > ε (mpmath, 40 digits)", ev)
        return Verdict(cid, "undecided", "no violation at this point (an existence claim is not refuted by one point)", ev)
    pd, pdp = example_probabilities(WITNESS_N)
    diff = sp.exp(-EPSILON) - pd / pdp
    ok, form = Y.positive_for_all_epsilon(diff)
    notes = [
        f"witness: t = 0, q_i(D) = Δ, q_i(D') = 0 (the seed's example), output ⊤^{WITNESS_N}⊥ = s_{WITNESS_N + 1}",
        f"Pr[D] = {pd}, Pr[D'] = {pdp} (library symbolic path, ε and Δ symbolic)",
        f"e^-ε - Pr[D]/Pr[D'] with u = e^(-ε/3): {form}, no root in (0, 1) and positive at u = 1/2",
    ]
    # numerical confirmation at ε = 1
    mech = no_threshold_noise(1)
    with mpmath.workdps(45):
        a = mp_distribution(mech, [1] * (WITNESS_N + 1), 40)[WITNESS_N]
        b = mp_distribution(mech, [0] * (WITNESS_N + 1), 40)[WITNESS_N]
        lr = mpmath.log(a / b)
    notes.append(f"ε = 1: ln ratio = {nstr(lr, 30)} < -1 (mpmath, 40 digits)")
    if ok and lr < -1:
        return Verdict(
            cid,
            "proved",
            "sympy: exact ratio of the witness < e^-ε for every ε > 0 (rational function of e^(-ε/3), real-root isolation)",
            Evidence(points=1, grid="every ε > 0 (symbolic), ε = 1 (mpmath)", digits=40, notes=tuple(notes)),
        )
    return Verdict(cid, "undecided", "the witness could not be established symbolically", Evidence(points=1, notes=tuple(notes)))


claim(
    "M1.threshold_noise_needed",
    "without noise on t the mechanism is not ε-DP",
    SECTION,
    r"\hat t = t \implies \exists\, D \sim D',\ n:\ \frac{\Pr[\mathcal{A}(D) = \top^n \bot]}{\Pr[\mathcal{A}(D') = \top^n \bot]} \notin [e^{-\epsilon}, e^{\epsilon}]",
    (S.NOISE_NEEDED, S.EXAMPLE_ASSUME, S.EXAMPLE_QUERIES),
    "the seed's example: t = 0, q_i(D) = Δ, q_i(D') = 0",
    check_noise_needed,
    explicit=False,
    hypotheses=("no threshold noise: t̂ = t", "queries with Lap(3Δ/ε) noise as in Mechanism One"),
    quantifiers=("every ε > 0, Δ > 0",),
    mechanism="M1",
    parameters=(("eps", "ε > 0"), ("n", "number of ⊤ before ⊥")),
)


# --- the example's two probabilities --------------------------------------------------------------------------------
def seed_example_D(n: Any) -> sp.Expr:
    """The seed's (1/2)^{n+1} exp(-εn/3)(1 - exp(-ε/3))."""
    return sp.Rational(1, 2) ** (n + 1) * sp.exp(-EPSILON * n / 3) * (1 - sp.exp(-EPSILON / 3))


def corrected_example_D(n: Any) -> sp.Expr:
    """(1/2)^n exp(-εn/3)(1 - exp(-ε/3)/2): F(-Δ)^n (1 - F(-Δ)) with F(-Δ) = e^{-ε/3}/2."""
    return sp.Rational(1, 2) ** n * sp.exp(-EPSILON * n / 3) * (1 - sp.exp(-EPSILON / 3) / 2)


def seed_example_Dprime(n: Any) -> sp.Expr:
    return sp.Rational(1, 2) ** (n + 1)


def product_formula(q_over_delta: int, n: Any) -> sp.Expr:
    """Pr[X_j < -q (j <= n), X_{n+1} >= -q] = F(-q)^n (1 - F(-q)) with t̂ = t = 0 (independent X_j)."""
    f = Y.cdf("laplace", -q_over_delta * DELTA)
    return f**n * (1 - f)


N_RANGE = range(0, 6)


def _example_check(cid: str, which: str, formula: Any, n: Any = None, eps: Any = None) -> Verdict:
    """Compare a displayed formula with the exact probability (symbolic for n = 0..5 and for
    symbolic n via the product formula; mpmath at 40 digits)."""
    qd = 1 if which == "D" else 0
    idx = 0 if which == "D" else 1
    if n is not None or eps is not None:
        ns = [int(n if n is not None else 0)]
        epss = [Fraction(str(eps if eps is not None else 1))]
    else:
        ns = list(N_RANGE)
        epss = [Fraction(1), Fraction(1, 2), Fraction(3)]
    # symbolic, for every n at once: the product formula against the displayed formula
    general = Y.is_zero(product_formula(qd, N) - formula(N))
    per_n = {nn: Y.is_zero(example_probabilities(nn)[idx] - formula(nn)) for nn in ns}
    # numerical: library mpmath path against the formula
    worst = mpmath.mpf(0)
    bad = None
    with mpmath.workdps(40):
        for e in epss:
            mech = no_threshold_noise(e)
            for nn in ns:
                lib = mp_distribution(mech, [qd] * (nn + 1), 40)[nn]
                f = formula(nn).subs(EPSILON, sp.Rational(e.numerator, e.denominator))
                val = mpmath.mpf(sp.N(f, 50))
                disc = abs(lib - val) / abs(lib)
                if disc > worst:
                    worst = disc
                if disc > mpmath.mpf(10) ** -30 and bad is None:
                    bad = (e, nn)
    grid = f"n ∈ {ns}, ε ∈ {{{', '.join(map(str, epss))}}} (mpmath, 40 digits); n symbolic via the product formula; ε, Δ symbolic for each n"
    ev = dict(points=len(ns) * len(epss), grid=grid, digits=40, max_discrepancy=nstr(worst, 5))
    if bad is not None:
        e, nn = bad
        mech = no_threshold_noise(e)

        def evaluate(_: Any) -> tuple[mpmath.mpf, mpmath.mpf]:
            lib = mp_distribution(mech, [qd] * (nn + 1), mpmath.mp.dps - 5)[nn]
            f = formula(nn).subs(EPSILON, sp.Rational(e.numerator, e.denominator))
            return lib, mpmath.mpf(sp.N(f, mpmath.mp.dps + 5))

        cx = confirm(
            evaluate,
            None,
            (("n", str(nn)), ("eps", str(e)), ("delta", "1"), ("t", "0")),
            "=",
            lambda a, b: abs(a - b) > abs(a) * mpmath.mpf(10) ** -30,
            detail="lhs: the exact probability (library mpmath path); rhs: the displayed formula",
        )
        notes = (
            f"symbolic: displayed formula {'equals' if general else 'differs from'} the product formula F(-q)^n(1-F(-q)) for symbolic n",
            *(f"n = {k}: exact probability {'equals' if v else 'differs from'} the formula (sympy)" for k, v in per_n.items()),
        )
        return refuted_or_undecided(cid, "exact probability (sympy and mpmath) against the displayed formula", cx, {**ev, "notes": notes})
    if general and all(per_n.values()):
        return Verdict(
            cid,
            "proved",
            "sympy: the product formula F(-q)^n (1 - F(-q)) (independent X_j, t̂ = t) equals the formula for symbolic n, ε, Δ; "
            "the library's exact probability equals it for each n checked; mpmath agrees at 40 digits",
            Evidence(**ev),
        )
    return Verdict(cid, "consistent", "mpmath at 40 digits agrees; sympy could not show the identity", Evidence(**ev))


EXAMPLE_HYPOTHESES = (
    "no threshold noise: t̂ = t (the seed's 'Otherwise' case)",
    "t = 0, q_i(D) = Δ and q_i(D') = 0 for every i",
    "X_i ~ Lap(3Δ/ε) independent",
)
EXAMPLE_PARAMS = (("n", "number of ⊤ before ⊥ (>= 0)"), ("eps", "ε > 0"))

claim(
    "M1.example.D",
    "the displayed Pr[A(D) = ⊤^n⊥] of the example",
    SECTION,
    f"{S.EXAMPLE_D_LHS} = {S.EXAMPLE_D_RHS.rstrip('.')}",
    (S.EXAMPLE_D_LHS, S.EXAMPLE_D_RHS, S.EXAMPLE_QUERIES),
    "independence of the X_i; Pr[Δ + X < 0] = F(-Δ)",
    lambda **p: _example_check("M1.example.D", "D", seed_example_D, **p),
    hypotheses=EXAMPLE_HYPOTHESES,
    quantifiers=("n ∈ ℕ", "ε > 0, Δ > 0"),
    lhs=product_formula(1, N),
    rhs=seed_example_D(N),
    relation="=",
    mechanism="M1",
    parameters=EXAMPLE_PARAMS,
)

claim(
    "M1.example.D.corrected",
    "corrected Pr[A(D) = ⊤^n⊥] of the example",
    SECTION,
    r"\Pr[ \mathcal{A} (D) = \underbrace{\top \ldots \top}_{ n \text{ occurrences} } \bot ] = \left( \frac{1}{2} \right)^{n} \exp \left( - \frac{\epsilon \cdot n }{3} \right) \left( 1 - \frac{1}{2}\exp \left( - \frac{\epsilon}{3} \right)\right)",
    (S.EXAMPLE_D_LHS,),
    "independence of the X_i: F(-Δ)^n (1 - F(-Δ)) with F(-Δ) = e^{-ε/3}/2 (the Laplace CDF)",
    lambda **p: _example_check("M1.example.D.corrected", "D", corrected_example_D, **p),
    explicit=False,
    hypotheses=EXAMPLE_HYPOTHESES,
    quantifiers=("n ∈ ℕ", "ε > 0, Δ > 0"),
    lhs=product_formula(1, N),
    rhs=corrected_example_D(N),
    relation="=",
    mechanism="M1",
    parameters=EXAMPLE_PARAMS,
    corrects="M1.example.D",
)

claim(
    "M1.example.Dprime",
    "the displayed Pr[A(D') = ⊤^n⊥] of the example",
    SECTION,
    f"{S.EXAMPLE_DP_LHS} = " + r"\left( \frac{1}{2} \right)^{n + 1}",
    (S.EXAMPLE_DP_LHS, S.EXAMPLE_DP_RHS),
    "independence of the X_i; Pr[X < 0] = F(0) = 1/2",
    lambda **p: _example_check("M1.example.Dprime", "Dprime", seed_example_Dprime, **p),
    hypotheses=EXAMPLE_HYPOTHESES,
    quantifiers=("n ∈ ℕ", "ε > 0, Δ > 0"),
    lhs=product_formula(0, N),
    rhs=seed_example_Dprime(N),
    relation="=",
    mechanism="M1",
    parameters=EXAMPLE_PARAMS,
)
