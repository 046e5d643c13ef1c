"""The peers' suites as one table (verify.peers, `svt-verify family --suite peers`).

The commands run through `verify.cli.main.main` in this process (exit status, stdout and stderr as a process
would give them; an unexpected exception fails the test); tests/test_cli_process.py checks the real process."""

from __future__ import annotations

import contextlib
import io
import json
import shlex
import subprocess
from fractions import Fraction

import pytest

from verify.cli.main import main
from verify.peers.programs import CHECKDP, PROGRAMS
from verify.peers.suite import command, judge, run_suite

#: CheckDP's examples/ at commit 01e31ae that are SVT or Report Noisy Max (the folder also holds
#: partialsum, badpartialsum, smartsum, badsmartsum and PSI validators).
CHECKDP_SVT_RNM = {"adaptivesparsevector.c", "badadaptivesparsevector.c", "badgapsparsevector.c", "badnoisymax.c",
                   "badsparsevector1.c", "badsparsevector2.c", "badsparsevector3.c", "gapsparsevector.c", "noisymax.c",
                   "numsparsevector.c", "sparsevector.c", "svt_decreasing.c", "svt_increasing.c"}


def test_all_thirteen_checkdp_programs_are_listed_and_modelled():
    assert {p.program for p in CHECKDP} == CHECKDP_SVT_RNM
    assert all(p.job is not None and p.checkdp in ("proved", "counterexample") for p in CHECKDP)


def test_every_program_has_a_model_or_a_stated_reason():
    for p in PROGRAMS:
        assert (p.job is None) == bool(p.reason), p.program
        assert p.source


def _cli(*argv: str) -> subprocess.CompletedProcess:
    """``svt-verify ARGV`` in this process (module docstring): its exit status, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return subprocess.CompletedProcess(list(argv), code, out.getvalue(), err.getvalue())


def _cli_verdict(cmd: str) -> str:
    argv = shlex.split(cmd)
    assert argv[0] == "svt-verify"
    out = _cli(*argv[1:], "--json")
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)["verdict"]


# the adaptive program's row (about 1.2 s of CPU) is marked slow: the quick subset
# runs the tests of 0.2 s of CPU or less (docs/DEVNOTES.md)
@pytest.mark.parametrize("program", ["badsparsevector1.c", "badgapsparsevector.c",
                                     pytest.param("badadaptivesparsevector.c", marks=pytest.mark.slow)])
def test_a_rows_verdict_is_its_printed_commands_verdict(program):
    """The row's judgement and the `worst-case` command it prints (run as a user would) agree."""
    job = next(p.job for p in CHECKDP if p.program == program)
    assert judge(job).verdict == _cli_verdict(command(job))


def test_suite_refuses_a_configuration_flag():
    out = _cli("family", "--suite", "peers", "--epsilon", "1")
    assert out.returncode == 2 and "peer's own configuration" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.slow
def test_the_whole_table():
    """Every row judged; CheckDP's verdicts agree with ours; no published lower bound exceeds our proven bound."""
    rows = list(run_suite(workers=2))
    assert len(rows) == len(PROGRAMS)
    agree = {"proved": "private", "counterexample": "not_private"}
    for r in rows:
        p, j = r.program, r.judgement
        if p.job is None:
            assert j is None and p.reason
            continue
        assert j.verdict in ("private", "not_private", "undecided", "error"), p.program
        if p.checkdp:
            assert j.verdict == agree[p.checkdp], p.program
        bound = j.bound.split(" ")[0]
        if bound not in ("none", "–"):
            assert all(x.value <= Fraction(bound) for x in p.published), p.program


def test_suite_refuses_a_progress_bar_it_would_not_show():
    out = _cli("family", "--suite", "peers", "--progress", "always")
    assert out.returncode == 2 and "no progress bar" in out.stderr
