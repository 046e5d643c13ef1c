"""Every mechanism flag against every preset (and no preset): applied and visible, or refused in one line.

The rule of the command line: a flag given is either applied, and the printed
description of the mechanism shows it, or refused with exit status 2 and one
line on stderr that names it.  `prob` is run end to end for every combination
(k = 1, outcome ``B``, which every variant can produce without released
values); the other commands' parsers are walked to the mechanism they would
run (the searches themselves take seconds to minutes).
"""

from __future__ import annotations

import functools
import json
import re

import pytest

from verify.cli import variant as variant_cli
from verify.cli.main import build_parser, main
from verify.errors import InputError
from verify.family.presets import NAMES

#: (flags, pattern the description must contain once they are applied).
FLAGS: list[tuple[tuple[str, ...], str]] = [
    (("--noise", "exponential"), r"Exp\("),
    (("--noise", "gaussian"), r"N\("),
    (("--noise", "laplace"), r"Lap\("),
    (("--threshold-noise", "exponential"), r"threshold Exp\("),
    (("--query-noise", "exponential"), r"queries Exp\("),
    (("--query-noise", "gaussian"), r"queries N\("),
    (("--threshold-noise", "none"), r"threshold none"),
    (("--query-noise", "none"), r"queries none"),
    (("--threshold-scale", "5"), r"threshold \w+\(5Δ/ε\)"),
    (("--query-scale", "5"), r"queries \w+\(5Δ/ε\)"),
    (("--threshold-absolute-scale", "7"), r"threshold \w+\(7\)"),
    (("--query-absolute-scale", "7"), r"queries \w+\(7\)"),
    (("--threshold-scale", "0"), r"threshold none"),
    (("--epsilon", "2"), r"ε=2\b"),
    (("--sensitivity", "2"), r"Δ=2\b"),
    (("--threshold", "1/3"), r"t=1/3\b"),
    (("--cutoff", "2"), r"cutoff 2\b"),
    (("--cutoff", "unlimited"), r"cutoff unlimited"),
    (("--threshold-policy", "resample"), r"threshold resample"),
    (("--release", "query"), r"release query"),
    (("--release", "gap"), r"release gap"),
    (("--release", "none"), r"release none"),
    (("--release", "fresh", "--release-noise", "laplace", "--release-scale", "5"), r"release fresh Lap\(5Δ/ε\)"),
    (("--release", "fresh"), r"release fresh"),
    (("--release-noise", "exponential"), r"release fresh Exp\("),
    (("--release-scale", "5"), r"release fresh \w+\(5Δ/ε\)"),
    (("--release-absolute-scale", "7"), r"release fresh \w+\(7\)"),
]
PRESETS: list[str | None] = [None, *NAMES]


def _variant(name: str | None) -> list[str]:
    return [] if name is None else ["--variant", name]


def _ids(v) -> str:
    return " ".join(v[0]) if isinstance(v, tuple) and isinstance(v[0], tuple) else str(v)


def _stems(flag_args: tuple[str, ...]) -> set[str]:
    """Words any refusal of these flags names: the flags themselves or their subject."""
    words = {a for a in flag_args if a.startswith("--")}
    return words | {w.lstrip("-").split("-")[0] for w in words}


