"""Start-up time: a command imports only what it uses.

Every ``svt-verify`` command is a fresh process, and a user waits for its imports each time: sympy costs
about 0.5 s of CPU, scipy.special 0.4 s, scipy.optimize 0.8 s, numba 0.5 s, where ``python -m verify prob``
itself takes about 0.5 s.  Each case below runs one command line in a fresh interpreter (the only way to see
what a process imports) through `verify.cli.main.main`, the function ``python -m verify`` runs, and checks
which of those libraries (and which command modules) are in ``sys.modules`` when it ends.  The symbolic
path is the control: it must import sympy, so the probe does see an import when there is one.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: The libraries watched: each costs 0.2-0.8 s of CPU to import (python -X importtime; docs/benchmarks.md).
HEAVY = ("sympy", "scipy", "numba", "flint", "numpy", "mpmath")

#: Runs one command line, then prints (as the last line of stderr) its exit code, the watched libraries
#: and the command modules that were imported.
_PROBE = f"""
import json, sys
from verify.cli.main import main
code = main(sys.argv[1:])
heavy = sorted(m for m in {HEAVY!r} if m in sys.modules)
commands = sorted(m for m in sys.modules if m.startswith(("verify.cli.", "proofs.")))
sys.stderr.write(json.dumps({{"code": code, "heavy": heavy, "commands": commands}}) + "\\n")
"""


def imports_of(*argv: str) -> dict:
    """{"code": exit code, "heavy": the watched libraries imported, "commands": command modules imported}."""
    r = subprocess.run([sys.executable, "-c", _PROBE, *argv], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr[-2000:]
    return json.loads(r.stderr.strip().splitlines()[-1])


@pytest.mark.slow
@pytest.mark.parametrize("argv", [
    ["prob", "--queries", "0,1/2", "--output", "2"],
    ["prob", "--queries", "0,1/2", "--output", "2", "--method", "fast"],
    ["prob", "--variant", "dlap-seed-m1", "--queries", "0,1", "--outcomes", "BA"],
    ["ratio", "--queries", "0,1/2", "--neighbour-queries", "1,1/2", "--json"],
    ["delta", "--variant", "lyu-1", "--epsilon-prime", "1", "--queries", "0,1", "--neighbour-queries", "1,0"],
], ids=["prob-mpmath", "prob-fast", "prob-discrete", "ratio", "delta"])
def test_the_mpmath_and_float64_paths_import_neither_sympy_nor_scipy(argv):
    got = imports_of(*argv)
    assert got["code"] == 0
    assert {"numpy", "mpmath"} <= set(got["heavy"])  # the probe sees what the command does load
    assert not {"sympy", "scipy", "numba"} & set(got["heavy"]), got["heavy"]


@pytest.mark.slow
def test_the_symbolic_path_imports_sympy():
    """The control: the probe reports an import that happens."""
    got = imports_of("prob", "--queries", "0", "--output", "1", "--method", "symbolic")
    assert got["code"] == 0 and "sympy" in got["heavy"]


@pytest.mark.slow
def test_a_command_imports_its_own_module_and_no_other_command():
    got = imports_of("ratio", "--help")
    assert got["code"] == 0
    assert "verify.cli.ratio" in got["commands"]
    others = {"verify.cli.prob", "verify.cli.audit", "verify.cli.family", "verify.cli.worst_case", "verify.cli.sweep",
              "verify.cli.certify", "verify.cli.delta", "proofs.cli", "proofs.report"}
    assert not others & set(got["commands"]), got["commands"]
    assert not {"sympy", "scipy", "numba"} & set(got["heavy"]), got["heavy"]


def test_version_loads_no_command_and_no_library():
    got = imports_of("--version")
    assert got["code"] == 0
    # (verify.cli.unraisable: the hook that delivers an ignored Ctrl-C again, installed before anything else)
    assert got["heavy"] == [] and got["commands"] == ["verify.cli.flags", "verify.cli.main", "verify.cli.unraisable"], got
