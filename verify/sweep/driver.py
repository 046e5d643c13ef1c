"""The parallel driver: chunks of the grid, run anywhere, folded in grid order.

Chunks are fixed ranges of the grid's pair index (`verify.sweep.decode`),
independent of the number of workers, and results are folded in chunk order:
serial, process-pool and Dask runs give identical results.  Memory stays
bounded by the chunk size.  A chunk re-evaluates points with mpmath, whose
precision is process-global: chunks on a thread-based executor take turns
under `verify.precision.MPMATH_LOCK`.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from verify.mechanism import SparseVector
from verify.parallel import executor_for, ordered_results
from verify.precision import MPMATH_LOCK
from verify.sweep.results import EpsilonSummary, SweepResult, Tally


@dataclass(frozen=True)
class ChunkResult:
    """One chunk's tally and the index of its ε."""

    eps_index: int
    tally: Tally


@dataclass(frozen=True)
class Task:
    """One chunk: pair indices [lo, hi) of ``spec`` for the ``eps_index``-th mechanism.
    ``run`` is a module-level function (picklable for process pools and Dask)."""

    run: Callable[[Task], ChunkResult]
    mechanism: SparseVector
    spec: Any
    eps_index: int
    lo: int
    hi: int


def run_task(task: Task) -> ChunkResult:
    with MPMATH_LOCK:
        return task.run(task)


def mechanisms_for(template: SparseVector, epsilons: tuple[Fraction, ...], sensitivity: Fraction | None,
                   threshold: Fraction | None) -> list[SparseVector]:
    """The template's variant at each ε of the grid (its own ε if none), with the grid's Δ and t."""
    changes: dict[str, Any] = {}
    if sensitivity is not None:
        changes["sensitivity"] = sensitivity
    if threshold is not None:
        changes["threshold"] = threshold
    eps_list = epsilons or (template.epsilon,)
    return [dataclasses.replace(template, epsilon=e, **changes) for e in eps_list]


def fold_chunk(totals: list[Tally], r: ChunkResult, cap: int) -> None:
    """Fold a finished chunk into its ε's running total (confirming its candidates: mpmath, hence the lock)."""
    with MPMATH_LOCK:
        totals[r.eps_index] = totals[r.eps_index].plus(r.tally, cap)


def drive(kind: str, run: Callable[[Task], ChunkResult], spec, mechs: list[SparseVector], executor: Executor | None,
          workers: int | None, scheduler: str | None, progress: bool | None) -> SweepResult:
    """Run every chunk of ``spec`` for every mechanism of ``mechs`` and fold; Ctrl-C returns the partial result."""
    from tqdm import tqdm

    n = spec.n_pairs
    size = spec.chunk_size
    bounds = [(lo, min(lo + size, n)) for lo in range(0, n, size)]
    tasks = [Task(run, m, spec, e, lo, hi) for e, m in enumerate(mechs) for lo, hi in bounds]
    totals = [Tally() for _ in mechs]
    done = 0
    t0 = time.perf_counter()
    runner = "serial"
    show = progress if progress is not None else False
    bar = tqdm(total=len(tasks), unit="chunk", disable=not show, leave=False, desc=f"sweep ({kind})")
    try:
        with executor_for(executor, workers, scheduler) as (ex, runner):
            window = 4 * (workers or 2) + 2
            for r in ordered_results(run_task, tasks, ex, window=window):
                fold_chunk(totals, r, spec.max_listed_violations)
                done += 1
                bar.update(1)
    except KeyboardInterrupt:
        pass
    finally:
        bar.close()
    summaries = tuple(EpsilonSummary.of(m.epsilon, t) for t, m in zip(totals, mechs))
    return SweepResult(kind, mechs[0], spec, summaries, done, len(tasks), time.perf_counter() - t0, runner)
