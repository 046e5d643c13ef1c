"""Benchmark of `verify.audit`: the statistics' cost beside the sampler's, and the samples needed to reject.

1. Overhead.  The preset lyu-1 (c = 2) audited at its worst pair plus 4 random pairs,
   ``--samples`` runs per side (default 10^5), in one process.  The implementation is
   `verify.audit.examples.lyu1`, a pure-numpy sampler called once per run (the audit's
   interface).  Reported: seconds inside the sampler, seconds of the statistics (exact
   laws, counting the runs, G-tests, Clopper–Pearson), and their ratio (target < 10%);
   listed apart, the one-time costs: the process's warm-up (imports, the compiled kernels'
   cache) and the worst-case search (once per claimed variant, cached).  For scale, the seconds the
   library's vectorised sampler (`verify.family.sampler.sample`) takes for the same runs.
2. Sample efficiency.  For each broken fixture of `verify.audit.examples`, the smallest N
   per side in 25, 50, 100, ... at which the audit (seed 0, default pairs, false-alarm
   rate 1e-3) says ``deviates`` and names the expected law, and the runs it spent in all
   (both sides of every pair, plus the confirming re-runs).  One seeded trial per N, not
   a power statement: `verify.audit.power` gives that.  Beside it, DP-Sniper's defaults
   (Bichsel, Steffen, Bogunovic, Vechev, "DP-Sniper: Black-Box Discovery of Differential
   Privacy Violations using Classifiers", IEEE S&P 2021; eth-sri/dp-sniper,
   ``dpsniper/search/ddconfig.py``: n_train = n = n_check = 10,700,000 samples, and
   n_final = 200,000,000) spend 10.7 M samples on the training set of each input pair alone.

3. Power and false alarms of the default audit (no --samples, no --target-tv).  ``--power-seeds S``:
   every broken fixture audited at seeds 0..S-1; the share that says ``deviates``, beside the verdict's
   predicted power against that bug (`verify.audit.sensitive`).  ``--false-alarm-seeds S``: the correct
   fixtures audited at seeds 0..S-1 (seed j audits fixture j mod their number); the share of ``deviates`` (stated:
   at most α²/m) and of any first-round rejection (``undecided`` or ``deviates``; stated: at most α).
   ``--fixtures a,b,...`` restricts both to the named fixtures (e.g. the discrete ones).
4. ``--batch-runs N``: a batch sampler's runs per second called directly and through the audit (target: ratio
   >= 0.8).  ``--sequential``: the default audit's wall clock with sequential stopping against the full audit
   (``sequential=False``) in the same run, on ``--fixtures``, the sampler's own seconds apart.
5. ``--startup R``: the CPU seconds (user + system, the audit's sandbox child included) of one
   ``python -m verify audit`` process on a correct lyu-1 (c = 2) at 200 runs per side, no worst pair, no random
   pairs, one worker (the shape of tests/test_audit_exit.py's cases), the least of R runs; beside it, in the same
   run, a bare ``python -c pass`` and ``python -c "import numpy"``, and the ratios to them (the machine's speed
   and load cancel in the ratios).

    python benchmarks/bench_audit.py [--samples N] [--skip-overhead] [--skip-efficiency]
                                     [--power-seeds S] [--false-alarm-seeds S] [--fixtures a,b,...] [--workers W]
                                     [--batch-runs N] [--sequential] [--startup R]
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from verify.audit import audit
from verify.audit.examples import FIXTURES, claimed_variant, lyu1
from verify.audit.laws import Candidate, letter_laws
from verify.audit.pairs import worst_case
from verify.family.sampler import sample
from verify.verdicts import AuditVerdict

DPSNIPER_TRAIN = 10_700_000
DPSNIPER_FINAL = 200_000_000


def overhead(samples: int) -> None:
    mech = claimed_variant(FIXTURES["lyu1"])
    t0 = time.perf_counter()
    letter_laws(Candidate("warm-up", mech), [(0.5, 0.5, 0.5)])  # imports and the compiled kernels' cache, once per process
    warm = time.perf_counter() - t0
    t0 = time.perf_counter()
    worst_case(mech)
    search = time.perf_counter() - t0
    res = audit(lyu1, mech, samples=samples, random_pairs=4, structured_pairs=False, workers=1, seed=0)
    runs = 2 * len(res.pairs) * samples
    t1 = time.perf_counter()
    for r in res.pairs:
        for q in (r.pair.queries, r.pair.neighbour):
            sample(mech, list(q), samples, 0)
    vectorised = time.perf_counter() - t1
    print(f"overhead: {mech.describe()}")
    print(f"  pairs: worst + 4 random ({len(res.pairs)}), {samples:,} runs per side, {runs:,} runs; verdict {res.verdict}")
    print(f"  inside the sampler (examples.lyu1, numpy, one call per run): {res.sampling_seconds:.2f} s "
          f"({res.sampling_seconds / runs * 1e6:.1f} µs per run)")
    print(f"  statistics (exact laws, counting the runs, G-tests, Clopper–Pearson): {res.statistics_seconds:.2f} s "
          f"= {res.statistics_seconds / res.sampling_seconds:.1%} of the sampler's time (target < 10%)")
    print(f"  once per process / per variant, not counted above: warm-up {warm:.2f} s, worst-case search {search:.2f} s "
          f"(with both: {(res.statistics_seconds + warm + search) / res.sampling_seconds:.1%}); wall clock of the audit {res.wall_seconds:.2f} s")
    print(f"  for scale: the library's vectorised sampler takes {vectorised:.2f} s for the same runs")


def efficiency() -> None:
    print("sample efficiency (seed 0, false-alarm rate 1e-3): smallest N per side in 25·2^j that says deviates "
          "and names the expected law")
    print(f"  {'fixture':32s} {'claims':12s} {'N per side':>10s} {'runs spent':>11s}  beside DP-Sniper's {DPSNIPER_TRAIN:,} "
          f"training samples per input pair ({DPSNIPER_FINAL:,} for its final estimate)")
    for f in FIXTURES.values():
        if f.correct:
            continue
        n = 25
        while n <= 102_400:
            res = audit(f.implementation, claimed_variant(f), samples=n, seed=0, workers=1)
            named = res.fit is not None and res.fit.best_labels[0] == f.expected
            if res.verdict is AuditVerdict.DEVIATES and named:
                reruns = sum(r is not None for p in res.pairs for r in p.reruns)
                spent = (sum(len(p.pair.sides) for p in res.pairs) + reruns) * n
                print(f"  {f.name:32s} {f.variant + ' c=' + str(f.cutoff):12s} {n:>10,} {spent:>11,}  "
                      f"= {spent / DPSNIPER_TRAIN:.2%} of 10.7 M; named: {f.expected}")
                break
            n *= 2
        else:
            print(f"  {f.name:32s} not rejected and named up to N = 102,400")


def _wilson(k: int, n: int) -> str:
    z = 1.959964
    c = (k + z * z / 2) / (n + z * z)
    h = z * ((k * (n - k) / n + z * z / 4) ** 0.5) / (n + z * z)
    return f"[{max(0.0, c - h):.2f}, {min(1.0, c + h):.2f}]"


#: The bug of `verify.audit.sensitive` each broken fixture commits (its predicted power is printed beside).
BUG_OF = {"lyu1_half_noise": "query noise scale × 9/10", "lyu1_reused_noise": "one query noise draw reused",
          "lyu1_cutoff_off_by_one": "cutoff 3", "lyu2_threshold_not_resampled": "threshold shared",
          "lyu1_c3_fresh_threshold": "threshold drawn afresh per query", "lyu1_c3_threshold_scale_110": "threshold noise scale × 11/10",
          "lyu1_query_scale_90": "query noise scale × 9/10", "lyu3_unnoised_release": "",
          "sampcert_gt": "compare gt (> where the claim has >=)", "sampcert_threshold_off_by_one": "threshold t - 1 (off by one)",
          "sampcert_rounded_laplace": "continuous Laplace rounded to the integers"}


def _chosen(names: str | None) -> list:
    """The fixtures named in ``--fixtures`` (comma-separated), or all."""
    if not names:
        return list(FIXTURES.values())
    unknown = [n for n in names.split(",") if n not in FIXTURES]
    if unknown:
        raise SystemExit(f"--fixtures: {', '.join(unknown)} not in verify.audit.examples.FIXTURES")
    return [FIXTURES[n] for n in names.split(",")]


def power(seeds: int, workers: int, names: str | None = None) -> None:
    print(f"power of the default audit (seeds 0..{seeds - 1}, false-alarm rate 1e-3): share of deviates")
    print(f"  {'fixture':32s} {'claims':12s} {'deviates':>9s} {'95% Wilson':>12s}  predicted (bug at its row)")
    for f in _chosen(names):
        if f.correct:
            continue
        hits, pred = 0, ""
        for seed in range(seeds):
            res = audit(f.implementation, claimed_variant(f), seed=seed, workers=workers, identify=False)
            hits += res.verdict is AuditVerdict.DEVIATES
            bug = BUG_OF.get(f.name, "")
            pred = next((f"{p:.2f} ({b}, {n:,} runs)" for b, n, p in res.bug_power if bug and b == bug), "released values: outright")
        print(f"  {f.name:32s} {f.variant + ' c=' + str(f.cutoff):12s} {hits:>4}/{seeds:<4} {_wilson(hits, seeds):>12s}  {pred}")


def false_alarms(seeds: int, workers: int, names: str | None = None) -> None:
    correct = [f for f in _chosen(names) if f.correct]
    dev = rej = 0
    for seed in range(seeds):
        f = correct[seed % len(correct)]
        res = audit(f.implementation, claimed_variant(f), seed=seed, workers=workers, identify=False)
        dev += res.verdict is AuditVerdict.DEVIATES
        rej += res.verdict is not AuditVerdict.MATCHES
    which = f"the {len(correct)} correct fixtures" if len(correct) > 1 else f"the correct fixture {correct[0].name}"
    print(f"false alarms of the default audit on {which}, seeds 0..{seeds - 1} (seed j: fixture j mod "
          f"{len(correct)}): deviates {dev}/{seeds} (stated: at most α²/m < 1e-6 per audit), any first-round rejection "
          f"{rej}/{seeds} {_wilson(rej, seeds)} (stated: at most α = 0.001 per audit)")


def batch_throughput(runs: int) -> None:
    """Runs per second of the batch sampler `verify.audit.shaped_examples.lyu1_batch` called directly (chunks of
    `verify.audit.sampling.CHUNK`) against the same runs through the audit's sampling (`run_jobs`, one process)."""
    from verify.audit.sampling import CHUNK, Job, executor_mapper, run_jobs
    from verify.audit.shaped_examples import lyu1_batch

    q = np.array([0.0, 1.0, -1.0])
    rng = np.random.default_rng(0)
    t0 = time.perf_counter()
    for start in range(0, runs, CHUNK):
        lyu1_batch.runs(q, rng, min(CHUNK, runs - start))
    direct = time.perf_counter() - t0
    t0 = time.perf_counter()
    run_jobs(executor_mapper(lyu1_batch, None), [Job((0, 0, 0), tuple(q), runs, False)], 0, False)
    through = time.perf_counter() - t0
    print(f"batch sampler (shaped_examples.lyu1_batch, {runs:,} runs): direct {runs / direct:,.0f} runs/s, through the audit "
          f"{runs / through:,.0f} runs/s: ratio {direct / through:.2f} (target >= 0.80)")


