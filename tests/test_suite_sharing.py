"""The suite computes the claims' verdicts once per run (tests/run_cache.py, tests/conftest.py).

The sharing is a file under a lock, whatever the scheduler (``--dist worksteal`` since 2026-12-07).  Checked three ways: processes racing for one value compute it once;
an inner pytest run on two xdist workers computes its session value once while both workers use it;
and in this run the claims' cache holds the very verdicts the fixture shares."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest
from run_cache import computed_once, run_dir

from proofs.registry import all_claims

pytest_plugins = ["pytester"]


def _racer(path: str, log: str, out: str) -> None:
    def compute():
        with open(log, "a", encoding="utf-8") as f:
            f.write("computed\n")
        return {"value": 42}

    value = computed_once(Path(path), compute)
    with open(out, "a", encoding="utf-8") as f:
        f.write(f"{value['value']}\n")


def test_racing_processes_compute_once(tmp_path):
    ctx = multiprocessing.get_context("fork")
    path, log, out = tmp_path / "v.pickle", tmp_path / "log", tmp_path / "out"
    procs = [ctx.Process(target=_racer, args=(str(path), str(log), str(out))) for _ in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(60)
    assert all(p.exitcode == 0 for p in procs)
    assert log.read_text().splitlines() == ["computed"]
    assert out.read_text().splitlines() == ["42"] * 4


@pytest.mark.slow
def test_two_xdist_workers_share_one_computation(pytester, monkeypatch):
    """An inner run: eight tests in two files ask for a session value on two workers; it is computed
    once, both workers ran tests (so the second one loaded it), and the run's directory is one for the
    controller and both workers and is gone after the run."""
    pytester.makepyfile(run_cache=(Path(__file__).parent / "run_cache.py").read_text(encoding="utf-8"))
    pytester.makeconftest('''
import os, pytest
from run_cache import computed_once, end_run, run_dir, start_run

def pytest_configure(config):
    start_run(config)

def pytest_unconfigure(config):
    with open(os.environ["DIR_LOG"], "a") as f:
        f.write(str(run_dir(config)) + "\\n")
    end_run(config)

@pytest.fixture(scope="session")
def shared(request):
    def compute():
        with open(os.environ["SHARE_LOG"], "a") as f:
            f.write("computed\\n")
        return 7
    with open(os.environ["DIR_LOG"], "a") as f:
        f.write(str(run_dir(request.config)) + "\\n")
    return computed_once(run_dir(request.config) / "v.pickle", compute)
''')
    body = '''
import os, time
def test_{n}(shared):
    time.sleep(0.2)
    with open(os.environ["WORKERS_LOG"], "a") as f:
        f.write(os.environ.get("PYTEST_XDIST_WORKER", "main") + "\\n")
    assert shared == 7
'''
    pytester.makepyfile(**{f"test_{f}": "".join(body.format(n=f"{f}_{i}") for i in range(4)) for f in ("a", "b")})
    log, workers = pytester.path / "share.log", pytester.path / "workers.log"
    monkeypatch.setenv("SHARE_LOG", str(log))
    monkeypatch.setenv("WORKERS_LOG", str(workers))
    dirs = pytester.path / "dirs.log"
    monkeypatch.setenv("DIR_LOG", str(dirs))
    for name in ("PYTEST_XDIST_TESTRUNUID", "PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT"):
        monkeypatch.delenv(name, raising=False)  # inside the suite's own xdist run: the inner run gets a run of its own
    result = pytester.runpytest_subprocess("-n", "2", "-p", "xdist", "-p", "no:randomly", "-o", "addopts=")
    result.assert_outcomes(passed=8)
    assert log.read_text().splitlines() == ["computed"]
    assert set(workers.read_text().split()) == {"gw0", "gw1"}
    run = dirs.read_text().splitlines()
    # one directory for the whole run (the controller and both workers name it; a run started inside another
    # xdist run names it more often), removed at the end
    assert len(run) >= 3 and len(set(run)) == 1 and not Path(run[0]).exists()


def test_claims_cache_holds_the_shared_verdicts(claim_verdicts):
    assert set(claim_verdicts) == {c.id for c in all_claims()}
    assert all(c.check() is claim_verdicts[c.id] for c in all_claims())


def test_the_claims_fixture_shares_through_the_runs_file(claim_verdicts, request):
    """`claim_verdicts` goes through `computed_once` (so the racing test above applies to it): the run's file holds
    the verdicts, the same claims with the same verdicts, for any other process of the run to load."""
    import pickle

    path = run_dir(request.config) / "claim-verdicts.pickle"
    assert path.exists(), path
    with open(path, "rb") as f:
        shared = pickle.load(f)
    assert set(shared) == set(claim_verdicts)
    assert all(shared[i].verdict is claim_verdicts[i].verdict for i in shared)
