"""One verdict for every variant: discrete noise on the one search entry point, verdict rule, bound, result and
printer; and verdicts as strong as the evidence (a proven growth family's member confirmed at 50 digits)."""

from __future__ import annotations

import json
import re
from fractions import Fraction

import mpmath
import pytest

from verify.cli.main import main
from verify.family import SparseVector, preset, worstcase
from verify.family.bounds import ProvenBound, proven_upper_bound
from verify.family.result import FamilyWorstCase
from verify.family.worstcase import family_worst_case
from verify.noise import NoiseSpec
from verify.verdicts import MechanismVerdict, Tightness

#: The issue's discrete example: DLap(1) threshold, DLap(2) queries, c = 2, threshold resampled, ε = 1.
RESAMPLED = SparseVector(1, 1, 0, NoiseSpec("discrete-laplace", absolute=1), NoiseSpec("discrete-laplace", absolute=2),
                         cutoff=2, threshold_policy="resample")


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _line_kinds(text: str) -> list[str]:
    """The label of every line of a worst-case report ('verdict', 'loss by k', ...), the first line (the variant) left out."""
    return [re.match(r"\s*([a-z][a-z ()0-9]*?)(:| \()", line).group(1) for line in text.splitlines()[1:] if line.strip()]


@pytest.mark.slow
def test_worst_case_prints_the_same_report_for_a_discrete_and_a_continuous_preset(capsys):
    """DONE WHEN of issue 29: `worst-case --variant sampcert-above-threshold --max-queries 5` prints the report of
    `--variant lyu-1` (the same lines, plus the integer domain searched), and the same JSON keys."""
    code_d, disc, _ = _run(capsys, "worst-case", "--variant", "sampcert-above-threshold", "--max-queries", "5")
    code_c, cont, _ = _run(capsys, "worst-case", "--variant", "lyu-1", "--max-queries", "5")
    assert code_d == code_c == 0
    kinds_d, kinds_c = _line_kinds(disc), _line_kinds(cont)
    assert [k for k in kinds_d if k != "searched"] == kinds_c
    for label in ("verdict", "loss found", "witness", "proven upper bound", "unbounded", "loss by k", "tightness"):
        assert label in kinds_d, label
    assert "verdict: private" in disc and "loss by k (float64 search): 1: " in disc and "5: 0.99355" in disc
    assert "tightness: loose: " in disc and "unbounded: no evidence" in disc
    code_d, jd, _ = _run(capsys, "worst-case", "--variant", "sampcert-above-threshold", "--max-queries", "2", "--json")
    code_c, jc, _ = _run(capsys, "worst-case", "--variant", "lyu-1", "--max-queries", "2", "--json")
    jd, jc = json.loads(jd), json.loads(jc)
    assert set(jd) == set(jc) and set(jd["witness"]) == set(jc["witness"])
    assert jd["upper_bound"] == "1" and jd["tightness"] == "loose" and jd["search_domain"] and jc["search_domain"] is None


def test_one_result_type_and_one_bound_for_discrete_variants():
    res = family_worst_case(preset("dlap-seed-m1"), max_queries=2)
    assert isinstance(res, FamilyWorstCase) and res.verdict is MechanismVerdict.PRIVATE
    b = proven_upper_bound(preset("dlap-seed-m1"))
    assert isinstance(b, ProvenBound) and b.value == 1 and res.upper_bound == b
    assert set(res.loss_by_k) == {1, 2} and res.witness.digits == 50
    import verify.discrete.bound as discrete_bound

    assert not hasattr(discrete_bound, "ProvenBound")  # one ProvenBound: verify.family.bounds's


def test_the_guard_runs_on_a_discrete_witness(monkeypatch):
    """A confirmed discrete loss above a (here deliberately wrong) proven bound is a bug, not a verdict."""
    monkeypatch.setattr(worstcase, "upper_bound_at", lambda *a, **k: ProvenBound(Fraction(1, 10), "wrong", "test"))
    with pytest.raises(RuntimeError, match="exceeds the proven bound"):
        family_worst_case(preset("sampcert-above-threshold"), max_queries=2)


