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

Front (linear in k for spread queries): nodes right of max_{j<=i} a_j + ``defer`` (every s_j there
below e^{-λ·defer}) are not visited; their share of output i is one suffix sum times aright[i]
(`_halting_row`).  With the window below, the live nodes are those within a fixed distance of the
queries that matter at each z, not all N.

Rounding, per output (`finish_rows`): each node carries a compensation c (the exact error of its
1 - s updates, Fast2Sum) and a first-order relative bound err of what is not compensated: ε + δ_j + 2u
for a factor t, κ·s (κ = 2(ε + δ_j + 2u)) for a factor 1 - s, 4u for an exponential factor near its
kink.  The estimate sums err weighted by each node's share of the output, so it grows with the
number of factors that are not 1 at the nodes that carry the mass, not with k.

Window: every ``TRIM_EVERY`` queries (from the first value on), the nodes at either end whose M is
below ``window`` times the smaller of the largest M and the smallest value so far are left out for
good (an output far in Z's tail, say Pr ≈ e^{-77} at a query 240 scales out, is not swamped by the
mass left out relative to the largest M).  For every later output
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

from verify.jit_interrupts import hold_sigint_while_numba_compiles

hold_sigint_while_numba_compiles()  # Ctrl-C during a first compilation: delivered after it

LAPLACE, EXPONENTIAL, NONE = 0, 1, 2
TRIM_EVERY = 8


#: Sums: each sum of N positive terms is formed in chunks of CHUNK nodes (each chunk's terms added in
#: order, the chunks' sums added in order), so it is within (CHUNK - 1 + N/CHUNK)·u of its value
#: (u = 2^-53): the rounding term of the error estimate (`verify.engine.fast_halting`).  The
#: compensated updates run without fastmath: they rely on IEEE order (reassociation would cancel them).
CHUNK = 256
U = 2.0**-53
#: fastmath for plain chunk sums (here and in `verify.engine.piece_kernel`: the adds inside a chunk may
#: be reordered, which the same (CHUNK - 1 + N/CHUNK)·u bound allows); never on the compensated updates
FAST = {"reassoc", "contract"}


@numba.njit(cache=True, nogil=True)
def chunked_sum(m: np.ndarray, lo: int, hi: int) -> float:
    acc = 0.0
    for c in range(lo, hi, CHUNK):
        part = 0.0
        for n in range(c, min(c + CHUNK, hi)):
            part += m[n]
        acc += part
    return acc


@numba.njit(cache=True, nogil=True, fastmath=FAST)
def _fast_sum(x: np.ndarray) -> float:
    acc = 0.0
    for n in range(x.shape[0]):
        acc += x[n]
    return acc


@numba.njit(cache=True, nogil=True)
def _left_pass(m, c, err, ee, ea, cost, term, wterm):
    """The updates of `_left_laplace` on one chunk, terms into scratch arrays (no reduction: vectorises)."""
    for n in range(m.shape[0]):
        t = ee[n] * ea
        s = 1.0 - t
        mn = m[n]
        term[n] = (mn + c[n]) * s
        wterm[n] = mn * s * err[n]
        m[n] = mn * t
        c[n] *= t
        err[n] += cost


@numba.njit(cache=True, nogil=True)
def _left_laplace(m, c, err, ee, ea, cost, lo, hi):
    """z < a: F = t = ½e^{λ(z-a)} = ee[n]·ea, S = 1 - t.  Returns (Σ (m + c)·S, Σ m·S·err) and
    sets m, c <- (m, c)·t, err += ``cost`` (t's own error and the product's, not compensated)."""
    acc, wacc = 0.0, 0.0
    term = np.empty(CHUNK)
    wterm = np.empty(CHUNK)
    for c0 in range(lo, hi, CHUNK):
        c1 = min(c0 + CHUNK, hi)
        w = c1 - c0
        _left_pass(m[c0:c1], c[c0:c1], err[c0:c1], ee[c0:c1], ea, cost, term[:w], wterm[:w])
        acc += _fast_sum(term[:w])
        wacc += _fast_sum(wterm[:w])
    return acc, wacc


