"""Running the implementation: chunks of runs in this process, worker processes or on a Dask cluster.

Every (round, pair, side) is cut into chunks of at most `CHUNK` runs; chunk j
gets its own generator ``default_rng(SeedSequence(seed, spawn_key=(round, pair,
side, j)))``.  The chunks' boundaries and seeds depend only on the audit's
parameters, never on the number of workers, so the counts are the same bit for
bit however they are run (`verify.parallel.ordered_results`).  Round 0 is the
audit; round 1 the re-run, on fresh seeds, of the tests that rejected.  A batch sampler
(`verify.audit.decoders.from_batch`) is called once per chunk for its n runs, with the
chunk's generator, so its counts are as reproducible as a per-run implementation's.

A Ctrl-C (KeyboardInterrupt) stops the loop: the chunks finished so far are
returned with ``interrupted`` set, and the audit reports on them.
"""

from __future__ import annotations

import functools
import hashlib
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Executor
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from verify.audit.adapters import ImplementationError, describe_failure, normalize
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
    #: Also a digest of the outcomes and values in run order (the ignored-generator check: two chunks with one
    #: seed must agree run by run, not only in their counts, which two independent chunks share by chance).
    in_order: bool = False


@dataclass
class Tally:
    """What the runs of one job gave: outcome counts, the first released value of each A run
    (one-query pairs), and the runs whose number of released values did not fit the claim."""

    counts: Counter = field(default_factory=Counter)
    values: list[float] = field(default_factory=list)
    #: Runs whose released values do not fit the claim, by outcome (each run is also in ``counts``).
    wrong_values: Counter = field(default_factory=Counter)
    runs: int = 0


#: A chunk's task: (seed, job, chunk index, runs, claim releases values).
Task = tuple[int, "Job", int, int, bool]
#: A chunk's result: counts, kept values, runs with the wrong number of values, runs, seconds inside
#: the implementation, seconds of the whole chunk, and the digest of its runs in order ("" unless the job
#: asks for it, `Job.in_order`).
ChunkResult = tuple[Counter, list[float], int, int, float, float, str]


#: Types of an empty released-values part taken without `normalize` (their emptiness is not ambiguous, unlike an array's).
_EMPTY = (tuple, list)


