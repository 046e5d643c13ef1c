"""The command line run as a process forked from this (already warm) test process, not a fresh interpreter.

``python -m verify ARGV`` pays an interpreter start and the imports (scipy, sympy, numba's first use: 1.5-3 s of
CPU) for what is often a fraction of a second of work.  `run_cli` forks this process instead: the child has
every module and compiled kernel the tests have loaded, runs ``svt-verify ARGV`` as the console script does
(``sys.exit(verify.cli.main.main())`` with ``sys.argv = ["svt-verify", *ARGV]``) and leaves with ``os._exit``,
so that none of pytest's state (fixtures, finalizers, atexit handlers, the xdist channel) runs twice.  It
returns a `subprocess.CompletedProcess` as ``subprocess.run`` would.

What the child meets is what a fresh interpreter would give it:

* real file descriptors 0, 1 and 2 (captured output goes to temporary files, so C code, workers and prints
  are captured too), a closed descriptor where asked (`CLOSED`: ``sys.stdout`` is then None, as the
  interpreter sets it), and ``sys.stdin``/``sys.stdout``/``sys.stderr`` built on them as CPython's
  ``create_stdio`` builds them, with the encoding, errors and buffering that a bare interpreter started with
  the same environment reports (`_stdio_config`, one ``python -S`` probe per distinct setting);
* the working directory and environment given; Ctrl-C's default handler (KeyboardInterrupt), SIGPIPE and
  SIGXFSZ ignored, every other signal handler of the test process back to the default, faulthandler off;
* the interpreter's warnings filters and warnings printed on stderr (not pytest's record), the root logger
  without pytest's handlers, the default ``sys.excepthook``/``sys.unraisablehook``;
* the interpreter's exit: ``SystemExit(None)`` is 0, an int is its status, any other value is printed on stderr
  and gives 1; an uncaught exception prints its traceback on stderr and gives 1 (a KeyboardInterrupt: death by
  SIGINT, status -2); then non-daemon threads are joined (``threading._shutdown``), the atexit handlers registered by the command run,
  stdout and stderr are flushed (a failed flush of stdout is "Exception ignored ..." on stderr and status 120).

What it does not reproduce, so that such tests keep a real ``python -m verify`` process: start-up itself (the
entry point, the modules imported at start-up), the current folder on ``sys.path`` (``-m``), signals sent from
outside (the child is in a process group of its own), CPython's exit by SIGINT after an interrupted ``exec``.
An address-space limit counts from the child's own size (`address_space_limit`).

`warm_up` runs a command once in this process first, so that the children inherit its first run's loading.

A timeout kills the child's whole process group (its workers too) and raises `subprocess.TimeoutExpired`;
processes the command left behind are killed when it ends.  The child's CPU time is counted in this process's
children's times (``os.times``) once reaped, as for ``subprocess.run``.
"""

from __future__ import annotations

import atexit
import faulthandler
import functools
import io
import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

PIPE = subprocess.PIPE
DEVNULL = subprocess.DEVNULL
#: A standard descriptor closed when the command starts (``>&-``).
CLOSED = "closed"

#: The environment variables that decide the interpreter's standard streams.
_STDIO_VARIABLES = ("PYTHONIOENCODING", "PYTHONUNBUFFERED", "PYTHONUTF8", "PYTHONCOERCECLOCALE", "LC_ALL", "LC_CTYPE",
                    "LANG")
_PROBE = ("import json, sys; print(json.dumps([[s.encoding, s.errors] for s in (sys.stdin, sys.stdout, sys.stderr)]"
          " + [not isinstance(sys.stdout.buffer, __import__('io').BufferedWriter)]))")


@functools.cache
def _stdio_config(setting: tuple[tuple[str, str], ...]) -> tuple[list[list[str]], bool]:
    """([encoding, errors] of stdin, stdout, stderr; unbuffered) of an interpreter started with ``setting`` (the
    `_STDIO_VARIABLES` set), as it reports them (``python -S``: no site import, about 20 ms)."""
    env = {k: v for k, v in os.environ.items() if k not in _STDIO_VARIABLES} | dict(setting)
    out = subprocess.run([sys.executable, "-S", "-c", _PROBE], env=env, stdin=subprocess.DEVNULL, capture_output=True,
                         text=True, check=True, timeout=60).stdout
    *streams, unbuffered = json.loads(out)
    return streams, bool(unbuffered)


