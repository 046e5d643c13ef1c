"""Wall time of the whole `family` table on one worker and on all cores, with their ratio, in one run.

The table (`verify.family.table.family_table`, the third stage of `svt-verify report`) runs its 16 rows
on worker processes (`verify.family.table.TableRun`: rows handed out longest first, results put back in the
table's order).  This script times, in this process and one after the other:

1. a warm-up (every row at 1 query: imports, Mechanism Two's sympy certificate);
2. the table on one worker (``workers=1``: serially, in this process);
3. the table on all cores (``workers=None``: `verify.parallel.default_workers`, or ``--workers N``).

Wall time (`time.perf_counter`) is what the target is about (<= 8 s on 2 cores); CPU time is printed
beside it (this process plus its reaped worker processes, `resource.getrusage`), so that a loaded machine
shows as wall above CPU.  The rows of both runs are compared field by field (all but the seconds), and the
largest row (its own wall time in its worker) is printed: no table can take less than its longest row.
On a loaded machine (or one whose scheduler caps this user's share) the workers gain little wall time, so the
script also prints what the one-worker run's row times give when handed out longest first to N idle
workers (`makespan`): the wall time to expect on a quiet machine, process start-up aside.
With ``--command``, the same two runs as the command, ``python3 -m verify family --json --no-discrete
--workers N``, in child processes (cold: imports and certificate included).
With ``--against PATH`` (another checkout, e.g. main) only the whole command ``python3 -m verify family --json``
(discrete rows included, ``--workers N`` if given) is timed, ``--reps`` times each, this checkout and PATH
taking turns (each child's ``PYTHONPATH`` its checkout): CPU (child and workers, `os.wait4`) and wall, their
medians and the ratio of the CPU medians, and whether both print the same rows (every field but the seconds);
with ``--serial`` also, first, the CPU time each checkout's command spends before its workers fork (the serial
phase the workers wait for: imports, the compiled evaluator's load), ``2 × --reps`` runs each taking turns; with
``--idle-estimate`` also, first, the wall time each checkout's command would take on two idle cores, scheduled from
the CPU seconds of its processes (the parent's at each fork, each worker's; `fluid_schedule`), ``--reps`` runs each:
the figure to compare on a loaded machine, where two cores are rarely idle.
Both checkouts read their bytecode from one cache outside them (`PYCACHE`, ``PYTHONPYCACHEPREFIX``), written by an
untimed first run of each: with ``PYTHONDONTWRITEBYTECODE`` set, a checkout without ``__pycache__`` recompiles its
modules on every run (about 0.35 s of CPU of the command's 8-10 s, 2026-12-07), which one that has them does not pay.

Run: python3 benchmarks/bench_family_table.py [--workers N] [--command] [--against PATH [--reps 3] [--serial] [--idle-estimate]]
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout's verify, not an installed one

from verify.family.structured import clear_memo  # noqa: E402
from verify.family.table import ROWS, RowTask, family_table, hand_out_order  # noqa: E402
from verify.parallel import default_workers  # noqa: E402

TARGET_WALL = 8.0


def _cpu_now() -> float:
    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


def timed(fn):
    """(result, wall seconds, CPU seconds of this process and its reaped children) of ``fn()``, cold memo."""
    clear_memo()
    c0, t0 = _cpu_now(), time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0, _cpu_now() - c0


def _fields(row) -> dict:
    j = row.to_json()
    j.pop("seconds")
    j["published"] = [{k: v for k, v in p.items() if k != "time_ratio"} for p in j["published"]]
    return j


def makespan(seconds: list[float], workers: int) -> float:
    """The wall time of ``seconds`` (one per task) on ``workers`` idle cores, each task to the next free worker
    in the order `TableRun` hands them out (the list is in that order): what the pool would take on a quiet
    machine, process start-up aside."""
    free = [0.0] * workers
    for s in seconds:
        i = free.index(min(free))
        free[i] += s
    return max(free)


def command(workers: int) -> tuple[float, float]:
    """Wall and CPU seconds (child and its workers, `os.wait4`) of the command on ``workers`` processes."""
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "verify", "family", "--json", "--no-discrete", "--workers", str(workers)],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"python3 -m verify family --workers {workers} failed")
    return wall, usage.ru_utime + usage.ru_stime


def _timing_free(x):
    """``x`` (parsed JSON) without its timing fields (seconds, time ratios)."""
    if isinstance(x, dict):
        return {k: _timing_free(v) for k, v in x.items() if "second" not in k and "time" not in k}
    return [_timing_free(v) for v in x] if isinstance(x, list) else x


#: The bytecode cache of `against`'s runs (both checkouts and the libraries; the paths inside it are the sources').
PYCACHE = Path(tempfile.gettempdir()) / "svt-verify-bench-pycache"


def against(other: Path, reps: int, workers: int | None) -> bool:
    """The whole command here and in ``other``, taking turns (module docstring); True if both print the same rows."""
    runs: dict[str, list[tuple[float, float]]] = {"this checkout": [], str(other): []}
    outs: dict[str, object] = {}
    extra = [] if workers is None else ["--workers", str(workers)]
    for rep in range(-1, reps):  # rep -1: untimed, writes both checkouts' bytecode into PYCACHE
        for name, tree in (("this checkout", ROOT), (str(other), other)):
            env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
            env.update(PYTHONPATH=str(tree), PYTHONPYCACHEPREFIX=str(PYCACHE))
            t0 = time.perf_counter()
            proc = subprocess.Popen([sys.executable, "-m", "verify", "family", "--json", *extra], cwd=tree,
                                    env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
            out = proc.stdout.read()
            _, status, usage = os.wait4(proc.pid, 0)
            wall = time.perf_counter() - t0
            if os.waitstatus_to_exitcode(status) != 0:
                raise SystemExit(f"python3 -m verify family failed in {tree}")
            if rep < 0:
                continue
            runs[name].append((usage.ru_utime + usage.ru_stime, wall))
            outs[name] = _timing_free(json.loads(out))
            print(f"  {name}: {runs[name][-1][0]:6.2f} s CPU  {wall:6.2f} s wall  (load {os.getloadavg()[0]:.1f})", flush=True)
    med = {name: (statistics.median(c for c, _ in r), statistics.median(w for _, w in r)) for name, r in runs.items()}
    for name, (c, w) in med.items():
        print(f"  median {name}: {c:6.2f} s CPU  {w:6.2f} s wall")
    print(f"  CPU this checkout / {other}: {med['this checkout'][0] / med[str(other)][0]:.3f} (medians of {reps})")
    same = outs["this checkout"] == outs[str(other)]
    print(f"  rows identical (every field but the timings): {'yes' if same else 'NO'}")
    return same


#: Runs ``family --json`` and, at its first fork (the pool's workers), prints the CPU seconds this process has used
#: (user + sys: the serial phase the workers wait for, imports and the compiled evaluator's load) and exits.
_SERIAL_PROBE = """
import os, sys
def before():
    t = os.times()
    print(f"{t.user + t.system:.3f}", flush=True)
    os._exit(0)
