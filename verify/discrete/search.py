"""Exhaustive search over integer query vectors for the largest privacy loss of a discrete variant.

The domain searched is stated, not implied: every pair of neighbouring
integer query vectors ``q, q' = q + d`` with ``q - t ∈ [-W, W]^k`` and
``d ∈ {-Δ, ..., Δ}^k`` (so ``q' - t ∈ [-W-Δ, W+Δ]^k``), for k = 1..``max_queries``,
and every complete outcome.  A translation ``q -> q + a·1`` with integer a is the
same as moving the threshold (`verify.discrete.ties`), so the box is centred
on t without loss; its width is what limits the search.

Screening is in float64 (`verify.engine.discrete_fast`) with all outcomes' logs of a
query vector computed once; the best pair is confirmed at 50 digits by the
closed form (discrete Laplace) or the direct sum (discrete Gaussian).

Beyond the box, `layout_search` walks the continuous search's structured families
(`verify.family.structured.layouts`: letter counts, equal queries per letter, the
neighbour's direction fixed by the letter) on integer queries, for any cutoff and
threshold policy and up to ``max_queries`` queries: every B query at t + u, every A
query at t + v, the neighbour at u + Δ, v - Δ, with u, v on a geometric integer grid
reaching 32 noise scales (`layout_grid`), then an integer coordinate search from the
best point of each layout.  Its float64 objective is `layout_log_probability`, one
vectorised sum over a window of z; the best pair is confirmed at 50 digits.

`search_for` is the one entry point of the unified verdict (`verify.family.worstcase`): the
structured search for AboveThreshold (cutoff 1, shared threshold), else the exhaustive box up
to 2 queries, and the layouts when more queries are asked.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from typing import Any

import mpmath
import numpy as np

from verify.comparison import Comparison
from verify.discrete.probability import mp_probability
from verify.engine.discrete_fast import check_sum, fast_log_probability
from verify.engine.discrete_halting import halting_logs
from verify.errors import InputError
from verify.family.structured import Layout, layouts
from verify.ratio import log_ratio, log_ratio_from_logs

#: The search refuses boxes with more query vectors than this (k·outcomes fast evaluations each).
MAX_VECTORS = 20_000


@dataclass(frozen=True)
class SearchResult:
    """The largest float64 loss found, its pair and outcome, and the 50-digit confirmation."""

    loss_float: float
    queries: tuple[int, ...]
    neighbour: tuple[int, ...]
    outcome: str
    loss_confirmed: mpmath.mpf
    digits: int
    domain: str
    vectors: int
    #: the largest float64 loss of each number of queries k searched
    by_k: dict[int, float] = field(default_factory=dict)


def _log_table(mech: Any, vectors: list[tuple[int, ...]], outcomes: list[str]) -> np.ndarray:
    table = np.empty((len(vectors), len(outcomes)))
    for i, v in enumerate(vectors):
        for j, s in enumerate(outcomes):
            table[i, j] = fast_log_probability(mech, list(v), s).log_value
    return table


def _confirm(mech: Any, q: tuple[int, ...], qn: tuple[int, ...], outcome: str, digits: int) -> mpmath.mpf:
    """The pair's log ratio on the exact path (`verify.ratio.log_ratio`: the one 0/0 rule, no cancellation)."""
    with mpmath.workdps(digits + 10):
        return log_ratio(mp_probability(mech, list(q), outcome, digits=digits), mp_probability(mech, list(qn), outcome, digits=digits))


