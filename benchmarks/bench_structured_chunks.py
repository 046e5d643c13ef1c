"""CPU time of the float64 structured evaluator, compiled and at several numpy chunk sizes, on the `family`
table's own calls.

`verify.family.structured._segment_points` computes Laplace and exponential noise with a compiled loop
(`verify.family.structured_kernel`); numpy's loop, its reference, works on chunks of `CHUNK_NODES` quadrature
nodes, and the chunk size never changes a value (the rows of a chunk are computed independently), only how
well the arrays stay in the processor's cache.  This script records every `_segment_points` call that the
table's rows make (one worker, in this process; ``--every N`` keeps every N-th call), then replays them with
the compiled loop and with numpy's at each chunk size, taking turns, ``--reps`` rounds, and prints the least
CPU time (`time.process_time`) of each with its ratio to the first numpy size, and whether every replayed value
is bit for bit the recorded one (recorded with the compiled loop).

Run: PYTHONPATH=$PWD python benchmarks/bench_structured_chunks.py [--sizes 65536,16384] [--reps 6] [--every 5]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's verify, not an installed one

from verify.family import structured  # noqa: E402
from verify.family.table import family_table  # noqa: E402


def record() -> list[tuple[tuple, np.ndarray]]:
    """Every `_segment_points` call of the default table (one worker), with its result."""
    calls: list[tuple[tuple, np.ndarray]] = []
    real = structured._segment_points

    def spy(*args):
        out = real(*args)
        calls.append((tuple(a.copy() if isinstance(a, np.ndarray) else a for a in args), out.copy()))
        return out

    structured._segment_points = spy
    try:
        structured.clear_memo()
        family_table(workers=1)
    finally:
        structured._segment_points = real
    return calls


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="65536,16384", help="chunk sizes (nodes), comma separated; the first is the reference")
    ap.add_argument("--reps", type=int, default=6)
    ap.add_argument("--every", type=int, default=5, help="replay every N-th recorded call")
    args = ap.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    structured.load_compiled()
    calls = record()[::args.every]
    runs = ["compiled"] + sizes
    best = {s: float("inf") for s in runs}
    same = True
    for _ in range(args.reps):
        for run in runs:
            structured.USE_COMPILED = run == "compiled"
            if run != "compiled":
                structured.CHUNK_NODES = run
            t0 = time.process_time()
            outs = [structured._segment_points(*a) for a, _ in calls]
            best[run] = min(best[run], time.process_time() - t0)
            same = same and all(np.array_equal(o.view(np.int64), r.view(np.int64)) for o, (_, r) in zip(outs, calls))
    structured.USE_COMPILED = True
    print(f"{len(calls)} evaluator calls replayed, least of {args.reps} alternating runs; values bit for bit the recorded ones: {same}")
    for run in runs:
        what = "compiled loop         " if run == "compiled" else f"numpy, CHUNK_NODES = {run:>8,}"
        print(f"  {what}: {best[run]:.3f} s CPU  ({best[run] / best[sizes[0]]:.2f} of numpy at {sizes[0]:,})")


if __name__ == "__main__":
    main()
