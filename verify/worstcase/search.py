"""The worst-case search: candidate families, grid + Nelder-Mead, full-dimensional Powell, exact confirmation.

Candidates (seed, Proof 1: only q_1..q_i and M(D,x) matter for s_i): "earlier
queries pushed one way, the halting query the other": q_j(D) = t + u (j < i),
q_i(D) = t + v, the neighbour shifted at the corners, q_j(D') = q_j(D) + σ₁,
q_i(D') = q_i(D) + σ₂, σ₁, σ₂ ∈ {-Δ, 0, Δ}; for ⊤^k all k queries at t + u,
shifted by σ₁.  For each: a grid over (u, v) in [-R, R]², then
`scipy.optimize.minimize` (Nelder-Mead) from the best grid points, on the
quadrature objective of `verify.worstcase.family`; for small k also a
full-dimensional Powell search over q ∈ R^k on the fast path.  Every candidate
is confirmed by `verify.ratio.privacy_ratio` on an exact rational witness.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy import optimize

from verify.mechanism import NO_HALT, AboveThreshold, Output
from verify.probabilities import fast_log_distribution
from verify.ratio import log_ratio_from_logs, privacy_ratio
from verify.worstcase.family import family_log_ratio
from verify.worstcase.results import LossWitness

SHIFT_PATTERNS = [(s1, s2) for s1 in (-1, 0, 1) for s2 in (-1, 0, 1) if (s1, s2) != (0, 0)]


# --------------------------------------------------------------------------------------------------
# search
# --------------------------------------------------------------------------------------------------
def nice(x: float, unit: Fraction) -> Fraction:
    """A short rational near x (multiples of unit/1000), so witnesses print well."""
    step = unit / 1000
    return round(Fraction(x) / step) * step


def confirm(mech: AboveThreshold, q: tuple, qn: tuple, output: Output, digits: int) -> LossWitness:
    """The exact point (q, q', output) with its log ratio by `privacy_ratio` at ``digits`` digits."""
    rep = privacy_ratio(mech, q, qn, outputs=[output], digits=digits)
    o = rep.outputs[0]
    return LossWitness(tuple(q), tuple(qn), output, o.log_ratio, o.probability, o.neighbour_probability, digits)


def family_vectors(mech: AboveThreshold, n: int, halt: bool, u: Fraction, v: Fraction, s1: int, s2: int):
    t, delta = mech.threshold, mech.sensitivity
    if halt:
        q = (t + u,) * n + (t + v,)
        qn = (t + u + s1 * delta,) * n + (t + v + s2 * delta,)
        return q, qn, n + 1
    q = (t + u,) * n
    qn = (t + u + s1 * delta,) * n
    return q, qn, NO_HALT


def search_scale(mech: AboveThreshold) -> float:
    """The larger noise scale (Δ without noise): the unit of the search box."""
    scales = [float(x.scale) for x in (mech.threshold_noise, mech.query_noise) if not x.is_none]
    return max(scales) if scales else float(mech.sensitivity)


@dataclass(frozen=True)
class Best:
    loss: float
    u: float
    v: float
    s1: int
    s2: int


def search_family(mech: AboveThreshold, n: int, halt: bool, box: float, grid: int, starts: int) -> Best:
    """Grid over (u, v) ∈ [-box, box]², all corner patterns, then Nelder-Mead from the best."""
    delta = float(mech.sensitivity)
    g = np.linspace(-box, box, grid)
    if halt:
        uu, vv = np.meshgrid(g, g, indexing="ij")
        uu, vv = uu.ravel(), vv.ravel()
    else:
        uu, vv = g, np.zeros_like(g)
    patterns = SHIFT_PATTERNS if halt else [(1, 0), (-1, 0)]
    if halt and n == 0:
        patterns = [(0, 1), (0, -1)]
    cands: list[Best] = []
    for s1, s2 in patterns:
        lr = family_log_ratio(mech, n, uu, vv if halt else None, s1 * delta, s2 * delta)
        a = np.abs(np.nan_to_num(lr, nan=-1.0))
        order = np.argsort(-a, kind="stable")[:starts]
        cands += [Best(float(a[j]), float(uu[j]), float(vv[j]), s1, s2) for j in order]
    cands.sort(key=lambda c: -c.loss)
    best = cands[0]
    if math.isinf(best.loss):
        return best
    for c in cands[:starts]:
        def obj(x, c=c):
            u = float(np.clip(x[0], -box, box))
            v = float(np.clip(x[1], -box, box)) if halt else 0.0
            lr = family_log_ratio(mech, n, np.array([u]), np.array([v]) if halt else None, c.s1 * delta, c.s2 * delta)[0]
            return -min(abs(lr), 1e300) if not np.isnan(lr) else 0.0

        x0 = [c.u, c.v] if halt else [c.u]
        res = optimize.minimize(obj, x0, method="Nelder-Mead",
                                options={"xatol": 1e-6 * box, "fatol": 1e-13, "maxiter": 400 if halt else 200})
        val = -float(res.fun)
        val = math.inf if val >= 1e300 else val
        if val > best.loss:
            u = float(np.clip(res.x[0], -box, box))
            v = float(np.clip(res.x[1], -box, box)) if halt else 0.0
            best = Best(val, u, v, c.s1, c.s2)
    return best


def full_dimensional(mech: AboveThreshold, k: int, start: tuple, start_n: tuple, box: float, starts: int,
                      rng: np.random.Generator) -> tuple[float, np.ndarray, np.ndarray]:
    """Powell over q ∈ R^k for s_k with the shift pattern fixed, from the structured
    witness and from seeded random starts with random corner shifts (fast path objective)."""
    delta = float(mech.sensitivity)
    t = float(mech.threshold)
    inits = [(np.array([float(x) for x in start]), np.array([float(y) - float(x) for x, y in zip(start, start_n)]))]
    for _ in range(starts):
        inits.append((t + rng.uniform(-box / 4, box / 4, k), delta * rng.choice([-1.0, 0.0, 1.0], k)))
    best = (-1.0, inits[0][0], inits[0][0] + inits[0][1])
    for q0, shift in inits:
        def obj(x, shift=shift):
            x = np.clip(x, t - box, t + box)
            lp, _ = fast_log_distribution(mech, np.stack([x, x + shift]))
            return -abs(float(log_ratio_from_logs(lp[0, k - 1], lp[1, k - 1])))

        res = optimize.minimize(obj, q0, method="Powell", options={"xtol": 1e-4, "ftol": 1e-12, "maxfev": 150 * k})
        val = -float(res.fun)
        if val > best[0]:
            x = np.clip(res.x, t - box, t + box)
            best = (val, x, x + shift)
    return best


def witness_from_best(mech: AboveThreshold, n: int, halt: bool, b: Best, unit: Fraction, digits: int) -> LossWitness:
    q, qn, out = family_vectors(mech, n, halt, nice(b.u, unit), nice(b.v, unit), b.s1, b.s2)
    return confirm(mech, q, qn, out, digits)
