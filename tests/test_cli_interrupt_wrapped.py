"""Ctrl-C that C code wraps is still an interrupt (exit 130, one line, no traceback).

A CI run sent the Ctrl-C process test's SIGINT while numba was loading a cached kernel: numba's
``_numba_unpickle``, called from C, turned the KeyboardInterrupt into SystemError("... returned a result with an
exception set"), chained to it, and the command died with a traceback.  `verify.cli.main.main` now treats a
SystemError chained to a KeyboardInterrupt as the interrupt; any other SystemError still propagates.
"""

from __future__ import annotations

import pytest

from verify.cli import main as cli_main


def _wrapped_interrupt(*_args):
    try:
        raise KeyboardInterrupt
    except KeyboardInterrupt as exc:
        try:
            raise SystemError("<function _numba_unpickle> returned a result with an exception set") from exc
        except SystemError as inner:  # numba's chain: SystemError from SystemError from KeyboardInterrupt
            raise SystemError("<function _numba_unpickle> returned a result with an exception set") from inner


def test_a_wrapped_keyboard_interrupt_exits_130_with_one_line(monkeypatch, capsys):
    monkeypatch.setattr(cli_main, "_main", _wrapped_interrupt)
    assert cli_main.main(["ratio"]) == 130
    err = capsys.readouterr().err
    assert err.strip() == "svt-verify: interrupted"


def test_another_system_error_is_not_an_interrupt(monkeypatch):
    def other(*_args):
        raise SystemError("something else") from ValueError("not an interrupt")

    monkeypatch.setattr(cli_main, "_main", other)
    with pytest.raises(SystemError, match="something else"):
        cli_main.main(["ratio"])


def test_the_chain_walk_stops_on_a_cycle():
    a, b = SystemError("a"), SystemError("b")
    a.__context__, b.__context__ = b, a
    assert not cli_main.interrupted_inside(a)


@pytest.mark.parametrize("wrapper", [RuntimeError, OSError])
def test_any_wrapper_of_a_keyboard_interrupt_is_an_interrupt(monkeypatch, capsys, wrapper):
    def wrapped(*_args):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt:
            raise wrapper("a library's own error, raised while handling the interrupt")  # noqa: B904 (__context__ only)

    monkeypatch.setattr(cli_main, "_main", wrapped)
    assert cli_main.main(["ratio"]) == 130
    assert capsys.readouterr().err.strip() == "svt-verify: interrupted"
