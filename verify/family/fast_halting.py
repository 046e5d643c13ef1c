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

Node plan (``node_plan="weighted"``, the default from k = WEIGHT_MIN_K on; Laplace
Z and queries): the variation of a segment (`verify.family.fast.variation_bound`) is weighted by the share of an
output's value the segment can hold (`mass_weighted_variation`): the λ·h per
pure exponential ½e^{λ(z-a_j)} that made segments left of many kinks need many
panels only counts where those factors do not already make the segment's
share negligible.  Each panel keeps GL_NODES nodes and the same remainder
estimate, now relative to the output rather than to the panel.  The cost stays
O(k·N) with N = O(k) (one panel edge per kink), windowed; at k = 1000 (uniform
queries) the plan has about 27% fewer nodes.

Error estimate per output (`verify.family.fast` docstring): the panel rule's
relative error (an estimate) + the tail bounds Pr[Z < L]·G_{i-1}(L) and
Pr[Z > R]·S(R - a_i) over the value (nodes left out by the window are bounded
by their mass the same way, for the output of their block and every later
one) + 4(k+2) roundings of 2^-53.
"""

from __future__ import annotations

import numpy as np

from verify.errors import InputError
from verify.family.fast import (
    EPS,
    FastResult,
    gl_relative_error,
    left_tail_mask,
    noise_rates,
    panels,
    searchsorted_rows,
    tail_edges,
    variation_bound,
)
from verify.family.model import SparseVector
from verify.noise import Noise

#: queries per block of the (k, N) matrices (bounds memory at large k)
BLOCK = 32
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


#: shifts δ·λ and counts c of `mass_weighted_variation` (c grid: ratio <= 1.5)
SHIFTS = np.array([0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0])
COUNTS = np.unique(np.round(np.concatenate([np.arange(9), 8 * 1.5 ** np.arange(1, 40)])))


def mass_weighted_variation(mech: SparseVector, edges: np.ndarray, a_sorted: np.ndarray, var: np.ndarray,
                            above: np.ndarray) -> np.ndarray:
    """Effective variation Δ_eff >= max_c Δ(c)·ρ(c)^{1/16} of each segment (Laplace Z and queries).

    An output i whose integrand f_i has c pure-exponential factors ½e^{λ(z-a_j)} (j < i, a_j >= hi)
    on segment s = [lo, hi] varies there by Δ(c) = var - λh·(above - c) (``var`` counts all ``above``
    of them).  Shifting the segment right by δ multiplies f_i at least by
    e^{δ(λc'(δ) - r0)}, c' = c - #{a_j in [hi, hi + δ)}, r0 = rate_Z + λ (p_Z and S lose at most
    those rates; every F is increasing; the c' factors with a_j >= hi + δ stay pure exponentials), so
    the segment holds at most ρ(c) = min(1, min_δ e^{-δ(λc' - r0)}) of the output's value, and the
    m-point remainder C_m Δ(c)^{2m} relative to the *segment* becomes C_m Δ(c)^{2m}ρ(c) <=
    C_m (Δ(c)ρ(c)^{1/16})^{2m} relative to the *output* (m <= 8).  Between grid counts c1 < c2 the
    bound uses Δ(c2)·ρ(c1)^{1/16}.  Only Laplace Z (rate bounded on all of R) and Laplace queries."""
    rz, lx = noise_rates(mech)
    r0 = rz + lx
    n, k = a_sorted.shape
    hi = edges[:, 1:]
    h = hi - edges[:, :-1]
    base = var - lx * h * above  # the variation without pure exponentials
    start = searchsorted_rows(a_sorted, hi, side="left")
    kept = [(start - searchsorted_rows(a_sorted, hi + d, side="left"))[:, :, None] for d in SHIFTS / lx]
    grid = np.append(COUNTS[COUNTS < k], k)
    out = np.empty_like(var)
    step = max(1, 2_000_000 // (var.shape[1] * len(grid)))  # rows per chunk (memory)
    for r in range(0, n, step):
        sl = slice(r, r + step)
        cs = np.minimum(grid[None, None, :], above[sl, :, None])  # (rows, S, C): the grid capped at the count
        logrho = np.zeros(cs.shape)
        for d, kp in zip(SHIFTS / lx, kept):  # kp = -#{a_j in [hi, hi + d)}
            np.minimum(logrho, -d * (lx * (cs + kp[sl]) - r0), out=logrho)
        d_hi = base[sl, :, None] + lx * h[sl, :, None] * np.concatenate([cs[:, :, 1:], cs[:, :, -1:]], axis=2)
        out[sl] = (d_hi * np.exp(logrho / 16)).max(axis=2)
    return out


#: "auto" uses the weighted plan from this k on: below it the window already skips the nodes the
#: weighting removes and its own cost showed (n = 1000 vectors, k = 13: 0.84 s against 0.68 s plain)
WEIGHT_MIN_K = 64


def halting_distribution(mech: SparseVector, q: np.ndarray, node_plan: str = "auto") -> FastResult:
    """log Pr of B^{i-1}A (i = 1..k) and B^k for each row of q (n, k), with error estimates.

    ``node_plan``: "weighted" (panels cut by the mass-weighted variation), "plain" (by the plain
    variation bound: the previous plan, kept for the benchmark and the tests) or "auto" (weighted
    from k = WEIGHT_MIN_K on)."""
    if node_plan not in ("auto", "weighted", "plain"):
        raise InputError(f"node_plan: {node_plan!r} must be 'auto', 'weighted' or 'plain'")
    q = np.atleast_2d(np.asarray(q, dtype=float))
    n, k = q.shape
    zn, xn = mech.threshold_noise, mech.query_noise
    a = q - float(mech.threshold)
    points = np.sort(np.concatenate([a, np.zeros((n, 1))], axis=1), axis=1)
    edges = tail_edges(mech, points)
    _, lx = noise_rates(mech)
    a_sorted = np.sort(a, axis=1)
    var = variation_bound(mech, edges, a_sorted, extra=lx)
    h = edges[:, 1:] - edges[:, :-1]
    rz, _ = noise_rates(mech)
    weighted = node_plan == "weighted" or (node_plan == "auto" and k >= WEIGHT_MIN_K)
    if weighted and zn.family == "laplace" and xn.family == "laplace" and k:
        above = k - searchsorted_rows(a_sorted, edges[:, 1:], side="left")
        var = mass_weighted_variation(mech, edges, a_sorted, var, above)
    var = np.where(left_tail_mask(edges, points), h * (rz + lx), var)
    z, w, per_panel = panels(edges, var)
    panel_err = gl_relative_error(per_panel)
    weight = zn.pdf(z) * w  # (n, N)
    left, right = edges[:, 0], edges[:, -1]
    g_left = np.ones(n)  # G_{i-1}(L)
    values = np.empty((n, k + 1))
    tails = np.empty((n, k + 1))
    z_left = np.exp(zn.log_cdf(left))  # Pr[Z < L]
    z_right = np.exp(zn.log_sf(right))  # Pr[Z >= R]
    g = np.ones_like(z)  # G_{i-1} at the nodes
    skipped = np.zeros((n, k + 1))  # mass bound of the nodes left out for each output
    dropped = np.zeros(n)  # mass bound of all nodes left out so far
    lam = 1 / float(xn.scale) if xn.family == "laplace" else 0.0
    for s in range(0, k, BLOCK):
        blk = a[:, s : s + BLOCK]  # (n, b)
        b = blk.shape[1]
        # window: nodes where G_{s-1}·p_Z·w is below WINDOW of its largest value carry (for every
        # output from this block on, since G_{i-1} <= G_{s-1} and S <= 1) at most their sum: left out,
        # and that sum is added to the bound of every later output (their G stays 0 there)
        gw = g * weight
        keep = gw >= WINDOW * gw.max(axis=1, keepdims=True)
        cols = np.nonzero(keep.any(axis=0))[0]
        lo_col = int(cols[0]) if len(cols) else 0
        hi_col = int(cols[-1]) + 1 if len(cols) else 0
        dropped = dropped + gw[:, :lo_col].sum(axis=1) + gw[:, hi_col:].sum(axis=1)
        skipped[:, s : s + b] = dropped[:, None]  # G is 0 there from now on: every later output misses it
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
    skipped[:, k] = dropped
    tails = tails + skipped
    with np.errstate(divide="ignore", invalid="ignore"):
        logv = np.log(values)
        rel_tail = np.where(values > 0, tails / values, np.inf)
    # rounding: each factor carries <= 3 roundings (exp, scaling, 1 - x) and one product, u = EPS/2 each
    err = panel_err[:, None] + rel_tail + (k + 2) * 2 * EPS
    err = np.where(values < TINY, np.inf, err)
    return FastResult(logv, err)
