"""The family table on worker processes (`verify.family.table.TableRun`): the same rows as a serial run, in the
table's order; ``--workers`` checked like the other commands'; Ctrl-C keeps the rows done (in process, and as a
real process with a real SIGINT)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from verify.cli.main import EXIT_INTERRUPTED, main
from verify.errors import InputError
from verify.family import table
from verify.family.table import ROW_COST, ROWS, TableRun, family_table

ROOT = Path(__file__).resolve().parent.parent
#: A few short rows; gap-svt (the longest) last in the table, so it is handed out first and the finishing
#: order differs from the table's.
FEW = (("lyu-1", 1), ("lyu-3", 1), ("seed-m1", 1), ("gap-svt", 1))


def _fields(row) -> dict:
    """Every field of a row's JSON but its seconds (and the time ratios computed from them)."""
    j = row.to_json()
    j.pop("seconds")
    j["published"] = [{k: v for k, v in p.items() if k != "time_ratio"} for p in j["published"]]
    return j


def test_one_and_two_workers_give_the_same_rows_in_the_tables_order():
    serial = family_table(rows=FEW, max_queries=3, workers=1)
    parallel = family_table(rows=FEW, max_queries=3, workers=2)
    assert [(r.name, r.cutoff) for r in parallel] == list(FEW) == [(r.name, r.cutoff) for r in serial]
    assert [_fields(r) for r in parallel] == [_fields(r) for r in serial]
    assert all(r.result.seconds > 0 for r in parallel)  # each row's own time, measured in its worker


def test_iterating_yields_every_row_once_with_its_index():
    with TableRun(FEW, max_queries=1, workers=2) as run:
        got = dict(run)
    assert sorted(got) == list(range(len(FEW)))
    assert all((got[i].name, got[i].cutoff) == FEW[i] for i in got)


def test_the_workers_leave_ctrl_c_to_the_parent():
    with TableRun(FEW, max_queries=1, workers=2) as run:
        handlers = {run._pool.apply(signal.getsignal, (signal.SIGINT,)) for _ in range(4)}
        assert len(dict(run)) == len(FEW)
    assert handlers == {signal.SIG_IGN}


def test_every_default_row_has_a_cost_for_the_hand_out_order():
    from verify.discrete.table import ROWS as DISCRETE_ROWS

    assert set(ROW_COST) == set(ROWS) | {(name, cutoff) for name, cutoff, _ in DISCRETE_ROWS}


def test_rows_with_one_integrand_run_as_one_task_and_the_others_alone():
    """`bundles`: the continuous rows whose float64 searches evaluate the same integrand (`integrand_key`) are one
    task, in the table's order (the later rows reuse the first one's values); a discrete row is a task of its own;
    every row is in exactly one task."""
    from verify.discrete.table import discrete_tasks
    from verify.family.structured import integrand_key

    tasks = [table.RowTask(name, cutoff) for name, cutoff in ROWS] + discrete_tasks()
    groups = table.bundles(tasks)
    names = [[f"{t.name}:{t.cutoff}" for _, t in g] for g in groups]
    assert ["dwork-roth:1", "lyu-1:1", "lyu-2:1"] in names and ["lyu-4:1", "lyu-4:2"] in names
    assert sorted(i for g in groups for i, _ in g) == list(range(len(tasks)))
    keys = []
    for g in groups:
        mechs = [t.mechanism() for _, t in g]
        if mechs[0].is_discrete:
            assert len(g) == 1
            continue
        assert len({integrand_key(m) for m in mechs}) == 1 and [i for i, _ in g] == sorted(i for i, _ in g)
        keys.append(integrand_key(mechs[0]))
    assert len(keys) == len(set(keys))


def test_extra_rows_join_the_run_after_the_rows():
    """``extra`` (the `family` command's discrete rows): indices after the rows', the same rows as run alone."""
    from verify.discrete.table import discrete_table, discrete_tasks

    one = (("dlap-seed-m1", 1, "ge"),)
    with TableRun(FEW[:1], max_queries=1, workers=2, extra=discrete_tasks(one, max_queries=2)) as run:
        got = dict(run)
    assert sorted(got) == [0, 1] and got[0].name == FEW[0][0]
    assert _fields(got[1]) == _fields(discrete_table(one, max_queries=2)[0])


@pytest.mark.parametrize("bad", [0, -1, True, 1.5, "2"])
def test_bad_workers_refused_by_the_library(bad):
    with pytest.raises(InputError, match=r"^workers: .* must be an integer >= 1"):
        TableRun(FEW, workers=bad)