def test_the_discrete_verdict_is_decided_exactly_with_the_rule_of_every_variant(monkeypatch):
    """The discrete path calls the one verdict rule (`worstcase.verdict_rule`, exact `exceeds`)."""
    seen = []
    rule = worstcase.verdict_rule
    monkeypatch.setattr(worstcase, "verdict_rule", lambda *a: seen.append(a[1]) or rule(*a))
    res = family_worst_case(preset("dgauss-above-threshold"), max_queries=2)
    assert res.verdict is MechanismVerdict.NOT_PRIVATE and seen and seen[-1] is res.witness
    assert res.tightness is Tightness.EXCEEDED


@pytest.mark.slow
def test_the_resampled_discrete_example_is_not_private_beyond_two_queries():
    """Issue 32: the 2-query box stays below ε (undecided); the layouts reach 5 queries and find a loss above ε,
    confirmed at 50 digits (recomputed here from the exact sums, independently of the result's own numbers)."""
    from verify.discrete.probability import mp_probability

    two = family_worst_case(RESAMPLED, max_queries=2)
    assert two.verdict is MechanismVerdict.UNDECIDED and two.loss < 1
    five = family_worst_case(RESAMPLED, max_queries=5)
    assert five.verdict is MechanismVerdict.NOT_PRIVATE and len(five.witness.queries) > 2
    w = five.witness
    with mpmath.workdps(60):
        lr = mpmath.log(mp_probability(RESAMPLED, list(w.queries), w.outcome, digits=50)
                        / mp_probability(RESAMPLED, list(w.neighbour), w.outcome, digits=50))
        assert abs(abs(lr) - five.loss) < mpmath.mpf(10) ** -40 and abs(lr) > 1
    assert "layouts:" in five.search_domain
    # the issue's own 5-query pair exceeds ε too
    with mpmath.workdps(60):
        lr = mpmath.log(mp_probability(RESAMPLED, [24, 24, 24, 24, -24], "BBBBA", digits=50)
                        / mp_probability(RESAMPLED, [25, 25, 25, 25, -25], "BBBBA", digits=50))
        assert lr > 1


@pytest.mark.parametrize(("mech", "k", "length", "loss"), [
    (preset("lyu-3", cutoff=2), 4, 5, Fraction(5, 4)),  # query release: loss i/4 at i queries
    (SparseVector(1, 1, 0, NoiseSpec("laplace", multiplier=3), NoiseSpec("laplace", multiplier=3), release="query"),
     2, 4, Fraction(4, 3)),  # Mechanism One releasing q_i + X_i: i/3
])
def test_a_query_release_growth_member_is_the_witness(mech, k, length, loss):
    """The growth family's member with i = floor(ε·b_X/Δ) + 1 queries is built, confirmed at 50 digits (loss iΔ/b_X
    exactly) and decides not_private, where the search up to k queries stays at or below ε."""
    res = family_worst_case(mech, max_queries=k)
    assert res.verdict is MechanismVerdict.NOT_PRIVATE and res.unbounded
    w = res.witness
    assert len(w.queries) == length and w.digits == 50 and w.outcome == "B" * (length - 1) + "A"
    with mpmath.workdps(60):
        assert abs(w.loss - mpmath.mpf(loss.numerator) / loss.denominator) < mpmath.mpf(10) ** -45
    assert any("growth family" in n for n in res.notes)


def test_a_no_cutoff_growth_member_is_the_witness():
    """lyu-6 (no cutoff) searched to 2 queries: the member A^m B^m of `no_cutoff_growth` with 2m·Δ/b_X - log(5/3) > ε."""
    res = family_worst_case(preset("lyu-6"), max_queries=2)
    assert res.verdict is MechanismVerdict.NOT_PRIVATE and res.unbounded
    w = res.witness
    m = len(w.queries) // 2
    assert w.outcome == "A" * m + "B" * m and res.loss > 1 and w.digits == 50
    assert res.loss >= 2 * m * mpmath.mpf(1) / 2 - mpmath.log(mpmath.mpf(5) / 3)  # the proven lower bound holds


def test_worst_case_commands_of_the_issue_say_not_private(capsys):
    code, out, _ = _run(capsys, "worst-case", "--variant", "lyu-3", "--cutoff", "2", "--max-queries", "4", "--json")
    j = json.loads(out)
    assert code == 0 and j["verdict"] == "not_private" and j["unbounded"] and j["witness"]["digits"] == 50
    assert mpmath.mpf(j["loss"]) > 1
