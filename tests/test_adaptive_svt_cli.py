"""Adaptive SVT presets on prob, ratio, delta and audit (`--variant`): each flag applied, or refused in one line."""

import json

import mpmath
import pytest

from verify.adaptive.model import below, middle, top
from verify.adaptive.presets import adaptive_preset
from verify.adaptive.probability import mp_log_ratio, outcome_density
from verify.cli.main import main

GOOD, BAD = "checkdp-adaptive-svt", "checkdp-bad-adaptive-svt"


def _run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.slow
def test_prob_density_of_a_released_gap_matches_the_library(capsys):
    code, out, _ = _run(capsys, "prob", "--variant", GOOD, "--queries", "0,1", "--outcomes", "below,middle(1/2)",
                        "--digits", "20", "--json")
    j = json.loads(out)
    assert code == 0 and j["kind"] == "density" and j["outcomes"] == "⊥,middle(0.5)" and j["released"] == ["0.5"]
    want = outcome_density(adaptive_preset(GOOD), [0, 1], (below(), middle("1/2")), 25)
    with mpmath.workdps(25):
        assert abs(mpmath.mpf(j["density"]) / want - 1) < mpmath.mpf(10) ** -18
        assert abs(mpmath.mpf(j["log_density"]) - mpmath.log(want)) < mpmath.mpf(10) ** -18


@pytest.mark.slow
def test_prob_below_answers_only_is_a_probability_and_epsilon_threshold_apply(capsys):
    code, out, _ = _run(capsys, "prob", "--variant", GOOD, "--queries", "0,1", "--outcome", "⊥,below", "--epsilon", "1/2",
                        "--threshold", "1", "--json")
    j = json.loads(out)
    want = outcome_density(adaptive_preset(GOOD, epsilon="1/2", threshold=1), [0, 1], (below(), below()), 30)
    assert code == 0 and j["kind"] == "probability" and j["mechanism"]["epsilon"] == "0.5" and j["mechanism"]["threshold"] == "1"
    with mpmath.workdps(30):
        assert abs(mpmath.mpf(j["probability"]) / want - 1) < mpmath.mpf(10) ** -25


def test_prob_fast_prints_only_the_digits_its_estimate_supports(capsys):
    code, out, _ = _run(capsys, "prob", "--variant", GOOD, "--queries", "0,1", "--outcome", "below,middle(1/2)",
                        "--method", "fast", "--json")
    j = json.loads(out)
    assert code == 0 and j["method"] == "fast" and 1 <= j["digits"] <= 15
    assert len(j["density"].replace("0.", "", 1).lstrip("0").replace(".", "")) <= j["digits"]
    exact = outcome_density(adaptive_preset(GOOD), [0, 1], (below(), middle("1/2")), 20)
    assert abs(float(j["density"]) / float(exact) - 1) < 10.0 ** (1 - j["digits"])


@pytest.mark.slow
def test_ratio_is_the_exact_log_ratio(capsys):
    code, out, _ = _run(capsys, "ratio", "--variant", GOOD, "--queries", "0,0", "--neighbour-queries", "1,1",
                        "--outcome", "below,middle(1/2)", "--digits", "20", "--json", "--fail-on", "violation")
    j = json.loads(out)
    want = mp_log_ratio(adaptive_preset(GOOD), [0, 0], [1, 1], (below(), middle("1/2")), 25)
    assert code == 0 and j["all_within_bounds"] is True
    with mpmath.workdps(25):
        assert abs(mpmath.mpf(j["outputs"][0]["log_ratio"]) - want) < mpmath.mpf(10) ** -18


@pytest.mark.slow
def test_ratio_fail_on_violation_when_the_log_ratio_exceeds_epsilon(capsys):
    # worst-case --variant checkdp-bad-adaptive-svt's witness (loss 1.25 = 3·0.375 + 0.125 nats, docs/adaptive.md)
    argv = ["ratio", "--variant", BAD, "--queries", "25,25,25,-1", "--neighbour-queries", "24,24,24,0",
            "--outcome", "below,below,below,top(24)"]
    lr = mp_log_ratio(adaptive_preset(BAD), [25, 25, 25, -1], [24, 24, 24, 0], (below(), below(), below(), top(24)), 30)
    assert abs(lr) > 1  # the library says so; the command must agree
    code, out, _ = _run(capsys, *argv, "--fail-on", "violation")
    assert code == 1 and "NO" in out
    code, out, _ = _run(capsys, *argv, "--json")
    assert code == 0 and json.loads(out)["all_within_bounds"] is False


@pytest.mark.parametrize("argv, words", [
    (["prob", "--variant", GOOD, "--queries", "0", "--outcome", "below", "--noise", "gaussian"], "--noise"),
    (["prob", "--variant", GOOD, "--queries", "0", "--outcome", "below", "--method", "symbolic"], "--method symbolic"),
    (["prob", "--variant", GOOD, "--queries", "0", "--outcome", "below", "--cutoff", "unlimited"], "--cutoff unlimited"),
    (["prob", "--variant", GOOD, "--queries", "0", "--outcome", "below", "--released", "1"], "--released"),
    (["prob", "--variant", GOOD, "--queries", "0"], "not a finite"),
    (["prob", "--variant", GOOD, "--queries", "0", "--outcome", "BA"], "not an Adaptive SVT outcome"),
    (["prob", "--variant", GOOD, "--queries", "0", "--outcome", "below,up(3)"], "not an Adaptive SVT answer"),
    (["prob", "--variant", GOOD, "--queries", "0", "--outcome", "below,below"], "2 answers for 1 queries"),
    (["prob", "--queries", "0", "--outcome", "below"], "is an Adaptive SVT outcome"),
    (["ratio", "--variant", GOOD, "--queries", "0", "--neighbour-queries", "2", "--outcome", "below"], "exceeds the sensitivity"),
    (["ratio", "--variant", GOOD, "--queries", "0", "--neighbour-queries", "1", "--outcome", "below",
      "--threshold-policy", "resample"], "--threshold-policy"),
    (["ratio", "--variant", GOOD, "--queries", "0", "--neighbour-queries", "1", "--outcome", "all"], "not a finite"),
    (["delta", "--variant", GOOD, "--epsilon-prime", "1"], "not yet supported by delta"),
    (["audit", "--variant", GOOD, "--implementation", "verify.audit.examples:lyu1"], "not yet supported by audit"),
])
def test_refusals_are_one_line(capsys, argv, words):
    code, out, err = _run(capsys, *argv)
    assert code == 2 and out == "" and words in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_output_and_cutoff_apply(capsys):
    code, out, _ = _run(capsys, "prob", "--variant", GOOD, "--queries", "0,1", "--output", "middle(1),below", "--cutoff", "2",
                        "--digits", "20", "--json")
    j = json.loads(out)
    want = outcome_density(adaptive_preset(GOOD, k=2), [0, 1], (middle(1), below()), 25)
    assert code == 0 and j["mechanism"]["budget"] == "6"
    with mpmath.workdps(25):
        assert abs(mpmath.mpf(j["density"]) / want - 1) < mpmath.mpf(10) ** -18