os.register_at_fork(before=before)
from verify.cli.main import main
main(["family", "--json"])
"""


#: Runs ``family --json`` and writes to stderr, for each worker, the parent's CPU seconds when it was forked ("F pid
#: seconds") and its own CPU seconds after each task ("W pid seconds"); `idle_estimate` schedules them.
_SCHEDULE_PROBE = """
import os, sys, time
import verify.family.table as table
run_bundle = table._run_bundle
def traced(bundle):
    out = run_bundle(bundle)
    sys.stderr.write(f"W {os.getpid()} {time.process_time():.4f}\\n")
    return out
table._run_bundle = traced  # the workers look it up by name (forked: this module as it is here)
forked = []
def child():
    sys.stderr.write(f"F {os.getpid()} {forked[-1]:.4f}\\n")
os.register_at_fork(before=lambda: forked.append(time.process_time()), after_in_child=child)
from verify.cli.main import main
main(["family", "--json"])
"""


def fluid_schedule(parent: float, workers: list[tuple[float, float]], cores: int = 2, step: float = 1e-3) -> float:
    """Seconds until every process is done on ``cores`` idle cores shared equally among the runnable processes: the
    parent runs ``parent`` CPU seconds; a worker ``(fork, cpu)`` becomes runnable once the parent has run ``fork``
    seconds and then runs ``cpu`` seconds (process start-up and the parent's work after the last fork left out)."""
    need = [parent] + [cpu for _, cpu in workers]
    done = [0.0] * len(need)
    t = 0.0
    while True:
        run = [i for i in range(len(need)) if done[i] < need[i] and (i == 0 or done[0] >= workers[i - 1][0])]
        if not run:
            return t
        share = min(1.0, cores / len(run)) * step
        for i in run:
            done[i] += share
        t += step


def idle_estimate(other: Path, reps: int) -> None:
    """The wall time ``family --json`` would take on two idle cores, from the CPU seconds of its processes measured
    here (`_SCHEDULE_PROBE`, `fluid_schedule`), this checkout and ``other`` taking turns: for a loaded machine,
    where the wall time says more about the others' jobs than about the command's schedule."""
    got: dict[str, list[float]] = {"this checkout": [], str(other): []}
    for _ in range(reps):
        for name, tree in (("this checkout", ROOT), (str(other), other)):
            env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
            env.update(PYTHONPATH=str(tree), PYTHONPYCACHEPREFIX=str(PYCACHE))
            out = subprocess.run([sys.executable, "-c", _SCHEDULE_PROBE], cwd=tree, env=env, capture_output=True,
                                 text=True, timeout=600)
            fork: dict[str, float] = {}
            cpu: dict[str, float] = {}
            for line in out.stderr.splitlines():
                kind, pid, sec = (line.split() + ["", "", ""])[:3]
                if kind == "F":
                    fork[pid] = float(sec)
                elif kind == "W":
                    cpu[pid] = max(cpu.get(pid, 0.0), float(sec))
            workers = [(fork[pid], cpu[pid]) for pid in cpu]
            got[name].append(fluid_schedule(max(fork.values()), workers))
            print(f"  {name}: {got[name][-1]:.2f} s on 2 idle cores (parent {max(fork.values()):.2f} s before its last "
                  f"fork; workers " + ", ".join(f"{c:.2f} s from {f:.2f}" for f, c in sorted(workers)) +
                  f"; load {os.getloadavg()[0]:.1f})", flush=True)
    med = {name: statistics.median(v) for name, v in got.items()}
    print(f"  idle 2-core estimate, medians of {reps}: this checkout {med['this checkout']:.2f} s, {other} "
          f"{med[str(other)]:.2f} s, ratio {med['this checkout'] / med[str(other)]:.3f}")


def serial_phase(other: Path, reps: int) -> None:
    """The CPU seconds before the first fork of ``family --json`` (`_SERIAL_PROBE`), here and in ``other`` taking
    turns, ``reps`` times each: their medians and least values."""
    got: dict[str, list[float]] = {"this checkout": [], str(other): []}
    for _ in range(reps):
        for name, tree in (("this checkout", ROOT), (str(other), other)):
            env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
            env.update(PYTHONPATH=str(tree), PYTHONPYCACHEPREFIX=str(PYCACHE))
            out = subprocess.run([sys.executable, "-c", _SERIAL_PROBE], cwd=tree, env=env, capture_output=True, text=True,
                                 timeout=600)
            got[name].append(float(out.stdout.split()[-1]))
    for name, vals in got.items():
        print(f"  CPU before the workers fork, {name}: median {statistics.median(vals):.2f} s, least {min(vals):.2f} s "
              f"({reps} runs; load {os.getloadavg()[0]:.1f})")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=None, help="workers of the parallel run (default: all cores)")
    ap.add_argument("--command", action="store_true", help="also time the command in child processes (cold)")
    ap.add_argument("--against", type=Path, help="another checkout: time the whole command here and there, taking turns")
    ap.add_argument("--reps", type=int, default=3, help="runs of each checkout with --against")
    ap.add_argument("--serial", action="store_true", help="with --against: also the CPU time before the workers fork")
    ap.add_argument("--idle-estimate", action="store_true",
                    help="with --against: also the wall time on 2 idle cores estimated from each process's CPU time")
    args = ap.parse_args(argv)
    if (args.serial or args.idle_estimate) and args.against is None:
        ap.error("--serial, --idle-estimate: compare two checkouts; give --against PATH")
    if args.against is not None:
        if args.serial:
            serial_phase(args.against.resolve(), 2 * args.reps)
        if args.idle_estimate:
            idle_estimate(args.against.resolve(), args.reps)
        print(f"python3 -m verify family --json, {args.reps} runs each, taking turns; load average {os.getloadavg()[0]:.1f}")
        if not against(args.against.resolve(), args.reps, args.workers):
            raise SystemExit(1)
        return
    n = default_workers() if args.workers is None else args.workers
    print(f"family table, {len(ROWS)} rows at 10 queries; {os.cpu_count()} cores, {n} workers; "
          f"load average {os.getloadavg()[0]:.1f} at the start")
    _, wall, _ = timed(lambda: family_table(max_queries=1, workers=1))
    print(f"  warm-up (every row at 1 query, one worker): {wall:.1f} s wall")
    serial, w1, c1 = timed(lambda: family_table(workers=1))
    par, wn, cn = timed(lambda: family_table(workers=n))
    same = [_fields(a) for a in serial] == [_fields(b) for b in par]
    longest = max(par, key=lambda r: r.result.seconds)
    print(f"  1 worker:   {w1:6.2f} s wall  {c1:6.2f} s CPU")
    print(f"  {n} workers: {wn:6.2f} s wall  {cn:6.2f} s CPU (workers included)   "
          f"{'met' if wn <= TARGET_WALL else 'MISSED'} (target <= {TARGET_WALL:g} s wall)")
    print(f"  ratio 1 worker / {n} workers (wall): {w1 / wn:.2f}x")
    print(f"  longest row on {n} workers: {longest.name} c={'∞' if longest.cutoff is None else longest.cutoff} "
          f"{longest.result.seconds:.2f} s (its own wall time in its worker)")
    print(f"  rows identical (every field but the seconds): {'yes' if same else 'NO'}")
    # the tasks as TableRun hands them out (rows with one integrand together, `verify.family.table.bundles`)
    order = hand_out_order([RowTask(name, cutoff) for name, cutoff in ROWS])
    tasks_s = [sum(serial[i].result.seconds for i, _ in task) for task in order]
    print(f"  the 1-worker rows' own seconds ({sum(tasks_s):.2f} s in all) handed out as {len(order)} tasks, longest "
          f"first, to {n} idle workers: {makespan(tasks_s, n):.2f} s wall (longest task {max(tasks_s):.2f} s)")
    if args.command:
        cw1, cc1 = command(1)
        cwn, ccn = command(n)
        print(f"  command, 1 worker:   {cw1:6.2f} s wall  {cc1:6.2f} s CPU (cold: imports, certificate)")
        print(f"  command, {n} workers: {cwn:6.2f} s wall  {ccn:6.2f} s CPU   ratio {cw1 / cwn:.2f}x")
    print(f"load average {os.getloadavg()[0]:.1f} at the end")
    if not same:
        raise SystemExit(1)


if __name__ == "__main__":
    main()
