"""``svt-verify worst-case``: one JSON shape and one printer for every variant (`verify.cli.worst_case_view`).

The seed's AboveThreshold (its own view: s_k and ⊤^k per k), a continuous family preset and a discrete preset
give the same top-level JSON keys, and their text reports the same kinds of lines."""

from __future__ import annotations

import json

from verify.cli.main import main
from verify.cli.worst_case_view import COMMON_KEYS

VARIANTS = {
    "seed": [],
    "family": ["--variant", "lyu-1"],
    "discrete": ["--variant", "sampcert-above-threshold"],
}


def _run(capsys, *argv: str) -> str:
    assert main(["worst-case", "--max-queries", "2", *argv]) == 0
    return capsys.readouterr().out




def test_same_json_keys_for_seed_family_and_discrete_presets(capsys):
    keys = {}
    for name, argv in VARIANTS.items():
        keys[name] = list(json.loads(_run(capsys, *argv, "--json")))
    assert keys["seed"] == keys["family"] == keys["discrete"] == list(COMMON_KEYS)


def test_one_printer_for_every_variant(capsys):
    for name, argv in VARIANTS.items():
        lines = _run(capsys, *argv).splitlines()
        heads = [ln.split(":")[0] for ln in lines[1:]]
        for head in ("verdict", "loss found", "  witness", "proven upper bound", "unbounded", "tightness"):
            assert head in heads, (name, lines)
        by_k = [ln for ln in lines if ln.startswith("loss by k")]
        assert len(by_k) == 1, (name, lines)
        # the seed's view shows its confirmed loss for s_k and ⊤^k, the others the float64 search's values
        assert by_k[0].startswith("loss by k (s_k, ⊤^k): " if name == "seed" else "loss by k (float64 search): "), by_k
