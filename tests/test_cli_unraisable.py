"""`verify.cli.unraisable`: a KeyboardInterrupt that Python can only report as "Exception ignored" is delivered again."""

from __future__ import annotations

import gc
import signal
import sys
import time

import pytest

from verify.cli.unraisable import deliver_ignored_interrupts


@pytest.fixture
def hook_and_handler():
    """The hook installed and Python's SIGINT handler, both as they were afterwards."""
    hook = sys.unraisablehook
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    deliver_ignored_interrupts()
    yield
    sys.unraisablehook = hook
    signal.signal(signal.SIGINT, handler)


class _InterruptedFinalizer:
    """Raises KeyboardInterrupt in ``__del__`` (where Python can only report it) once collected in a cycle."""

    def __init__(self) -> None:
        self.cycle = self

    def __del__(self) -> None:
        raise KeyboardInterrupt


def test_an_interrupt_in_a_finalizer_is_raised_again_in_ordinary_code_and_not_printed(hook_and_handler, capsys):
    _InterruptedFinalizer()
    with pytest.raises(KeyboardInterrupt):
        gc.collect()  # the finalizer's interrupt is ignored there; the hook trips SIGINT again
        for _ in range(500):  # the handler runs at a check of this (ordinary) code
            time.sleep(0.01)
    assert capsys.readouterr().err == ""


def test_other_unraisable_exceptions_go_to_the_previous_hook(hook_and_handler):
    seen = []
    sys.unraisablehook = lambda u: seen.append(type(u.exc_value))
    deliver_ignored_interrupts()  # installed again over the new one, which it keeps as its previous hook

    class Failing:
        def __init__(self) -> None:
            self.cycle = self

        def __del__(self) -> None:
            raise ValueError("in a finalizer")

    Failing()
    gc.collect()
    assert seen == [ValueError]


def test_installed_once():
    hook = sys.unraisablehook
    try:
        deliver_ignored_interrupts()
        first = sys.unraisablehook
        deliver_ignored_interrupts()
        assert sys.unraisablehook is first
    finally:
        sys.unraisablehook = hook
