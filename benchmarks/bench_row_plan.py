"""What reading the one description costs the generic fast path: cold plan cache over warm, in one process.

`verify.engine.fast_generic.log_probability` reads the outcome's description over the query columns
(`verify.engine.row_plan.row_plan`, cached per mechanism, k and outcome: 2 + R exact builds of the
description, R the released values).  For each case: the median CPU time of a call with the plan
cache cleared before it (cold) and of a call with the plan cached (warm), and their ratio; the
difference is the plan's cost.  Queries uniform in [-6, 6] (seeded), one row and 100 rows.

    python benchmarks/bench_row_plan.py [--reps 5]
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time

import numpy as np

from verify.engine.fast_generic import log_probability
from verify.engine.row_plan import row_plan
from verify.family.presets import preset


def cases():
    rng = np.random.default_rng(11)
    for k in (20, 100, 1000):
        s = "B" * (k // 2) + "A" + "B" * (k - k // 2 - 2) + "A"
        yield "lyu-1 c=2", preset("lyu-1", cutoff=2), k, s, None
        yield "gap-svt c=2", preset("gap-svt", cutoff=2), k, s, [1.0, 0.5]
        many = "".join(rng.choice(["A", "B"], k, p=[0.1, 0.9]))
        lyu3 = dataclasses.replace(preset("lyu-3", cutoff=2), cutoff=None)
        yield f"lyu-3 unlimited, {many.count('A')} A's", lyu3, k, many, list(rng.uniform(0, 4, many.count("A")))


def _cpu(fn, reps: int, cold: bool) -> float:
    times = []
    for _ in range(reps):
        if cold:
            row_plan.cache_clear()
        t0 = time.process_time()
        fn()
        times.append(time.process_time() - t0)
    return statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    rng = np.random.default_rng(2026)
    for label, mech, k, s, released in cases():
        for n in (1, 100):
            q = rng.uniform(-6, 6, (n, k))
            v = None if released is None else np.array(released)

            def call(mech=mech, q=q, s=s, v=v):
                return log_probability(mech, q, s, v)

            call()  # compile and warm
            warm = _cpu(call, args.reps, cold=False)
            cold = _cpu(call, args.reps, cold=True)
            print(f"{label:28s} k = {k:4d}, {n:3d} rows: warm {warm * 1e3:9.2f} ms, cold {cold * 1e3:9.2f} ms, "
                  f"cold/warm {cold / warm:5.2f}")


if __name__ == "__main__":
    main()