def search_worst_case(mech: Any, max_queries: int = 2, width: int = 8, digits: int = 50, centre: int | None = None) -> SearchResult:
    """The exhaustive search of the module docstring (``width`` = W), on the box centred on ``centre``
    (default the threshold t: ``q - centre ∈ [-W, W]^k``)."""
    if isinstance(width, bool) or not isinstance(width, int) or width < 0:
        raise InputError(f"width: {width!r} must be an integer >= 0")
    if isinstance(max_queries, bool) or not isinstance(max_queries, int) or max_queries < 1:
        raise InputError(f"max queries: {max_queries!r} must be an integer >= 1")
    if centre is not None and (isinstance(centre, bool) or not isinstance(centre, int)):
        raise InputError(f"centre: {centre!r} must be an integer")
    delta = mech.sensitivity.numerator
    t = mech.threshold.numerator if centre is None else centre
    reach = width + delta
    best: tuple[float, tuple, tuple, str] = (-math.inf, (), (), "")
    total = 0
    by_k: dict[int, float] = {}
    _check_box(width, delta, max_queries)
    for k in range(1, max_queries + 1):
        vectors = [tuple(t + c for c in v) for v in itertools.product(range(-reach, reach + 1), repeat=k)]
        index = {v: i for i, v in enumerate(vectors)}
        outcomes = mech.outputs(k)
        logs = _log_table(mech, vectors, outcomes)
        total += len(vectors)
        for v in vectors:
            if max(abs(c - t) for c in v) > width:
                continue
            i = index[v]
            for d in itertools.product(range(-delta, delta + 1), repeat=k):
                if not any(d):
                    continue
                w = tuple(a + b for a, b in zip(v, d))
                gap = log_ratio_from_logs(logs[i], logs[index[w]])  # both impossible: ratio 1
                j = int(np.argmax(gap))
                by_k[k] = max(by_k.get(k, -math.inf), float(gap[j]))
                if gap[j] > best[0]:
                    best = (float(gap[j]), v, w, outcomes[j])
    loss, q, qn, s = best
    conf = _confirm(mech, q, qn, s, digits)
    at = "t" if centre is None else str(centre)
    domain = f"q - {at} in [-{width}, {width}]^k, q' = q + d with d in {{-{delta}..{delta}}}^k, k = 1..{max_queries}, every outcome"
    return SearchResult(loss, q, qn, s, conf, digits, domain, total, by_k)


#: Most integer levels q - t per query in `structured_search` (2·(width + Δ) + 1): levels² vectors per k.
MAX_LEVELS = 201


def _check_levels(width: int, delta: int) -> None:
    """Refuse a structured search of more than `MAX_LEVELS` levels per query (one `InputError` line)."""
    if 2 * (width + delta) + 1 > MAX_LEVELS:
        raise InputError(f"discrete search: 2·(width {width} + Δ {delta}) + 1 = {float(2 * (width + delta) + 1):.4g} levels per "
                         f"query is above the limit of {MAX_LEVELS} (the search screens levels² vectors for each k)")


def _check_box(width: int, delta: int, max_queries: int) -> None:
    """Refuse a box of more than `MAX_VECTORS` query vectors (one `InputError` line)."""
    count = (2 * (width + delta) + 1) ** max_queries
    if count > MAX_VECTORS:
        raise InputError(f"search box: {count} query vectors for k = {max_queries} exceed {MAX_VECTORS}; lower the width or k")


