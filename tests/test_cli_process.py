"""The command line as a process, so that it meets real file descriptors and signals: stdout on a full device,
stdout and stderr closed, an ASCII-only encoding, Ctrl-C at several moments, ``--version``.

`run` forks this test process (tests/forked_cli.py: real descriptors 0-2 set as asked, the interpreter's
standard streams for the environment given and its exit; the imports are inherited instead of paid for again).
A real ``python -m verify`` process (`run_process`) stays where the process itself is the subject: the module
entry point, Ctrl-C delivered from outside at any moment (start-up included), a report reaching a pipe while
the process runs, CPython's exit after an interrupted ``exec``.  The Ctrl-C cases are marked slow.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from forked_cli import CLOSED, run_cli, warm_up

ROOT = Path(__file__).resolve().parent.parent
QUICK = ["prob", "--queries", "0", "--output", "1"]
BAD = ["prob", "--queries", "0", "--output", "x"]


@pytest.fixture(scope="module", autouse=True)
def _warm():
    """The commands' first run in this process: the forked children inherit what it loads."""
    for args in (["--help"], QUICK, ["ratio", "--queries", "0", "--neighbour-queries", "1"],
                 ["prob", "--queries=1e17,-1e17", "--output", "1", "--method", "fast"]):
        warm_up(args)


def run(args, *, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=None, timeout=120):
    """``svt-verify ARGS`` in a fork of this process (module docstring); output as bytes."""
    return run_cli(args, cwd=ROOT, stdout=stdout, stderr=stderr, env={**os.environ, **(env or {})}, timeout=timeout,
                   text=False)


def run_process(args, *, timeout=120):
    """``python -m verify ARGS``, a real process (module docstring)."""
    return subprocess.run([sys.executable, "-m", "verify", *args], cwd=ROOT, capture_output=True, timeout=timeout)


def test_version_names_the_distribution():
    """A real process: the ``python -m verify`` entry point itself."""
    r = run_process(["--version"])
    assert r.returncode == 0
    assert r.stdout.decode().startswith("svt-verify ")


def test_help_lists_exit_codes():
    out = run(["--help"]).stdout.decode()
    for code in ("0 ", "2 ", "130", "141"):
        assert code in out


@pytest.mark.parametrize("args", [QUICK, QUICK + ["--json"], ["--help"], ["--version"], ["prob", "--help"],
                                  ["ratio", "--queries", "0", "--neighbour-queries", "1"]])
def test_full_device_is_one_line_and_exit_2(args):
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    with open("/dev/full", "w") as full:
        r = run(args, stdout=full)
    err = r.stderr.decode()
    assert r.returncode == 2, err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1 and "cannot write the output" in err


@pytest.mark.parametrize("args,code", [(QUICK, 0), (BAD, 2)])
def test_closed_stderr_keeps_the_exit_status(args, code):
    r = run(args, stderr=CLOSED)
    assert r.returncode == code


def test_closed_stdout_is_not_a_success():
    r = run(QUICK, stdout=CLOSED)
    assert r.returncode == 2
    assert "Traceback" not in r.stderr.decode()


def test_ascii_encoding_spells_symbols_in_ascii():
    r = run(QUICK, env={"PYTHONIOENCODING": "ascii", "LC_ALL": "C"})
    out = r.stdout.decode("ascii")  # would raise on any non-ASCII byte
    assert r.returncode == 0, r.stderr.decode()
    assert "eps=1" in out and "Pr = 0.5" in out
    bad = run(["prob", "--queries", "0", "--output", "1", "--epsilon", "-1"], env={"PYTHONIOENCODING": "ascii"})
    assert bad.returncode == 2 and len(bad.stderr.decode("ascii").strip().splitlines()) == 1


def test_fast_probability_of_one_at_1e17_prints_one():
    """Printed 1.4999999999999989 before the error estimate counted the rounding of the arguments."""
    r = run(["prob", "--queries=1e17,-1e17", "--output", "1", "--method", "fast"])
    line = [x for x in r.stdout.decode().splitlines() if x.startswith("Pr = ")][0]
    assert float(line.split("=")[1]) == 1.0


