"""The claims checked on worker processes (`proofs.parallel`, the report's claims section) give the
same rows, in the same order, as the serial `proofs.findings.verdict_rows`; the verdicts the test suite
shares (`parallel_verdicts`, tests/conftest.py) are the serial ones, each claim checked once."""

from __future__ import annotations

import multiprocessing

import pytest

from proofs.findings import verdict_rows
from proofs.parallel import ClaimRows, parallel_verdicts, units_of_work
from proofs.registry import all_claims, get_claim

#: Cheap claims (symbolic identities and closed forms) from two sections: two units of work.
IDS = ["P2.shift_z.1", "P2.shift_z.2", "P2.shift_x.1", "P2.shift_x.2", "P2.shift_x.3", "P2.jacobian",
       "U.error_bound.M1", "U.error_bound.M2", "U.tail_X.M1.1", "U.tail_X.M2.1", "U.tail_Z.M1.2", "U.tail_Z.M2.2"]


def test_units_cover_every_claim_once_largest_first() -> None:
    units = units_of_work()
    flat = [i for u in units for i in u]
    assert sorted(flat) == sorted(c.id for c in all_claims())
    assert len(flat) == len(set(flat))
    big = units[:-1]
    assert [len(u) for u in big] == sorted((len(u) for u in big), reverse=True)
    assert {get_claim(i).section for i in units[-1]} >= {"Beyond the seed", "Mechanism One, Privacy Guarantee"}


def test_units_of_a_selection() -> None:
    units = units_of_work(IDS)
    assert sorted(i for u in units for i in u) == sorted(IDS)
    assert [len(u) for u in units] == [6, 6]


@pytest.mark.parametrize("workers", [2, 1])
def test_rows_on_workers_equal_the_serial_rows(workers: int) -> None:
    # the workers first: forked from a process that has not checked these claims yet, they check them afresh
    rows = ClaimRows(workers, IDS).rows()
    serial = verdict_rows([c for c in all_claims() if c.id in IDS])
    assert [r["id"] for r in serial] == [c.id for c in all_claims() if c.id in IDS]
    assert rows == serial


def test_close_stops_workers_that_were_not_waited_for() -> None:
    before = set(multiprocessing.active_children())
    pending = ClaimRows(2, IDS)
    assert len(set(multiprocessing.active_children()) - before) == 2
    pending.close()
    assert not set(multiprocessing.active_children()) - before
    pending.close()  # twice is harmless


@pytest.mark.slow
def test_verdicts_on_workers_are_the_serial_ones_each_checked_once(monkeypatch, tmp_path) -> None:
    # every default check run (in the forked workers too) is logged; no verdict is cached beforehand
    from proofs import claim as claim_module

    log = tmp_path / "checked.log"
    run = claim_module.Claim._run

    def logged(self, params):
        with open(log, "a", encoding="utf-8") as f:
            f.write(self.id + "\n")
        return run(self, params)

    monkeypatch.setattr(claim_module, "_CACHE", {})
    monkeypatch.setattr(claim_module.Claim, "_run", logged)
    verdicts = parallel_verdicts(2, IDS)
    checked = log.read_text(encoding="utf-8").split()
    assert sorted(checked) == sorted(IDS)  # each claim once, over both workers (no links among these)
    assert list(verdicts) == [c.id for c in all_claims() if c.id in IDS]
    serial = parallel_verdicts(1, IDS)  # here, serially
    assert verdicts == serial
    assert all(v.claim_id == i for i, v in verdicts.items())
