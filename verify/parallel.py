"""Running independent chunk tasks on an executor, results in task order.

The sweeps (`verify.sweep`) cut their grids into chunks whose boundaries
depend only on the grid (never on the number of workers), run one pure
function per chunk, and fold the chunk results in chunk order.  Whatever runs
the chunks (the calling process, a process pool, any
`concurrent.futures.Executor`, or a Dask distributed cluster), the folded
result is therefore the same, bit for bit.

`ordered_results` keeps at most ``window`` tasks in flight, so memory stays
bounded however many chunks there are, and shuts down only what it started.

A Dask scheduler address is checked before Dask sees it (`probe_scheduler`):
the address must be ``tcp://HOST:PORT`` or ``tls://HOST:PORT``; the scheduler
must accept a connection and send its greeting within `SCHEDULER_TIMEOUT`
seconds, and that greeting (Dask's frame header: a byte count, a frame count,
the frame lengths) must declare at most `MAX_GREETING_BYTES` in total, so that
nothing is allocated from sizes a stranger reports.  Then a worker must join
within the same timeout.  Each failure is one `InputError` line.
"""

from __future__ import annotations

import gc
import os
import signal
import socket
import struct
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from typing import Any

from verify.errors import InputError
from verify.validate import scheduler_address

#: Seconds allowed to connect to a Dask scheduler, to receive its greeting, and for a worker to be there.
SCHEDULER_TIMEOUT = 10.0
#: Largest greeting accepted from a scheduler (Dask's handshake is under 1 kB).
MAX_GREETING_BYTES = 1 << 16
_WORD = struct.Struct("<Q")  # Dask's TCP frames: native unsigned 64-bit lengths (little-endian on every supported host)


def _recv_exactly(sock: socket.socket, n: int, deadline: float) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        sock.settimeout(left)
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionResetError("connection closed")
        buf += chunk
    return bytes(buf)


def probe_scheduler(address: str, timeout: float | None = None, name: str = "--scheduler") -> None:
    """Check that a Dask scheduler answers at ``address`` before Dask connects (see the module docstring).

    ``inproc://`` addresses (a cluster in this process) are not probed.
    """
    if isinstance(address, str) and address.startswith("inproc://"):
        return
    scheme, host, port = scheduler_address(address, name)
    timeout = SCHEDULER_TIMEOUT if timeout is None else timeout
    deadline = time.monotonic() + timeout
    where = f"{scheme}://[{host}]:{port}" if ":" in host else f"{scheme}://{host}:{port}"
    try:
        with socket.create_connection((host, port), timeout=timeout) as sock:
            if scheme != "tcp":
                return  # TLS: the greeting comes after the TLS handshake, which Dask does
            (total,) = _WORD.unpack(_recv_exactly(sock, _WORD.size, deadline))
            if not 2 * _WORD.size <= total <= MAX_GREETING_BYTES:
                raise InputError(f"{name}: {where} sent a message header of {total} bytes: not a Dask scheduler "
                                 f"(a greeting has at most {MAX_GREETING_BYTES} bytes)")
            body = _recv_exactly(sock, total, deadline)
    except TimeoutError:
        raise InputError(f"{name}: no Dask scheduler answered at {where} within {timeout:g} s") from None
    except OSError as exc:
        raise InputError(f"{name}: cannot connect to {where} ({exc.strerror or type(exc).__name__})") from None
    (frames,) = _WORD.unpack_from(body)
    if not 1 <= frames <= 64 or _WORD.size * (1 + frames) > total:
        raise InputError(f"{name}: {where} sent a greeting with {frames} frames: not a Dask scheduler")
    lengths = struct.unpack_from(f"<{frames}Q", body, _WORD.size)
    if sum(lengths) > MAX_GREETING_BYTES:
        raise InputError(f"{name}: {where} declared {sum(lengths)} bytes of frames: not a Dask scheduler "
                         f"(a greeting has at most {MAX_GREETING_BYTES} bytes)")


@contextmanager
def _quiet_dask():
    """Silence Dask's loggers while a client connects (its errors are re-raised as one line)."""
    import logging

    loggers = [logging.getLogger(name) for name in ("distributed", "distributed.client", "distributed.comm",
                                                    "distributed.core", "tornado")]
    levels = [lg.level for lg in loggers]
    for lg in loggers:
        lg.setLevel(logging.CRITICAL + 1)
    try:
        yield
    finally:
        for lg, level in zip(loggers, levels):
            lg.setLevel(level)