#: ``python -m verify`` preceded by a line on stderr once the interpreter has started: a signal during the
#: interpreter's own start-up (its ``site`` import) is "Fatal Python error" whatever the program does, and
#: on a loaded machine start-up alone can take longer than the shortest delay.
STARTED = "[interpreter started]"
#: With a function named in argv[1] ("FILE:FUNCTION" or "FILE:FUNCTION:LOCAL", FILE under verify/), a watcher thread
#: also writes ``[entered ...]`` once that function is on the main thread's stack (with its local variable LOCAL true,
#: if named), looked at every 5 ms, then ends: the child reports when its computation has begun (or has got as far as
#: LOCAL says), and no extra thread is left when the interrupt comes.
_RUN_AFTER_MARKER = f"""
import runpy, sys
work = sys.argv.pop(1)
sys.stderr.write({STARTED!r} + '\\n'); sys.stderr.flush()

def watch(file, function, local=None):
    main = threading.main_thread().ident
    while True:
        frame = sys._current_frames().get(main)
        while frame is not None:
            code = frame.f_code
            if (code.co_name == function and code.co_filename.endswith('/verify/' + file)
                    and (local is None or frame.f_locals.get(local))):
                sys.stderr.write('[entered ' + work + ']\\n'); sys.stderr.flush()
                return
            frame = frame.f_back
        time.sleep(0.005)

if work:
    import threading, time
    threading.Thread(target=watch, args=work.split(':'), daemon=True).start()
runpy.run_module('verify', run_name='__main__', alter_sys=True)
"""


def _sigint_after(args, delay: float, work: str = "") -> subprocess.CompletedProcess:
    """Ctrl-C ``delay`` seconds after the interpreter started running (then the program's imports, its work), or,
    with ``work`` ("FILE:FUNCTION[:LOCAL]"), ``delay`` seconds after the child reported that function on its main
    stack (`_RUN_AFTER_MARKER`)."""
    p = subprocess.Popen([sys.executable, "-c", _RUN_AFTER_MARKER, work, *args], cwd=ROOT, stdout=subprocess.DEVNULL,
                         stderr=subprocess.PIPE, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    assert p.stderr.readline().decode().strip() == STARTED
    if work:
        guard = threading.Timer(120, p.kill)  # a child that never reports its work is killed: its EOF ends the wait
        guard.start()
        seen = []
        while (line := p.stderr.readline().decode()) and line.strip() != f"[entered {work}]":
            seen.append(line)
        guard.cancel()
        assert line, f"the child ended without entering {work}: {''.join(seen)[-500:]}"
    time.sleep(delay)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=120)
    return subprocess.CompletedProcess(args, p.returncode, b"", err)


#: Commands that run well past the last moment: one that finishes first could be killed by SIGINT while the interpreter
#: shuts down, after Python has put back the default handler (silently: a failure of this test on a faster machine).
#: Wall times alone on 2 idle cores, 2026-12-08: sweep 6.6 s, delta 5.4 s, family 4.5 s, prob 7.0 s (at --k 4 and
#: --digits 120, sweep and prob ended in 1.5 s and 3.3 s: prob was interrupted during its shutdown once in CI).
#: Each with the function its computation runs in (`WORK`).
LONG = [["sweep", "--k", "8", "--random", "150"],  # 150 seeded vectors of 8 queries on the process pool
        # the δ search over gaussian-svt pairs of up to 2 queries, the best pair's δ by the exact oracle; the mixed
        # Laplace/Gaussian worst case that was here ends in about 3 s since its 50-digit confirmation uses Gauss-Legendre
        ["delta", "--variant", "gaussian-svt", "--epsilon-prime", "1"],
        # the whole table at 20 queries (8.8 s of CPU, 2026-12-08): at its default 10 it now ends in about 2.5 s of wall
        # on two idle cores (the same imports, forks and workers, at the same moments)
        ["family", "--max-queries", "20"],
        ["prob", "--variant", "gaussian-svt", "--queries", "0,1,2", "--outcomes", "BBA", "--digits", "200"]]