@numba.njit(cache=True, nogil=True)
def _right_pass(m, c, err, ee, ea, kappa, term, wterm):
    """The updates of `_right_survival` on one chunk, terms into scratch arrays (no reduction: vectorises)."""
    for n in range(m.shape[0]):
        s = ee[n] * ea
        mn = m[n]
        ms = mn * s
        cn = c[n]
        term[n] = (mn + cn) * s
        wterm[n] = ms * err[n]
        p = mn - ms
        c[n] = cn - cn * s + ((mn - p) - ms)
        m[n] = p
        err[n] += kappa * s


@numba.njit(cache=True, nogil=True)
def _right_survival(m, c, err, ee, ea, kappa, lo, hi):
    """S = s = ee[n]·ea <= ½ (Laplace z >= a; exponential λ(z - a) >= log 2), F = 1 - s, compensated:
    m·(1 - s) = p + pe exactly (p = m - m·s, pe = (m - p) - m·s, Fast2Sum, |m·s| <= |m|), so the
    compensation c carries pe and only the errors of s and of m·s remain: err += κ·s
    (κ = 2(ε + δ + 2u), s/(1 - s) <= 2s), which is small where s is.  Returns (Σ (m + c)·s, Σ m·s·err)
    (each chunk's terms summed in any order, `CHUNK`)."""
    acc, wacc = 0.0, 0.0
    term = np.empty(CHUNK)
    wterm = np.empty(CHUNK)
    for c0 in range(lo, hi, CHUNK):
        c1 = min(c0 + CHUNK, hi)
        w = c1 - c0
        _right_pass(m[c0:c1], c[c0:c1], err[c0:c1], ee[c0:c1], ea, kappa, term[:w], wterm[:w])
        acc += _fast_sum(term[:w])
        wacc += _fast_sum(wterm[:w])
    return acc, wacc


@numba.njit(cache=True, nogil=True)
def _near_exponential(m, c, err, z, a, lam, lo, hi):
    """Exponential noise, 0 < z - a < log(2)/λ: S = e^{-λy}, F = -expm1(-λy) (no cancellation;
    err += 4u: y, λy, expm1 and the product)."""
    acc, wacc = 0.0, 0.0
    for n in range(lo, hi):
        x = -lam * (z[n] - a)
        s = math.exp(x)
        acc += (m[n] + c[n]) * s
        wacc += m[n] * s * err[n]
        f = -math.expm1(x)
        m[n] *= f
        c[n] *= f
        err[n] += 4.0 * U
    return acc, wacc


@numba.njit(cache=True, nogil=True)
def _direct(mode, m, c, err, z, a, lam, kappa, cost, lo, hi):
    """Laplace or exponential with one exp per node (where the outer-product factors could overflow);
    the same updates as the outer-product loops."""
    acc, wacc = 0.0, 0.0
    for n in range(lo, hi):
        y = z[n] - a
        mn = m[n]
        if mode == LAPLACE and y < 0:
            t = 0.5 * math.exp(lam * y)
            s = 1.0 - t
            acc += (mn + c[n]) * s
            wacc += mn * s * err[n]
            m[n] = mn * t
            c[n] *= t
            err[n] += cost
            continue
        if mode == EXPONENTIAL and y <= 0:
            acc += mn + c[n]
            wacc += mn * err[n]
            m[n] = 0.0
            c[n] = 0.0
            continue
        if mode == EXPONENTIAL and lam * y < math.log(2.0):
            s = math.exp(-lam * y)
            acc += (mn + c[n]) * s
            wacc += mn * s * err[n]
            f = -math.expm1(-lam * y)
            m[n] = mn * f
            c[n] *= f
            err[n] += 4.0 * U
            continue
        s = (0.5 if mode == LAPLACE else 1.0) * math.exp(-lam * y)
        ms = mn * s
        acc += (mn + c[n]) * s
        wacc += ms * err[n]
        p = mn - ms
        c[n] = c[n] - c[n] * s + ((mn - p) - ms)
        m[n] = p
        err[n] += kappa * s
    return acc, wacc


@numba.njit(cache=True, nogil=True)
def _suffix_sums(x: np.ndarray) -> np.ndarray:
    """out[f] = Σ_{n >= f} x[n] (x >= 0), compensated (Neumaier): within 2u of the sum, first order."""
    out = np.zeros(x.shape[0] + 1)
    s, comp = 0.0, 0.0
    for n in range(x.shape[0] - 1, -1, -1):
        t = s + x[n]
        comp += (s - t) + x[n] if s >= x[n] else (x[n] - t) + s
        s = t
        out[n] = s + comp
    return out