def run_chunk(impl: Callable[..., Any], task: Task) -> ChunkResult:
    """Run one chunk; also returns the seconds spent inside ``impl`` and in the whole chunk.  An exception
    inside ``impl`` becomes `ImplementationError` (one line: the exception and where it came from)."""
    t_start = time.perf_counter()
    seed, job, index, n, releases = task
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(*job.key, index)))
    q = np.array(job.queries, dtype=float)
    plain: dict[str, int] = {}  # runs that returned a bare string: counted first, each distinct string checked once
    #: runs that returned (outcome, no values): counted by outcome, each checked when first seen (as `normalize` would)
    bare: dict[str, int] = {}
    counts: Counter = Counter()
    values: list[float] = []
    wrong: Counter = Counter()
    in_impl = 0.0
    clock = time.perf_counter
    order = hashlib.blake2b(digest_size=16) if job.in_order else None
    if getattr(impl, "batch", False) is True:  # a batch sampler (`verify.audit.decoders.from_batch`): one call for the chunk
        t0 = clock()
        try:
            batch = impl.runs(q, rng, n)
        except ImplementationError:
            raise
        except Exception as exc:  # the implementation's own failure: a one-line report, not a finding
            raise ImplementationError(f"implementation {describe_failure(exc)} at queries {_short(q)}") from None
        in_impl += clock() - t0
        strings = [r for r in batch if type(r) is str]
        if len(strings) == n:  # all bare strings: counted at C speed, each distinct string checked once below
            plain.update(Counter(strings))
            if order is not None:
                order.update("\n".join(strings).encode())
            batch, n_loop = None, 0
        else:
            n_loop = n
    else:
        batch, n_loop = None, n
    for j in range(n_loop):
        if batch is not None:
            raw = batch[j]
        else:
            t0 = clock()
            try:
                raw = impl(q, rng)
            except Exception as exc:  # the implementation's own failure: a one-line report, not a finding
                raise ImplementationError(f"implementation {describe_failure(exc)} at queries {_short(q)}") from None
            in_impl += clock() - t0
        if order is not None:
            order.update(f"{raw!r}\n".encode())
        if type(raw) is str:
            plain[raw] = plain.get(raw, 0) + 1
            continue
        if type(raw) is tuple and len(raw) == 2 and type(raw[0]) is str and (raw[1] is None or type(raw[1]) in _EMPTY and not raw[1]):
            outcome = raw[0]  # normalize(raw) is (outcome, ()): its checks once per outcome, its count at the end
            if outcome not in bare:
                normalize(outcome)
                bare[outcome] = 0
                counts[outcome] += 0  # the outcome's place in the counts, as run by run
            bare[outcome] += 1
            continue
        outcome, vals = normalize(raw)
        counts[outcome] += 1
        if len(vals) != (outcome.count("A") if releases else 0):
            wrong[outcome] += 1
        elif job.keep_values and vals:
            values.append(vals[0])
    for outcome, c in bare.items():  # no values: one per A is wrong when the claim releases (as below, run by run)
        counts[outcome] += c
        if releases and "A" in outcome:
            wrong[outcome] += c
    for raw, c in plain.items():
        outcome, _ = normalize(raw)
        counts[outcome] += c
        if releases and "A" in outcome:
            wrong[outcome] += c  # an above with no released value
    return counts, values, wrong, n, in_impl, time.perf_counter() - t_start, "" if order is None else order.hexdigest()


def _short(q: np.ndarray) -> str:
    return "(" + ", ".join(f"{x:g}" for x in q[:6]) + (", ..." if len(q) > 6 else "") + ")"


#: Runs the chunks' tasks and yields their results in task order (`ordered_results` over an executor,
#: or `verify.audit.sandbox.Sandboxes.map`).
Mapper = Callable[[list[Task]], Iterator[ChunkResult]]


def executor_mapper(impl: Callable[..., Any], executor: Executor | None) -> Mapper:
    """Run the chunks here (``executor`` None) or on ``executor`` (worker processes, Dask)."""
    return lambda tasks: ordered_results(functools.partial(run_chunk, impl), tasks, executor, window=16)


def run_jobs(mapper: Mapper, jobs: Iterable[Job], seed: int, releases: bool,
             progress: Callable[[int], None] | None = None) -> tuple[dict[tuple[int, int, int], Tally], bool, float, float]:
    """(tally per job key, interrupted, seconds inside the implementation, seconds of the chunks' own
    bookkeeping: normalizing and counting the runs), both summed over the chunks wherever they ran."""
    tasks = []
    tallies: dict[tuple[int, int, int], Tally] = {}
    for job in jobs:
        if job.runs < 1:
            raise InputError(f"samples: {job.runs!r} must be >= 1")
        tallies[job.key] = Tally()
        for j, start in enumerate(range(0, job.runs, CHUNK)):
            tasks.append((seed, job, j, min(CHUNK, job.runs - start), releases))
    interrupted = False
    in_impl = overhead = 0.0
    results = mapper(tasks)
    try:
        for task, (counts, values, wrong, n, t_impl, t_chunk, _) in zip(tasks, results):
            in_impl += t_impl
            overhead += t_chunk - t_impl
            tally = tallies[task[1].key]
            tally.counts.update(counts)
            tally.values.extend(values)
            tally.wrong_values.update(wrong)
            tally.runs += n
            if progress is not None:
                progress(n)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        close = getattr(results, "close", None)
        if close is not None:
            close()
    return tallies, interrupted, in_impl, overhead
