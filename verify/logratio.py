"""The one rule for a log ratio of two probabilities: both zero -> 0, one zero -> ±inf.

An outcome impossible on both sides cannot tell D from D' (log ratio 0); possible on one side only, it
tells them apart for certain (±inf).  `log_ratio` reads two mpmath probabilities, `log_ratio_from_logs`
two float64 logs.  The rule sits below the engine so that the independent oracles (`verify.oracles`)
and `verify.ratio` share it without the oracles importing the engine; `verify.ratio` re-exports both.
"""

from __future__ import annotations

import mpmath
import numpy as np


def log_ratio(p: mpmath.mpf, p_neighbour: mpmath.mpf) -> mpmath.mpf:
    """log(p / p'), with 0/0 -> 0, x/0 -> +inf, 0/x -> -inf."""
    if p == 0 and p_neighbour == 0:
        return mpmath.mpf(0)
    if p_neighbour == 0:
        return mpmath.inf
    if p == 0:
        return mpmath.ninf
    # the quotient first: p and p' correct to D digits give p/p' to about D digits, whatever their size,
    # whereas log p - log p' cancels the digits of log p (50 of them when p = e^{-1e50})
    return mpmath.log(p / p_neighbour)


def log_ratio_from_logs(log_p: np.ndarray | float, log_p_neighbour: np.ndarray | float) -> np.ndarray:
    """log p - log p' in float64 from the two logs, with the same conventions as
    `log_ratio`: both probabilities zero (both logs -inf) -> 0, one zero -> ±inf.

    >>> log_ratio_from_logs(np.array([-np.inf, -np.inf, 0.0]), np.array([-np.inf, 0.0, -np.inf])).tolist()
    [0.0, -inf, inf]
    """
    a = np.asarray(log_p, dtype=float)
    b = np.asarray(log_p_neighbour, dtype=float)
    with np.errstate(invalid="ignore"):
        out = a - b
    return np.where(np.isneginf(a) & np.isneginf(b), 0.0, out)