#: Where each command computes, for the moment "work" (a function on the main thread's stack): the sweep's vectors
#: on the process pool, once the parent has folded a first chunk of results (``done``: the partial result then holds
#: some, as at the 3.0 s that was here); the δ search's float64 rows (numpy and the compiled loops: the
#: first weighted sum of panels comes after the search's first rows imported numba and loaded its compiled loops, which
#: happens inside `search_pair`, so that is not the marker); the table's rows on its workers (forked after the compiled
#: evaluator and scipy.optimize were loaded); prob's 200-digit mpmath quadrature.
WORK = {"sweep": "sweep/driver.py:drive:done", "delta": "engine/fast_plan.py:logsumexp_weighted",
        "family": "family/table.py:__iter__", "prob": "engine/quadrature.py:mp_quad"}
#: The interrupt comes this long after the child reported its computation begun: inside it, not at its first line.
INTO_WORK = 0.2


@pytest.mark.slow
@pytest.mark.parametrize("command", LONG)
@pytest.mark.parametrize("moment", [0.15, 1.0, "work"])
def test_ctrl_c_at_any_moment_is_130_without_traceback(command, moment):
    """Ctrl-C at three moments: 0.15 s and 1.0 s after the interpreter started (the imports; the late imports, the
    numba load or the first work, as the machine's speed has it), and `INTO_WORK` s into the command's computation as
    the child reports it (`WORK`; a fixed 3.0 s did that before, at the cost of running the command 3 s on every
    core it uses: the reported moment lands inside the computation on any machine, and exit 0 is refused below)."""
    r = _sigint_after(command, INTO_WORK, WORK[command[0]]) if moment == "work" else _sigint_after(command, moment)
    err = r.stderr.decode()
    assert "Traceback" not in err
    # 130, or death by SIGINT after the one-line message (CPython re-raises SIGINT at exit when a
    # KeyboardInterrupt crossed library code during import; the shell reports both as 130); never 0: the
    # commands run past the last moment (`LONG`), so an exit 0 says a command is too short to test the moment
    assert r.returncode in (130, -signal.SIGINT), (r.returncode, err)
    assert "interrupted" in err


