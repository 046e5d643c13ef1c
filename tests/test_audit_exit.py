"""``svt-verify audit`` as a CI job sees it: exit codes, one-line failures, isolation, Ctrl-C (issues 30, 32).

Every case with an implementation that can misbehave runs the command as a process with a timeout: exit status,
stdout and stderr are process matters.  `cli` forks this test process (tests/forked_cli.py: real descriptors
1 and 2, the interpreter's exit, its imports and compiled kernels inherited instead of paid for again: about
3 s of CPU per case); a real ``python -m verify`` process (`cli_process`) stays where the process boundary is the
subject: Ctrl-C delivered from outside, the current folder importable (``-m`` puts it on ``sys.path``), the
modules an audit imports at start-up.  The limits refused up front, before any implementation runs, and the
spec's parameters (parsing and calling, not the process) go through `verify.cli.main.main` in this process
(`cli_here`: the same exit status, stdout and stderr; an unexpected exception fails the test; a spec's
implementation still runs in the audit's own children).  The hostile implementations are written to
``tmp_path`` and named by file path or, from that folder as the current directory, by module name (the current
folder is importable).
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from forked_cli import run_cli, warm_up

from verify.audit.sandbox import MEMORY_BUDGET
from verify.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
#: A correct lyu-1 (c = 2) and the claim's flags, shared by the cases below.
CORRECT = """
def lyu1(queries, rng):
    t_hat, letters, ups = rng.laplace(0.0, 2.0), "", 0
    for q in queries:
        if q + rng.laplace(0.0, 8.0) >= t_hat:
            letters += "A"
            ups += 1
            if ups == 2:
                break
        else:
            letters += "B"
    return letters
"""
CLAIM = ["--variant", "lyu-1", "--cutoff", "2"]
QUICK = ["--samples", "200", "--random-pairs", "0", "--no-worst-pair"]


def cli(*argv: str, cwd: Path = ROOT, timeout: float = 120) -> subprocess.CompletedProcess:
    """``svt-verify audit ARGV`` in a fork of this process (module docstring)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return run_cli(["audit", *argv], cwd=cwd, env=env, timeout=timeout)


def cli_process(*argv: str, cwd: Path = ROOT, timeout: float = 120) -> subprocess.CompletedProcess:
    """``python -m verify audit ARGV`` as a real process (module docstring)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "verify", "audit", *argv], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=timeout)


def cli_here(*argv: str) -> subprocess.CompletedProcess:
    """``svt-verify audit ARGV`` in this process (module docstring): its exit status, stdout and stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(["audit", *argv])
    return subprocess.CompletedProcess(["audit", *argv], code, out.getvalue(), err.getvalue())


@pytest.fixture(scope="module", autouse=True)
def _warm():
    """One audit in this process first: the forked children inherit its imports and compiled kernels (3 s of CPU
    each otherwise)."""
    warm_up(["audit", "--implementation", "verify.audit.examples:lyu1", *CLAIM, *QUICK, "--workers", "1"])


def module(tmp_path: Path, body: str, name: str = "impl") -> Path:
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(CORRECT) + textwrap.dedent(body))
    return path


def one_line_failure(res: subprocess.CompletedProcess, *words: str) -> None:
    assert res.returncode == 2, (res.returncode, res.stdout[-500:], res.stderr[-2000:])
    assert "Traceback" not in res.stderr and res.stdout == "", res.stderr
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    for w in words:
        assert w in lines[0], lines[0]


@pytest.mark.parametrize("body,fn,words", [
    ("def f(queries, rng):\n    raise ValueError('bad query')\n", "f", ["ValueError: bad query", "impl.py:", "in f"]),
    ("def f(queries, rng):\n    return {}['missing']\n", "f", ["KeyError", "impl.py:"]),
    ("def f(queries, rng):\n    return f(queries, rng)\n", "f", ["RecursionError", "impl.py:"]),
    ("def f(queries):\n    return 'A'\n", "f", ["TypeError", "impl(queries, rng)"]),
    ("class F:\n    def __call__(self, queries, rng):\n        return 'A'\n", "F", ["is a class"]),
    ("raise RuntimeError('broken at import')\ndef f(queries, rng):\n    return 'A'\n", "f", ["RuntimeError: broken at import", "importing"]),
    ("def f(queries, rng)\n    return 'A'\n", "f", ["SyntaxError"]),
    ("def f(queries, rng):\n    return 42\n", "f", ["returned '42'"]),
])
def test_a_failing_implementation_is_one_line_exit_2(tmp_path, body, fn, words):
    path = module(tmp_path, body)
    res = cli("--implementation", f"{path}:{fn}", *CLAIM, *QUICK, "--workers", "1")
    one_line_failure(res, *words)


