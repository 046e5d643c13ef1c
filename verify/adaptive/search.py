"""The structured worst-case search for Adaptive SVT (docs/adaptive.md).

Layouts: n − 1 BELOW answers followed by one TOP or one MIDDLE answer (n = 1..K; with CheckDP's k = 1
every above answer halts the run, so these are all its outcomes but the all-BELOW ones, which are
listed too).  The below queries share one value t + u, the last query is t + w, and the released
number is r (a gap, or for a TOP of the bad variant the value q_n + ξ_n).  The neighbour moves the below
queries by s_b·Δ and the last by s_a·Δ, (s_b, s_a) in {±1}²: the threshold's shift (all
queries the same way) against the answers' own (opposite ways).  Why these: below answers' factors
F(σ + t + z − q) and F(t + z − q) are monotone in q, so moving them all one way is extreme; the last
answer's factor is a density (or a survival) of its own shift.  On a grid of (u, w, r) in units of the
largest noise scale, the float64 evaluator (`verify.adaptive.fast`) gives |log ratio|; the best point
is refined by Nelder–Mead inside a box of `BOX` scales and rounded to short decimals, and `verify.adaptive.verdict` confirms it at
50 digits.  The search gives a lower bound on the loss (every confirmed pair is a real pair).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np
from scipy import optimize

from verify.adaptive.fast import fast_log_density
from verify.adaptive.model import AdaptiveSVT, Answer, Branch, TopRelease

#: Grids in units of the largest noise scale: the below queries' offset u, the last query's w, r.
U_GRID = (-2.0, 0.0, 1.0, 3.0)
W_GRID = (-1.0, 1.0)
R_GRID = (0.25, 1.5)
SIGNS = ((1, -1), (-1, 1), (1, 1), (-1, -1))
#: Nelder–Mead's box: |u|, |w|, |r| at most this many largest scales (plus σ for r).
BOX = 6.0


@dataclass(frozen=True)
class AdaptiveCandidate:
    """A pair of query vectors and an outcome, with its float64 |log ratio|."""

    queries: tuple[Fraction, ...]
    neighbour: tuple[Fraction, ...]
    answers: tuple[Answer, ...]
    loss: float


def _exact(x: float) -> Fraction:
    return Fraction(f"{x:.6f}")


def _build(mech: AdaptiveSVT, n: int, last: Branch | None, signs: tuple[int, int], u: float, w: float, r: float):
    t, d = mech.threshold, mech.sensitivity
    q = [t + _exact(u)] * (n - 1) + [t + _exact(w)]
    qn = [x + signs[0] * d for x in q[:-1]] + [q[-1] + signs[1] * d]
    if last is None:
        answers = (Answer(Branch.BELOW),) * n
    else:
        answers = (Answer(Branch.BELOW),) * (n - 1) + (Answer(last, _exact(r)),)
    return tuple(q), tuple(qn), answers


def _release(mech: AdaptiveSVT, last: Branch | None, w: float, r: float, scale: float) -> float:
    """The released number for grid value r (in scales): a gap above its floor, or a TOP value above σ + w."""
    sig = mech.sigma_value()
    if last is Branch.TOP:
        base = sig if mech.top_release is TopRelease.GAP else float(mech.threshold) + w + sig
        return base + r * scale
    return r * scale


def _loss(mech: AdaptiveSVT, n: int, last: Branch | None, signs, u: float, w: float, r: float) -> float:
    q, qn, ans = _build(mech, n, last, signs, u, w, r)
    a, c = fast_log_density(mech, q, ans)[0], fast_log_density(mech, qn, ans)[0]
    if a == -math.inf and c == -math.inf:
        return 0.0
    return abs(a - c)


def structured_search(mech: AdaptiveSVT, max_queries: int) -> tuple[AdaptiveCandidate | None, dict[int, float]]:
    """The best pair over n = 1..K (module docstring) and the float64 best loss per n."""
    scale = float(max(mech.b_threshold, mech.b_top, mech.b_middle))
    best: tuple[float, tuple] | None = None
    by_k: dict[int, float] = {}
    for n in range(1, max_queries + 1):
        top_n = 0.0
        for last in (Branch.TOP, Branch.MIDDLE, None):
            for signs in SIGNS:
                for u in (U_GRID if n > 1 else (0.0,)):
                    for w in W_GRID:
                        for r in (R_GRID if last is not None else (0.0,)):
                            args = (n, last, signs, u * scale, w * scale, _release(mech, last, w * scale, r, scale))
                            loss = _loss(mech, *args)
                            top_n = max(top_n, loss)
                            if best is None or loss > best[0]:
                                best = (loss, args)
        by_k[n] = top_n
    if best is None:
        return None, by_k
    loss, (n, last, signs, u, w, r) = best
    box = BOX * scale  # Nelder–Mead stays in the grid's box (far-out points only cost quadrature pieces later)

    def objective(p: np.ndarray) -> float:
        return 0.0 if np.max(np.abs(p)) > box else -_loss(mech, n, last, signs, p[0], p[1], p[2])

    res = optimize.minimize(objective, np.array([u, w, r]),
                            method="Nelder-Mead", options={"maxfev": 300, "xatol": 1e-6 * scale, "fatol": 1e-12})
    if -res.fun > loss:
        loss, (u, w, r) = -res.fun, tuple(float(x) for x in res.x)
        by_k[n] = max(by_k[n], loss)
    q, qn, ans = _build(mech, n, last, signs, u, w, r)
    return AdaptiveCandidate(q, qn, ans, _loss(mech, n, last, signs, u, w, r)), by_k
