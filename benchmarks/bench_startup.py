"""Benchmark of the start-up of ``python -m verify``: the CPU time of a few short commands, each a fresh process.

Every command of ``svt-verify`` is a process of its own, and the test suite starts hundreds of them, so their
imports (numpy, mpmath; sympy, scipy and numba where a command uses them) are paid on every run.  Each command
below is run ``--repeats`` times; printed: the smallest CPU time (user + system of the child, from ``os.wait4``:
the machine is shared, wall time moves with the load) and its ratio to the baseline ``python -c pass`` timed
the same way in the same run, and which of the heavy libraries the command imported (a second run of it with
``-X importtime``, whose module list it reads).

    PYTHONPATH=$PWD python benchmarks/bench_startup.py [--repeats 3] [--checkout PATH] [--json]

``--checkout PATH`` times another checkout's code (its root put first on PYTHONPATH), e.g. main before a change.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: (label, argv after ``python -m verify``): a command's own module and what its run imports.
COMMANDS = [
    ("--version", ["--version"]),
    ("ratio --help", ["ratio", "--help"]),
    ("prob (bad input)", ["prob", "--queries", "0", "--output", "x"]),
    ("prob mpmath", ["prob", "--queries", "0,1/2", "--output", "2"]),
    ("prob fast", ["prob", "--queries", "0,1/2", "--output", "2", "--method", "fast"]),
    ("prob discrete", ["prob", "--variant", "dlap-seed-m1", "--queries", "0,1", "--outcomes", "BA"]),
    ("ratio", ["ratio", "--queries", "0,1/2", "--neighbour-queries", "1,1/2"]),
    ("delta lyu-1", ["delta", "--variant", "lyu-1", "--epsilon-prime", "1", "--queries", "0,1", "--neighbour-queries", "1,0"]),
    ("worst-case k=1", ["worst-case", "--max-queries", "1"]),
]

#: Libraries that cost 0.2-0.8 s of CPU each to import.
HEAVY = ("sympy", "scipy", "numba", "flint", "numpy", "mpmath")


def _env() -> dict[str, str]:
    return dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))


def cpu_seconds(argv: list[str]) -> float:
    """User + system CPU of one child process running ``argv`` (its output discarded)."""
    p = subprocess.Popen(argv, cwd=ROOT, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime


def heavy_imports(args: list[str]) -> list[str]:
    """The libraries of `HEAVY` that ``python -m verify ARGS`` imports (read from ``-X importtime``)."""
    r = subprocess.run([sys.executable, "-X", "importtime", "-m", "verify", *args], cwd=ROOT, env=_env(),
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    names = {line.rsplit("|", 1)[-1].strip() for line in r.stderr.splitlines() if line.startswith("import time:")}
    return [m for m in HEAVY if m in names]


def main() -> None:
    global ROOT
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=3, help="runs of each command; the smallest CPU time is kept (default 3)")
    ap.add_argument("--checkout", type=Path, default=ROOT, help="the checkout whose code is timed (default this one)")
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    ROOT = args.checkout.resolve()
    base = min(cpu_seconds([sys.executable, "-c", "pass"]) for _ in range(args.repeats))
    rows = []
    for label, argv in COMMANDS:
        t = min(cpu_seconds([sys.executable, "-m", "verify", *argv]) for _ in range(args.repeats))
        rows.append({"command": label, "cpu_seconds": round(t, 3), "ratio_to_baseline": round(t / base, 1),
                     "heavy_imports": heavy_imports(argv)})
    if args.json:
        print(json.dumps({"checkout": str(ROOT), "baseline_cpu_seconds": round(base, 3), "repeats": args.repeats, "rows": rows}, indent=1))
        return
    print(f"checkout {ROOT}")
    print(f"baseline `python -c pass`: {base * 1000:.0f} ms CPU (min of {args.repeats})")
    print(f"{'command':18s} {'CPU ms':>7s} {'x base':>7s}  heavy imports")
    for r in rows:
        print(f"{r['command']:18s} {r['cpu_seconds'] * 1000:7.0f} {r['ratio_to_baseline']:7.1f}  {' '.join(r['heavy_imports'])}")


if __name__ == "__main__":
    main()
