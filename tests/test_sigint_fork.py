"""Ctrl-C while a pool forks its workers is delivered, not lost (`verify.parallel.sigint_deferred`).

``os.fork`` runs the interpreter's at-fork callbacks; a KeyboardInterrupt raised inside one is printed
as "Exception ignored" and dropped.  A CI run once sent the Ctrl-C process test's SIGINT at exactly that
moment.  Here an at-fork callback raises SIGINT itself, so the moment is hit every time: each pool the
package forks must end in KeyboardInterrupt (exit 130 below) with nothing "ignored" on stderr.

Each script runs in a process forked from this one (tests/forked_cli.py: Python's Ctrl-C handler, real stderr, the
interpreter's exit; the imports inherited): the signal is raised inside the process, so no fresh interpreter is needed.
"""

from __future__ import annotations

import importlib
import signal
import textwrap
from pathlib import Path

import pytest
from forked_cli import run_forked

from verify.parallel import sigint_deferred

ROOT = Path(__file__).resolve().parents[1]

_PRELUDE = textwrap.dedent("""
    import os, signal, sys
    armed = [True]
    def before():
        if armed[0]:
            armed[0] = False
            signal.raise_signal(signal.SIGINT)
            total = 0
            for i in range(10000):  # evaluation-loop checks inside the callback: the handler runs here
                total += i
    os.register_at_fork(before=before)
    try:
""")
_EPILOGUE = textwrap.dedent("""
    except KeyboardInterrupt:
        sys.exit(130)
    sys.exit(0)
""")

POOLS = {
    "executor_for": """
        from verify.parallel import executor_for, ordered_results
        with executor_for(workers=2) as (ex, _):
            list(ordered_results(abs, [-1, -2], ex))
    """,
    "family table": """
        from verify.family.table import TableRun
        with TableRun(rows=[("lyu-1", 1), ("lyu-3", 1)], max_queries=1, workers=2) as run:  # two tasks: a pool of 2
            list(run)
    """,
    "claims": """
        from proofs.parallel import ClaimRows
        rows = ClaimRows(2)
    """,
}


#: The modules each script's pool comes from, imported here first: the forked child inherits them.
POOL_MODULES = {"executor_for": "verify.parallel", "family table": "verify.family.table", "claims": "proofs.parallel"}


def _script(body: str) -> str:
    return _PRELUDE + textwrap.indent(textwrap.dedent(body).strip(), "    ") + "\n" + _EPILOGUE


@pytest.mark.parametrize("pool", sorted(POOLS))
def test_ctrl_c_during_the_fork_is_delivered_not_ignored(pool):
    # the child gets Python's Ctrl-C handler (run_forked): a parent that ignores SIGINT (a shell's background job, as
    # some CI runners start the suite) would hand SIG_IGN down, the raised signal would vanish, and exit 0
    importlib.import_module(POOL_MODULES[pool])
    script = _script(POOLS[pool])
    p = run_forked(lambda: exec(script, {"__name__": "__main__"}), cwd=ROOT, timeout=120)
    assert "Exception ignored" not in p.stderr, p.stderr
    assert p.returncode == 130, (p.returncode, p.stderr)


@pytest.fixture
def ctrl_c_handled():
    """Python's own Ctrl-C handler for the test: a suite started where SIGINT is ignored (a shell's background
    job) would otherwise test the deferral against SIG_IGN."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


def test_deferred_sigint_is_raised_on_leaving_the_block(ctrl_c_handled):
    reached_end_of_block = False
    with pytest.raises(KeyboardInterrupt):
        with sigint_deferred():
            signal.raise_signal(signal.SIGINT)
            sum(range(1000))  # evaluation-loop checks: without the deferral KeyboardInterrupt comes here
            reached_end_of_block = True
    assert reached_end_of_block
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_no_sigint_no_interrupt(ctrl_c_handled):
    with sigint_deferred():
        pass
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
