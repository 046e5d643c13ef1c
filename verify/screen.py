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
"""

from __future__ import annotations

from enum import StrEnum

import mpmath

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


def classify(abs_log_ratio: mpmath.mpf, epsilon: object, digits: int) -> Position:
    """Place a confirmed |log ratio| (±inf allowed) against ε with `confirm_tolerance`."""
    with mpmath.workdps(digits + 10):
        eps = mpmath.mpf(epsilon) if not hasattr(epsilon, "denominator") else mpmath.mpf(epsilon.numerator) / epsilon.denominator
        tol = confirm_tolerance(epsilon, digits)
        a = abs(abs_log_ratio)
        if a > eps + tol:
            return Position.VIOLATION
        if abs(a - eps) <= tol:
            return Position.AT_BOUND
    return Position.INSIDE
