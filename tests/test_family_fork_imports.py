"""What the `family` command imports before it forks its workers: only what every worker shares.

The parent's imports before the fork are serial wall time (the two workers wait for them), so the heavy libraries
that only some rows need are imported in the worker that runs such a row: scipy.special (the discrete rows' and the
Gaussian row's float64 sums), sympy (Mechanism Two's certified bound); and scipy.optimize (the refinement's
Nelder-Mead) in a worker that refines.  numba is the control: `TableRun` loads the compiled evaluator before the
fork on purpose (every continuous row uses it), so the probe does see an import made before the fork.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: Runs the command; at its first fork writes (as one stderr line) the watched modules imported by then.
_PROBE = """
import json, os, sys
WATCHED = ("scipy.optimize", "scipy.special", "sympy", "numba")
seen = []
def before():
    if not seen:
        seen.append(sorted(m for m in WATCHED if m in sys.modules))
        sys.stderr.write("FORK " + json.dumps(seen[0]) + "\\n")
os.register_at_fork(before=before)
from verify.cli.main import main
code = main(sys.argv[1:])
sys.stderr.write("CODE " + str(code) + "\\n")
"""


@pytest.mark.slow
def test_the_parent_imports_neither_scipy_special_nor_scipy_optimize_nor_sympy_before_the_fork():
    """The whole table (discrete rows included, whose sizes the parent checks up front) at one query, on 2 workers."""
    r = subprocess.run([sys.executable, "-c", _PROBE, "family", "--json", "--max-queries", "1", "--workers", "2"], cwd=ROOT,
                       capture_output=True, text=True, timeout=600)
    lines = r.stderr.splitlines()
    assert "CODE 0" in lines, r.stderr[-2000:]
    forks = [json.loads(line[5:]) for line in lines if line.startswith("FORK ")]
    assert forks == [["numba"]], forks
    assert len(json.loads(r.stdout)["discrete_rows"]) == 5
