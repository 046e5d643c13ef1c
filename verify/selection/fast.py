"""Report Noisy Max in float64, with an error estimate (the search's evaluator; docs/selection.md).

* Gumbel noise: the softmax Pr[i] = e^{s_i/b} / Σ_j e^{s_j/b}, in log space (exact up to rounding).
* Laplace and exponential noise: log Pr[i] = log ∫ p(z − s_i) G(z) / F(z − s_i) dz with
  G(z) = Π_j F(z − s_j), all k outputs in one pass over one set of Gauss–Legendre nodes: panels between
  the sorted scores (the kinks of every factor) cut to width <= b/2, from the support's lower end (max s
  for exponential noise; min s for Laplace, below which every factor is on its lower branch and the
  integral is w₋^k/k · e^{(k·min s − Σ s)/b} exactly) to max s + (40 + log k)·b (beyond it the
  integrand is below e^{−40} of its mass).  On each panel every factor is one exponential branch, so the
  integrand is analytic there.  The estimate is the largest relative difference between the rules with
  12 and 16 nodes per panel (the 16-node values are returned).
* Laplace noise, first: `_laplace_index_logs`, the same panels without the (nodes × k) matrix: b·Pr[i] =
  ∫_{−∞}^{s_i} G + Σ_m 2^{−m} ∫_{s_i}^∞ G(z) e^{−m(z − s_i)/b} dz (one prefix and one suffix recurrence over the
  panels; error argument in its docstring); rows whose own estimate exceeds 1e-12 go to `panel_matrix_index_logs`.
* The released value: log of Σ_i p(v − s_i) Π_{j≠i} F(v − s_j) (a sum, no integral).

The Gauss–Legendre nodes come from the one float64 builder, `verify.engine.fast_plan.gauss_legendre` (on [0, 1];
the values are bit-identical to this module's former nodes on [−1, 1] moved in place: halving is exact).  The
float64 door serves these values (`verify.doors.fast`, ``float64 (Report Noisy Max)``).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np
from scipy.special import logsumexp

from verify.engine.fast_plan import gauss_legendre
from verify.noise.gumbel import Gumbel
from verify.noise.laplace import Laplace
from verify.selection.discrete import fast_discrete_index_logs
from verify.selection.model import ReportNoisyMax, TieRule

#: Where the exponential family's u-integral is cut: Π_{j≠i}(1 − a_j u) <= e^{−u(A − a_i)} and A − a_i >= A − 1.
_CUT = 45.0


def _scores(mech: ReportNoisyMax, queries: Sequence[object]) -> np.ndarray:
    return np.array([float(x) for x in mech.effective_scores(mech.check_queries(queries))])


def _panels(s: np.ndarray, b: float, lo: float) -> np.ndarray:
    hi = float(s.max()) + (40.0 + math.log(len(s))) * b
    ends = np.unique(np.concatenate(([lo, hi], s[(s > lo) & (s < hi)])))
    out = [ends[0]]
    for x in ends[1:]:
        n = max(1, math.ceil((x - out[-1]) / (b / 2)))
        out.extend(out[-1] + (x - out[-1]) * np.arange(1, n + 1) / n)
    return np.array(out)


#: Elements of one block of `panel_matrix_index_logs`'s matrix (8 MB of float64 per temporary).
_BLOCK_ELEMENTS = 1 << 20


def _column_blocks(k: int, width: int) -> list[slice]:
    """Slices of ``range(k)`` of ``width`` columns (``width`` >= 2), the last one widened rather than left one column
    wide: a one-column block would be reduced along its contiguous axis, by another summation order."""
    starts = list(range(0, k, width))
    if len(starts) > 1 and k - starts[-1] == 1:
        starts.pop()
    return [slice(a, b) for a, b in zip(starts, [*starts[1:], k])]


def panel_matrix_index_logs(mech: ReportNoisyMax, s: np.ndarray, b: float, rule: int) -> np.ndarray:
    """log Pr[i] for every i by the (nodes × k) matrix of log F on the panels (``rule`` nodes per panel): the path of
    two-sided laws other than Laplace, the Laplace one-pass path's fallback, and that path's baseline in
    benchmarks/bench_rnm.py and tests/test_rnm_fast_laplace.py (the module docstring states the rule)."""
    law = mech.law
    lo = float(s.max()) if not law.two_sided else float(s.min())
    edges = _panels(s, b, lo)
    u, v = gauss_legendre(rule)
    left, width = edges[:-1], np.diff(edges)
    z = (left[:, None] + width[:, None] * u[None, :]).ravel()
    logw = np.log((width[:, None] * v[None, :]).ravel())
    # in blocks of at most `_BLOCK_ELEMENTS` (each element, row sum and column's logsumexp as on the whole matrix: the
    # same bits), so that no nodes × k temporary is made: at k = 1000 the whole-matrix version peaked at 1.1 GB of
    # pages new to the process, several seconds of page faults.  log F is computed twice (for the row sums, then per
    # column block): at k = 1000 that costs about 0.3 s, less than the page faults of keeping one nodes × k array
    log_g = np.empty(len(z))
    rows = max(1, _BLOCK_ELEMENTS // len(s))
    for a in range(0, len(z), rows):
        log_g[a:a + rows] = law.log_cdf(z[a:a + rows, None] - s[None, :], b).sum(axis=1)
    out = np.empty(len(s))
    for cols in _column_blocks(len(s), max(2, _BLOCK_ELEMENTS // len(z))):
        d = z[:, None] - s[None, cols]
        terms = law.log_pdf(d, b) + (log_g[:, None] - law.log_cdf(d, b)) + logw[:, None]
        out[cols] = logsumexp(terms, axis=0)
    if law.two_sided:  # the Laplace-type lower tail below min s, exact
        k = len(s)
        tail = k * math.log(float(law.lower_weight)) - math.log(k) + (k * float(s.min()) - float(s.sum())) / b
        out = np.logaddexp(out, tail)
    return out


#: A row of the one-pass Laplace path whose 12-against-16-node difference exceeds this goes to the matrix pass.
_ROW_TOLERANCE = 1e-12
#: Series terms of log(1 − x) = −Σ x^n/n and x/(1 − x) = Σ x^n at x <= ½ (`_laplace_index_logs`).
_SER = 52


def _laplace_edges(s: np.ndarray, b: float) -> np.ndarray:
    """Panel ends for sorted s (shifted so min s = 0): every distinct score exactly, cut to width <= b/2, from
    min s to max s + (40 + log k)·b (the same cut as `_panels`)."""
    hi = float(s[-1]) + (40.0 + math.log(len(s))) * b
    ends = np.unique(np.concatenate((s, [hi])))
    gaps = np.diff(ends)
    n = np.maximum(1, np.ceil(gaps / (b / 2))).astype(int)
    first = np.repeat(np.cumsum(n) - n, n)
    frac = (np.arange(int(n.sum())) - first) / np.repeat(n, n)
    return np.concatenate((np.repeat(ends[:-1], n) + np.repeat(gaps, n) * frac, ends[-1:]))


def _laplace_index_logs(s_in: np.ndarray, b: float, rules: tuple[int, ...]) -> list[np.ndarray]:
    """Laplace noise, all k outputs in O(nodes · series terms + k) (no nodes × k matrix).

    With G(z) = Π_j F(z − s_j) and F the Laplace cdf, p(x)/F(x) = 1/b for x < 0 and, with y = ½e^{−x/b} <= ½ for
    x >= 0, p/F = (y/b)/(1 − y) = (1/b) Σ_{m>=1} 2^{−m} e^{−m·x/b}.  Hence, exactly,
        b·Pr[i] = ∫_{−∞}^{s_i} G(z) dz + Σ_{m>=1} 2^{−m} R_m(s_i),   R_m(x) = ∫_x^∞ G(z) e^{−m(z − x)/b} dz,
    all terms positive; R_m <= R_1, so stopping at m = M leaves a relative error below 2^{−M}.  Below min s,
    G = (½)^k e^{(k·z − Σ s)/b}: its integral is b(½)^k/k · e^{(k·min s − Σ s)/b}.  The prefix integrals and the
    R_m at every panel end come from one quadrature per panel (the panels and nodes of `panel_matrix_index_logs`: every
    score is a panel end, so on a panel each factor is one branch and G is analytic) and two recurrences
    (verify.selection.laplace_rows).  log G at a node z of the panel [ℓ, ·):
        upper factors (s_j > ℓ):  Σ (log ½ + (z − s_j)/b)   (counts and prefix sums of sorted s);
        lower factors (s_j <= ℓ): Σ log(1 − ½e^{−(z−s_j)/b}) = −Σ_n v^n q_n(ℓ)/n,  v = e^{−(z−ℓ)/b} <= 1,
        q_n(ℓ) = Σ_{s_j<=ℓ} (½e^{(s_j−ℓ)/b})^n <= k·2^{−n}, so stopping at n = M leaves an absolute error in
        log G (a relative one in G) below k·2^{−M}/M.
    M = _SER = 52: both truncations below 1e-15 · k / 52 + 2^{−52} (< 3e-14 at k = 1000).  The quadrature's
    error is estimated as in `panel_matrix_index_logs` (12 against 16 nodes per panel); the cut at max s + (40 + log k)·b
    is `panel_matrix_index_logs`'s.  Scores enter shifted by min s (the probabilities depend on differences only).
    One array per rule of ``rules`` (nodes per panel); the panels, power sums and score counts are built once for all."""
    order = np.argsort(s_in, kind="stable")
    s = s_in[order] - float(s_in.min())
    rows = _laplace_sorted_logs if len(s) <= CACHE_MAX_SCORES else _laplace_sorted_logs.__wrapped__
    outs = []
    for row in rows(s.tobytes(), b, rules):
        out = np.empty(len(s))
        out[order] = row
        outs.append(out)
    return outs


#: Sorted, shifted score vectors whose rows `_laplace_sorted_logs` keeps: the search asks the same differences again
#: (its corner [0 − Δ, d + Δ, ...] is the base [0, d + 2Δ, ...] moved by −Δ, a grid point two steps on).
LAPLACE_CACHE = 1024
#: Longer score vectors are computed without being kept: the cache holds at most LAPLACE_CACHE × this many floats per rule.
CACHE_MAX_SCORES = 64


@functools.lru_cache(maxsize=LAPLACE_CACHE)
def _laplace_sorted_logs(key: bytes, b: float, rules: tuple[int, ...]) -> tuple[np.ndarray, ...]:
    """`_laplace_index_logs`'s rows for the sorted scores shifted to min 0 (float64 bytes ``key``), in sorted order:
    a pure function of the exact float64 input, so its values are cached (`LAPLACE_CACHE`; read-only arrays)."""
    from verify.selection import laplace_rows  # lazy: numba compiles on first use, not at import

    s = np.frombuffer(key, dtype=float)
    k = len(s)
    edges = _laplace_edges(s, b)
    left, width = edges[:-1], np.diff(edges)
    n = np.arange(1, _SER + 1)
    pidx = np.searchsorted(left, s)  # the panel starting at s_j (every score is a left end)
    added = np.bincount(pidx, minlength=len(left)).astype(float)
    qn = laplace_rows.power_sums(width, added, b, _SER) / n
    nlow = np.searchsorted(s, left, side="right")
    nup = k - nlow
    csum = np.concatenate(([0.0], np.cumsum(s)))
    d_up = (nup * left - (csum[-1] - csum[nlow])) / b  # Σ_upper (ℓ − s_j)/b
    tail = k * math.log(0.5) - math.log(k) + math.log(b) - float(s.sum()) / b
    outs = []
    for rule in rules:
        u, wt = gauss_legendre(rule)
        t = width[:, None] * u[None, :]  # z − ℓ at the nodes, per panel
        v = np.exp(-t / b)
        base = nup[:, None] * (math.log(0.5) + t / b) + d_up[:, None] + np.log(width[:, None] * wt[None, :])
        scale, log_int, mom = laplace_rows.panel_moments(base, v, qn)
        pre = laplace_rows.prefix_logs(log_int, tail)
        series = laplace_rows.suffix_series(mom, scale, width, b)
        row = np.logaddexp(pre[pidx], series[pidx]) - math.log(b)
        row.flags.writeable = False
        outs.append(row)
    return tuple(outs)


def clear_cache() -> None:
    """Forget the rows `_laplace_sorted_logs` keeps, so that a benchmark times the computation, not the cache."""
    _laplace_sorted_logs.cache_clear()


def _exponential_index_logs(s: np.ndarray, b: float, rule: int) -> np.ndarray:
    """Exponential noise, with u = e^{−(z − max s)/b} and a_j = e^{(s_j − max s)/b}:
    Pr[i] = a_i ∫_0^1 Π_{j≠i} (1 − a_j u) du (docs/selection.md), one set of Gauss–Legendre nodes for every i, on
    [0, U], U = min(1, 45/(A − 1)), A = Σ a_j: beyond U the integrand is below e^{−45(A − a_i)/(A − 1)} <= e^{−45}
    times its bound e^{−u(A − a_i)}, and the integral is at least 1/(2A), so the cut is below 4e^{−45} of Pr[i].
    On [0, U] the integrand is a polynomial of degree k − 1 that behaves like e^{−uA}: smooth at the nodes' scale."""
    a = np.exp((s - s.max()) / b)
    rest = float(a.sum()) - 1.0
    top = 1.0 if rest <= _CUT else _CUT / rest
    nodes, w = gauss_legendre(rule)
    u = top * nodes
    log_w = np.log(top * w)
    f = 1.0 - np.outer(u, a)  # every factor in (0, 1]: u < U <= 1 at the nodes
    g = np.prod(f, axis=1)
    if g.min() > 1e-250:  # plain products (rounding about k·2^-53 relative): the fast way
        return np.log(a) + np.log((w * top) @ (g[:, None] / f))
    lg = np.log(f)  # products that could underflow: in log space
    return np.log(a) + logsumexp(lg.sum(axis=1)[:, None] - lg + log_w[:, None], axis=0)


