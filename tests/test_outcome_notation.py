"""One notation for outcomes: the outcome string (e.g. ``BBA``) is the primary spelling in every report, the seed's
s_i / ⊤^k an alias beside it; and one JSON shape for ``prob`` whatever the variant (issue 29, item 4)."""

from __future__ import annotations

import json

from verify.cli.main import main
from verify.mechanism import NO_HALT, output_name


def _run(capsys, *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().out


def test_output_name_puts_the_string_first():
    assert output_name(3, 3) == "BBA (s_3)" and output_name(1, 4) == "A (s_1)" and output_name(NO_HALT, 2) == "BB (⊤^k)"


def test_prob_has_one_json_shape_for_the_seed_and_the_family(capsys):
    """The seed's AboveThreshold (no family flag) and a family member give the same keys; both name the outcome by its
    string, and the seed's index is only the alias ``output`` (null where the run does not halt at its first A)."""
    _, seed = _run(capsys, "prob", "--queries", "0,1/2", "--output", "2", "--json")
    _, fam = _run(capsys, "prob", "--variant", "lyu-1", "--cutoff", "2", "--queries", "0,1/2", "--outcomes", "BA", "--json")
    _, disc = _run(capsys, "prob", "--variant", "sampcert-above-threshold", "--queries", "0,1", "--output", "none", "--json")
    seed, fam, disc = json.loads(seed), json.loads(fam), json.loads(disc)
    assert set(seed) == set(fam) == set(disc)
    assert seed["outcomes"] == fam["outcomes"] == "BA" and disc["outcomes"] == "BB"
    assert seed["output"] == 2 and fam["output"] is None and disc["output"] == "none"
    assert set(seed["mechanism"]) == set(fam["mechanism"])


def test_text_reports_name_the_outcome_string_first(capsys):
    _, out = _run(capsys, "prob", "--queries", "0,1/2", "--output", "2")
    assert "; outcome BA (s_2); " in out
    _, out = _run(capsys, "prob", "--queries", "0,1/2", "--output", "none")
    assert "; outcome BB (⊤^k); " in out
    _, out = _run(capsys, "worst-case", "--max-queries", "2")
    assert "output BA (s_2)" in out or "output A (s_1)" in out or "output BB (⊤^k)" in out
    assert "output s_" not in out


def test_ratio_and_certify_text_name_the_outcome_string_first(capsys):
    """``ratio`` labels its rows ``A (s_1)``, ``BA (s_2)``, ``BB (⊤^k)``; the claim ``certify`` prints names the
    outcome B^{i-1}A with the seed's s_i as its alias."""
    from verify.certify.conditional import CLAIM

    _, out = _run(capsys, "ratio", "--queries", "0,1", "--neighbour-queries", "1,0")
    rows = [ln.split()[0:2] for ln in out.splitlines()[4:7]]
    assert rows == [["A", "(s_1)"], ["BA", "(s_2)"], ["BB", "(⊤^k)"]], out
    assert "Pr[A(D)=B^{i-1}A (s_i) | X_<i=x]" in CLAIM
