"""The audit of a Report Noisy Max implementation (docs/selection.md, "Audit"): the audit's machinery, RNM's law.

`verify.audit.audit` hands a claimed `verify.selection.ReportNoisyMax` here.  Everything statistical is the
audit's own, unchanged: the runs (`verify.audit.sampling`, isolated children for a spec,
`verify.audit.sandbox`), the G-test per (pair, side) at Bonferroni's level α/m (`verify.audit.gof`,
`verify.audit.decision`), the sample size from the detectable total variation (`verify.audit.power`), the
confirming re-run on fresh seeds, the empirical loss with Clopper–Pearson (`verify.audit.loss`) and the
report (`verify.audit.result`).  What is RNM's:

* the alphabet: the implementation returns the reported index i (1-based) of k as the outcome string
  ``B^{i−1}A`` (`verify.selection.sampler.index_outcome`; a test's adapter converts a library's index);
* the law (`index_laws`): Pr[i] at each query vector from the float64 one-pass evaluator
  (`verify.selection.fast`, relative error estimate <= 1e-11; above `LAW_TOLERANCE`, mpmath at 20 digits);
* the pairs: the worst pair of the structured search (`verify.selection.verdict`, k <= 4), structured pairs
  (equal scores; one score a noise scale b ahead; one a scale behind; each with the corner neighbour of index
  1), and seeded random pairs (scores uniform on [−2b, 2b], each moved by a uniform shift in [−Δ, Δ], one sign
  when monotone, rounded to b/1000).

Not applied to a Report Noisy Max (noted in the result): the fit of the Sparse Vector family's alternative
laws and the rows most sensitive to its bugs (`verify.audit.fit`, `verify.audit.sensitive`).
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from contextlib import ExitStack
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from verify.audit.adapters import ImplementationError, load, parse_spec
from verify.audit.decision import bonferroni_level, decide, power_per_test, rejects, verdict_power
from verify.audit.gof import GofResult, g_test
from verify.audit.loss import empirical_loss, exact_loss
from verify.audit.pairs import Pair, PairKind
from verify.audit.power import detectable_tv, samples_for_tv
from verify.audit.result import AuditResult, PairReport
from verify.audit.sampling import Job, executor_mapper, run_jobs
from verify.audit.sandbox import Sandboxes
from verify.errors import InputError
from verify.parallel import executor_for, worker_count
from verify.selection.fast import fast_index_log_probabilities
from verify.selection.model import ReportNoisyMax, SelectionOutput
from verify.selection.probability import mp_index_probabilities
from verify.selection.sampler import index_outcome
from verify.selection.search import corners
from verify.selection.verdict import selection_verdict

#: Relative error allowed in an index probability before mpmath recomputes it.
LAW_TOLERANCE = 1e-8
#: Largest number of scores of the worst-case search run for the audit.
WORST_MAX_SCORES = 4
#: Runs of the ignored-generator check, done twice with one seed.
GENERATOR_CHECK_RUNS = 200


def index_laws(mech: ReportNoisyMax, rows: Sequence[Sequence[float]]) -> list[dict[str, float]]:
    """Pr of every index (as ``B^{i−1}A``) at each query vector of ``rows``."""
    out = []
    for row in rows:
        qs = [str(float(x)) for x in row]
        logp, err = fast_index_log_probabilities(mech, qs)
        if not err <= LAW_TOLERANCE:
            with mpmath.workdps(25):
                p = [float(x) for x in mp_index_probabilities(mech, qs, 20)]
        else:
            p = np.exp(logp).tolist()
        out.append({index_outcome(i, len(row)): float(x) for i, x in enumerate(p)})
    return out


def selection_pairs(mech: ReportNoisyMax, k: int, random_pairs: int, seed: int, worst: bool = True,
                    structured: bool = True) -> list[Pair]:
    """The pairs of the module docstring, in that order."""
    b, d = float(mech.b), float(mech.sensitivity)
    sign = 1.0 if mech.optimize.value == "max" else -1.0
    pairs: list[Pair] = []
    if worst:
        w = selection_verdict(mech, WORST_MAX_SCORES).witness
        pairs.append(Pair(f"worst pair of the search (witness {w.outcome.describe()})", PairKind.WORST,
                          tuple(float(x) for x in w.queries), tuple(float(x) for x in w.neighbour)))
    if structured:
        for label, lead in (("equal scores", 0.0), ("score 1 one scale ahead", b), ("score 1 one scale behind", -b)):
            s = [Fraction(str(lead)), *[Fraction(0)] * (k - 1)]
            c = corners(mech, s)[0]
            pairs.append(Pair(f"{label} (corner neighbour of index 1)", PairKind.STRUCTURED,
                              tuple(sign * float(x) for x in s), tuple(sign * float(x) for x in c)))
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0x5A2,)))
    step = b / 1000
    for j in range(random_pairs):
        q = np.round(rng.uniform(-2 * b, 2 * b, k) / step) * step
        shift = rng.uniform(-d, d, k)
        if mech.monotone:
            shift = np.abs(shift) * (1 if rng.random() < 0.5 else -1)
        shift = np.clip(np.round(shift / step) * step, -d, d)
        pairs.append(Pair(f"random pair {j + 1}", PairKind.RANDOM, tuple(q.tolist()), tuple((q + shift).tolist())))
    return pairs


def _mapper_and_boxes(implementation: Callable[..., Any] | str, workers: int | None, scheduler: str | None,
                      executor: Executor | None, stack: Any):
    """The chunks' runner, as `verify.audit.core` runs them: isolated children for a spec, else here or workers."""
    if isinstance(implementation, str) and executor is None and scheduler is None:
        boxes = stack.enter_context(Sandboxes(implementation, worker_count(workers)))
        return boxes.map, boxes
    impl = load(implementation) if isinstance(implementation, str) else implementation
    ex, _ = stack.enter_context(executor_for(executor, workers, scheduler))
    return executor_mapper(impl, ex), None


