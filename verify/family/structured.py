"""The structured families the worst-case search walks, and their float64 log-probabilities.

Why the search may stay in these families (the shared-threshold argument of
the seed's proofs, extended to the family; `verify.family.worstcase`):

* **Order does not matter under one threshold draw.**  Given Z = z the letters
  are independent (seed, Proof 1), so the probability of an outcome string is
  ∫ p_Z(z) Π_{B} F(t+z-q_i) Π_{A} G_i(z) dz, a symmetric function of the
  (letter, query, released value) triples.  With a shared threshold an output is
  determined, up to the order of its letters, by n_B and n_A; with a resampled
  threshold the log-probability is a sum over the segments B^j A (each an
  AboveThreshold run) and the trailing B's.
* **The neighbour's direction is fixed by the letter.**  To make Pr[D]/Pr[D']
  large, a B query of D' moves up (F(z - u - σ) decreases in σ: σ_B = +Δ) and,
  without a released value, an A query moves down (S(z - v - σ) increases in σ:
  σ_A = -Δ).  The ratio Pr[D']/Pr[D] is the same problem with D and D'
  exchanged.  With a fresh released value the A factor carries the density
  p_Y(r - q), not monotone in σ_A and of bounded support for exponential Y:
  σ_A = +Δ is tried too, and the released value moves around the A query
  (offset r - v on the grid and in the refinement, `verify.family.worstcase`).  Monotone neighbours (Lyu §4) keep
  one sign: (σ_B, σ_A) ∈ {(+Δ, 0), (+Δ, +Δ), (0, -Δ), (-Δ, -Δ)}.
* **Equal queries per letter.**  All B queries at t + u, all A queries at
  t + v, one released value r (relative to t; for the gap release r is the
  gap): the pushed families of the seed's tightness study (u → +∞, v → -∞)
  and the growth families of `verify.family.bounds` are members.  Full
  generality is restored only by the final exact confirmation: every number
  the search reports is recomputed at 50 digits on an exact witness.

`family_log_probability` evaluates log ∫ p_Z(z) F(z-u)^{n_B} G(z)^{n_A} dz (+ the
release constants) in float64 log space by Gauss-Legendre quadrature on
sub-panels between the kinks (0, u, v, v - r for the gap, the cap r for the
query release), tails cut 60 scales out (40 for Gaussian threshold noise).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from verify.mechanism import SparseVector
from verify.ratio import log_ratio_from_logs
from verify.release.protocol import TermKind

GL_NODES, GL_WEIGHTS = np.polynomial.legendre.leggauss(16)

# Tuning parameters of the float64 objective's quadrature (`_segment_log`): they set its resolution and cost, which the
# tests pin against the exact oracle (1e-9); no reported number rests on them (the search's best points are confirmed by
# the exact mpmath path).  The mutation runner does not mutate them (docs/mutation.md, "Tuning parameters").
#: e-folds of the integrand cut beyond the outermost kink (Laplace/exponential threshold noise).
TAIL_EFOLDS = 40.0
#: Gaussian threshold noise: the integration range extends this many σ_Z beyond the outermost kink.
GAUSSIAN_TAIL_SCALES = 12.0
#: Gaussian noise: the panels are this many times finer than the decay rate alone asks.
GAUSSIAN_RATE_FACTOR = 8.0
#: Panels per segment: one per this many e-folds of the widest segment, clipped to [MIN_PANELS, MAX_PANELS].
PANEL_EFOLDS = 10.0
MIN_PANELS, MAX_PANELS = 4, 400
#: Quadrature points evaluated per numpy chunk (memory, not accuracy).
CHUNK_POINTS = 1_500_000


@dataclass(frozen=True)
class Layout:
    """An output shape: n_B belows, n_A aboves; for a resampled threshold, segments B^j A (n_A of them) and r_B trailing B's.

    ``string()`` is one concrete complete outcome string with these counts.
    """

    n_b: int
    n_a: int
    seg_b: int = 0  # resample: B's before each A
    tail_b: int = 0  # resample: trailing B's

    @property
    def k(self) -> int:
        return self.n_b + self.n_a

    def string(self, shape: SparseVector) -> str:
        if shape.threshold_policy == "resample":
            return ("B" * self.seg_b + "A") * self.n_a + "B" * self.tail_b
        if shape.cutoff is not None and self.n_a == shape.cutoff:
            return "B" * self.n_b + "A" * self.n_a  # the run halts at the c-th A: it must be last
        return "A" * self.n_a + "B" * self.n_b


def layouts(shape: SparseVector, max_queries: int, every_k: bool = False) -> list[Layout]:
    """Every letter-count class of complete outputs with at most ``max_queries`` queries (O(cK), not 2^K).

    ``every_k``: also the dominated classes (a run with fewer than c aboves and k < ``max_queries``
    queries), so that the loss can be reported for every k."""
    c = shape.cutoff
    out = []
    if shape.threshold_policy == "shared":
        for k in range(1, max_queries + 1):
            for n_a in range(0, k + 1):
                n_b = k - n_a
                if c is not None and n_a > c:
                    continue
                # n_a == c: the run halted at the k-th letter (every k <= K counts); n_a < c: the run went
                # through all k queries, and a k-query output is the limit of a K-query one whose extra
                # queries sit far below the threshold (their factor F -> 1 on both sides): k = K suffices
                if (c is None or n_a < c) and k < max_queries and not every_k:
                    continue
                out.append(Layout(n_b, n_a))
        return out
    for n_a in range(0, (c if c is not None else max_queries) + 1):
        for j in range(0, max_queries + 1):
            used = n_a * (j + 1)
            if used > max_queries or (n_a == 0 and j > 0):
                continue
            if c is not None and n_a == c:
                out.append(Layout(n_a * j, n_a, j, 0))
            else:
                for tail in ([max_queries - used] if max_queries > used else [0]):
                    out.append(Layout(n_a * j + tail, n_a, j, tail))
    return [lay for lay in out if lay.k >= 1]


def _logsumexp(x: np.ndarray, axis: int) -> np.ndarray:
    top = np.max(x, axis=axis, keepdims=True)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(np.sum(np.exp(x - safe), axis=axis)) + np.squeeze(safe, axis=axis)
    return np.where(np.isfinite(np.squeeze(top, axis=axis)), out, -np.inf)


def _segment_log(shape: SparseVector, n_b: int, n_a: int, u: np.ndarray, v: np.ndarray, r: np.ndarray) -> np.ndarray:
    """log ∫ p_Z(z) F(z-u)^{n_b} G(z)^{n_a} dz (t = 0), vectorised over the points (u, v, r)."""
    zn, xn = shape.threshold_noise, shape.query_noise
    rule = shape.release_rule  # its attributes (`verify.release.protocol`), never its name
    term = rule.above_term

    def log_integrand(z, uu, vv, rr):
        f = np.zeros_like(z)
        if n_b:
            f = f + n_b * xn.log_cdf(z - uu)
        if n_a:
            if term is TermKind.DENSITY:  # a gap r: p_X(r + z - v)
                f = f + n_a * xn.log_pdf(rr + z - vv)
            elif term is not None:
                f = f + n_a * xn.log_sf(z - vv)
            if rule.caps_threshold:  # the released value t + r caps the threshold noise: z <= r
                f = f + np.where(z <= rr, 0.0, -np.inf)
        return f

    if zn.is_none:
        z0 = np.zeros_like(u)
        return log_integrand(z0, u, v, r)
    cols = [np.zeros_like(u), u, v]
    if term is TermKind.DENSITY:
        cols.append(v - r)
    if rule.caps_threshold:
        cols.append(r)
    kinks = np.sort(np.stack(cols, axis=1), axis=1)
    bz = float(zn.scale)
    # beyond the outermost kink the integrand decays at least at the threshold's rate plus the query
    # factors' (B's on the left, A's on the right, Laplace/exponential); 40 e-folds are cut
    xs = float(xn.scale) if not xn.is_none else math.inf
    piece = zn.law.piecewise and xn.law.piecewise
    left_rate = 1 / bz + (n_b / xs if piece else 0.0)
    right_rate = 1 / bz + (n_a / xs if piece and term is not None else 0.0)
    scale_tail = GAUSSIAN_TAIL_SCALES * bz if not zn.law.piecewise else None
    lo = kinks[:, :1] - (scale_tail or TAIL_EFOLDS / left_rate)
    hi = kinks[:, -1:] + (scale_tail or TAIL_EFOLDS / right_rate)
    edges = np.concatenate([lo, kinks, hi], axis=1)
    widths = np.diff(edges, axis=1)
    rate = 1 / bz + (n_b + n_a) / (xs if math.isfinite(xs) else bz)
    if not (zn.law.piecewise and xn.law.piecewise):
        rate *= GAUSSIAN_RATE_FACTOR
    sub = int(np.clip(math.ceil(rate * float(np.max(widths)) / PANEL_EFOLDS), MIN_PANELS, MAX_PANELS))
    t = (np.arange(sub)[:, None] + (GL_NODES[None, :] + 1) / 2).reshape(-1) / sub
    wq = np.tile(GL_WEIGHTS / 2, sub) / sub
    out = np.empty(len(u))
    per = max(1, CHUNK_POINTS // (widths.shape[1] * t.size))
    for s in range(0, len(u), per):
        e = slice(s, s + per)
        w = widths[e]
        z = edges[e, :-1, None] + w[:, :, None] * t[None, None, :]
        with np.errstate(divide="ignore", invalid="ignore"):
            logw = np.log(w)[:, :, None] + np.log(wq)[None, None, :]
            f = zn.log_pdf(z) + log_integrand(z, u[e, None, None], v[e, None, None], r[e, None, None])
        f = np.where(np.isnan(f), -np.inf, f)
        out[e] = _logsumexp((f + logw).reshape(f.shape[0], -1), axis=1)
    return out


def family_log_probability(shape: SparseVector, lay: Layout, u, v, r) -> np.ndarray:
    """log Pr (density with releases) of ``lay.string(shape)`` when B's sit at t+u, A's at t+v, released r (rel. t)."""
    u, v, r = (np.atleast_1d(np.asarray(a, dtype=float)) for a in (u, v, r))
    u, v, r = np.broadcast_arrays(u, v, r)
    if shape.threshold_policy == "shared":
        out = _segment_log(shape, lay.n_b, lay.n_a, u, v, r)
    else:
        out = np.zeros(u.shape)
        if lay.n_a:
            out = out + lay.n_a * _segment_log(shape, lay.seg_b, 1, u, v, r)
        if lay.tail_b:
            out = out + _segment_log(shape, lay.tail_b, 0, u, v, r)
    rule = shape.release_rule
    density = rule.constant_noise(shape)
    if lay.n_a and density is not None:  # the released value t + r at an A query t + v: p(r - v) each
        out = out + lay.n_a * density.log_pdf(r - v)
    if lay.n_a and rule.nonnegative:
        out = np.where(r >= 0, out, -np.inf)
    return out


def family_log_ratio(shape: SparseVector, lay: Layout, u, v, r, s_b: float, s_a: float) -> np.ndarray:
    """log Pr[D] - log Pr[D'] with D' = (u + s_b, v + s_a, r); 0 where both sides are 0."""
    p = family_log_probability(shape, lay, u, v, r)
    pn = family_log_probability(shape, lay, np.asarray(u, dtype=float) + s_b, np.asarray(v, dtype=float) + s_a, r)
    return log_ratio_from_logs(p, pn)
