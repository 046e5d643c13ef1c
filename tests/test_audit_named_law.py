"""Which law the audit names (issue 30, item 3): only one that fits, the released-values double count fixed,
the fresh-threshold law exact, and the named law's privacy from the search of ``worst-case`` (issue 32, item 6)."""

from __future__ import annotations

import numpy as np
import pytest

from verify.audit import audit, sensitive
from verify.audit.examples import FIXTURES, claimed_variant, lyu1
from verify.audit.fit import candidates, privacy_search
from verify.audit.laws import Candidate, Law, letter_law
from verify.audit.sensitive import bugs, choose
from verify.family.presets import preset
from verify.family.worstcase import family_worst_case
from verify.verdicts import AuditVerdict, MechanismVerdict

LYU1 = claimed_variant(FIXTURES["lyu1"])
QUICK = {"samples": 400, "random_pairs": 0, "worst_pair": False, "workers": 1, "sensitive": False}


def _with_values(queries, rng):
    """lyu-1's letters, and a released value per above although lyu-1 releases none."""
    out = lyu1(queries, rng)
    return out, [0.0] * out.count("A")


def test_released_values_against_a_claim_without_release_are_counted_once():
    res = audit(_with_values, LYU1, **QUICK)
    assert res.verdict is AuditVerdict.DEVIATES
    for r in res.pairs:
        for t in r.tests:
            assert t.samples == 400  # not 800: each run once
    assert any("values although the claim releases none" in n for n in res.notes), res.notes
    assert res.fit is not None and np.isfinite(res.fit.log_likelihood)  # the fit sees the letters, not -inf everywhere


def _always_last(queries, rng):
    return "B" * (len(queries) - 1) + "A"


def test_when_no_candidate_fits_the_report_says_so_and_never_that_the_claim_fits_best():
    res = audit(_always_last, LYU1, **QUICK)
    assert res.verdict is AuditVerdict.DEVIATES
    text = "\n".join(res.lines())
    assert "none of the" in text and "candidates fits" in text and "closest:" in text
    assert "fit the claimed law best" not in text
    assert not res.fit.fits and res.fit.distance > 0.5


def test_a_named_law_fits():
    f = FIXTURES["lyu1_cutoff_off_by_one"]
    res = audit(f.implementation, claimed_variant(f), **QUICK)
    assert res.verdict is AuditVerdict.DEVIATES and res.fit.fits and res.fit.rejections == 0
    assert res.fit.best_labels[0] == f.expected and "behaves like" in res.fit.sentence(res.claimed)


def test_fresh_threshold_law_is_the_product_of_one_query_laws():
    m = preset("lyu-1", cutoff=3)
    law = letter_law(Candidate("", m, Law.FRESH), [0.0, 1.0, -2.0, 3.0])
    assert sum(law.values()) == pytest.approx(1.0, abs=1e-12)
    one = [letter_law(Candidate("", m.with_changes(cutoff=1)), [q])["A"] for q in (0.0, 1.0, -2.0, 3.0)]
    assert law["ABAB"] == pytest.approx(one[0] * (1 - one[1]) * one[2] * (1 - one[3]), rel=1e-12)
    assert law["AAA"] == pytest.approx(one[0] * one[1] * one[2], rel=1e-12)
    assert law["BBBB"] == pytest.approx(np.prod([1 - p for p in one]), rel=1e-12)


@pytest.mark.parametrize("cutoff", [1, 2, 3, None])
def test_candidates_cover_every_preset_at_every_cutoff_and_the_fresh_threshold(cutoff):
    m = preset("lyu-1", cutoff=cutoff) if cutoff else preset("lyu-1", cutoff=2).with_changes(cutoff=None)
    labels = [lab for _, labs in candidates(m) for lab in labs]
    assert "threshold drawn afresh per query" in labels
    assert any("preset lyu-5 (cutoff unlimited)" in lab for lab in labels)
    near = [1, 2, 3] if cutoff is None else [c for c in (cutoff - 1, cutoff, cutoff + 1) if c >= 1]
    for c in near:
        assert any(f"preset lyu-2 (cutoff {c})" in lab for lab in labels), (c, labels)
    assert any("× 11/10" in lab for lab in labels) and any("× 9/10" in lab for lab in labels)


def test_the_named_laws_privacy_comes_from_the_worst_case_commands_search():
    m = preset("lyu-1", cutoff=3)
    res = privacy_search(m)
    ref = family_worst_case(m, tightness_study=False)  # worst-case's defaults: up to 10 queries
    assert float(res.loss) == pytest.approx(float(ref.loss)) and float(res.loss) > 0.8  # the 4-query search stops at 1/3
    assert res.verdict is MechanismVerdict.PRIVATE


def test_sensitive_rows_separate_each_bug_from_the_claim():
    m = preset("lyu-1", cutoff=3)
    found = {sv.bug: sv for sv in choose(m, 4, 12.0, 1e-4, 0.9487)}
    assert {b.label for b in bugs(m)} == set(found)
    assert found["threshold drawn afresh per query"].needed < 20_000
    assert found["cutoff 4"].needed < 50 and found["threshold noise scale × 11/10"].needed < 300_000


def test_the_sensitive_rows_of_a_claim_are_chosen_once(monkeypatch):
    """`choose` is remembered per arguments: asked again (as every audit of one claim does) it returns the same rows
    without computing a law, as a new list (a caller's change does not reach the next audit)."""
    m = preset("lyu-1", cutoff=3)
    args = (m, 4, 12.0, 1.25e-4, 0.9)  # arguments no other test or audit uses
    first = choose(*args)
    calls = []
    laws = sensitive.grid_letter_laws
    monkeypatch.setattr(sensitive, "grid_letter_laws", lambda *a: calls.append(a) or laws(*a))
    first.clear()
    again = choose(*args)
    assert calls == [] and again and {sv.bug for sv in again} == {b.label for b in bugs(m)}
    assert choose(m, 4, 12.0, 1.5e-4, 0.9) and calls  # other arguments: computed
    assert sensitive._chosen.cache_info().maxsize == 64


def test_the_divergence_is_the_correctly_rounded_sum_whatever_the_order_of_the_outcomes():
    """χ² and the mass outside the claim's support are sums over a set of outcomes, whose order for strings changes
    with Python's string hashing from run to run: summed in that order, the last digits of the bug rows' predicted
    power moved between runs.  Integer keys give a fixed set order (ascending) with the large term first, where a
    plain sum absorbs the 30 small ones: the result must be the exact sum of the terms, rounded once."""
    from fractions import Fraction

    from verify.audit.sensitive import divergence

    claim = {0: 0.5, **{i: 1e-3 for i in range(1, 31)}}
    bug = {0: 0.0, **{i: 1e-3 + 1e-10 for i in range(1, 31)}, 31: 0.25, **{i: 1e-18 for i in range(32, 62)}}
    chi2, outside, df = divergence(bug, claim)
    exact_chi2 = sum(Fraction((bug[o] - p) ** 2 / p) for o, p in claim.items())
    exact_outside = sum(Fraction(v) for o, v in bug.items() if o not in claim)
    assert (chi2, outside, df) == (float(exact_chi2), float(exact_outside), 30)
    assert chi2 != 0.5 and outside != 0.25  # what the plain sums in this order give
