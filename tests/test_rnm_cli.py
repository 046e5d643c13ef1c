"""Report Noisy Max presets on every command (`--variant`): each flag applied, or refused in one line."""

import json

import mpmath
import pytest

from verify.cli.main import main
from verify.selection.presets import selection_preset
from verify.selection.probability import mp_index_probabilities

V1A = "statdp-noisy-max-v1a"


def _run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.mark.slow
def test_prob_every_index_matches_the_library(capsys):
    code, out, _ = _run(capsys, "prob", "--variant", V1A, "--queries", "0,1,2", "--digits", "20", "--json")
    assert code == 0
    want = mp_index_probabilities(selection_preset(V1A), [0, 1, 2], 25)
    with mpmath.workdps(25):
        got = [mpmath.mpf(r["value"]) for r in json.loads(out)["outcomes"]]
        assert all(abs(a - b) < mpmath.mpf(10) ** -18 for a, b in zip(got, want))


def test_prob_fast_one_index_and_its_digits(capsys):
    code, out, _ = _run(capsys, "prob", "--variant", "dpsniper-rnm2", "--queries", "0,1,2", "--method", "fast", "--output", "s_3", "--json")
    j = json.loads(out)
    assert code == 0 and len(j["outcomes"]) == 1 and j["outcomes"][0]["outcome"]["index"] == 3
    exact = mp_index_probabilities(selection_preset("dpsniper-rnm2"), [0, 1, 2], 20)[2]
    assert abs(float(j["outcomes"][0]["value"]) / float(exact) - 1) < 1e-11


def test_prob_fast_recomputes_a_row_float64_loses(capsys):
    """Exponential noise, scores 1000 apart: float64 loses e^-1000 (log 0) and its estimate is not finite; the
    command recomputes the row (not Pr = 0, nor a probability above 1, shown with 17 digits)."""
    code, out, _ = _run(capsys, "prob", "--variant", "dpsniper-rnm2", "--queries", "0,1000,2000", "--method", "fast", "--json")
    rows = json.loads(out)["outcomes"]
    exact = mp_index_probabilities(selection_preset("dpsniper-rnm2"), [0, 1000, 2000], 20)
    with mpmath.workdps(20):
        for r, p in zip(rows, exact):
            assert abs(mpmath.mpf(r["value"]) / p - 1) < mpmath.mpf(10) ** -15 and r["log"] != "-inf"
    assert code == 0 and mpmath.mpf(rows[2]["value"]) <= 1


def test_prob_value_density_and_gap_need_released(capsys):
    code, out, _ = _run(capsys, "prob", "--variant", "dpsniper-rnm3", "--queries", "0,0", "--released", "-5", "--json")
    assert code == 0 and json.loads(out)["outcomes"][0]["kind"] == "density"
    assert _run(capsys, "prob", "--variant", "dpsniper-rnm3", "--queries", "0,0")[0] == 2


def test_ratio_value_below_every_score_is_k_delta_over_b(capsys):
    code, out, _ = _run(capsys, "ratio", "--variant", "dpsniper-rnm3", "--queries", "0,0,0", "--neighbour-queries", "1,1,1",
                        "--released", "-9", "--json", "--fail-on", "violation")
    j = json.loads(out)
    assert code == 1 and not j["all_within_bounds"]  # 3·Δ/b = 3/2 > ε = 1
    assert abs(abs(mpmath.mpf(j["max_abs_log_ratio"])) - mpmath.mpf(3) / 2) < mpmath.mpf(10) ** -25


@pytest.mark.slow
def test_ratio_index_corner_within_the_bound(capsys):
    code, out, _ = _run(capsys, "ratio", "--variant", V1A, "--queries", "0,1,1", "--neighbour-queries", "-1,2,2", "--json")
    j = json.loads(out)
    assert code == 0 and j["all_within_bounds"] and len(j["outputs"]) == 3
    assert 0 < mpmath.mpf(j["max_abs_log_ratio"]) < 1


@pytest.mark.slow
def test_delta_pair_is_the_exact_sum_both_directions(capsys):
    code, out, _ = _run(capsys, "delta", "--variant", V1A, "--epsilon-prime", "1/2", "--queries", "0,1,1",
                        "--neighbour-queries", "-1,2,2", "--json")
    j = json.loads(out)
    p = mp_index_probabilities(selection_preset(V1A), [0, 1, 1], 30)
    pn = mp_index_probabilities(selection_preset(V1A), [-1, 2, 2], 30)
    with mpmath.workdps(30):
        j = json.loads(out)
        e = mpmath.exp(mpmath.mpf(1) / 2)
        fwd = sum(max(0, a - e * b) for a, b in zip(p, pn))
        bwd = sum(max(0, b - e * a) for a, b in zip(p, pn))
        assert abs(mpmath.mpf(j["delta"]) - max(fwd, bwd)) < mpmath.mpf(10) ** -18
        assert abs(mpmath.mpf(j["delta_backward"]) - bwd) < mpmath.mpf(10) ** -18


