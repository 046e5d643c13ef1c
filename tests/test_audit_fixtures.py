"""The shipped fixtures: every correct implementation matches, every broken one deviates and is named.

Sample sizes: chosen by the power rule for a total variation of 0.1 (about 1,100 runs per side),
seeded (seed 0), so every verdict below is deterministic.  False-alarm rate of each audit: 1e-3
(Bonferroni over its tests; a rejection must be confirmed on fresh seeds).

Each fixture's audit runs once per test run (`audited`: tests/run_cache.py shares it between the xdist workers);
`assert_implements` with its defaults is the same audit, so its test judges the two audits it needs from there.
"""

from __future__ import annotations

import pytest
from run_cache import computed_once, run_dir

from verify.audit import assert_implements, audit, testing
from verify.audit.core import DEFAULT_FALSE_ALARM
from verify.audit.examples import FIXTURES, claimed_variant
from verify.audit.result import AuditResult
from verify.verdicts import AuditVerdict, MechanismVerdict

CORRECT = [f for f in FIXTURES.values() if f.correct]
BROKEN = [f for f in FIXTURES.values() if not f.correct]
#: The audit's arguments for every fixture: the power rule's sizes for a total variation of 0.1, seed 0.
SIZES = {"target_tv": 0.1, "seed": 0}


def audited(config: pytest.Config, name: str) -> AuditResult:
    """``audit(FIXTURES[name], its claim, **SIZES)``, computed by the first test of the run that asks for it."""
    f = FIXTURES[name]
    return computed_once(run_dir(config) / f"audit-fixture-{name}.pickle",
                         lambda: audit(f.implementation, claimed_variant(f), **SIZES))


@pytest.mark.parametrize("fixture", CORRECT, ids=lambda f: f.name)
def test_correct_implementation_matches(fixture, pytestconfig):
    res = audited(pytestconfig, fixture.name)
    assert res.verdict is AuditVerdict.MATCHES, "\n".join(res.lines())
    assert res.fit is None
    assert all(not r.rejected for r in res.pairs)


@pytest.mark.parametrize("fixture", BROKEN, ids=lambda f: f.name)
def test_broken_implementation_deviates_and_is_named(fixture, pytestconfig):
    res = audited(pytestconfig, fixture.name)
    assert res.verdict is AuditVerdict.DEVIATES, "\n".join(res.lines())
    assert any(r.confirmed for r in res.pairs)
    assert res.fit is not None and res.fit.best_labels[0] == fixture.expected, res.fit.ranking[:4]
    assert res.fit.log_likelihood > res.fit.claimed_log_likelihood
    assert not res.fit.identifies_claim
    if fixture.name in ("lyu3_unnoised_release", "lyu1_reused_noise"):
        # outside the family, with an exact zero-probability witness: not private at all
        assert res.fit.privacy.verdict is MechanismVerdict.NOT_PRIVATE and res.fit.privacy.loss == "inf"
    else:
        assert res.fit.privacy.verdict in tuple(MechanismVerdict)


def test_assert_implements(pytestconfig, monkeypatch):
    """With its defaults, `assert_implements` asks for the fixtures' audit (checked argument by argument), which
    gives it the shared result of that audit: it passes lyu1 and raises on lyu1_half_noise naming the verdict."""
    by_function = {f.implementation: name for name, f in FIXTURES.items()}
    asked = []

    def same_audit(implementation, claimed, **options):
        name = by_function[implementation]
        assert claimed == claimed_variant(FIXTURES[name])
        assert options == {"samples": None, "false_alarm": DEFAULT_FALSE_ALARM, **SIZES}, options
        asked.append(name)
        return audited(pytestconfig, name)

    monkeypatch.setattr(testing, "audit", same_audit)
    f = FIXTURES["lyu1"]
    res = assert_implements(f.implementation, claimed_variant(f))
    assert res.verdict is AuditVerdict.MATCHES
    bad = FIXTURES["lyu1_half_noise"]
    with pytest.raises(AssertionError, match="deviates"):
        assert_implements(bad.implementation, claimed_variant(bad))
    assert asked == ["lyu1", "lyu1_half_noise"]