def _two_sided_index_logs(mech: ReportNoisyMax, s: np.ndarray, b: float) -> tuple[np.ndarray, float]:
    """Two-sided continuous noise.  Laplace: `_laplace_index_logs` with 12 and 16 nodes per panel, each row's
    estimate the relative difference; the rows whose estimate exceeds _ROW_TOLERANCE (or is not finite) are
    taken from `panel_matrix_index_logs` (the nodes × k pass, with its own estimate).  Other laws: that pass."""
    if isinstance(mech.law, Laplace):
        coarse, fine = _laplace_index_logs(s, b, (12, 16))
        with np.errstate(invalid="ignore"):
            row = np.abs(np.expm1(coarse - fine))
        bad = ~(row <= _ROW_TOLERANCE)
        if not bad.any():
            return fine, float(row.max())
        old_coarse, old_fine = panel_matrix_index_logs(mech, s, b, 12), panel_matrix_index_logs(mech, s, b, 16)
        fine[bad] = old_fine[bad]
        row[bad] = np.abs(np.expm1(old_coarse - old_fine))[bad]
        return fine, float(row.max())
    coarse, fine = panel_matrix_index_logs(mech, s, b, 12), panel_matrix_index_logs(mech, s, b, 16)
    return fine, float(np.max(np.abs(np.expm1(coarse - fine))))


