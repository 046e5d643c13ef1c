"""What the `family` command has imported at each fork of its workers: only what the workers forked then share.

The parent's work before a fork is serial wall time for the workers forked then, so each library is imported where
it is shared, and no earlier:

* the discrete rows' worker is forked first, before the compiled evaluator is loaded (it never evaluates with it):
  none of numba, scipy.optimize, scipy.special, sympy; it imports scipy.special itself (its float64 sums), while the
  parent loads numba;
* the continuous rows' workers are forked after the load: numba (every continuous row evaluates with it) and
  scipy.optimize (every continuous row refines with its Nelder-Mead; scipy.special comes with it), imported once in
  the parent instead of once per worker; not sympy (Mechanism Two's certified bound: one row, one worker).

No fork happens while the parent runs another thread (the thread that collects the discrete worker's rows starts
after the last fork).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
WATCHED = ["numba", "scipy.optimize", "scipy.special", "sympy"]

#: Runs the command; at each fork writes (as one stderr line each) the watched modules imported by then and the
#: number of threads (a fork copies only the thread that forks: a lock another thread holds stays held in the child).
_PROBE = """
import json, os, sys, threading
def before():
    sys.stderr.write("FORK " + json.dumps(sorted(m for m in WATCHED if m in sys.modules)) + "\\n")
    sys.stderr.write("THREADS " + str(threading.active_count()) + "\\n")
os.register_at_fork(before=before)
from verify.cli.main import main
code = main(sys.argv[1:])
sys.stderr.write("CODE " + str(code) + "\\n")
""".replace("WATCHED", repr(WATCHED))


def _forks(*args: str) -> tuple[list[list[str]], dict]:
    r = subprocess.run([sys.executable, "-c", _PROBE, "family", "--json", "--max-queries", "1", *args], cwd=ROOT,
                       capture_output=True, text=True, timeout=600)
    lines = r.stderr.splitlines()
    assert "CODE 0" in lines, r.stderr[-2000:]
    threads = [line for line in lines if line.startswith("THREADS ")]
    assert threads and set(threads) == {"THREADS 1"}, threads  # no fork while another thread runs
    return [json.loads(line[5:]) for line in lines if line.startswith("FORK ")], json.loads(r.stdout)


@pytest.mark.slow
def test_the_discrete_rows_worker_forks_before_numba_and_the_others_after_numba_and_scipy_optimize():
    """The whole table (discrete rows included, whose sizes the parent checks up front) at one query, on 2 workers
    (and one for the discrete rows): 1 fork with nothing watched, then 2 with numba and scipy.optimize."""
    forks, out = _forks("--workers", "2")
    assert forks == [[]] + [["numba", "scipy.optimize", "scipy.special"]] * 2, forks
    assert len(out["discrete_rows"]) == 5


@pytest.mark.slow
def test_without_discrete_rows_the_workers_fork_once_after_the_load():
    forks, out = _forks("--workers", "2", "--no-discrete")
    assert forks == [["numba", "scipy.optimize", "scipy.special"]] * 2, forks
    assert "discrete_rows" not in out