def run_cli(argv: Sequence[str], **options: Any) -> subprocess.CompletedProcess:
    """``svt-verify ARGV`` in a forked child (module docstring); ``options`` as for `run_forked`."""
    from verify.cli.main import main

    def command() -> object:
        sys.argv = ["svt-verify", *argv]
        return main()

    return run_forked(command, args=["svt-verify", *argv], **options)


#: Address space a fresh ``python -m verify`` holds at the end of a quick command (VmSize 0.23 GB, VmPeak 0.30 GB for
#: ``prob --noise discrete-gaussian --queries 0,0 --outcomes BA``, 2026-12-07), rounded up to 0.5 GiB.
FRESH_ADDRESS_SPACE = 2**29


def address_space_limit(total: int) -> Callable[[], None]:
    """A ``prepare`` for `run_forked`: the child may add ``total - FRESH_ADDRESS_SPACE`` bytes of address space to what
    it holds (RLIMIT_AS).  A fresh process limited to ``total`` has at least that much room (it holds less than
    `FRESH_ADDRESS_SPACE` after start-up), so the forked child's limit is never the looser one; the child's own
    address space is this test process's, which can be well above a fresh interpreter's."""
    def limit() -> None:
        import resource  # lazy: only where a test limits memory

        with open("/proc/self/status") as fh:
            held = next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmSize:"))
        cap = held + total - FRESH_ADDRESS_SPACE
        resource.setrlimit(resource.RLIMIT_AS, (cap, cap))

    return limit


_WARMED: set[tuple[str, ...]] = set()


def warm_up(argv: Sequence[str]) -> None:
    """Run ``svt-verify ARGV`` once in this process, its output discarded, so that the children forked later inherit
    what its first run loads (the command's modules, numba's kernels, the exact laws it caches): each child would
    pay it again, and lose it on exit.  Once per ``argv`` and process; its exit status is not looked at (the tests
    check the children's)."""
    key = tuple(argv)
    if key in _WARMED:
        return
    _WARMED.add(key)
    import contextlib  # lazy: only here

    from verify.cli.main import main

    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        main(list(argv))


def run_forked(target: Callable[[], object], *, args: Sequence[str] = ("forked",), cwd: str | os.PathLike | None = None,
               env: Mapping[str, str] | None = None, input: bytes | None = None, stdout: Any = PIPE, stderr: Any = PIPE,
               timeout: float = 120, text: bool = True, prepare: Callable[[], None] | None = None
               ) -> subprocess.CompletedProcess:
    """``raise SystemExit(target())`` in a forked child, as an interpreter running it would end (module docstring).

    ``stdout``/``stderr``: `PIPE` (captured and returned), `DEVNULL`, `CLOSED`, an open file or a descriptor.
    ``input``: bytes on stdin (default /dev/null).  ``text``: decode the captured output as ``subprocess.run(...,
    text=True)`` does (the locale's encoding, universal newlines).  ``prepare``: called in the child first (a
    resource limit, say)."""
    child_env = dict(os.environ if env is None else env)
    streams, unbuffered = _stdio_config(tuple((k, child_env[k]) for k in _STDIO_VARIABLES if k in child_env))
    files = {1: tempfile.TemporaryFile() if stdout == PIPE else None, 2: tempfile.TemporaryFile() if stderr == PIPE else None}
    stdin_file = tempfile.TemporaryFile()
    if input is not None:
        stdin_file.write(input)
        stdin_file.seek(0)
    targets = {0: stdin_file.fileno() if input is not None else DEVNULL, 1: stdout, 2: stderr}
    for fd, f in files.items():
        if f is not None:
            targets[fd] = f.fileno()
    for stream in (sys.stdout, sys.stderr):  # nothing buffered here is written twice
        try:
            stream.flush()
        except (AttributeError, OSError, ValueError):
            pass
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child: never returns
        _child(target, args, cwd, child_env, targets, streams, unbuffered, prepare)
    try:
        os.setpgid(pid, pid)
    except OSError:
        pass  # the child did it first
    try:
        status, timed_out = _wait(pid, timeout)
    finally:
        stdin_file.close()
    out, err = (_read(files[fd], text) for fd in (1, 2))
    if timed_out:
        raise subprocess.TimeoutExpired(list(args), timeout, output=out, stderr=err)
    return subprocess.CompletedProcess(list(args), os.waitstatus_to_exitcode(status), out, err)


