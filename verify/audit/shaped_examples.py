"""Correct implementations in the shapes library code has (`verify.audit.decoders`), for the docs and tests.

* `numeric_svt_sentinels`: NumericalSVT (c = 2: Z ~ Lap(3), X_i ~ Lap(12), an above releases
  q_i + Lap(6)) returning DP-Sniper's style, one number per query answered: 0.0 for below
  (also a legal released value: the decoder declares ``ambiguous="below"``), the released
  value for above;
* `lyu1_sentinels`: lyu-1 (c = 2: Z ~ Lap(2), X_i ~ Lap(8)) returning a vector of length k:
  1.0 above, 0.0 below, -1.0 after it halted;
* `lyu1_batch`: lyu-1 (c = 2) as a vectorised batch sampler ``fn(queries, rng, n)`` (its strings built by `letters`).
"""

from __future__ import annotations

import numpy as np

from verify.audit.decoders import from_batch, from_sentinels


def _numerical(queries, rng):
    t_hat = rng.laplace(0.0, 3.0)
    out, count = [], 0
    for q in queries:
        if q + rng.laplace(0.0, 12.0) >= t_hat:
            out.append(q + rng.laplace(0.0, 6.0))
            count += 1
            if count == 2:
                break
        else:
            out.append(0.0)
    return out


#: NumericalSVT (c = 2) with 0.0 for below, decoded with the ambiguity declared.
numeric_svt_sentinels = from_sentinels(_numerical, below=0.0, releases=True, ambiguous="below")


def _lyu1_flags(queries, rng):
    res = np.full(len(queries), -1.0)
    t_hat = rng.laplace(0.0, 2.0)
    count = 0
    for i, q in enumerate(queries):
        above = q + rng.laplace(0.0, 8.0) >= t_hat
        res[i] = 1.0 if above else 0.0
        count += above
        if count == 2:
            break
    return res


#: lyu-1 (c = 2) returning 1.0 / 0.0 / -1.0 (above / below / halted).
lyu1_sentinels = from_sentinels(_lyu1_flags, below=0.0, above=1.0, halted=-1.0)


def _lyu1_many(queries, rng, n):
    """n runs of lyu-1 (c = 2) at once: Z ~ Lap(2) per run, X ~ Lap(8) per (run, query), halt at the 2nd above."""
    q = np.asarray(queries, dtype=float)
    z = rng.laplace(0.0, 2.0, n)
    above = q[None, :] + rng.laplace(0.0, 8.0, (n, len(q))) >= z[:, None]
    ups = np.cumsum(above, axis=1)
    halted = ups >= 2
    length = np.where(halted.any(axis=1), halted.argmax(axis=1) + 1, len(q))
    return letters(above, length)


def letters(above: np.ndarray, length: np.ndarray) -> list[str]:
    """The outcome strings of a batch: row r is A/B by ``above[r]`` (n, k), cut after ``length[r]`` >= 1 letters.
    Built as bytes (NUL after the cut: numpy's fixed-width bytes drop trailing NULs), then decoded, without a
    Python loop over the runs."""
    k = above.shape[1]
    codes = np.where(above, np.uint8(ord("A")), np.uint8(ord("B")))
    codes[np.arange(k)[None, :] >= np.asarray(length)[:, None]] = 0
    return np.ascontiguousarray(codes).view(f"S{k}").ravel().astype(f"U{k}").tolist()


#: lyu-1 (c = 2) as a batch sampler.
lyu1_batch = from_batch(_lyu1_many)
