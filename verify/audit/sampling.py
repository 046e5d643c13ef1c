"""Running the implementation: chunks of runs in this process, worker processes or on a Dask cluster.

Every (round, pair, side) is cut into chunks of at most `CHUNK` runs; chunk j
gets its own generator ``default_rng(SeedSequence(seed, spawn_key=(round, pair,
side, j)))``.  The chunks' boundaries and seeds depend only on the audit's
parameters, never on the number of workers, so the counts are the same bit for
bit however they are run (`verify.parallel.ordered_results`).  Round 0 is the
audit; round 1 the re-run, on fresh seeds, of the tests that rejected.

A Ctrl-C (KeyboardInterrupt) stops the loop: the chunks finished so far are
returned with ``interrupted`` set, and the audit reports on them.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable, Iterable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from verify.audit.adapters import call
from verify.errors import InputError
from verify.parallel import ordered_results

#: Runs per chunk (one task of a worker).
CHUNK = 5000


@dataclass(frozen=True)
class Job:
    """Sample ``runs`` runs at ``queries``; ``key`` = (round, pair index, side)."""

    key: tuple[int, int, int]
    queries: tuple[float, ...]
    runs: int
    keep_values: bool


@dataclass
class Tally:
    """What the runs of one job gave: outcome counts, the first released value of each A run
    (one-query pairs), and the runs whose number of released values did not fit the claim."""

    counts: Counter = field(default_factory=Counter)
    values: list[float] = field(default_factory=list)
    wrong_values: int = 0
    runs: int = 0


def _chunk(task: tuple[Callable[..., Any], int, Job, int, int, bool]) -> tuple[Counter, list[float], int, int]:
    impl, seed, job, index, n, releases = task
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(*job.key, index)))
    q = np.array(job.queries, dtype=float)
    counts: Counter = Counter()
    values: list[float] = []
    wrong = 0
    for _ in range(n):
        outcome, vals = call(impl, q, rng)
        counts[outcome] += 1
        if len(vals) != (outcome.count("A") if releases else 0):
            wrong += 1
        elif job.keep_values and vals:
            values.append(vals[0])
    return counts, values, wrong, n


def run_jobs(impl: Callable[..., Any], jobs: Iterable[Job], seed: int, releases: bool, executor: Executor | None,
             progress: Callable[[int], None] | None = None) -> tuple[dict[tuple[int, int, int], Tally], bool, float]:
    """(tally per job key, interrupted, seconds spent)."""
    tasks = []
    tallies: dict[tuple[int, int, int], Tally] = {}
    for job in jobs:
        if job.runs < 1:
            raise InputError(f"samples: {job.runs!r} must be >= 1")
        tallies[job.key] = Tally()
        for j, start in enumerate(range(0, job.runs, CHUNK)):
            tasks.append((impl, seed, job, j, min(CHUNK, job.runs - start), releases))
    t0 = time.perf_counter()
    interrupted = False
    results = ordered_results(_chunk, tasks, executor, window=16)
    try:
        for task, (counts, values, wrong, n) in zip(tasks, results):
            tally = tallies[task[2].key]
            tally.counts.update(counts)
            tally.values.extend(values)
            tally.wrong_values += wrong
            tally.runs += n
            if progress is not None:
                progress(n)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        results.close()
    return tallies, interrupted, time.perf_counter() - t0
