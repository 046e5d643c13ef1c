"""The checks behind the utility claims (`proofs.utility`): tails, union bound, error bound, theorem.

With b = 3Δ/ε and L = ln((k+1)/β) (seed, "Utility Guarantee"): Pr[|Z| >= c] = exp(-c/b) for Lap(b) and
Exp(b) (over the tail grid by the engine's closed form sf(c) + cdf(-c); the seed's integral, by quadrature of
the density, at `TAIL_QUAD_POINTS` and at a counterexample); the union bound Pr[|Z| + max_i |X_i| >= 6Δ/ε·L]
<= β; the maximum empirical error is at most |Z| + max_i |X_i| (`proofs.case_analysis.error_bound`).
Probabilities of the theorem are exact sums of output probabilities (the empirical error of a run is a
function of its output).  Every Monte Carlo test has false-alarm rate `FALSE_ALARM`.  Every check returns a
`proofs.claim.Outcome`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any

import mpmath
import numpy as np
import sympy as sp
from scipy import stats

from proofs import case_analysis as CA
from proofs import symbolic as Y
from proofs.build import case_outcome, refuted_or_undecided
from proofs.claim import ClaimVerdict, Evidence, Outcome
from proofs.conditional import at_precision
from proofs.numerics import confirm, fstr, nstr, pdf, quad, scale
from proofs.sweeps import mechanism
from proofs.symbolic import sympy_engine
from verify.noise import family_type

K, BETA = sp.Symbol("k", positive=True, integer=True), sp.Symbol("beta", positive=True)
L_SYM = sp.log((K + 1) / BETA)
#: Grid of (k, β) of the utility checks.
KS = (1, 2, 3, 5, 10)
BETAS = (Fraction(99, 100), Fraction(1, 2), Fraction(1, 10), Fraction(1, 100), Fraction(1, 10000))
#: False-alarm rate of every Monte Carlo test.
FALSE_ALARM = 1e-6
MC_RUNS = 20000
MC_SEED = 314159

def alpha(eps: Fraction, delta: Fraction, k: int, beta: Fraction, multiple: int = 6) -> mpmath.mpf:
    """(multiple·Δ/ε) ln((k+1)/β) at the current precision."""
    return multiple * mpmath.mpf(delta.numerator) / delta.denominator / (mpmath.mpf(eps.numerator) / eps.denominator) * mpmath.log(
        mpmath.mpf(k + 1) / (mpmath.mpf(beta.numerator) / beta.denominator)
    )


def output_errors(queries: np.ndarray, t: float) -> np.ndarray:
    """Empirical error of each output (columns s_1..s_k, ⊤^k) for query rows (n, k) (seed, Utility Guarantee)."""
    q = np.atleast_2d(queries) - t
    above = np.maximum(0, q)  # ⊤ at j: max{0, q_j - t}
    below = np.maximum(0, -q)  # ⊥ at i: max{0, t - q_i}
    prefix = np.maximum.accumulate(above, axis=1)
    prev = np.concatenate([np.zeros((q.shape[0], 1)), prefix[:, :-1]], axis=1)
    halt = np.maximum(prev, below)
    return np.concatenate([halt, prefix[:, -1:]], axis=1)


# --- the tails ---------------------------------------------------------------------------------------------
@at_precision
def tail_value(family: str, multiple: int, k: int, beta: Fraction, eps: Fraction = Fraction(1), delta: Fraction = Fraction(1)) -> mpmath.mpf:
    """Pr[|Z| >= (multiple·Δ/ε) ln((k+1)/β)] by quadrature of the density (the seed's integral; independent of the closed form)."""
    c = alpha(eps, delta, k, beta, multiple)
    b = scale(eps, delta)
    upper = quad(lambda x: pdf(family, x, b), c, None)
    lower = quad(lambda x: pdf(family, x, b), None, -c) if family_type(family).two_sided else mpmath.mpf(0)
    return upper + lower


@at_precision
def tail_closed(family: str, multiple: int, k: int, beta: Fraction, eps: Fraction = Fraction(1), delta: Fraction = Fraction(1)) -> mpmath.mpf:
    """Pr[|Z| >= c], c = (multiple·Δ/ε) ln((k+1)/β), by the engine's closed form (`verify.noise`):
    Pr[Z >= c] + Pr[Z <= -c] = sf(c) + cdf(-c), i.e. exp(-c/b)/2 + exp(-c/b)/2 for Lap(b) and exp(-c/b) + 0 for Exp(b)."""
    law = family_type(family)
    c = alpha(eps, delta, k, beta, multiple)
    b = scale(eps, delta)
    return law.mp_sf(c, b) + law.mp_cdf(-c, b)


@sympy_engine
def tail_abs(family: str) -> sp.Expr:
    """Pr[|X| >= c] for c > 0, exact (sympy): ∫_{-∞}^{-c} p + ∫_c^∞ p of the seed's density (`proofs.symbolic.density`),
    each piece on the branch that holds inside it, integrated term by term by
    `verify.certify.closed_forms.integrate_exponentials` (∫ C e^{av+b} dv = C (e^{a·hi+b} - e^{a·lo+b})/a, a term of
    another form by sympy.integrate): the value of `proofs.symbolic.tail_abs` without sympy's Meijer G path
    (tests/test_utility_closed_forms.py)."""
    from verify.certify.closed_forms import integrate_exponentials  # lazy: start-up (verify.certify loads its package)

    c, x = Y.TAIL_C, Y.x
    p = Y.density(family, x)
    below = integrate_exponentials(Y.select_branches(p, x, -c - 1), x, -sp.oo, -c)
    above = integrate_exponentials(Y.select_branches(p, x, c + 1), x, c, sp.oo)
    return sp.simplify(below + above)


@sympy_engine
def symbolic_tail(family: str, multiple: int) -> sp.Expr:
    """Pr[|Z| >= (multiple·Δ/ε) L] in closed form with k, β symbolic (sympy)."""
    from verify.probabilities import DELTA, EPSILON

    c = multiple * DELTA / EPSILON * L_SYM
    return sp.simplify(tail_abs(family).subs(Y.TAIL_C, c))


#: Relative agreement asked of the quadrature and the closed form at 40 digits (`proofs.numerics`: digits - 8 and more).
AGREE_DIGITS = 30
AGREE = mpmath.mpf(10) ** -AGREE_DIGITS
TAIL_EPS = (Fraction(1, 2), Fraction(3))
TAIL_KS = (1, 3, 10)
TAIL_BETAS = (Fraction(99, 100), Fraction(1, 2), Fraction(1, 100), Fraction(1, 10000))
#: (ε, k, β) of the tail grid where the seed's integral is also evaluated by quadrature: the smallest and the
#: largest threshold c/b = (multiple/3)·ln((k+1)/β) of the grid (c/b does not depend on ε), one at each ε.
TAIL_QUAD_POINTS = ((Fraction(3), 1, Fraction(99, 100)), (Fraction(1, 2), 10, Fraction(1, 10000)))
TAIL_GRID = ("ε ∈ {1/2, 3}, Δ = 1, k ∈ {1, 3, 10}, β ∈ {0.99, 1/2, 1/100, 1/10000}; tail by the closed form sf(c) + cdf(-c) "
             "(verify.noise) at every point, and by quadrature of the density (the seed's integral) at (ε, k, β) = (3, 1, 99/100) "
             "and (1/2, 10, 1/10000), the smallest and the largest threshold of the grid")


@dataclass(frozen=True)
class TailGrid:
    """The tail over the grid: `points` evaluated by the closed form, `worst` = smallest rhs - Pr (at
    `worst_point` (ε, k, β, Pr)), `gap` = largest |rhs - Pr|; and the quadrature of the density at
    `TAIL_QUAD_POINTS`: its values and their largest relative `discrepancy` from the closed form."""

    points: int
    worst: mpmath.mpf
    worst_point: tuple
    gap: mpmath.mpf
    discrepancy: mpmath.mpf
    quadrature: tuple[mpmath.mpf, ...]


def _grid_tails(family: str, multiple: int, rhs) -> TailGrid:
    """The tail over the (ε, k, β) grid at 40 digits: closed form everywhere, quadrature at `TAIL_QUAD_POINTS`."""
    worst, wpt, n, gap = mpmath.inf, None, 0, mpmath.mpf(0)
    with mpmath.workdps(40):
        for eps in TAIL_EPS:
            for k in TAIL_KS:
                for beta in TAIL_BETAS:
                    v = tail_closed(family, multiple, k, beta, eps)
                    m = rhs(k, beta) - v
                    n += 1
                    gap = max(gap, abs(m))
                    if m < worst:
                        worst, wpt = m, (eps, k, beta, v)
        quadrature = tuple(tail_value(family, multiple, k, beta, eps) for eps, k, beta in TAIL_QUAD_POINTS)
        closed = (tail_closed(family, multiple, k, beta, eps) for eps, k, beta in TAIL_QUAD_POINTS)
        discrepancy = max(abs(q - c) / c for q, c in zip(quadrature, closed))
    return TailGrid(n, worst, wpt, gap, discrepancy, quadrature)


def _quadrature_note(g: TailGrid) -> str:
    return (f"quadrature of the density at {len(TAIL_QUAD_POINTS)} of the {g.points} points agrees with the closed form "
            f"to a relative {nstr(g.discrepancy, 3)} (asked: <= 1e-{AGREE_DIGITS})")


def check_tail_1(family: str, variable: str = "|Z|", **params: Any) -> Outcome:
    """Pr[|Z| >= 2Δ/ε·L] <= exp(2L)."""
    exact = symbolic_tail(family, 2)
    closed = sp.simplify(exact - (BETA / (K + 1)) ** sp.Rational(2, 3)) == 0
    # Pr = (β/(k+1))^(2/3) = exp(-2L/3) and exp(2L) >= exp(-2L/3) iff 2L + 2L/3 >= 0, true as L = ln((k+1)/β) > 0 (β <= 1 < k + 1)
    Lp = sp.Symbol("L", positive=True)
    exponent_ok = bool((2 * Lp - (-2 * Lp / 3)).is_nonnegative)
    g = _grid_tails(family, 2, lambda k, beta: mpmath.exp(2 * mpmath.log(mpmath.mpf(k + 1) / (mpmath.mpf(beta.numerator) / beta.denominator))))
    ev = Evidence(points=g.points, grid=TAIL_GRID,
                  digits=40, min_margin=nstr(g.worst, 10), margin_unit="exp(2L) - Pr (probability)",
                  notes=(f"exact tail (sympy): {exact} = (β/(k+1))^(2/3): {closed}", _quadrature_note(g),
                         "the bound holds only because exp(2L) >= 1 > any probability: it is vacuous"))
    if g.worst < 0:
        return Outcome(ClaimVerdict.UNDECIDED, "the closed form found the bound violated", ev)
    if g.discrepancy > AGREE:
        return Outcome(ClaimVerdict.UNDECIDED, "the quadrature of the density disagrees with the closed form", ev)
    if closed and exponent_ok:
        return Outcome(ClaimVerdict.PROVED, f"sympy: Pr[{variable} >= 2Δ/ε·L] = exp(-2L/3) <= exp(2L) since L = ln((k+1)/β) > 0; quadrature agrees", ev)
    return Outcome(ClaimVerdict.CONSISTENT, "closed form at 40 digits over the grid, quadrature of the density at two points", ev)


@sympy_engine
def _exp_2l() -> tuple[sp.Expr, bool]:
    """sympy: exp(2 ln((k+1)/β)) simplified, and whether it differs from β/(k+1) (the same for the four claims that ask)."""
    lhs = sp.exp(2 * L_SYM)
    return sp.simplify(lhs), not Y.is_zero(lhs - BETA / (K + 1))


def check_tail_2(**params: Any) -> Outcome:
    """exp(2 ln((k+1)/β)) = β/(k+1)."""
    simplified, differs = _exp_2l()
    k, beta = int(params.get("k", 1)), Fraction(str(params.get("beta", "1/2")))

    def evaluate(_: Any) -> tuple[mpmath.mpf, mpmath.mpf]:
        b = mpmath.mpf(beta.numerator) / beta.denominator
        return mpmath.exp(2 * mpmath.log((k + 1) / b)), b / (k + 1)

    cx = confirm(evaluate, None, (("k", str(k)), ("beta", str(beta))), "=", lambda a, b: abs(a - b) > abs(b) * mpmath.mpf(10) ** -30,
                 detail="lhs: exp(2 ln((k+1)/β)); rhs: β/(k+1)")
    ev = dict(points=1, grid="symbolic; the point", digits=30, notes=(f"sympy: exp(2 ln((k+1)/β)) = {simplified}, not β/(k+1)",))
    if cx.confirmed and differs:
        return refuted_or_undecided("sympy simplification and mpmath at two precisions", cx, ev)
    return Outcome(ClaimVerdict.CONSISTENT, "the equality holds at the point given", Evidence(**ev))


def check_tail(family: str, variable: str, **params: Any) -> Outcome:
    """Pr[|Z| >= 2Δ/ε·L] <= β/(k+1): exact tail, confirmed counterexample, Monte Carlo with the seeded sampler."""
    k = int(params.get("k", 1))
    beta = Fraction(str(params.get("beta", "1/2")))
    eps = Fraction(str(params.get("eps", 1)))
    exact = symbolic_tail(family, 2)

    def evaluate(_: Any) -> tuple[mpmath.mpf, mpmath.mpf]:
        return tail_value(family, 2, k, beta, eps), mpmath.mpf(beta.numerator) / beta.denominator / (k + 1)

    with mpmath.workdps(40):
        lhs, rhs = evaluate(None)
    # Monte Carlo with the mechanism's own noise sampler
    mech = mechanism(family, eps)
    noise = mech.threshold_noise if variable == "Z" else mech.query_noise
    draws = noise.sample(np.random.default_rng(MC_SEED), MC_RUNS)
    with mpmath.workdps(20):
        c = float(alpha(eps, Fraction(1), k, beta, 2))
    count = int((np.abs(draws) >= c).sum())
    limit = int(stats.binom.isf(FALSE_ALARM, MC_RUNS, float(rhs)))
    notes = (
        f"exact (sympy): Pr[|{variable if variable == 'Z' else 'X_i'}| >= 2Δ/ε·L] = {exact}",
        f"Monte Carlo ({MC_RUNS} draws of the mechanism's {'threshold' if variable == 'Z' else 'query'} noise, seed {MC_SEED}): "
        f"{count} exceed the threshold; under Pr <= β/(k+1) at most {limit} would (false-alarm rate {FALSE_ALARM})",
    )
    ev = dict(points=1, grid=f"k = {k}, β = {beta}, ε = {eps}, Δ = 1", digits=30, notes=notes)
    if lhs > rhs:
        cx = confirm(evaluate, None, (("k", str(k)), ("beta", fstr(beta)), ("eps", fstr(eps))), "<=", lambda a, b: a > b,
                     detail=f"Δ = 1; lhs: Pr[|{variable if variable == 'Z' else 'X_i'}| >= (2Δ/ε) ln((k+1)/β)] by quadrature of the density; rhs: β/(k+1)")
        return refuted_or_undecided("exact tail (quadrature at two precisions, sympy closed form); Monte Carlo agrees" if count > limit
                                    else "exact tail (quadrature at two precisions, sympy closed form)", cx, ev)
    return Outcome(ClaimVerdict.CONSISTENT, "exact tail at the point", Evidence(**ev))


def check_tail_corrected(family: str, **params: Any) -> Outcome:
    """Pr[|Z| >= 3Δ/ε·L] = β/(k+1)."""
    exact = symbolic_tail(family, 3)
    ok = Y.is_zero(exact - BETA / (K + 1))
    g = _grid_tails(family, 3, lambda k, beta: mpmath.mpf(beta.numerator) / beta.denominator / (k + 1))
    with mpmath.workdps(40):  # |Pr - β/(k+1)|: the closed form at every point, the quadrature at TAIL_QUAD_POINTS
        off = max(g.gap, *(abs(q - mpmath.mpf(beta.numerator) / beta.denominator / (k + 1))
                           for q, (_, k, beta) in zip(g.quadrature, TAIL_QUAD_POINTS)))
    ev = Evidence(points=g.points, grid=TAIL_GRID, digits=40, max_discrepancy=nstr(off, 5),
                  notes=(f"exact tail (sympy): {exact}", _quadrature_note(g),
                         "max_discrepancy: largest |Pr - β/(k+1)|, Pr by the closed form at every point and by quadrature at two"))
    if ok and off < mpmath.mpf(10) ** -30 and g.discrepancy <= AGREE:
        return Outcome(ClaimVerdict.PROVED, "sympy: ∫ of the density beyond (3Δ/ε)L is exp(-L) = β/(k+1) (k, β, ε, Δ symbolic); quadrature agrees", ev)
    return Outcome(ClaimVerdict.UNDECIDED, "the corrected tail could not be confirmed", ev)



# --- the union bound ---------------------------------------------------------------------------------------------
@at_precision  # the same for both mechanisms and asked by both union claims of each: summed once per precision
def union_probability(k: int, beta: Fraction, multiple: int = 6) -> mpmath.mpf:
    """Pr[|Z| + max_{i<=k} |X_i| >= (multiple·Δ/ε) L] for |Z|, |X_i| iid Exp(b) (both mechanisms), by quadrature.

    Depends only on k, β (c/b = multiple·L/3): Pr[Y >= c] + ∫_0^c (1/b) e^{-y/b} (1 - (1 - e^{-(c-y)/b})^k) dy, b = 1."""
    c = alpha(Fraction(3), Fraction(1), k, beta, multiple)  # b = 3Δ/ε = 1
    tail = mpmath.exp(-c)
    body = mpmath.quad(lambda y: mpmath.exp(-y) * (1 - (-mpmath.expm1(-(c - y))) ** k), [0, c])
    return tail + body


def check_union(family: str, **params: Any) -> Outcome:
    worst, wpt, n = mpmath.inf, None, 0
    with mpmath.workdps(40):
        grid_k = [int(params["k"])] if "k" in params else KS
        grid_b = [Fraction(str(params["beta"]))] if "beta" in params else BETAS
        for k in grid_k:
            for beta in grid_b:
                v = union_probability(k, beta)
                m = mpmath.mpf(beta.numerator) / beta.denominator - v
                n += 1
                if m < worst:
                    worst, wpt = m, (k, beta, v)
    k, beta, v = wpt
    # Monte Carlo with the mechanism's noise sampler at the worst grid point
    mech = mechanism(family, Fraction(1))
    rng = np.random.default_rng(MC_SEED + 1)
    z = np.abs(mech.threshold_noise.sample(rng, MC_RUNS))
    x = np.abs(mech.query_noise.sample(rng, (MC_RUNS, k))).max(axis=1)
    with mpmath.workdps(20):
        c = float(alpha(Fraction(1), Fraction(1), k, beta))
    count = int((z + x >= c).sum())
    lo = int(stats.binom.ppf(FALSE_ALARM / 2, MC_RUNS, float(v)))
    hi = int(stats.binom.isf(FALSE_ALARM / 2, MC_RUNS, float(v)))
    mc_ok = lo <= count <= hi
    notes = (
        f"worst grid point k = {k}, β = {beta}: Pr = {nstr(v, 12)} (|Z|, |X_i| ~ Exp(3Δ/ε) for both mechanisms; depends only on k, β)",
        f"Monte Carlo ({MC_RUNS} runs of the mechanism's noise sampler, seed {MC_SEED + 1}): {count} events; "
        f"two-sided acceptance region [{lo}, {hi}] around the exact value at false-alarm rate {FALSE_ALARM}: {'inside' if mc_ok else 'OUTSIDE'}",
        "the seed's justification does not give this bound: its tail bounds (U.tail_Z, U.tail_X) are refuted and their thresholds "
        "(2Δ/ε·L each) add up to 4Δ/ε·L, not 6Δ/ε·L; the bound follows from the corrected tails (threshold 3Δ/ε·L each), "
        "see the .split claim",
    )
    ev = dict(points=n, grid="k ∈ {1, 2, 3, 5, 10}, β ∈ {0.99, 1/2, 1/10, 1/100, 1/10000} (scale invariant in ε, Δ)", digits=40,
              min_margin=nstr(worst, 10), margin_unit="β - Pr (probability)", notes=notes)
    if worst < 0:
        cx = confirm(lambda _: (union_probability(k, beta), mpmath.mpf(beta.numerator) / beta.denominator), None,
                     (("k", str(k)), ("beta", str(beta))), "<=", lambda a, b: a > b)
        return refuted_or_undecided("exact probability by quadrature", cx, ev)
    if not mc_ok:
        return Outcome(ClaimVerdict.UNDECIDED, "Monte Carlo disagrees with the exact value", Evidence(**ev))
    return Outcome(ClaimVerdict.CONSISTENT, "exact probability (quadrature of the law of |Z| + max|X_i|, 40 digits) over the grid; Monte Carlo agrees", Evidence(**ev))


@sympy_engine
def split_inclusion() -> bool:
    """sympy: if |Z| < 3c and every |X_i| < 3c then |Z| + max|X_i| < 6c (c > 0): 6c - (a + m) > 0 for a, m in [0, 3c)."""
    c, u, v = sp.symbols("c u v", positive=True)
    # a = 3c - u, m = 3c - v with u, v > 0
    return bool(sp.simplify(6 * c - ((3 * c - u) + (3 * c - v))).is_positive)


def check_union_corrected(family: str, **params: Any) -> Outcome:
    inclusion = split_inclusion()
    total = Y.is_zero((K + 1) * symbolic_tail(family, 3) - BETA)
    union = check_union(family, **params)
    ok = inclusion and total and union.verdict == ClaimVerdict.CONSISTENT
    ev = union.evidence
    return Outcome(ClaimVerdict.PROVED if ok else union.verdict,
        "sympy: {|Z| + max|X_i| >= 6Δ/ε·L} ⊆ {|Z| >= 3Δ/ε·L} ∪ ⋃_i {|X_i| >= 3Δ/ε·L}, and (k+1)·β/(k+1) = β with the corrected tails "
        "(exact, k, β, ε, Δ symbolic); quadrature of the exact probability agrees",
        Evidence(points=ev.points, grid=ev.grid, digits=ev.digits, min_margin=ev.min_margin, margin_unit=ev.margin_unit, notes=ev.notes[:2]),
    )



# --- the implicit step and the theorem -------------------------------------------------------------------------------
def run_errors(queries: np.ndarray, t: float, z: np.ndarray, x: np.ndarray) -> np.ndarray:
    """Empirical error of each run given its noises (the seed's algorithm, lines 1-8, on k queries)."""
    above = queries[None, :] + x >= (t + z)[:, None]
    halted = above.any(axis=1)
    first = np.where(halted, above.argmax(axis=1), queries.shape[0])
    errs = output_errors(queries[None, :], t)[0]
    return errs[first]


@cache
def error_bound_samples(family: str) -> tuple[int, float]:
    """(runs, smallest (|Z| + max|X_i|) - error): runs of the algorithm with seeded noises."""
    rng = np.random.default_rng(MC_SEED + 2)
    worst = np.inf
    n = 0
    mech = mechanism(family, Fraction(1))
    for k in (1, 2, 5):
        for _ in range(4):
            q = rng.uniform(-10, 10, k)
            z = mech.threshold_noise.sample(rng, 5000)
            x = mech.query_noise.sample(rng, (5000, k))
            err = run_errors(q, 0.0, z, x)
            slack = np.abs(z) + np.abs(x).max(axis=1) - err
            worst = min(worst, float(slack.min()))
            n += 5000
    return n, worst


def check_error_bound(family: str, **params: Any) -> Outcome:
    """max empirical error <= |Z| + max_i |X_i| for every run: the case analysis `proofs.case_analysis.error_bound`
    (the same for both mechanisms: it holds for every value of the noises); sampled runs as corroboration."""
    ca = CA.error_bound()
    n, worst = error_bound_samples(family)
    ev = Evidence(
        points=len(ca.results),
        grid="symbolic: " + ca.coverage,
        min_margin=f"{worst:.3g}",
        margin_unit="|Z| + max|X_i| - error over the sampled runs (float64; corroboration, not part of the proof)",
        notes=(ca.report(),
               f"corroboration: {n} runs of the algorithm with seeded noises (k ∈ {{1, 2, 5}}, 4 query vectors in [-10, 10]^k "
               "each, ε = Δ = 1, t = 0)"),
    )
    return case_outcome(ca, ev, contradicted="a sampled run had an error above |Z| + max|X_i| (float64; not confirmed)" if worst < -1e-9 else "",
                        proved="exhaustive case analysis (each error term: 0, a ⊤ or the ⊥; sign orthant of (Z, X_j)), each case "
                        "certified by sympy, for every k and every run; sampled runs agree",
                        fallback="sampled runs only")


def _theorem_rows(k: int, a: float, rng: np.random.Generator) -> np.ndarray:
    """Query vectors (t = 0) at which the error probability is largest: just beyond ±α, mixtures, random."""
    rows = []
    for eta in (1e-9, 0.25):
        rows.append(np.full(k, a * (1 + eta)))
        rows.append(np.full(k, -a * (1 + eta)))
        rows.append(np.array([a * (1 + eta) * (-1) ** j for j in range(k)]))
        rows.append(np.array([-a * (1 + eta)] * (k - 1) + [a * (1 + eta)]))
        rows.append(np.array([a * (1 + eta)] * (k - 1) + [-a * (1 + eta)]))
    rows += list(rng.uniform(-2 * a, 2 * a, (20, k)))
    return np.vstack(rows)


@cache
def theorem_sweep(family: str) -> tuple[int, mpmath.mpf, tuple, mpmath.mpf]:
    """Largest Pr[max error > α]/β over the grid, exact (fast path, worst point by mpmath). Returns
    (points, smallest β - Pr, worst (eps, k, beta, queries), Pr at the worst point)."""
    from verify.probabilities import fast_log_distribution, mp_distribution

    rng = np.random.default_rng(MC_SEED + 3)
    best = None
    n = 0
    for eps in (Fraction(1, 2), Fraction(1), Fraction(2)):
        mech = mechanism(family, eps)
        for k in (1, 2, 3, 5):
            blocks = []
            for beta in BETAS:  # the rows of every β first (the same draws in the same order), then one engine call
                with mpmath.workdps(20):
                    a = float(alpha(eps, Fraction(1), k, beta))
                blocks.append((beta, a, _theorem_rows(k, a, rng)))
            # the fast path's arithmetic is elementwise per row (verify.engine.fast_closed_form): the stacked call
            # gives each block's values bit for bit (tests/test_utility_closed_forms.py)
            stacked, _ = fast_log_distribution(mech, np.vstack([Q for _, _, Q in blocks]))
            for (beta, a, Q), logp in zip(blocks, np.split(stacked, len(blocks))):
                err = output_errors(Q, 0.0)
                pr = np.where(err > a, np.exp(logp), 0.0).sum(axis=1)
                n += len(Q)
                ratio = pr / float(beta)
                r = int(np.argmax(ratio))
                if best is None or ratio[r] > best[0]:
                    best = (float(ratio[r]), eps, k, beta, tuple(Q[r]), a)
    _, eps, k, beta, q, a = best
    qf = tuple(Fraction(v) for v in q)
    mech = mechanism(family, eps)
    with mpmath.workdps(30):
        probs = mp_distribution(mech, qf, 30)
        err = output_errors(np.array([q]), 0.0)[0]
        am = alpha(eps, Fraction(1), k, beta)
        pr = mpmath.fsum(p for p, e in zip(probs, err) if mpmath.mpf(e) > am)
        margin = mpmath.mpf(beta.numerator) / beta.denominator - pr
    return n, margin, (eps, k, beta, qf), pr


def check_theorem(family: str, **params: Any) -> Outcome:
    n, margin, (eps, k, beta, q), pr = theorem_sweep(family)
    mech = mechanism(family, eps)
    runs = mech.sample(list(q), MC_RUNS, MC_SEED + 4)
    err = output_errors(np.array([[float(v) for v in q]]), 0.0)[0]
    with mpmath.workdps(20):
        a = float(alpha(eps, Fraction(1), k, beta))
    count = int((err[runs] > a).sum())
    limit = int(stats.binom.isf(FALSE_ALARM, MC_RUNS, float(beta.numerator) / beta.denominator))
    lo = int(stats.binom.ppf(FALSE_ALARM / 2, MC_RUNS, float(pr)))
    hi = int(stats.binom.isf(FALSE_ALARM / 2, MC_RUNS, float(pr)))
    mc_ok = count <= limit and lo <= count <= hi
    notes = (
        f"worst point: ε = {eps}, k = {k}, β = {beta}, queries {[float(v) for v in q]} (t = 0, Δ = 1): "
        f"Pr[max error > α] = {nstr(pr, 12)} (mpmath, 30 digits), α = 6Δ/ε·ln((k+1)/β)",
        f"Monte Carlo ({MC_RUNS} runs of AboveThreshold.sample, seed {MC_SEED + 4}): {count} runs with error > α; "
        f"the claim would be rejected above {limit}, the exact value accepted in [{lo}, {hi}] (each test false-alarm rate {FALSE_ALARM})",
        "exact: Pr[max error > α] = Σ of the probabilities of the outputs whose empirical error exceeds α (the error is a function of the output)",
    )
    ev = dict(points=n, grid="ε ∈ {1/2, 1, 2}, Δ = 1, t = 0, k ∈ {1, 2, 3, 5}, β ∈ {0.99, 1/2, 1/10, 1/100, 1/10000}; "
              "30 query vectors each (just beyond ±α, mixtures, 20 seeded random in [-2α, 2α]^k)",
              digits=30, min_margin=nstr(margin, 10), margin_unit="β - Pr[max error > α] at the worst point (probability)", notes=notes)
    if margin < 0:
        cx = confirm(lambda _: (pr, mpmath.mpf(beta.numerator) / beta.denominator), None,
                     (("eps", fstr(eps)), ("k", str(k)), ("beta", fstr(beta)), ("queries", ",".join(map(fstr, q)))), "<=", lambda a_, b_: a_ > b_)
        return refuted_or_undecided("exact output probabilities", cx, ev)
    if not mc_ok:
        return Outcome(ClaimVerdict.UNDECIDED, "Monte Carlo disagrees with the exact probabilities", Evidence(**ev))
    return Outcome(ClaimVerdict.CONSISTENT, "exact error probabilities from the output distribution (fast path, worst point by mpmath) over the grid; "
                   "Monte Carlo with the seeded sampler agrees", Evidence(**ev))

