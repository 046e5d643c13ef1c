"""The structured worst-case search of Report Noisy Max (docs/selection.md, "The search").

Work in effective scores s (the queries, negated for ``min``) and report index 1 (the scores are
exchangeable, so any reported index is index 1 after relabelling).

* Which neighbour.  Pr[i] increases in s_i and decreases in every s_j, j ≠ i (the event
  {s_i + X_i > s_j + X_j for all j ≠ i} grows with s_i and shrinks with s_j).  So for a fixed base s,
  log Pr[i | s] − log Pr[i | s'] over the box |s'_j − s_j| <= Δ is largest at the corner
  s'_i = s_i − Δ, s'_j = s_j + Δ; with monotone neighbours (all moves one way) at one of the two corners
  (s'_j = s_j + Δ for j ≠ i, s'_i = s_i) and (s'_i = s_i − Δ, the others unchanged).  The reverse
  order of a pair is the same pair read from the other side, so these corners are every worst
  neighbour: the search is exhaustive in the neighbour.
* Which base.  Not proven: the search takes s_1 = 0 and the other k − 1 scores equal to d, for
  k = 2..K and d on a grid of [−40b, 40b] refined by a bounded scalar search.  (Gumbel noise: the
  loss depends on s only through Σ_{j≠1} e^{s_j/b}, so this family of layouts covers every base.)
  tests/test_rnm_search.py checks it against a seeded random search over bases.
* The released value: base s = 0 (k scores), neighbour s' = s + Δ, the value v on a grid; for Laplace
  the density ratio below every score is exactly e^{kΔ/b} (every factor on its lower branch), so the
  loss at k scores is at least kΔ/b.
* The gap: k = 2, 3, base (0, d, .., d) with both corners, and the gap on a grid, in mpmath at 15
  digits (a density by quadrature).

Every candidate is evaluated in float64 (`verify.selection.fast`; the gap in mpmath); the best is
re-evaluated at 50 digits by `verify.selection.verdict`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np
from scipy.optimize import minimize_scalar

from verify.selection.fast import fast_index_log_probabilities, fast_value_log_density
from verify.selection.model import Optimize, ReportNoisyMax, SelectionOutput
from verify.selection.probability import SelectionOutcome, mp_gap_density


@dataclass(frozen=True)
class Candidate:
    """A pair of neighbouring query vectors and an outcome, with its float64 log ratio (>= 0)."""

    queries: tuple[Fraction, ...]
    neighbour: tuple[Fraction, ...]
    outcome: SelectionOutcome
    loss: float


def _exact(x: float) -> Fraction:
    """A float as a short exact decimal (6 places): the witness must be exact and readable."""
    return Fraction(f"{x:.6f}")


def _queries(mech: ReportNoisyMax, scores: list[Fraction]) -> tuple[Fraction, ...]:
    """Queries whose effective scores are ``scores``."""
    return tuple(scores) if mech.optimize is Optimize.MAX else tuple(-x for x in scores)


def corners(mech: ReportNoisyMax, scores: list[Fraction]) -> list[list[Fraction]]:
    """The worst neighbours of ``scores`` for reported index 1 (module docstring)."""
    delta = mech.sensitivity
    if not mech.monotone:
        return [[scores[0] - delta, *[x + delta for x in scores[1:]]]]
    return [[scores[0], *[x + delta for x in scores[1:]]], [scores[0] - delta, *scores[1:]]]


def index_loss(mech: ReportNoisyMax, scores: list[Fraction]) -> tuple[float, list[Fraction]]:
    """The float64 loss of index 1 at base ``scores``, worst over the corners, and that corner."""
    base = fast_index_log_probabilities(mech, _queries(mech, scores))[0][0]
    best = (-math.inf, scores)
    for c in corners(mech, scores):
        loss = base - fast_index_log_probabilities(mech, _queries(mech, c))[0][0]
        if loss > best[0]:
            best = (loss, c)
    return best


def search_index(mech: ReportNoisyMax, max_queries: int) -> tuple[Candidate | None, dict[int, float]]:
    """The best pair for the index over k = 2..K (k = 1 reports index 1 always: loss 0)."""
    b = float(mech.b)
    best: Candidate | None = None
    by_k: dict[int, float] = {1: 0.0}
    if mech.law.discrete:
        return _search_discrete_index(mech, max_queries)
    for k in range(2, max_queries + 1):
        def loss_at(d: float, k: int = k) -> float:
            return index_loss(mech, [Fraction(0), *[_exact(d)] * (k - 1)])[0]
        grid = np.linspace(-40 * b, 40 * b, 161)
        values = [loss_at(d) for d in grid]
        d0 = float(grid[int(np.argmax(values))])
        res = minimize_scalar(lambda d: -loss_at(d), bounds=(d0 - b / 2, d0 + b / 2), method="bounded",
                              options={"xatol": 1e-6 * b})
        d_best = float(res.x) if -res.fun > max(values) else d0
        scores = [Fraction(0), *[_exact(d_best)] * (k - 1)]
        loss, corner = index_loss(mech, scores)
        by_k[k] = loss
        if best is None or loss > best.loss:
            best = Candidate(_queries(mech, scores), _queries(mech, corner), SelectionOutcome(SelectionOutput.INDEX, 0), loss)
    return best, by_k


def _discrete_loss(mech: ReportNoisyMax, scores: list[Fraction], pos: int) -> tuple[float, list[Fraction]]:
    """The float64 loss of the index at ``pos``, worst over its corners (the reported score down by Δ, the others up)."""
    delta = mech.sensitivity
    down = [x - delta if j == pos else x for j, x in enumerate(scores)]
    up = [x if j == pos else x + delta for j, x in enumerate(scores)]
    both = [x - delta if j == pos else x + delta for j, x in enumerate(scores)]
    base = fast_index_log_probabilities(mech, _queries(mech, scores))[0][pos]
    best = (-math.inf, scores)
    for c in ([down, up] if mech.monotone else [both]):
        loss = base - fast_index_log_probabilities(mech, _queries(mech, c))[0][pos]
        if loss > best[0]:
            best = (loss, c)
    return best


def _search_discrete_index(mech: ReportNoisyMax, max_queries: int) -> tuple[Candidate | None, dict[int, float]]:
    """Discrete noise: ties have mass, so the scores are not exchangeable under the tie rule; the reported index is
    put first and last, the other k − 1 scores equal to an integer d in [−D, D], D = min(⌈40b⌉, 200) (every integer)."""
    span = min(math.ceil(40 * float(mech.b)), 200)
    best: Candidate | None = None
    by_k: dict[int, float] = {1: 0.0}
    for k in range(2, max_queries + 1):
        top = None
        for pos in (0, k - 1):
            for d in range(-span, span + 1):
                scores = [Fraction(d)] * k
                scores[pos] = Fraction(0)
                loss, corner = _discrete_loss(mech, scores, pos)
                if top is None or loss > top.loss:
                    top = Candidate(_queries(mech, scores), _queries(mech, corner), SelectionOutcome(SelectionOutput.INDEX, pos), loss)
        by_k[k] = top.loss
        if best is None or top.loss > best.loss:
            best = top
    return best, by_k


def search_value(mech: ReportNoisyMax, max_queries: int) -> tuple[Candidate | None, dict[int, float]]:
    """The best pair for the released value over k = 1..K: base 0, every score up by Δ, v on a grid."""
    b, delta = float(mech.b), mech.sensitivity
    grid = sorted({*np.linspace(-20 * b, 20 * b, 161).tolist(), float(delta) / 2, -b - float(delta)})
    best: Candidate | None = None
    by_k: dict[int, float] = {}
    for k in range(1, max_queries + 1):
        s = [Fraction(0)] * k
        t = [delta] * k
        q, qn = _queries(mech, s), _queries(mech, t)
        top = (-math.inf, 0.0)
        for v in grid:
            a, c = fast_value_log_density(mech, q, v), fast_value_log_density(mech, qn, v)
            if a == -math.inf and c == -math.inf:
                continue
            loss = abs(a - c)
            if loss > top[0]:
                top = (loss, v)
        by_k[k] = top[0]
        outcome = SelectionOutcome(SelectionOutput.VALUE, value=_exact(top[1]))
        if best is None or top[0] > best.loss:
            best = Candidate(q, qn, outcome, top[0])
    return best, by_k


#: The gap search's grids (in units of b): the runner-ups' offset and the gap.
GAP_OFFSETS = (-2.0, 0.0, 2.0)
GAP_VALUES = (0.25, 1.0, 4.0)


def search_gap(mech: ReportNoisyMax, max_queries: int) -> tuple[Candidate | None, dict[int, float]]:
    """The best pair for (index 1, gap) over k = 2..min(K, 3) on the grids above (mpmath, 15 digits)."""
    b = mech.b
    best: Candidate | None = None
    by_k: dict[int, float] = {}
    for k in range(2, min(max_queries, 3) + 1):
        top: Candidate | None = None
        for d in GAP_OFFSETS:
            scores = [Fraction(0), *[_exact(d * float(b))] * (k - 1)]
            for corner in corners(mech, scores):
                q, qn = _queries(mech, scores), _queries(mech, corner)
                for g in GAP_VALUES:
                    gap = _exact(g * float(b))
                    a = mp_gap_density(mech, q, 0, gap, 15)
                    c = mp_gap_density(mech, qn, 0, gap, 15)
                    loss = math.inf if (a == 0) != (c == 0) else (0.0 if a == 0 else abs(float(mpmath.log(a) - mpmath.log(c))))
                    if top is None or loss > top.loss:
                        top = Candidate(q, qn, SelectionOutcome(SelectionOutput.GAP, 0, gap), loss)
        by_k[k] = top.loss
        if best is None or top.loss > best.loss:
            best = top
    return best, by_k


def structured_search(mech: ReportNoisyMax, max_queries: int) -> tuple[Candidate | None, dict[int, float]]:
    """The search for the mechanism's output."""
    if mech.output is SelectionOutput.INDEX:
        return search_index(mech, max_queries)
    if mech.output is SelectionOutput.VALUE:
        return search_value(mech, max_queries)
    return search_gap(mech, max_queries)
