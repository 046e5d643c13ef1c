"""The family flags (`verify/cli/variant.py`) build exactly the variant they name, or refuse in one line.

Each case runs `svt-verify prob ... --json` and reads the mechanism back from the JSON (`SparseVector.to_json`):
cutoff (a number or ``unlimited``), threshold policy, release, the fresh release noise as a multiple of Δ/ε
or absolute, a preset's cutoff-dependent scales, and the seed's noise flags underneath.
"""

from __future__ import annotations

import json

import pytest

from verify.cli.main import main


def mechanism(capsys, *flags: str, queries="0,1", outcomes="BA", released=None) -> dict:
    argv = ["prob", *flags, "--queries", queries, "--outcomes", outcomes, "--digits", "15", "--json"]
    if released is not None:
        argv += ["--released", released]
    capsys.readouterr()
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)["mechanism"]


def test_cutoff_policy_and_release_flags_are_applied(capsys):
    m = mechanism(capsys, "--cutoff", "unlimited", "--threshold-policy", "resample", queries="0,1,2", outcomes="BAA")
    assert m["cutoff"] == "unlimited" and m["threshold_policy"] == "resample" and m["release"] == "none"
    m = mechanism(capsys, "--cutoff", "3", queries="0,1,2", outcomes="BAA")
    assert m["cutoff"] == 3 and m["threshold_policy"] == "shared"
    m = mechanism(capsys, "--release", "gap", released="1/2")
    assert m["release"] == "gap" and m["release_noise"] is None


def test_fresh_release_noise_relative_and_absolute(capsys):
    m = mechanism(capsys, "--release", "fresh", "--release-noise", "exponential", "--release-scale", "3", released="1")
    assert m["release"] == "fresh"
    assert m["release_noise"] == {"family": "exponential", "scale_over_delta_over_epsilon": "3"}
    m = mechanism(capsys, "--release", "fresh", "--release-noise", "laplace", "--release-absolute-scale", "5/2", released="1")
    assert m["release_noise"] == {"family": "laplace", "absolute_scale": "5/2"}
    # both scales given: refused (one of the two would be ignored)
    capsys.readouterr()
    assert main(["prob", "--release", "fresh", "--release-noise", "laplace", "--release-scale", "3", "--release-absolute-scale", "7",
                 "--queries", "0,1", "--outcomes", "BA", "--released", "1"]) == 2
    assert "--release-scale and --release-absolute-scale" in capsys.readouterr().err


def test_seed_noise_flags_under_the_family_flags(capsys):
    m = mechanism(capsys, "--cutoff", "2", "--threshold-noise", "exponential", "--threshold-scale", "4",
                  "--query-noise", "laplace", "--query-absolute-scale", "6", "--epsilon", "1/2", "--sensitivity", "2")
    assert m["threshold_noise"] == {"family": "exponential", "scale_over_delta_over_epsilon": "4"}
    assert m["query_noise"] == {"family": "laplace", "absolute_scale": "6"}
    assert (m["epsilon"], m["sensitivity"], m["cutoff"]) == ("1/2", "2", 2)


def test_preset_cutoff_rescales_the_preset_and_other_flags_override_it(capsys):
    # lyu-1 scales its query noise with c (b_X = 4cΔ/ε)
    m = mechanism(capsys, "--variant", "lyu-1", "--cutoff", "3", queries="0,1,2", outcomes="AAA")
    assert m["cutoff"] == 3 and m["query_noise"]["scale_over_delta_over_epsilon"] == "12"
    m = mechanism(capsys, "--variant", "lyu-1", "--threshold-policy", "resample", queries="0,1", outcomes="BA")
    assert m["threshold_policy"] == "resample" and m["name"] == "lyu-1, modified by --threshold-policy"
    # numeric-svt releases a fresh value; --release none drops its release noise
    m = mechanism(capsys, "--variant", "numeric-svt", "--release", "none")
    assert m["release"] == "none" and m["release_noise"] is None


@pytest.mark.parametrize("argv, needle", [
    (["--release", "fresh"], "--release fresh"),
    (["--release", "gap", "--release-noise", "laplace", "--release-scale", "1"], "only with --release fresh"),
    (["--release", "fresh", "--release-scale", "3"], "give --release-noise"),
    (["--release", "fresh", "--release-noise", "laplace"], "--release-scale"),
    (["--cutoff", "0"], "--cutoff"),
    (["--cutoff", "1001"], "--cutoff"),
])
def test_incomplete_or_contradictory_flags_are_refused_in_one_line(capsys, argv, needle):
    capsys.readouterr()
    code = main(["prob", *argv, "--queries", "0,1", "--outcomes", "BA", "--released", "1"] if "fresh" in argv or "gap" in argv
                else ["prob", *argv, "--queries", "0,1", "--outcomes", "BA"])
    err = capsys.readouterr().err
    assert code == 2 and needle in err and err.strip().count("\n") == 0, err
