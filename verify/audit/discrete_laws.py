"""Exact laws of discrete variants for the audit: the discrete engine, and Laplace rounded to ℤ.

* A family member with noise on ℤ (`SparseVector.is_discrete`: discrete Laplace or
  Gaussian): Pr of every outcome string at integer queries from the exact discrete
  engine's float64 path (`verify.engine.discrete_fast.fast_log_probability`, the sum
  over the integer values of Z with its left-out tail mass as error estimate, the
  path `prob` takes for discrete variants).
* `rounded_laws`: the law of code that draws *continuous* Laplace noise of the
  claimed scales and rounds it to the nearest integer, the common stand-in for a
  discrete Laplace sampler.  For L ~ Lap(b), R = round(L) has (ties at ±½ have
  probability 0)

      Pr[R = k] = F_L(k + ½) - F_L(k - ½),     Pr[R >= m] = Pr[L >= m - ½] = S_L(m - ½),

  so for k >= 1, Pr[R = k] = e^{-k/b} sinh(1/(2b)) and Pr[R = 0] = 1 - e^{-1/(2b)}, against
  DLap(b)'s tanh(1/(2b)) e^{-|k|/b}: the same geometric tails, a lighter mode.  With
  integer queries, threshold and ε-scaled integer comparisons, an outcome's probability
  is the sum over the integer values z of the threshold noise

      Pr[o] = Σ_z Pr[R_Z = z] Π_segments Π_{i} (Pr[R_X >= t + z - q_i + [gt]] for A, 1 - that for B)

  (one segment for a shared threshold; after each A a resampled threshold starts a new
  sum), on the window |z| <= `WINDOW_SCALES`·b_Z, beyond which R_Z's mass is below e^{-60}.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from verify.comparison import Comparison
from verify.engine.discrete_fast import fast_log_probability
from verify.errors import InputError
from verify.mechanism import SparseVector, ThresholdPolicy

#: Half-width of the rounded threshold noise's window, in scales (the mass outside is below e^-60).
WINDOW_SCALES = 60.0


def integer_rows(rows: Sequence[Sequence[float]]) -> list[tuple[int, ...]]:
    """The query vectors as integers, refused (one line) if one is not on ℤ."""
    out = []
    for r in rows:
        if any(x != round(x) for x in r):
            raise InputError(f"queries: {tuple(r)} are not integers; a discrete variant's law is defined at integer queries")
        out.append(tuple(int(round(x)) for x in r))
    return out


def engine_laws(mech: SparseVector, rows: Sequence[Sequence[float]]) -> list[dict[str, float]]:
    """Pr of every outcome string at each integer row, from the exact discrete engine (module docstring)."""
    out = []
    for q in integer_rows(rows):
        law = {}
        for s in mech.outputs(len(q)):
            lv = fast_log_probability(mech, list(q), s).log_value
            law[s] = math.exp(lv) if math.isfinite(lv) else 0.0
        out.append(law)
    return out


def _rounded_sf(m: np.ndarray, b: float) -> np.ndarray:
    """Pr[round(L) >= m] = S_L(m - ½) for L ~ Lap(b), m integer (module docstring)."""
    y = np.asarray(m, dtype=float) - 0.5
    return np.where(y >= 0, 0.5 * np.exp(-np.abs(y) / b), 1.0 - 0.5 * np.exp(-np.abs(y) / b))


def rounded_pmf(k: np.ndarray, b: float) -> np.ndarray:
    """Pr[round(L) = k] for L ~ Lap(b)."""
    k = np.asarray(k, dtype=float)
    return _rounded_sf(k, b) - _rounded_sf(k + 1.0, b)


def _window_laws(mech: SparseVector, rows: Sequence[Sequence[float]], z: np.ndarray, pz: np.ndarray, sf_x) -> list[dict[str, float]]:
    """Σ_z Pr[Z = z] Π_i (S_X(t + z - q_i + [gt]) for an A, 1 - S_X(...) for a B) over the window ``z`` (module
    docstring), a new sum after each A when the threshold is resampled; ``sf_x(m)`` = Pr[X >= m] at integers m."""
    t = int(mech.threshold)
    shift = 1 if mech.compare is Comparison.GT else 0
    resample = mech.threshold_policy is ThresholdPolicy.RESAMPLE
    out = []
    for q in integer_rows(rows):
        above = sf_x(t + z[None, :] - np.asarray(q, dtype=float)[:, None] + shift)  # (k, z)
        out.append(prefix_products(mech.outputs(len(q)), 1.0 - above, above, pz, resample))
    return out


def prefix_products(outcomes: Sequence[str], below: np.ndarray, above: np.ndarray, w: np.ndarray,
                    resample: bool) -> dict[str, float]:
    """Pr[o] = Π_segments Σ_n w_n Π_{i in segment} P_i(z_n) for every outcome o, P_i = ``above[i]`` for an A and
    ``below[i]`` for a B ((k, nodes) arrays), a new segment after each A when the threshold is resampled
    (`_window_laws`, `verify.audit.laws.grid_letter_laws`).  The running product of the prefix an outcome shares
    with the one before is reused (``outcomes`` in depth-first order, as `SparseVector.outputs` gives them, share
    the longest prefixes): the same products in the same order as letter by letter, so the same floats, with
    about a third of the multiplications at 8 queries.  ``path[i]`` is the state after i letters of the
    current prefix: (prob, seg), the closed segments' sums and the open segment's product at the nodes."""
    path: list[tuple[float, np.ndarray]] = [(1.0, np.ones(below.shape[1]))]
    prev = ""
    law = {}
    for s in outcomes:
        j = 0
        while j < len(prev) and j < len(s) and prev[j] == s[j]:
            j += 1
        del path[j + 1:]
        prob, seg = path[j]
        for i in range(j, len(s)):
            seg = seg * (above[i] if s[i] == "A" else below[i])
            if s[i] == "A" and resample:
                prob *= float(np.dot(w, seg))
                seg = path[0][1]
            path.append((prob, seg))
        prev = s
        law[s] = prob * float(np.dot(w, seg)) if not (resample and s.endswith("A")) else prob
    return law


def _both_noises(mech: SparseVector) -> None:
    if mech.threshold_noise.is_none or mech.query_noise.is_none:
        raise InputError(f"discrete law: {mech.name} needs both noises present for the window sum")


def window_laws(mech: SparseVector, rows: Sequence[Sequence[float]]) -> list[dict[str, float]]:
    """The same law as `engine_laws` by one vectorised window sum per row, float64 and not log space (so tiny
    probabilities lose relative accuracy): for ranking candidates (`verify.audit.fit`), where it is about 100
    times faster on 8-query rows; the claim's tests use `engine_laws`.  Z's window reaches
    ``tail_reach(b_Z, WINDOW_SCALES)`` (left-out mass about e^-60)."""
    if mech.threshold_noise.is_none or mech.query_noise.is_none:
        return engine_laws(mech, rows)
    zn, xn = mech.threshold_noise, mech.query_noise
    reach = math.ceil(zn.law.tail_reach(float(zn.scale), WINDOW_SCALES))
    z = np.arange(-reach, reach + 1, dtype=float)
    pz = np.exp(zn.log_pdf(z))
    return _window_laws(mech, rows, z, pz / pz.sum(), lambda m: np.exp(xn.log_sf(m)))


def rounded_laws(mech: SparseVector, rows: Sequence[Sequence[float]]) -> list[dict[str, float]]:
    """The letters' law of ``mech`` with each discrete-Laplace noise DLap(b) replaced by round(Lap(b)) (module docstring)."""
    _both_noises(mech)
    bz, bx = float(mech.threshold_noise.scale), float(mech.query_noise.scale)
    reach = math.ceil(WINDOW_SCALES * bz)
    z = np.arange(-reach, reach + 1, dtype=float)
    pz = rounded_pmf(z, bz)
    return _window_laws(mech, rows, z, pz / pz.sum(), lambda m: _rounded_sf(m, bx))
