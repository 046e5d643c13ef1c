"""Benchmark of Report Noisy Max's float64 index probabilities at k = 1000 candidates (docs/selection.md).

For each noise family, k = 1000 scores drawn (seeded) uniform on [0, 10b], all k index probabilities in one call of
`verify.selection.fast.index_log_probabilities_of_floats` (the median CPU time of ``--repeats`` runs), beside a
baseline timed in the same run on the same machine (CPU time, one run):

* exponential noise: the per-index loop of the textbook integral, 64 Gauss–Legendre nodes of the u-integral per
  index (the path before the one-pass rule);
* Laplace noise: the former path, `verify.selection.fast.panel_matrix_index_logs`, the (nodes × k) matrix of log F
  on the same panels at 12 and 16 nodes per panel (both, as that path computed them for its estimate), against the
  one-pass path (prefix integral and suffix series; loops in `verify/selection/laplace_rows.py`, compiled before
  the timing); also the largest relative difference between the two over all k outputs;
* Gumbel: none (the softmax is the textbook formula).

Printed: CPU milliseconds, the ratio baseline/ours, the error estimate, and the largest relative error against
mpmath at three outputs (the leader, the median, the last), each the quadrature of a_i ∫_0^1 Π_{j≠i} (1 − a_j u) du
at 20 digits (exponential), the softmax at 30 digits (Gumbel), or `mp_index_probabilities` at 15 digits (Laplace;
``--skip-laplace-mpmath`` leaves it out: minutes at k = 1000), and whether the targets are met.
Targets (the issue): <= 10 ms for all k outputs, <= 1e-11 from mpmath.

    python benchmarks/bench_rnm.py [--k 1000] [--repeats 7] [--skip-laplace-mpmath]
"""

from __future__ import annotations

import argparse
import math
import statistics
import time

import mpmath
import numpy as np

from verify.selection.fast import clear_cache, index_log_probabilities_of_floats, panel_matrix_index_logs
from verify.selection.model import ReportNoisyMax
from verify.selection.probability import mp_index_probabilities


def _time(f, repeats: int) -> float:
    """The median CPU time (time.process_time: the machine is shared, wall time moves with the load) of
    ``repeats`` runs after one warm-up run."""
    f()
    times = []
    for _ in range(repeats):
        t = time.process_time()
        f()
        times.append(time.process_time() - t)
    return statistics.median(times)


def _former_laplace(mech: ReportNoisyMax, s: np.ndarray, b: float) -> np.ndarray:
    """The former Laplace path: the nodes × k matrix pass at 12 and 16 nodes per panel (its estimate compared them)."""
    panel_matrix_index_logs(mech, s, b, 12)
    return panel_matrix_index_logs(mech, s, b, 16)


def _naive_exponential(s: np.ndarray, b: float) -> np.ndarray:
    """The per-index loop: for each i, 64 Gauss–Legendre nodes of a_i ∫_0^1 Π_{j≠i}(1 − a_j u) du."""
    a = np.exp((s - s.max()) / b)
    x, w = np.polynomial.legendre.leggauss(64)
    u, w = (x + 1) / 2, w / 2
    out = np.empty(len(s))
    for i in range(len(s)):
        others = np.delete(a, i)
        out[i] = math.log(a[i]) + math.log(float(w @ np.prod(1 - np.outer(u, others), axis=1)))
    return out


def _reference(mech: ReportNoisyMax, s: np.ndarray, i: int) -> float:
    b = float(mech.b)
    if mech.family == "gumbel":
        with mpmath.workdps(30):
            sm = [mpmath.mpf(str(x)) for x in s]
            return float(sm[i] / b - mpmath.log(mpmath.fsum(mpmath.exp(x / b) for x in sm)))
    if mech.family == "exponential":
        with mpmath.workdps(20):
            sm = [mpmath.mpf(str(x)) for x in s]
            a = [mpmath.exp((x - max(sm)) / b) for x in sm]
            cut = min(1, 45 / (mpmath.fsum(a) - 1))
            pts = [0, cut / 4, cut, 1] if cut < 1 else [0, mpmath.mpf(1) / 4, 1]
            val = a[i] * mpmath.quad(lambda u: mpmath.fprod(1 - x * u for j, x in enumerate(a) if j != i), pts)
            return float(mpmath.log(val))
    return float(mpmath.log(mp_index_probabilities(mech, [str(x) for x in s], 15, only=i)[0]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=7)
    ap.add_argument("--skip-laplace-mpmath", action="store_true")
    args = ap.parse_args()
    print(f"k = {args.k}, scores uniform on [0, 10b] (seed 20261207), b = 2 (ε = 1, Δ = 1, scale 2); CPU times")
    print(f"{'family':<12} {'ours ms':>9} {'baseline ms':>12} {'ratio':>7} {'estimate':>9} {'max rel err vs mpmath':>22} "
          f"{'targets':>8}")
    notes = []
    for family in ("gumbel", "exponential", "laplace"):
        mech = ReportNoisyMax(1, 1, family, 2)
        b = float(mech.b)
        s = np.round(np.random.default_rng(20261207).uniform(0, 10 * b, args.k), 3)
        logp, est = index_log_probabilities_of_floats(mech, s)
        # each run starts from an empty cache of Laplace rows: the computation is timed, not the cache
        ours = _time(lambda m=mech, x=s: (clear_cache(), index_log_probabilities_of_floats(m, x)), args.repeats)
        if family == "exponential":
            base = _time(lambda x=s, bb=b: _naive_exponential(x, bb), 1)
            name = "per-index loop"
        elif family == "laplace":
            t = time.process_time()
            former = _former_laplace(mech, s, b)
            base = time.process_time() - t
            name = "former path: nodes x k matrix, 12 and 16 nodes"
            notes.append(f"laplace: one pass against the former path, largest relative difference over all {args.k} "
                         f"outputs {np.max(np.abs(np.expm1(logp - former))):.2g}")
        else:
            base, name = float("nan"), "none"
        errs = []
        if not (family == "laplace" and args.skip_laplace_mpmath):
            for i in (int(np.argmax(s)), int(np.argsort(s)[len(s) // 2]), int(np.argmin(s))):
                errs.append(abs(math.expm1(logp[i] - _reference(mech, s, i))))
        err = f"{max(errs):.2g}" if errs else "skipped"
        met = ("met" if ours <= 0.010 and max(errs) <= 1e-11 else "not met") if errs else \
            ("time met" if ours <= 0.010 else "time not met")
        print(f"{family:<12} {ours * 1e3:>9.2f} {base * 1e3:>12.1f} {base / ours:>7.0f} {est:>9.1g} {err:>22} {met:>8}  "
              f"(baseline: {name})")
    for note in notes:
        print(note)

if __name__ == "__main__":
    main()
