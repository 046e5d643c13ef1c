"""`verify.jit_interrupts`: a Ctrl-C that arrives while numba compiles is delivered after the compilation."""

from __future__ import annotations

import signal
import threading

import numba
import pytest
from numba.core import event

from verify.jit_interrupts import hold_sigint_while_numba_compiles


@pytest.fixture(autouse=True)
def _python_sigint_handler():
    """Python's own SIGINT handler during each test, whatever an earlier test in this process left."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


class _SigintDuringCompile(event.Listener):
    """Sends SIGINT to this process from inside numba's compilation (where llvmlite's C callbacks run)."""

    def __init__(self) -> None:
        self.sent = 0

    def on_start(self, ev: event.Event) -> None:
        if self.sent == 0:
            self.sent += 1
            signal.raise_signal(signal.SIGINT)

    def on_end(self, ev: event.Event) -> None:
        pass


def test_ctrl_c_during_a_compilation_is_raised_after_it_with_the_kernel_compiled() -> None:
    hold_sigint_while_numba_compiles()  # what every module that imports numba does
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler

    @numba.njit  # a kernel of its own, compiled on its first call
    def double(x: float) -> float:
        return 2.0 * x

    sender = _SigintDuringCompile()
    with event.install_listener("numba:compile", sender):
        with pytest.raises(KeyboardInterrupt):
            double(1.5)
    assert sender.sent == 1
    # the interrupt came after the compilation had finished: the kernel is there, and SIGINT's handler is back
    assert len(double.signatures) == 1
    assert double(1.5) == 3.0
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_compilation_without_ctrl_c_leaves_the_handler_and_raises_nothing() -> None:
    hold_sigint_while_numba_compiles()
    hold_sigint_while_numba_compiles()  # once per process, however many modules call it

    @numba.njit
    def triple(x: float) -> float:
        return 3.0 * x

    assert triple(2.0) == 6.0
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_a_compilation_in_another_thread_leaves_the_main_threads_handler_alone() -> None:
    hold_sigint_while_numba_compiles()
    seen = []

    @numba.njit
    def half(x: float) -> float:
        return 0.5 * x

    class Watch(event.Listener):
        def on_start(self, ev: event.Event) -> None:
            seen.append(signal.getsignal(signal.SIGINT))

        def on_end(self, ev: event.Event) -> None:
            pass

    with event.install_listener("numba:compile", Watch()):
        t = threading.Thread(target=half, args=(1.0,))
        t.start()
        t.join(timeout=60)
    assert seen == [signal.default_int_handler]
