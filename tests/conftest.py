"""Shared test set-up: mpmath's global precision is reset around every test
(precision is only ever raised locally with ``mp.workdps``), and Hypothesis
runs derandomised so that the suite is reproducible."""

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


@pytest.fixture(autouse=True)
def _reset_mpmath():
    mpmath.mp.dps = 15
    yield
    mpmath.mp.dps = 15