def _read(f: Any, text: bool) -> str | bytes | None:
    if f is None:
        return None
    with f:
        f.seek(0)
        data = f.read()
    if not text:
        return data
    import locale  # lazy: only for text output

    return data.decode(locale.getpreferredencoding(False)).replace("\r\n", "\n").replace("\r", "\n")


def _wait(pid: int, timeout: float) -> tuple[int, bool]:
    """The child's wait status and whether it was killed for ``timeout``; its process group is killed once it has
    ended (workers it left behind), before it is reaped (its number cannot be reused meanwhile)."""
    timed_out = False
    try:
        fd = os.pidfd_open(pid)
    except (AttributeError, OSError):
        fd = None
    try:
        end = time.monotonic() + timeout
        while True:
            left = end - time.monotonic()
            if fd is not None:
                if select.select([fd], [], [], max(left, 0))[0]:
                    break
            elif os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None:
                break
            else:
                time.sleep(min(0.01, max(left, 0)))
            if time.monotonic() >= end:
                timed_out = True
                break
    except BaseException:  # Ctrl-C in the test run: the child goes too
        _kill_group(pid)
        os.waitpid(pid, 0)
        raise
    finally:
        if fd is not None:
            os.close(fd)
    _kill_group(pid)
    _, status = os.waitpid(pid, 0)
    return status, timed_out


def _kill_group(pgid: int) -> None:
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _child(target: Callable[[], object], args: Sequence[str], cwd: Any, env: dict[str, str], targets: dict[int, Any],
           streams: list[list[str]], unbuffered: bool, prepare: Callable[[], None] | None) -> None:
    """The forked child: the interpreter's set-up, ``target``, the interpreter's exit; never returns."""
    status, killed_by = 1, 0
    try:
        os.setpgid(0, 0)
        _fresh_signals()
        _descriptors(targets)
        _fresh_streams(streams, unbuffered)
        _fresh_hooks(env)
        if cwd is not None:
            os.chdir(cwd)
        os.environ.clear()
        os.environ.update(env)
        sys.argv = list(args)
        if prepare is not None:
            prepare()
        status, killed_by = _run_as_main(target)
    except BaseException:  # the set-up failed: say so on whatever stderr there is
        try:
            import traceback

            traceback.print_exc()
            sys.stderr.flush()
        except BaseException:
            pass
    finally:
        if killed_by:
            signal.signal(killed_by, signal.SIG_DFL)
            os.kill(os.getpid(), killed_by)
        os._exit(status & 0xFF)