@pytest.mark.slow
def test_delta_inverse_epsilon_gives_back_delta(capsys):
    code, out, _ = _run(capsys, "delta", "--variant", V1A, "--delta", "1/100", "--queries", "0,1,1",
                        "--neighbour-queries", "-1,2,2", "--json")
    j = json.loads(out)
    _, out2, _ = _run(capsys, "delta", "--variant", V1A, "--epsilon-prime", j["epsilon_prime"][:18], "--queries", "0,1,1",
                      "--neighbour-queries", "-1,2,2", "--json")
    assert abs(float(json.loads(out2)["delta"]) - 0.01) < 1e-12


@pytest.mark.parametrize("argv", [
    ("prob", "--variant", V1A, "--queries", "0,1", "--threshold", "1"),
    ("prob", "--variant", V1A, "--queries", "0,1", "--cutoff", "2"),
    ("prob", "--variant", V1A, "--queries", "0,1", "--method", "symbolic"),
    ("prob", "--variant", V1A, "--queries", "0,1", "--noise", "exponential"),
    ("prob", "--variant", V1A, "--queries", "0,1", "--released", "1"),
    ("prob", "--variant", V1A, "--queries", "0,1", "--output", "3"),
    ("prob", "--variant", "checkdp-badnoisymax", "--queries", "0,1", "--released", "0", "--method", "fast", "--output", "1"),
    ("ratio", "--variant", V1A, "--queries", "0,1", "--neighbour-queries", "0,3"),
    ("ratio", "--variant", V1A, "--queries", "0,1", "--neighbour-queries", "0,1", "--query-scale", "2"),
    ("delta", "--variant", V1A, "--epsilon-prime", "1", "--plot", "x.png"),
    ("delta", "--variant", "dpsniper-rnm3", "--epsilon-prime", "1"),
    ("delta", "--variant", V1A, "--epsilon-prime", "1", "--threshold", "0"),
    ("worst-case", "--variant", V1A, "--progress", "always"),
    ("worst-case", "--variant", V1A, "--release", "gap"),
    ("audit", "--variant", V1A, "--implementation", "verify.audit.examples:lyu1", "--cutoff", "2"),
    ("audit", "--variant", "dpsniper-rnm3", "--implementation", "verify.audit.examples:lyu1"),
    ("family", "--rows", "dpsniper-rnm3:2"),
    ("family", "--rows", "dpsniper-rnm3", "--threshold", "1"),
    ("family", "--rows", "dpsniper-rnm3", "--workers", "2"),
    ("family", "--rows", "dpsniper-rnm3,lyu-1"),
    ("family", "--rows", "dpsniper-rnm3", "--max-queries", "12"),
])
def test_flags_that_do_not_apply_are_refused_in_one_line(capsys, argv):
    code, out, err = _run(capsys, *argv)
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "Traceback" not in err


@pytest.mark.slow
def test_family_rows_judge_rnm_presets(capsys):
    code, out, _ = _run(capsys, "family", "--rows", "dpsniper-rnm3:1,statdp-noisy-max-v1a:1", "--max-queries", "3", "--json",
                        "--fail-on", "not_private")
    rows = {r["mechanism"]["name"]: r for r in json.loads(out)["selection_rows"]}
    assert code == 1
    assert rows["dpsniper-rnm3"]["verdict"] == "not_private" and rows["dpsniper-rnm3"]["unbounded"]
    assert rows[V1A]["verdict"] == "private" and rows[V1A]["upper_bound"]["value"] == "0.1"


@pytest.mark.slow
def test_family_monotone_is_applied(capsys):
    _, out, _ = _run(capsys, "family", "--rows", V1A, "--max-queries", "2", "--monotone", "--json")
    r = json.loads(out)["selection_rows"][0]
    assert r["mechanism"]["monotone"] and r["upper_bound"]["value"] == "0.05"  # Δ/b with b = 2Δ/ε, ε = 1/10


@pytest.mark.parametrize("spec,code", [("verify.selection.sampler:preset_run", 0), ("verify.selection.sampler:preset_run?scale=1", 1)])
def test_audit_command_on_rnm(capsys, spec, code):
    got, out, _ = _run(capsys, "audit", "--variant", V1A, "--implementation", spec, "--samples", "3000", "--random-pairs", "1",
                       "--no-worst-pair", "--workers", "1", "--json")
    assert got == code and json.loads(out)["verdict"] == ("matches" if code == 0 else "deviates")
