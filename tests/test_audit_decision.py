"""The audit's decision (`verify.audit.decision`): Bonferroni's divisor, the confirming re-run, the verdict's power,
and the level reported being the level applied (issue 32, items 7 and 8).  Deterministic: fixed seeds."""

from __future__ import annotations

import math

import numpy as np
import pytest

from verify.audit import assert_implements, audit
from verify.audit.decision import VERDICT_POWER, bonferroni_level, confirmed, decide, power_per_test, rejects, verdict_power
from verify.audit.examples import FIXTURES, claimed_variant, lyu1, lyu1_half_noise
from verify.errors import InputError
from verify.verdicts import AuditVerdict

LYU1 = claimed_variant(FIXTURES["lyu1"])


def test_bonferroni_divides_the_false_alarm_rate_by_the_number_of_tests():
    assert bonferroni_level(0.001, 16) == 0.001 / 16
    assert bonferroni_level(0.01, 1) == 0.01
    for bad in (0, -1, True, 2.0):
        with pytest.raises(InputError):
            bonferroni_level(0.001, bad)


def test_a_rejection_needs_a_p_value_strictly_below_the_level_and_a_confirming_rerun():
    assert rejects(0.0, 1e-4) and not rejects(1e-4, 1e-4) and not rejects(0.5, 1e-4)
    assert confirmed(1e-6, 1e-7, 1e-4)
    assert not confirmed(1e-6, None, 1e-4)  # no re-run: not confirmed
    assert not confirmed(1e-6, 1e-4, 1e-4)  # the re-run at the level: not a rejection
    assert not confirmed(0.3, 1e-9, 1e-4)  # the first test did not reject


@pytest.mark.parametrize("first,rerun,interrupted,verdict", [
    ([0.5, 0.2], [None, None], False, AuditVerdict.MATCHES),
    ([0.5, 1e-9], [None, 0.3], False, AuditVerdict.UNDECIDED),
    ([0.5, 1e-9], [None, None], False, AuditVerdict.UNDECIDED),
    ([0.5, 1e-9], [None, 1e-8], False, AuditVerdict.DEVIATES),
    ([1e-9, 0.5], [1e-8, None], True, AuditVerdict.DEVIATES),
    ([0.5, 0.2], [None, None], True, AuditVerdict.UNDECIDED),
])
def test_decide(first, rerun, interrupted, verdict):
    assert decide(first, rerun, 1e-4, interrupted) is verdict


def test_decide_refuses_mismatched_lists():
    with pytest.raises(InputError):
        decide([0.1, 0.2], [None], 1e-4, False)


def test_the_verdict_power_is_the_square_of_the_test_power():
    p = power_per_test()
    assert math.isclose(p, math.sqrt(VERDICT_POWER)) and math.isclose(verdict_power(p), VERDICT_POWER)
    assert verdict_power(0.9) == pytest.approx(0.81)
    with pytest.raises(InputError):
        power_per_test(1.0)


class _FirstCallsWrong:
    """Deviates (always 'AA') in its first ``n`` calls, then samples lyu-1: the generator check's 400 calls and
    round 0's first pair see it, the re-run does not."""

    def __init__(self, n: int) -> None:
        self.left = n

    def __call__(self, queries: np.ndarray, rng: np.random.Generator) -> str:
        self.left -= 1
        return "AA" if self.left >= 0 and len(queries) > 1 else lyu1(queries, rng)


def test_an_unconfirmed_rejection_is_undecided_not_deviates():
    res = audit(_FirstCallsWrong(800), LYU1, samples=200, random_pairs=0, worst_pair=False, workers=1)
    first = res.pairs[0]
    assert first.rejected and not first.confirmed and first.reruns[0] is not None
    assert res.verdict is AuditVerdict.UNDECIDED
    with pytest.raises(AssertionError):
        assert_implements(_FirstCallsWrong(800), LYU1, samples=200, random_pairs=0, worst_pair=False)
    assert_implements(_FirstCallsWrong(800), LYU1, samples=200, random_pairs=0, worst_pair=False, allow_undecided=True)


def test_the_level_reported_is_the_level_applied():
    res = audit(lyu1_half_noise, LYU1, samples=300, random_pairs=1, worst_pair=False, workers=1, sensitive=False)
    m = 2 * 4
    assert res.tests == m and res.level == 0.001 / m
    assert all(r.level == res.level for r in res.pairs)
    assert "over 8 tests (Bonferroni: level 0.000125 each" in "\n".join(res.lines())
    assert res.verdict is AuditVerdict.DEVIATES
    assert all(r.reruns[0] is not None or r.reruns[1] is not None for r in res.pairs if r.confirmed)


def test_a_p_value_between_the_divided_level_and_alpha_is_not_a_rejection():
    # seed 0: the structured pairs of a correct lyu-1 give a smallest p-value (0.153) above α/m = 0.033 but below α = 0.2
    res = audit(lyu1, LYU1, samples=2000, random_pairs=0, worst_pair=False, workers=1, false_alarm=0.2, seed=0)
    ps = [t.p_value for r in res.pairs for t in r.tests]
    assert res.level < min(ps) < 0.2, ps
    assert res.verdict is AuditVerdict.MATCHES


class _Interrupt:
    def __init__(self, after: int) -> None:
        self.left = after

    def __call__(self, queries: np.ndarray, rng: np.random.Generator) -> str:
        self.left -= 1
        if self.left < 0:
            raise KeyboardInterrupt
        return lyu1(queries, rng)


def test_an_interrupted_audit_reports_the_planned_tests_level():
    res = audit(_Interrupt(400 + 2 * 300 + 5), LYU1, samples=300, random_pairs=2, worst_pair=False, workers=1, sensitive=False)
    assert res.interrupted and len(res.pairs) == 1
    assert res.tests == 10 and res.level == 0.001 / 10
