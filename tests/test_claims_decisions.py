"""Every decision rule of proofs/ at its edge: each test fails if its rule is changed.

Rules: `proofs.steps.equality_check` (refuted whenever the numbers disagree, whatever the lemmas say; proved
only with every lemma shown and no gap; the 10^-32 screening / 10^-30 confirmation thresholds),
`proofs.steps.pointwise_check` (the 10^-30 nats violation threshold; a refuted certificate), `proofs.build`
(`refuted_or_undecided`, `conclusion`), `proofs.numerics.confirm` (two precisions must agree),
`proofs.case_analysis` (only an exact identity certifies a case), `proofs.claim` (Outcome validation,
engine failure, unknown parameters) and the exact point checks of the shared lemmas.
"""

from __future__ import annotations

from dataclasses import replace
from fractions import Fraction

import mpmath
import pytest
import sympy as sp

from proofs import case_analysis as CA
from proofs.build import conclusion, refuted_or_undecided
from proofs.claim import CLAIM_VERDICT_ORDER, Claim, ClaimVerdict, Counterexample, Evidence, Outcome, weakest
from proofs.numerics import Point, confirm, mpf
from proofs.steps import equality_check, pointwise_check

V = ClaimVerdict
POINTS = [Point(Fraction(1), Fraction(1), Fraction(0), None, Fraction(1, 2), None, Fraction(1, 2)),
          Point(Fraction(1, 2), Fraction(2), Fraction(1), Fraction(3), Fraction(0), Fraction(2), Fraction(1))]


def _eps(pt: Point) -> mpmath.mpf:
    return mpf(pt.eps) + mpf(pt.q)


# --- equality_check ------------------------------------------------------------------------------------------------
def test_equality_with_every_lemma_shown_and_no_gap_is_proved() -> None:
    assert equality_check(_eps, _eps, [("a lemma", True)], points=POINTS).verdict is V.PROVED


def test_equality_that_fails_is_refuted_even_when_the_lemmas_hold() -> None:
    """The guard: returning proved when the lemmas hold, skipping the comparison, must fail here."""
    v = equality_check(_eps, lambda pt: 2 * _eps(pt), [("a lemma that holds", True)], points=POINTS)
    assert v.verdict is V.REFUTED
    assert v.evidence.counterexample.confirmed and v.evidence.counterexample.relation == "="


def test_equality_with_a_gap_or_a_lemma_not_shown_is_at_most_consistent() -> None:
    v = equality_check(_eps, _eps, [("a lemma", True)], points=POINTS, gap="Fubini by hand")
    assert v.verdict is V.CONSISTENT and "Fubini by hand" in v.method
    assert equality_check(_eps, _eps, [("a lemma", True), ("another", False)], points=POINTS).verdict is V.CONSISTENT
    assert equality_check(_eps, _eps, [], points=POINTS).verdict is V.CONSISTENT


def test_equality_thresholds() -> None:
    """Screening flags a relative discrepancy above 10^-32 (40 digits); confirmation needs more than 10^-30:
    in between the verdict is undecided, below 10^-32 it is a pass, above 10^-30 a refutation."""
    def off(rel):
        return lambda pt: _eps(pt) * (1 + mpmath.mpf(rel))

    assert equality_check(_eps, off("1e-34"), [("a lemma", True)], points=POINTS).verdict is V.PROVED
    assert equality_check(_eps, off("1e-31"), [("a lemma", True)], points=POINTS).verdict is V.UNDECIDED
    assert equality_check(_eps, off("1e-28"), [("a lemma", True)], points=POINTS).verdict is V.REFUTED


# --- pointwise_check at a point --------------------------------------------------------------------------------------------
def _sides(pt):
    """log ratio = a, upper bound 0, lower bound -1."""
    return mpf(pt["a"]), mpmath.mpf(0), mpmath.mpf(-1)


def _pointwise(a):
    return pointwise_check(None, None, None, None, _sides, "grid", "-1 <= a <= 0", params={"a": a})


def test_pointwise_violation_threshold() -> None:
    assert _pointwise(0).verdict is V.CONSISTENT  # on the bound: attained, not violated
    assert _pointwise(Fraction(1, 10**31)).verdict is V.CONSISTENT  # within the 10^-30 nats rounding allowance
    v = _pointwise(Fraction(1, 10**25))
    assert v.verdict is V.REFUTED and v.evidence.counterexample.params == (("a", "1/10000000000000000000000000"),)
    assert _pointwise(Fraction(-1) - Fraction(1, 10**25)).verdict is V.REFUTED  # below the lower bound
    assert _pointwise("-1").verdict is V.CONSISTENT