def index_log_probabilities_of_floats(mech: ReportNoisyMax, scores: np.ndarray) -> tuple[np.ndarray, float]:
    """`fast_index_log_probabilities` at float64 effective scores (no exact conversion: the k = 1000 path)."""
    s = np.asarray(scores, dtype=float)
    b = float(mech.b)
    if isinstance(mech.law, Gumbel):
        return s / b - logsumexp(s / b), 4e-16 * (1 + math.log(len(s)) + float(np.abs(s).max()) / b)
    if len(s) == 1:
        return np.zeros(1), 0.0
    if mech.law.discrete:
        return fast_discrete_index_logs(mech.law, s, b, mech.ties is TieRule.FIRST)
    if not mech.law.two_sided:
        coarse, fine = _exponential_index_logs(s, b, 48), _exponential_index_logs(s, b, 64)
        return fine, float(np.max(np.abs(np.expm1(coarse - fine))))
    return _two_sided_index_logs(mech, s, b)


def fast_index_log_probabilities(mech: ReportNoisyMax, queries: Sequence[object]) -> tuple[np.ndarray, float]:
    """log Pr[i] for every i (float64) and the estimated largest relative error."""
    s = _scores(mech, queries)
    b = float(mech.b)
    if not mech.law.two_sided:
        return index_log_probabilities_of_floats(mech, s)
    if isinstance(mech.law, Gumbel):
        return s / b - logsumexp(s / b), 4e-16 * (1 + math.log(len(s)) + float(np.abs(s).max()) / b)
    if len(s) == 1:
        return np.zeros(1), 0.0
    if mech.law.discrete:  # a sum over ℤ with the tie rule (verify.selection.discrete)
        return fast_discrete_index_logs(mech.law, s, b, mech.ties is TieRule.FIRST)
    return _two_sided_index_logs(mech, s, b)


def fast_value_log_density(mech: ReportNoisyMax, queries: Sequence[object], value: float) -> float:
    """log of the released maximum's density at ``value`` (−inf where it is 0)."""
    s = _scores(mech, queries)
    b = float(mech.b)
    d = value - s
    log_f = mech.law.log_cdf(d, b)
    log_p = mech.law.log_pdf(d, b)
    others = np.array([np.sum(np.delete(log_f, i)) for i in range(len(s))])
    with np.errstate(invalid="ignore"):
        return float(logsumexp(log_p + others))
