"""The time a user waits: `svt-verify report`, `svt-verify family` and (optionally) the suite, each beside
a baseline timed in the same run, against the targets of docs/benchmarks.md.

The machine is shared, so every command is timed both ways: wall time (`time.perf_counter`) and CPU time
(user + sys of the child and all its children, from `os.wait4`, as `/usr/bin/time -v` reports it), with
the load average before and after.  The baseline is a fixed reference computation run in this process
before and after the commands (the seed's `worst_case` on Mechanism One at ``max_queries=5``, as
`bench_family_verdicts.py` uses): its CPU time says how fast the machine ran during this run, and each
command is also printed as a multiple of it (a ratio that the load distorts less than seconds do).

    PYTHONPATH=$PWD python benchmarks/bench_report.py [--workers N] [--suite] [--json]

``--suite``: also the whole test suite (`python -m pytest -q -n 2 -p no:randomly`, about 10 minutes of wall
time at load 2) and its quick subset (``-m "not slow"``); off by default.
Targets (issue 33): report <= 15 s wall and <= 25 s CPU, `family` <= 4 s wall, the suite <= 2.5 min wall
and <= 300 s CPU, the quick subset <= 1 min wall, all at load <= 1 on 2 cores.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: (name, command after the interpreter, wall target in s, CPU target in s or None)
COMMANDS = (
    ("report", ["-m", "verify", "report", "--json"], 15.0, 25.0),
    ("family", ["-m", "verify", "family", "--json"], 4.0, None),
)
SUITE = (
    ("suite", ["-m", "pytest", "-q", "-n", "2", "-p", "no:randomly"], 150.0, 300.0),
    ("suite -m 'not slow'", ["-m", "pytest", "-q", "-n", "2", "-p", "no:randomly", "-m", "not slow"], 60.0, None),
)


def baseline_cpu() -> float:
    """CPU seconds of the reference computation in this process (imports and caches warmed first)."""
    from verify.mechanism import AboveThreshold
    from verify.worstcase import worst_case

    mech = AboveThreshold.mechanism_one(1)
    t0 = time.process_time()
    worst_case(mech, max_queries=5)
    return time.process_time() - t0


def timed(args: list[str], workers: int | None) -> dict[str, float]:
    """Wall and CPU seconds (user + sys of the child and its children) of ``python args``."""
    cmd = [sys.executable, *args]
    if workers is not None and args[:2] == ["-m", "verify"]:
        cmd += ["--workers", str(workers)]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    load = os.getloadavg()[0]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    code = os.waitstatus_to_exitcode(status)
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "user": usage.ru_utime, "sys": usage.ru_stime,
            "load_before": load, "load_after": os.getloadavg()[0], "exit": code}


def verdict(r: dict[str, float], wall_target: float, cpu_target: float | None) -> str:
    ok = r["wall"] <= wall_target and (cpu_target is None or r["cpu"] <= cpu_target)
    quiet = max(r["load_before"], r["load_after"]) <= 1.0
    return ("met" if ok else "not met") + ("" if quiet else " (load > 1: the target is stated at load <= 1)")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=None, help="--workers of the commands (default: theirs, all cores)")
    ap.add_argument("--suite", action="store_true", help="also the whole suite and its quick subset (slow)")
    ap.add_argument("--json", action="store_true", help="one JSON object instead of the table")
    args = ap.parse_args(argv)
    baseline_cpu()  # warm-up: imports, compiled kernels, caches
    base = baseline_cpu()
    out: dict[str, object] = {"baseline_cpu": base, "cores": os.cpu_count(), "commands": {}}
    if not args.json:
        print(f"baseline: worst_case(Mechanism One, max_queries=5) in this process: {base:.2f} s CPU "
              f"(load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} cores)")
        print(f"{'command':22s} {'wall':>8s} {'CPU':>8s} {'user':>8s} {'sys':>6s} {'CPU/base':>9s}  load   target")
    for name, cmd, wall_t, cpu_t in COMMANDS + (SUITE if args.suite else ()):
        r = timed(cmd, args.workers)
        r["cpu_over_baseline"] = r["cpu"] / base
        r["target"] = f"<= {wall_t:g} s wall" + ("" if cpu_t is None else f", <= {cpu_t:g} s CPU")
        r["status"] = verdict(r, wall_t, cpu_t) if r["exit"] == 0 else f"exit {r['exit']}"
        out["commands"][name] = r  # type: ignore[index]
        if not args.json:
            print(f"{name:22s} {r['wall']:7.1f}s {r['cpu']:7.1f}s {r['user']:7.1f}s {r['sys']:5.1f}s {r['cpu_over_baseline']:8.1f}x  "
                  f"{r['load_before']:.1f}-{r['load_after']:.1f}  {r['target']}: {r['status']}")
    again = baseline_cpu()
    out["baseline_cpu_after"] = again
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print(f"baseline again: {again:.2f} s CPU (first {base:.2f} s; the ratios use the first)")


if __name__ == "__main__":
    main()
