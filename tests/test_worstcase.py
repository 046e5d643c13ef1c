"""Worst-case search for the seed's mechanisms (verify.worstcase, served by verify.family.worstcase): verdicts, witnesses, bounds, CLI.

Every witness is re-checked here with `verify.ratio.privacy_ratio` (mpmath, 50
digits) or through the `svt-verify ratio` command line.
"""

from __future__ import annotations

import json
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from verify.cli.main import main
from verify.family.structured import Layout, family_log_probability
from verify.mechanism import AboveThreshold
from verify.probabilities import mp_distribution
from verify.ratio import privacy_ratio
from verify.worstcase import proven_upper_bound, worst_case

FAST = dict(max_queries=4, starts=2)
CONTROLS = {
    "no threshold noise": AboveThreshold.with_noise("laplace", 1, threshold_multiplier=0),
    "no query noise": AboveThreshold.with_noise("laplace", 1, query_multiplier=0),
    "Lap(1Δ/ε)": AboveThreshold.with_noise("laplace", 1, threshold_multiplier=1, query_multiplier=1),
    "Exp(2Δ/ε)": AboveThreshold.with_noise("exponential", 1, threshold_multiplier=2, query_multiplier=2),
}


@pytest.fixture(scope="module")
def control_results():
    return {name: worst_case(m, push_study=False, **FAST) for name, m in CONTROLS.items()}


@pytest.fixture(scope="module")
def seed_results():
    return {"one": worst_case(AboveThreshold.mechanism_one(1), **FAST), "two": worst_case(AboveThreshold.mechanism_two(1), **FAST)}


@pytest.mark.parametrize("name", list(CONTROLS))
def test_negative_controls_not_private_with_confirmed_witness(control_results, name):
    r = control_results[name]
    mech = CONTROLS[name]
    assert r.verdict == "not_private"
    w = r.witness
    rep = privacy_ratio(mech, w.queries, w.neighbour_queries, outputs=[w.output], digits=50).outputs[0]
    with mpmath.workdps(60):
        assert abs(rep.log_ratio) > 1 + mpmath.mpf(10) ** -40
        # the seed's own mpmath path re-checks the family oracle's witness to 45 digits
        if mpmath.isinf(w.log_ratio):
            assert mpmath.isinf(rep.log_ratio) and abs(rep.log_ratio) == abs(w.log_ratio)
        else:
            assert abs(abs(rep.log_ratio) - w.loss) < mpmath.mpf(10) ** -45


def test_no_threshold_noise_grows_linearly_with_k(control_results):
    """Seed example: t = 0, q(D) = Δ, q(D') = 0, ⊤^n⊥: the loss grows like nε/3."""
    r = control_results["no threshold noise"]
    assert r.unbounded and "product of per-query factors" in r.unbounded_evidence
    losses = [float(row.halt.loss) for row in r.by_k]
    assert all(b > a for a, b in zip(losses, losses[1:]))
    assert losses[-1] == pytest.approx(len(losses) / 3, rel=1e-6)
    # the seed's own family, exactly: Pr[A(D)=⊤^n⊥] / Pr[A(D')=⊤^n⊥] for n = 5
    mech = CONTROLS["no threshold noise"]
    rep = privacy_ratio(mech, [1] * 6, [0] * 6, outputs=[6], digits=40).outputs[0]
    with mpmath.workdps(50):
        seed_fixed = (mpmath.mpf(1) / 2) ** 5 * mpmath.exp(-mpmath.mpf(5) / 3) * (1 - mpmath.exp(-mpmath.mpf(1) / 3) / 2)
        assert abs(rep.probability / seed_fixed - 1) < mpmath.mpf(10) ** -35
        assert abs(rep.neighbour_probability / (mpmath.mpf(1) / 2) ** 6 - 1) < mpmath.mpf(10) ** -35


def test_no_query_noise_has_probability_zero_on_one_side(control_results):
    r = control_results["no query noise"]
    assert r.unbounded and mpmath.isinf(r.loss)
    assert 0 in (r.witness.probability, r.witness.neighbour_probability)
    assert "exactly 0" in r.unbounded_evidence


def test_scale_too_small_reaches_its_proof_bound(control_results):
    lap = control_results["Lap(1Δ/ε)"]
    assert lap.upper_bound.value == 3 and not lap.unbounded
    assert 2.99 < float(lap.loss) <= 3 + 1e-20
    assert float(control_results["Exp(2Δ/ε)"].loss) == pytest.approx(1.5, abs=1e-12)


def test_seed_mechanisms_never_not_private(seed_results):
    one, two = seed_results["one"], seed_results["two"]
    assert one.verdict == "private" and one.upper_bound.value == 1
    assert float(one.loss) <= 1 + 1e-20
    assert one.tightness == "approached"
    assert two.verdict != "not_private"
    # the seed's pointwise comparison fails for exponential noise; the bound comes from the certificate
    assert two.verdict == "private" and two.upper_bound.value == 1 and "verify.certify" in two.upper_bound.source
    assert two.tightness == "attained" and "45 digits" in two.tightness_evidence
    # the attaining witness at moderate queries is reported (the seed's own: q(D) = (0, 0), q(D') = (1, -1), s_2)
    assert (two.witness.queries, two.witness.neighbour_queries, two.witness.output) == ((0, 0), (1, -1), 2)
    with mpmath.workdps(60):
        assert abs(two.loss - 1) < mpmath.mpf(10) ** -45


