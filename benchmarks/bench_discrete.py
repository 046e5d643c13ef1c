"""Discrete-Laplace outcome probabilities on the float64 fast path, as a ratio to the continuous fast path.

For k queries (seeded integers in [-5, 5]) and every outcome B^{i-1}A and B^k of
AboveThreshold (cutoff 1), time one outcome probability on

* the discrete fast path (`verify.engine.discrete_fast`), Z, X_i ~ DLap(3Δ/ε), and
* the continuous fast path (`verify.family.fast_api`), Z, X_i ~ Lap(3Δ/ε),

in the same process (median of ``--repeat`` runs, after one warm-up that
compiles numba).  Target: discrete within 10x of continuous at k = 100.
Also times the exhaustive worst-case search of a discrete cutoff-1 variant (2 queries) and the
structured search at 5 queries (target <= 2 s).

    python benchmarks/bench_discrete.py [--k 100] [--repeat 5] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np

from verify.discrete.search import search_worst_case, structured_search
from verify.engine.discrete_fast import fast_log_probability as discrete_fast
from verify.family.fast_api import fast_log_probability as continuous_fast
from verify.family.presets import preset


def _median_time(fn, repeat: int) -> float:
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(2026)
    q = [int(v) for v in rng.integers(-5, 6, args.k)]
    outcomes = ["B" * i + "A" for i in (0, args.k // 2, args.k - 1)] + ["B" * args.k]
    disc, cont = preset("dlap-seed-m1"), preset("seed-m1")
    row = np.array([q], dtype=float)
    rows = []
    for s in outcomes:
        td = _median_time(lambda s=s: discrete_fast(disc, q, s), args.repeat)
        tc = _median_time(lambda s=s: continuous_fast(cont, row, s), args.repeat)
        est = discrete_fast(disc, q, s).error_estimate
        rows.append({"outcome": f"B^{len(s) - 1}A" if s.endswith("A") else f"B^{len(s)}", "discrete_s": td,
                     "continuous_s": tc, "ratio": td / tc, "discrete_error_estimate": est})
    t0 = time.perf_counter()
    res = search_worst_case(preset("sampcert-above-threshold"), max_queries=2, width=6)
    search_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    res5 = structured_search(preset("sampcert-above-threshold"), max_queries=5, width=10)
    search5_s = time.perf_counter() - t0
    out = {"k": args.k, "rows": rows, "worst_ratio": max(r["ratio"] for r in rows),
           "search": {"variant": "sampcert-above-threshold", "domain": res.domain, "seconds": search_s,
                      "loss_50_digits": str(res.loss_confirmed)},
           "structured_search_5_queries": {"domain": res5.domain, "seconds": search5_s,
                                           "loss_50_digits": str(res5.loss_confirmed), "target_seconds": 2}}
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        for r in rows:
            print(f"k={args.k} {r['outcome']:>8}: discrete {r['discrete_s'] * 1e3:8.2f} ms  continuous {r['continuous_s'] * 1e3:8.2f} ms"
                  f"  ratio {r['ratio']:5.2f}  (discrete error estimate {r['discrete_error_estimate']:.1e})")
        print(f"worst ratio {out['worst_ratio']:.2f} (target <= 10)")
        print(f"search {res.domain}: {search_s:.2f} s, loss {float(res.loss_confirmed):.6f}")
        print(f"search {res5.domain}: {search5_s:.2f} s (target <= 2), loss {float(res5.loss_confirmed):.6f}")
    return out


if __name__ == "__main__":
    main()
