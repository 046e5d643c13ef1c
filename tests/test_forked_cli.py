"""The forked runner (tests/forked_cli.py) ends as an interpreter would: the tests that use it instead of a real
``python -m verify`` process must fail where the real process would have failed.

Each case is a small program run by `run_forked`; a few are compared with the same program in a real
``python -c`` process (exit status, stdout and the end of stderr).
"""

from __future__ import annotations

import atexit
import os
import signal
import subprocess
import sys
import threading
import time
import warnings

import pytest
from forked_cli import CLOSED, DEVNULL, FRESH_ADDRESS_SPACE, address_space_limit, run_cli, run_forked


def _raise(exc: BaseException):
    def go():
        raise exc

    return go


@pytest.mark.parametrize("result, status", [(0, 0), (None, 0), (3, 3), (130, 130), (-1, 255), (300, 44), (True, 1)])
def test_the_value_returned_is_the_exit_status(result, status):
    r = run_forked(lambda: result)
    assert (r.returncode, r.stdout, r.stderr) == (status, "", "")


@pytest.mark.parametrize("code, status, err", [(None, 0, ""), (2, 2, ""), ("one line", 1, "one line\n"), ([1], 1, "[1]\n")])
def test_system_exit_as_the_interpreter_handles_it(code, status, err):
    r = run_forked(_raise(SystemExit(code)))
    assert (r.returncode, r.stderr) == (status, err)


def test_an_uncaught_exception_prints_its_traceback_and_exits_1():
    r = run_forked(_raise(ValueError("broken on purpose")))
    assert r.returncode == 1
    assert r.stderr.startswith("Traceback (most recent call last):\n") and r.stderr.endswith("ValueError: broken on purpose\n")


def test_an_uncaught_keyboard_interrupt_is_death_by_sigint():
    r = run_forked(_raise(KeyboardInterrupt()))
    assert r.returncode == -signal.SIGINT and r.stderr.endswith("KeyboardInterrupt\n")


def test_output_on_the_descriptors_is_captured_in_order():
    """print (flushed at exit), raw writes to fds 1 and 2, and a child process writing to them: all captured."""
    def program():
        print("printed")
        sys.stdout.flush()
        os.write(1, b"raw fd 1\n")
        os.write(2, b"raw fd 2\n")
        subprocess.run(["sh", "-c", "echo from a child; echo child stderr >&2"], check=True)
        print("buffered at exit", end="")
        return 0

    r = run_forked(program)
    assert r.returncode == 0
    assert r.stdout == "printed\nraw fd 1\nfrom a child\nbuffered at exit"
    assert r.stderr == "raw fd 2\nchild stderr\n"


def test_bytes_output_and_input():
    r = run_forked(lambda: sys.stdout.write(sys.stdin.read().upper()) and 0, input=b"abc\r\n", text=False)
    assert (r.returncode, r.stdout) == (0, b"ABC\r\n")


def test_cwd_and_env_are_the_childs_only(tmp_path):
    r = run_forked(lambda: print(os.getcwd(), os.environ.get("FORKED_CLI_PROBE")), cwd=tmp_path,
                   env={**os.environ, "FORKED_CLI_PROBE": "set"})
    assert r.stdout == f"{tmp_path} set\n"
    assert "FORKED_CLI_PROBE" not in os.environ and os.getcwd() != str(tmp_path)


def test_a_closed_stdout_is_none_as_at_start_up():
    r = run_forked(lambda: sys.stderr.write(f"{sys.stdout!r}\n") and 0, stdout=CLOSED)
    assert (r.returncode, r.stdout, r.stderr) == (0, None, "None\n")


def test_a_failed_flush_at_exit_is_status_120():
    """As CPython's finalization: the buffered output cannot be written, "Exception ignored" on stderr, 120."""
    if not os.path.exists("/dev/full"):
        pytest.skip("no /dev/full")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    with open("/dev/full", "w") as full:
        r = run_forked(lambda: print("lost"), stdout=full, env=env)
    assert r.returncode == 120
    assert r.stderr.startswith("Exception ignored in: <_io.TextIOWrapper name='<stdout>'") and "[Errno 28]" in r.stderr


