"""Shared test set-up: mpmath's global precision is reset around every test
(precision is only ever raised locally with ``mp.workdps``), and Hypothesis
runs derandomised so that the suite is reproducible.

The seed's claims are checked by default once per test run, not once per worker: the session
fixture `claim_verdicts` computes every claim's verdict in the first process that asks (on all cores,
`proofs.parallel.parallel_verdicts`) and shares
them with the others through a file under a lock (tests/run_cache.py: the sharing does not depend on how
pytest-xdist schedules the tests; the scheduler is ``--dist worksteal``, pyproject.toml), and each process
takes them into its verdict cache before its first test of a claims file.  The claims' files and the
tests marked slow are collected first (the longest work starts first, so that it does not finish
alone at the end).

A test about the command line as a process (exit status, real descriptors, the interpreter's exit) runs it in a
child forked from the test process (tests/forked_cli.py: ``run_cli``), which inherits the imports and compiled
kernels instead of paying an interpreter's start-up each time; a real ``python -m verify`` process is kept only
where the process boundary itself is the subject (start-up imports, signals from outside, the entry point).

``--cpu-times=PATH`` writes each test's CPU seconds, and each process's CPU up to the end of collection,
to ``PATH.<worker>`` (docs/benchmarks.md, "The test suite")."""

import gc
import os

import mpmath
import pytest
from hypothesis import HealthCheck, settings
from kernel_forkserver import ForkServer
from run_cache import computed_once, end_run, run_dir, start_run

settings.register_profile(
    "svt",
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    print_blob=True,
)
settings.load_profile("svt")


#: Test files whose tests check the seed's claims (all of them, or conclusions that check their links).
CLAIM_FILES = frozenset({
    "test_proofs.py", "test_claim_graph.py", "test_claims_decisions.py", "test_claims_engines.py",
    "test_claims_roundtrip.py", "test_docs_proofs_show.py", "test_readme.py", "test_noisy_max_twice.py",
})


#: Test files of the command line as a process (integration: real `python -m verify` processes for Ctrl-C at any
#: moment, forked ones for the descriptors and exit statuses): marked slow here.
PROCESS_FILES = frozenset({"test_cli_process.py"})


def _start_rank(item: pytest.Item) -> int:
    """0 for the claims' group, 1 for a test marked slow, 2 for the rest."""
    if item.path.name in CLAIM_FILES:
        return 0
    return 1 if item.get_closest_marker("slow") is not None else 2


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which turns the mark into the test's group
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.name in CLAIM_FILES:
            item.add_marker(pytest.mark.xdist_group("claims"))
        if item.path.name in PROCESS_FILES:
            item.add_marker(pytest.mark.slow)
    # longest work first, so that no long item starts last and leaves the other worker idle: the claims'
    # group (one unit of work on one worker), then the tests marked slow, then the rest, each in file order
    items.sort(key=_start_rank)


def pytest_configure(config: pytest.Config) -> None:
    start_run(config)


def pytest_unconfigure(config: pytest.Config) -> None:
    end_run(config)


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--cpu-times", metavar="PATH", default=None,
                     help="append each test's CPU seconds (this process and its waited-for children, forked ones included, setup to "
                          "teardown) to PATH.<worker> as 'seconds<TAB>node id'; the line 'collection' holds the "
                          "process's CPU up to the end of collection (imports included)")


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def _cpu_file(config: pytest.Config) -> str | None:
    path = config.getoption("--cpu-times")
    return None if path is None else f"{path}.{os.environ.get('PYTEST_XDIST_WORKER', 'main')}"


def pytest_collection_finish(session: pytest.Session) -> None:
    """Freezes what collection imported (`gc.freeze`): the modules, sympy's caches, numba's and numpy's objects stay
    for the whole run, and without the freeze every full collection of the run (and pytest's five at its end) walks
    them again; the tests' own objects are collected as before.  3 test files with the whole suite collected: the
    collector's CPU 2.07 s -> 1.15 s of 24 s."""
    gc.collect()
    gc.freeze()
    path = _cpu_file(session.config)
    if path is not None:
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"{_cpu():.3f}\tcollection\n")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    path = _cpu_file(item.config)
    start, arrived = _cpu(), ForkServer.closed_kernels_cpu
    yield
    if path is not None:
        # a notebook's kernel is forked by a server (tests/kernel_forkserver.py), whose children's CPU reaches this
        # process only when the server is closed, in some later test's teardown: counted on the notebook's own test
        # (its ``kernel_cpu_seconds`` property) and taken off the test that closed the server
        own = sum(v for k, v in item.user_properties if k == "kernel_cpu_seconds")
        spent = _cpu() - start - (ForkServer.closed_kernels_cpu - arrived) + own
        with open(path, "a", encoding="utf-8") as f:
            f.write(f"{spent:.3f}\t{item.nodeid}\n")


@pytest.fixture(scope="session")
def claim_verdicts(request: pytest.FixtureRequest) -> dict:
    """Every claim's default verdict, computed once per test run (module docstring) and remembered in this
    process's verdict cache, so that ``claim.check()`` returns these very objects."""
    from proofs.claim import remember_verdicts
    from proofs.parallel import parallel_verdicts
    from verify.parallel import default_workers

    # on all cores, as the report checks them (proofs.parallel): the other xdist worker mostly waits for them
    verdicts = computed_once(run_dir(request.config) / "claim-verdicts.pickle",
                             lambda: parallel_verdicts(default_workers()))
    remember_verdicts(verdicts)
    return verdicts


@pytest.fixture
def audit_command(monkeypatch, capsys):
    """``svt-verify audit ARGV`` run through `main` in this process (a parser with the audit command only):
    a function returning (exit code, stdout, stderr)."""
    from verify.cli import audit as audit_cli
    from verify.cli import main as cli_main

    def build(commands=None):
        parser = cli_main.OneLineParser(prog="svt-verify")
        sub = parser.add_subparsers(dest="command", parser_class=cli_main.OneLineParser, metavar="COMMAND")
        audit_cli.register(sub)
        return parser

    monkeypatch.setattr(cli_main, "build_parser", build)

    def go(*argv):
        code = cli_main.main(["audit", *argv])
        out = capsys.readouterr()
        return code, out.out, out.err

    return go


@pytest.fixture(autouse=True)
def _claims_once(request: pytest.FixtureRequest) -> None:
    """Before the first test of a claims file in this process: the run's shared verdicts (`claim_verdicts`)."""
    if request.node.path.name in CLAIM_FILES:
        request.getfixturevalue("claim_verdicts")


@pytest.fixture(autouse=True)
def _reset_mpmath():
    mpmath.mp.dps = 15
    yield
    mpmath.mp.dps = 15
