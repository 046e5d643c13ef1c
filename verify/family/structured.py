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
query release), tails cut TAIL_EFOLDS e-folds of the decay rate past the outer kinks (GAUSSIAN_TAIL_SCALES σ_Z if Z is Gaussian).
For Laplace and exponential noise the node loop is compiled (`verify.family.structured_kernel`, numba): the same
operations in the same order as numpy's loop here, so the same bits (tests/test_structured_kernel.py); numpy's
loop stays as the reference and computes Gaussian noise.
"""

from __future__ import annotations

import functools
import math
import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from verify.engine.fast_plan import gauss_legendre
from verify.mechanism import SparseVector
from verify.noise.exponential import Exponential
from verify.noise.laplace import Laplace
from verify.noise.none import NoNoise
from verify.ratio import log_ratio_from_logs
from verify.release.protocol import TermKind

#: Gauss-Legendre points per panel (the nodes and weights from the engine room's one builder, `gauss_legendre`).
GL_POINTS = 16
#: Consecutive ranges [a, b) of the points of one call, each integrated as if it were a call of its own.
Groups = tuple[tuple[int, int], ...]

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


@dataclass(frozen=True)
class Layout:
    """An output shape: n_B belows, n_A aboves; for a resampled threshold, segments B^j A (n_A of them) and r_B trailing B's.

    ``string()`` is one concrete complete outcome string with these counts: resampled, (B^j A)^{n_A} B^{r_B}; shared,
    B^{n_B} A^c when the run halted at its c-th A (the halting A is last), else A^{n_A} B^{n_B} (the run went through
    all its queries; A's first is a convention: under one threshold draw every order has the same probability).
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


def _logsumexp(x: np.ndarray, axis: int, overwrite: bool = False) -> np.ndarray:
    """log Σ exp(x) along ``axis``, shifted by the largest term; ``overwrite``: ``x`` is used as scratch."""
    top = np.max(x, axis=axis, keepdims=True)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        if overwrite:
            x = np.exp(np.subtract(x, safe, out=x), out=x)
        else:
            x = np.exp(x - safe)
        out = np.log(np.sum(x, axis=axis)) + np.squeeze(safe, axis=axis)
    return np.where(np.isfinite(np.squeeze(top, axis=axis)), out, -np.inf)


#: Quadrature nodes per chunk of points (about 128 KB of float64 per array): the integrand's ~30 array
#: passes then stay in the processor's cache.  The rows of a chunk are computed independently, so the
#: chunk size never changes a value (only the time; 65536 was 2.8x faster than 1.5 million on the
#: gap release's grid, benchmarks/bench_family_verdicts.py; 16384 took 0.67 of 65536's CPU time and 8192
#: or 32768 about 0.77, on the family table's own evaluator calls replayed with a 1 MB L2 cache:
#: benchmarks/bench_structured_chunks.py, least of 6 alternating runs, 2026-12-07, load 10-12).
CHUNK_NODES = 16_384
#: Results of `_segment_points` on the inputs it saw last, kept for exact reuse (the same inputs give the same
#: numbers): within a search (the fresh release's second phase repeats the first phase's grid once per released
#: offset) and across searches in one process (two variants with the same noises and release terms, e.g.
#: dwork-roth and lyu-1 at c = 1, which differ only in t, walk the same grid and the same Nelder-Mead path;
#: two cutoffs of one variant share their layouts with fewer than c aboves).  The key is what the
#: integrand reads (`integrand_key`), never the variant's name, ε, t, cutoff or threshold policy.
MEMO_SIZE = 4096
_MEMO: OrderedDict[tuple, np.ndarray] = OrderedDict()
_MEMO_LOCK = threading.Lock()


def clear_memo() -> None:
    """Forget the remembered values (a benchmark's cold search; they are never wrong, only reused)."""
    with _MEMO_LOCK:
        _MEMO.clear()


def integrand_key(shape: SparseVector) -> tuple:
    """Everything of ``shape`` that `_segment_points` reads: the two noises (family and scale), the release
    rule's above term and whether its value caps the threshold noise.  Two variants with equal keys have
    the same integrand, kinks, tails and panels, so the same values at the same (n_b, n_a, u, v, r, groups)."""
    rule = shape.release_rule
    return shape.threshold_noise, shape.query_noise, rule.above_term, rule.caps_threshold


@functools.lru_cache(maxsize=64)
def _panel_rule(sub: int) -> tuple[np.ndarray, np.ndarray]:
    """Nodes t in (0, 1) and log weights of Gauss-Legendre on ``sub`` equal sub-panels of [0, 1] (read-only)."""
    nodes, weights = gauss_legendre(GL_POINTS)  # on [0, 1], weights summing to 1
    t = (np.arange(sub)[:, None] + nodes[None, :]).reshape(-1) / sub
    wq = np.tile(weights, sub) / sub
    log_wq = np.log(wq)
    t.flags.writeable = log_wq.flags.writeable = False
    return t, log_wq


#: Evaluate Laplace and exponential noise with the compiled loop (`verify.family.structured_kernel`) once it is
#: loaded (`load_compiled`); False: numpy's loop below, the reference the compiled one is tested against bit for
#: bit (tests/test_structured_kernel.py).
USE_COMPILED = True
#: Whether `load_compiled` has run in this process (or the parent it forked from).
_LOADED = False


@functools.cache
def compiled_kernel():
    """The compiled node loop (`verify.family.structured_kernel`), imported on first use (`load_compiled`): numba
    takes about half a second to import, which commands that never evaluate a family table should not pay."""
    from verify.family import structured_kernel  # lazy: start-up time (numba)

    return structured_kernel


def load_compiled() -> None:
    """Import the compiled loop and load its machine code (numba's cache) with one tiny call of the types
    `_segment_points` passes; from then on this process (and the workers it forks: they share it instead of
    each paying the import and the load) evaluates Laplace and exponential noise with it.  Until then numpy's
    loop does (the same values): importing numba costs about half a second of CPU, more than the compiled loop
    saves on a small search.  The family table loads it (`verify.family.table.TableRun`: its rows spend seconds
    in the evaluator)."""
    global _LOADED
    if USE_COMPILED:
        nodes, weights = gauss_legendre(GL_POINTS)
        k = compiled_kernel()
        one = np.zeros(1)
        k.segment_values(one, one, one, np.array([[0, 1]], dtype=np.int64), 1, 1, k.SURVIVAL, False, k.LAPLACE, 1.0,
                         -math.log(2.0), k.LAPLACE, 1.0, -math.log(2.0), 1.0, 1.0, 1.0, PANEL_EFOLDS, MIN_PANELS,
                         MAX_PANELS, nodes, weights)
        _LOADED = True


def _compiled_laws(shape: SparseVector) -> tuple | None:
    """The compiled loop's arguments after the counts (above term, cap, Z's kind, scale and log-density
    constant, X's), or None when a law has no compiled form (Gaussian noise: numpy computes it)."""
    kernel = compiled_kernel()
    zn, xn = shape.threshold_noise, shape.query_noise
    rule = shape.release_rule
    kinds = ((Laplace, kernel.LAPLACE), (Exponential, kernel.EXPONENTIAL))
    z_kind = next((kind for cls, kind in kinds if isinstance(zn.law, cls)), None)
    x_kind = kernel.NONE if isinstance(xn.law, NoNoise) else next((kind for cls, kind in kinds if isinstance(xn.law, cls)), None)
    term = rule.above_term
    if z_kind is None or x_kind is None or (term is TermKind.DENSITY and xn.is_none):
        return None  # (a gap density of no noise: numpy's path raises the law's own error)
    a_term = kernel.NO_TERM if term is None else kernel.DENSITY if term is TermKind.DENSITY else kernel.SURVIVAL
    bz, bx = float(zn.scale), float(xn.scale)
    # the log-density constants exactly as the laws compute them (Laplace -log(2b), exponential -log b)
    cz = -math.log(2 * bz) if z_kind == kernel.LAPLACE else -math.log(bz)
    cx = 0.0 if xn.is_none else -math.log(2 * bx) if x_kind == kernel.LAPLACE else -math.log(bx)
    return a_term, bool(rule.caps_threshold), z_kind, bz, cz, x_kind, bx, cx


@dataclass(frozen=True)
class _Facts:
    """What every evaluation of one variant reads, computed once per variant object (`_facts`): its integrand key
    as a small number (equal keys, equal numbers: hashing the key's exact scales on every call cost more than
    some evaluations), whether r enters (`_r_free`), and, filled as asked, the compiled loop's law arguments
    (`_compiled_laws`, under ``"laws"``) and the tails and rate of each count pair (`_tails_and_rate`, under
    ``(n_b, n_a)``)."""

    token: int
    r_free: bool
    cache: dict


#: id(variant) -> (the variant, its `_Facts`): the variant is kept, so an id is never taken for another's.
_FACTS: dict[int, tuple[SparseVector, _Facts]] = {}
_KEY_TOKENS: dict[tuple, int] = {}
_FACTS_SIZE = 256


def _facts(shape: SparseVector) -> _Facts:
    hit = _FACTS.get(id(shape))
    if hit is not None and hit[0] is shape:
        return hit[1]
    key = integrand_key(shape)
    with _MEMO_LOCK:
        token = _KEY_TOKENS.setdefault(key, len(_KEY_TOKENS))
    facts = _Facts(token, _r_free(shape), {})
    with _MEMO_LOCK:
        if len(_FACTS) >= _FACTS_SIZE:
            _FACTS.clear()
        _FACTS[id(shape)] = (shape, facts)
    return facts


def _r_free(shape: SparseVector) -> bool:
    """True when the released value r enters neither the integrand nor its kinks (no gap density, no cap)."""
    rule = shape.release_rule
    return rule.above_term is not TermKind.DENSITY and not rule.caps_threshold


def _segment_log(shape: SparseVector, n_b: int, n_a: int, u: np.ndarray, v: np.ndarray, r: np.ndarray,
                 groups: Groups | None = None) -> np.ndarray:
    """log ∫ p_Z(z) F(z-u)^{n_b} G(z)^{n_a} dz (t = 0), vectorised over the points (u, v, r).

    ``groups``: consecutive ranges of the points, each integrated as if it were a call of its own
    (`_segment_points`).  The values of the last `MEMO_SIZE` calls are kept, keyed by `integrand_key` (its `_facts` token),
    the counts, the points' bits (r's only where r enters, `_r_free`) and the groups.  Where r does not
    enter and there are no groups, each distinct (u, v) is computed once: the panel count of a call is
    set by its widest point, which a repeated point does not change, so every value is the one
    `_segment_points` gives for the whole array."""
    facts = _facts(shape)
    r_free = facts.r_free
    back = None  # where each given point's value sits among the distinct points' (None: all distinct)
    if groups is None and r_free and len(u) > 1:  # the distinct (u, v), bit for bit (0.0 and -0.0 apart), in the order they first occur
        bits = np.stack([u, v], axis=1).view(np.int64)
        _, first, inverse = np.unique(bits, axis=0, return_index=True, return_inverse=True)
        if len(first) < len(u):
            order = np.argsort(first)
            rank = np.empty_like(order)
            rank[order] = np.arange(len(order))
            pick, back = first[order], rank[inverse.reshape(-1)]
            u, v, r = u[pick], v[pick], r[pick]
    key = (facts.token, n_b, n_a, u.tobytes(), v.tobytes(), None if r_free else r.tobytes(), groups)
    with _MEMO_LOCK:
        out = _MEMO.get(key)
        if out is not None:
            _MEMO.move_to_end(key)
    if out is None:
        out = _segment_points(shape, n_b, n_a, u, v, r, groups)
        out.flags.writeable = False
        with _MEMO_LOCK:
            _MEMO[key] = out
            while len(_MEMO) > MEMO_SIZE:
                _MEMO.popitem(last=False)
    return out.copy() if back is None else out[back]


def _tails_and_rate(shape: SparseVector, n_b: int, n_a: int) -> tuple[float, float, float]:
    """How far the integration runs beyond the outermost kinks (left, right) and the decay rate that sets the
    sub-panels (module docstring; `_segment_points`)."""
    zn, xn = shape.threshold_noise, shape.query_noise
    bz = float(zn.scale)
    # beyond the outermost kink the integrand decays at least at the threshold's rate plus the query
    # factors' (B's on the left, A's on the right, Laplace/exponential); 40 e-folds are cut
    xs = float(xn.scale) if not xn.is_none else math.inf
    piece = zn.law.piecewise and xn.law.piecewise
    left_rate = 1 / bz + (n_b / xs if piece else 0.0)
    right_rate = 1 / bz + (n_a / xs if piece and shape.release_rule.above_term is not None else 0.0)
    scale_tail = GAUSSIAN_TAIL_SCALES * bz if not zn.law.piecewise else None
    rate = 1 / bz + (n_b + n_a) / (xs if math.isfinite(xs) else bz)
    if not piece:
        rate *= GAUSSIAN_RATE_FACTOR
    return scale_tail or TAIL_EFOLDS / left_rate, scale_tail or TAIL_EFOLDS / right_rate, rate


@functools.lru_cache(maxsize=256)
def _bounds(groups: Groups) -> np.ndarray:
    """The compiled loop's (n, 2) array of the groups' point ranges (read-only, built once per groups)."""
    out = np.array(groups, dtype=np.int64).reshape(-1, 2)
    out.flags.writeable = False
    return out


def _segment_points(shape: SparseVector, n_b: int, n_a: int, u: np.ndarray, v: np.ndarray, r: np.ndarray,
                    groups: Groups | None = None) -> np.ndarray:
    """`_segment_log` on every point as given (see the module docstring for the panels and tails).

    The number of sub-panels is set by the widest point of each group (default: one group, every point);
    the groups that get the same number are integrated together (each point's value is computed on its
    own row, so it does not depend on which rows share the arrays: the same bits as separate calls)."""
    zn, xn = shape.threshold_noise, shape.query_noise
    rule = shape.release_rule  # its attributes (`verify.release.protocol`), never its name
    term = rule.above_term

    def log_integrand(z, uu, vv, rr):
        # the sum of the factors' logs, left to right (a count of 1 multiplies nothing; no leading 0 + ...)
        terms = []
        if n_b:
            terms.append((n_b, xn.log_cdf(z - uu)))
        if n_a:
            if term is TermKind.DENSITY:  # a gap r: p_X(r + z - v)
                terms.append((n_a, xn.log_pdf(rr + z - vv)))
            elif term is not None:
                terms.append((n_a, xn.log_sf(z - vv)))
            if rule.caps_threshold:  # the released value t + r caps the threshold noise: z <= r
                terms.append((1, np.where(z <= rr, 0.0, -np.inf)))
        if not terms:
            return np.zeros_like(z)
        f = None
        for count, g in terms:
            g = g if count == 1 else count * g
            f = g if f is None else f + g
        return f

    if zn.is_none:
        z0 = np.zeros_like(u)
        return log_integrand(z0, u, v, r)
    facts = _facts(shape)
    tails = facts.cache.get((n_b, n_a))
    if tails is None:
        tails = facts.cache[(n_b, n_a)] = _tails_and_rate(shape, n_b, n_a)
    left_tail, right_tail, rate = tails
    laws = None
    if USE_COMPILED and _LOADED:
        if "laws" not in facts.cache:
            facts.cache["laws"] = _compiled_laws(shape)
        laws = facts.cache["laws"]
    if laws is not None:  # the same values, bit for bit, in one compiled pass (`verify.family.structured_kernel`)
        nodes, weights = gauss_legendre(GL_POINTS)
        bounds = _bounds(((0, len(u)),) if groups is None else groups)
        vals, ok = compiled_kernel().segment_values(
            *(np.ascontiguousarray(a, dtype=np.float64) for a in (u, v, r)), bounds, n_b, n_a, *laws,
            left_tail, right_tail, rate, PANEL_EFOLDS, MIN_PANELS, MAX_PANELS, nodes, weights)
        if ok:
            return vals
    cols = [np.zeros_like(u), u, v]
    if term is TermKind.DENSITY:
        cols.append(v - r)
    if rule.caps_threshold:
        cols.append(r)
    kinks = np.sort(np.stack(cols, axis=1), axis=1)
    edges = np.concatenate([kinks[:, :1] - left_tail, kinks, kinks[:, -1:] + right_tail], axis=1)
    widths = np.diff(edges, axis=1)
    subs = np.empty(len(u), dtype=int)
    for a, b in ((0, len(u)),) if groups is None else groups:
        subs[a:b] = int(np.clip(math.ceil(rate * float(np.max(widths[a:b])) / PANEL_EFOLDS), MIN_PANELS, MAX_PANELS))
    out = np.empty(len(u))
    for sub in np.unique(subs):
        rows = np.flatnonzero(subs == sub)
        t, log_wq = _panel_rule(int(sub))
        per = max(1, CHUNK_NODES // (widths.shape[1] * t.size))
        for s in range(0, len(rows), per):
            e = rows[s:s + per]
            w = widths[e]
            z = edges[e, :-1, None] + w[:, :, None] * t[None, None, :]
            with np.errstate(divide="ignore", invalid="ignore"):
                logw = np.log(w)[:, :, None] + log_wq[None, None, :]
                f = np.add(zn.log_pdf(z), log_integrand(z, u[e, None, None], v[e, None, None], r[e, None, None]))
            np.copyto(f, -np.inf, where=np.isnan(f))
            f += logw
            out[e] = _logsumexp(f.reshape(f.shape[0], -1), axis=1, overwrite=True)
    return out


def family_log_probability(shape: SparseVector, lay: Layout, u, v, r, groups: Groups | None = None) -> np.ndarray:
    """log Pr (density with releases) of ``lay.string(shape)`` when B's sit at t+u, A's at t+v, released r (rel. t).

    ``groups``: ranges of the points each evaluated as a call of its own (`_segment_points`)."""
    u, v, r = (np.atleast_1d(np.asarray(a, dtype=float)) for a in (u, v, r))
    u, v, r = np.broadcast_arrays(u, v, r)
    if shape.threshold_policy == "shared":
        out = _segment_log(shape, lay.n_b, lay.n_a, u, v, r, groups)
    else:
        out = np.zeros(u.shape)
        if lay.n_a:
            out = out + lay.n_a * _segment_log(shape, lay.seg_b, 1, u, v, r, groups)
        if lay.tail_b:
            out = out + _segment_log(shape, lay.tail_b, 0, u, v, r, groups)
    if not lay.n_a:
        return out
    cache = _facts(shape).cache
    release = cache.get("release")
    if release is None:  # (the release's constant density or None, whether r < 0 has density 0): once per variant
        rule = shape.release_rule
        release = cache["release"] = (rule.constant_noise(shape), rule.nonnegative)
    density, nonnegative = release
    if density is not None:  # the released value t + r at an A query t + v: p(r - v) each
        out = out + lay.n_a * density.log_pdf(r - v)
    if nonnegative:
        out = np.where(r >= 0, out, -np.inf)
    return out


def family_log_ratio(shape: SparseVector, lay: Layout, u, v, r, s_b: float, s_a: float) -> np.ndarray:
    """log Pr[D] - log Pr[D'] with D' = (u + s_b, v + s_a, r); 0 where both sides are 0.

    Both sides in one evaluation, each side integrated as a call of its own (``groups``), so that a single
    point (the refinement's objective) costs one pass, not two."""
    u, v, r = (np.atleast_1d(np.asarray(a, dtype=float)) for a in (u, v, r))
    u, v, r = np.broadcast_arrays(u, v, r)
    n = len(u)
    both = family_log_probability(shape, lay, np.concatenate([u, u + s_b]), np.concatenate([v, v + s_a]),
                                  np.concatenate([r, r]), groups=((0, n), (n, 2 * n)))
    return log_ratio_from_logs(both[:n], both[n:])


#: The two one-point groups of `family_log_ratio_at` (D's point, then D''s).
_PAIR: Groups = ((0, 1), (1, 2))


def family_log_ratio_at(shape: SparseVector, lay: Layout, u: float, v: float, r: float, s_b: float, s_a: float) -> float:
    """`family_log_ratio` at one point, as a float: the same value, bit for bit (the same two-point arrays
    ``[u, u + s_b]``, ``[v, v + s_a]``, ``[r, r]`` integrated as two groups, the same ratio rule: both logs -inf
    -> 0, `log_ratio_from_logs`), without the array function's per-call concatenation (the refinement's objective: thousands of calls)."""
    both = family_log_probability(shape, lay, np.array([u, u + s_b]), np.array([v, v + s_a]), np.array([r, r]),
                                  groups=_PAIR)
    return float(log_ratio_from_logs(both[0], both[1]))

