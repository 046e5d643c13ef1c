"""Report Noisy Max with discrete Laplace noise: exact index probabilities as sums over ℤ (docs/selection.md).

Integer scores s (and integer Δ), X_j i.i.d. DLap(b) on ℤ (`verify.noise.discrete_laplace`: Pr[X = x] =
(1 − r)/(1 + r)·r^{|x|}, r = e^{−1/b}).  Noisy scores are integers, so ties have positive mass, and the reported
index depends on the tie rule (`verify.selection.model.TieRule`):

* ``first`` (every source modelled: numpy's ``argmax`` returns the first maximum, DP-Sniper's and StatDP's
  programs; CheckDP ``examples/noisymax.c`` line 14 replaces the leader only on a strict ``>``): i wins iff
  s_i + X_i > s_j + X_j for every j < i and >= for every j > i;
* ``last``: the reverse.

With F(m) = Pr[X < m] and Pr[X <= m] = F(m + 1), conditioning on the winner's noisy score z ∈ ℤ:

    Pr[i] = Σ_z p(z − s_i) Π_{j<i} F(z − s_j) Π_{j>i} F(z − s_j + 1)          (first)

(the two products swap their +1 for ``last``).  The sum runs over z in [min s − W, max s + W] with
W = ⌈b·((digits + 5)·ln 10 + k·ln 2 + 5)⌉: beyond the window every term is at most p(z − s_i) <= r^{|z − s_i|},
a geometric tail of total at most r^W/(1 − r), and near max s the products are at least 2^{−k}, so the cut is
below 10^{−(digits+5)} of Pr[i].  All in mpmath under `MPMATH_LOCK` at digits + 10.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import mpmath
import numpy as np
from scipy.special import logsumexp

from verify.precision import MPMATH_LOCK


def window(s: Sequence[int], b: float, k: int, digits: int) -> tuple[int, int]:
    """The summation range of the module docstring."""
    w = math.ceil(b * ((digits + 5) * math.log(10) + k * math.log(2) + 5)) + 1
    return min(s) - w, max(s) + w


def mp_discrete_index_probabilities(law: Any, s: Sequence[int], b: Any, digits: int, which: Sequence[int],
                                    first: bool = True) -> list[Any]:
    """Pr[i] for i in ``which`` (0-based) at integer effective scores ``s``, to ``digits`` digits."""
    k = len(s)
    with MPMATH_LOCK, mpmath.workdps(digits + 10):
        bm = mpmath.mpf(b.numerator) / b.denominator if hasattr(b, "numerator") else mpmath.mpf(b)
        lo, hi = window(s, float(bm), k, digits)
        zs = range(lo, hi + 1)
        f = {m: law.mp_s(1 - m, bm) for m in range(lo - max(s), hi - min(s) + 2)}  # F(m) = S(1 − m)
        out = []
        for i in which:
            total = mpmath.mpf(0)
            for z in zs:
                term = law.mp_pdf(mpmath.mpf(z - s[i]), bm)
                for j in range(k):
                    if j != i:
                        strict = (j < i) == first
                        term *= f[z - s[j]] if strict else f[z - s[j] + 1]
                total += term
            out.append(total)
        return out


def fast_discrete_index_logs(law: Any, s: np.ndarray, b: float, first: bool = True) -> tuple[np.ndarray, float]:
    """log Pr[i] for every i in float64: the same sum, in log space over the window at 17 digits (the cut is below
    1e-22 of each Pr[i]); the error estimate is the rounding of k·(window) terms, 1e-15·log of the count."""
    k = len(s)
    lo, hi = window([int(x) for x in s], b, k, 17)
    z = np.arange(lo, hi + 1, dtype=float)
    d = z[:, None] - s[None, :]
    log_lt = law.log_cdf(d, b)          # log Pr[X < z − s_j]
    log_le = law.log_cdf(d + 1, b)      # log Pr[X <= z − s_j]
    log_p = law.log_pdf(d, b)
    # prefix/suffix sums: for i, Σ_{j<i} (strict if first) + Σ_{j>i} (weak if first)
    a, c = (log_lt, log_le) if first else (log_le, log_lt)
    before = np.concatenate([np.zeros((len(z), 1)), np.cumsum(a, axis=1)[:, :-1]], axis=1)
    after = np.concatenate([np.cumsum(c[:, ::-1], axis=1)[:, ::-1][:, 1:], np.zeros((len(z), 1))], axis=1)
    out = logsumexp(log_p + before + after, axis=0)
    return out, 1e-15 * (1 + math.log(len(z) * k))
