"""CPU time of the worst-case verdicts against their targets, with ratios to a baseline run in the same process.

The machine is shared, so every figure is process CPU time (`time.process_time`: user + sys of all the
process's threads), and each is also printed as a ratio to a baseline workload timed in the same process
(the seed's `verify.worstcase.worst_case` on Mechanism One at --max-queries 5, timed first; it is timed
again at the end to show the drift of the machine's load).  Targets:

* `worst-case` on every cutoff-1 variant at --max-queries 5: <= 1 s each.  The variants are the seed
  report's six (the seed's view, `verify.worstcase.worst_case`, as the command runs them without --variant)
  and every preset at cutoff 1 (`family_worst_case`, as the command runs them with --variant NAME --cutoff 1);
* every preset at c <= 2 and 10 queries: <= 3 s each (presets whose cutoff is unlimited and does not scale
  run at their own cutoff);
* the whole `family` table: <= 8 s, measured twice on one worker: in this process (`verify.family.table.family_table`,
  after the warm-up: Mechanism Two's certificate is cached) and cold, as the command, `python3 -m verify family --json
  --workers 1`, in a child process (its CPU time from `os.wait4`, imports included).  Its wall time on all cores
  against one worker: benchmarks/bench_family_table.py.

Every search is timed cold: the float64 evaluator's remembered values are cleared first.

Run: python3 benchmarks/bench_family_verdicts.py [--quick] [--profile NAME:CUTOFF:QUERIES]
(``--quick``: the first two groups only; ``--profile``: cProfile one search, top 25 by cumulative time.)
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's verify, not an installed one

from verify.family.bounds import proven_upper_bound  # noqa: E402
from verify.family.presets import NAMES, PRESETS, preset  # noqa: E402
from verify.family.structured import clear_memo  # noqa: E402
from verify.family.table import ROWS, family_table  # noqa: E402
from verify.family.worstcase import family_worst_case  # noqa: E402
from verify.worstcase import worst_case  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_worst_case import VARIANTS  # noqa: E402

#: The seed's six cutoff-1 variants, as `bench_worst_case.py` times them against the former search.
SEED_VARIANTS = VARIANTS
TARGET_CUTOFF_1, TARGET_PRESET, TARGET_TABLE = 1.0, 3.0, 8.0


def cpu(fn):
    """(result, CPU seconds of this process while ``fn`` ran), from a cold search: the values the float64
    evaluator remembers (`verify.family.structured.clear_memo`) are forgotten first."""
    clear_memo()
    t0 = time.process_time()
    out = fn()
    return out, time.process_time() - t0


def preset_at(name: str, cutoff: int):
    """The preset at ``cutoff`` (its scales grow with c where the source says so; else c only overrides the run)."""
    if PRESETS[name].scales_with_cutoff:
        return preset(name, cutoff=cutoff)
    return preset(name).with_changes(cutoff=cutoff)


def line(label: str, seconds: float, base: float, target: float, verdict: object) -> bool:
    ok = seconds <= target
    print(f"  {label:34s} {seconds:6.2f} s CPU  {seconds / base:5.2f}x baseline  {'met' if ok else 'MISSED':6s}  {verdict}")
    return ok


def child_cpu(cmd: list[str]) -> float:
    """User + sys CPU seconds of a child process (and its children), from `os.wait4`."""
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="the cutoff-1 and per-preset groups only")
    ap.add_argument("--profile", metavar="NAME:CUTOFF:QUERIES", help="cProfile one family_worst_case and stop")
    args = ap.parse_args(argv)
    if args.profile:
        import cProfile
        import pstats

        name, c, k = args.profile.split(":")
        mech = preset_at(name, int(c))
        family_worst_case(mech, max_queries=1)  # imports and caches outside the profile
        prof = cProfile.Profile()
        prof.runcall(family_worst_case, mech, max_queries=int(k))
        pstats.Stats(prof).sort_stats("cumulative").print_stats(25)
        return
    proven_upper_bound(SEED_VARIANTS["Mechanism Two"])  # warm-up: imports and the sympy certificate (cached)
    family_worst_case(preset("gap-svt"), max_queries=1)
    base_run = lambda: worst_case(SEED_VARIANTS["Mechanism One"], max_queries=5)  # noqa: E731
    _, base = cpu(base_run)
    print(f"baseline: worst_case(Mechanism One, max_queries=5): {base:.2f} s CPU (load average {os.getloadavg()[0]:.1f})")
    missed = []
    print(f"\nworst-case on every cutoff-1 variant at --max-queries 5 (target <= {TARGET_CUTOFF_1:g} s each):")
    for name, mech in SEED_VARIANTS.items():
        r, s = cpu(lambda mech=mech: worst_case(mech, max_queries=5))
        if not line(f"{name} (seed view)", s, base, TARGET_CUTOFF_1, r.verdict):
            missed.append(name)
    for name in NAMES:
        r, s = cpu(lambda name=name: family_worst_case(preset_at(name, 1), max_queries=5))
        if not line(f"--variant {name} --cutoff 1", s, base, TARGET_CUTOFF_1, r.verdict):
            missed.append(f"{name} c=1 k=5")
    print(f"\nevery preset at c <= 2, 10 queries (target <= {TARGET_PRESET:g} s each):")
    for name in NAMES:
        cuts = (1, 2) if PRESETS[name].scales_with_cutoff or preset(name).cutoff is not None else (None,)
        for c in cuts:
            mech = preset(name) if c is None else preset_at(name, c)
            r, s = cpu(lambda mech=mech: family_worst_case(mech, max_queries=10))
            label = f"{name} c={'∞' if mech.cutoff is None else mech.cutoff}"
            if not line(label, s, base, TARGET_PRESET, r.verdict):
                missed.append(f"{label} k=10")
    if not args.quick:
        print(f"\nthe whole family table, {len(ROWS)} rows at 10 queries (target <= {TARGET_TABLE:g} s):")
        rows, s = cpu(lambda: family_table(workers=1))  # one process (CPU time); Mechanism Two's certificate is cached
        if not line("family_table() in this process", s, base, TARGET_TABLE, f"{len(rows)} rows"):
            missed.append("family table (in process)")
        s = child_cpu([sys.executable, "-m", "verify", "family", "--json", "--workers", "1"])
        if not line("verify family --json --workers 1", s, base, TARGET_TABLE, "child process, imports included"):
            missed.append("family command")
    _, base2 = cpu(base_run)
    print(f"\nbaseline again: {base2:.2f} s CPU (first {base:.2f} s; ratios above use the first)")
    print("targets missed: " + (", ".join(missed) if missed else "none"))


if __name__ == "__main__":
    main()
