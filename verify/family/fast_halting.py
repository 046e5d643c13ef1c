"""All k+1 halting probabilities of AboveThreshold in float64 (cutoff 1, no release).

    Pr[B^{i-1}A] = ∫ p_Z(z) G_{i-1}(z) S(z - a_i) dz,  Pr[B^k] = ∫ p_Z(z) G_k(z) dz,
    G_i(z) = Π_{j<=i} F(z - a_j)

(seed, Proof 1's conditioning on Z; `verify.family.integrand`).  One set of
Gauss–Legendre nodes serves every output (`verify.family.fast.panels`, kinks
at 0 and every a_j); at the nodes the F values form a (k, N) matrix, G is its
cumulative product along the queries, and the k+1 integrals are one
matrix-vector product with the weights p_Z(z_n)·w_n.  Everything is positive,
so the sums do not cancel; products are formed in linear space (values below
1e-290 are flagged, error estimate inf, and recomputed by the caller).

Error estimate per output (`verify.family.fast` docstring): the panel rule's
relative error + the tail bounds Pr[Z < L]·G_{i-1}(L) and Pr[Z > R]·S(R - a_i)
over the value (nodes left out by the window are bounded by their mass the
same way) + 4(k+2) roundings of 2^-53.
"""

from __future__ import annotations

import numpy as np

from verify.family.fast import (
    EPS,
    FastResult,
    adaptive_panels,
    left_tail_mask,
    noise_rates,
    tail_edges,
    variation_bound,
)
from verify.family.model import SparseVector
from verify.noise import Noise

#: queries per block of the (k, N) matrices (bounds memory at large k)
BLOCK = 64
TINY = 1e-290
#: nodes whose running mass G·p_Z·w is below this fraction of the largest are left out (and bounded)
WINDOW = 1e-40


