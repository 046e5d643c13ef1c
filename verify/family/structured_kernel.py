"""The float64 structured evaluator's node loop, compiled (numba): `verify.family.structured._segment_points`'s
quadrature for Laplace and exponential noise, one row (one point) at a time.

For one point (u, v, r) with panel edges e_0 < ... < e_S (`_segment_points`: the kinks and the tails) and the
Gauss–Legendre rule (t_q, log ω_q) of its sub-panel count on [0, 1], the value is

    log Σ_{j, q} exp(f(z_jq) + log w_j + log ω_q),   z_jq = e_j + w_j·t_q,  w_j = e_{j+1} - e_j,
    f(z) = log p_Z(z) + n_B·log F(z - u) + n_A·log G(z) (+ log [z <= r] when the released value caps Z),

G = S(z - v) (a released query or none) or p_X(r + z - v) (a gap), shifted by the largest term
(`verify.family.structured._logsumexp`).  Every operation is the one numpy performs there, in the same
order, with the C library's exp, log, log1p and expm1, and the sum is numpy's pairwise summation
(`_pairwise`: blocks of eight partial sums up to 128 terms, halves rounded down to a multiple of 8 above):
so every value is the numpy path's, bit for bit, wherever numpy's float64 loops for those four functions
are the C library's too (tests/test_structured_kernel.py compares them on every kind of call the family
table makes).  On a CPU with AVX-512, numpy dispatches loops of its own for them, which differ from libm in
the last bit on a few per cent of arguments; there the two paths' values can differ by a few units in the
last place (the tests compare the bits in a child process with numpy's AVX-512 loops turned off).  No
fastmath: reassociation would change the bits.

The noise laws' formulas are those of `verify.noise.laplace`, `verify.noise.exponential` and
`verify.noise.none` (y = x/b):

* Laplace (``LAPLACE``): log F = y + log ½ (y < 0), log1p(-½e^{-y}) (else); log S = log1p(-½e^{y}) (y < 0),
  log ½ - y (else); log p = -log(2b) - |x|/b;
* exponential (``EXPONENTIAL``): log F = log(-expm1(-y)) (y > 0), -inf (else); log S = -y (y > 0), 0 (else);
  log p = -log b - x/b (x >= 0), -inf (else);
* none (``NONE``, query noise only): log F = 0 (x > 0), -inf (else); log S = 0 (x <= 0), -inf (else).

This module imports nothing of the project but `verify.jit_interrupts` (Ctrl-C during its compilation; base
layer); numba
is loaded only by the callers that need it.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from verify.jit_interrupts import hold_sigint_while_numba_compiles

hold_sigint_while_numba_compiles()  # Ctrl-C during a first compilation: delivered after it

LAPLACE, EXPONENTIAL, NONE = 0, 1, 2
#: The above letter's factor G: none, the survival function S(z - v), the density p_X(r + z - v) (a gap).
NO_TERM, SURVIVAL, DENSITY = 0, 1, 2
_LOG_HALF = -math.log(2.0)
#: numpy's pairwise summation: a block of at most this many terms is summed with eight partial sums.
_PW_BLOCK = 128


@numba.njit(cache=True, nogil=True)
def _block_sum(a: np.ndarray, lo: int, n: int) -> float:
    """numpy's sum of a block of at most `_PW_BLOCK` terms: in order below 8 terms, else eight partial sums."""
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[lo + i]
        return res
    r0, r1, r2, r3 = a[lo], a[lo + 1], a[lo + 2], a[lo + 3]
    r4, r5, r6, r7 = a[lo + 4], a[lo + 5], a[lo + 6], a[lo + 7]
    i = 8
    stop = n - n % 8
    while i < stop:
        r0 += a[lo + i]
        r1 += a[lo + i + 1]
        r2 += a[lo + i + 2]
        r3 += a[lo + i + 3]
        r4 += a[lo + i + 4]
        r5 += a[lo + i + 5]
        r6 += a[lo + i + 6]
        r7 += a[lo + i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[lo + i]
        i += 1
    return res


@numba.njit(cache=True, nogil=True)
def _pairwise(a: np.ndarray, n: int) -> float:
    """Σ a[:n] in numpy's order (`np.add.reduce` on a contiguous row, numpy's pairwise_sum): a block of at most
    `_PW_BLOCK` terms by `_block_sum`, a longer range as the sum of its first n2 terms and the rest, n2 = n/2
    rounded down to a multiple of 8.  The recursion runs on explicit stacks (numba's cache does not keep
    recursive functions reliably); the tree, and so every rounding, is numpy's."""
    los = np.empty(64, np.int64)
    ns = np.empty(64, np.int64)
    stage = np.empty(64, np.int64)
    vals = np.empty(64)
    top, nv = 0, 0
    los[0], ns[0], stage[0] = 0, n, 0
    while top >= 0:
        lo, m, st = los[top], ns[top], stage[top]
        top -= 1
        if m <= _PW_BLOCK:
            vals[nv] = _block_sum(a, lo, m)
            nv += 1
        elif st == 1:  # both halves done: left + right
            vals[nv - 2] = vals[nv - 2] + vals[nv - 1]
            nv -= 1
        else:
            m2 = m // 2
            m2 -= m2 % 8
            los[top + 1], ns[top + 1], stage[top + 1] = lo, m, 1
            los[top + 2], ns[top + 2], stage[top + 2] = lo + m2, m - m2, 0
            los[top + 3], ns[top + 3], stage[top + 3] = lo, m2, 0
            top += 3
    return vals[0]


@numba.njit(cache=True, nogil=True)
def _log_cdf(kind: int, x: float, b: float) -> float:
    if kind == LAPLACE:
        y = x / b
        if y < 0:
            return y + _LOG_HALF
        return math.log1p(math.exp(-y) * -0.5)
    if kind == EXPONENTIAL:
        y = x / b
        if y > 0:
            return math.log(-math.expm1(-y))
        return -np.inf
    return 0.0 if x > 0 else -np.inf


@numba.njit(cache=True, nogil=True)
def _log_sf(kind: int, x: float, b: float) -> float:
    if kind == LAPLACE:
        y = x / b
        if y < 0:
            return math.log1p(math.exp(y) * -0.5)
        return _LOG_HALF - y
    if kind == EXPONENTIAL:
        y = x / b
        if y > 0:
            return -y
        return 0.0
    return 0.0 if x <= 0 else -np.inf


@numba.njit(cache=True, nogil=True)
def _log_pdf(kind: int, x: float, b: float, c: float) -> float:
    """``c`` is the law's constant as numpy's path computes it: -log(2b) (Laplace), -log b (exponential)."""
    if kind == LAPLACE:
        return c - abs(x) / b
    if x >= 0:
        return c - x / b
    return -np.inf


@numba.njit(cache=True, nogil=True)
def _row_value(f: np.ndarray, e: np.ndarray, w: np.ndarray, nodes: np.ndarray, lwq: np.ndarray, sub: int,
               uu: float, vv: float, rr: float, n_b: int, n_a: int, a_term: int, caps: bool, z_kind: int, bz: float,
               cz: float, x_kind: int, bx: float, cx: float) -> float:
    """One point's value (module docstring): segments [e_j, e_j + w_j] of ``sub`` panels each, the rule's nodes
    on [0, 1] and the log weights of its 16 (``nodes.size``) nodes on one panel; ``f`` is scratch of the row's size."""
    nq = nodes.shape[0]
    fb, fa = float(n_b), float(n_a)
    top = -np.inf
    nan = False
    i = 0
    for j in range(e.shape[0]):
        ej, wj = e[j], w[j]
        lw = math.log(wj)
        for p in range(sub):
            for q in range(nq):
                z = ej + wj * ((p + nodes[q]) / sub)  # numpy: (arange(sub)[:, None] + nodes).reshape(-1) / sub
                acc = 0.0
                first = True
                if n_b:
                    g = _log_cdf(x_kind, z - uu, bx)
                    acc = g if n_b == 1 else fb * g
                    first = False
                if n_a:
                    if a_term != NO_TERM:
                        if a_term == DENSITY:
                            g = _log_pdf(x_kind, (rr + z) - vv, bx, cx)
                        else:
                            g = _log_sf(x_kind, z - vv, bx)
                        g = g if n_a == 1 else fa * g
                        acc = g if first else acc + g
                        first = False
                    if caps:
                        g = 0.0 if z <= rr else -np.inf
                        acc = g if first else acc + g
                val = _log_pdf(z_kind, z, bz, cz) + acc
                if val != val:
                    val = -np.inf
                val += lw + lwq[q]
                if val != val:
                    nan = True
                elif val > top:
                    top = val
                f[i] = val
                i += 1
    if nan or not math.isfinite(top):
        return -np.inf
    for k in range(i):
        f[k] = math.exp(f[k] - top)
    return math.log(_pairwise(f, i)) + top


@numba.njit(cache=True, nogil=True)
def _insertion_sort(a: np.ndarray) -> None:
    for i in range(1, a.shape[0]):
        x = a[i]
        j = i - 1
        while j >= 0 and a[j] > x:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = x


@numba.njit(cache=True, nogil=True, error_model="numpy")
def segment_values(u: np.ndarray, v: np.ndarray, r: np.ndarray, groups: np.ndarray, n_b: int, n_a: int,
                   a_term: int, caps: bool, z_kind: int, bz: float, cz: float, x_kind: int, bx: float, cx: float,
                   left_tail: float, right_tail: float, rate: float, panel_efolds: float, min_panels: int,
                   max_panels: int, nodes: np.ndarray, weights: np.ndarray) -> tuple[np.ndarray, bool]:
    """Every point's value, as `verify.family.structured._segment_points` computes it with numpy: per point the
    kinks 0, u, v (v - r for a gap, r for a cap) sorted, the edges (kinks, the left and right tails' ends), then
    per group (rows [a, b) of ``groups``) the sub-panel count clip(ceil(rate·(widest segment)/panel_efolds),
    min_panels, max_panels) and the Gauss–Legendre rule on it (``nodes``, ``weights`` on [0, 1]).

    Returns (values, True), or (anything, False) when a point, an edge or a width is not finite: numpy's path
    then computes the call (and raises where it raises)."""
    n = u.shape[0]
    n_k = 3 + (a_term == DENSITY) + caps
    edges = np.empty((n, n_k + 2))
    kinks = np.empty(n_k)
    for row in range(n):
        kinks[0], kinks[1], kinks[2] = 0.0, u[row], v[row]
        m = 3
        if a_term == DENSITY:
            kinks[m] = v[row] - r[row]
            m += 1
        if caps:
            kinks[m] = r[row]
        for x in kinks:
            if not math.isfinite(x):
                return np.empty(0), False
        _insertion_sort(kinks)
        edges[row, 0] = kinks[0] - left_tail
        edges[row, 1:n_k + 1] = kinks
        edges[row, n_k + 1] = kinks[n_k - 1] + right_tail
    widths = np.empty((n, n_k + 1))
    for row in range(n):
        for j in range(n_k + 1):
            widths[row, j] = edges[row, j + 1] - edges[row, j]
            if not math.isfinite(widths[row, j]):
                return np.empty(0), False
    out = np.empty(n)
    nq = nodes.shape[0]
    lwq = np.empty(nq)
    for g in range(groups.shape[0]):
        a, b = groups[g, 0], groups[g, 1]
        widest = -np.inf
        for row in range(a, b):
            for j in range(n_k + 1):
                widest = max(widest, widths[row, j])
        sub = min(max(math.ceil(rate * widest / panel_efolds), min_panels), max_panels)
        for q in range(nq):
            lwq[q] = math.log(weights[q] / sub)  # numpy: log(tile(weights, sub) / sub)
        f = np.empty((n_k + 1) * sub * nq)
        for row in range(a, b):
            out[row] = _row_value(f, edges[row, :n_k + 1], widths[row], nodes, lwq, sub, u[row], v[row], r[row],
                                  n_b, n_a, a_term, caps, z_kind, bz, cz, x_kind, bx, cx)
    return out, True