@numba.njit(cache=True, nogil=True)
def _halting_row(mode: int, lam: float, direct: bool, z: np.ndarray, eleft: np.ndarray, eright: np.ndarray,
                 omega: np.ndarray, a: np.ndarray, aleft: np.ndarray, aright: np.ndarray, window: float,
                 eps: float, delta: np.ndarray, defer: float,
                 values: np.ndarray, dropped: np.ndarray, weighted: np.ndarray) -> None:
    """One row: values[i] (i = 0..k), dropped[i] (the left-out mass bound of output i) and weighted[i]
    = Σ_n M_i(n)·S_i(n)·err(n), the per-node rounding bound weighted by the node's share of the value.

    Laplace: t = ½e^{λ(z-a)} = eleft[n]·aleft[i] left of a, s = ½e^{-λ(z-a)} = eright[n]·aright[i]
    right of it.  Exponential: s = e^{-λ(z-a)} = eright[n]·aright[i].  ``direct``: one exp per
    node and query instead (the factors could overflow).

    Front: the nodes right of max_{j<=i} a_j + ``defer`` (s_j <= e^{-λ·defer} there for every query so
    far) are not visited: their M stays ω up to a relative i·e^{-λ·defer} (err when they are reached),
    and their share of output i is aright[i]·Σ_{n >= front} ω(n)·eright(n), one compensated suffix
    sum.  Without query noise (none) the front is max a_j itself (F = 1, S = 0 exactly beyond it)."""
    k = a.shape[0]
    nn = z.shape[0]
    m = omega.copy()
    c = np.zeros(nn)
    err = np.zeros(nn)
    lo, hi = 0, nn
    gone = 0.0
    near = math.log(2.0) / lam if lam > 0 else 0.0
    lazy = not direct and (mode == NONE or lam > 0)
    if mode == NONE:
        defer = 0.0
    tiny = math.exp(-lam * defer) if lazy and mode != NONE else 0.0
    if lazy:
        tail = _suffix_sums(omega * eright)
        wmax = np.empty(nn + 1)  # suffix maxima of ω (the window's largest mass beyond the front)
        wmax[nn] = 0.0
        for n in range(nn - 1, -1, -1):
            wmax[n] = max(wmax[n + 1], omega[n])
        front = 0
    else:
        tail = np.zeros(nn + 1)
        wmax = np.zeros(nn + 1)
        front = nn
    amax = -math.inf
    floor = math.inf  # the smallest value so far: the window is relative to it too (outputs far in a tail)
    for i in range(k):
        ai = a[i]
        if lazy and ai > amax:
            amax = ai
            new = np.searchsorted(z, amax + defer, side="right")
            for n in range(front, new):
                err[n] = i * tiny  # the deferred factors Π_{j<i}(1 - s_j) >= 1 - i·e^{-λ·defer}
            front = max(front, new)
        if i % TRIM_EVERY == 0 and i > 0 and front > lo:
            top = wmax[front]
            for n in range(lo, min(front, hi)):
                if m[n] > top:
                    top = m[n]
            cut = window * min(top, floor)
            while lo < min(front, hi) and m[lo] < cut:
                gone += m[lo]
                lo += 1
            while hi > max(lo, front) and m[hi - 1] < cut:
                gone += m[hi - 1]
                hi -= 1
        dropped[i] = gone
        stop = min(front, hi)
        beyond = 0.0
        if front < nn:
            beyond = aright[i] * tail[front]
        cost = eps + delta[i] + 2.0 * U
        kappa = 2.0 * (eps + delta[i] + 2.0 * U)
        if direct:
            acc, wacc = _direct(mode, m, c, err, z, ai, lam, kappa, cost, lo, stop)
        elif mode == LAPLACE:
            split = lo + np.searchsorted(z[lo:stop], ai, side="left")  # first z >= a
            acc, wacc = _left_laplace(m, c, err, eleft, aleft[i], cost, lo, split)
            acc2, wacc2 = _right_survival(m, c, err, eright, aright[i], kappa, split, stop)
            acc += acc2
            wacc += wacc2
        else:
            split = lo + np.searchsorted(z[lo:stop], ai, side="right")  # first z > a
            acc, wacc = 0.0, 0.0
            for n in range(lo, split):  # F = 0, S = 1 for z <= a (both families)
                acc += m[n] + c[n]
                wacc += m[n] * err[n]
                m[n] = 0.0
                c[n] = 0.0
            if mode == EXPONENTIAL:
                far = split + np.searchsorted(z[split:stop], ai + near, side="left")
                acc1, wacc1 = _near_exponential(m, c, err, z, ai, lam, split, far)
                acc2, wacc2 = _right_survival(m, c, err, eright, aright[i], kappa, far, stop)
                acc += acc1 + acc2
                wacc += wacc1 + wacc2
            # none: F = 1, S = 0 right of a
        values[i] = acc + beyond
        if values[i] > 0:
            floor = min(floor, values[i])
        weighted[i] = wacc + beyond * (i * tiny + 4.0 * U)
    for n in range(front, nn):
        err[n] = k * tiny
    values[k] = chunked_sum(m, lo, hi) + chunked_sum(c, lo, hi)
    wk = 0.0
    for n in range(lo, hi):
        wk += m[n] * err[n]
    weighted[k] = wk
    dropped[k] = gone