def test_pointwise_refuted_certificate_is_undecided(monkeypatch) -> None:
    """A certificate that refutes a bound the sweep did not violate: undecided, never consistent or certified."""
    import numpy as np

    from proofs import steps
    from proofs.engines import EngineResult
    from verify.verdicts import CertificateVerdict

    def sample(rng):
        return {"a": rng.uniform(-0.5, -0.1, 200)}

    def run(status):
        monkeypatch.setattr(steps, "certification", lambda *a: EngineResult(status, "stub"))
        return pointwise_check(lambda p: p["a"], sample, lambda p: np.zeros_like(p["a"]), None,
                               lambda pt: (mpf(pt["a"]), mpmath.mpf(0), None), "grid", "a <= 0", certify=("factor:density", "laplace"))

    assert run(CertificateVerdict.REFUTED).verdict is V.UNDECIDED
    assert run(CertificateVerdict.CERTIFIED).verdict is V.CERTIFIED
    # a certificate resting on a step applied by hand: at most consistent, the step recorded
    monkeypatch.setattr(steps, "certification", lambda *a: EngineResult(CertificateVerdict.CERTIFIED, "stub", by_hand=("mean value",)))
    out = pointwise_check(lambda p: p["a"], sample, lambda p: np.zeros_like(p["a"]), None,
                          lambda pt: (mpf(pt["a"]), mpmath.mpf(0), None), "grid", "a <= 0", certify=("factor:density", "laplace"))
    assert out.verdict is V.CONSISTENT and out.evidence.by_hand == ("mean value",)
    assert run(CertificateVerdict.UNDECIDED).verdict is V.CONSISTENT


# --- confirm, refuted_or_undecided -------------------------------------------------------------------------------------------
def test_confirm_needs_two_precisions_to_agree() -> None:
    ok = confirm(lambda _: (mpmath.mpf(2), mpmath.mpf(1)), None, (("x", "1"),), "<=", lambda a, b: a > b)
    assert ok.confirmed
    # a value that depends on the working precision (an unconverged evaluation) is not confirmed
    drift = confirm(lambda _: (2 + mpmath.mpf(10) ** (-mpmath.mp.dps + 20), mpmath.mpf(1)), None, (("x", "1"),), "<=",
                    lambda a, b: a > b)
    assert not drift.confirmed
    # agreeing values that do not violate the relation are not a counterexample
    assert not confirm(lambda _: (mpmath.mpf(1), mpmath.mpf(2)), None, (("x", "1"),), "<=", lambda a, b: a > b).confirmed


def test_refuted_or_undecided() -> None:
    cx = Counterexample(params=(("x", "1"),), digits=30, lhs="2", rhs="1", relation="<=")
    assert refuted_or_undecided("m", cx, {}).verdict is V.REFUTED
    out = refuted_or_undecided("m", replace(cx, confirmed=False), {"notes": ("n",)})
    assert out.verdict is V.UNDECIDED and "not confirmed" in out.evidence.notes[-1]


# --- conclusion: a chain is as strong as its weakest link ---------------------------------------------------------------------
PROVED_LINK, CONSISTENT_LINK, REFUTED_LINK = "P2.jacobian", "P1.chain.1", "U.tail_Z.M1.2"


def test_link_verdicts_used_below() -> None:
    from proofs import get_claim

    assert get_claim(PROVED_LINK).check().verdict is V.PROVED
    assert get_claim(CONSISTENT_LINK).check().verdict is V.CONSISTENT
    assert get_claim(REFUTED_LINK).check().verdict is V.REFUTED


