"""Ctrl-C that lands where Python cannot raise it: delivered again instead of printed and lost.

A KeyboardInterrupt raised inside code that Python calls where an exception cannot propagate (a weakref
callback or a ``__del__`` run by the garbage collector, importlib's module-lock callbacks during an import, a C
library's callback into Python such as llvmlite's while numba compiles) is handed to `sys.unraisablehook`,
whose default prints "Exception ignored in ... KeyboardInterrupt" with a traceback; the program then goes on as
if Ctrl-C had not been pressed (seen in a test: ``sweep`` interrupted 0.15 s after start, inside importlib's
``cb``).  `deliver_ignored_interrupts` installs a hook that, for a KeyboardInterrupt only, prints nothing and
trips SIGINT again (``_thread.interrupt_main``) a millisecond later, from a short-lived thread: tripped from the
hook itself, the handler would run inside the hook (the interpreter checks for signals right after a call), where
an exception is again only reported.  The handler then runs at the main thread's next check in ordinary code,
where the interrupt ends the command with status 130 as anywhere else (should it land in such a callback again,
the hook trips it again).  Every other unraisable exception goes to the hook that was there before.
"""

from __future__ import annotations

import _thread
import signal
import sys
import threading
import time
from typing import Any

_previous: list[Any] = []


#: Seconds between the ignored interrupt and SIGINT tripped again.
REDELIVERY_DELAY = 0.001


def _redeliver() -> None:
    time.sleep(REDELIVERY_DELAY)
    _thread.interrupt_main(signal.SIGINT)  # (does nothing where SIGINT is ignored or left to the default)


def _hook(unraisable: Any) -> None:
    if isinstance(unraisable.exc_value, KeyboardInterrupt):
        threading.Thread(target=_redeliver, name="svt-verify: Ctrl-C again", daemon=True).start()
        return
    _previous[0](unraisable)


def deliver_ignored_interrupts() -> None:
    """Install the hook (once per process; the command-line entry points call this first)."""
    if sys.unraisablehook is not _hook:
        _previous[:] = [sys.unraisablehook]
        sys.unraisablehook = _hook