def audit_selection(implementation: Callable[..., Any] | str, claimed: ReportNoisyMax, *, samples: int | None,
                    target_tv: float | None, false_alarm: float, random_pairs: int, queries_per_pair: int | None,
                    seed: int, workers: int | None, scheduler: str | None, executor: Executor | None, progress: bool,
                    identify: bool, confidence: float, worst_pair: bool, structured_pairs: bool, name: str | None,
                    max_runs: int, sensitive: bool, max_samples: int, default_tv: float) -> AuditResult:
    """The audit of the module docstring (the arguments are `verify.audit.audit`'s, already checked there)."""
    if claimed.output is not SelectionOutput.INDEX:
        raise InputError(f"claimed variant: {claimed.name} releases the {claimed.output.value}; the audit tests the index "
                         "of a Report Noisy Max only")
    t_start = time.perf_counter()
    k = 3 if queries_per_pair is None else queries_per_pair
    if k < 2:
        raise InputError(f"queries per pair: {k} leaves Report Noisy Max one score (always index 1); give 2 or more")
    pairs = selection_pairs(claimed, k, random_pairs, seed, worst_pair, structured_pairs)
    if not pairs:
        raise InputError("pairs: no pair to sample (worst pair, structured pairs and random pairs all left out)")
    keys = [(i, s) for i in range(len(pairs)) for s in (0, 1)]
    laws = dict(zip(keys, index_laws(claimed, [(pairs[i].queries, pairs[i].neighbour)[s] for i, s in keys])))
    m = len(keys)
    level = bonferroni_level(false_alarm, m)
    df = max(1, max(sum(1 for v in law.values() if v > 0) - 1 for law in laws.values()))
    test_power = power_per_test()
    n = samples if samples is not None else samples_for_tv(default_tv if target_tv is None else target_tv, df, level, test_power)
    if n > max_samples:
        raise InputError(f"--target-tv: {target_tv:g} needs {n:,} runs per side, above the limit of {max_samples:,} (--samples)")
    runs = n * m
    if 2 * runs > max_runs:
        raise InputError(f"--max-runs: the audit may need {2 * runs:,} runs ({m} tests of {n:,} runs, each re-run if it "
                         f"rejects), above the limit of {max_runs:,}")
    notes = ["Report Noisy Max: the index i of k is the outcome B^(i-1)A; the Sparse Vector family's fit and bug rows "
             "do not apply" + ("" if not (identify or sensitive) else " (identify / sensitive not applied)")]
    label = name or (str(parse_spec(implementation)) if isinstance(implementation, str) else None) \
        or getattr(implementation, "__qualname__", None) or type(implementation).__name__
    bar = None
    if progress:
        from tqdm import tqdm  # lazy: start-up time, only when a bar is drawn

        bar = tqdm(total=runs, desc=f"audit {claimed.name}", unit="run", leave=False, file=sys.stderr)
    tests: dict[tuple[int, int], GofResult] = {}
    reruns: dict[tuple[int, int], GofResult] = {}
    counts: dict[tuple[int, int], Counter] = {}
    stats = time.perf_counter() - t_start
    try:
        with ExitStack() as stack:
            mapper, boxes = _mapper_and_boxes(implementation, workers, scheduler, executor, stack)
            check = Job((2, 0, 0), pairs[0].queries, GENERATOR_CHECK_RUNS, False, in_order=True)
            a, b = list(mapper([(seed, check, 0, GENERATOR_CHECK_RUNS, False), (seed, check, 0, GENERATOR_CHECK_RUNS, False)]))
            if a[0] != b[0] or a[6] != b[6]:  # counts, runs in order (verify.audit.core._same_seed_same_runs)
                raise ImplementationError(f"implementation: two runs with the same seed gave different outcomes at q = "
                                          f"{pairs[0].queries}: it ignores the numpy Generator it is given")
            jobs = [Job((0, i, s), (pairs[i].queries, pairs[i].neighbour)[s], n, False) for i, s in keys]
            t0 = time.perf_counter()
            tallies, interrupted, sampling, book = run_jobs(mapper, jobs, seed, False, None if bar is None else bar.update)
            wall = time.perf_counter() - t0
            for key in keys:
                tally = tallies[(0, *key)]
                counts[key] = Counter(tally.counts)
                if tally.runs == n:
                    tests[key] = g_test(counts[key], laws[key])
            rejected = [key for key, t in tests.items() if rejects(t.p_value, level)]
            if rejected and not interrupted:
                t1 = time.perf_counter()
                more, interrupted, extra, _ = run_jobs(mapper, [Job((1, *key), (pairs[key[0]].queries, pairs[key[0]].neighbour)[key[1]],
                                                                    n, False) for key in rejected], seed, False)
                wall += time.perf_counter() - t1
                sampling += extra
                for key in rejected:
                    if more[(1, *key)].runs == n:
                        reruns[key] = g_test(Counter(more[(1, *key)].counts), laws[key])
            if boxes is not None and boxes.printed:
                notes.append(f"the implementation wrote {boxes.printed:,} bytes to standard output; they were discarded")
    finally:
        if bar is not None:
            bar.close()
    t2 = time.perf_counter()
    reports = []
    for i, p in enumerate(pairs):
        if (i, 0) not in tests or (i, 1) not in tests:
            continue
        loss = empirical_loss(laws[(i, 0)], laws[(i, 1)], counts[(i, 0)], counts[(i, 1)], confidence)
        reports.append(PairReport(p, (tests[(i, 0)], tests[(i, 1)]), (reruns.get((i, 0)), reruns.get((i, 1))), loss,
                                  exact_loss(laws[(i, 0)], laws[(i, 1)]), level))
    done = sorted(tests)
    verdict = decide([tests[key].p_value for key in done], [reruns[key].p_value if key in reruns else None for key in done],
                     level, interrupted)
    stats += book + time.perf_counter() - t2
    return AuditResult(label, claimed, verdict, reports, n, false_alarm, detectable_tv(n, df, level, test_power),
                       verdict_power(test_power), df, confidence, None, interrupted, sampling, stats, notes, wall,
                       time.perf_counter() - t_start, tests_planned=m, level_applied=level, power_per_test=test_power)
