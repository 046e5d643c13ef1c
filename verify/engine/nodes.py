"""Row loops of the float64 node plan (numba): variation bounds and Gauss–Legendre panels.

The formulas are those of `verify.engine.fast_plan` (its docstrings state them and
their sources); these are their loops over the rows of (n, ·) arrays, compiled,
so a plan for one query vector costs microseconds rather than a few dozen numpy
calls.  `verify.engine.fast_plan.variation_bound` and `panels` call them; nothing
else should.
"""

from __future__ import annotations

import math

import numba
import numpy as np


@numba.njit(cache=True, nogil=True)
def _logaddexp(x: float, y: float) -> float:
    if x == y:
        return x + math.log(2.0)
    d = x - y
    if d > 0:
        return x + math.log1p(math.exp(-d))
    return y + math.log1p(math.exp(d))


@numba.njit(cache=True, nogil=True)
def variation_rows(edges: np.ndarray, a_sorted: np.ndarray, rate: float, lx: float, c: float) -> np.ndarray:
    """Per segment [lo, hi]: h·rate + λh·#{a_j >= hi} + c·Σ_{a_j <= lo} (e^{-λ(lo - a_j)} - e^{-λ(hi - a_j)})
    (`verify.engine.fast_plan.variation_bound`), the sum from a running log-sum over the sorted a_j."""
    n, s1 = edges.shape
    k = a_sorted.shape[1]
    out = np.empty((n, s1 - 1))
    for r in range(n):
        a = a_sorted[r]
        pre = np.empty(k + 1)  # pre[J] = log Σ_{j<J} e^{λ a_j}
        pre[0] = -np.inf
        for j in range(k):
            pre[j + 1] = lx * a[j] if j == 0 else _logaddexp(pre[j], lx * a[j])
        above_idx = 0  # first j with a_j >= hi
        below = 0  # number of a_j <= lo
        for s in range(s1 - 1):
            lo, hi = edges[r, s], edges[r, s + 1]
            h = hi - lo
            v = h * rate
            if lx == 0 or k == 0:
                out[r, s] = v
                continue
            while above_idx < k and a[above_idx] < hi:
                above_idx += 1
            while below < k and a[below] <= lo:
                below += 1
            decay = math.exp(pre[below] - lx * lo) if below > 0 else 0.0
            if not math.isfinite(decay) or decay > below:
                decay = float(below)
            out[r, s] = v + lx * h * (k - above_idx) + c * decay * -math.expm1(-lx * h)
    return out


@numba.njit(cache=True, nogil=True)
def panels_rows(edges: np.ndarray, variation: np.ndarray, per_panel_max: float, max_count: int,
                x: np.ndarray, wq: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each segment of positive width cut into c = clip(ceil(variation/per_panel_max), 1, max_count)
    equal panels with the Gauss–Legendre nodes x and weights wq on [0, 1].

    Returns z, w (n, N) (padding at each row's end: z = the row's first edge, w = 0), the largest
    per-panel variation of each row and the number of nodes of each row."""
    n, s = variation.shape
    m = x.shape[0]
    count = np.zeros((n, s), np.int64)
    total = np.zeros(n, np.int64)
    per = np.zeros(n)
    for r in range(n):
        for j in range(s):
            if edges[r, j + 1] - edges[r, j] > 0:
                c = np.ceil(variation[r, j] / per_panel_max)
                c = 1.0 if not c >= 1.0 else min(c, float(max_count))
                count[r, j] = int(c)
                total[r] += int(c)
                per[r] = max(per[r], variation[r, j] / c)
    pmax = total.max() if n else 0
    z = np.empty((n, pmax * m))
    w = np.zeros((n, pmax * m))
    for r in range(n):
        i = 0
        for j in range(s):
            c = count[r, j]
            if c == 0:
                continue
            h = (edges[r, j + 1] - edges[r, j]) / c
            for p in range(c):
                lo = edges[r, j] + p * h
                for q in range(m):
                    z[r, i] = lo + h * x[q]
                    w[r, i] = h * wq[q]
                    i += 1
        for t in range(i, pmax * m):
            z[r, t] = edges[r, 0]
    return z, w, per, total * m
