"""δ(ε′) of Report Noisy Max's index, exact (docs/selection.md, "δ(ε′)").

For an ordered pair (D, D′) with index laws P and P′ (k outcomes, `mp_index_probabilities`),

    δ_{D→D′}(ε′) = Σ_i max(0, P_i − e^{ε′}·P′_i),

an exact finite sum over the k indices; both directions are computed and the larger is reported
(Dwork and Roth 2014, Def. 2.4 read on a finite outcome space).  The smallest ε′ with δ(ε′) ≤ D:
δ_{D→D′} is non-increasing and, between consecutive log ratios r_i = log(P_i/P′_i), equal to
A − e^{ε′}·B with A, B the sums of P_i, P′_i over the i with r_i > ε′; so ε′ = log((A − D)/B) on the
piece where that value lies (0 if δ(0), the total variation distance, is already ≤ D).

The released value and the gap have densities: δ there is an integral over the value, which this
module does not compute (refused in one line).

The search (`worst_delta_pair`): the layouts of `verify.selection.search` (s_1 = 0, the other k − 1
scores equal to d, the corner neighbour), d on a grid refined by a bounded scalar search, maximising
the float64 δ(ε′) of both directions; the best pair is recomputed exactly.  A lower bound on the
mechanism's δ(ε′), as for the Sparse Vector search.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
from scipy.optimize import minimize_scalar

from verify.errors import InputError
from verify.exact import check_neighbours, fmt
from verify.precision import MPMATH_LOCK
from verify.selection.fast import fast_index_log_probabilities
from verify.selection.model import ReportNoisyMax, SelectionOutput
from verify.selection.probability import mp_index_probabilities
from verify.selection.search import corners

#: The largest number of scores the δ search takes.
MAX_DELTA_SCORES = 10


def refuse_unless_index(mech: ReportNoisyMax) -> None:
    """δ is computed for the index only (module docstring)."""
    if mech.output is not SelectionOutput.INDEX:
        raise InputError(f"--variant {mech.name}: releases the {mech.output.value}, a density; δ(ε') of a released value "
                         "is an integral this release does not compute (the index's δ is computed exactly)")


@dataclass(frozen=True)
class SelectionDelta:
    """δ(ε′) (or ε′ at a target δ) of a pair, both directions, exact (mpf at ``digits``)."""

    mechanism: ReportNoisyMax
    queries: tuple[Fraction, ...]
    neighbour: tuple[Fraction, ...]
    epsilon_prime: Any
    delta: Any
    forward: Any   # δ_{D→D'}
    backward: Any  # δ_{D'→D}
    digits: int
    target: Fraction | None = None

    def to_json(self) -> dict[str, Any]:
        def s(x: Any) -> str:
            return "inf" if mpmath.isinf(x) else mpmath.nstr(x, self.digits)
        return {"mechanism": self.mechanism.to_json(), "queries": [fmt(x) for x in self.queries],
                "neighbour_queries": [fmt(x) for x in self.neighbour], "epsilon_prime": s(self.epsilon_prime),
                "delta": s(self.delta), "delta_forward": s(self.forward), "delta_backward": s(self.backward),
                "delta_target": None if self.target is None else fmt(self.target), "digits": self.digits,
                "outcomes": "the k indices (exact sum)"}


def _laws(mech: ReportNoisyMax, q: Sequence[object], qn: Sequence[object], digits: int) -> tuple[list[Any], list[Any]]:
    refuse_unless_index(mech)
    a, b = mech.check_queries(q), mech.check_queries(qn, "neighbour queries")
    check_neighbours(a, b, mech.sensitivity)
    return mp_index_probabilities(mech, a, digits + 5), mp_index_probabilities(mech, b, digits + 5)


def _delta(p: Sequence[Any], pn: Sequence[Any], ep: Any) -> Any:
    e = mpmath.exp(ep)
    return mpmath.fsum(max(mpmath.mpf(0), x - e * y) for x, y in zip(p, pn))


def _epsilon_for(p: Sequence[Any], pn: Sequence[Any], target: Any) -> Any:
    """The smallest ε′ >= 0 with Σ max(0, P_i − e^{ε′}P′_i) <= target (module docstring); +inf if none."""
    if _delta(p, pn, mpmath.mpf(0)) <= target:
        return mpmath.mpf(0)
    inf_mass = mpmath.fsum(x for x, y in zip(p, pn) if y == 0 and x > 0)
    if inf_mass > target:
        return mpmath.inf
    ratios = sorted({mpmath.log(x / y) for x, y in zip(p, pn) if x > 0 and y > 0 and x > y}, reverse=True)
    for lo in [*ratios[1:], mpmath.mpf(0)]:  # pieces (lo, hi] from the top down
        a = inf_mass + mpmath.fsum(x for x, y in zip(p, pn) if y > 0 and x > 0 and mpmath.log(x / y) > lo)
        b = mpmath.fsum(y for x, y in zip(p, pn) if y > 0 and x > 0 and mpmath.log(x / y) > lo)
        if a - mpmath.exp(lo) * b > target:  # δ(lo) > target: the answer lies in (lo, next ratio]
            return mpmath.log((a - target) / b)
    return mpmath.mpf(0)


def pair_delta(mech: ReportNoisyMax, queries: Sequence[object], neighbour: Sequence[object], epsilon_prime: object,
               digits: int = 20) -> SelectionDelta:
    """δ(ε′) of the pair in both directions, exact to ``digits`` digits (the larger is ``delta``)."""
    ep = Fraction(str(epsilon_prime)) if not isinstance(epsilon_prime, Fraction) else epsilon_prime
    if ep < 0:
        raise InputError(f"epsilon prime: {fmt(ep)} must be >= 0")
    with MPMATH_LOCK, mpmath.workdps(digits + 10):
        p, pn = _laws(mech, queries, neighbour, digits)
        e = mpmath.mpf(ep.numerator) / ep.denominator
        f, b = _delta(p, pn, e), _delta(pn, p, e)
        return SelectionDelta(mech, mech.check_queries(queries), mech.check_queries(neighbour), e, max(f, b), f, b, digits)


def pair_epsilon_for_delta(mech: ReportNoisyMax, queries: Sequence[object], neighbour: Sequence[object], delta: object,
                           digits: int = 20) -> SelectionDelta:
    """The smallest ε′ with δ(ε′) <= ``delta`` in both directions (the larger of the two ε′)."""
    d = delta if isinstance(delta, Fraction) else Fraction(str(delta))
    if not 0 <= d <= 1:
        raise InputError(f"delta: {fmt(d)} must be in [0, 1]")
    with MPMATH_LOCK, mpmath.workdps(digits + 10):
        p, pn = _laws(mech, queries, neighbour, digits)
        t = mpmath.mpf(d.numerator) / d.denominator
        ef, eb = _epsilon_for(p, pn, t), _epsilon_for(pn, p, t)
        ep = max(ef, eb)
        at = max(_delta(p, pn, ep), _delta(pn, p, ep)) if mpmath.isfinite(ep) else t
        return SelectionDelta(mech, mech.check_queries(queries), mech.check_queries(neighbour), ep, at,
                              _delta(p, pn, ep) if mpmath.isfinite(ep) else ef, _delta(pn, p, ep) if mpmath.isfinite(ep) else eb,
                              digits, d)


def _fast_delta(mech: ReportNoisyMax, scores: list[Fraction], corner: list[Fraction], ep: float) -> float:
    lp = fast_index_log_probabilities(mech, _signed(mech, scores))[0]
    ln = fast_index_log_probabilities(mech, _signed(mech, corner))[0]
    p, pn = np.exp(lp), np.exp(ln)
    e = math.exp(ep)
    return float(max(np.maximum(p - e * pn, 0).sum(), np.maximum(pn - e * p, 0).sum()))


def _signed(mech: ReportNoisyMax, scores: list[Fraction]) -> tuple[Fraction, ...]:
    return tuple(scores) if mech.optimize.value == "max" else tuple(-x for x in scores)


def _decimal(x: float) -> Fraction:
    return Fraction(f"{x:.6f}")


def worst_delta_pair(mech: ReportNoisyMax, epsilon_prime: object, max_queries: int = 4) -> tuple[tuple[Fraction, ...], tuple[Fraction, ...]]:
    """The pair of the structured layouts with the largest float64 δ(ε′) (module docstring)."""
    refuse_unless_index(mech)
    if isinstance(max_queries, bool) or not isinstance(max_queries, int) or not 1 <= max_queries <= MAX_DELTA_SCORES:
        raise InputError(f"max queries: {max_queries!r} must be an integer from 1 to {MAX_DELTA_SCORES}")
    ep = float(Fraction(str(epsilon_prime)))
    b = float(mech.b)
    best = (-1.0, [Fraction(0)], [Fraction(0)])
    for k in range(2, max_queries + 1):
        def value(d: float, k: int = k) -> tuple[float, list[Fraction], list[Fraction]]:
            s = [Fraction(0), *[_decimal(d)] * (k - 1)]
            return max(((_fast_delta(mech, s, c, ep), s, c) for c in corners(mech, s)), key=lambda t: t[0])
        grid = np.linspace(-20 * b, 20 * b, 81)
        vals = [value(float(d))[0] for d in grid]
        d0 = float(grid[int(np.argmax(vals))])
        res = minimize_scalar(lambda d: -value(d)[0], bounds=(d0 - b / 2, d0 + b / 2), method="bounded",
                              options={"xatol": 1e-4 * b})
        cand = max(value(d0), value(float(res.x)), key=lambda t: t[0])
        if cand[0] > best[0]:
            best = cand
    return _signed(mech, best[1]), _signed(mech, best[2])