def structured_search(mech: Any, max_queries: int = 5, width: int = 10, digits: int = 50) -> SearchResult:
    """A structured (not exhaustive) search for AboveThreshold (cutoff 1, shared threshold) up to
    ``max_queries`` queries: every pair ``q = (a, ..., a, c)``, ``q' = q + (s·Δ, ..., s·Δ, s'·Δ)`` with
    ``a - t, c - t ∈ [-W, W]`` and ``s, s' ∈ {-1, 0, 1}`` — the shape of the AboveThreshold witnesses
    (the earlier queries moved together, the last one on its own) — and every outcome, screened with
    `verify.engine.discrete_halting` in one vectorised pass per k and confirmed at 50 digits."""

    if isinstance(width, bool) or not isinstance(width, int) or width < 0:
        raise InputError(f"width: {width!r} must be an integer >= 0")
    if isinstance(max_queries, bool) or not isinstance(max_queries, int) or not 1 <= max_queries <= 50:
        raise InputError(f"max queries: {max_queries!r} must be an integer from 1 to 50")
    t, delta = mech.threshold.numerator, mech.sensitivity.numerator
    reach = width + delta
    _check_levels(width, delta)  # the input's size, checked before any list is built
    levels = range(t - reach, t + reach + 1)
    best: tuple[float, tuple, tuple, str] = (-math.inf, (), (), "")
    total = 0
    by_k: dict[int, float] = {}
    n = len(levels)
    for k in range(1, max_queries + 1):
        heads = [None] if k == 1 else list(levels)
        vectors = [((a,) * (k - 1) if a is not None else ()) + (c,) for a in heads for c in levels]  # index: ia·n + ic
        logs, _ = halting_logs(mech, np.array(vectors, dtype=float))
        outcomes = mech.outputs(k)
        total += len(vectors)
        shifts = np.array([(s, s2) for s in (-delta, 0, delta) for s2 in (-delta, 0, delta)
                           if (s, s2) != (0, 0) and not (k == 1 and s != 0)])
        # the pairs in the order of the vectors, then of the shifts: v = (a, ..., a, c) inside the box, w = v
        # shifted by (s, ..., s, s2), as indices (the levels are consecutive integers: a + s is level ia + s)
        ia, ic = np.divmod(np.arange(len(vectors)), n)
        inside = (np.abs(ic + levels[0] - t) <= width) & ((k == 1) | (np.abs(ia + levels[0] - t) <= width))
        iv = np.repeat(np.flatnonzero(inside), len(shifts))
        iw = iv + np.tile(shifts[:, 0] * n * (k > 1) + shifts[:, 1], int(inside.sum()))
        # every pair's gaps in one array (row by row the values of one call per pair), then the pairs in order
        gaps = log_ratio_from_logs(logs[iv], logs[iw])
        top = np.argmax(gaps, axis=1)
        for p, (j, value) in enumerate(zip(top.tolist(), gaps[np.arange(len(iv)), top])):
            by_k[k] = max(by_k.get(k, -math.inf), float(value))
            if value > best[0]:
                best = (float(value), vectors[iv[p]], vectors[iw[p]], outcomes[j])
    loss, q, qn, s = best
    conf = _confirm(mech, q, qn, s, digits)
    domain = (f"structured: q = (a, ..., a, c), a - t, c - t in [-{width}, {width}], q' = q + (s, ..., s, s') "
              f"with s, s' in {{-{delta}, 0, {delta}}}, k = 1..{max_queries}, every outcome")
    return SearchResult(loss, q, qn, s, conf, digits, domain, total, by_k)


#: The layouts' grid: queries at t ± round(j·scale) for these j (scale: the larger noise scale, or Δ), and t ± 1..3.
LAYOUT_STEPS = (0.5, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0)
#: e-folds of the threshold noise's tails kept beyond the outermost kink in `layout_log_probability`.
LAYOUT_TAIL_EFOLDS = 60.0
#: The largest window of integers z the layout search sums over (memory: one float64 per point and grid point).
LAYOUT_MAX_WINDOW = 200_000


def layout_grid(mech: Any) -> np.ndarray:
    """The integer offsets u (or v) from t tried for a letter (module docstring)."""
    scale = max([float(n.scale) for n in (mech.threshold_noise, mech.query_noise) if not n.is_none] + [float(mech.sensitivity)])
    steps = {0, 1, 2, 3} | {max(1, round(j * scale)) for j in LAYOUT_STEPS}
    return np.array(sorted({s * m for s in steps for m in (-1, 1)}), dtype=float)


