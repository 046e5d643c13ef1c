"""Ctrl-C while numba compiles: held back until the compiler is done, then delivered.

numba compiles a kernel the first time it is called with new argument types, and writes or reads the
compiled code through llvmlite, which calls back into Python from C (``_raw_object_cache_notify`` among
others).  A KeyboardInterrupt raised inside such a callback cannot propagate: Python prints it as
"Exception ignored in ... KeyboardInterrupt" with a traceback and goes on, so a Ctrl-C pressed during a
fresh install's first compilation neither stopped the command with status 130 nor left it quietly.

`hold_sigint_while_numba_compiles` registers a listener for numba's ``"numba:compiler_lock"`` event
(``numba.core.event``: started before numba takes its global compiler lock, ended after it lets it go,
around every compilation and cache load).  While the main thread holds that lock, SIGINT only records that
it came; when the outermost hold ends, the previous handler is restored and the signal raised again, so
the KeyboardInterrupt surfaces in ordinary Python code just after the compilation, as
`verify.parallel.sigint_deferred` does around a fork.  Calls of kernels already compiled do not take the
lock and cost nothing more.
"""

from __future__ import annotations

import signal
import threading
from typing import Any

_installed: list[Any] = []


def hold_sigint_while_numba_compiles() -> None:
    """Register the listener (once per process; each module that imports numba calls this after the import)."""
    if _installed:
        return
    from numba.core import event  # lazy: only the modules that import numba call this

    class HoldSigint(event.Listener):
        """Depth of the main thread's holds of numba's compiler lock, and whether SIGINT came meanwhile."""

        def __init__(self) -> None:
            self.depth = 0
            self.came = False
            self.previous: Any = None

        def on_start(self, ev: Any) -> None:
            if threading.current_thread() is not threading.main_thread():
                return
            self.depth += 1
            if self.depth == 1:
                self.came = False
                self.previous = signal.signal(signal.SIGINT, self._record)

        def on_end(self, ev: Any) -> None:
            if threading.current_thread() is not threading.main_thread() or self.depth == 0:
                return
            self.depth -= 1
            if self.depth == 0:
                # None: a handler set from C that Python cannot restore; the default is what it would do
                signal.signal(signal.SIGINT, signal.SIG_DFL if self.previous is None else self.previous)
                if self.came:
                    signal.raise_signal(signal.SIGINT)

        def _record(self, signum: int, frame: Any) -> None:
            self.came = True

    listener = HoldSigint()
    event.register("numba:compiler_lock", listener)
    _installed.append(listener)