@pytest.mark.parametrize("command", [["family"], ["report"]])
def test_workers_zero_refused_in_one_line_with_exit_2(capsys, command):
    assert main([*command, "--workers", "0"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--workers: 0 must be an integer from 1 to" in err[0]


def test_family_workers_flag_is_applied(monkeypatch, capsys):
    seen = []
    real = table.TableRun.__init__

    def spy(self, *a, **kw):
        seen.append(a[4] if len(a) > 4 else kw.get("workers"))
        real(self, *a, **kw)

    monkeypatch.setattr(table.TableRun, "__init__", spy)
    assert main(["family", "--rows", "lyu-1:1", "--max-queries", "1", "--workers", "3", "--json"]) == 0
    assert seen == [3]
    assert json.loads(capsys.readouterr().out)["rows"][0]["preset"] == "lyu-1"


def test_report_passes_its_workers_to_the_family_table(monkeypatch):
    from proofs.report import build_report

    seen = []

    class Fake:
        def __init__(self, *a, workers=None, **kw):
            seen.append(workers)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            return None

        def table(self):
            return []

    import verify.seed_check

    monkeypatch.setattr(table, "TableRun", Fake)
    monkeypatch.setattr(verify.seed_check, "check_seed_mechanisms", lambda *a, **kw: [])  # only the family stage matters
    build_report(max_queries=1, workers=1, claims=False, family=True)
    assert seen == [1]


def test_ctrl_c_during_the_parallel_rows_keeps_the_rows_done(monkeypatch, capsys):
    real_iter = table.TableRun.__iter__
    closed = []
    real_close = table.TableRun.close

    def first_then_interrupt(self):
        it = real_iter(self)
        yield next(it)
        raise KeyboardInterrupt

    def close(self):
        closed.append(self._pool is not None)
        real_close(self)

    monkeypatch.setattr(table.TableRun, "__iter__", first_then_interrupt)
    monkeypatch.setattr(table.TableRun, "close", close)
    argv = ["family", "--rows", "lyu-1:1,lyu-3:1,seed-m1:1", "--max-queries", "2", "--workers", "2"]
    assert main(argv) == EXIT_INTERRUPTED
    out = capsys.readouterr().out
    assert "(partial: family interrupted; 1 row(s) done, the rest not computed)" in out
    table_lines = [x for x in out.split("\n\n")[0].splitlines()[2:]]
    assert len(table_lines) == 1 and table_lines[0].split()[0] in ("lyu-1", "lyu-3", "seed-m1")
    assert closed and closed[0]  # the workers were stopped by the interrupted command

    assert main([*argv, "--json"]) == EXIT_INTERRUPTED
    j = json.loads(capsys.readouterr().out)
    assert j["partial"] is True and len(j["rows"]) == 1


@pytest.mark.slow
def test_sigint_to_the_parallel_family_prints_the_rows_done_and_exits_130():
    """A terminal's Ctrl-C reaches the workers too: they ignore it (no traceback), the parent prints the rows done."""
    args = ["family", "--rows", "lyu-1:1,lyu-3:1,seed-m2:1,numeric-svt:2,gap-svt:1", "--workers", "2",
            "--progress", "always"]
    # its own process group, which gets the SIGINT as from a terminal's Ctrl-C: the parent and its workers
    p = subprocess.Popen([sys.executable, "-m", "verify", *args], cwd=ROOT, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True,
                         preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))

    err = bytearray()
    end = time.monotonic() + 400
    while b"1/5" not in err and p.poll() is None and time.monotonic() < end:  # the bar: one row finished
        err += os.read(p.stderr.fileno(), 4096)
    assert p.poll() is None, err.decode(errors="replace")[-500:]
    os.killpg(p.pid, signal.SIGINT)
    out, rest = p.communicate(timeout=120)
    text, err_text = out.decode(), (bytes(err) + rest).decode(errors="replace")
    assert p.returncode == 130, err_text[-500:]
    assert "(partial: family interrupted; " in text and " row(s) done, the rest not computed)" in text
    done = int(text.split("(partial: family interrupted; ")[1].split()[0])
    assert 1 <= done < 5
    assert "Traceback" not in err_text


def _bundle_where(bundle):
    """`table._run_bundle`'s stand-in for the tests below: each row with the process that ran it and whether that
    process had loaded the compiled evaluator (module level: the workers find it by name)."""
    from verify.family import structured

    return [(i, (row, os.getpid(), structured._LOADED)) for i, row in table._real_run_bundle(bundle)]


def _bundle_fails(bundle):
    raise ValueError(f"row {bundle[0][0]} failed")


def test_the_discrete_rows_run_on_a_worker_of_their_own_forked_before_the_load(monkeypatch):
    """With continuous and discrete rows, the discrete ones (which never evaluate with the compiled loop) go to one
    worker forked before the parent loads it, the continuous ones to workers forked after: the same rows as a serial
    run."""
    from verify.discrete.table import discrete_tasks

    extra = discrete_tasks((("dlap-seed-m1", 1, "ge"), ("sampcert-above-threshold", 1, "gt")), max_queries=2)
    serial = dict(TableRun(FEW[:3], max_queries=2, workers=1, extra=extra))
    monkeypatch.setattr(table, "_real_run_bundle", table._run_bundle, raising=False)
    monkeypatch.setattr(table, "_run_bundle", _bundle_where)
    from verify.family import structured

    monkeypatch.setattr(structured, "_LOADED", False)  # as in a fresh process (the serial run above loaded it)
    with TableRun(FEW[:3], max_queries=2, workers=2, extra=extra) as run:
        assert run._early is not None and run._pool is not None
        got = dict(run)
    assert sorted(got) == sorted(serial) == list(range(5))
    assert all(_fields(got[i][0]) == _fields(serial[i]) for i in got)
    discrete_pids = {got[i][1] for i in (3, 4)}
    assert len(discrete_pids) == 1 and discrete_pids.isdisjoint(got[i][1] for i in range(3))
    assert [got[i][2] for i in range(5)] == [True, True, True, False, False]


def test_only_continuous_or_only_discrete_rows_start_one_pool():
    from verify.discrete.table import discrete_tasks

    for rows, extra in ((FEW[:2], []), ((), discrete_tasks((("dlap-seed-m1", 1, "ge"), ("dlap-seed-m1", 1, "gt")), max_queries=1))):
        with TableRun(rows, max_queries=1, workers=2, extra=extra) as run:
            assert run._early is None and run._pool is not None
            assert len(dict(run)) == 2


def test_the_workers_are_forked_with_the_parents_objects_frozen_and_the_parent_unfrozen_after():
    """`gc.freeze` around the fork: the workers' collections skip (and do not write to) what they share with the
    parent; the parent's own collections are as before once the workers are forked.  The test session freezes
    what it imported (tests/conftest.py): undone here first, so that the parent starts as the command line's does,
    and done again after."""
    import gc

    gc.unfreeze()
    try:
        assert gc.get_freeze_count() == 0
        with TableRun(FEW[:2], max_queries=1, workers=2) as run:
            assert gc.get_freeze_count() == 0
            frozen = run._pool.apply(gc.get_freeze_count)
            assert len(dict(run)) == 2
        assert frozen > 10_000
    finally:
        gc.freeze()


def test_a_parent_that_had_frozen_objects_keeps_them_frozen_after_the_fork():
    """A caller's own freeze (a test session's) is not undone by the fork's: `gc.unfreeze` would undo both."""
    import gc

    gc.freeze()
    with TableRun(FEW[:2], max_queries=1, workers=2) as run:
        assert len(dict(run)) == 2
    assert gc.get_freeze_count() > 10_000


def test_a_failed_row_is_raised_by_the_iteration_and_the_workers_stopped(monkeypatch):
    monkeypatch.setattr(table, "_run_bundle", _bundle_fails)
    run = TableRun(FEW[:2], max_queries=1, workers=2)
    with pytest.raises(ValueError, match=r"^row \d failed$"):
        dict(run)
    assert run._pool is None and run._early is None


def test_ctrl_c_while_the_compiled_evaluator_loads_stops_the_discrete_rows_worker(monkeypatch):
    """The discrete rows' worker is already running when the parent loads the compiled loop: an interrupt there
    leaves no worker behind."""
    import multiprocessing

    from verify.discrete.table import discrete_tasks

    def interrupted():
        raise KeyboardInterrupt

    monkeypatch.setattr(table, "load_compiled", interrupted)
    before = set(multiprocessing.active_children())
    with pytest.raises(KeyboardInterrupt):
        TableRun(FEW[:2], max_queries=1, workers=2, extra=discrete_tasks((("dlap-seed-m1", 1, "ge"),), max_queries=1))
    assert set(multiprocessing.active_children()) <= before
