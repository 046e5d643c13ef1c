"""Numerical sweeps of the privacy inequalities (shared, cached per process).

Scale invariance: every output probability depends on the queries and the
threshold only through (q_j - t)/b with b = 3Δ/ε (both noises scale with b),
so a sweep over ε with Δ = 1, t = 0 covers every (Δ, t); the grids of the
conditional claims vary Δ and t anyway, as a check of that invariance.

Each sweep evaluates log ratios with the library's vectorised float64 path
(`verify.ratio.fast_log_ratios`, `verify.probabilities.fast_log_conditional`,
relative error <= 1e-11 per probability, re-evaluated by mpmath where the
float64 closed form is ill-conditioned) and decides them with the library's
one "screen in float64, confirm at high precision" engine, `verify.screen`: a
point whose float64 log ratio lies beyond the bound by more than
`verify.screen.float_margin` is re-evaluated with mpmath at `DIGITS` digits; it
is a violation only if `verify.screen.classify` places it beyond the bound
there (by more than `verify.screen.confirm_tolerance`).  The worst point is
always re-evaluated with mpmath, and the margin (bound - |log ratio|, in nats)
reported is the mpmath value's.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any

import mpmath
import numpy as np

from verify.mechanism import AboveThreshold, SparseVector
from verify.screen import first_violation, screen

#: ε values of the sweeps (Δ = 1, t = 0 by scale invariance).
EPSILONS: tuple[Fraction, ...] = (Fraction(1, 10), Fraction(1, 2), Fraction(1), Fraction(2), Fraction(5))
#: Digits of the high-precision confirmation.
DIGITS = 40
SEED = 20240611


def mechanism(family: str, eps: Fraction, delta: Fraction = Fraction(1), t: Fraction = Fraction(0)) -> SparseVector:
    """Mechanism One (``laplace``) or Two (``exponential``) of the seed."""
    seed = {"laplace": AboveThreshold.mechanism_one, "exponential": AboveThreshold.mechanism_two}
    if family not in seed:
        raise ValueError(f"family: {family!r} is not 'laplace' or 'exponential'")
    return seed[family](eps, delta, t)


def to_frac(x: float) -> Fraction:
    """Exact value of a double, limited to a readable rational when it is one."""
    f = Fraction(x)
    g = f.limit_denominator(10**6)
    return g if abs(float(g) - x) == 0 else f


@dataclass(frozen=True)
class SweepPoint:
    eps: Fraction
    queries: tuple[Fraction, ...]
    neighbour: tuple[Fraction, ...]
    output: Any  # index i (s_i) or "none"
    log_ratio: mpmath.mpf  # mpmath value at DIGITS


@dataclass(frozen=True)
class SweepResult:
    """Outcome of a ratio sweep."""

    points: int
    description: str
    worst: SweepPoint | None
    min_margin: mpmath.mpf  # min over points of (ε - |ln ratio|), mpmath-confirmed at the worst point
    violation: SweepPoint | None
    float_candidates: int


# --- the theorem sweep ---------------------------------------------------------------------------------
def _theorem_rows(eps: Fraction, k: int, rng: np.random.Generator, n_random: int) -> tuple[np.ndarray, np.ndarray]:
    b = 3.0 / float(eps)
    Q = rng.uniform(-8 * b, 8 * b, (n_random, k))
    shift = np.where(rng.random((n_random, k)) < 0.6, rng.choice([-1.0, 1.0], (n_random, k)), rng.uniform(-1, 1, (n_random, k)))
    rows, nrows = [Q], [Q + shift]
    # structured: every shift pattern ±1 on a grid of positions (k <= 3)
    if k <= 3:
        grid = np.array(np.meshgrid(*[[-2 * b, 0.0, 2 * b]] * k)).reshape(k, -1).T
        pats = np.array(np.meshgrid(*[[-1.0, 1.0]] * k)).reshape(k, -1).T
        G = np.repeat(grid, len(pats), axis=0)
        P = np.tile(pats, (len(grid), 1))
        rows.append(G)
        nrows.append(G + P)
    # the tightness family: earlier queries far above the threshold, the last at it
    if k >= 2:
        for c in (0.0, 1.0, 2.0, 4.0, 8.0, 16.0):
            q = np.array([c * b] * (k - 1) + [0.0])
            qn = q + np.array([1.0] * (k - 1) + [-1.0])
            rows += [q[None, :], qn[None, :]]
            nrows += [qn[None, :], q[None, :]]
    return np.vstack(rows), np.vstack(nrows)


def _mp_log_ratio(mech: SparseVector, q: tuple, qn: tuple, output: Any) -> mpmath.mpf:
    from verify.ratio import privacy_ratio

    rep = privacy_ratio(mech, q, qn, outputs=[output], digits=DIGITS)
    return rep.outputs[0].log_ratio


@cache
def theorem_ratios(family: str, n_random: int, kmax: int) -> tuple[tuple[Fraction, int, np.ndarray, np.ndarray, np.ndarray], ...]:
    """(ε, k, Q, Q', float64 log ratios of every output s_1..s_k, ⊤^k) for each block of `theorem_sweep`'s rows,
    drawn in its order from one generator (`SEED`).  Both sweeps of a family (outputs s_i, ``"halt"``, and ⊤^k,
    ``"none"``) read these same rows and ratios, so they are computed once per process."""
    from verify.ratio import fast_log_ratios

    rng = np.random.default_rng(SEED)
    blocks = []
    for eps in EPSILONS:
        mech = mechanism(family, eps)
        for k in range(1, kmax + 1):
            Q, Qn = _theorem_rows(eps, k, rng, n_random)
            lr = fast_log_ratios(mech, Q, Qn)
            for a in (Q, Qn, lr):
                a.setflags(write=False)  # shared by both sweeps
            blocks.append((eps, k, Q, Qn, lr))
    return tuple(blocks)


@cache
def theorem_sweep(family: str, which: str = "halt", n_random: int = 1500, kmax: int = 4) -> SweepResult:
    """Sweep |ln Pr[A(D)=s]/Pr[A(D')=s]| over neighbouring query vectors.

    ``which = "halt"``: the outputs s_1..s_k (the theorems); ``"none"``: ⊤^k.
    ε ∈ `EPSILONS`, k = 1..kmax, random positions in [-8b, 8b] with shifts ±Δ
    (60%) or uniform in [-Δ, Δ], every ±Δ shift pattern on the grid
    {-2b, 0, 2b}^k (k <= 3), and the tightness family (seeded, `SEED`).
    """
    total = 0
    best = None  # (margin float, eps, q, qn, col, k)
    candidates = []
    for eps, k, Q, Qn, lr in theorem_ratios(family, n_random, kmax):
        cols = list(range(k)) if which == "halt" else [k]
        sub = lr[:, cols]
        margin = float(eps) - np.abs(sub)
        s = screen(margin, float(eps))
        total += s.points
        m = np.where(np.isnan(margin), -np.inf, margin)
        r, c = np.unravel_index(s.worst, margin.shape)
        if best is None or s.worst_margin < best[0]:
            best = (s.worst_margin, eps, Q[r], Qn[r], cols[c], k)
        for flat in s.candidates:
            rr, cc = np.unravel_index(int(flat), margin.shape)
            candidates.append((float(m[rr, cc]), eps, Q[rr], Qn[rr], cols[cc], k))
    candidates.sort(key=lambda c: c[0])

    def confirm(cand: tuple) -> tuple[SweepPoint, mpmath.mpf, Fraction]:
        _, eps, q, qn, col, k = cand
        pt = _confirm_point(family, eps, q, qn, col, k)
        return pt, pt.log_ratio, eps

    found = first_violation(candidates, confirm, DIGITS)
    violation = None if found is None else found.point
    assert best is not None
    _, eps, q, qn, col, k = best
    worst = _confirm_point(family, eps, q, qn, col, k)
    with mpmath.workdps(DIGITS):
        mm = mpmath.mpf(eps.numerator) / eps.denominator - abs(worst.log_ratio)
    desc = (
        f"ε ∈ {{{', '.join(str(e) for e in EPSILONS)}}}, Δ = 1, t = 0 (scale invariance), k = 1..{kmax}; "
        f"{n_random} random neighbour pairs per (ε, k) (positions in [-8b, 8b], b = 3Δ/ε, shifts ±Δ or uniform), "
        f"all ±Δ shift patterns on {{-2b, 0, 2b}}^k for k <= 3, the tightness family; "
        f"outputs {'s_1..s_k' if which == 'halt' else '⊤^k'}; float64 with mpmath ({DIGITS} digits) at the worst point"
    )
    return SweepResult(total, desc, worst, mm, violation, len(candidates))


def _confirm_point(family: str, eps: Fraction, q: np.ndarray, qn: np.ndarray, col: int, k: int) -> SweepPoint:
    mech = mechanism(family, eps)
    qf = tuple(to_frac(float(v)) for v in q)
    qnf = tuple(to_frac(float(v)) for v in qn)
    # keep the neighbour relation exact after rounding to rationals
    qnf = tuple(min(max(b_, a - 1), a + 1) for a, b_ in zip(qf, qnf))
    output = "none" if col == k else col + 1
    lr = _mp_log_ratio(mech, qf, qnf, output)
    return SweepPoint(eps, qf, qnf, output, lr)


# --- the conditional sweep ---------------------------------------------------------------------------------
@dataclass(frozen=True)
class ConditionalPoint:
    eps: Fraction
    gap_max: Fraction | None  # M(D,x) - t
    gap_query: Fraction  # q_i(D) - t
    gap_max_n: Fraction | None  # M(D',x) - t
    gap_query_n: Fraction  # q_i(D') - t
    log_ratio: mpmath.mpf


@dataclass(frozen=True)
class ConditionalSweep:
    points: int
    description: str
    worst: ConditionalPoint
    min_margin: mpmath.mpf
    violation: ConditionalPoint | None


def mp_conditional_log_ratio(family: str, eps: Fraction, m: Fraction | None, d: Fraction, mn: Fraction | None, dn: Fraction, digits: int = DIGITS) -> mpmath.mpf:
    """ln Pr[A(D)=s_i | x] - ln Pr[A(D')=s_i | x] by the library's mpmath path (Δ = 1, t = 0)."""
    from verify.probabilities import mp_conditional
    from verify.ratio import log_ratio

    mech = mechanism(family, eps)
    a = mp_conditional(mech, m, d, digits)
    b_ = mp_conditional(mech, mn, dn, digits)
    with mpmath.workdps(digits):
        return log_ratio(a, b_)


@cache
def conditional_sweep(family: str, n_random: int = 20000) -> ConditionalSweep:
    """Sweep |ln Pr[A(D)=s_i|x]/Pr[A(D')=s_i|x]| over m = M(D,x)-t, d = q_i(D)-t and
    neighbours m - κ, d - δ with κ, δ ∈ [-Δ, Δ] (extremes included); i = 1 (m = -∞) too."""
    from verify.probabilities import fast_log_conditional
    from verify.ratio import log_ratio_from_logs

    rng = np.random.default_rng(SEED + 1)
    total = 0
    best = None
    candidates = []
    for eps in EPSILONS:
        mech = mechanism(family, eps)
        b = 3.0 / float(eps)
        m = rng.uniform(-8 * b, 8 * b, n_random)
        d = rng.uniform(-8 * b, 8 * b, n_random)
        kap = np.where(rng.random(n_random) < 0.6, rng.choice([-1.0, 1.0], n_random), rng.uniform(-1, 1, n_random))
        dl = np.where(rng.random(n_random) < 0.6, rng.choice([-1.0, 1.0], n_random), rng.uniform(-1, 1, n_random))
        # structured: kinks and their neighbourhoods
        g = np.array([-2 * b, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0, 2 * b])
        G1, G2, K, L = np.meshgrid(g, g, [-1.0, 0.0, 1.0], [-1.0, 0.0, 1.0], indexing="ij")
        m = np.concatenate([m, G1.ravel(), np.full(9, -np.inf)])
        d = np.concatenate([d, G2.ravel(), np.zeros(9)])
        kap = np.concatenate([kap, K.ravel(), np.zeros(9)])
        dl = np.concatenate([dl, L.ravel(), np.repeat([-1.0, 0.0, 1.0], 3)])
        a = fast_log_conditional(mech, m, d)
        c = fast_log_conditional(mech, m - kap, d - dl)
        margin = float(eps) - np.abs(log_ratio_from_logs(a, c))
        s = screen(margin, float(eps))
        total += s.points
        r = s.worst
        if best is None or s.worst_margin < best[0]:
            best = (s.worst_margin, eps, m[r], d[r], m[r] - kap[r], d[r] - dl[r])
        for rr in s.candidates[:50]:
            candidates.append((-np.inf if np.isnan(margin[rr]) else float(margin[rr]), eps, m[rr], d[rr], m[rr] - kap[rr], d[rr] - dl[rr]))
    candidates.sort(key=lambda c: c[0])

    def confirm_pt(c: tuple) -> ConditionalPoint:
        _, eps, m_, d_, mn_, dn_ = c
        mf = None if not np.isfinite(m_) else to_frac(float(m_))
        mnf = None if not np.isfinite(mn_) else to_frac(float(mn_))
        df, dnf = to_frac(float(d_)), to_frac(float(dn_))
        if mf is not None:
            mnf = min(max(mnf, mf - 1), mf + 1)
        dnf = min(max(dnf, df - 1), df + 1)
        return ConditionalPoint(eps, mf, df, mnf, dnf, mp_conditional_log_ratio(family, eps, mf, df, mnf, dnf))

    def confirm(cand: tuple) -> tuple[ConditionalPoint, mpmath.mpf, Fraction]:
        pt = confirm_pt(cand)
        return pt, pt.log_ratio, pt.eps

    found = first_violation(candidates, confirm, DIGITS)
    violation = None if found is None else found.point
    worst = confirm_pt(best)
    with mpmath.workdps(DIGITS):
        mm = mpmath.mpf(worst.eps.numerator) / worst.eps.denominator - abs(worst.log_ratio)
    desc = (
        f"ε ∈ {{{', '.join(str(e) for e in EPSILONS)}}}, Δ = 1, t = 0; {n_random} random (m, d) in [-8b, 8b]^2 per ε "
        f"with κ, δ = ±Δ (60%) or uniform in [-Δ, Δ], a grid at the kinks with κ, δ ∈ {{-Δ, 0, Δ}}, i = 1 (m = -∞); "
        f"float64 (verify.probabilities.fast_log_conditional), mpmath {DIGITS} digits at the worst point"
    )
    return ConditionalSweep(total, desc, worst, mm, violation)


# --- pointwise sweeps -----------------------------------------------------------------------------------------
@dataclass(frozen=True)
class PointwiseSweep:
    points: int
    min_margin: float
    worst: dict[str, float]
    violations: list[dict[str, float]]


def pointwise_sweep(
    log_ratio: Callable[[dict[str, np.ndarray]], np.ndarray],
    sample: Callable[[np.random.Generator], dict[str, np.ndarray]],
    upper: Callable[[dict[str, np.ndarray]], np.ndarray],
    lower: Callable[[dict[str, np.ndarray]], np.ndarray] | None = None,
    seed: int = SEED + 2,
) -> PointwiseSweep:
    """Evaluate a float64 log ratio at sampled points; margin = distance to the nearest bound.

    Violations are points beyond a bound by more than `verify.screen.float_margin`
    of the bound (`verify.screen.screen`; to be confirmed at high precision by the caller)."""
    rng = np.random.default_rng(seed)
    pts = sample(rng)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        lr = log_ratio(pts)
        up = upper(pts)
        margin = up - lr
        if lower is not None:
            margin = np.minimum(margin, lr - lower(pts))
    margin = np.where(np.isnan(margin), -np.inf, margin)
    scale = np.where(np.isfinite(up), up, 1.0) if np.ndim(up) else (up if np.isfinite(up) else 1.0)
    s = screen(margin, np.broadcast_to(scale, margin.shape))
    n = s.points
    i = s.worst
    worst = {k: float(v[i]) for k, v in pts.items()}
    order = s.candidates[:20]
    violations = [{**{k: float(v[j]) for k, v in pts.items()}, "_margin": float(margin[j])} for j in order]
    return PointwiseSweep(n, float(margin[i]), worst, violations)


def clear_caches() -> None:
    theorem_sweep.cache_clear()
    theorem_ratios.cache_clear()
    conditional_sweep.cache_clear()


def eps_mp(eps: Fraction) -> mpmath.mpf:
    return mpmath.mpf(eps.numerator) / eps.denominator


def fmt_margin(x: Any) -> str:
    """A margin as text; an mpmath margin within 1e-30 of 0 is the bound attained (rounding at 40 digits)."""
    if isinstance(x, float):
        return "inf" if math.isinf(x) else f"{x:.6g}"
    with mpmath.workdps(DIGITS):
        if mpmath.isfinite(x) and abs(x) < mpmath.mpf(10) ** -30:
            return "0 (attained to 30 digits)"
        return mpmath.nstr(x, 12)