@pytest.mark.parametrize("body,workers,words", [
    ("import sys\ndef f(queries, rng):\n    sys.exit(0)\n", "1", ["sys.exit(0)"]),
    ("import sys\nsys.exit(0)\ndef f(queries, rng):\n    return 'A'\n", "1", ["sys.exit(0)", "importing"]),
    ("import os\ndef f(queries, rng):\n    os._exit(0)\n", "1", ["exit status 0"]),
    ("import os\ndef f(queries, rng):\n    os._exit(0)\n", "2", ["exit status 0"]),
])
def test_an_implementation_that_exits_is_not_a_pass(tmp_path, body, workers, words):
    path = module(tmp_path, body)
    res = cli("--implementation", f"{path}:f", *CLAIM, *QUICK, "--workers", workers)
    one_line_failure(res, *words)


def test_the_current_folder_is_importable_and_a_module_exiting_at_import_is_refused(tmp_path, monkeypatch):
    # a module named from the current folder that exits at import: the import runs in the audit's own child, so
    # in this process, with the folder on sys.path as ``-m`` puts it there (the boundary is not the subject here)
    module(tmp_path, "import sys\nprint('side effect')\nsys.exit(0)\n", name="exits_at_import")
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    res = cli_here("--implementation", "exits_at_import:lyu1", *CLAIM, *QUICK, "--workers", "1")
    one_line_failure(res, "sys.exit(0)")
    # a real process: ``python -m verify`` puts the current folder on sys.path, a fork of the test process does not
    module(tmp_path, "", name="fine_here")
    res = cli_process("--implementation", "fine_here:lyu1", *CLAIM, *QUICK, "--workers", "1", cwd=tmp_path)
    assert res.returncode == 0 and "verdict: matches" in res.stdout, res.stderr


def test_unbounded_allocation_is_one_line_not_a_kill(tmp_path):
    # bytes(n) maps n zero bytes without writing them (calloc): the address-space limit stops the hoard as it stops
    # memory written to, without 2 GB of page faults.  The count left in a file after each step shows that the
    # child's limit stopped it, not the machine's address space running out (which an untouched hoard without the
    # limit reaches only after terabytes, or the timeout): the limit is the child's size when it set it plus
    # `MEMORY_BUDGET`, and what the child frees after that (seen: 2.15 GB hoarded under an xdist worker) comes on
    # top, so the bound is twice the budget
    count = tmp_path / "allocated"
    path = module(tmp_path, f"def f(queries, rng):\n    hoard = []\n    while True:\n        hoard.append(bytes(50_000_000))\n"
                            f"        open({str(count)!r}, 'w').write(str(len(hoard)))\n")
    res = cli("--implementation", f"{path}:f", *CLAIM, *QUICK, "--workers", "1")
    one_line_failure(res, "MemoryError")
    assert 0 < int(count.read_text()) * 50_000_000 <= 2 * MEMORY_BUDGET


