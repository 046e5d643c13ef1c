"""`audit`: does an implementation sample the law of the variant it claims?

1. Pairs (`verify.audit.pairs`): the search's worst pair, structured pairs, seeded
   random pairs, and for releasing variants a one-query pair for the values.
2. Samples per side N: given, or chosen so that any deviation of total variation
   >= ``target_tv`` at a pair is detected by the verdict with power 0.9: each test
   with power sqrt(0.9), since a ``deviates`` needs two rejections
   (`verify.audit.power`, `verify.audit.decision`).
3. Each (pair, side) is a G-test against the exact law (`verify.audit.gof`) at
   level α/m, m the number of tests (Bonferroni): the chance that any test
   rejects an implementation that samples the claimed law is at most α.
4. A rejection is re-run on fresh seeds; ``deviates`` needs the same test to
   reject again (so a correct implementation is called ``deviates`` with
   probability at most Σ (α/m)² <= α²/m), ``undecided`` if no rejection was
   confirmed, ``matches`` if nothing rejected (`verify.audit.decision`).  ``matches`` says the deviation,
   if any, is below the stated detectable total variation at every pair.
5. The empirical loss per pair with Clopper–Pearson (`verify.audit.loss`).
6. On ``deviates``, the candidate fit (`verify.audit.fit`).
"""

from __future__ import annotations

import pickle
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import Executor
from contextlib import contextmanager
from typing import Any

import numpy as np

from verify.audit.adapters import ImplementationError, load, parse_spec
from verify.audit.decision import bonferroni_level, decide, power_per_test, rejects, verdict_power
from verify.audit.gof import GofResult, g_test
from verify.audit.laws import Candidate, letter_laws, release_cells, release_edges
from verify.audit.loss import empirical_loss, exact_loss
from verify.audit.pairs import Pair, PairKind, noise_scale, select_pairs, worst_case
from verify.audit.power import detectable_tv, samples_for_tv
from verify.audit.result import AuditResult, PairReport
from verify.audit.sampling import Job, Mapper, Tally, executor_mapper, run_jobs
from verify.audit.sandbox import Sandboxes
from verify.audit.sensitive import bugs, predicted_power, sensitive_pairs
from verify.errors import InputError
from verify.mechanism import SparseVector
from verify.parallel import executor_for, worker_count
from verify.selection.model import ReportNoisyMax
from verify.verdicts import AuditVerdict

DEFAULT_FALSE_ALARM = 1e-3
DEFAULT_TARGET_TV = 0.05
DEFAULT_RANDOM_PAIRS = 4
#: Largest number of samples per side of a pair.
MAX_SAMPLES = 100_000_000
#: Longest query vector of a structured or random pair.
MAX_QUERIES_PER_PAIR = 12
#: Default cap on the runs of an audit (both rounds): about an hour at 50 µs per run, refused up front beyond.
MAX_RUNS = 50_000_000
#: Equal-mass bins of a released value at a release pair.
RELEASE_BINS = 10
#: Label of the runs whose released values do not fit the claimed release rule.
WRONG_VALUES = "(released values do not fit the claimed release rule)"


def _check(samples, target_tv, false_alarm, random_pairs, confidence, k, max_runs) -> None:
    if samples is not None and (isinstance(samples, bool) or not isinstance(samples, int) or not 10 <= samples <= MAX_SAMPLES):
        raise InputError(f"samples: {samples!r} must be an integer from 10 to {MAX_SAMPLES:,} (per side of each pair)")
    if samples is not None and target_tv is not None:
        raise InputError("samples: give either samples (runs per side) or target_tv (which chooses them), not both")
    if target_tv is not None and (isinstance(target_tv, bool) or not isinstance(target_tv, float | int) or not 0 < target_tv <= 1):
        raise InputError(f"target total variation: {target_tv!r} must be a number in (0, 1]")
    if isinstance(false_alarm, bool) or not (isinstance(false_alarm, float | int) and 0 < false_alarm < 0.5):
        raise InputError(f"false-alarm rate: {false_alarm!r} must be in (0, 0.5)")
    if isinstance(random_pairs, bool) or not isinstance(random_pairs, int) or not 0 <= random_pairs <= 100:
        raise InputError(f"random pairs: {random_pairs!r} must be an integer from 0 to 100")
    if not (isinstance(confidence, float) and 0.5 <= confidence < 1):
        raise InputError(f"confidence: {confidence!r} must be in [0.5, 1)")
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_QUERIES_PER_PAIR):
        raise InputError(f"queries per pair: {k!r} must be an integer from 1 to {MAX_QUERIES_PER_PAIR}")
    if isinstance(max_runs, bool) or not isinstance(max_runs, int) or max_runs < 1:
        raise InputError(f"max runs: {max_runs!r} must be an integer >= 1")


