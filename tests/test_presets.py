"""One preset registry: the discrete presets are named like every other (`verify.family.presets.PRESETS`).

`preset(NAME)`, the `--variant` choices of every command and the `family --rows` names all read the one
registry; every mechanism flag overrides a discrete preset or is refused, exactly as for the others."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from verify.cli.main import main
from verify.comparison import Comparison
from verify.errors import InputError
from verify.family import NAMES, PRESETS, preset
from verify.family.presets import DISCRETE_NAMES

DISCRETE = ("sampcert-above-threshold", "dlap-seed-m1", "dlap-lyu-1", "dgauss-above-threshold")


def _run(capsys, *argv: str) -> tuple[int, str, str]:
    try:
        code = main(list(argv))
    except SystemExit as exc:  # argparse refusals
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def test_the_discrete_presets_are_in_the_one_registry():
    assert DISCRETE_NAMES == DISCRETE
    for name in DISCRETE:
        assert name in NAMES and name in PRESETS
        m = preset(name)
        assert m.is_discrete and m.name == name and m.source
    assert not any(preset(n).is_discrete for n in NAMES if n not in DISCRETE)


def test_preset_builds_sampcert_with_its_options():
    m = preset("sampcert-above-threshold", epsilon=Fraction(1, 2), threshold=3, compare="gt")
    assert m.epsilon == Fraction(1, 2) and m.threshold == 3 and m.compare is Comparison.GT
    assert m.threshold_noise.scale == 4 and m.query_noise.scale == 8  # DLap(2Δ/ε), DLap(4Δ/ε)
    assert preset("dlap-lyu-1", cutoff=3).query_noise.scale == 12  # DLap(4cΔ/ε): the scales grow with c
    with pytest.raises(InputError, match="not one of"):
        preset("sampcert")


@pytest.mark.parametrize("command", [
    ("prob", "--queries", "0,1", "--outcomes", "BA"),
    ("ratio", "--queries", "0,1", "--neighbour-queries", "1,0", "--outcomes", "BA"),
])
@pytest.mark.parametrize("name", DISCRETE)
def test_every_discrete_preset_is_a_variant_choice(capsys, command, name):
    code, out, err = _run(capsys, *command, "--variant", name, "--json")
    assert code == 0, err
    assert name in json.dumps(json.loads(out))


def test_flags_override_a_discrete_preset_or_are_refused(capsys):
    """--compare overrides (named in the description), --threshold-scale rescales, --release is refused in
    one line (a discrete variant releases nothing), --release-noise without a fresh release is refused."""
    code, out, _ = _run(capsys, "prob", "--variant", "sampcert-above-threshold", "--compare", "gt", "--queries", "0",
                        "--outcomes", "A", "--json")
    j = json.loads(out)
    assert code == 0 and "modified by --compare" in json.dumps(j)
    code_ge, out_ge, _ = _run(capsys, "prob", "--variant", "sampcert-above-threshold", "--queries", "0", "--outcomes", "A", "--json")
    assert code_ge == 0 and json.loads(out_ge)["probability"] != j["probability"]  # the tie's mass moved
    code, out, _ = _run(capsys, "prob", "--variant", "dlap-seed-m1", "--threshold-scale", "6", "--queries", "0",
                        "--outcomes", "A", "--json")
    assert code == 0 and "DLap(6Δ/ε)" in out
    for extra in (("--release", "query"), ("--release-noise", "laplace")):
        code, out, err = _run(capsys, "prob", "--variant", "sampcert-above-threshold", *extra, "--queries", "0", "--outcomes", "A")
        assert code == 2 and out == "" and err.count("\n") == 1, (extra, err)


@pytest.mark.slow
def test_family_rows_name_a_discrete_preset(capsys):
    """DONE WHEN of issue 29: `family --rows sampcert-above-threshold:1,lyu-1:1` prints both rows (here at 2 queries)."""
    code, out, err = _run(capsys, "family", "--rows", "sampcert-above-threshold:1,lyu-1:1", "--max-queries", "2",
                          "--workers", "1", "--json")
    assert code == 0, err
    rows = json.loads(out)["rows"]
    assert [(r["preset"], r["cutoff"]) for r in rows] == [("sampcert-above-threshold", 1), ("lyu-1", 1)]
    disc, cont = rows
    assert disc["verdict"] == cont["verdict"] == "private" and disc["upper_bound"] == cont["upper_bound"] == "0.1"
    assert set(cont) <= set(disc) and disc["compare"] == "ge" and disc["search_domain"].startswith("structured")
    assert "--variant sampcert-above-threshold" in disc["reproduce"]
    code, out, _ = _run(capsys, "family", "--rows", "sampcert-above-threshold:1,lyu-1:1", "--max-queries", "1", "--workers", "1")
    assert code == 0 and out.count("sampcert-above-threshold") >= 2 and "lyu-1" in out


def test_family_rows_refuse_a_discrete_row_at_a_non_integer_threshold(capsys):
    code, out, err = _run(capsys, "family", "--rows", "dlap-seed-m1", "--threshold", "1/2", "--max-queries", "1")
    assert code == 2 and out == "" and err.count("\n") == 1 and "integer" in err
