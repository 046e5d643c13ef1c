"""Staged progress (`verify.cli.progress.Staged`) and what Ctrl-C leaves, in process: the KeyboardInterrupt is
raised by the test at a chosen point of the real computation (deterministic), and the command must print its
partial result, marked partial, and exit 130.  The same behaviour as real processes and signals is in
tests/test_cli_process.py."""

from __future__ import annotations

import io
import json
import sys

import pytest

from verify.cli.main import EXIT_INTERRUPTED, main
from verify.cli.progress import Staged


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_each_stage_draws_a_bar_named_after_it(monkeypatch, capsys):
    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    with Staged("demo", ["first", "second"]) as run:
        with run.stage("first", total=3, unit="row") as bar:
            bar.update(1)
        run.section("section one")
        with run.stage("second"):
            pass
    drawn = term.getvalue()
    assert "demo 1/2: first" in drawn and "demo 2/2: second" in drawn
    assert "3/3" in drawn  # the bar is filled when its stage ends
    assert capsys.readouterr().out == "section one\n"


@pytest.mark.parametrize("mode, tty, drawn", [("auto", True, True), ("auto", False, False), ("always", False, True),
                                              ("never", True, False)])
def test_progress_flag_chooses_the_bars(monkeypatch, mode, tty, drawn):
    import argparse

    err = _Terminal() if tty else io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    with Staged("demo", ["only"], argparse.Namespace(progress=mode)) as run, run.stage("only"):
        pass
    assert ("demo 1/1: only" in err.getvalue()) is drawn


def test_unknown_stage_is_a_programming_error():
    with pytest.raises(ValueError, match="not one of"), Staged("demo", ["a"]).stage("b"):
        pass


def test_interrupt_prints_the_partial_result_and_goes_on(capsys):
    shown = []
    with pytest.raises(KeyboardInterrupt), Staged("demo", ["a"]) as run:
        run.partial = lambda: shown.append("partial")
        with run.stage("a"):
            raise KeyboardInterrupt
    assert shown == ["partial"]
    with pytest.raises(KeyboardInterrupt), Staged("demo", ["a", "b"]) as run:
        with run.stage("a"):
            pass
        with run.stage("b"):
            raise KeyboardInterrupt
    assert "(partial: demo interrupted during stage 'b'" in capsys.readouterr().out
    with pytest.raises(KeyboardInterrupt), Staged("demo", ["a", "b"]) as run:
        with run.stage("a"):
            pass
        raise KeyboardInterrupt  # between the stages: stage a is finished, b not begun
    assert "(partial: demo interrupted after stage 'a'" in capsys.readouterr().out


def _interrupt_after(n: int):
    """A function that raises KeyboardInterrupt on its (n+1)-th call, as Ctrl-C would."""
    calls = []

    def hit(*args, **kwargs):
        calls.append(1)
        if len(calls) > n:
            raise KeyboardInterrupt

    return hit


def test_proofs_ctrl_c_keeps_the_claims_done(monkeypatch, capsys):
    from proofs import claim as claim_module

    real = claim_module.Claim.check
    tick = _interrupt_after(2)

    def check(self, *a, **kw):
        tick()
        return real(self, *a, **kw)

    monkeypatch.setattr(claim_module.Claim, "check", check)
    assert main(["proofs", "P1.event", "P1.chain.2", "P1.kappa_bound", "--progress", "never"]) == EXIT_INTERRUPTED
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert lines[1].startswith("P1.event ") and lines[2].startswith("P1.chain.2 ")
    assert "P1.kappa_bound" not in out
    assert "partial (interrupted): 2 of 3 claims checked; summary so far: proved 2" in out
    assert "interrupted" in err and "Traceback" not in err

    tick = _interrupt_after(1)
    assert main(["proofs", "P1.event", "P1.chain.2", "--json"]) == EXIT_INTERRUPTED
    j = json.loads(capsys.readouterr().out)
    assert j["partial"] is True and j["checked"] == 1 and j["of"] == 2
    assert [c["id"] for c in j["claims"]] == ["P1.event"] and j["summary"] == {"proved": 1}