def queries_per_pair_for(claimed: SparseVector, k: int | None) -> int:
    """k: given, or max(3, c + 1) so that a cutoff off by one shows; refused (naming the flags) when
    c + 1 is above `MAX_QUERIES_PER_PAIR`."""
    if k is not None:
        return k
    c = claimed.cutoff
    need = max(3, (c or 2) + 1)
    if need > MAX_QUERIES_PER_PAIR:
        raise InputError(f"--cutoff: {c} needs {need} queries per pair (cutoff + 1, so that a cutoff off by one shows), above "
                         f"the limit of {MAX_QUERIES_PER_PAIR}; give --queries-per-pair {MAX_QUERIES_PER_PAIR} or less to audit "
                         "with fewer queries")
    return need


def _release_law(claim: Candidate, pair: Pair, side: int, edges: dict) -> dict[str, float]:
    q = pair.queries if side == 0 else pair.neighbour
    cells, _ = release_cells(claim, q[0], edges[side])
    return {"B": float(cells[0]), **{f"A, value in bin {j + 1}": float(p) for j, p in enumerate(cells[1:])}}


def _side_counts(pair: Pair, tally: Tally, inner: np.ndarray | None) -> tuple[Counter, np.ndarray | None]:
    counts = Counter(tally.counts)
    if tally.wrong_values:  # each run once: under its outcome if its values fit the claim, else under WRONG_VALUES
        counts.subtract(tally.wrong_values)
        counts = Counter({o: c for o, c in counts.items() if c > 0})
        counts[WRONG_VALUES] += sum(tally.wrong_values.values())
    if pair.kind is not PairKind.RELEASE:
        return counts, None
    bins = np.bincount(np.searchsorted(inner, np.asarray(tally.values, dtype=float), side="left"), minlength=len(inner) + 1)
    out = Counter({k: v for k, v in counts.items() if k not in ("A", "B")})
    out["B"] = counts.get("B", 0)
    for j, c in enumerate(bins):
        if c:
            out[f"A, value in bin {j + 1}"] = int(c)
    return out, np.concatenate([[counts.get("B", 0)], bins]).astype(float)


def _pairs_and_laws(claimed: SparseVector, k: int, random_pairs: int, seed: int, worst: bool, structured: bool):
    """The pairs (`verify.audit.pairs`), the claim, the release bins' edges and the exact law of every (pair, side)."""
    pairs = select_pairs(claimed, k, random_pairs, seed, worst=worst, structured=structured)
    if not pairs:
        raise InputError("pairs: no pair to sample (worst pair, structured pairs and random pairs all left out)")
    claim = Candidate("as claimed", claimed)
    edges = {i: {s: release_edges(claim, (p.queries, p.neighbour)[s][0], RELEASE_BINS) for s in (0, 1)}
             for i, p in enumerate(pairs) if p.kind is PairKind.RELEASE}
    keys = [(i, s) for i, p in enumerate(pairs) if p.kind is not PairKind.RELEASE for s in p.sides]
    laws = dict(zip(keys, letter_laws(claim, [(pairs[i].queries, pairs[i].neighbour)[s] for i, s in keys])))
    laws.update({(i, s): _release_law(claim, p, s, edges[i]) for i, p in enumerate(pairs) if p.kind is PairKind.RELEASE for s in (0, 1)})
    return pairs, claim, edges, laws


#: Runs of the ignored-generator check (`_same_seed_same_runs`), done twice with one seed.
GENERATOR_CHECK_RUNS = 200


