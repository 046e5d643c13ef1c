"""``svt-verify audit``: through `verify.cli.main.main` with a parser that has the command registered
(a new command's entry point is only installed after reinstalling), workers, Dask, Ctrl-C."""

from __future__ import annotations

import json

import numpy as np
import pytest

from verify.audit import audit
from verify.audit.examples import FIXTURES, claimed_variant, lyu1
from verify.verdicts import AuditVerdict


@pytest.fixture
def run(audit_command):
    return audit_command


def test_cli_names_the_law_of_a_broken_implementation(run):
    code, out, err = run("--implementation", "verify.audit.examples:lyu1_half_noise", "--variant", "lyu-1", "--cutoff", "2",
                         "--target-tv", "0.1", "--workers", "1", "--json")
    assert code == 1, err
    res = json.loads(out)
    assert res["verdict"] == "deviates" and res["fit"]["best"][0] == "query noise Lap(4Δ/ε) (the claim's scale halved)"
    assert res["fit"]["claimed_privacy"]["verdict"] == "private"


def test_cli_text_report_of_a_correct_implementation(run):
    code, out, _ = run("--implementation", "verify.audit.examples:seed_m1", "--variant", "seed-m1", "--samples", "400",
                       "--random-pairs", "1", "--workers", "1")
    assert code == 0
    assert "verdict: matches" in out and "samples: 400 per side" in out and "Clopper–Pearson" in out


@pytest.mark.parametrize("argv,rule", [
    (["--implementation", "os.system('rm')"], "--implementation"),
    (["--implementation", "no_such_module_xyz:f"], "cannot import"),
    (["--implementation", "verify.audit.examples:lyu1", "--outcomes", "AB"], "--outcomes"),
    (["--implementation", "verify.audit.examples:lyu1", "--samples", "5"], "--samples"),
    (["--implementation", "verify.audit.examples:lyu1", "--false-alarm", "0.9"], "--false-alarm"),
])
def test_cli_refuses_bad_input_in_one_line(run, argv, rule):
    code, out, err = run(*argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and rule in err and "Traceback" not in err


def test_workers_do_not_change_the_counts():
    f = FIXTURES["lyu1_cutoff_off_by_one"]
    kw = dict(samples=6000, random_pairs=1, worst_pair=False, identify=False, seed=4)  # 6000 runs: two chunks per side
    serial = audit(f.implementation, claimed_variant(f), workers=1, **kw)
    pooled = audit(f.implementation, claimed_variant(f), workers=2, **kw)
    assert [r.to_json()["tests"] for r in serial.pairs] == [r.to_json()["tests"] for r in pooled.pairs]
    assert serial.verdict is pooled.verdict is AuditVerdict.DEVIATES


@pytest.mark.slow
def test_dask_cluster_gives_the_same_counts():
    """The audit through a Dask scheduler's address (`verify.parallel.executor_for`: a Client, its executor) gives
    the serial counts.  The worker runs in this process's threads but talks to the scheduler and the client over
    TCP, so every task and result is serialized as between machines; a worker of its own process (a fresh
    interpreter: about 5 s of start-up) would add nothing the counts depend on, each chunk's generator being built
    from its own seed wherever it runs (Dask with worker processes: tests/test_sweep.py)."""
    from dask.distributed import LocalCluster

    kw = dict(samples=300, random_pairs=1, worst_pair=False, seed=2)
    serial = audit(lyu1, claimed_variant(FIXTURES["lyu1"]), workers=1, **kw)
    with LocalCluster(n_workers=1, processes=False, threads_per_worker=1, protocol="tcp://", host="127.0.0.1",
                      dashboard_address=None) as cluster:
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        remote = audit(lyu1, claimed_variant(FIXTURES["lyu1"]), scheduler=cluster.scheduler_address, **kw)
    assert [r.to_json()["tests"] for r in serial.pairs] == [r.to_json()["tests"] for r in remote.pairs]


class _Interrupting:
    """An implementation that is interrupted (as by Ctrl-C) after ``after`` runs."""

    def __init__(self, after: int) -> None:
        self.left = after

    def __call__(self, queries: np.ndarray, rng: np.random.Generator) -> str:
        self.left -= 1
        if self.left < 0:
            raise KeyboardInterrupt
        return lyu1(queries, rng)


def test_ctrl_c_returns_the_partial_result():
    res = audit(_Interrupting(400 + 2 * 500 * 2 + 10), claimed_variant(FIXTURES["lyu1"]), samples=500, random_pairs=2,
                worst_pair=False, workers=1)
    assert res.interrupted and res.verdict is AuditVerdict.UNDECIDED
    assert len(res.pairs) == 2 and "interrupted" in res.notes[0]
    assert "(interrupted: partial result)" in "\n".join(res.lines())