def test_prints_do_not_corrupt_json(tmp_path):
    path = module(tmp_path, "def f(queries, rng):\n    print('debug', queries)\n    return lyu1(queries, rng)\n"
                            "print('hello from import')\n")
    res = cli("--implementation", f"{path}:f", *CLAIM, *QUICK, "--workers", "2", "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)  # the whole of stdout is the audit's JSON
    assert out["verdict"] == "matches"
    assert any("bytes to standard output" in n for n in out["notes"]), out["notes"]


def test_parameters_in_the_spec_are_passed(tmp_path):
    # about parsing the spec and calling with its parameters, not about the process: in this process (the
    # implementation still runs in the audit's own children)
    path = module(tmp_path, "def g(queries, rng, cutoff=1, scale=1.0):\n"
                            "    assert cutoff == 2 and scale == 8.0\n    return lyu1(queries, rng)\n")
    res = cli_here("--implementation", f"{path}:g?cutoff=2&scale=8", *CLAIM, *QUICK, "--workers", "1")
    assert res.returncode == 0 and "verdict: matches" in res.stdout, res.stderr
    res = cli_here("--implementation", f"{path}:g?cutoff=3&scale=8", *CLAIM, *QUICK, "--workers", "1")
    one_line_failure(res, "AssertionError")


@pytest.mark.parametrize("argv,words", [
    (["--target-tv", "1e-4"], ["--target-tv", "100,000,000"]),
    (["--samples", "100", "--target-tv", "0.1"], ["--samples", "--target-tv", "not both"]),
    (["--cutoff", "12"], ["--cutoff", "--queries-per-pair", "12"]),
    (["--cutoff", "1000", "--queries-per-pair", "5"], ["--cutoff"]),
    (["--target-tv", "1e-3"], ["--max-runs", "50,000,000"]),
])
def test_limits_are_refused_up_front_naming_the_flag(argv, words):
    claim = [a for a in CLAIM if a != "2" and a != "--cutoff"] if "--cutoff" in argv else CLAIM
    t0 = time.monotonic()
    res = cli_here("--implementation", "verify.audit.examples:lyu1", *claim, *argv, "--workers", "1")
    assert time.monotonic() - t0 < 60
    one_line_failure(res, *words)
    assert len(res.stderr) < 400  # no 302-digit numbers


def test_exit_codes_of_the_three_verdicts(tmp_path):
    # deviates: 1; matches: 0 (above); undecided: 3, from an implementation that deviates only in its
    # first 800 calls (the generator check's 400, then one pair's two sides, in one child): the first test rejects, the re-run does not
    path = module(tmp_path, "calls = [0]\ndef f(queries, rng):\n    calls[0] += 1\n"
                            "    return 'AA' if calls[0] <= 800 and len(queries) > 1 else lyu1(queries, rng)\n")
    res = cli("--implementation", f"{path}:f", *CLAIM, *QUICK, "--workers", "1")
    assert res.returncode == 3 and "verdict: undecided" in res.stdout, (res.returncode, res.stdout, res.stderr)
    res = cli("--implementation", "verify.audit.examples:lyu1_half_noise", *CLAIM, "--samples", "400", "--random-pairs", "0",
              "--no-worst-pair", "--workers", "1")
    assert res.returncode == 1 and "verdict: deviates" in res.stdout, res.stderr


@pytest.mark.parametrize("workers", ["1", "2"])
def test_ctrl_c_stops_an_implementation_that_never_returns(tmp_path, workers):
    # a real process: SIGINT delivered from outside, as Ctrl-C reaches the command
    flag = tmp_path / "blocked"
    path = module(tmp_path, f"import time\ncalls = [0]\ndef f(queries, rng):\n    calls[0] += 1\n"
                            f"    if calls[0] > 700:\n        open({str(flag)!r}, 'w').close()\n"
                            f"        while True:\n            time.sleep(1)\n    return lyu1(queries, rng)\n")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "verify", "audit", "--implementation", f"{path}:f", *CLAIM, *QUICK,
                             "--workers", workers], cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))  # not SIG_IGN from a background parent
    try:
        deadline = time.monotonic() + 120
        while not flag.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.2)  # start-up, the exact laws, then a child blocks (and says so in the file)
        assert proc.poll() is None and flag.exists(), proc.communicate()
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, (proc.returncode, out, err)
    assert "interrupted: partial result" in out and "Traceback" not in err, (out, err)


def test_an_audits_start_up_leaves_out_the_fit():
    # start-up time of every audit process: the fit only on deviates, Report Noisy Max's audit only for its
    # claims (a fresh interpreter: this process has imported them already)
    code = ("import sys, verify.audit, verify.audit.core; verify.audit.audit; "
            "print([m for m in ('verify.audit.fit', 'verify.audit.selection') if m in sys.modules])")
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=True)
    assert out.stdout.strip() == "[]", out.stdout
