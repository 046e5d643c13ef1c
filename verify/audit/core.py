"""`audit`: does an implementation sample the law of the variant it claims?

1. Pairs (`verify.audit.pairs`): the search's worst pair, structured pairs, seeded
   random pairs, and for releasing variants a one-query pair for the values.
2. Samples per side N: given, or chosen so that any deviation of total variation
   >= ``target_tv`` at a pair is detected with power 0.9 (`verify.audit.power`).
3. Each (pair, side) is a G-test against the exact law (`verify.audit.gof`) at
   level α/m, m the number of tests (Bonferroni): the chance that any test
   rejects an implementation that samples the claimed law is at most α.
4. A rejection is re-run on fresh seeds; ``deviates`` needs the same test to
   reject again (so a correct implementation is called ``deviates`` with
   probability at most Σ (α/m)² <= α²/m), ``undecided`` if no rejection was
   confirmed, ``matches`` if nothing rejected.  ``matches`` says the deviation,
   if any, is below the stated detectable total variation at every pair.
5. The empirical loss per pair with Clopper–Pearson (`verify.audit.loss`).
6. On ``deviates``, the candidate fit (`verify.audit.fit`).
"""

from __future__ import annotations

import math
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping
from concurrent.futures import Executor
from typing import Any

import numpy as np

from verify.audit.fit import Observation, fit
from verify.audit.gof import GofResult, g_test
from verify.audit.laws import Candidate, letter_laws, release_cells, release_edges
from verify.audit.loss import empirical_loss
from verify.audit.pairs import Pair, PairKind, select_pairs, worst_case
from verify.audit.power import POWER, detectable_tv, samples_for_tv
from verify.audit.result import AuditResult, PairReport
from verify.audit.sampling import Job, Tally, run_jobs
from verify.errors import InputError
from verify.mechanism import SparseVector
from verify.parallel import executor_for
from verify.verdicts import AuditVerdict

DEFAULT_FALSE_ALARM = 1e-3
DEFAULT_TARGET_TV = 0.05
DEFAULT_RANDOM_PAIRS = 4
#: Equal-mass bins of a released value at a release pair.
RELEASE_BINS = 10
#: Label of the runs whose released values do not fit the claimed release rule.
WRONG_VALUES = "(released values do not fit the claimed release rule)"


def _check(samples, target_tv, false_alarm, random_pairs, confidence, k) -> None:
    if samples is not None and (isinstance(samples, bool) or not isinstance(samples, int) or samples < 10):
        raise InputError(f"samples: {samples!r} must be an integer >= 10 (per side of each pair)")
    if not (isinstance(target_tv, float | int) and 0 < target_tv <= 1):
        raise InputError(f"target total variation: {target_tv!r} must be in (0, 1]")
    if not (isinstance(false_alarm, float | int) and 0 < false_alarm < 0.5):
        raise InputError(f"false-alarm rate: {false_alarm!r} must be in (0, 0.5)")
    if isinstance(random_pairs, bool) or not isinstance(random_pairs, int) or not 0 <= random_pairs <= 100:
        raise InputError(f"random pairs: {random_pairs!r} must be an integer from 0 to 100")
    if not (isinstance(confidence, float) and 0.5 <= confidence < 1):
        raise InputError(f"confidence: {confidence!r} must be in [0.5, 1)")
    if k is not None and (isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= 12):
        raise InputError(f"queries per pair: {k!r} must be an integer from 1 to 12")


def _release_law(claim: Candidate, pair: Pair, side: int, edges: dict) -> dict[str, float]:
    q = pair.queries if side == 0 else pair.neighbour
    cells, _ = release_cells(claim, q[0], edges[side])
    return {"B": float(cells[0]), **{f"A, value in bin {j + 1}": float(p) for j, p in enumerate(cells[1:])}}


