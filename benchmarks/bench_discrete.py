"""Discrete-Laplace outcome probabilities on the float64 fast path, as a ratio to the continuous fast path.

For k queries (seeded integers in [-5, 5]) and every outcome B^{i-1}A and B^k of
AboveThreshold (cutoff 1), time one outcome probability on

* the discrete fast path (`verify.engine.discrete_fast`), Z, X_i ~ DLap(3Δ/ε), and
* the continuous fast path (`verify.family.fast_api`), Z, X_i ~ Lap(3Δ/ε),

in the same process (median of ``--repeat`` runs, after one warm-up that
compiles numba).  Target: discrete within 10x of continuous at k = 100.
Also times the exhaustive worst-case search of a discrete cutoff-1 variant (2 queries) and the
structured search at 5 queries (target <= 2 s), and the discrete row of ``svt-verify family --rows
sampcert-above-threshold:1`` (ε = 1/10, ``--row-queries`` queries, default 10) in CPU seconds (loss compared at 30 digits) with the
current `verify.engine.discrete_halting` and with the baseline before its factor table
(`benchmarks/baseline_discrete_halting.py`), in the same process; the two must find the same loss.

    python benchmarks/bench_discrete.py [--k 100] [--repeat 5] [--row-queries 10] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

import numpy as np
from baseline_discrete_halting import halting_logs as baseline_halting_logs

from verify.discrete import search as discrete_search
from verify.discrete.search import search_worst_case, structured_search
from verify.engine.discrete_fast import clear_cache
from verify.engine.discrete_fast import fast_log_probability as discrete_fast
from verify.family.fast_api import fast_log_probability as continuous_fast
from verify.family.presets import preset
from verify.family.table import DP_SNIPER, TableConfig, row_mechanism
from verify.family.worstcase import family_worst_case


def _median_time(fn, repeat: int) -> float:
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def _row_cpu(max_queries: int) -> dict:
    """CPU seconds of the sampcert-above-threshold:1 row (the family table's ε, Δ, t) with the current halting
    pass and with the baseline (swapped into `verify.discrete.search`), and the loss each finds."""
    mech = row_mechanism("sampcert-above-threshold", 1, TableConfig(epsilon=DP_SNIPER.epsilon,
                                                                    sensitivity=DP_SNIPER.sensitivity, threshold=None))
    current = discrete_search.halting_logs
    out = {}
    for name, fn in (("baseline", baseline_halting_logs), ("current", current)):
        discrete_search.halting_logs = fn
        try:
            clear_cache()
            t0 = time.process_time()
            res = family_worst_case(mech, max_queries=max_queries)
            out[name] = {"cpu_s": time.process_time() - t0, "loss_50_digits": res.to_json()["loss"]}
        finally:
            discrete_search.halting_logs = current
    out["ratio_current_over_baseline"] = out["current"]["cpu_s"] / out["baseline"]["cpu_s"]
    out["same_loss"] = out["current"]["loss_50_digits"] == out["baseline"]["loss_50_digits"]
    return out


def main(argv: list[str] | None = None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--k", type=int, default=100)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--row-queries", type=int, default=10)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    rng = np.random.default_rng(2026)
    q = [int(v) for v in rng.integers(-5, 6, args.k)]
    outcomes = ["B" * i + "A" for i in (0, args.k // 2, args.k - 1)] + ["B" * args.k]
    disc, cont = preset("dlap-seed-m1"), preset("seed-m1")
    row = np.array([q], dtype=float)
    rows = []
    for s in outcomes:
        # each run starts from an empty segment cache: the computation is timed, not the cache
        td = _median_time(lambda s=s: (clear_cache(), discrete_fast(disc, q, s)), args.repeat)
        tc = _median_time(lambda s=s: continuous_fast(cont, row, s), args.repeat)
        est = discrete_fast(disc, q, s).error_estimate
        rows.append({"outcome": f"B^{len(s) - 1}A" if s.endswith("A") else f"B^{len(s)}", "discrete_s": td,
                     "continuous_s": tc, "ratio": td / tc, "discrete_error_estimate": est})
    clear_cache()
    t0 = time.perf_counter()
    res = search_worst_case(preset("sampcert-above-threshold"), max_queries=2, width=6)
    search_s = time.perf_counter() - t0
    clear_cache()
    t0 = time.perf_counter()
    res5 = structured_search(preset("sampcert-above-threshold"), max_queries=5, width=10)
    search5_s = time.perf_counter() - t0
    out = {"k": args.k, "rows": rows, "worst_ratio": max(r["ratio"] for r in rows),
           "search": {"variant": "sampcert-above-threshold", "domain": res.domain, "seconds": search_s,
                      "loss_50_digits": str(res.loss_confirmed)},
           "structured_search_5_queries": {"domain": res5.domain, "seconds": search5_s,
                                           "loss_50_digits": str(res5.loss_confirmed), "target_seconds": 2},
           "family_row_sampcert_1": _row_cpu(args.row_queries)}
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        for r in rows:
            print(f"k={args.k} {r['outcome']:>8}: discrete {r['discrete_s'] * 1e3:8.2f} ms  continuous {r['continuous_s'] * 1e3:8.2f} ms"
                  f"  ratio {r['ratio']:5.2f}  (discrete error estimate {r['discrete_error_estimate']:.1e})")
        print(f"worst ratio {out['worst_ratio']:.2f} (target <= 10)")
        print(f"search {res.domain}: {search_s:.2f} s, loss {float(res.loss_confirmed):.6f}")
        print(f"search {res5.domain}: {search5_s:.2f} s (target <= 2), loss {float(res5.loss_confirmed):.6f}")
        row = out["family_row_sampcert_1"]
        print(f"family row sampcert-above-threshold:1 (ε = 1/10, {args.row_queries} queries), CPU: baseline "
              f"{row['baseline']['cpu_s']:.2f} s, current {row['current']['cpu_s']:.2f} s, ratio "
              f"{row['ratio_current_over_baseline']:.2f}, same loss: {row['same_loss']}")
    return out


if __name__ == "__main__":
    main()
