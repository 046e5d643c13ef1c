"""The shipped fixtures: every correct implementation matches, every broken one deviates and is named.

Sample sizes: chosen by the power rule for a total variation of 0.1 (about 1,100 runs per side),
seeded (seed 0), so every verdict below is deterministic.  False-alarm rate of each audit: 1e-3
(Bonferroni over its tests; a rejection must be confirmed on fresh seeds).
"""

from __future__ import annotations

import pytest

from verify.audit import assert_implements, audit
from verify.audit.examples import FIXTURES, claimed_variant
from verify.verdicts import AuditVerdict, MechanismVerdict

CORRECT = [f for f in FIXTURES.values() if f.correct]
BROKEN = [f for f in FIXTURES.values() if not f.correct]


@pytest.mark.parametrize("fixture", CORRECT, ids=lambda f: f.name)
def test_correct_implementation_matches(fixture):
    res = audit(fixture.implementation, claimed_variant(fixture), target_tv=0.1, seed=0)
    assert res.verdict is AuditVerdict.MATCHES, "\n".join(res.lines())
    assert res.fit is None
    assert all(not r.rejected for r in res.pairs)


@pytest.mark.parametrize("fixture", BROKEN, ids=lambda f: f.name)
def test_broken_implementation_deviates_and_is_named(fixture):
    res = audit(fixture.implementation, claimed_variant(fixture), target_tv=0.1, seed=0)
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


def test_assert_implements():
    f = FIXTURES["lyu1"]
    res = assert_implements(f.implementation, claimed_variant(f), seed=1)
    assert res.verdict is AuditVerdict.MATCHES
    bad = FIXTURES["lyu1_half_noise"]
    with pytest.raises(AssertionError, match="deviates"):
        assert_implements(bad.implementation, claimed_variant(bad), seed=1)
