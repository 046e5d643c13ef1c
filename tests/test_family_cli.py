"""prob and ratio with the SVT family flags (verify/cli/variant.py): values, JSON keys, one-line errors."""

from __future__ import annotations

import json

import pytest

from verify.cli.main import main


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_prob_family_json_has_outcomes_kind_and_variant(capsys):
    code, out, _ = _run(capsys, "prob", "--variant", "gap-svt", "--cutoff", "2", "--queries", "0,1,1/2",
                        "--outcomes", "BAA", "--released", "1/2,1", "--digits", "20", "--json")
    assert code == 0
    j = json.loads(out)
    assert j["outcomes"] == "BAA" and j["released"] == ["1/2", "1"] and j["kind"] == "density"
    assert j["mechanism"]["name"] == "gap-svt" and j["variant"].startswith("gap-svt:")
    assert "density" in j and "log_density" in j


def test_prob_seed_output_unchanged_and_equal_to_the_outcome_string(capsys):
    _, seed, _ = _run(capsys, "prob", "--queries", "0,1", "--output", "2", "--digits", "25", "--json")
    _, fam, _ = _run(capsys, "prob", "--queries", "0,1", "--outcomes", "BA", "--digits", "25", "--json")
    assert json.loads(seed)["probability"] == json.loads(fam)["probability"]


@pytest.mark.parametrize("argv, needle", [
    (["prob", "--variant", "lyu-1", "--cutoff", "2", "--queries", "0,1,1/2", "--outcomes", "AAB"], "continues after the 2nd A"),
    (["prob", "--variant", "lyu-1", "--cutoff", "two", "--queries", "0,1", "--outcomes", "BA"], "--cutoff"),
    (["prob", "--variant", "lyu-1", "--queries", "0,1", "--outcomes", "BX"], "--outcomes"),
    (["prob", "--variant", "gap-svt", "--queries", "0,1", "--outcomes", "BA"], "one value per A"),
    (["prob", "--variant", "lyu-1", "--queries", "0", "--outcomes", "A", "--release", "fresh"], "--release fresh"),
    (["ratio", "--variant", "gap-svt", "--queries", "0", "--neighbour-queries", "1", "--outcomes", "all"], "releases values"),
    (["ratio", "--variant", "lyu-6", "--queries", ",".join(["0"] * 21), "--neighbour-queries", ",".join(["1"] * 21),
      "--outcomes", "all"], "2,097,152 outputs at 30 digits is above the limit of 1,024"),
])
def test_bad_values_are_one_line_exit_2(capsys, argv, needle):
    code, _, err = _run(capsys, *argv)
    assert code == 2
    assert needle in err and err.strip().count("\n") == 0


def test_ratio_outcomes_all_enumerates_every_output(capsys):
    code, out, _ = _run(capsys, "ratio", "--variant", "lyu-1", "--cutoff", "2", "--queries", "0,0,0",
                        "--neighbour-queries", "1,1,1", "--outcomes", "all", "--digits", "15", "--json")
    assert code == 0
    rows = json.loads(out)["outputs"]
    assert [r["outcomes"] for r in rows] == ["AA", "ABA", "ABB", "BAA", "BAB", "BBA", "BBB"]
    assert all(r["kind"] == "probability" for r in rows)