class _Watched:
    """A command as a process whose stdout and stderr are read as they arrive, so that a test can wait for a
    marker (a printed section, a bar's postfix) instead of sleeping a fixed delay."""

    def __init__(self, args):
        self.p = subprocess.Popen([sys.executable, "-m", "verify", *args], cwd=ROOT, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        self.data = {"out": bytearray(), "err": bytearray()}
        self.pumps = [threading.Thread(target=self._pump, args=(name, f), daemon=True)
                      for name, f in (("out", self.p.stdout), ("err", self.p.stderr))]
        for t in self.pumps:
            t.start()

    def _pump(self, name, f):
        while chunk := os.read(f.fileno(), 65536):
            self.data[name] += chunk

    def text(self, name: str) -> str:
        return bytes(self.data[name]).decode(errors="replace")

    def wait_for(self, name: str, marker: str, timeout: float = 400) -> bool:
        """True once ``marker`` has arrived on ``name`` (out/err) while the process still runs."""
        end = time.monotonic() + timeout
        while marker not in self.text(name):
            if self.p.poll() is not None or time.monotonic() > end:
                return False
            time.sleep(0.05)
        return self.p.poll() is None

    def interrupt(self) -> int:
        self.p.send_signal(signal.SIGINT)
        code = self.p.wait(timeout=120)
        for t in self.pumps:
            t.join(timeout=10)
        return code


@pytest.mark.slow
def test_ctrl_c_in_worst_case_prints_the_best_pair_so_far():
    # a search that runs past its first best pair: mixed Laplace/Gaussian noise (first best pair at 1.4 s, end at 3.3 s
    # on the 2-core machine, 2026-12-06; the interrupt follows the line within 0.05 s)
    w = _Watched(["worst-case", "--threshold-noise", "laplace", "--noise", "gaussian", "--max-queries", "2",
                  "--progress", "always"])
    assert w.wait_for("err", "best loss so far"), w.text("err")[-500:]  # the search has a best pair
    assert w.interrupt() == 130
    out, err = w.text("out"), w.text("err")
    assert "partial result (interrupted before the verdict; not a verdict): best pair so far" in out
    assert "q(D) = (" in out and "float64 search estimate" in out and "verdict:" not in out
    assert "Traceback" not in err and "svt-verify: interrupted" in err


@pytest.mark.slow
def test_ctrl_c_in_proofs_keeps_the_claims_checked():
    w = _Watched(["proofs", "--progress", "never"])

    def rows() -> list[str]:  # the claims' rows (not the header nor the partial line)
        return [x for x in w.text("out").splitlines()[1:] if x and not x.startswith(("(", "partial"))]

    end = time.monotonic() + 400
    while len(rows()) < 2 and w.p.poll() is None and time.monotonic() < end:  # two claims checked and printed
        time.sleep(0.05)
    assert len(rows()) >= 2 and w.p.poll() is None, w.text("err")[-500:]
    second = rows()[1].split()[0]
    assert w.interrupt() == 130
    out, err = w.text("out"), w.text("err")
    assert second in out and "partial (interrupted): " in out and " claims checked; summary so far: " in out
    done = int(out.split("partial (interrupted): ")[1].split()[0])
    assert done == len(rows()) >= 2  # every claim counted was printed with its verdict
    assert "Traceback" not in err


@pytest.mark.slow
def test_report_first_section_reaches_a_pipe_before_the_end():
    """``svt-verify report | tee`` shows section 1 while the claims are still being checked; Ctrl-C then keeps it."""
    w = _Watched(["report", "--no-family", "--max-queries", "1", "--workers", "1", "--progress", "always"])
    # the section's last line: the whole section was flushed, and the process has not ended
    assert w.wait_for("out", "Exp(2Δ/ε) both: witness"), (w.text("out"), w.text("err")[-500:])
    assert "2. The seed's claims" not in w.text("out")
    assert w.interrupt() == 130
    out = w.text("out")
    assert out.startswith("svt-verify report: AboveThreshold as stated in the seed")
    # Ctrl-C came during the claims, or between the sections (while the claims' modules load)
    assert ("(partial: report interrupted during stage 'claims'; the sections above are complete" in out
            or "(partial: report interrupted after stage 'mechanisms'; the sections above are complete" in out)
    err = w.text("err")
    assert "report 1/2: mechanisms" in err and "report 2/2: claims" in err  # a named bar per stage
    assert "Traceback" not in err


#: ``python -m probe``: `verify.__main__` run as ``python -m verify`` would run it, with a command that is
#: interrupted inside code built from a string (as dataclasses and sympy build code while modules load).
_PROBE = '''
import runpy, sys
import verify.cli.main as m

def _interrupted_inside_exec(argv=None):
    exec("raise KeyboardInterrupt")

m._main = _interrupted_inside_exec
runpy.run_module("verify", run_name="__main__", alter_sys=True)
'''


def test_ctrl_c_inside_code_built_from_a_string_still_exits_130(tmp_path):
    """CPython kills a ``python -m`` process with SIGINT at exit (status -2) when a KeyboardInterrupt ended an
    ``exec`` of a string, even if the program caught it; the documented status is 130
    (`verify.cli.main.forget_interrupted_exec`). Without that call this test gets -2."""
    (tmp_path / "probe").mkdir()
    (tmp_path / "probe" / "__main__.py").write_text(_PROBE)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]))
    r = subprocess.run([sys.executable, "-m", "probe", "report"], cwd=ROOT, env=env, capture_output=True, timeout=120)
    assert r.returncode == 130, (r.returncode, r.stderr.decode()[-500:])
    assert r.stderr.decode().strip().splitlines()[-1] == "svt-verify: interrupted"