def test_mechanism_one_gap_shrinks_with_push(seed_results):
    """The push table along the best layout (k = 4 or 5: B's at t + L, the halting query at t - L): the
    confirmed gap ε - loss falls with L and is below 1e-12 at the largest push, never negative."""
    one = seed_results["one"]
    gaps = [1 - float(v) for _, _, v in one.push]
    assert len(gaps) == 8 and {k for k, _, _ in one.push} <= {4, 5}
    assert gaps[0] > 1e-3 and gaps[-1] < 1e-12 and all(g >= 0 for g in gaps)
    assert all(b <= a for a, b in zip(gaps, gaps[1:]))


def test_witness_reproduces_through_ratio_cli(control_results, capsys):
    w = control_results["Exp(2Δ/ε)"].witness
    argv = ["ratio", "--noise", "exponential", "--threshold-scale", "2", "--query-scale", "2",
            "--queries", ",".join(str(x) for x in w.queries), "--neighbour-queries", ",".join(str(x) for x in w.neighbour_queries),
            "--output", str(w.output), "--digits", "50", "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["outputs"][0]["log_ratio"] == w.to_json()["log_ratio"]


@pytest.mark.parametrize("zf, xf", [("laplace", "laplace"), ("exponential", "exponential"), ("laplace", "exponential"),
                                    ("exponential", "laplace"), ("laplace", "none")])
def test_family_quadrature_matches_mpmath(zf, xf):
    """The search objective (`verify.family.structured.family_log_probability`) on the seed's layouts
    B^n A (s_{n+1}) and B^n (⊤^n) against the mpmath closed form at 30 digits."""
    mech = AboveThreshold.with_noise(zf, 1, threshold_family=zf, query_family=xf, query_multiplier=0 if xf == "none" else 3)
    shape = mech
    for n, a, d in [(1, 0.5, -2.0), (4, 10.0, -7.0), (12, -3.0, 1.5), (29, 3.0, 1.0)]:
        exact = mp_distribution(mech, [Fraction(a)] * n + [Fraction(d)], 30)[n]
        got = family_log_probability(shape, Layout(n, 1), a, d, 0.0)[0]
        if exact == 0:
            assert got == -np.inf
        else:
            assert got == pytest.approx(float(mpmath.log(exact)), abs=1e-10)
        top = mp_distribution(mech, [Fraction(a)] * n, 30)[n]
        assert family_log_probability(shape, Layout(n, 0), a, 0.0, 0.0)[0] == pytest.approx(float(mpmath.log(top)), abs=1e-10)


def test_proven_bounds():
    assert proven_upper_bound(AboveThreshold.with_noise("laplace", 2, threshold_multiplier=2, query_multiplier=4)).value == 2
    assert proven_upper_bound(AboveThreshold.with_noise("laplace", 1, threshold_multiplier=0)) is None
    # Laplace threshold, exponential queries: the change of variables with the survival function's constant 1/b_X
    mixed = proven_upper_bound(AboveThreshold.with_noise("laplace", 1, query_family="exponential"))
    assert mixed.value == 1 and "case 1" in mixed.source
    # Mechanism Two: the exponential density is not log-Lipschitz in the threshold; the bound is the certificate
    assert "verify.certify" in proven_upper_bound(AboveThreshold.mechanism_two(1)).source
    assert proven_upper_bound(AboveThreshold.with_noise("exponential", 1, threshold_multiplier=2, query_multiplier=2)) is None


@pytest.mark.slow
def test_cli_json_and_plot(tmp_path, capsys):
    png = tmp_path / "w.png"
    assert main(["worst-case", "--threshold-scale", "0", "--max-queries", "3", "--json", "--plot", str(png)]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("verdict", "loss", "loss_over_epsilon", "upper_bound", "unbounded", "witness"):
        assert key in out
    assert set(out["witness"]) >= {"queries", "neighbour_queries", "output", "log_ratio"}
    assert out["verdict"] == "not_private" and out["unbounded"] is True and out["upper_bound"] is None
    assert png.stat().st_size > 10_000


@pytest.mark.parametrize("argv, needle", [
    (["worst-case", "--max-queries", "0"], "--max-queries"),
    (["worst-case", "--max-queries", "x"], "--max-queries"),
    (["worst-case", "--query-scale", "-1"], "--query-scale"),
])
def test_cli_bad_input(capsys, argv, needle):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1


@pytest.mark.slow  # about 10 s CPU (every seed mechanism to 4 queries); the only test of the report's seed table
def test_seed_check_rows():
    """The table behind `svt-verify report`: seed mechanisms never not_private, controls always."""
    from verify.seed_check import check_seed_mechanisms, render_table

    rows = check_seed_mechanisms(max_queries=4)
    by = {r.name: r for r in rows}
    assert by["Mechanism One"].verdict == "private" and by["Mechanism One"].sweep_violations == 0
    assert by["Mechanism Two"].verdict != "not_private" and by["Mechanism Two"].sweep_violations == 0
    for r in rows:
        if r.role == "negative control":
            assert r.verdict == "not_private" and r.loss_over_epsilon > 1
    text = render_table(rows)
    assert "Mechanism Two" in text and "not_private" in text
