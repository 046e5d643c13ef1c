"""Discrete noise on the command line: prob (every method), worst-case and the family table's discrete rows."""

from __future__ import annotations

import json

import mpmath
import pytest

from verify.cli.main import main


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_prob_methods_agree_for_discrete_laplace(capsys):
    """symbolic (exact expression at ε), mpmath (geometric series) and fast (float64) give one value."""
    values = {}
    for method in ("symbolic", "mpmath", "fast"):
        code, out, _ = _run(capsys, "prob", "--noise", "discrete-laplace", "--queries", "0,1", "--output", "2",
                            "--method", method, "--json")
        assert code == 0
        values[method] = mpmath.mpf(json.loads(out)["probability"])
    with mpmath.workdps(40):
        assert abs(values["symbolic"] - values["mpmath"]) < mpmath.mpf(10) ** -28
        assert abs(values["fast"] / values["mpmath"] - 1) < 1e-12


def test_prob_symbolic_prints_a_closed_form(capsys):
    code, out, _ = _run(capsys, "prob", "--noise", "discrete-laplace", "--queries", "0", "--output", "1", "--method", "symbolic")
    assert code == 0 and "exact: " in out and "exp(-1/3)" in out


def test_discrete_noise_needs_an_integer_threshold(capsys):
    code, out, err = _run(capsys, "prob", "--noise", "discrete-laplace", "--threshold", "1/2", "--queries", "0", "--output", "1")
    assert code == 2 and out == "" and err.count("\n") == 1 and "integer" in err


def test_worst_case_discrete_verdicts_and_fail_on(capsys):
    code, out, _ = _run(capsys, "worst-case", "--noise", "discrete-laplace", "--max-queries", "2", "--fail-on", "not_private", "--json")
    j = json.loads(out)
    assert code == 0 and j["verdict"] == "private" and j["upper_bound"] == "1"
    code, out, _ = _run(capsys, "worst-case", "--noise", "discrete-gaussian", "--max-queries", "2", "--fail-on", "not_private", "--json")
    j = json.loads(out)
    assert code == 1 and j["verdict"] == "not_private" and j["upper_bound"] is None
    assert mpmath.mpf(j["loss"]) > 1 and j["witness"]["digits"] == 50


@pytest.mark.slow
def test_family_shows_the_discrete_rows(capsys):
    code, out, _ = _run(capsys, "family", "--max-queries", "2", "--json")
    assert code == 0
    rows = {(r["preset"], r["compare"]): r["verdict"] for r in json.loads(out)["discrete_rows"]}
    assert rows[("sampcert-above-threshold", "ge")] == rows[("sampcert-above-threshold", "gt")] == "private"
    assert rows[("dgauss-above-threshold", "ge")] == "not_private"


def test_family_discrete_rows_follow_the_flags(capsys):
    code, out, _ = _run(capsys, "family", "--rows", "seed-m1", "--max-queries", "1", "--json")
    assert code == 0 and "discrete_rows" not in json.loads(out)  # --rows names the rows
    code, out, _ = _run(capsys, "family", "--rows", "seed-m1", "--max-queries", "1", "--no-discrete", "--json")
    assert code == 0 and "discrete_rows" not in json.loads(out)
    code, out, err = _run(capsys, "family", "--threshold", "1/2", "--max-queries", "1")
    assert code == 2 and out == "" and "--threshold 0.5" in err and "--no-discrete" in err