def _same_seed_same_runs(mapper: Mapper, pair: Pair, seed: int, releases: bool) -> None:
    """Refuse to judge an implementation that ignores the ``rng`` it is given: two chunks of
    `GENERATOR_CHECK_RUNS` runs with the same seed (round 2, outside the audit's own seeds) must give the
    same outcomes, run by run (`Job.in_order`: equal counts alone happen by chance, about 4 % of the time for
    a fair coin over 200 runs).  Code drawing from numpy's or Python's global state, or its own generator, fails this."""
    job = Job((2, 0, 0), pair.queries, GENERATOR_CHECK_RUNS, False, in_order=True)
    first, second = list(mapper([(seed, job, 0, GENERATOR_CHECK_RUNS, releases), (seed, job, 0, GENERATOR_CHECK_RUNS, releases)]))
    if first[0] != second[0] or first[1] != second[1] or first[6] != second[6]:  # counts, values, runs in order
        raise ImplementationError(f"implementation: two runs with the same seed gave different outcomes at q = {pair.queries}: "
                                  "it ignores the numpy Generator it is given (global numpy or Python random state, or its "
                                  "own generator), so its runs are not reproducible and the audit refuses to judge them")


def _stages(pairs: list[Pair], n: int) -> list[list[int]]:
    """The pairs in two stages: the general pairs (worst, structured, random, release: ``n`` runs per side, the
    data the fit ranks on), then the sensitive rows (up to `verify.audit.sensitive.MAX_SENSITIVE_SAMPLES` runs
    each, together so that the workers stay busy).  The audit stops after the first stage with a confirmed
    deviation: the verdict ``deviates`` needs one confirmed rejection, whatever the other tests show, so
    stopping there gives the verdict the full audit would give (the same seeds per pair, the same tests) and
    keeps its error rates: a correct implementation confirms a rejection with probability at most Σ (α/m)²
    over the tests run, fewer than m when it stops."""
    general = [i for i, p in enumerate(pairs) if p.kind is not PairKind.SENSITIVE]
    rows = [i for i, p in enumerate(pairs) if p.kind is PairKind.SENSITIVE]
    return [st for st in (general, rows) if st]


def _picklable(obj: Any) -> Exception | None:
    try:
        pickle.dumps(obj)
    except Exception as exc:  # noqa: BLE001 - any failure to pickle means: run in this process
        return exc
    return None


@contextmanager
def _runner(implementation: Callable[..., Any] | str, workers: int | None, scheduler: str | None, executor: Executor | None,
            notes: list[str]) -> Iterator[tuple[Mapper, Sandboxes | None]]:
    """The mapper that runs the chunks: isolated children for a spec (`verify.audit.sandbox`), else this
    process, worker processes or Dask.  An unpicklable callable runs in this process, with a note."""
    if isinstance(implementation, str) and executor is None and scheduler is None:
        with Sandboxes(implementation, worker_count(workers)) as boxes:
            yield boxes.map, boxes
        return
    impl = load(implementation) if isinstance(implementation, str) else implementation
    if isinstance(implementation, str):
        notes.append("the implementation runs in the Dask workers or the executor given, not isolated in children of its own")
    if executor is None and scheduler is None and worker_count(workers) > 1:
        exc = _picklable(impl)
        if exc is not None:
            notes.append(f"the implementation cannot be pickled ({type(exc).__name__}), so it ran in this one process, "
                         f"not in {worker_count(workers)} workers")
            workers = 1
    with executor_for(executor, workers, scheduler) as (ex, _):
        yield executor_mapper(impl, ex), None


