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
                a, b = logs[i], logs[index[w]]
                with np.errstate(invalid="ignore"):
                    gap = np.where((a == -math.inf) & (b == -math.inf), 0.0, a - b)  # both impossible: ratio 1
                j = int(np.argmax(gap))
                if gap[j] > best[0]:
                    best = (float(gap[j]), v, w, outcomes[j])
    loss, q, qn, s = best
    with mpmath.workdps(digits + 10):
        conf = mpmath.log(mp_probability(mech, list(q), s, digits=digits)) - mpmath.log(mp_probability(mech, list(qn), s, digits=digits))
    domain = f"q - t in [-{width}, {width}]^k, q' = q + d with d in {{-{delta}..{delta}}}^k, k = 1..{max_queries}, every outcome"
    return SearchResult(loss, q, qn, s, conf, digits, domain, total)
