"""The search for the worst pair of neighbours for approximate DP: largest δ(ε'), or largest ε' at a given δ.

The candidates are the structured pairs of the worst-case search
(`verify.family.structured`): for each output layout with up to K queries
(``layouts(..., every_k=True)``) its concrete outcome string s fixes the pair,
every B query at t + u moved by +Δ in D' and every A query at t + v moved by -Δ
(the direction that makes Pr[D]/Pr[D'] large, structured module docstring), and
the mirror pair (all shifts negated).  For each such pattern:

1. **Starts.**  A grid of (u, v) in [-8s, 8s]² (s the largest noise scale; every other point of
   it for patterns of `COARSE_FROM` or more queries), plus
   the hand-picked shapes `HAND_PICKED` (in units of s: the README's Gaussian SVT
   pair (5, -10) vs (6, -11) at s = 4 is (5/4, -5/2)), scored in float64 by the
   family fast path (`verify.family.fast_api.fast_log_distribution`).
2. **Optimise.**  From the best `STARTS` candidates (over all patterns), a compass
   search: move to the best of u ± h, v ± h while that raises the score by more than
   the float64 error of a score (`_margin`), else halve h, from h = s down to
   s / 2^`STEP_HALVINGS`.  Every point stays an exact rational (t + dyadic multiples
   of s), so the pair reported is the pair scored, and a move never lowers the score:
   the search ends at least as high as every start, hand-picked shapes included.
3. **Confirm.**  The best pair is recomputed with the exact oracle at the digits
   asked (`verify.family.delta`); that exact value, never the float64 score, is
   returned.

**Discrete variants** (noise on ℤ, `verify.integer_rules`) search the same patterns on the integer grid:
u, v are the integers of the grid above rounded (duplicates dropped), the compass step starts at the
largest scale rounded and is halved down to 1, and each row is scored by the float64 sums over ℤ
(`verify.engine.discrete_fast.fast_log_probability`, one outcome at a time), so every pair searched has
integer queries, as the exact sums need.

Scores: δ(ε') = Σ_s max(0, P_s - e^{ε'} P'_s), or the smallest ε' with δ(ε') <= D,
max(0, max_j log((A_j - D)/B_j)) over the loss-ordered prefix sums
(`verify.family.delta.PairProfile`).  The result is a lower bound on the
mechanism's δ(ε') (or ε'), as every exact pair is; the structured families are
where the worst case of the pure loss lies (structured module docstring), not a
proof that δ's worst pair lies there.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from verify.engine.discrete_fast import fast_log_probability as discrete_log_probability
from verify.errors import InputError
from verify.exact import to_fraction
from verify.family.delta import DeltaResult, EpsilonResult, check_delta_target, epsilon_for_delta, exact_delta
from verify.family.fast_api import fast_log_distribution
from verify.family.structured import layouts
from verify.integer_rules import is_discrete
from verify.mechanism import SparseVector, as_variant

#: Hand-picked (u, v) shapes in units of the largest noise scale s: B queries at t + u·s, A queries at t + v·s.
#: (5/4, -5/2) is the README's gaussian-svt pair q = (5, -10), q' = (6, -11) (s = 4).
HAND_PICKED: tuple[tuple[Fraction, Fraction], ...] = ((Fraction(5, 4), Fraction(-5, 2)), (Fraction(0), Fraction(0)))
#: Number of best starting points (over all patterns) the compass search refines.
STARTS = 4
#: The compass step goes from s down to s / 2^STEP_HALVINGS.
STEP_HALVINGS = 8
#: Patterns with at least this many queries and both u and v start from every other grid point (the grid
#: dominates the cost: lyu-6 with 4 queries integrates 16 outputs per row).
COARSE_FROM = 3
#: Queries stay within this many scales s of the threshold (the float64 scores lose accuracy in far tails).
REACH = 16
#: Rows scored in one float64 batch (`_chunks`); at least the 16 moves of a compass step (4 starts, 4 moves each).
CHUNK = 32

Score = Callable[[np.ndarray, np.ndarray], np.ndarray]


@dataclass(frozen=True)
class Pattern:
    """One structured pair shape: the outcome string's letters fix which queries sit at u (B) and v (A)."""

    letters: str
    sign: int

    @property
    def uses_u(self) -> bool:
        return "B" in self.letters

    @property
    def uses_v(self) -> bool:
        return "A" in self.letters

    def pair(self, t: Fraction, delta: Fraction, u: Fraction, v: Fraction) -> tuple[tuple[Fraction, ...], tuple[Fraction, ...]]:
        q = tuple(t + (u if c == "B" else v) for c in self.letters)
        qn = tuple(x + (self.sign * delta if c == "B" else -self.sign * delta) for x, c in zip(q, self.letters))
        return q, qn


def patterns(shape: SparseVector, max_queries: int) -> list[Pattern]:
    """Every structured pattern with up to ``max_queries`` queries, both signs."""
    strings = sorted({lay.string(shape) for lay in layouts(shape, max_queries, every_k=True)}, key=lambda s: (len(s), s))
    return [Pattern(s, sign) for s in strings for sign in (1, -1)]


