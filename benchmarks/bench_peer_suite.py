"""The peers' suites table (`svt-verify family --suite peers`) against a baseline on the same machine.

The target (issue 31): the whole table in at most 30 s on 2 cores at load 1.  The machine this runs on
may be shared, so the script also times a baseline in the same conditions, the `family` table's rows
(`verify.family.table.TableRun`, the default rows, 10 queries) on the same number of workers, and prints
the ratio suite / baseline: a ratio stays comparable across loads where the seconds do not.  It prints
the load average at the start and at the end (``os.getloadavg``).

    python benchmarks/bench_peer_suite.py [--workers 2] [--no-baseline] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import time


def suite_seconds(workers: int) -> float:
    from verify.peers.suite import run_suite

    t0 = time.perf_counter()
    list(run_suite(workers))
    return time.perf_counter() - t0


def baseline_seconds(workers: int) -> float:
    from verify.family.table import DP_SNIPER, ROWS, TableRun

    t0 = time.perf_counter()
    with TableRun(ROWS, 10, False, DP_SNIPER, workers) as rows:
        list(rows)
    return time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--no-baseline", action="store_true")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    load0 = os.getloadavg()[0]
    suite = suite_seconds(args.workers)
    base = None if args.no_baseline else baseline_seconds(args.workers)
    out = {"workers": args.workers, "suite_seconds": round(suite, 2), "baseline_family_table_seconds": None if base is None else round(base, 2),
           "ratio_suite_over_baseline": None if base is None else round(suite / base, 3),
           "load_average_start": load0, "load_average_end": os.getloadavg()[0], "target_seconds_at_load_1": 30}
    if args.json:
        print(json.dumps(out))
        return
    for k, v in out.items():
        print(f"{k}: {v}")


if __name__ == "__main__":
    main()
