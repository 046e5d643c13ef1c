"""Shared test set-up: mpmath's global precision is reset around every test
(precision is only ever raised locally with ``mp.workdps``), and Hypothesis
runs derandomised so that the suite is reproducible.

Under pytest-xdist (``-n auto``; ``--dist loadgroup`` is in the addopts) the
tests that check the seed's claims by default (about a minute of CPU: the
verdicts are cached per process) are kept on one worker, so that the claims
are checked once per run, not once per worker."""

import mpmath
import pytest
from hypothesis import HealthCheck, settings

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
    "test_claims_roundtrip.py", "test_docs_proofs_show.py", "test_readme.py",
})


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook, which turns the mark into the test's group
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.name in CLAIM_FILES:
            item.add_marker(pytest.mark.xdist_group("claims"))


@pytest.fixture(autouse=True)
def _reset_mpmath():
    mpmath.mp.dps = 15
    yield
    mpmath.mp.dps = 15