def _prob(capsys, argv: list[str]) -> tuple[int, str, str]:
    code = main(["prob", "--queries", "0", "--outcomes", "B", "--digits", "10", "--json", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def _description(j: dict) -> str:
    return j.get("variant") or j["mechanism"]["description"]


@pytest.mark.slow
@pytest.mark.parametrize("preset", PRESETS, ids=str)
def test_every_flag_on_prob_is_shown_or_refused(capsys, preset):
    code, out, err = _prob(capsys, _variant(preset))
    assert code == 0, err
    base = _description(json.loads(out))
    applied = refused = 0
    for flag_args, pattern in FLAGS:
        code, out, err = _prob(capsys, [*_variant(preset), *flag_args])
        if code == 0:
            desc = _description(json.loads(out))
            assert re.search(pattern, desc), (preset, flag_args, desc)
            if preset is not None and not re.search(pattern, base):  # a real change to a preset is named
                assert desc.startswith(f"{preset}, modified by ") or flag_args[0] in ("--epsilon", "--sensitivity", "--threshold", "--cutoff"), desc
            applied += 1
        else:
            assert code == 2, (preset, flag_args, code, err)
            assert err.count("\n") == 1 and err.startswith("svt-verify prob: error: "), (preset, flag_args, err)
            assert any(s in err for s in _stems(flag_args)), (preset, flag_args, err)
            refused += 1
    assert applied >= len(FLAGS) // 2, (preset, applied, refused)


def test_noise_laplace_on_the_seed_is_its_default(capsys):
    """No preset, --noise laplace: the seed's Mechanism One itself (the one case the walk lets through unchanged)."""
    assert _prob(capsys, ["--noise", "laplace"])[1] == _prob(capsys, [])[1]


@pytest.mark.parametrize("argv, needle", [
    (["--variant", "lyu-1", "--query-scale", "5"], "queries Lap(5Δ/ε)"),
    (["--variant", "lyu-1", "--query-absolute-scale", "3"], "queries Lap(3)"),
    (["--variant", "gaussian-svt", "--threshold-scale", "1"], "threshold N(1Δ/ε)"),
    (["--variant", "seed-m1", "--threshold-absolute-scale", "3"], "threshold Lap(3)"),
    (["--cutoff", "unlimited"], "cutoff unlimited"),
    (["--variant", "lyu-6", "--cutoff", "unlimited"], "cutoff unlimited"),
    (["--noise", "gaussian"], "threshold N(3Δ/ε), queries N(3Δ/ε)"),
])
def test_overrides_that_were_silently_dropped(capsys, argv, needle):
    """Each of these computed the preset's (or the seed's) defaults and said nothing; now the description shows it."""
    code, out, err = _prob(capsys, argv)
    assert code == 0, err
    desc = _description(json.loads(out))
    assert needle in desc
    if "--variant" in argv and argv[-2] != "--cutoff":
        assert ", modified by " in desc


def test_cutoff_unlimited_changes_the_number(capsys):
    """cutoff 1 (the seed) halts at the first A; unlimited answers every query: AA is an output of the second only."""
    code, _, err = _prob(capsys, ["--cutoff", "1"])  # sanity: the flags run
    assert code == 0, err
    code = main(["prob", "--queries", "0,0", "--outcomes", "AA", "--cutoff", "unlimited", "--json"])
    out, err = capsys.readouterr()
    assert code == 0 and float(json.loads(out)["probability"]) > 0, err
    assert main(["prob", "--queries", "0,0", "--outcomes", "AA"]) == 2
    assert "continues after the 1st A" in capsys.readouterr().err


# --- the other commands' parsers -----------------------------------------------------------------


@functools.cache
def _parser():
    return build_parser()


def _build(command: str, argv: list[str]):
    """The mechanism ``command`` would run for ``argv``, as the command builds it (InputError if refused)."""
    parser = _parser()
    base = {"worst-case": [], "delta": ["--epsilon-prime", "1"], "ratio": ["--queries", "0", "--neighbour-queries", "1"],
            "sweep": [], "certify": []}[command]
    args = parser.parse_args([command, *base, *argv])
    if command in ("sweep", "certify"):
        return variant_cli.seed_mechanism(args, command)
    if command == "worst-case":
        from verify.cli import limits

        mech = variant_cli.variant_from_args(args)
        limits.check_worst_case_scales(mech)
        return mech
    return variant_cli.variant_from_args(args)


@pytest.mark.parametrize("command", ["worst-case", "ratio", "delta", "sweep", "certify"])
def test_every_flag_on_every_command_parser(command):
    applied = 0
    for preset in PRESETS:
        for flag_args, pattern in FLAGS:
            if command == "certify" and flag_args[0] == "--epsilon":
                continue  # certify has no single ε (refused in run(); test_certify_refuses_epsilon)
            try:
                mech = _build(command, [*_variant(preset), *flag_args])
            except InputError as exc:
                msg = str(exc)
                assert "\n" not in msg and any(s in msg for s in _stems(flag_args) | {"AboveThreshold"}), (command, preset, flag_args, msg)
                continue
            desc = mech.describe()
            if command in ("sweep", "certify"):  # AboveThreshold's description: noises, ε, Δ, t only
                if re.search(r"cutoff|release|threshold (resample|shared)", pattern):
                    continue  # cutoff 1, release none, shared: the AboveThreshold shape itself
                assert re.search(pattern, desc), (command, preset, flag_args, desc)
            else:
                assert re.search(pattern, desc), (command, preset, flag_args, desc)
            applied += 1
    assert applied > 0


def test_certify_refuses_epsilon(capsys):
    assert main(["certify", "--epsilon", "2"]) == 2
    err = capsys.readouterr().err
    assert "--epsilon" in err and "--epsilon-range" in err and err.count("\n") == 1


def test_sweep_and_certify_refuse_what_is_not_above_threshold(capsys):
    for argv in (["sweep", "--cutoff", "unlimited"], ["certify", "--variant", "lyu-3"], ["sweep", "--noise", "gaussian"],
                 ["certify", "--threshold-policy", "resample"]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and ("AboveThreshold" in err), (argv, err)


# --- outputs in every notation ---------------------------------------------------------------------


@pytest.mark.parametrize("notation", ["2", "s_2", "S_2", "BA", "ba"])
def test_output_notations_agree_on_the_seed(capsys, notation):
    code = main(["prob", "--queries", "0,1", "--output", notation, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    main(["prob", "--queries", "0,1", "--output", "2", "--json"])
    assert out == capsys.readouterr().out


@pytest.mark.parametrize("notation", ["none", "⊤^k", "BB"])
def test_top_k_notations_agree(capsys, notation):
    code = main(["prob", "--queries", "0,1", "--output", notation, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    main(["prob", "--queries", "0,1", "--output", "none", "--json"])
    assert json.loads(out)["probability"] == json.loads(capsys.readouterr().out)["probability"]


def test_output_index_on_a_variant_and_letters_on_ratio(capsys):
    code = main(["prob", "--variant", "lyu-1", "--queries", "0,1", "--output", "s_2", "--json"])
    j = json.loads(capsys.readouterr().out)
    assert code == 0 and j["outcomes"] == "BA"
    code = main(["ratio", "--queries", "0,0", "--neighbour-queries", "1,1", "--output", "BA", "--json"])
    j = json.loads(capsys.readouterr().out)
    assert code == 0 and [r["output"] for r in j["outputs"]] == [2]


@pytest.mark.parametrize("argv, needle", [
    (["prob", "--queries", "0,1", "--output", "AB"], "not an output of AboveThreshold"),
    (["prob", "--queries", "0,1", "--output", "BAB"], "not an output of AboveThreshold"),
    (["prob", "--queries", "0,1", "--output", "x"], "is not an output"),
    (["prob", "--queries", "0,1", "--output", "s_3"], "outside 1..2"),
    (["prob", "--queries", "0,1", "--output", "all"], "'all' is for the ratio command"),
    (["prob", "--variant", "lyu-1", "--queries", "0,1", "--output", "s_0"], "outside 1..2"),
])
def test_bad_outputs_one_line(capsys, argv, needle):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1


def test_help_says_which_letter_is_above(capsys):
    assert main(["prob", "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "A = above: q_i + X_i >= t + Z (the seed's ⊥" in out
