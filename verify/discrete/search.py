"""Exhaustive search over integer query vectors for the largest privacy loss of a discrete variant.

The domain searched is stated, not implied: every pair of neighbouring
integer query vectors ``q, q' = q + d`` with ``q - t ∈ [-W, W]^k`` and
``d ∈ {-Δ, ..., Δ}^k`` (so ``q' - t ∈ [-W-Δ, W+Δ]^k``), for k = 1..``max_queries``,
and every complete outcome.  A translation ``q -> q + a·1`` with integer a is the
same as moving the threshold (`verify.discrete.ties`), so the box is centred
on t without loss; its width is what limits the search.

Screening is in float64 (`verify.discrete.fast`) with all outcomes' logs of a
query vector computed once; the best pair is confirmed at 50 digits by the
closed form (discrete Laplace) or the direct sum (discrete Gaussian).
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from typing import Any

import mpmath
import numpy as np

from verify.discrete.fast import fast_log_probability
from verify.discrete.probability import mp_probability
from verify.errors import InputError
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


def search_worst_case(mech: Any, max_queries: int = 2, width: int = 8, digits: int = 50) -> SearchResult:
    """The exhaustive search of the module docstring (``width`` = W)."""
    if isinstance(width, bool) or not isinstance(width, int) or width < 0:
        raise InputError(f"width: {width!r} must be an integer >= 0")
    if isinstance(max_queries, bool) or not isinstance(max_queries, int) or max_queries < 1:
        raise InputError(f"max queries: {max_queries!r} must be an integer >= 1")
    t, delta = mech.threshold.numerator, mech.sensitivity.numerator
    reach = width + delta
    best: tuple[float, tuple, tuple, str] = (-math.inf, (), (), "")
    total = 0
    count = (2 * reach + 1) ** max_queries
    if count > MAX_VECTORS:
        raise InputError(f"search box: {count} query vectors for k = {max_queries} exceed {MAX_VECTORS}; lower the width or k")
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
                if gap[j] > best[0]:
                    best = (float(gap[j]), v, w, outcomes[j])
    loss, q, qn, s = best
    conf = _confirm(mech, q, qn, s, digits)
    domain = f"q - t in [-{width}, {width}]^k, q' = q + d with d in {{-{delta}..{delta}}}^k, k = 1..{max_queries}, every outcome"
    return SearchResult(loss, q, qn, s, conf, digits, domain, total)


#: Most integer levels q - t per query in `structured_search` (2·(width + Δ) + 1): levels² vectors per k.
MAX_LEVELS = 201


def structured_search(mech: Any, max_queries: int = 5, width: int = 10, digits: int = 50) -> SearchResult:
    """A structured (not exhaustive) search for AboveThreshold (cutoff 1, shared threshold) up to
    ``max_queries`` queries: every pair ``q = (a, ..., a, c)``, ``q' = q + (s·Δ, ..., s·Δ, s'·Δ)`` with
    ``a - t, c - t ∈ [-W, W]`` and ``s, s' ∈ {-1, 0, 1}`` — the shape of the AboveThreshold witnesses
    (the earlier queries moved together, the last one on its own) — and every outcome, screened with
    `verify.discrete.halting` in one vectorised pass per k and confirmed at 50 digits."""
    from verify.discrete.halting import halting_logs

    if isinstance(width, bool) or not isinstance(width, int) or width < 0:
        raise InputError(f"width: {width!r} must be an integer >= 0")
    if isinstance(max_queries, bool) or not isinstance(max_queries, int) or not 1 <= max_queries <= 50:
        raise InputError(f"max queries: {max_queries!r} must be an integer from 1 to 50")
    t, delta = mech.threshold.numerator, mech.sensitivity.numerator
    reach = width + delta
    if 2 * reach + 1 > MAX_LEVELS:  # the input's size, checked before any list is built
        raise InputError(f"discrete search: 2·(width {width} + Δ {delta}) + 1 = {float(2 * reach + 1):.4g} levels per query is above the limit of "
                         f"{MAX_LEVELS} (the search screens levels² vectors for each k)")
    levels = range(t - reach, t + reach + 1)
    best: tuple[float, tuple, tuple, str] = (-math.inf, (), (), "")
    total = 0
    for k in range(1, max_queries + 1):
        heads = [None] if k == 1 else list(levels)
        vectors = [((a,) * (k - 1) if a is not None else ()) + (c,) for a in heads for c in levels]
        index = {v: i for i, v in enumerate(vectors)}
        logs, _ = halting_logs(mech, np.array(vectors, dtype=float))
        outcomes = mech.outputs(k)
        total += len(vectors)
        shifts = [(s, s2) for s in (-delta, 0, delta) for s2 in (-delta, 0, delta) if (s, s2) != (0, 0)]
        for v in vectors:
            if abs(v[-1] - t) > width or (k > 1 and abs(v[0] - t) > width):
                continue
            i = index[v]
            for s, s2 in shifts:
                if k == 1 and s != 0:
                    continue
                w = tuple(x + s for x in v[:-1]) + (v[-1] + s2,)
                gap = log_ratio_from_logs(logs[i], logs[index[w]])
                j = int(np.argmax(gap))
                if gap[j] > best[0]:
                    best = (float(gap[j]), v, w, outcomes[j])
    loss, q, qn, s = best
    conf = _confirm(mech, q, qn, s, digits)
    domain = (f"structured: q = (a, ..., a, c), a - t, c - t in [-{width}, {width}], q' = q + (s, ..., s, s') "
              f"with s, s' in {{-{delta}, 0, {delta}}}, k = 1..{max_queries}, every outcome")
    return SearchResult(loss, q, qn, s, conf, digits, domain, total)
