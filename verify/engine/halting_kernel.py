"""The inner loop of the halting path: one pass over the live nodes per query (numba).

For one query vector with nodes z_1 < ... < z_N (Gauss–Legendre nodes, panels
split at every kink, `verify.engine.fast_halting`) and weights ω_n = w_n·p_Z(z_n),
the k+1 halting probabilities of AboveThreshold are

    Pr[B^{i-1}A] ≈ Σ_n M_i(n)·S(z_n - a_i),  Pr[B^k] ≈ Σ_n M_{k+1}(n),
    M_1 = ω,  M_{i+1}(n) = M_i(n)·F(z_n - a_i)

(seed, Proof 1's conditioning on Z: the integrand of B^{i-1}A is p_Z·G_{i-1}·S_i
with G_{i-1} = Π_{j<i} F(· - a_j)).  That the outputs are this chain (cutoff 1, no release) and the
noises those of the three modes below is the caller's checked precondition
(`verify.engine.fast_halting.halting_refusal`).  The queries are visited in their order, so
M_i = ω·G_{i-1} is updated in place: one multiply-add per node and query, no
exp (F and S come from t = ½e^{λz_n}·e^{-λa_i}, an outer product of two
precomputed vectors; ``direct``: one exp per node and query, where those two
factors could overflow), O(k·N_live) in all.

Window: every ``TRIM_EVERY`` queries, the nodes at either end whose M is below
``window`` times the largest M are left out for good.  For every later output
a left-out node contributes at most its M (S <= 1, F <= 1), so the sum of the
left-out M is added to the absolute error bound of every later output
(``dropped``); nothing is lost silently.

The three query-noise families (`verify.noise`), with y = z - a:
* Laplace (mode 0): F = ½e^{λy}, S = 1 - F for y < 0; S = ½e^{-λy}, F = 1 - S
  for y >= 0.  Each of F, S is a product of exact factors or 1 - (a value <= ½):
  full relative accuracy.
* exponential (mode 1): F = 0, S = 1 for y <= 0; S = e^{-λy}, F = -expm1(-λy)
  for y > 0 (expm1 near the kink, where 1 - e^{-λy} would cancel).
* none (mode 2): F = [y > 0], S = [y <= 0] (the seed's rule q + X >= t + Z).
"""

from __future__ import annotations

import math

import numba
import numpy as np

LAPLACE, EXPONENTIAL, NONE = 0, 1, 2
TRIM_EVERY = 8


#: Sums: the adds inside a chunk of CHUNK nodes may be reordered (so the loop vectorises; no
#: assumption about inf or nan); the chunks' sums are added in order without reordering.  A sum of N
#: positive terms in any order is within (N-1)u of its value (u = 2^-53), so each sum here is within
#: (CHUNK - 1 + N/CHUNK)·u: the rounding term of the error estimate (`verify.engine.fast_halting`).
FAST = {"reassoc", "contract"}
CHUNK = 256


@numba.njit(cache=True, nogil=True, fastmath=FAST)
def _sum_chunk(m: np.ndarray, lo: int, hi: int) -> float:
    ms = m[lo:hi]  # a view indexed from 0: no wrap-around test, so the loop vectorises
    acc = 0.0
    for n in range(ms.shape[0]):
        acc += ms[n]
    return acc


@numba.njit(cache=True, nogil=True, fastmath=FAST)
def _left_chunk(m: np.ndarray, e: np.ndarray, ea: float, lo: int, hi: int) -> float:
    """z < a: F = t = ½e^{λ(z-a)} = e[n]·ea, S = 1 - t; returns Σ m·S and sets m <- m·F."""
    ms, es = m[lo:hi], e[lo:hi]
    acc = 0.0
    for n in range(ms.shape[0]):
        t = es[n] * ea
        acc += ms[n] * (1.0 - t)
        ms[n] = ms[n] * t
    return acc


@numba.njit(cache=True, nogil=True, fastmath=FAST)
def _right_chunk(m: np.ndarray, e: np.ndarray, ea: float, lo: int, hi: int) -> float:
    """S = s = e[n]·ea <= ½ (Laplace z >= a; exponential λ(z - a) >= log 2), F = 1 - s."""
    ms, es = m[lo:hi], e[lo:hi]
    acc = 0.0
    for n in range(ms.shape[0]):
        s = es[n] * ea
        acc += ms[n] * s
        ms[n] = ms[n] * (1.0 - s)
    return acc


