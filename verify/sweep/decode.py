"""Grid order and decoding of grid indices into exact numerators.

Grid order (`verify.sweep.specs`): ε, then q(D) in lexicographic order, then
the shift, then the output; a chunk is a range of pair indices
q_index·n_shifts + shift_index.  Values are returned as int64 numerators over
the grid's common ``denominator`` (exact: the specs reject grids whose
numerators would not fit float64 exactly), so the float64 screen and the exact
witness see the same point.
"""

from __future__ import annotations

import math

import numpy as np

from verify.sweep.specs import ConditionalGridSpec, GridSpec

#: Random query vectors are drawn in blocks of this many rows, each block from
#: its own generator seeded (seed, block): independent of the chunking.
RANDOM_BLOCK = 1024


def unique_rows(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``np.unique(a, axis=0, return_inverse=True)`` for a 2-d integer array, as (unique rows, inverse):
    the same rows in the same (lexicographic) order and the same inverse, ten times faster (numpy
    sorts rows as structured records).  Each column is ranked by a 1-d `np.unique`, and the ranks of
    the columns so far are folded into one rank (< n, so no overflow) column by column; when the
    columns' ranges multiply to less than 2^62 (the output grid's), each row is one int64 in mixed
    radix instead and one 1-d `np.unique` does it, or, for keys from a range at most four times the
    number of rows, a table of the keys present.

    >>> u, inv = unique_rows(np.array([[2, -1], [0, 5], [2, -1], [0, 4]]))
    >>> u.tolist(), inv.tolist()
    ([[0, 4], [0, 5], [2, -1]], [2, 1, 2, 0])
    """
    if len(a) and a.shape[1]:
        lows = [int(a[:, j].min()) for j in range(a.shape[1])]
        spans = [int(a[:, j].max()) - lo + 1 for j, lo in enumerate(lows)]
        size = math.prod(spans)
        if size < 1 << 62:  # one int64 per row, mixed radix, first column most significant: same order
            key = np.zeros(len(a), dtype=np.int64)
            for j, (lo, span) in enumerate(zip(lows, spans)):
                key = key * span + (a[:, j] - lo)
            if size <= 4 * len(a):  # a table of every key: the present ones in order, each row's rank
                present = np.zeros(size, dtype=bool)
                present[key] = True
                keys = np.flatnonzero(present)
                rank = np.cumsum(present) - 1
                first = np.empty(size, dtype=np.int64)
                first[key] = np.arange(len(a))  # a row of each key (rows of one key are equal)
                return a[first[keys]], rank[key]
            _, first, inv = np.unique(key, return_index=True, return_inverse=True)
            return a[first], inv.reshape(-1)
    rank = np.zeros(len(a), dtype=np.int64)
    for j in range(a.shape[1]):
        values, col = np.unique(a[:, j], return_inverse=True)
        _, rank = np.unique(rank * len(values) + col.reshape(-1), return_inverse=True)
        rank = rank.reshape(-1)
    _, first, inv = np.unique(rank, return_index=True, return_inverse=True)
    return a[first], inv.reshape(-1)


def base_digits(idx: np.ndarray, base: int, k: int) -> np.ndarray:
    """The k base-``base`` digits (most significant first) of each index: (n, k)."""
    pows = base ** np.arange(k - 1, -1, -1, dtype=np.int64)
    return (idx[:, None] // pows[None, :]) % base


def query_numerators(spec: GridSpec, qidx: np.ndarray) -> np.ndarray:
    """q(D) of the query-vector indices ``qidx``, as numerators over ``spec.denominator`` (n, k)."""
    den = spec.denominator
    if not spec.random_samples:
        table = np.array([int(v * den) for v in spec.query_values], dtype=np.int64)
        return table[base_digits(qidx, len(spec.query_values), spec.k)]
    lo, _ = spec.random_range
    step = int(spec.random_resolution * den)
    base = int(lo * den)
    blocks = np.unique(qidx // RANDOM_BLOCK)
    out = np.empty((len(qidx), spec.k), dtype=np.int64)
    for b in blocks:
        rng = np.random.default_rng([spec.seed, int(b)])
        rows = rng.integers(0, spec.n_values, size=(RANDOM_BLOCK, spec.k), dtype=np.int64)
        sel = (qidx // RANDOM_BLOCK) == b
        out[sel] = base + step * rows[qidx[sel] % RANDOM_BLOCK]
    return out


def shift_numerators(spec: GridSpec, sidx: np.ndarray) -> np.ndarray:
    """q(D') - q(D) of the shift indices ``sidx``, as numerators over ``spec.denominator`` (n, k)."""
    den = spec.denominator
    table = np.array([int(v * den) for v in spec.shifts], dtype=np.int64)
    return table[base_digits(sidx, len(spec.shifts), spec.k)]


def conditional_point(spec: ConditionalGridSpec, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(m numerators, κ, d, δ, is_first) for conditional grid indices; m unused where is_first.

    Order: first the ``n_first`` points with m = -∞ (d, then δ), then m, κ, d, δ lexicographically.
    """
    den = spec.denominator

    def table(v):
        return np.array([int(x * den) for x in v], dtype=np.int64)

    tm, tk, td, tdl = table(spec.gap_max), table(spec.kappas), table(spec.gap_query), table(spec.deltas)
    first = idx < spec.n_first
    rest = idx - spec.n_first
    nd, ndl, nk = len(td), len(tdl), len(tk)
    m = np.where(first, 0, tm[np.clip(rest // (nk * nd * ndl), 0, len(tm) - 1)])
    kap = np.where(first, 0, tk[(np.maximum(rest, 0) // (nd * ndl)) % nk])
    j = np.where(first, idx, np.maximum(rest, 0))
    d = td[(j // ndl) % nd]
    dl = tdl[j % ndl]
    return m, kap, d, dl, first