def test_worst_case_ctrl_c_prints_the_best_pair_so_far(monkeypatch, capsys):
    from verify.family import worstcase

    # Ctrl-C when the grid is done and the refinement starts: the grid's best pair exists
    monkeypatch.setattr(worstcase, "_refine", _interrupt_after(0))
    assert main(["worst-case", "--max-queries", "2"]) == EXIT_INTERRUPTED
    out, err = capsys.readouterr()
    assert "partial result (interrupted before the verdict; not a verdict)" in out
    assert "float64 search estimate (grid at k = 2), not confirmed" in out
    assert "output BA" in out and "verdict:" not in out
    assert "interrupted" in err

    assert main(["worst-case", "--max-queries", "2", "--json"]) == EXIT_INTERRUPTED
    j = json.loads(capsys.readouterr().out)
    assert j["partial"] is True and j["verdict"] is None
    best = j["best_so_far"]
    assert best["outcomes"] == "BA" and not best["confirmed"]
    # the pair is a pair of neighbours: every query moves by at most Δ = 1
    from fractions import Fraction

    assert all(abs(Fraction(a) - Fraction(b)) <= 1 for a, b in zip(best["queries"], best["neighbour_queries"]))
    assert 0 < best["loss"] <= 1  # Mechanism One at 2 queries: at most 2/3 nats (its loss by k), below ε = 1


def test_worst_case_ctrl_c_before_any_pair(monkeypatch, capsys):
    from verify.family import worstcase

    monkeypatch.setattr(worstcase, "_grid_layout", _interrupt_after(0))
    assert main(["worst-case", "--max-queries", "2"]) == EXIT_INTERRUPTED
    assert "no pair searched yet" in capsys.readouterr().out


def test_family_ctrl_c_keeps_the_rows_done(monkeypatch, capsys):
    from verify.family import table

    real = table.family_worst_case
    tick = _interrupt_after(1)
    monkeypatch.setattr(table, "family_worst_case", lambda *a, **kw: (tick(), real(*a, **kw))[1])
    # --workers 1: the rows run in this process, where the patched search is (tests/test_family_table_workers.py
    # interrupts the parallel run)
    assert main(["family", "--rows", "lyu-1:1,lyu-3:1", "--max-queries", "2", "--workers", "1"]) == EXIT_INTERRUPTED
    out = capsys.readouterr().out
    assert out.splitlines()[2].startswith("lyu-1 ")
    assert "lyu-3 " not in out.split("\n\n")[0]
    assert "(partial: family interrupted; 1 row(s) done, the rest not computed)" in out


def test_family_prints_the_table_before_the_discrete_rows(monkeypatch, capsys):
    from verify.family import table

    real = table.family_worst_case
    tick = _interrupt_after(0)

    def search(mech, *a, **kw):  # Ctrl-C at the first discrete row (they run after the table's rows)
        if mech.is_discrete:
            tick()
        return real(mech, *a, **kw)

    monkeypatch.setattr(table, "family_worst_case", search)
    # --workers 1: the rows run in this process, where the patched search is
    argv = ["family", "--max-queries", "1", "--workers", "1"]
    import verify.cli.family as family_cli

    monkeypatch.setattr(family_cli, "parse_rows", lambda text: (("lyu-1", 1),))
    assert main(argv) == EXIT_INTERRUPTED
    out = capsys.readouterr().out
    assert "lyu-1 " in out and "whole table:" in out
    assert "(partial: family interrupted during the discrete rows; the rows above are complete)" in out


@pytest.mark.parametrize("argv, desc", [
    (["family", "--rows", "lyu-1:1", "--max-queries", "1"], "family 1/1: rows"),
    (["delta", "--epsilon-prime", "0", "--queries", "0", "--neighbour-queries", "1"], "delta 1/1: exact pair"),
    (["proofs", "P1.event"], "proofs 1/1: claims"),
    (["worst-case", "--max-queries", "1"], "worst-case 1/1: search k = 1..1"),
])
def test_staged_commands_name_their_stage_on_a_terminal(monkeypatch, capsys, argv, desc):
    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    assert main(argv) == 0
    assert desc in term.getvalue()
    capsys.readouterr()
    monkeypatch.setattr(sys, "stderr", _Terminal())
    assert main([*argv, "--progress", "never"]) == 0
    assert desc not in sys.stderr.getvalue()
    capsys.readouterr()