def sequential_speed(names: str | None, workers: int) -> None:
    """Wall clock of the default audit with sequential stopping against the full audit (``sequential=False``),
    the baseline, in the same run; the sampler's own seconds apart."""
    from verify.audit import fit, laws, pairs

    print("default audit, sequential stopping against the full audit (baseline, same run, seed 0; the search and law caches "
          "cleared before each audit, so both pay them):")
    for f in _chosen(names):
        row = []
        for seq in (True, False):
            for cached in (pairs.worst_case, fit.privacy_search, laws._family_laws):
                cached.cache_clear()
            t0 = time.perf_counter()
            res = audit(f.implementation, claimed_variant(f), seed=0, workers=workers, sequential=seq)
            row.append((time.perf_counter() - t0, res.sampling_seconds, res.verdict))
        (ws, ss, v), (wf, sf, vf) = row
        print(f"  {f.name:32s} {str(v):9s} sequential {ws:6.1f} s (sampler {ss:5.1f} s), full {wf:6.1f} s (sampler {sf:5.1f} s, "
              f"{vf}): ratio {ws / wf:.2f}")


def _child_cpu(argv: list[str], env: dict[str, str]) -> float:
    """CPU seconds (user + system) of one child process and its own waited-for children."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(argv, env=env, check=True, stdout=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def startup(repeats: int) -> None:
    root = Path(__file__).resolve().parent.parent
    env = {**os.environ, "PYTHONPATH": str(root)}
    cmds = {"audit": [sys.executable, "-m", "verify", "audit", "--implementation", "verify.audit.examples:lyu1", "--variant",
                      "lyu-1", "--cutoff", "2", "--samples", "200", "--random-pairs", "0", "--no-worst-pair", "--workers", "1"],
            "python -c pass": [sys.executable, "-c", "pass"],
            "import numpy": [sys.executable, "-c", "import numpy"]}
    best = {k: min(_child_cpu(argv, env) for _ in range(repeats)) for k, argv in cmds.items()}
    print(f"audit start-up (one `python -m verify audit` process, correct lyu-1 of verify.audit.examples, 200 runs per side, least of {repeats}): "
          f"{best['audit']:.2f} s CPU; python -c pass {best['python -c pass']:.2f} s (ratio {best['audit'] / best['python -c pass']:.1f}), "
          f"import numpy {best['import numpy']:.2f} s (ratio {best['audit'] / best['import numpy']:.1f})")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=100_000, help="runs per side for the overhead measurement (default 10^5)")
    ap.add_argument("--skip-overhead", action="store_true")
    ap.add_argument("--skip-efficiency", action="store_true")
    ap.add_argument("--power-seeds", type=int, default=0, help="seeds per broken fixture for the power table (0: skip)")
    ap.add_argument("--false-alarm-seeds", type=int, default=0, help="audits of correct fixtures for the false-alarm rate (0: skip)")
    ap.add_argument("--fixtures", default=None, help="comma-separated fixture names for the power and false-alarm audits (default all)")
    ap.add_argument("--batch-runs", type=int, default=0, help="runs for the batch-sampler throughput ratio (0: skip)")
    ap.add_argument("--sequential", action="store_true", help="time sequential stopping against the full audit on --fixtures")
    ap.add_argument("--workers", type=int, default=2, help="worker processes of the power and false-alarm audits")
    ap.add_argument("--startup", type=int, default=0, metavar="R",
                    help="CPU seconds of one audit process (least of R runs) beside a bare interpreter's (0: skip)")
    a = ap.parse_args()
    if not a.skip_overhead:
        overhead(a.samples)
    if not a.skip_efficiency:
        efficiency()
    if a.power_seeds:
        power(a.power_seeds, a.workers, a.fixtures)
    if a.false_alarm_seeds:
        false_alarms(a.false_alarm_seeds, a.workers, a.fixtures)
    if a.batch_runs:
        batch_throughput(a.batch_runs)
    if a.sequential:
        sequential_speed(a.fixtures, a.workers)
    if a.startup:
        startup(a.startup)


if __name__ == "__main__":
    main()
