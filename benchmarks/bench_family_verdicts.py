"""Timings of the family verdicts, ratios measured in one run.

* baseline: the seed's `verify.worstcase.worst_case` on Mechanism One at --max-queries 5 (same process);
* `family_worst_case` for cutoff-1 variants at 5 queries (target <= 1 s) and for lyu-* at c = 2 and
  10 queries (target <= 10 s);
* every row of the `family` table at 10 queries beside DP-Sniper's published search time (ratio).

Run: python benchmarks/bench_family_verdicts.py
"""

from __future__ import annotations

import time

from verify.family.literature import published_for
from verify.family.table import ROWS, row_mechanism
from verify.family.worstcase import family_worst_case
from verify.mechanism import AboveThreshold
from verify.worstcase import worst_case


def timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def main() -> None:
    _, base = timed(lambda: worst_case(AboveThreshold.mechanism_one(1), max_queries=5))
    print(f"baseline: verify.worstcase.worst_case(Mechanism One, max_queries=5): {base:.2f} s")
    print("\ncutoff-1 variants at 5 queries (target <= 1 s):")
    for name in ("seed-m1", "dwork-roth", "lyu-1", "lyu-3", "lyu-4", "gap-svt"):
        r, s = timed(lambda name=name: family_worst_case(row_mechanism(name, 1), max_queries=5))
        print(f"  {name:12s} {s:6.2f} s  ({base / s:5.1f}x the baseline)  {r.verdict}")
    print("\nlyu-* at c = 2, 10 queries (target <= 10 s):")
    for name in ("lyu-1", "lyu-2", "lyu-3", "lyu-4"):
        r, s = timed(lambda name=name: family_worst_case(row_mechanism(name, 2), max_queries=10))
        print(f"  {name:12s} {s:6.2f} s  {r.verdict}")
    print("\nthe family table (10 queries) against DP-Sniper's published search time:")
    total = 0.0
    for name, c in ROWS:
        r, s = timed(lambda name=name, c=c: family_worst_case(row_mechanism(name, c), max_queries=10))
        total += s
        pub = published_for(name, c)
        ratio = "; ".join(f"DP-Sniper {p.seconds:.0f} s = {p.seconds / s:.0f}x" for p in pub) or "-"
        print(f"  {name:12s} c={'∞' if c is None else c:2}  {s:6.2f} s  {r.verdict:11s}  {ratio}")
    print(f"whole table: {total:.1f} s")


if __name__ == "__main__":
    main()
