"""Running an implementation named by a spec in child processes of its own, so that its failures are reported.

The CLI audits the user's code, which may raise, print, call ``sys.exit`` or
``os._exit``, allocate without bound or never return.  Each of ``workers``
children (started with fork) ignores Ctrl-C, limits its address space to what
it has plus `MEMORY_BUDGET` (``resource.setrlimit(RLIMIT_AS)``), sends its
standard output to a temporary file (so a print cannot corrupt ``--json``;
the bytes are counted and reported in a note), imports the implementation
(`verify.audit.adapters.load`: this runs the module's code) and then runs
chunks of runs (`verify.audit.sampling.run_chunk`) sent over a pipe.

The parent hands out chunks, yields their results in task order, and turns
every failure into one `ImplementationError` line: an exception (its type,
message and the innermost frame of the user's code), ``sys.exit`` at import or
in a run, a process that ended or was killed (``os._exit``, the memory limit).
On Ctrl-C (a KeyboardInterrupt in the parent's wait) the children are killed
at once, whatever the implementation is doing, and the interrupt propagates
to the caller, which reports the chunks finished so far.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import tempfile
from collections.abc import Iterator
from multiprocessing.connection import Connection, wait
from typing import Any

from verify.audit.adapters import ImplementationError, Spec, describe_failure, load, parse_spec
from verify.audit.sampling import ChunkResult, Task, run_chunk
from verify.parallel import sigint_deferred

#: Bytes of address space a child may add to what it holds after start-up (RLIMIT_AS).
MEMORY_BUDGET = 2 * 2**30
#: Seconds a child may take to import the implementation and report ready.
START_TIMEOUT = 120.0


def _address_space() -> int:
    """This process's virtual memory size in bytes (VmSize of /proc/self/status), 0 if unknown."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) * 1024
    except OSError:  # pragma: no cover - not Linux
        pass
    return 0


def _limit_memory(budget: int) -> None:
    try:
        import resource  # not on Windows: documented reason for the local import
    except ImportError:  # pragma: no cover
        return
    size = _address_space()
    if size:
        limit = size + budget
        _, hard = resource.getrlimit(resource.RLIMIT_AS)
        if hard != resource.RLIM_INFINITY:
            limit = min(limit, hard)
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _child(spec: Spec, conn: Connection, budget: int) -> None:
    """A child's loop (module docstring): load, report ready, run chunks until told to stop."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    out = tempfile.TemporaryFile()
    os.dup2(out.fileno(), 1)  # the implementation's prints go here, never to the audit's stdout
    _limit_memory(budget)
    try:
        impl = load(spec)
    except ImplementationError as exc:
        conn.send(("error", str(exc)))
        return
    except BaseException as exc:  # InputError (no such attribute) and anything else: one line for the parent
        conn.send(("error", str(exc) if isinstance(exc, ValueError) else f"--implementation {spec}: " + describe_failure(exc)))
        return
    conn.send(("ready", os.fstat(out.fileno()).st_size))
    while True:
        msg = conn.recv()
        if msg is None:
            return
        index, task = msg
        try:
            result = run_chunk(impl, task)
        except ImplementationError as exc:
            conn.send(("error", f"{spec}: {exc}"))
            return
        except BaseException as exc:  # SystemExit, MemoryError in the runner, ...
            conn.send(("error", f"implementation {spec}: " + describe_failure(exc)))
            return
        conn.send(("done", index, result, os.fstat(out.fileno()).st_size))


class Sandboxes:
    """``workers`` children running one implementation (module docstring); use as a context manager."""

    def __init__(self, spec: str | Spec, workers: int, budget: int = MEMORY_BUDGET) -> None:
        self.spec = spec if isinstance(spec, Spec) else parse_spec(spec)
        self.workers = workers
        self.budget = budget
        self.procs: list[Any] = []
        self.conns: list[Connection] = []
        #: Bytes the implementation wrote to standard output (discarded), over all children.
        self.stdout_bytes: dict[int, int] = {}

    def __enter__(self) -> Sandboxes:
        ctx = multiprocessing.get_context("fork")
        try:
            with sigint_deferred():
                for _ in range(self.workers):
                    parent, child = ctx.Pipe()
                    p = ctx.Process(target=_child, args=(self.spec, child, self.budget), daemon=True)
                    p.start()
                    child.close()
                    self.procs.append(p)
                    self.conns.append(parent)
            for j in range(len(self.conns)):
                msg = self._receive(j, START_TIMEOUT, "importing it")
                self.stdout_bytes[j] = msg[1]
        except BaseException:
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Kill every child (a run that never returns is not waited for)."""
        for p in self.procs:
            if p.is_alive():
                p.kill()
        for p in self.procs:
            p.join(5)
        for c in self.conns:
            c.close()
        self.procs, self.conns = [], []

    def _death(self, j: int, doing: str) -> ImplementationError:
        p = self.procs[j]
        p.join(5)
        code = p.exitcode
        if code is not None and code < 0:
            name = signal.Signals(-code).name if -code in signal.Signals.__members__.values() else str(-code)
            why = f"was killed by signal {name}" + (" (out of memory?)" if -code == signal.SIGKILL else "")
        else:
            why = f"ended with exit status {code} (os._exit or a crash)"
        return ImplementationError(f"implementation {self.spec}: its process {why} while {doing}; an implementation "
                                   "must return its outcome")

    def _receive(self, j: int, timeout: float | None, doing: str) -> tuple:
        conn = self.conns[j]
        if timeout is not None and not conn.poll(timeout):
            raise ImplementationError(f"implementation {self.spec}: no answer within {timeout:g} s while {doing}")
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            raise self._death(j, doing) from None
        if msg[0] == "error":
            raise ImplementationError(msg[1])
        return msg

    @property
    def printed(self) -> int:
        return sum(self.stdout_bytes.values())

    def map(self, tasks: list[Task]) -> Iterator[ChunkResult]:
        """``run_chunk(impl, task)`` for every task in the children, yielded in task order."""
        todo = list(enumerate(tasks))[::-1]
        busy: dict[int, int] = {}
        done: dict[int, ChunkResult] = {}
        nxt = 0
        while nxt < len(tasks):
            for j in range(len(self.conns)):
                if j not in busy and todo:
                    index, task = todo.pop()
                    self.conns[j].send((index, task))
                    busy[j] = index
            if nxt in done:
                yield done.pop(nxt)
                nxt += 1
                continue
            ready = wait([self.conns[j] for j in busy])
            for j in [j for j in busy if self.conns[j] in ready]:
                msg = self._receive(j, None, "running chunk " + str(busy[j]))
                del busy[j]
                _, index, result, printed = msg
                self.stdout_bytes[j] = printed
                done[index] = result
