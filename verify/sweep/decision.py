"""How a sweep decides a block of points: float64 screen, high-precision confirmation.

The rule and its margins are `verify.screen`'s (stated there once): a float64
|log r| <= ε - margin is inside; a point within the margin of ε (or NaN) is
re-evaluated at ``digits`` digits and placed by `verify.screen.classify`; a
point beyond ε + margin is a violation by float64, and the first ``cap`` of a
chunk (in grid order) are returned as `Candidate`s; the fold (`Tally.plus`)
re-evaluates them by `verify.ratio.privacy_ratio` (or
`verify.probabilities.mp_conditional`) in grid order until ``cap`` are listed
for the ε, so a grid of many chunks re-evaluates at most ``cap`` points per ε.
A listed point that the high-precision value puts inside is not a violation
and is counted in ``fast_path_disagreements`` (never seen so far; it would be a
fast-path bug).
The chunk's largest |log ratio| (float64, or the high-precision value where
one was computed) is re-evaluated at high precision as its witness.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import mpmath
import numpy as np

from verify.screen import Position, classify, float_margin
from verify.sweep.results import Candidate, Tally, Witness, WitnessKind


def near_bound(lr: np.ndarray, epsilon: Fraction) -> np.ndarray:
    """The points `decide` re-evaluates at high precision: |lr| within the float margin of ε, or NaN
    (callers that integrate the confirmations together ask for these first)."""
    eps = float(epsilon)
    margin = float_margin(eps)
    a = np.abs(lr)
    return np.isnan(a) | ((a > eps - margin) & (a <= eps + margin))


def decide(lr: np.ndarray, epsilon: Fraction, digits: int, cap: int, exact_lr: Callable[[int, int], mpmath.mpf],
           make_witness: Callable[[int, int, WitnessKind], Witness], points: int, refined_by_mpmath: int = 0,
           candidate: Callable[[int, int], Candidate] | None = None) -> Tally:
    """Decide a (pairs, columns) array ``lr`` of float64 log ratios (``points`` checked points, of
    which the fast path re-evaluated ``refined_by_mpmath`` rows by mpmath).

    ``exact_lr(r, c)``: the log ratio of point (r, c) at ``digits`` digits;
    ``make_witness(r, c, kind)``: its confirmed `Witness`;
    ``candidate(r, c)``: the point as an unconfirmed `Candidate` (None: violations are confirmed here).
    """
    eps = float(epsilon)
    margin = float_margin(eps)
    a = np.abs(lr)
    nan = np.isnan(a)
    ambiguous = near_bound(lr, epsilon)
    clear = (a > eps + margin) & ~nan
    decided = np.where(nan, -np.inf, a)
    near = at_bound = violation_count = disagreements = listed = 0
    at_bound_example: Witness | None = None
    violations: list[Witness] = []
    candidates: list[Candidate] = []
    places: dict[mpmath.mpf, Position] = {}
    flagged = sorted(zip(*np.nonzero(ambiguous | clear)))
    for r, c in flagged:
        r, c = int(r), int(c)
        if ambiguous[r, c]:
            near += 1
            exact = exact_lr(r, c)
            decided[r, c] = float(abs(exact))
            place = places.get(exact)  # rows sharing an integral pair share the value: placed once
            if place is None:
                place = places[exact] = classify(exact, epsilon, digits)
            if place is Position.AT_BOUND:
                at_bound += 1
                if at_bound_example is None:
                    at_bound_example = make_witness(r, c, WitnessKind.AT_BOUND)
                continue
            if place is Position.INSIDE:
                continue
        violation_count += 1
        if listed < cap and candidate is not None:
            candidates.append(candidate(r, c))
            listed += 1
        elif listed < cap:
            w = make_witness(r, c, WitnessKind.VIOLATION)
            listed += 1
            if classify(w.abs_log_ratio, epsilon, digits) is not Position.VIOLATION:
                violation_count -= 1
                disagreements += 1
                continue
            violations.append(w)
    witness = None
    if decided.size:
        r, c = np.unravel_index(int(np.argmax(decided)), decided.shape)
        witness = make_witness(int(r), int(c), WitnessKind.WITNESS)
    return Tally(points=points, violation_count=violation_count, violations=tuple(violations), near_bound_reevaluated=near,
                 at_bound=at_bound, at_bound_example=at_bound_example, fast_path_disagreements=disagreements,
                 refined_by_mpmath=refined_by_mpmath, witness=witness, candidates=tuple(candidates))
