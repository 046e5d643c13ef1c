"""Screen in float64, confirm at high precision: the margins and the decision rule.

Every numerical check of an inequality |log r| <= ε in svt-verify (the grid
sweeps of `verify.sweep`, the worst-case search of `verify.worstcase`, the
claim sweeps of `proofs.sweeps`) follows one rule, stated here once:

* float64 screening: the fast path (`verify.probabilities.fast_log_distribution`)
  promises relative error <= 1e-11 per probability, so a float64 log ratio is
  within ~2e-11 of the truth.  A point with |log r| <= ε - `float_margin`(ε)
  (margin 1e-9·max(1, ε), 50 times the error) is decided inside by float64;
  anything closer to or beyond the bound is re-evaluated.
* high-precision confirmation at ``digits`` significant digits (mpmath): each
  probability is correct to ``digits`` digits, so the log ratio to about
  10^-(digits-1); the confirmed value is a violation if |log r| > ε + tol, at
  the bound if ||log r| - ε| <= tol, inside otherwise, with
  tol = `confirm_tolerance`(ε, digits) = 10^-(digits-5)·max(1, ε).

The engine: `screen` takes the float64 margins bound - |log r| of a batch of
points and returns the worst point and the candidates for a violation (margin
below -`float_margin`), most violating first; `first_violation` confirms
candidates at high precision and returns the first that `classify` places
beyond the bound.  `verify.sweep` decides whole grids with it (plus the
near-bound re-evaluation of `verify.sweep.decision`); `proofs.sweeps` screens
its sampled sweeps with it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from typing import Generic, TypeVar

import mpmath
import numpy as np

P = TypeVar("P")
R = TypeVar("R")

#: Relative float64 margin below ε above which a point is re-evaluated at high precision.
FLOAT_MARGIN = 1e-9


class Position(StrEnum):
    """Where a confirmed |log ratio| lies relative to ε (not a verdict: a point's place)."""

    INSIDE = "inside"
    AT_BOUND = "at_bound"
    VIOLATION = "violation"


def float_margin(epsilon: float) -> float:
    """The float64 screening margin 1e-9·max(1, ε) (see the module docstring)."""
    return FLOAT_MARGIN * max(1.0, epsilon)


def confirm_tolerance(epsilon: object, digits: int) -> mpmath.mpf:
    """tol = 10^-(digits-5)·max(1, ε): a value confirmed at ``digits`` digits
    within tol of the bound cannot be told apart from it.  Computed at the
    caller's working precision (callers hold ``mpmath.workdps(digits + 10)`` or more).

    >>> with mpmath.workdps(40):
    ...     print(mpmath.nstr(confirm_tolerance(2, 30), 5))
    2.0e-25
    """
    eps = mpmath.mpf(epsilon) if not hasattr(epsilon, "denominator") else mpmath.mpf(epsilon.numerator) / epsilon.denominator
    return mpmath.mpf(10) ** (-(digits - 5)) * max(1, eps)


@lru_cache(maxsize=256, typed=True)
def _bound_and_tolerance(epsilon: object, digits: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(ε, `confirm_tolerance`(ε, digits)) as `classify` uses them, at digits + 10 digits: a pure function
    of its arguments (mpf values are immutable), computed once per (ε, digits) in a process, since a
    sweep classifies thousands of confirmed points against the same bound."""
    with mpmath.workdps(digits + 10):
        eps = mpmath.mpf(epsilon) if not hasattr(epsilon, "denominator") else mpmath.mpf(epsilon.numerator) / epsilon.denominator
        return eps, confirm_tolerance(epsilon, digits)


def classify(abs_log_ratio: mpmath.mpf, epsilon: object, digits: int) -> Position:
    """Place a confirmed |log ratio| (±inf allowed) against ε with `confirm_tolerance`."""
    try:
        eps, tol = _bound_and_tolerance(epsilon, digits)
    except TypeError:  # an unhashable ε (never passed by the library): computed here
        eps, tol = _bound_and_tolerance.__wrapped__(epsilon, digits)
    with mpmath.workdps(digits + 10):
        a = abs(abs_log_ratio)
        if a > eps + tol:
            return Position.VIOLATION
        if abs(a - eps) <= tol:
            return Position.AT_BOUND
    return Position.INSIDE


@dataclass(frozen=True)
class Screen:
    """The float64 screen of a batch: ``worst`` (flat index of the smallest margin), its margin,
    and ``candidates``: flat indices whose margin is below -`float_margin`, most violating first
    (ties in index order).  NaN margins count as -inf: a point float64 cannot evaluate is never
    passed as inside."""

    worst: int
    worst_margin: float
    candidates: np.ndarray
    points: int


def screen(margin: np.ndarray, scale: np.ndarray | float = 1.0) -> Screen:
    """Screen float64 margins (bound - |log r|); ``scale`` is the bound's size (ε for |log r| <= ε),
    so that a candidate is beyond the bound by more than 1e-9·max(1, scale).

    >>> s = screen(np.array([0.5, -1e-12, -0.25, np.nan]), 1.0)
    >>> s.worst, s.candidates.tolist()
    (3, [3, 2])
    """
    m = np.asarray(margin, dtype=float).ravel()
    m = np.where(np.isnan(m), -np.inf, m)
    limit = FLOAT_MARGIN * np.maximum(1.0, np.abs(np.broadcast_to(np.asarray(scale, dtype=float), np.shape(margin)).ravel()))
    bad = np.nonzero(m < -limit)[0]
    order = bad[np.argsort(m[bad], kind="stable")]
    worst = int(np.argmin(m)) if m.size else -1
    return Screen(worst, float(m[worst]) if m.size else float("inf"), order, int(m.size))


@dataclass(frozen=True)
class Confirmed(Generic[R]):
    """A point with its |log ratio| at high precision and where that lies against the bound."""

    point: R
    abs_log_ratio: mpmath.mpf
    position: Position


def first_violation(candidates: Iterable[P], confirm: Callable[[P], tuple[R, mpmath.mpf, object]], digits: int,
                    limit: int = 5) -> Confirmed[R] | None:
    """Confirm up to ``limit`` candidates in order and return the first that `classify` places beyond
    its bound, or None.  ``confirm(candidate)`` returns (the confirmed point, its log ratio at
    ``digits`` digits, the bound ε it is checked against)."""
    for j, candidate in enumerate(candidates):
        if j >= limit:
            break
        point, lr, epsilon = confirm(candidate)
        with mpmath.workdps(digits + 10):
            a = abs(lr)
        place = classify(a, epsilon, digits)
        if place is Position.VIOLATION:
            return Confirmed(point, a, place)
    return None