def _f_and_s(noise: Noise, y: np.ndarray, e: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """F(y) = Pr[X < y] and S(y) = Pr[X >= y], each to full relative accuracy, linear space.

    ``e``: e^{-λ|y|} if the caller has it (Laplace only)."""
    if noise.is_none:
        return (y > 0).astype(float), (y <= 0).astype(float)
    lam = 1 / float(noise.scale)
    if noise.family == "laplace":
        e = 0.5 * (np.exp(-lam * np.abs(y)) if e is None else e)
        neg = y < 0
        return np.where(neg, e, 1 - e), np.where(neg, 1 - e, e)
    if noise.family == "exponential":
        pos = y > 0
        yp = np.where(pos, y, 0.0)
        return np.where(pos, -np.expm1(-lam * yp), 0.0), np.where(pos, np.exp(-lam * yp), 1.0)
    raise ValueError("gaussian: use the log-space path")


def _laplace_halves(lam: float, z: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """(½e^{λ(z-a)}, ½e^{-λ(z-a)}) for z (n, N) and a (n, b) as (n, b, N) arrays from outer products,
    without an exp per element; None if an exponent could overflow."""
    if lam * (np.abs(z).max() + np.abs(a).max()) > 600:
        return None
    ez, ea = np.exp(lam * z), np.exp(lam * a)
    return (0.5 * ez)[:, None, :] * (1 / ea)[:, :, None], (0.5 / ez)[:, None, :] * ea[:, :, None]


def _laplace_f_and_s(halves: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """F and S of Laplace noise from the two halves: z < a: F = ½e^{λ(z-a)}, S = 1 - F; else S = ½e^{-λ(z-a)}, F = 1 - S."""
    up, down = halves
    below = up < down  # z < a
    return np.where(below, up, 1 - down), np.where(below, 1 - up, down)


def halting_distribution(mech: SparseVector, q: np.ndarray) -> FastResult:
    """log Pr of B^{i-1}A (i = 1..k) and B^k for each row of q (n, k), with error estimates."""
    q = np.atleast_2d(np.asarray(q, dtype=float))
    n, k = q.shape
    zn, xn = mech.threshold_noise, mech.query_noise
    a = q - float(mech.threshold)
    points = np.sort(np.concatenate([a, np.zeros((n, 1))], axis=1), axis=1)
    edges = tail_edges(mech, points)
    _, lx = noise_rates(mech)
    var = variation_bound(mech, edges, np.sort(a, axis=1), extra=lx)
    h = edges[:, 1:] - edges[:, :-1]
    rz, _ = noise_rates(mech)
    var = np.where(left_tail_mask(edges, points), h * (rz + lx), var)
    z, w, panel_err = adaptive_panels(edges, var)
    weight = zn.pdf(z) * w  # (n, N)
    left, right = edges[:, 0], edges[:, -1]
    g_left = np.ones(n)  # G_{i-1}(L)
    values = np.empty((n, k + 1))
    tails = np.empty((n, k + 1))
    z_left = np.exp(zn.log_cdf(left))  # Pr[Z < L]
    z_right = np.exp(zn.log_sf(right))  # Pr[Z >= R]
    g = np.ones_like(z)  # G_{i-1} at the nodes
    skipped = np.zeros((n, k + 1))  # mass bound of the nodes left out for each output
    lam = 1 / float(xn.scale) if xn.family == "laplace" else 0.0
    for s in range(0, k, BLOCK):
        blk = a[:, s : s + BLOCK]  # (n, b)
        b = blk.shape[1]
        # window: nodes where G_{s-1}·p_Z·w is below WINDOW of its largest value carry (for every
        # output of the block, since G_{i-1} <= G_{s-1} and S <= 1) at most their sum: left out, counted
        gw = g * weight
        keep = gw >= WINDOW * gw.max(axis=1, keepdims=True)
        cols = np.nonzero(keep.any(axis=0))[0]
        lo_col = int(cols[0]) if len(cols) else 0
        hi_col = int(cols[-1]) + 1 if len(cols) else 0
        out_mass = gw[:, :lo_col].sum(axis=1) + gw[:, hi_col:].sum(axis=1)
        skipped[:, s : s + b] = out_mass[:, None]
        zc, gc, wc = z[:, lo_col:hi_col], g[:, lo_col:hi_col], weight[:, lo_col:hi_col]
        halves = _laplace_halves(lam, zc, blk) if lam else None
        if halves is not None:
            f, sv = _laplace_f_and_s(halves)
        else:
            f, sv = _f_and_s(xn, zc[:, None, :] - blk[:, :, None])  # (n, b, N)
        values[:, s] = np.einsum("nN,nN->n", gc * wc, sv[:, 0, :])
        f[:, 0, :] *= gc
        cum = np.cumprod(f, axis=1, out=f)  # G_{s}, ..., G_{s+b-1} at the nodes
        if b > 1:
            values[:, s + 1 : s + b] = np.einsum("nbN,nN->nb", cum[:, :-1, :] * sv[:, 1:, :], wc)
        g = np.zeros_like(g)
        g[:, lo_col:hi_col] = cum[:, -1, :]
        fl, _ = _f_and_s(xn, left[:, None] - blk)
        _, sr = _f_and_s(xn, right[:, None] - blk)
        gl = g_left[:, None] * np.concatenate([np.ones((n, 1)), np.cumprod(fl, axis=1)[:, :-1]], axis=1)
        tails[:, s : s + b] = z_left[:, None] * gl + z_right[:, None] * sr
        g_left = gl[:, -1] * fl[:, -1]
    values[:, k] = (g * weight).sum(axis=1)
    tails[:, k] = z_left * g_left + z_right
    tails = tails + skipped
    with np.errstate(divide="ignore", invalid="ignore"):
        logv = np.log(values)
        rel_tail = np.where(values > 0, tails / values, np.inf)
    # rounding: each factor carries <= 3 roundings (exp, scaling, 1 - x) and one product, u = EPS/2 each
    err = panel_err[:, None] + rel_tail + (k + 2) * 2 * EPS
    err = np.where(values < TINY, np.inf, err)
    return FastResult(logv, err)