def delta_score(epsilon_prime: float) -> Score:
    """float64 δ(ε') of each row from the log-probabilities of both sides."""
    def score(lp: np.ndarray, lpn: np.ndarray) -> np.ndarray:
        return np.sum(np.maximum(0.0, np.exp(lp) - np.exp(epsilon_prime + lpn)), axis=1)
    return score


def epsilon_score(delta: float) -> Score:
    """float64 smallest ε' with δ(ε') <= ``delta`` of each row (`verify.family.delta.PairProfile.epsilon_for`)."""
    def score(lp: np.ndarray, lpn: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            loss = np.where(np.isneginf(lp), -np.inf, lp - lpn)
            order = np.argsort(-loss, axis=1, kind="stable")
            a = np.cumsum(np.take_along_axis(np.exp(lp), order, axis=1), axis=1)
            b = np.cumsum(np.take_along_axis(np.exp(lpn), order, axis=1), axis=1)
            r = np.where(a > delta, np.log(a - delta) - np.log(b), -np.inf)
        return np.maximum(0.0, np.max(r, axis=1))
    return score


def _margin(scores: np.ndarray) -> np.ndarray:
    """A move must beat the float64 error of a score: FAST_TOLERANCE-level relative error on each probability
    (1e-12, `verify.precision`), summed over both sides, taken 100x."""
    return 1e-10 * (1 + np.abs(scores))


def _chunks(points: list[tuple[Pattern, Fraction, Fraction]], idx: list[int]) -> list[list[int]]:
    """``idx`` as one batch if it has at most `CHUNK` rows (every compass step), else (the starting grid) ordered
    by the reach max(|u|, |v|) and cut into batches of `CHUNK`: the float64 engine pads every row of a batch to
    the batch's largest panel count, and the far rows need the most panels (the gaussian-svt grid at 2 queries:
    6.5 s CPU as one batch, 2.9 s in sorted batches, at a load of about 12 on 2 cores).  A row's score moves
    only by the engine's rounding (1e-14 relative there), far below a move's margin (`_margin`); the pairs found
    for 13 searches (gaussian-svt, lyu-1/2/4/5/6, seed-m1; 1-3 queries; δ and ε' scores) were unchanged."""
    if len(idx) <= CHUNK:
        return [idx]
    order = sorted(idx, key=lambda i: max(abs(points[i][1]), abs(points[i][2])))
    return [order[c : c + CHUNK] for c in range(0, len(order), CHUNK)]


class _Scorer:
    def __init__(self, shape: SparseVector, score: Score):
        self.shape, self.score = shape, score
        self.t, self.d = shape.threshold, shape.sensitivity

    def __call__(self, points: list[tuple[Pattern, Fraction, Fraction]]) -> np.ndarray:
        out = np.empty(len(points))
        by_k: dict[int, list[int]] = {}
        for i, (pat, _, _) in enumerate(points):
            by_k.setdefault(len(pat.letters), []).append(i)
        for idx in by_k.values():
            for chunk in _chunks(points, idx):
                out[chunk] = self._rows([points[i][0].pair(self.t, self.d, points[i][1], points[i][2]) for i in chunk])
        return out

    def _rows(self, pairs: list[tuple[tuple[Fraction, ...], tuple[Fraction, ...]]]) -> np.ndarray:
        if is_discrete(self.shape):
            lp, lpn = self._discrete(pairs)
        else:
            q = np.array([[float(x) for x in p[0]] for p in pairs])
            qn = np.array([[float(x) for x in p[1]] for p in pairs])
            lp, _, _ = fast_log_distribution(self.shape, q)
            lpn, _, _ = fast_log_distribution(self.shape, qn)
        return self.score(lp, lpn)

    def _discrete(self, pairs: list[tuple[tuple[Fraction, ...], tuple[Fraction, ...]]]) -> tuple[np.ndarray, np.ndarray]:
        """Both sides' log-probabilities of every output, by the float64 sums over ℤ (module docstring)."""
        outs = self.shape.outputs(len(pairs[0][0]))
        lp = np.empty((len(pairs), len(outs)))
        lpn = np.empty_like(lp)
        for r, (q, qn) in enumerate(pairs):
            qi, qni = [int(x) for x in q], [int(x) for x in qn]
            for c, s in enumerate(outs):
                lp[r, c] = discrete_log_probability(self.shape, qi, s).log_value
                lpn[r, c] = discrete_log_probability(self.shape, qni, s).log_value
        return lp, lpn


def _scale(shape: SparseVector) -> Fraction:
    scales = [n.scale for n in (shape.threshold_noise, shape.query_noise) if not n.is_none]
    if not scales:
        raise InputError("delta: the variant has no noise; its δ(ε') is 1 for every ε' at a pair that changes an output")
    return max(scales)


def search_pair(shape: SparseVector, score: Score, max_queries: int, grid: int) -> tuple[tuple[Fraction, ...], tuple[Fraction, ...], float]:
    """(q, q', float64 score) of the best structured pair (module docstring, steps 1-2).

    Tie rule: among one state's moves of exactly equal score, the first in the order u + h, u - h, v + h, v - h
    is kept (on a tie, the first found is kept)."""
    s = _scale(shape)
    axis = [s * Fraction(16 * j, grid - 1) - 8 * s for j in range(grid)] if grid > 1 else [Fraction(0)]
    hand = [(s * u, s * v) for u, v in HAND_PICKED]
    discrete = is_discrete(shape)
    if discrete:  # the integer grid (module docstring): the threshold and Δ are integers already
        axis = sorted({Fraction(round(x)) for x in axis})
        hand = [(Fraction(round(u)), Fraction(round(v))) for u, v in hand]
    points: list[tuple[Pattern, Fraction, Fraction]] = []
    coarse = axis[::2]  # two-parameter patterns of 3+ queries: every other grid point (the compass refines)
    for pat in patterns(shape, max_queries):
        ax2 = coarse if len(pat.letters) >= COARSE_FROM and pat.uses_u and pat.uses_v else axis
        us = ax2 if pat.uses_u else [Fraction(0)]
        vs = ax2 if pat.uses_v else [Fraction(0)]
        cand = {(u, v) for u in us for v in vs}
        cand |= {(u if pat.uses_u else Fraction(0), v if pat.uses_v else Fraction(0)) for u, v in hand}
        points += [(pat, u, v) for u, v in sorted(cand)]
    scorer = _Scorer(shape, score)
    scores = scorer(points)
    order = np.argsort(-scores, kind="stable")[:STARTS]
    states = [[points[i][0], points[i][1], points[i][2], float(scores[i]), s] for i in order]
    floor, reach = s / 2**STEP_HALVINGS, REACH * s
    if discrete:
        floor = Fraction(1)
        for st in states:
            st[4] = Fraction(max(1, round(s)))
    while any(st[4] >= floor for st in states):
        moves: list[tuple[int, tuple[Pattern, Fraction, Fraction]]] = []
        for j, (pat, u, v, _, h) in enumerate(states):
            if h < floor:
                continue
            steps = ([(h, 0), (-h, 0)] if pat.uses_u else []) + ([(0, h), (0, -h)] if pat.uses_v else [])
            moves += [(j, (pat, u + du, v + dv)) for du, dv in steps if abs(u + du) <= reach and abs(v + dv) <= reach]
        if not moves:
            break
        vals = scorer([m[1] for m in moves])
        best: dict[int, tuple[float, tuple[Pattern, Fraction, Fraction]]] = {}
        for (j, pt), val in zip(moves, vals):
            if j not in best or val > best[j][0]:
                best[j] = (float(val), pt)
        for j, st in enumerate(states):
            if st[4] < floor:
                continue
            if j in best and best[j][0] > st[3] + _margin(np.array([st[3]]))[0]:
                st[1], st[2], st[3] = best[j][1][1], best[j][1][2], best[j][0]
            else:
                st[4] = st[4] / 2 if not discrete else (Fraction(st[4] // 2) if st[4] > 1 else Fraction(0))
    pat, u, v, val, _ = max(states, key=lambda st: st[3])
    q, qn = pat.pair(shape.threshold, shape.sensitivity, u, v)
    return q, qn, val


def _check(mech: Any, max_queries: object, grid: object) -> SparseVector:
    shape = as_variant(mech)
    if shape.releases_values:
        raise InputError("delta: variants that release values are not covered")
    if isinstance(max_queries, bool) or not isinstance(max_queries, int) or not 1 <= max_queries <= 10:
        raise InputError(f"--max-queries: {max_queries!r} must be an integer from 1 to 10")
    if isinstance(grid, bool) or not isinstance(grid, int) or not 1 <= grid <= 101:
        raise InputError(f"grid: {grid!r} must be an integer from 1 to 101")
    return shape


def worst_delta(mech: Any, epsilon_prime: object, max_queries: int = 3, grid: int = 13, digits: int = 20) -> DeltaResult:
    """The largest exact δ(ε') the search finds over the structured pairs with up to ``max_queries`` queries."""
    shape = _check(mech, max_queries, grid)
    ep = to_fraction(epsilon_prime, "--epsilon-prime")
    if ep < 0:
        raise InputError(f"--epsilon-prime: {ep} must be >= 0")
    q, qn, _ = search_pair(shape, delta_score(float(ep)), max_queries, grid)
    return exact_delta(shape, q, qn, ep, digits)


def worst_epsilon_for_delta(mech: Any, delta: object, max_queries: int = 3, grid: int = 13, digits: int = 20) -> EpsilonResult:
    """The largest exact ε'(δ) (smallest ε' with δ(ε') <= ``delta``) the search finds over the structured pairs."""
    shape = _check(mech, max_queries, grid)
    d = check_delta_target(delta)
    q, qn, _ = search_pair(shape, epsilon_score(float(d)), max_queries, grid)
    return epsilon_for_delta(shape, q, qn, d, digits)
