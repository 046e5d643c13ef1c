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

from verify.jit_interrupts import hold_sigint_while_numba_compiles

hold_sigint_while_numba_compiles()  # Ctrl-C during a first compilation: delivered after it


@numba.njit(cache=True, nogil=True)
def _logaddexp(x: float, y: float) -> float:
    if x == y:
        return x + math.log(2.0)
    d = x - y
    if d > 0:
        return x + math.log1p(math.exp(-d))
    return y + math.log1p(math.exp(d))


@numba.njit(cache=True, nogil=True)
def variation_rows(edges: np.ndarray, a_sorted: np.ndarray, rate: float, lx: float, c: float) -> tuple[np.ndarray, np.ndarray]:
    """Per segment [lo, hi]: h·rate + λh·#{a_j >= hi} + c·Σ_{a_j <= lo} (e^{-λ(lo - a_j)} - e^{-λ(hi - a_j)})
    (`verify.engine.fast_plan.variation_bound`), the sum from a running log-sum over the sorted a_j.

    Returns (the variation of each segment, its front D = c·Σ_{a_j <= lo} e^{-λ(lo - a_j)}): the variation
    over [lo, lo + x] is at most ρx + D(1 - e^{-λx}), ρ the linear part, so the last term's share sits
    at the segment's left end (`panels_rows` grades the panels there)."""
    n, s1 = edges.shape
    k = a_sorted.shape[1]
    out = np.empty((n, s1 - 1))
    front = np.zeros((n, s1 - 1))
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
            front[r, s] = c * decay
    return out, front


@numba.njit(cache=True, nogil=True)
def _graded_edge(rho: float, front: float, lam: float, target: float, width: float) -> float:
    """The x in [0, width] with ρx + D(1 - e^{-λx}) = target (D = ``front``): Newton from
    target/(ρ + Dλ), below the root, for this increasing concave function each step stays below it."""
    slope0 = rho + front * lam
    x = target / slope0 if slope0 > 0 else width
    for _ in range(60):
        if x >= width:
            return width
        f = rho * x - front * math.expm1(-lam * x) - target
        d = rho + front * lam * math.exp(-lam * x)
        step = -f / d if d > 0 else 0.0
        x += step
        if not step > 1e-15 * (abs(x) + 1e-300):
            break
    return min(x, width)


@numba.njit(cache=True, nogil=True)
def panels_rows(edges: np.ndarray, variation: np.ndarray, per_panel_max: float, max_count: int,
                x: np.ndarray, wq: np.ndarray, front: np.ndarray, lam: float) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each segment of positive width cut into c = clip(ceil(variation/per_panel_max), 1, max_count)
    panels with the Gauss–Legendre nodes x and weights wq on [0, 1].

    The panels are equal where the segment's ``front`` D is 0.  Otherwise its variation over
    [lo, lo + y] is bounded by V(y) = ρy + D(1 - e^{-λy}) (ρ = (V(H) - D(1 - e^{-λH}))/H, H the
    width; `variation_rows`), concave in y, so equal panels would put most of D's share in the first
    one; the panels are cut where V takes the values V(H)·p/c instead, so that every panel's
    variation is at most V(H)/c (the figure the error estimate uses), as equal panels promise only
    when D = 0 (many queries at one kink: tests/test_family_long_vectors.py).  The same number of
    panels either way.

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
            width = edges[r, j + 1] - edges[r, j]
            h = width / c
            d = front[r, j]
            graded = c > 1 and d > 0 and lam > 0
            if graded:
                rho = max(0.0, (variation[r, j] + d * math.expm1(-lam * width)) / width)
            prev = 0.0
            for p in range(c):
                if graded:
                    nxt = width if p == c - 1 else _graded_edge(rho, d, lam, variation[r, j] * (p + 1) / c, width)
                    lo, h = edges[r, j] + prev, nxt - prev
                    prev = nxt
                else:
                    lo = edges[r, j] + p * h
                for q in range(m):
                    z[r, i] = lo + h * x[q]
                    w[r, i] = h * wq[q]
                    i += 1
        for t in range(i, pmax * m):
            z[r, t] = edges[r, 0]
    return z, w, per, total * m
