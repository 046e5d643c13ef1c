"""The structured family's probabilities by log-space quadrature (the search's objective only).

Only q_1..q_i matter for s_i, and only the distribution of M(D,x) = max_{j<i}(q_j + x_j)
and q_i enter (seed, Proof 1).  The family "earlier queries at t + a, the halting query
at t + d" has Pr[s_{n+1}] = ∫ p_Z(z) F(z-a)^n S(z-d) dz and Pr[⊤^n] = ∫ p_Z(z) F(z-a)^n dz,
with F, S the query noise's `Noise.log_cdf` / `Noise.log_sf` and p_Z the threshold
noise's `Noise.log_pdf`.  The closed form cancels catastrophically for large k; this
quadrature does not, but it is only a guide: every reported number is
`verify.ratio.privacy_ratio` at high precision on an exact rational witness.
"""

from __future__ import annotations

import math

import numpy as np

from verify.mechanism import AboveThreshold
from verify.ratio import log_ratio_from_logs

GL_NODES, GL_WEIGHTS = np.polynomial.legendre.leggauss(16)
#: The quadrature's tails are cut this many threshold-noise scales beyond the outermost kink (relative error e^-60).
TAIL_SCALES = 60.0


def logsumexp(x: np.ndarray, axis: int) -> np.ndarray:
    """log Σ exp(x) along ``axis`` without overflow; -inf where every term is -inf."""
    top = np.max(x, axis=axis, keepdims=True)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        out = np.log(np.sum(np.exp(x - safe), axis=axis)) + np.squeeze(safe, axis=axis)
    return np.where(np.isfinite(np.squeeze(top, axis=axis)), out, -np.inf)


def family_log_probability(mech: AboveThreshold, n: int, a: np.ndarray, d: np.ndarray | None = None) -> np.ndarray:
    """log Pr for the structured family, float64, vectorised over points.

    ``d`` given: Pr[s_{n+1}] with n queries at t + a and the (n+1)-th at t + d;
    ``d`` None: Pr[⊤^n] with n queries at t + a.  Quadrature of
    ∫ p_Z(z) F(z-a)^n [S(z-d)] dz in log space (no cancellation), 16-point
    Gauss-Legendre on sub-panels between the kinks 0, a, d, each short enough
    that the integrand varies by at most e^8 across it, tails cut 60 threshold
    scales out (relative error e^-60).  Without threshold noise: the product.
    """
    zn, xn = mech.threshold_noise, mech.query_noise
    a = np.atleast_1d(np.asarray(a, dtype=float))
    halt = d is not None
    d = np.atleast_1d(np.asarray(d, dtype=float)) if halt else None
    if zn.is_none:
        out = n * xn.log_cdf(-a) if n else np.zeros_like(a)
        return out + xn.log_sf(-d) if halt else out
    bz = float(zn.scale)
    rate = 1 / bz + ((n + 1) / float(xn.scale) if not xn.is_none else 0.0)
    cols = [np.zeros_like(a), a] + ([d] if halt else [])
    kinks = np.sort(np.stack(cols, axis=1), axis=1)
    tail = TAIL_SCALES * bz
    edges = np.concatenate([kinks[:, :1] - tail, kinks, kinks[:, -1:] + tail], axis=1)
    widths = np.diff(edges, axis=1)
    sub = int(np.clip(math.ceil(rate * float(widths.max()) / 8.0), 4, 4000))
    npan = widths.shape[1]
    t = (np.arange(sub)[:, None] + (GL_NODES[None, :] + 1) / 2).reshape(-1) / sub  # in [0, 1]
    wq = np.tile(GL_WEIGHTS / 2, sub) / sub
    out = np.empty(len(a))
    per = max(1, 2_000_000 // (npan * t.size))
    for s in range(0, len(a), per):
        e = slice(s, s + per)
        lo, w = edges[e, :-1], widths[e]
        z = lo[:, :, None] + w[:, :, None] * t[None, None, :]
        with np.errstate(divide="ignore"):
            logw = np.log(w)[:, :, None] + np.log(wq)[None, None, :]
        f = zn.log_pdf(z)
        if n:
            f = f + n * xn.log_cdf(z - a[e, None, None])
        if halt:
            f = f + xn.log_sf(z - d[e, None, None])
        out[e] = logsumexp((f + logw).reshape(f.shape[0], -1), axis=1)
    return out


def family_log_ratio(mech: AboveThreshold, n: int, u: np.ndarray, v: np.ndarray | None, s1: float, s2: float) -> np.ndarray:
    """log Pr(D) - log Pr(D') for the family, D' shifted by s1 (earlier queries) and s2 (halting query); 0/0 -> 0."""
    p = family_log_probability(mech, n, u, v)
    pn = family_log_probability(mech, n, u + s1, None if v is None else v + s2)
    return log_ratio_from_logs(p, pn)
