"""The SVT family's fast path vs scipy.integrate.quad and vs the seed's fast path, in one process.

One evaluation = all k+1 halting probabilities of AboveThreshold (Mechanism One,
Lap(3Δ/ε), ε = Δ = 1, t = 0) for one query vector, queries uniform in [-6, 6]
(seeded), the setting of the family's fast-path targets.

* k = 100 and k = 1000: `verify.family.fast_api.fast_log_distribution` (the
  Gauss–Legendre halting path) for one vector, median of ``--reps`` runs; the
  baseline is ``scipy.integrate.quad`` over the same integrands, split at every
  kink (k = 100: all 101 outputs; k = 1000: ``--quad-outputs`` of the 1001
  outputs, evenly spaced, and the time scaled to all of them, printed as such);
  the seed's fast path (`verify.probabilities.fast_log_distribution`) on the
  same vector at k = 100 (``--seed-fast-k100``, slow: it falls back to mpmath).
* scaling, by CPU time (`time.process_time`, the least of ``--reps`` runs: wall medians are
  distorted by preemption on a shared machine): the front door
  (`verify.family.fast_api.fast_log_distribution`, escalation included) for one vector at
  k = 125 … 4000, for queries spread with k (evenly over ±0.03k), all equal (1.0) and uniform in
  [-6, 6]; each with its CPU time per query relative to k = 125's of the same kind in the same run
  (1.0 = linear in k), the largest error estimate and the rows recomputed.
* k = 3: vectors per second of the family's front door and of the seed's fast
  path on the same ``--n`` vectors (the front door dispatches AboveThreshold-shaped
  variants with k <= 12 to the seed's path), and of the halting path forced.

Accuracy: the largest relative difference from quad (itself good to ~1e-12) and
the largest error estimate.

    python benchmarks/bench_family.py [--reps 5] [--n 100000] [--quad-outputs 40] [--seed-fast-k100] [--json]

(in brackets after each scaling time: time per query over k = 125's time per query)
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import time

import numpy as np
from scipy import integrate

from verify.engine.fast_halting import halting_distribution
from verify.family import preset
from verify.family.fast_api import fast_log_distribution
from verify.probabilities import fast_log_distribution as seed_fast


def quad_output(q: np.ndarray, i: int, b: float = 3.0) -> float:
    """Pr[halt at query i] (i = len(q): no halt) by scipy quad, split at every kink (Lap(b) noises, t = 0)."""

    def cdf(x: float) -> float:
        return 0.5 * math.exp(x / b) if x < 0 else 1 - 0.5 * math.exp(-x / b)

    k = len(q)

    def f(z: float) -> float:
        v = math.exp(-abs(z) / b) / (2 * b)
        for j in range(min(i, k)):
            v *= cdf(z - q[j])
        if i < k:
            v *= 1 - cdf(z - q[i])
        return v

    kinks = sorted({0.0, *q.tolist()})
    bounds = [-math.inf, *kinks, math.inf]
    return sum(integrate.quad(f, lo, hi, epsabs=0, epsrel=1e-12, limit=200)[0] for lo, hi in zip(bounds[:-1], bounds[1:]))


def _median_time(fn, reps: int) -> float:
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _least_cpu(fn, reps: int) -> float:
    """The least CPU time (this process) of ``reps`` calls."""
    times = []
    for _ in range(reps):
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return min(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--n", type=int, default=100_000, help="vectors at k = 3")
    ap.add_argument("--quad-outputs", type=int, default=40, help="outputs timed by quad at k = 1000")
    ap.add_argument("--seed-fast-k100", action="store_true", help="also time the seed's fast path at k = 100")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    mech = preset("seed-m1")
    rng = np.random.default_rng(2026)
    result: dict = {"mechanism": mech.describe()}

    for k in (100, 1000):
        q = rng.uniform(-6, 6, (1, k))
        fast_log_distribution(mech, q)  # warm-up
        fast_s = _median_time(lambda q=q: fast_log_distribution(mech, q), args.reps)
        logp, _, refined = fast_log_distribution(mech, q)
        est = float(halting_distribution(mech, q).error_estimate.max())
        outputs = list(range(k + 1)) if k <= 100 else list(np.linspace(0, k, args.quad_outputs).astype(int))
        t0 = time.perf_counter()
        quad_vals = {i: quad_output(q[0], i) for i in outputs}
        quad_s = (time.perf_counter() - t0) * (k + 1) / len(outputs)
        diff = max(abs(math.exp(logp[0, i]) / v - 1) for i, v in quad_vals.items() if v > 0)
        result[f"k{k}"] = {
            "fast_seconds": fast_s, "quad_seconds": quad_s, "quad_outputs_timed": len(outputs),
            "speedup_vs_quad": quad_s / fast_s, "max_rel_diff_vs_quad": diff, "max_error_estimate": est,
            "rows_refined": int(refined),
        }
        if k == 100 and args.seed_fast_k100:
            t0 = time.perf_counter()
            seed_fast(mech, q)
            result["k100"]["seed_fast_seconds"] = time.perf_counter() - t0

    scaling = {}
    makers = {
        "spread": lambda k: np.linspace(-0.03 * k, 0.03 * k, k)[None, :],
        "equal": lambda k: np.ones((1, k)),
        "uniform": lambda k: rng.uniform(-6, 6, (1, k)),
    }
    for kind, make in makers.items():
        rows = []
        for k in (125, 250, 500, 1000, 2000, 4000):
            q = make(k)
            fast_log_distribution(mech, q)
            cpu = _least_cpu(lambda q=q: fast_log_distribution(mech, q), args.reps)
            _, _, refined = fast_log_distribution(mech, q)
            est = float(halting_distribution(mech, q).error_estimate.max())
            rows.append({"k": k, "cpu_seconds": cpu, "max_error_estimate": est, "rows_refined": int(refined)})
        for r in rows:
            r["per_query_vs_first"] = (r["cpu_seconds"] / r["k"]) / (rows[0]["cpu_seconds"] / rows[0]["k"])
        scaling[kind] = rows
    result["scaling"] = scaling

    q3 = np.round(rng.normal(0, 4, size=(args.n, 3)), 6)
    seed_fast(mech, q3[:1000])
    seed_s = _median_time(lambda: seed_fast(mech, q3), max(1, args.reps // 2))
    fam_s = _median_time(lambda: fast_log_distribution(mech, q3), max(1, args.reps // 2))
    halt_n = min(args.n, 20_000)
    halt_s = _median_time(lambda: halting_distribution(mech, q3[:halt_n]), 1)
    result["k3"] = {
        "vectors": args.n, "seed_fast_per_second": args.n / seed_s, "family_fast_per_second": args.n / fam_s,
        "ratio_family_over_seed": seed_s / fam_s, "halting_path_per_second": halt_n / halt_s,
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{mech.describe()}; queries uniform in [-6, 6]; one evaluation = all k+1 halting probabilities of one vector")
    for k in (100, 1000):
        r = result[f"k{k}"]
        quad_note = "" if k <= 100 else f" (quad timed on {r['quad_outputs_timed']} of the {k + 1} outputs, scaled)"
        print(f"k = {k:4d}: family fast {r['fast_seconds'] * 1e3:8.2f} ms; quad {r['quad_seconds']:8.2f} s{quad_note}; "
              f"speed-up {r['speedup_vs_quad']:,.0f}x; max |fast/quad - 1| {r['max_rel_diff_vs_quad']:.1e}; "
              f"max error estimate {r['max_error_estimate']:.1e}")
        if "seed_fast_seconds" in r:
            print(f"          seed fast path on the same vector: {r['seed_fast_seconds']:.2f} s")
    labels = {"spread": "spread evenly over ±0.03k", "equal": "all equal", "uniform": "uniform in [-6, 6]"}
    for kind, rows in result["scaling"].items():
        print(f"front door, CPU time, queries {labels[kind]} (per query vs k = 125 in brackets; max estimate; rows refined):")
        print("    " + "; ".join(f"k = {r['k']} {r['cpu_seconds'] * 1e3:.1f} ms ({r['per_query_vs_first']:.2f}; "
                                f"{r['max_error_estimate']:.1e}; {r['rows_refined']})" for r in rows))
    r = result["k3"]
    print(f"k =    3: seed fast {r['seed_fast_per_second']:,.0f} vectors/s, family front door {r['family_fast_per_second']:,.0f} /s "
          f"(ratio {r['ratio_family_over_seed']:.2f}); halting path forced {r['halting_path_per_second']:,.0f} /s")


if __name__ == "__main__":
    main()