@numba.njit(cache=True, nogil=True)
def halting_rows(mode: int, lam: float, direct: bool, z: np.ndarray, eleft: np.ndarray, eright: np.ndarray,
                 omega: np.ndarray, count: np.ndarray, a: np.ndarray, aleft: np.ndarray, aright: np.ndarray,
                 window: float, eps: np.ndarray, delta: np.ndarray, defer: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All rows: z, eleft, eright, omega (n, N) with the first count[r] nodes of row r in use;
    a, aleft, aright, delta (n, k), eps (n,) (`_halting_row`).

    Returns (values, dropped, weighted), each (n, k+1)."""
    n, k = a.shape
    values = np.empty((n, k + 1))
    dropped = np.empty((n, k + 1))
    weighted = np.empty((n, k + 1))
    for r in range(n):
        c = count[r]
        _halting_row(mode, lam, direct, z[r, :c], eleft[r, :c], eright[r, :c], omega[r, :c], a[r], aleft[r], aright[r],
                     window, eps[r], delta[r], defer, values[r], dropped[r], weighted[r])
    return values, dropped, weighted


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
                z_right: np.ndarray, values: np.ndarray, dropped: np.ndarray, weighted: np.ndarray, panel_err: np.ndarray,
                count: np.ndarray, weight_exponent: np.ndarray, eps: np.ndarray, delta: np.ndarray,
                tiny: float) -> tuple[np.ndarray, np.ndarray]:
    """(log values, error estimates), each (n, k+1), of `halting_rows`' sums (`verify.engine.fast_halting`).

    Per output i: the panel rule's estimate + (tail bound + the window's left-out mass)/value, the
    tail bound Pr[Z < L]·G_i(L) + Pr[Z >= R]·S(R - a_i) (Pr[Z >= R] for B^k), + the rounding bound:
    the factors' per-node bound weighted by the nodes' shares (``weighted``/value), the output's own
    S factor and product (ε + δ_i + 4u; none for B^k) and `verify.engine.fast_plan.rounding_linear`'s
    fixed part (the weight and the chunked sum); inf where the value is below ``tiny`` (linear
    space: recompute)."""
    n, k = a.shape
    u = U
    logv = np.empty((n, k + 1))
    err = np.empty((n, k + 1))
    for r in range(n):
        fixed = u * (8.0 + 2.0 * weight_exponent[r] + CHUNK - 1 + count[r] / CHUNK)
        g = 1.0  # G_i(L)
        for i in range(k + 1):
            if i < k:
                _, s_r = _cdf_sf(mode, lam, right[r] - a[r, i])
                f_l, _ = _cdf_sf(mode, lam, left[r] - a[r, i])
                own = eps[r] + delta[r, i] + 4.0 * u
            else:
                s_r, f_l = 1.0, 1.0
                own = 0.0
            tail = z_left[r] * g + z_right[r] * s_r + dropped[r, i]
            g *= f_l
            v = values[r, i]
            if v < tiny:
                logv[r, i] = math.log(v) if v > 0 else -np.inf
                err[r, i] = np.inf
                continue
            logv[r, i] = math.log(v)
            err[r, i] = panel_err[r] + tail / v + weighted[r, i] / v + own + fixed
    return logv, err
