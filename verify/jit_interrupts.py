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
the KeyboardInterrupt surfaces in ordinary Python code just after the compilation: the listener enters
`verify.parallel.sigint_deferred` (what holds Ctrl-C back around a fork) and leaves it.  Calls of kernels
already compiled do not take the lock and cost nothing more.
"""

from __future__ import annotations

import threading
from typing import Any

from verify.parallel import sigint_deferred

_installed: list[Any] = []


def hold_sigint_while_numba_compiles() -> None:
    """Register the listener (once per process; each module that imports numba calls this after the import)."""
    if _installed:
        return
    from numba.core import event  # lazy: only the modules that import numba call this

    class HoldSigint(event.Listener):
        """`sigint_deferred` entered at the main thread's outermost hold of numba's compiler lock, left at its end."""

        def __init__(self) -> None:
            self.depth = 0
            self.held: Any = None

        def on_start(self, ev: Any) -> None:
            if threading.current_thread() is not threading.main_thread():
                return
            self.depth += 1
            if self.depth == 1:
                self.held = sigint_deferred()
                self.held.__enter__()

        def on_end(self, ev: Any) -> None:
            if threading.current_thread() is not threading.main_thread() or self.depth == 0:
                return
            self.depth -= 1
            if self.depth == 0:
                held, self.held = self.held, None
                held.__exit__(None, None, None)  # the previous handler back; a SIGINT that came is raised here

    listener = HoldSigint()
    event.register("numba:compiler_lock", listener)
    _installed.append(listener)
