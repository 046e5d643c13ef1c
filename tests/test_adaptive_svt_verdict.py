"""Adaptive SVT's verdicts (verify.adaptive.bounds, search, verdict) and its `worst-case` front door."""

from __future__ import annotations

import json
from fractions import Fraction

import mpmath
import pytest

from verify.adaptive.bounds import alignment_bound
from verify.adaptive.model import below, top
from verify.adaptive.presets import adaptive_preset
from verify.adaptive.probability import mp_log_ratio
from verify.adaptive.verdict import adaptive_verdict, growth_loss
from verify.cli.main import main
from verify.exact import exceeds
from verify.verdicts import MechanismVerdict


@pytest.mark.parametrize("name", ["checkdp-adaptive-svt", "adaptive-svt-gap"])
@pytest.mark.parametrize("k", [1, 2, 5])
@pytest.mark.parametrize("eps", [Fraction(1), Fraction(1, 10)])
def test_the_alignment_bound_is_exactly_epsilon_for_the_papers_program(name, k, eps):
    assert alignment_bound(adaptive_preset(name, epsilon=eps, k=k)).value == eps


def test_the_bound_counts_what_the_budget_allows():
    """A larger budget admits more above answers: the bound grows by their per-answer losses."""
    m = adaptive_preset("checkdp-adaptive-svt")  # c0 = 2, B = 2: one above answer, loss 1/2 + 1/2
    wider = m.with_changes(budget=Fraction(4))   # now one middle (2 + 2 <= 4) or two tops before the last: + 1/2
    assert alignment_bound(wider).value == Fraction(1, 2) + Fraction(1, 2) + Fraction(1, 2)
    assert alignment_bound(m.with_changes(top_cost=0)).value is None


def test_the_bad_program_has_no_bound():
    assert alignment_bound(adaptive_preset("checkdp-bad-adaptive-svt")).value is None


@pytest.mark.slow
def test_bad_program_is_not_private_with_a_50_digit_witness():
    res = adaptive_verdict(adaptive_preset("checkdp-bad-adaptive-svt"), 4)
    assert res.verdict is MechanismVerdict.NOT_PRIVATE and res.digits == 50
    assert exceeds(res.loss, Fraction(1)) and res.unbounded
    w = res.witness  # recomputed independently of the verdict's own call
    again = abs(mp_log_ratio(res.mechanism, w.queries, w.neighbour, w.answers, 30))
    assert abs(again - res.loss) < mpmath.mpf(10) ** -25


@pytest.mark.slow
def test_the_growth_family_has_the_closed_form_loss():
    """m below answers at Q >= v, then top(v): loss exactly m·Δ(1/b_top + 1/b_mid) + Δ/b_top (verdict.growth)."""
    mech = adaptive_preset("checkdp-bad-adaptive-svt")
    m = 5
    q = (Fraction(40),) * m + (Fraction(-8),)
    qn = tuple(x + 1 for x in q[:-1]) + (q[-1] - 1,)
    answers = (below(),) * m + (top(10),)
    loss = abs(mp_log_ratio(mech, qn, q, answers, 30))
    assert abs(loss - mpmath.mpf(growth_loss(mech, m).numerator) / growth_loss(mech, m).denominator) < mpmath.mpf(10) ** -25
    assert growth_loss(mech, m) == Fraction(5 * 3, 8) + Fraction(1, 8)


@pytest.mark.slow
def test_papers_program_is_private_and_the_search_stays_below_the_bound():
    res = adaptive_verdict(adaptive_preset("checkdp-adaptive-svt"), 2)
    assert res.verdict is MechanismVerdict.PRIVATE
    assert res.loss <= 1 and res.loss > mpmath.mpf("0.5")  # a real pair, and below the proven bound


def _cli(capsys, *args: str) -> tuple[int, str, str]:
    """``svt-verify ARGS`` through `main` in this process (the exit code and the one-line refusals are `main`'s; an
    uncaught exception, which a process would print as a traceback, fails the test): (exit code, stdout, stderr)."""
    capsys.readouterr()
    try:
        code = main(list(args))
    except SystemExit as exc:  # argparse's own refusals
        code = exc.code
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.slow
def test_worst_case_front_door_prints_the_verdict_as_json(capsys):
    code, stdout, stderr = _cli(capsys, "worst-case", "--variant", "checkdp-bad-adaptive-svt", "--max-queries", "3", "--json")
    assert code == 0, stderr
    j = json.loads(stdout)
    assert j["verdict"] == "not_private" and j["witness"]["log_ratio_digits"] == 50


def test_worst_case_refuses_the_flags_a_preset_fixes(capsys):
    code, _, err = _cli(capsys, "worst-case", "--variant", "checkdp-adaptive-svt", "--query-scale", "3")
    assert code == 2 and "fixes its noises" in err and "Traceback" not in err
    code, _, err = _cli(capsys, "worst-case", "--variant", "checkdp-adaptive-svt", "--max-queries", "9")
    assert code == 2 and "at most 6" in err
    code, _, err = _cli(capsys, "worst-case", "--variant", "checkdp-adaptive-svt", "--progress", "always")
    assert code == 2 and "no progress bar" in err


@pytest.mark.slow
def test_a_short_search_still_finds_the_growth_witness():
    """At two queries the search's pairs stay below ε; the growth family's member above ε decides."""
    res = adaptive_verdict(adaptive_preset("checkdp-bad-adaptive-svt"), 2)
    assert res.verdict is MechanismVerdict.NOT_PRIVATE and exceeds(res.loss, Fraction(1))
    assert len(res.witness.queries) == 4  # m = 3 below answers: 3·3/8 + 1/8 = 5/4 > 1