@numba.njit(cache=True, nogil=True)
def chunked_sum(m: np.ndarray, lo: int, hi: int) -> float:
    acc = 0.0
    for c in range(lo, hi, CHUNK):
        acc += _sum_chunk(m, c, min(c + CHUNK, hi))
    return acc


@numba.njit(cache=True, nogil=True)
def _left_laplace(m: np.ndarray, e: np.ndarray, ea: float, lo: int, hi: int) -> float:
    acc = 0.0
    for c in range(lo, hi, CHUNK):
        acc += _left_chunk(m, e, ea, c, min(c + CHUNK, hi))
    return acc


@numba.njit(cache=True, nogil=True)
def _right_survival(m: np.ndarray, e: np.ndarray, ea: float, lo: int, hi: int) -> float:
    acc = 0.0
    for c in range(lo, hi, CHUNK):
        acc += _right_chunk(m, e, ea, c, min(c + CHUNK, hi))
    return acc


@numba.njit(cache=True, nogil=True)
def _near_exponential(m: np.ndarray, z: np.ndarray, a: float, lam: float, lo: int, hi: int) -> float:
    """Exponential noise, 0 < z - a < log(2)/λ: S = e^{-λy}, F = -expm1(-λy) (no cancellation)."""
    acc = 0.0
    for n in range(lo, hi):
        x = -lam * (z[n] - a)
        acc += m[n] * math.exp(x)
        m[n] *= -math.expm1(x)
    return acc


@numba.njit(cache=True, nogil=True)
def _direct(mode: int, m: np.ndarray, z: np.ndarray, a: float, lam: float, lo: int, hi: int) -> float:
    """Laplace or exponential with one exp per node (where the outer-product factors could overflow)."""
    acc = 0.0
    for n in range(lo, hi):
        y = z[n] - a
        if mode == LAPLACE:
            if y < 0:
                f = 0.5 * math.exp(lam * y)
                s = 1.0 - f
            else:
                s = 0.5 * math.exp(-lam * y)
                f = 1.0 - s
        elif y <= 0:
            f, s = 0.0, 1.0
        else:
            s = math.exp(-lam * y)
            f = -math.expm1(-lam * y)
        acc += m[n] * s
        m[n] *= f
    return acc


@numba.njit(cache=True, nogil=True)
def _halting_row(mode: int, lam: float, direct: bool, z: np.ndarray, eleft: np.ndarray, eright: np.ndarray,
                 omega: np.ndarray, a: np.ndarray, aleft: np.ndarray, aright: np.ndarray, window: float,
                 values: np.ndarray, dropped: np.ndarray) -> None:
    """One row: values[i] (i = 0..k) and dropped[i], the left-out mass bound of output i.

    Laplace: t = ½e^{λ(z-a)} = eleft[n]·aleft[i] left of a, s = ½e^{-λ(z-a)} = eright[n]·aright[i]
    right of it.  Exponential: s = e^{-λ(z-a)} = eright[n]·aright[i].  ``direct``: one exp per
    node and query instead (the factors could overflow)."""
    k = a.shape[0]
    m = omega.copy()
    lo, hi = 0, m.shape[0]
    gone = 0.0
    near = math.log(2.0) / lam if lam > 0 else 0.0
    for i in range(k):
        if i % TRIM_EVERY == 0 and hi > lo:
            top = 0.0
            for n in range(lo, hi):
                if m[n] > top:
                    top = m[n]
            cut = window * top
            while lo < hi and m[lo] < cut:
                gone += m[lo]
                lo += 1
            while hi > lo and m[hi - 1] < cut:
                gone += m[hi - 1]
                hi -= 1
        dropped[i] = gone
        ai = a[i]
        if direct:
            values[i] = _direct(mode, m, z, ai, lam, lo, hi)
            continue
        if mode == LAPLACE:
            split = lo + np.searchsorted(z[lo:hi], ai, side="left")  # first z >= a
            acc = _left_laplace(m, eleft, aleft[i], lo, split)
            values[i] = acc + _right_survival(m, eright, aright[i], split, hi)
            continue
        split = lo + np.searchsorted(z[lo:hi], ai, side="right")  # first z > a
        acc = chunked_sum(m, lo, split)  # F = 0, S = 1 for z <= a (both families)
        m[lo:split] = 0.0
        if mode == EXPONENTIAL:
            far = split + np.searchsorted(z[split:hi], ai + near, side="left")
            acc += _near_exponential(m, z, ai, lam, split, far)
            acc += _right_survival(m, eright, aright[i], far, hi)
        values[i] = acc  # none: F = 1, S = 0 right of a
    values[k] = chunked_sum(m, lo, hi)
    dropped[k] = gone


