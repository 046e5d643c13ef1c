"""The audit's decision: Bonferroni levels, the confirming re-run, the verdict, and the verdict's power.

m goodness-of-fit tests (two per pair) each run at level α/m (Bonferroni), so an
implementation that samples the claimed law rejects some test with probability at
most α.  A rejection counts only when the same test, re-run on fresh seeds (an
independent sample of the same size), rejects again: a correct implementation is
then called ``deviates`` with probability at most Σ (α/m)² = α²/m.

* ``deviates``: some test rejected and its re-run rejected again;
* ``undecided``: a rejection that was not confirmed, or an interrupted run
  without a confirmed rejection;
* ``matches``: nothing rejected.

Power.  A deviation that one test detects with power p (`verify.audit.power`)
is called ``deviates`` only if the re-run rejects too: with probability p² (the
two samples are independent).  The audit chooses each test's power as
``sqrt(VERDICT_POWER)`` so that the *verdict* has power `VERDICT_POWER`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from verify.errors import InputError
from verify.verdicts import AuditVerdict

#: Power of the verdict ``deviates`` against a deviation at the stated total variation.
VERDICT_POWER = 0.9


def bonferroni_level(false_alarm: float, tests: int) -> float:
    """The level of each of ``tests`` tests: α/m.

    >>> bonferroni_level(0.001, 14)
    7.142857142857143e-05
    """
    if isinstance(tests, bool) or not isinstance(tests, int) or tests < 1:
        raise InputError(f"tests: {tests!r} must be an integer >= 1")
    return false_alarm / tests


def rejects(p_value: float, level: float) -> bool:
    """A test rejects when its p-value is below the level (strictly)."""
    return p_value < level


def confirmed(p_value: float, rerun_p_value: float | None, level: float) -> bool:
    """A rejection is confirmed when the re-run on fresh seeds (None: not run) rejects too."""
    return rejects(p_value, level) and rerun_p_value is not None and rejects(rerun_p_value, level)


def decide(first: Iterable[float], reruns: Iterable[float | None], level: float, interrupted: bool) -> AuditVerdict:
    """The verdict from every test's p-value and its re-run's (None where none was run), in the same order."""
    firsts, seconds = list(first), list(reruns)
    if len(firsts) != len(seconds):
        raise InputError(f"reruns: {len(seconds)} re-run p-values for {len(firsts)} tests")
    if any(confirmed(p, r, level) for p, r in zip(firsts, seconds)):
        return AuditVerdict.DEVIATES
    if interrupted or any(rejects(p, level) for p in firsts):
        return AuditVerdict.UNDECIDED
    return AuditVerdict.MATCHES


def power_per_test(verdict_power: float = VERDICT_POWER) -> float:
    """The power each test needs for the verdict to have ``verdict_power``: its square root (module docstring).

    >>> round(power_per_test(0.9), 4)
    0.9487
    """
    if not 0 < verdict_power < 1:
        raise InputError(f"power: {verdict_power!r} must be in (0, 1)")
    return math.sqrt(verdict_power)


def verdict_power(test_power: float) -> float:
    """The power of ``deviates`` when each test has ``test_power``: the first test and its re-run both reject."""
    return test_power * test_power