def _fresh_signals() -> None:
    faulthandler.disable()
    for sig in signal.valid_signals():
        try:
            handler = signal.getsignal(sig)
        except (OSError, ValueError):
            continue
        if callable(handler) and sig != signal.SIGINT:
            signal.signal(sig, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for sig in (signal.SIGPIPE, signal.SIGXFSZ):
        signal.signal(sig, signal.SIG_IGN)


def _descriptors(targets: dict[int, Any]) -> None:
    for fd, where in targets.items():
        if where == CLOSED:
            os.close(fd)
            continue
        if where == DEVNULL:
            src = os.open(os.devnull, os.O_RDWR)
        elif isinstance(where, int):
            src = where
        elif where is None:
            continue
        else:
            src = where.fileno()
        if src != fd:
            os.dup2(src, fd)


def _fresh_streams(streams: list[list[str]], unbuffered: bool) -> None:
    """sys.stdin, sys.stdout and sys.stderr as CPython's ``create_stdio`` makes them (None on a closed descriptor)."""
    for fd, name, (encoding, errors) in zip((0, 1, 2), ("stdin", "stdout", "stderr"), streams):
        try:
            os.fstat(fd)
        except OSError:
            stream = None
        else:
            write = fd != 0
            buf = open(fd, "wb" if write else "rb", 0 if unbuffered and write else -1, closefd=False)  # noqa: SIM115
            raw = buf if unbuffered and write else buf.raw
            raw.name = f"<{name}>"
            tty = raw.isatty()
            stream = io.TextIOWrapper(buf, encoding, errors, "\n", not unbuffered and (tty or fd == 2), unbuffered)
            stream.mode = "w" if write else "r"
        setattr(sys, name, stream)
        setattr(sys, f"__{name}__", stream)


#: The filters of an interpreter started without -W or PYTHONWARNINGS (Python docs, "Default Warning Filter").
_DEFAULT_FILTERS = [("default", DeprecationWarning, "__main__"), ("ignore", DeprecationWarning, ""),
                    ("ignore", PendingDeprecationWarning, ""), ("ignore", ImportWarning, ""),
                    ("ignore", ResourceWarning, "")]


def _show_warning(message, category, filename, lineno, file=None, line=None) -> None:
    """`warnings.showwarning` as the interpreter has it: the formatted warning on stderr (pytest records them)."""
    file = sys.stderr if file is None else file
    if file is None:
        return
    try:
        file.write(warnings.formatwarning(message, category, filename, lineno, line))
    except OSError:
        pass


def _fresh_hooks(env: Mapping[str, str]) -> None:
    warnings.resetwarnings()
    for action, category, module in _DEFAULT_FILTERS:
        warnings.filterwarnings(action, category=category, module=module, append=True)
    if env.get("PYTHONWARNINGS"):  # as the interpreter reads it (the test process's own -W options are not passed)
        warnings._processoptions(env["PYTHONWARNINGS"].split(","))
    warnings.showwarning = _show_warning
    if "logging" in sys.modules:
        import logging  # lazy: only if the test process uses it

        root = logging.getLogger()
        for h in list(root.handlers):
            root.removeHandler(h)
        root.setLevel(logging.WARNING)
    sys.excepthook = sys.__excepthook__
    sys.unraisablehook = sys.__unraisablehook__
    threading.excepthook = threading.__excepthook__
    atexit._clear()  # the test process's handlers (pytest's) are not this program's


def _run_as_main(target: Callable[[], object]) -> tuple[int, int]:
    """``raise SystemExit(target())`` at the top of a program, and the interpreter's exit after it (module
    docstring): (exit status, signal the process then kills itself with, or 0)."""
    killed_by = 0
    try:
        raise SystemExit(target())
    except SystemExit as exc:
        status = _system_exit_status(exc.code)
    except BaseException as exc:
        sys.excepthook(type(exc), exc, exc.__traceback__)
        status = 1
        if isinstance(exc, KeyboardInterrupt):  # CPython >= 3.8: the exit is death by SIGINT (bpo-1054041)
            killed_by = signal.SIGINT
    threading._shutdown()  # as Py_FinalizeEx: wait for non-daemon threads (and executors' work), then atexit
    atexit._run_exitfuncs()
    if not _flush(sys.stdout, report=True):
        status = 120
    _flush(sys.stderr, report=False)
    return status, killed_by


def _system_exit_status(code: object) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    try:
        sys.stderr.write(f"{code}\n")
    except Exception:
        pass
    return 1


def _flush(stream: Any, report: bool) -> bool:
    """Flush as ``Py_FinalizeEx`` does; a failure of stdout is reported as the default ``sys.unraisablehook``
    reports it (``Exception ignored in: <stream>`` and the exception, the flush having no Python frame)."""
    if stream is None or getattr(stream, "closed", False):
        return True
    try:
        stream.flush()
    except Exception as exc:
        if report:
            import traceback  # lazy: only on this failure

            try:
                sys.stderr.write(f"Exception ignored in: {stream!r}\n" + "".join(traceback.format_exception_only(exc)))
                sys.stderr.flush()
            except Exception:
                pass
        return False
    return True