@numba.njit(cache=True, nogil=True)
def halting_rows(mode: int, lam: float, direct: bool, z: np.ndarray, eleft: np.ndarray, eright: np.ndarray,
                 omega: np.ndarray, count: np.ndarray, a: np.ndarray, aleft: np.ndarray, aright: np.ndarray,
                 window: float) -> tuple[np.ndarray, np.ndarray]:
    """All rows: z, eleft, eright, omega (n, N) with the first count[r] nodes of row r in use;
    a, aleft, aright (n, k) (`_halting_row`).

    Returns (values, dropped), each (n, k+1)."""
    n, k = a.shape
    values = np.empty((n, k + 1))
    dropped = np.empty((n, k + 1))
    for r in range(n):
        c = count[r]
        _halting_row(mode, lam, direct, z[r, :c], eleft[r, :c], eright[r, :c], omega[r, :c], a[r], aleft[r], aright[r],
                     window, values[r], dropped[r])
    return values, dropped


@numba.njit(cache=True, nogil=True)
def _cdf_sf(mode: int, lam: float, y: float) -> tuple[float, float]:
    """F(y) = Pr[X < y], S(y) = Pr[X >= y] of the query noise, each to full relative accuracy."""
    if mode == LAPLACE:
        e = 0.5 * math.exp(-lam * abs(y))
        return (e, 1.0 - e) if y < 0 else (1.0 - e, e)
    if mode == EXPONENTIAL:
        if y <= 0:
            return 0.0, 1.0
        return -math.expm1(-lam * y), math.exp(-lam * y)
    return (1.0, 0.0) if y > 0 else (0.0, 1.0)


@numba.njit(cache=True, nogil=True)
def finish_rows(mode: int, lam: float, a: np.ndarray, left: np.ndarray, right: np.ndarray, z_left: np.ndarray,
                z_right: np.ndarray, values: np.ndarray, dropped: np.ndarray, panel_err: np.ndarray, count: np.ndarray,
                weight_exponent: np.ndarray, eps: np.ndarray, delta: np.ndarray, tiny: float) -> tuple[np.ndarray, np.ndarray]:
    """(log values, error estimates), each (n, k+1), of `halting_rows`' sums (`verify.engine.fast_halting`).

    Per output i: the panel rule's estimate + (tail bound + the window's left-out mass)/value, the
    tail bound Pr[Z < L]·G_i(L) + Pr[Z >= R]·S(R - a_i) (Pr[Z >= R] for B^k), + the rounding bound of
    `verify.engine.fast_plan.rounding_linear` with f = i+1 factors (k for B^k) and δ summed over them;
    inf where the value is below ``tiny`` (linear space: recompute)."""
    n, k = a.shape
    u = 2.0**-53
    logv = np.empty((n, k + 1))
    err = np.empty((n, k + 1))
    for r in range(n):
        fixed = 8.0 + 2.0 * weight_exponent[r] + CHUNK - 1 + count[r] / CHUNK
        g = 1.0  # G_i(L)
        cum = 0.0  # Σ δ over the output's queries
        for i in range(k + 1):
            if i < k:
                _, s_r = _cdf_sf(mode, lam, right[r] - a[r, i])
                f_l, _ = _cdf_sf(mode, lam, left[r] - a[r, i])
                cum += delta[r, i]
                f = i + 1.0
            else:
                s_r, f_l = 1.0, 1.0
                f = float(k)
            tail = z_left[r] * g + z_right[r] * s_r + dropped[r, i]
            g *= f_l
            v = values[r, i]
            if v < tiny:
                logv[r, i] = math.log(v) if v > 0 else -np.inf
                err[r, i] = np.inf
                continue
            logv[r, i] = math.log(v)
            err[r, i] = panel_err[r] + tail / v + u * (fixed + 3.0 * f) + f * eps[r] + cum
    return logv, err