def _segment_logs(mech: Any, n_b: int, n_a: int, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """log Σ_z Pr[Z=z] F(z - u + g)^{n_B} S(z - v + g)^{n_A} (`verify.engine.discrete_plan`: u_i = t - q_i + g, g = [gt])
    for B queries at t + u and A queries at t + v, float64, one value per entry of ``u``, ``v``."""
    if n_b + n_a == 0:
        return np.zeros(len(u))
    zn, xn = mech.threshold_noise, mech.query_noise
    g = 1.0 if mech.compare is Comparison.GT else 0.0
    if zn.is_none:
        z, log_pz = np.zeros(1), np.zeros(1)
    else:
        reach = math.ceil(zn.law.tail_reach(float(zn.scale), LAYOUT_TAIL_EFOLDS))
        lo = min(float(u.min()), float(v.min()), 0.0) - reach
        hi = max(float(u.max()), float(v.max()), 0.0) + reach
        if hi - lo > LAYOUT_MAX_WINDOW:
            raise InputError(f"noise scale: the layout search would sum over {hi - lo + 1:.3g} integers z (threshold scale "
                             f"{float(zn.scale):.3g}), above its limit of {LAYOUT_MAX_WINDOW:,}; give a larger ε or smaller scales")
        z = np.arange(lo, hi + 1)
        log_pz = zn.log_pdf(z)
    total = np.broadcast_to(log_pz, (len(u), len(z))).copy()
    for count, w, above in ((n_b, u, False), (n_a, v, True)):
        if not count:
            continue
        m = z[None, :] - w[:, None] + g
        if xn.is_none:  # X = 0: above iff m <= 0
            f = np.where((m <= 0) == above, 0.0, -np.inf)
        else:
            f = xn.log_sf(m) if above else xn.log_cdf(m)
        total += count * f
    from scipy.special import logsumexp  # lazy: start-up time (scipy.special: 0.35 s of CPU; only the layout search)

    with np.errstate(divide="ignore"):
        return logsumexp(total, axis=1)


def layout_log_probability(mech: Any, lay: Layout, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """log Pr[``lay.string(mech)``] with every B query at t + u and every A query at t + v (float64; a resampled
    threshold: the product over the segments B^j A and the trailing B's, `verify.engine.discrete_plan`)."""
    if mech.threshold_policy.value == "resample":
        return lay.n_a * _segment_logs(mech, lay.seg_b, 1, u, v) + _segment_logs(mech, lay.tail_b, 0, u, v)
    return _segment_logs(mech, lay.n_b, lay.n_a, u, v)


def _layout_pairs(mech: Any, lay: Layout, u: np.ndarray, v: np.ndarray) -> np.ndarray:
    """|log Pr[D] - log Pr[D']| for D at (u, v) and D' at (u + Δ, v - Δ) (the letter fixes the direction;
    the reverse ratio is the same problem with D and D' exchanged)."""
    d = float(mech.sensitivity)
    return np.abs(log_ratio_from_logs(layout_log_probability(mech, lay, u, v),
                                      layout_log_probability(mech, lay, u + d * bool(lay.n_b), v - d * bool(lay.n_a))))


def _climb(mech: Any, lay: Layout, u: float, v: float, value: float, reach: float) -> tuple[float, float, float]:
    """Integer coordinate search from (u, v): steps of 2^j down to 1, each coordinate both ways, within ±reach."""
    step = 2.0 ** math.floor(math.log2(max(1.0, reach / 4)))
    while step >= 1:
        moved = True
        while moved:
            moved = False
            cand = [(u + a * step, v + b * step) for a, b in ((1, 0), (-1, 0), (0, 1), (0, -1))
                    if (a == 0 or lay.n_b) and (b == 0 or lay.n_a)]
            cand = [(a, b) for a, b in cand if abs(a) <= reach and abs(b) <= reach]
            if not cand:
                break
            vals = _layout_pairs(mech, lay, np.array([c[0] for c in cand]), np.array([c[1] for c in cand]))
            vals = np.where(np.isnan(vals), -np.inf, vals)
            j = int(np.argmax(vals))
            if vals[j] > value + 1e-12 * max(1.0, abs(value)):
                (u, v), value, moved = cand[j], float(vals[j]), True
        step /= 2
    return u, v, value


def layout_search(mech: Any, max_queries: int, digits: int = 50) -> SearchResult:
    """The layouts of the module docstring for k = 1..``max_queries``; the best pair confirmed at ``digits``."""
    if isinstance(max_queries, bool) or not isinstance(max_queries, int) or not 1 <= max_queries <= 64:
        raise InputError(f"max queries: {max_queries!r} must be an integer from 1 to 64")
    t, delta = mech.threshold.numerator, mech.sensitivity.numerator
    grid = layout_grid(mech)
    reach = float(grid.max())
    best: tuple[float, tuple, tuple, str] = (-math.inf, (), (), "")
    by_k: dict[int, float] = {}
    total = 0
    for lay in layouts(mech, max_queries, every_k=True):
        uu, vv = (a.reshape(-1) for a in np.meshgrid(grid if lay.n_b else [0.0], grid if lay.n_a else [0.0], indexing="ij"))
        vals = _layout_pairs(mech, lay, uu, vv)
        vals = np.where(np.isnan(vals), -np.inf, vals)
        total += len(uu)
        i = int(np.argmax(vals))
        u, v, value = float(uu[i]), float(vv[i]), float(vals[i])
        if math.isfinite(value):
            u, v, value = _climb(mech, lay, u, v, value, reach)
        by_k[lay.k] = max(by_k.get(lay.k, -math.inf), value)
        if value > best[0]:
            s = lay.string(mech)
            q = tuple(t + int(u if ch == "B" else v) for ch in s)
            qn = tuple(t + int(u + delta if ch == "B" else v - delta) for ch in s)
            best = (value, q, qn, s)
    loss, q, qn, s = best
    conf = _confirm(mech, q, qn, s, digits)
    domain = (f"layouts: every letter-count class with k = 1..{max_queries} queries, B queries at t + u, A queries at t + v, "
              f"q' = q + (Δ on B, -Δ on A), u, v on the integer grid ±{{{', '.join(str(int(x)) for x in grid if x > 0)}}} "
              "and 0, then an integer coordinate search")
    return SearchResult(loss, q, qn, s, conf, digits, domain, total, by_k)


#: The exhaustive box covers at most this many queries (its size grows as (2W + 2Δ + 1)^k).
BOX_QUERIES = 2
#: The widths of the structured AboveThreshold search and of the box.
STRUCTURED_WIDTH, BOX_WIDTH = 10, 4


def check_search_for(mech: Any, max_queries: int) -> None:
    """The size limits of the searches `search_for` would run, checked before any of them starts (a table
    refuses a row it cannot compute before computing the others): the levels of the structured search or the
    box's vectors, and the sums over ℤ's own limit on the terms one probability needs, by one float64
    probability's window at the threshold (`verify.engine.discrete_fast.check_sum`: what `fast_log_probability`
    refuses before it sums, without the sum)."""
    delta = mech.sensitivity.numerator
    both = not (mech.threshold_noise.is_none or mech.query_noise.is_none)
    if mech.cutoff == 1 and mech.threshold_policy.value == "shared" and both:
        _check_levels(STRUCTURED_WIDTH, delta)
    else:
        _check_box(BOX_WIDTH, delta, min(max_queries, BOX_QUERIES))
    check_sum(mech, [mech.threshold.numerator], mech.outputs(1)[-1])


def search_for(mech: Any, max_queries: int, digits: int = 50) -> list[SearchResult]:
    """The searches of the unified verdict (module docstring), each with its best pair confirmed: for AboveThreshold
    (cutoff 1, shared threshold, both noises present) the structured search; otherwise the box up to
    ``min(max_queries, BOX_QUERIES)`` queries, and the layouts when ``max_queries`` is larger."""
    both = not (mech.threshold_noise.is_none or mech.query_noise.is_none)
    if mech.cutoff == 1 and mech.threshold_policy.value == "shared" and both:
        return [structured_search(mech, max_queries, STRUCTURED_WIDTH, digits)]
    out = [search_worst_case(mech, min(max_queries, BOX_QUERIES), BOX_WIDTH, digits)]
    if max_queries > BOX_QUERIES:
        out.append(layout_search(mech, max_queries, digits))
    return out