def test_conclusion_rules() -> None:
    own = Outcome(V.CONSISTENT, "direct")
    assert conclusion((PROVED_LINK,), None).verdict is V.PROVED
    assert conclusion((PROVED_LINK, CONSISTENT_LINK), None).verdict is V.CONSISTENT  # weakest link
    # the weakest of the links and the direct check, whichever is weaker
    assert conclusion((PROVED_LINK,), own).verdict is V.CONSISTENT
    assert conclusion((CONSISTENT_LINK,), Outcome(V.CERTIFIED, "direct")).verdict is V.CONSISTENT
    assert conclusion((PROVED_LINK,), Outcome(V.CERTIFIED, "direct")).verdict is V.CERTIFIED
    assert conclusion((REFUTED_LINK,), own).verdict is V.CONSISTENT  # a failed link: only the direct check speaks
    assert conclusion((REFUTED_LINK,), None).verdict is V.UNDECIDED
    cx = Counterexample(params=(("x", "1"),), digits=30, lhs="2", rhs="1", relation="<=")
    assert conclusion((PROVED_LINK,), Outcome(V.REFUTED, "direct", Evidence(counterexample=cx))).verdict is V.REFUTED
    assert conclusion((PROVED_LINK,), Outcome(V.UNDECIDED, "direct")).verdict is V.UNDECIDED
    assert conclusion((PROVED_LINK, CONSISTENT_LINK), None).evidence.links == ((PROVED_LINK, V.PROVED), (CONSISTENT_LINK, V.CONSISTENT))


def test_weakest_and_order() -> None:
    assert CLAIM_VERDICT_ORDER == (V.PROVED, V.CERTIFIED, V.CONSISTENT, V.UNDECIDED, V.REFUTED)
    for i, strong in enumerate(CLAIM_VERDICT_ORDER):
        for weak in CLAIM_VERDICT_ORDER[i:]:
            assert weakest([strong, weak]) is weak


# --- the claim and its outcome ---------------------------------------------------------------------------------------------------
def _claim(checker, **kw) -> Claim:
    return Claim(id="test.claim", title="t", section="s", latex="x", seed_fragments=(), explicit=False, hypotheses=(),
                 quantifiers=(), justification="j", checker=checker, **kw)


def test_claim_adds_its_id_and_validates() -> None:
    from proofs.engines import EngineFailure

    v = _claim(lambda **p: Outcome(V.PROVED, "m"), parameters=(("x", "x"),)).check(x=1)
    assert v.claim_id == "test.claim" and v.verdict is V.PROVED
    with pytest.raises(ValueError, match="unknown parameter"):
        _claim(lambda **p: Outcome(V.PROVED, "m")).check(y=1)
    with pytest.raises(TypeError, match="not an Outcome"):
        _claim(lambda **p: V.PROVED, parameters=(("x", "x"),)).check(x=1)

    def failing(**p):
        raise EngineFailure("the certifier crashed")

    v = _claim(failing, parameters=(("x", "x"),)).check(x=1)
    assert v.verdict is V.UNDECIDED and "the certifier crashed" in v.method
    with pytest.raises(ValueError, match="both sides"):
        _claim(failing, lhs=sp.Integer(1))


# --- case analyses: only an exact identity certifies a case ------------------------------------------------------------------------
x, y = sp.symbols("x y", real=True)


def test_case_certification_edges() -> None:
    assert CA.certify(CA.Case("true", (CA.ge(x, 0), CA.ge(y, x)), CA.ge(y, 0))).certified
    assert not CA.certify(CA.Case("unrelated goal", (CA.ge(x, 0),), CA.ge(y, 0))).certified
    assert not CA.certify(CA.Case("strict from non-strict", (CA.ge(x, 0),), CA.gt(x, 0))).certified
    assert CA.certify(CA.Case("strict from strict", (CA.gt(x, 0), CA.ge(y, x)), CA.gt(y, 0))).certified
    assert CA.certify(CA.Case("strict from a positive constant", (CA.ge(x, 0),), CA.gt(x + 1, 0))).certified
    assert not CA.certify(CA.Case("a negative constant", (CA.ge(x, 0),), CA.ge(x - 1, 0))).certified
    with pytest.raises(ValueError, match="not linear"):
        CA.certify(CA.Case("quadratic", (CA.ge(x, 0),), CA.ge(x * x, 0)))


