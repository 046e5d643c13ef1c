"""One rule for claim verdicts (docs/verdicts.md, "One rule"), checked on every claim of the graph.

The rule: a step applied by hand (a standard theorem such as Fubini-Tonelli, the mean value theorem, a
change of variables or the law of total probability that no engine checked) is ``consistent``, and so
is every claim that rests on it.  Walking every claim with its default check:

* a claim whose evidence records a step by hand is at most ``consistent``;
* a claim whose links all hold is at most as strong as its weakest link (a chain is never stronger
  than a step it rests on);
* the claims that rest on by-hand steps named in the project's review (the theorems integrated over x,
  the conditional ratio resting on the certificate's pen-and-paper reduction, the example's product
  formula for every n, and the proofs' conclusions) are at most ``consistent`` and name the step;
* the conditional certificate labels its pen-and-paper steps ``by_hand``, never ``exact``.
"""

from __future__ import annotations

import pytest

from proofs.registry import all_claims, get_claim
from verify.verdicts import ClaimVerdict, StepStatus

CONSISTENT = ClaimVerdict.CONSISTENT.strength

#: Claims whose derivation has a step applied by hand (or a link that has one): never above consistent.
BY_HAND_CLAIMS = ("M1.theorem", "M2.theorem", "X.no_halt.M1", "X.no_halt.M2", "X.no_halt", "P1.conclusion.1", "P2.ratio",
                  "M2.ratio", "P1.conclusion", "P2.conclusion", "M2.conclusion", "M1.example.D.corrected",
                  "M1.example.Dprime", "P1.chain.1", "P1.chain.3", "P1.chain.5", "P1.conclusion.2", "M2.chain.1",
                  "M2.chain.3", "M2.integration")


@pytest.fixture(scope="module")
def verdicts(claim_verdicts):
    return claim_verdicts


def test_no_claim_resting_on_a_step_by_hand_is_above_consistent(verdicts):
    bad = {i: (str(v.verdict), v.evidence.by_hand) for i, v in verdicts.items()
           if v.evidence.by_hand and v.verdict.strength > CONSISTENT}
    assert not bad


def test_no_claim_is_stronger_than_its_weakest_link(verdicts):
    bad = {}
    for cid, v in verdicts.items():
        links = [verdicts[i].verdict if i in verdicts else get_claim(i).check().verdict for i, _ in v.evidence.links]
        if links and all(lv.holds for lv in links):
            weakest = min(lv.strength for lv in links)
            if v.verdict.strength > weakest:
                bad[cid] = (str(v.verdict), [(i, str(lv)) for (i, _), lv in zip(v.evidence.links, links)])
    assert not bad


def test_declared_links_are_the_links_in_the_evidence(verdicts):
    # the evidence of a chained claim lists every link it declares, so the walk above sees them all
    for c in all_claims():
        if c.links and verdicts[c.id].verdict.holds:
            assert {i for i, _ in verdicts[c.id].evidence.links} >= set(c.links), c.id


@pytest.mark.parametrize("cid", BY_HAND_CLAIMS)
def test_claims_resting_on_steps_by_hand_are_at_most_consistent_and_say_which(cid, verdicts):
    v = verdicts[cid]
    assert v.verdict.holds and v.verdict.strength <= CONSISTENT, (cid, str(v.verdict), v.method)
    weaker_link = any(verdicts[i].verdict.strength <= CONSISTENT for i, _ in v.evidence.links)
    assert v.evidence.by_hand or weaker_link or "by hand" in v.method or "not machine-checked" in v.method, (cid, v.method)


@pytest.mark.slow
def test_the_example_is_still_proved_at_each_n_checked():
    # one n at a time the library's exact probability is symbolic in ε and Δ: proved there
    for n in (0, 3, 5):
        assert get_claim("M1.example.D.corrected").check(n=n).verdict is ClaimVerdict.PROVED
        assert get_claim("M1.example.Dprime").check(n=n).verdict is ClaimVerdict.PROVED


def test_conditional_certificate_labels_its_pen_and_paper_steps_by_hand():
    from verify.certify import certify_conditional_ratio
    from verify.mechanism import AboveThreshold

    cert = certify_conditional_ratio(AboveThreshold.mechanism_one(1))
    status = {s.name: s.status for s in cert.steps}
    for name in ("monotone reduction", "scale invariance", "mean value", "bound on L"):
        assert status[name] is StepStatus.BY_HAND, name
    assert status["hazard of X"] is StepStatus.CERTIFIED and status["attained on the tail cell"] is StepStatus.SYMBOLIC
    assert len(cert.by_hand_steps) == 4