def test_the_test_process_state_stays_out_of_the_child():
    """pytest's warnings record, its atexit handlers and its Ctrl-C handler are the test process's, not the child's:
    the child prints a warning on stderr, runs only its own atexit handlers, and joins its non-daemon threads."""
    seen = []
    atexit.register(seen.append, "parent's handler")
    try:
        def program():
            assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
            warnings.warn("shown", UserWarning, stacklevel=1)
            atexit.register(print, "child's handler")
            threading.Thread(target=lambda: (time.sleep(0.2), print("thread joined"))).start()
            return 0

        with warnings.catch_warnings(record=True) as record:
            r = run_forked(program, stdout=subprocess.PIPE)
    finally:
        atexit.unregister(seen.append)
    assert r.returncode == 0, r.stderr
    assert "UserWarning: shown" in r.stderr and record == []
    assert r.stdout == "thread joined\nchild's handler\n"


def test_a_timeout_kills_the_child_and_its_workers(tmp_path):
    marker = tmp_path / "grandchild"

    def program():
        subprocess.Popen(["sh", "-c", f"sleep 30; touch {marker}"])
        time.sleep(60)

    t0 = time.monotonic()
    with pytest.raises(subprocess.TimeoutExpired):
        run_forked(program, timeout=1)
    assert time.monotonic() - t0 < 20
    time.sleep(0.2)
    out = subprocess.run(["pgrep", "-f", f"touch {marker}"], capture_output=True, text=True)
    assert out.stdout == "", out.stdout  # the grandchild went with the group


@pytest.mark.parametrize("program", ["import sys; sys.stdout.write('é')", "import sys; sys.exit([1])",
                                     "import warnings; warnings.warn('w')", "raise KeyboardInterrupt"])
def test_the_same_ending_as_a_real_process(program):
    """Exit status, stdout and the last line of stderr of a real ``python -c`` and of the forked runner, with an ASCII
    output encoding (PYTHONIOENCODING: the interpreter's stream set-up is reproduced)."""
    env = {**os.environ, "PYTHONIOENCODING": "ascii"}
    real = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, env=env, timeout=60)
    forked = run_forked(lambda: exec(program, {"__name__": "__main__"}), env=env)
    assert (forked.returncode, forked.stdout, forked.stderr.splitlines()[-1:]) == \
           (real.returncode, real.stdout, real.stderr.splitlines()[-1:])


def test_run_cli_is_the_console_script():
    """``svt-verify ARGV``: a result on stdout (0), a one-line refusal (2), stdout to /dev/null."""
    r = run_cli(["prob", "--queries", "0", "--output", "1"])
    assert r.returncode == 0 and "Pr = 0.5" in r.stdout and r.stderr == ""
    r = run_cli(["prob", "--queries", "0", "--output", "x"])
    assert r.returncode == 2 and r.stdout == "" and r.stderr.count("\n") == 1 and "--output" in r.stderr
    assert run_cli(["--version"], stdout=DEVNULL).returncode == 0


def test_an_address_space_limit_counts_from_the_childs_own_size():
    """`address_space_limit(total)`: room for ``total - FRESH_ADDRESS_SPACE`` more bytes, whatever this process holds;
    an allocation past it is a MemoryError (1 GiB past: refused before any page is touched)."""
    total = 2**30 + FRESH_ADDRESS_SPACE  # room: 1 GiB
    r = run_forked(lambda: len(bytearray(2 * 2**30)), prepare=address_space_limit(total))
    assert r.returncode == 1 and r.stderr.endswith("MemoryError\n"), r.stderr[-500:]
    r = run_forked(lambda: len(bytearray(2**26)) * 0, prepare=address_space_limit(total))
    assert r.returncode == 0, r.stderr[-500:]


def test_an_executors_pending_work_is_finished_at_exit_as_by_the_interpreter():
    """CPython's exit waits for the work queued on a thread pool left open (``threading._shutdown``)."""
    def program():
        from concurrent.futures import ThreadPoolExecutor

        ThreadPoolExecutor(1).submit(lambda: (time.sleep(0.3), print("queued work done")))
        return 0

    assert run_forked(program).stdout == "queued work done\n"