def test_a_wrong_proposal_is_rejected_by_the_exact_check(monkeypatch) -> None:
    """The floating-point search only proposes: coefficients that do not give an identity certify nothing."""
    import numpy as np

    class Bad:
        status = 0
        x = np.array([0.5, 0.0])  # 0.5·[x >= 0] + c_0 = 0: not the goal x >= 0

    monkeypatch.setattr(CA, "linprog", lambda *a, **k: Bad())
    assert not CA.certify(CA.Case("true but badly proposed", (CA.ge(x, 0),), CA.ge(x, 0))).certified

    class Negative:
        status = 0
        x = np.array([1.0, 0.0])  # x - 1 = 1·[x >= 0] - 1: the remainder -1 is negative

    monkeypatch.setattr(CA, "linprog", lambda *a, **k: Negative())
    assert not CA.certify(CA.Case("false, remainder -1", (CA.ge(x, 0),), CA.ge(x - 1, 0))).certified


def test_the_lemmas_fail_when_weakened() -> None:
    """Negative controls: the same case analyses with a statement made false are not certified."""
    q, qp, d = sp.symbols("q qp Delta", real=True)
    # |max a - max b| <= Δ/2 does not follow from |a_l - b_l| <= Δ
    half = CA.Case("Δ/2", (CA.ge(d, q - qp), CA.ge(d, qp - q)), CA.ge(d / 2, q - qp))
    assert not CA.certify(half).certified
    # the error of a ⊤ is not bounded by |Z| alone
    z, t, xx = sp.symbols("Z t X", real=True)
    top = CA.Case("⊤, Z >= 0", (CA.ge(z, 0), CA.gt(t + z, q + xx), CA.gt(q, t)), CA.ge(z, q - t))
    assert not CA.certify(top).certified


def test_the_lemmas_are_proved() -> None:
    for lemma in (CA.max_lipschitz, CA.event_equivalence, CA.noisy_max_equivalence, CA.error_bound):
        analysis = lemma()
        assert analysis.proved, analysis.failed
        assert analysis.coverage


# --- exact point checks of the shared lemmas -------------------------------------------------------------------------------------------
def test_kappa_at_a_point() -> None:
    from proofs import get_claim

    c = get_claim("P1.kappa_bound")
    v = c.check(queries="0,0", neighbour="1,1", noise="1,-1", delta=1)
    assert v.verdict is V.CONSISTENT and "|κ| = 1," in v.evidence.notes[0]  # attained: max(1, -1) - max(2, 0) = -1
    with pytest.raises(ValueError, match="Δ"):
        c.check(queries="0", neighbour="2", noise="0", delta=1)


def test_event_at_a_point() -> None:
    from proofs import get_claim

    c = get_claim("P1.event")
    assert c.check(previous="1,2", noisy_threshold="5/2", noisy_query="5/2").verdict is V.CONSISTENT  # tie t̂ = q̂_i
    assert c.check(previous="1,3", noisy_threshold="5/2", noisy_query=4).verdict is V.CONSISTENT  # halted earlier: both false


@pytest.mark.parametrize(("claim_id", "lemma"), [("P1.kappa_bound", "max_lipschitz"), ("P1.event", "event_equivalence"),
                                                  ("M2.noisy_max", "noisy_max_equivalence"), ("U.error_bound.M1", "error_bound")])
def test_a_case_analysis_with_an_uncertified_case_is_not_proved(monkeypatch, claim_id: str, lemma: str) -> None:
    """If one case of the analysis is not certified, the claim rests on its sampled/enumerated points: consistent."""
    from proofs import get_claim

    assert get_claim(claim_id).check().verdict is V.PROVED
    real = getattr(CA, lemma)()
    broken = replace(real, results=(replace(real.results[0], certified=False), *real.results[1:]))
    monkeypatch.setattr(CA, lemma, lambda: broken)
    v = replace(get_claim(claim_id), id=f"test.case.{claim_id}").check()
    assert v.verdict is V.CONSISTENT and "not certified" in v.method, v.method


def test_case_outcome_rules() -> None:
    from proofs.build import case_outcome

    proved = CA.analyse("t", "all", [CA.Case("c", (CA.ge(x, 0),), CA.ge(x, 0))])
    broken = CA.analyse("t", "all", [CA.Case("c", (CA.ge(x, 0),), CA.ge(y, 0))])
    kw = {"proved": "p", "fallback": "f"}
    assert case_outcome(proved, Evidence(), contradicted="", **kw).verdict is V.PROVED
    assert case_outcome(proved, Evidence(), contradicted="a point disagrees", **kw).verdict is V.UNDECIDED
    out = case_outcome(broken, Evidence(), contradicted="", **kw)
    assert out.verdict is V.CONSISTENT and "c" in out.method
