"""The integral of one piece of an outcome in linear space (numba): Σ_n ω_n Π_c factor_c(z_n).

For one query vector and one piece of an outcome (`verify.engine.fast_generic`:
the letters between two threshold draws), the integrand at a node z is
p_Z(z) times one factor per letter c, of the query noise at y = z - x_c:
F(y) for a below (B), S(y) for an above (A), p(y) for a released gap (D).
`verify.engine.fast_generic` used to add the logs of those factors, which
loses about (k + 2)·|log f|·2^-52 (7e-12 for a 1000-letter outcome of
probability e^-35); multiplied in linear space the loss is a few roundings
per factor, whatever the value.

Each factor is a0 + a1·v with v = ½e^{λ(z-x)} left of x or ½e^{-λ(z-x)} right
of it (Laplace; e^{-λ(z-x)} right of it for the exponential family), from the
products of two precomputed vectors as in `verify.engine.halting_kernel`:

    Laplace      left of x (z < x): F = v, S = 1 - v, p = λv;  right: F = 1 - v, S = v, p = λv
    exponential  z <= x: F = 0, S = 1, p = 0;  z > x: F = -expm1(-λy) within log(2)/λ of x, else
                 1 - v; S = v; p = λv
    none         F = [y > 0], S = [y <= 0]

So that nothing underflows, every RESCALE_EVERY letters the row is multiplied
by a power of two (exact) that brings its largest value to about 1; the
exponent is returned.  At the same moments a window leaves out the nodes at
either end whose value is below ``window`` times the largest, and bounds what
they could still contribute (their value times the largest product the
remaining factors can reach, ``amp``), as in `verify.engine.halting_kernel`.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from verify.engine.halting_kernel import CHUNK, EXPONENTIAL, FAST, LAPLACE, NONE, chunked_sum
from verify.jit_interrupts import hold_sigint_while_numba_compiles

hold_sigint_while_numba_compiles()  # Ctrl-C during a first compilation: delivered after it

BELOW, ABOVE, DENSITY = 0, 1, 2
RESCALE_EVERY = 8


@numba.njit(cache=True, nogil=True, fastmath=FAST)
def _affine(m: np.ndarray, e: np.ndarray, xc: float, a0: float, a1: float, lo: int, hi: int) -> None:
    """m[n] *= a0 + a1·(e[n]·xc) on [lo, hi)."""
    ms, es = m[lo:hi], e[lo:hi]
    for n in range(ms.shape[0]):
        ms[n] = ms[n] * (a0 + a1 * (es[n] * xc))


@numba.njit(cache=True, nogil=True)
def _near_below(m: np.ndarray, z: np.ndarray, x: float, lam: float, lo: int, hi: int) -> None:
    """Exponential F = -expm1(-λ(z - x)) for 0 < z - x < log(2)/λ (1 - e^{-λy} would cancel)."""
    for n in range(lo, hi):
        m[n] *= -math.expm1(-lam * (z[n] - x))


@numba.njit(cache=True, nogil=True)
def _top(m: np.ndarray, lo: int, hi: int) -> float:
    top = 0.0
    for n in range(lo, hi):
        if m[n] > top:
            top = m[n]
    return top


@numba.njit(cache=True, nogil=True)
def _piece_row(mode: int, lam: float, kinds: np.ndarray, z: np.ndarray, eleft: np.ndarray, eright: np.ndarray,
               omega: np.ndarray, x: np.ndarray, xleft: np.ndarray, xright: np.ndarray, amp: np.ndarray,
               window: float) -> tuple[float, int, float]:
    """(Σ_n M_n, e, gone): the piece's integral is the sum times 2^e, and the nodes left out by the
    window held at most gone times 2^e of it."""
    m = omega.copy()
    lo, hi = 0, m.shape[0]
    scale = 0
    gone = 0.0
    near = math.log(2.0) / lam if lam > 0 else 0.0
    for c in range(kinds.shape[0]):
        if c % RESCALE_EVERY == 0 and hi > lo:
            top = _top(m, lo, hi)
            if top > 0.0 and math.isfinite(top):
                # a power of two: exact, for the kept nodes and the bound alike
                _, e = math.frexp(top)
                sc = math.ldexp(1.0, -e)
                m[lo:hi] *= sc
                gone *= sc
                scale += e
                top *= sc
            # the window: a node's later factors are at most amp[c] in all, so what it could still
            # add is at most m·amp[c]; ends below window·top are left out and that much is bounded
            cut = window * top
            while lo < hi and m[lo] < cut:
                gone += m[lo] * amp[c]
                lo += 1
            while hi > lo and m[hi - 1] < cut:
                gone += m[hi - 1] * amp[c]
                hi -= 1
        kind, xc = kinds[c], x[c]
        if mode == LAPLACE:
            split = lo + np.searchsorted(z[lo:hi], xc, side="left")  # first z >= x
            if kind == BELOW:
                _affine(m, eleft, xleft[c], 0.0, 1.0, lo, split)
                _affine(m, eright, xright[c], 1.0, -1.0, split, hi)
            elif kind == ABOVE:
                _affine(m, eleft, xleft[c], 1.0, -1.0, lo, split)
                _affine(m, eright, xright[c], 0.0, 1.0, split, hi)
            else:
                _affine(m, eleft, xleft[c], 0.0, lam, lo, split)
                _affine(m, eright, xright[c], 0.0, lam, split, hi)
        else:
            split = lo + np.searchsorted(z[lo:hi], xc, side="right")  # first z > x
            if mode == NONE:
                if kind == BELOW:
                    m[lo:split] = 0.0
                else:
                    m[split:hi] = 0.0
            elif kind == BELOW:
                m[lo:split] = 0.0
                far = split + np.searchsorted(z[split:hi], xc + near, side="left")
                _near_below(m, z, xc, lam, split, far)
                _affine(m, eright, xright[c], 1.0, -1.0, far, hi)
            elif kind == ABOVE:
                _affine(m, eright, xright[c], 0.0, 1.0, split, hi)
            else:
                m[lo:split] = 0.0
                _affine(m, eright, xright[c], 0.0, lam, split, hi)
    return chunked_sum(m, lo, hi), scale, gone


@numba.njit(cache=True, nogil=True)
def piece_rows(mode: int, lam: float, kinds: np.ndarray, z: np.ndarray, eleft: np.ndarray, eright: np.ndarray,
               omega: np.ndarray, count: np.ndarray, x: np.ndarray, xleft: np.ndarray, xright: np.ndarray,
               amp: np.ndarray, window: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """All rows: (sums (n,), power-of-two exponents (n,), left-out bounds (n,), in the sums' units);
    z, eleft, eright, omega (n, N) with the first count[r] nodes of row r in use; x, xleft, xright
    (n, L); kinds (L,) in BELOW/ABOVE/DENSITY; amp (L+1,): amp[c] bounds the product of the factors
    of columns c.. (1 for F and S, the density's mode for D when above 1)."""
    n = z.shape[0]
    sums = np.empty(n)
    gone = np.empty(n)
    exps = np.zeros(n, np.int64)
    for r in range(n):
        c = count[r]
        s, e, g = _piece_row(mode, lam, kinds, z[r, :c], eleft[r, :c], eright[r, :c], omega[r, :c], x[r], xleft[r],
                             xright[r], amp, window)
        sums[r] = s
        exps[r] = e
        gone[r] = g
    return sums, exps, gone


__all__ = ["ABOVE", "BELOW", "CHUNK", "DENSITY", "EXPONENTIAL", "LAPLACE", "NONE", "piece_rows"]