def _side_counts(pair: Pair, tally: Tally, inner: np.ndarray | None) -> tuple[Counter, np.ndarray | None]:
    counts = Counter(tally.counts)
    if tally.wrong_values:
        counts[WRONG_VALUES] += tally.wrong_values
    if pair.kind is not PairKind.RELEASE:
        return counts, None
    bins = np.bincount(np.searchsorted(inner, np.asarray(tally.values, dtype=float), side="left"), minlength=len(inner) + 1)
    out = Counter({k: v for k, v in counts.items() if k not in ("A", "B")})
    out["B"] = counts.get("B", 0)
    for j, c in enumerate(bins):
        if c:
            out[f"A, value in bin {j + 1}"] = int(c)
    return out, np.concatenate([[counts.get("B", 0)], bins]).astype(float)


def _exact_loss(law: Mapping[str, float], nlaw: Mapping[str, float]) -> float:
    best = 0.0
    for s in set(law) | set(nlaw):
        p, pn = law.get(s, 0.0), nlaw.get(s, 0.0)
        if p > 0 and pn > 0:
            best = max(best, abs(math.log(p) - math.log(pn)))
        elif p > 0 or pn > 0:
            return math.inf
    return best


def audit(implementation: Callable[..., Any], claimed: SparseVector, *, samples: int | None = None,
          target_tv: float = DEFAULT_TARGET_TV, false_alarm: float = DEFAULT_FALSE_ALARM,
          random_pairs: int = DEFAULT_RANDOM_PAIRS, queries_per_pair: int | None = None, seed: int = 0,
          workers: int | None = 1, scheduler: str | None = None, executor: Executor | None = None,
          progress: bool = False, identify: bool = True, confidence: float = 0.95, worst_pair: bool = True,
          structured_pairs: bool = True, name: str | None = None) -> AuditResult:
    """Audit ``implementation`` (``impl(queries, rng)``, `verify.audit.adapters`) against ``claimed``
    (module docstring).  ``progress`` draws a tqdm bar of the runs on stderr."""
    if not isinstance(claimed, SparseVector):
        raise InputError(f"claimed variant: {claimed!r} is not a verify.family.SparseVector")
    _check(samples, target_tv, false_alarm, random_pairs, confidence, queries_per_pair)
    t_start = time.perf_counter()
    c = claimed.cutoff
    k = queries_per_pair if queries_per_pair is not None else max(3, (c or 2) + 1)
    pairs = select_pairs(claimed, k, random_pairs, seed, worst=worst_pair, structured=structured_pairs)
    if not pairs:
        raise InputError("pairs: no pair to sample (worst pair, structured pairs and random pairs all left out)")
    claim = Candidate("as claimed", claimed)
    edges = {i: {s: release_edges(claim, (p.queries, p.neighbour)[s][0], RELEASE_BINS) for s in (0, 1)}
             for i, p in enumerate(pairs) if p.kind is PairKind.RELEASE}
    keys = [(i, s) for i, p in enumerate(pairs) if p.kind is not PairKind.RELEASE for s in (0, 1)]
    laws = dict(zip(keys, letter_laws(claim, [(pairs[i].queries, pairs[i].neighbour)[s] for i, s in keys])))
    laws.update({(i, s): _release_law(claim, p, s, edges[i]) for i, p in enumerate(pairs) if p.kind is PairKind.RELEASE for s in (0, 1)})
    m = 2 * len(pairs)
    level = false_alarm / m
    df = max(sum(1 for v in law.values() if v > 0) - 1 for law in laws.values())
    df = max(df, 1)
    n = samples if samples is not None else samples_for_tv(target_tv, df, level)
    stats_before = time.perf_counter() - t_start

    label = name or getattr(implementation, "__qualname__", None) or type(implementation).__name__
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=m * n, desc=f"audit {claimed.name}", unit="run", leave=False, file=sys.stderr)
    try:
        with executor_for(executor, workers, scheduler) as (ex, _):
            jobs = [Job((0, i, s), (p.queries, p.neighbour)[s], n, p.kind is PairKind.RELEASE) for i, p in enumerate(pairs) for s in (0, 1)]
            t_sampling = time.perf_counter()
            tallies, interrupted, sampling, bookkeeping = run_jobs(implementation, jobs, seed, claimed.releases_values, ex,
                                                                   None if bar is None else bar.update)
            wall_sampling = time.perf_counter() - t_sampling
            t1 = time.perf_counter()
            tests: dict[tuple[int, int], GofResult] = {}
            observed: dict[tuple[int, int], tuple[Counter, np.ndarray | None]] = {}
            for (i, s), law in laws.items():
                tally = tallies[(0, i, s)]
                inner = edges.get(i, {}).get(s)
                observed[(i, s)] = _side_counts(pairs[i], tally, inner)
                if tally.runs:
                    tests[(i, s)] = g_test(observed[(i, s)][0], law)
            rejected = [key for key, t in tests.items() if t.p_value < level]
            reruns: dict[tuple[int, int], GofResult] = {}
            stats_time = stats_before + bookkeeping + time.perf_counter() - t1
            if rejected and not interrupted:
                jobs = [Job((1, i, s), (pairs[i].queries, pairs[i].neighbour)[s], n, pairs[i].kind is PairKind.RELEASE) for i, s in rejected]
                if bar is not None:
                    bar.total += len(jobs) * n
                t_more = time.perf_counter()
                more, interrupted, extra, more_bookkeeping = run_jobs(implementation, jobs, seed, claimed.releases_values, ex,
                                                                      None if bar is None else bar.update)
                wall_sampling += time.perf_counter() - t_more
                sampling += extra
                stats_time += more_bookkeeping
                t2 = time.perf_counter()
                for i, s in rejected:
                    tally = more[(1, i, s)]
                    if tally.runs:
                        reruns[(i, s)] = g_test(_side_counts(pairs[i], tally, edges.get(i, {}).get(s))[0], laws[(i, s)])
                stats_time += time.perf_counter() - t2
    finally:
        if bar is not None:
            bar.close()
    t3 = time.perf_counter()
    reports = []
    complete = [i for i in range(len(pairs)) if (i, 0) in tests and (i, 1) in tests]
    for i in complete:
        p = pairs[i]
        loss = None
        if p.kind is not PairKind.RELEASE:
            loss = empirical_loss(laws[(i, 0)], laws[(i, 1)], observed[(i, 0)][0], observed[(i, 1)][0], confidence)
        grid_err = 0.0
        if p.kind is PairKind.RELEASE:
            grid_err = max(release_cells(claim, q[0], edges[i][s])[1] for s, q in enumerate((p.queries, p.neighbour)))
        reports.append(PairReport(p, (tests[(i, 0)], tests[(i, 1)]), (reruns.get((i, 0)), reruns.get((i, 1))), loss,
                                  _exact_loss(laws[(i, 0)], laws[(i, 1)]), level, grid_err))
    confirmed = any(r.confirmed for r in reports)
    if confirmed:
        verdict = AuditVerdict.DEVIATES
    elif rejected or interrupted:
        verdict = AuditVerdict.UNDECIDED
    else:
        verdict = AuditVerdict.MATCHES
    notes = []
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
    if claimed.releases_values:
        notes.append("released values are tested at the one-query pair (binned against their exact law); elsewhere only the letters")
    fitted = None
    if identify and verdict is AuditVerdict.DEVIATES:
        obs = []
        for i in complete:
            for s in (0, 1):
                counts, bins = observed[(i, s)]
                obs.append(Observation(pairs[i], s, counts, bins, edges.get(i, {}).get(s)))
        fitted = fit(claimed, obs)
    stats_time += time.perf_counter() - t3
    return AuditResult(label, claimed, verdict, reports, n, false_alarm, detectable_tv(n, df, level), POWER, df, confidence,
                       fitted, interrupted, sampling, stats_time, notes, wall_sampling, time.perf_counter() - t_start)