def audit(implementation: Callable[..., Any] | str, claimed: SparseVector | ReportNoisyMax, *, samples: int | None = None,
          target_tv: float | None = None, false_alarm: float = DEFAULT_FALSE_ALARM,
          random_pairs: int = DEFAULT_RANDOM_PAIRS, queries_per_pair: int | None = None, seed: int = 0,
          workers: int | None = 1, scheduler: str | None = None, executor: Executor | None = None,
          progress: bool = False, identify: bool = True, confidence: float = 0.95, worst_pair: bool = True,
          structured_pairs: bool = True, name: str | None = None, max_runs: int = MAX_RUNS, sensitive: bool = True,
          sequential: bool = True) -> AuditResult:
    """Audit ``implementation`` against ``claimed`` (module docstring): a callable ``impl(queries, rng)``
    (`verify.audit.adapters`), run in this process or in worker processes, or a spec
    ``MODULE:CALLABLE[?key=value&...]`` / ``file.py:CALLABLE``, imported and run in isolated child processes
    (`verify.audit.sandbox`).  ``samples`` (runs per side) or ``target_tv`` (default `DEFAULT_TARGET_TV`),
    not both.  ``progress`` draws a tqdm bar of the runs on stderr.  ``sequential``: sample the pairs in stages
    of increasing size and stop at the first confirmed deviation (`_stages`); False samples every pair.  A failure of the implementation raises
    `ImplementationError` (one line)."""
    if not isinstance(claimed, SparseVector | ReportNoisyMax):
        raise InputError(f"claimed variant: {claimed!r} is not a verify.family.SparseVector nor a verify.selection ReportNoisyMax")
    _check(samples, target_tv, false_alarm, random_pairs, confidence, queries_per_pair, max_runs)
    if isinstance(implementation, str):
        parse_spec(implementation)
    elif not callable(implementation):
        raise InputError(f"implementation: {str(implementation)[:60]!r} is neither callable nor a MODULE:CALLABLE spec")
    if isinstance(claimed, ReportNoisyMax):  # the same statistics on Report Noisy Max's index law (verify/audit/selection.py)
        from verify.audit.selection import audit_selection  # lazy: start-up time (it loads scipy.optimize); only Report Noisy Max

        return audit_selection(implementation, claimed, samples=samples, target_tv=target_tv, false_alarm=false_alarm,
                               random_pairs=random_pairs, queries_per_pair=queries_per_pair, seed=seed, workers=workers,
                               scheduler=scheduler, executor=executor, progress=progress, identify=identify,
                               confidence=confidence, worst_pair=worst_pair, structured_pairs=structured_pairs, name=name,
                               max_runs=max_runs, sensitive=sensitive, max_samples=MAX_SAMPLES, default_tv=DEFAULT_TARGET_TV)
    if samples is None and target_tv is None:
        target_tv = DEFAULT_TARGET_TV
    t_start = time.perf_counter()
    k = queries_per_pair_for(claimed, queries_per_pair)
    try:
        pairs, claim, edges, laws = _pairs_and_laws(claimed, k, random_pairs, seed, worst_pair, structured_pairs)
    except InputError as exc:
        if isinstance(exc, ImplementationError) or str(exc).startswith("pairs:"):
            raise
        cut = "unlimited" if claimed.cutoff is None else claimed.cutoff
        raise InputError(f"--cutoff/--variant: the claimed {claimed.name} (cutoff {cut}) cannot be audited at its pairs "
                         f"({k} queries, noise scale {noise_scale(claimed):g}): {exc}") from None
    m = 2 * len(pairs)
    level = bonferroni_level(false_alarm, m)
    df = max(sum(1 for v in law.values() if v > 0) - 1 for law in laws.values())
    df = max(df, 1)
    test_power = power_per_test()
    if samples is not None:
        n = samples
    else:
        n = samples_for_tv(target_tv, df, level, test_power)
        if n > MAX_SAMPLES:
            raise InputError(f"--target-tv: {target_tv:g} needs {n:,} runs per side, above the limit of {MAX_SAMPLES:,} "
                             "(--samples); give a larger --target-tv")
    sensitive_power: list[tuple[str, int, float]] = []
    if sensitive:
        from_bugs, found = sensitive_pairs(claimed, k, noise_scale(claimed), bonferroni_level(false_alarm, m + len(bugs(claimed))),
                                           test_power)
        for q, n_row, svs in from_bugs:
            pairs.append(Pair("most sensitive to " + "; ".join(sv.bug for sv in svs), PairKind.SENSITIVE, q, q,
                              samples if samples is not None else n_row))
        laws.update({(len(pairs) - len(from_bugs) + j, 0): law
                     for j, law in enumerate(letter_laws(claim, [q for q, _, _ in from_bugs]))})
        m += len(from_bugs)
        level = bonferroni_level(false_alarm, m)
        for p in pairs[len(pairs) - len(from_bugs):]:
            for sv in found:
                if sv.queries == p.queries:
                    sensitive_power.append((sv.bug, p.samples, predicted_power(sv.chi2, sv.outside, sv.df, level, p.samples)))
    runs = sum((p.samples or n) * len(p.sides) for p in pairs)
    if 2 * runs > max_runs:
        raise InputError(f"--max-runs: the audit may need {2 * runs:,} runs ({m} tests of {runs:,} runs in all, each re-run if it rejects), "
                         f"above the limit of {max_runs:,}; give fewer --samples, a larger --target-tv, fewer --random-pairs, "
                         "or raise --max-runs")
    stats_before = time.perf_counter() - t_start

    label = name or (str(parse_spec(implementation)) if isinstance(implementation, str) else None) \
        or getattr(implementation, "__qualname__", None) or type(implementation).__name__
    notes: list[str] = []
    bar = None
    if progress:
        from tqdm import tqdm  # start-up time: only when a bar is drawn

        bar = tqdm(total=runs, desc=f"audit {claimed.name}", unit="run", leave=False, file=sys.stderr)
    tests: dict[tuple[int, int], GofResult] = {}
    reruns: dict[tuple[int, int], GofResult] = {}
    observed: dict[tuple[int, int], tuple[Counter, np.ndarray | None]] = {}
    letters: dict[tuple[int, int], Counter] = {}  # every run's letters, whatever it released (for the fit)
    wrong_runs = 0
    rejected: list[tuple[int, int]] = []
    try:
        with _runner(implementation, workers, scheduler, executor, notes) as (mapper, boxes):
            _same_seed_same_runs(mapper, pairs[0], seed, claimed.releases_values)
            wall_sampling = sampling = 0.0
            stats_time = stats_before
            stages = _stages(pairs, n) if sequential else [list(range(len(pairs)))]
            for done, stage in enumerate(stages):
                jobs = [Job((0, i, s), (pairs[i].queries, pairs[i].neighbour)[s], pairs[i].samples or n,
                            pairs[i].kind is PairKind.RELEASE) for i in stage for s in pairs[i].sides]
                t_sampling = time.perf_counter()
                tallies, interrupted, extra, bookkeeping = run_jobs(mapper, jobs, seed, claimed.releases_values,
                                                                    None if bar is None else bar.update)
                wall_sampling += time.perf_counter() - t_sampling
                sampling += extra
                t1 = time.perf_counter()
                fresh: list[tuple[int, int]] = []
                for i in stage:
                    for s in pairs[i].sides:
                        tally = tallies[(0, i, s)]
                        observed[(i, s)] = _side_counts(pairs[i], tally, edges.get(i, {}).get(s))
                        letters[(i, s)] = Counter(tally.counts)
                        wrong_runs += sum(tally.wrong_values.values())
                        if tally.runs == (pairs[i].samples or n):
                            tests[(i, s)] = g_test(observed[(i, s)][0], laws[(i, s)])
                            if rejects(tests[(i, s)].p_value, level):
                                fresh.append((i, s))
                rejected += fresh
                stats_time += bookkeeping + time.perf_counter() - t1
                if fresh and not interrupted:
                    jobs = [Job((1, i, s), (pairs[i].queries, pairs[i].neighbour)[s], pairs[i].samples or n,
                                pairs[i].kind is PairKind.RELEASE) for i, s in fresh]
                    if bar is not None:
                        bar.total += sum(j.runs for j in jobs)
                    t_more = time.perf_counter()
                    more, interrupted, extra, more_bookkeeping = run_jobs(mapper, jobs, seed, claimed.releases_values,
                                                                          None if bar is None else bar.update)
                    wall_sampling += time.perf_counter() - t_more
                    sampling += extra
                    stats_time += more_bookkeeping
                    t2 = time.perf_counter()
                    for i, s in fresh:
                        tally = more[(1, i, s)]
                        if tally.runs == (pairs[i].samples or n):
                            reruns[(i, s)] = g_test(_side_counts(pairs[i], tally, edges.get(i, {}).get(s))[0], laws[(i, s)])
                    stats_time += time.perf_counter() - t2
                if interrupted:
                    break
                if done + 1 < len(stages) and any(key in reruns and rejects(reruns[key].p_value, level) for key in fresh):
                    left = sum(len(st) for st in stages[done + 1:])
                    notes.append(f"stopped at the first confirmed deviation: {left} of {len(pairs)} pairs not sampled (the "
                                 "verdict is deviates whatever they show, so the error rates are those of the full audit)")
                    break
            if boxes is not None and boxes.printed:
                notes.append(f"the implementation wrote {boxes.printed:,} bytes to standard output; they were discarded "
                             "(the report and --json are the audit's own)")
    finally:
        if bar is not None:
            bar.close()
    t3 = time.perf_counter()
    reports = []
    complete = [i for i in range(len(pairs)) if all((i, s) in tests for s in pairs[i].sides)]
    for i in complete:
        p = pairs[i]
        loss = None
        if p.kind is PairKind.SENSITIVE:
            reports.append(PairReport(p, (tests[(i, 0)],), (reruns.get((i, 0)),), None, 0.0, level))
            continue
        if p.kind is not PairKind.RELEASE:
            loss = empirical_loss(laws[(i, 0)], laws[(i, 1)], observed[(i, 0)][0], observed[(i, 1)][0], confidence)
        grid_err = 0.0
        if p.kind is PairKind.RELEASE:
            grid_err = max(release_cells(claim, q[0], edges[i][s])[1] for s, q in enumerate((p.queries, p.neighbour)))
        reports.append(PairReport(p, (tests[(i, 0)], tests[(i, 1)]), (reruns.get((i, 0)), reruns.get((i, 1))), loss,
                                  exact_loss(laws[(i, 0)], laws[(i, 1)]), level, grid_err))
    keys_done = sorted(tests)
    verdict = decide([tests[key].p_value for key in keys_done],
                     [reruns[key].p_value if key in reruns else None for key in keys_done], level, interrupted)
    if interrupted:
        notes.append(f"interrupted: {len(complete)} of {len(pairs)} pairs complete; the verdict is at most undecided unless a "
                     "rejection was already confirmed")
    if worst_pair and pairs and pairs[0].kind is PairKind.WORST:
        wl = laws[(0, 0)]
        w = worst_case(claimed).witness
        if w.outcome in wl and wl[w.outcome] * n < 1:
            notes.append(f"the worst pair's witness outcome {w.outcome} (exact loss {float(w.loss):.6g}, 50 digits) has probability "
                         f"{wl[w.outcome]:.3g} at D: expected {wl[w.outcome] * n:.3g} runs in {n:,}, so its loss cannot be "
                         "sampled there; the pair is tested for fit")
    if wrong_runs:
        what = "values per above that do not fit the claimed release rule" if claimed.releases_values else \
            "values although the claim releases none"
        notes.append(f"{wrong_runs:,} runs released {what}: counted once each, as an outcome the claim cannot produce; "
                     "the fit uses their letters")
    if claimed.releases_values:
        notes.append("released values are tested at the one-query pair (binned against their exact law); elsewhere only the letters")
    fitted = None
    if identify and verdict is AuditVerdict.DEVIATES:
        from verify.audit.fit import Observation, fit  # lazy: start-up time (the candidates' grid); only a deviation is fitted

        obs = []
        for i in complete:
            for s in pairs[i].sides:
                counts, bins = observed[(i, s)]
                if pairs[i].kind is not PairKind.RELEASE:
                    counts = letters[(i, s)]
                else:
                    counts = Counter({o: c for o, c in counts.items() if o != WRONG_VALUES})
                obs.append(Observation(pairs[i], s, counts, bins, edges.get(i, {}).get(s)))
        fitted = fit(claimed, obs, level)
    stats_time += time.perf_counter() - t3
    return AuditResult(label, claimed, verdict, reports, n, false_alarm, detectable_tv(n, df, level, test_power), verdict_power(test_power), df,
                       confidence, fitted, interrupted, sampling, stats_time, notes, wall_sampling, time.perf_counter() - t_start,
                       tests_planned=m, level_applied=level, power_per_test=test_power, bug_power=sensitive_power)