def ignore_sigint() -> None:
    """Pool workers leave Ctrl-C to the parent, which cancels cleanly (a pool's ``initializer``)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextmanager
def sigint_deferred():
    """Hold Ctrl-C back while this process forks its workers, then deliver it.

    ``os.fork`` runs the interpreter's at-fork callbacks (logging registers
    one).  A KeyboardInterrupt raised inside one of them is printed as
    "Exception ignored" and lost, so a Ctrl-C pressed at that moment neither
    stopped the command nor left it quietly.  Inside this block SIGINT only
    records that it came; on leaving, the previous handler is restored and
    the signal raised again, so the KeyboardInterrupt surfaces in the
    caller's code.  Outside the main thread (where no handler can be set)
    it does nothing.
    """
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    came: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: came.append(signum))
    try:
        yield
    finally:
        # None: a handler set from C, which Python cannot put back; the default is what it would do
        signal.signal(signal.SIGINT, signal.SIG_DFL if previous is None else previous)
        if came:
            signal.raise_signal(signal.SIGINT)


def _collect_failed_client() -> None:
    """Free now a `Client` whose constructor raised, outside any lock of Dask's.

    The half-built client is held in reference cycles of its own (its connection pool and extensions point
    back at it), so only the garbage collector frees it, and its ``__del__`` then closes it, which takes the
    class-wide lock of Dask's ``LoopRunner``.  Left to a later collection, that can run inside the next
    ``Client``'s start, which holds the same lock: the process deadlocks (seen in a test run: a refused
    ``tls://`` scheduler, then a second ``--scheduler`` in the same process).  Called after the ``except``
    block has ended, so that no traceback keeps the client alive.
    """
    gc.collect()


def _no_task() -> None:
    """Submitted once so that a fork-started pool forks all its workers at once (`executor_for`)."""


def worker_count(workers: int | None) -> int:
    """``workers`` processes (None: all cores, `default_workers`), refused in one line unless an integer >= 1."""
    if workers is None:
        return default_workers()
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InputError(f"workers: {workers!r} must be an integer >= 1")
    return workers


def default_workers() -> int:
    """All cores this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not on Linux
        return max(1, os.cpu_count() or 1)


@contextmanager
def executor_for(executor: Executor | None = None, workers: int | None = None, scheduler: str | None = None):
    """Yield ``(executor or None, description)``; None means run in this process.

    * ``executor`` given: used as is and left running (the caller owns it).
    * ``scheduler`` (a Dask scheduler address such as ``tcp://host:8786``):
      a `dask.distributed.Client` is opened, its ``get_executor()`` used, and
      the client closed afterwards.
    * otherwise ``workers`` processes (default: all cores); 1 runs serially.
    """
    if executor is not None and scheduler is not None:
        raise InputError("executor: give either an Executor or a scheduler address, not both")
    if workers is not None:
        worker_count(workers)
    if executor is not None:
        yield executor, type(executor).__name__
        return
    if scheduler is not None:
        probe_scheduler(scheduler)
        from dask.distributed import Client

        refusal = None
        try:
            with _quiet_dask():  # Dask logs a CRITICAL traceback of its own before raising
                client = Client(scheduler, timeout=f"{SCHEDULER_TIMEOUT:g}s")
        except (OSError, TimeoutError, ValueError, TypeError, ImportError, RuntimeError) as exc:
            # tls:// without a TLS context (Dask's security settings), a greeting that parses and then is not
            # Dask's, a connection that closes: one line, not Dask's traceback
            refusal = (f"--scheduler: cannot connect to {scheduler!r} ({type(exc).__name__}: "
                       f"{str(exc).splitlines()[0][:120] if str(exc) else 'no detail'})")
        if refusal is not None:
            _collect_failed_client()
            raise InputError(refusal)
        try:
            try:
                client.wait_for_workers(1, timeout=SCHEDULER_TIMEOUT)
            except (OSError, TimeoutError) as exc:
                raise InputError(f"--scheduler: no worker joined {scheduler!r} within {SCHEDULER_TIMEOUT:g} s "
                                 f"({type(exc).__name__})") from None
            yield client.get_executor(), f"dask {scheduler}"
        finally:
            client.close()
        return
    n = default_workers() if workers is None else workers
    if n == 1:
        yield None, "serial"
        return
    pool = ProcessPoolExecutor(max_workers=n, initializer=ignore_sigint)
    try:
        with sigint_deferred():  # a fork-started pool forks every worker at its first submit: do it here
            pool.submit(_no_task)
        yield pool, f"{n} processes"
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def ordered_results(fn: Callable[[Any], Any], tasks: Iterable[Any], executor: Executor | None, window: int = 8) -> Iterator[Any]:
    """``fn(task)`` for every task, yielded in task order.

    With ``executor`` None the tasks run here, one after another.  Otherwise
    at most ``window`` are submitted at a time; when the consumer stops early
    (an exception such as KeyboardInterrupt, or closing the generator), the
    tasks not yet started are cancelled.
    """
    if executor is None:
        for task in tasks:
            yield fn(task)
        return
    it = iter(tasks)
    pending: dict[int, Future] = {}
    done_buffer: dict[int, Any] = {}
    next_submit = 0
    next_yield = 0
    exhausted = False
    try:
        while True:
            while not exhausted and len(pending) + len(done_buffer) < window:
                try:
                    task = next(it)
                except StopIteration:
                    exhausted = True
                    break
                pending[next_submit] = executor.submit(fn, task)
                next_submit += 1
            if next_yield in done_buffer:
                yield done_buffer.pop(next_yield)
                next_yield += 1
                continue
            if not pending:
                return
            finished, _ = wait(list(pending.values()), return_when=FIRST_COMPLETED)
            for idx in [i for i, f in pending.items() if f in finished]:
                done_buffer[idx] = pending.pop(idx).result()
    finally:
        for f in pending.values():
            f.cancel()
