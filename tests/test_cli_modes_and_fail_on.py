"""Flags that only mean something in one mode are refused outside it, and --fail-on turns a finding into exit 1.

The pairs: every pair of sweep's mode-specific flags (grid, random, conditional,
ε), checked against the rules written out in `_sweep_pair_ok`; prob's output and
noise pairs; delta's search bound with a given pair.  A refused pair is one
line on stderr naming both flags of the conflict, exit status 2, before any work.
"""

from __future__ import annotations

import functools
import itertools
import json
import re

import pytest

from verify.cli import sweep as sweep_cli
from verify.cli.main import build_parser, main
from verify.errors import InputError

GRID = {"--k": ["2"], "--query-values": ["0,1"], "--random": ["10"], "--shift-steps": ["3"]}
RANDOM = {"--random-range": ["0,1"], "--resolution": ["1/4"], "--seed": ["1"]}
CONDITIONAL = {"--conditional": [], "--gap-max": ["0,1"], "--gap-query": ["0,1"], "--kappa-steps": ["3"], "--delta-steps": ["3"]}
OTHER = {"--threshold": ["1"], "--epsilon": ["1"], "--epsilons": ["1,2"]}
SWEEP_FLAGS = {**GRID, **RANDOM, **CONDITIONAL, **OTHER}


def _sweep_pair_ok(flags: set[str]) -> bool:
    """The rules, stated independently of the code under test."""
    conditional = "--conditional" in flags
    if conditional and flags & (set(GRID) | set(RANDOM) | {"--threshold"}):
        return False  # the conditional sweep has no query grid, no random queries, and m, d are relative to t
    if not conditional and flags & (set(CONDITIONAL) - {"--conditional"}):
        return False  # the conditional grid without the conditional sweep
    if flags & set(RANDOM) and "--random" not in flags:
        return False  # random-query settings without random queries
    if {"--query-values", "--random"} <= flags:
        return False  # a product grid or random queries, not both
    return not {"--epsilon", "--epsilons"} <= flags


@functools.cache
def _parser():
    return build_parser()


def _argv(flags) -> list[str]:
    return [x for f in flags for x in (f, *SWEEP_FLAGS[f])]


CASES = [(f,) for f in SWEEP_FLAGS] + list(itertools.combinations(SWEEP_FLAGS, 2))


@pytest.mark.parametrize("flags", CASES, ids=" ".join)
def test_sweep_mode_flags(capsys, flags):
    args = _parser().parse_args(["sweep", *_argv(flags)])
    if _sweep_pair_ok(set(flags)):
        sweep_cli.check_modes(args)  # accepted: nothing raised
        return
    with pytest.raises(InputError) as exc:
        sweep_cli.check_modes(args)
    msg = str(exc.value)
    named = set(re.findall(r"--[a-z-]+", msg))
    assert named & set(flags) and len(named) >= 2, msg  # the flag and what it conflicts with
    assert main(["sweep", *_argv(flags)]) == 2  # end to end: one line, exit 2, no work done
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and msg in err


def test_sweep_pair_ok_accepts_the_documented_runs():
    assert _sweep_pair_ok({"--conditional", "--gap-max"}) and _sweep_pair_ok({"--random", "--seed"})
    assert _sweep_pair_ok({"--k", "--shift-steps"}) and not _sweep_pair_ok({"--conditional", "--k"})


@pytest.mark.parametrize("argv, both", [
    (["prob", "--queries", "0", "--output", "2", "--outcomes", "A"], ("--output", "--outcomes")),
    (["prob", "--queries", "0", "--output", "1", "--threshold-noise", "none", "--threshold-absolute-scale", "3"],
     ("--threshold-noise", "--threshold-absolute-scale")),
    (["prob", "--queries", "0", "--output", "1", "--query-noise", "none", "--query-scale", "2"], ("--query-noise", "--query-scale")),
    (["prob", "--queries", "0", "--output", "1", "--threshold-scale", "2", "--threshold-absolute-scale", "3"],
     ("--threshold-scale", "--threshold-absolute-scale")),
    (["prob", "--queries", "0", "--output", "1", "--noise", "exponential", "--threshold-noise", "laplace", "--query-noise", "laplace"],
     ("--noise", "--threshold-noise")),
    (["prob", "--queries", "0", "--output", "1", "--threshold-noise", "laplace", "--threshold-scale", "0"],
     ("--threshold-noise", "--threshold-noise none")),
    (["prob", "--queries", "0", "--outcomes", "A", "--release-scale", "2"], ("--release-scale", "--release fresh")),
    (["prob", "--queries", "0", "--outcomes", "A", "--release", "fresh", "--release-noise", "laplace", "--release-scale", "1",
      "--release-absolute-scale", "2"], ("--release-scale", "--release-absolute-scale")),
    (["ratio", "--queries", "0", "--neighbour-queries", "1", "--output", "1", "--outcomes", "A"], ("--output", "--outcomes")),
    (["delta", "--epsilon-prime", "1", "--queries", "0", "--neighbour-queries", "1", "--max-queries", "2"],
     ("--max-queries", "--queries")),
    (["worst-case", "--variant", "lyu-1", "--plot", "wc.png"], ("--plot", "family")),
])
def test_conflicting_pairs_refused_naming_both(capsys, argv, both):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and all(b in err for b in both), err


# --- --cutoff unlimited wherever it is accepted --------------------------------------------------


def test_cutoff_unlimited_on_ratio_and_delta(capsys):
    assert main(["ratio", "--cutoff", "unlimited", "--queries", "0,0", "--neighbour-queries", "1,1", "--json"]) == 0
    j = json.loads(capsys.readouterr().out)
    assert "cutoff unlimited" in j["variant"] and len(j["outputs"]) == 4  # AA, AB, BA, BB
    assert main(["delta", "--cutoff", "unlimited", "--epsilon-prime", "1/2", "--queries", "0,0", "--neighbour-queries", "1,-1",
                 "--json"]) == 0
    assert "cutoff unlimited" in json.loads(capsys.readouterr().out)["variant"]


def test_cutoff_unlimited_on_worst_case(capsys):
    assert main(["worst-case", "--cutoff", "unlimited", "--max-queries", "2", "--json"]) == 0
    j = json.loads(capsys.readouterr().out)
    assert j["mechanism"]["cutoff"] == "unlimited" and "cutoff unlimited" in j["mechanism"]["description"]


# --- --fail-on ----------------------------------------------------------------------------------


def test_fail_on_not_private_worst_case(capsys):
    broken = ["worst-case", "--threshold-scale", "0", "--max-queries", "3"]
    assert main([*broken, "--fail-on", "not_private"]) == 1  # no threshold noise: not private
    assert "verdict: not_private" in capsys.readouterr().out
    assert main(broken) == 0  # without --fail-on the finding is only printed
    capsys.readouterr()
    assert main(["worst-case", "--max-queries", "1", "--fail-on", "not_private"]) == 0  # Mechanism One
    assert "verdict: private" in capsys.readouterr().out


@pytest.mark.slow
def test_fail_on_family_variants(capsys):
    assert main(["worst-case", "--variant", "lyu-3", "--max-queries", "3", "--fail-on", "not_private"]) == 1
    assert "verdict: not_private" in capsys.readouterr().out
    # two queries reach exactly ε (loss i·ε/2 for i queries), but the proven growth family's 3-query member exceeds it
    assert main(["worst-case", "--variant", "lyu-3", "--max-queries", "2", "--fail-on", "not_private"]) == 1
    assert "verdict: not_private" in capsys.readouterr().out
    # a resampled discrete variant searched to 2 queries: no bound <= ε and no witness above ε, a finding of its own
    undecided = ["worst-case", "--noise", "discrete-laplace", "--threshold-absolute-scale", "1", "--query-absolute-scale", "2",
                 "--cutoff", "2", "--threshold-policy", "resample", "--max-queries", "2"]
    assert main([*undecided, "--fail-on", "not_private"]) == 0
    assert "verdict: undecided" in capsys.readouterr().out
    assert main([*undecided, "--fail-on", "undecided"]) == 1
    assert main(["worst-case", "--variant", "lyu-1", "--cutoff", "2", "--max-queries", "2", "--fail-on", "not_private"]) == 0
    assert "verdict: private" in capsys.readouterr().out
    assert main(["family", "--rows", "lyu-4:1", "--max-queries", "2", "--fail-on", "not_private", "--json"]) == 1
    assert main(["family", "--rows", "lyu-1:1", "--max-queries", "2", "--fail-on", "not_private,undecided", "--json"]) == 0


def test_fail_on_violation_ratio(capsys):
    lyu5 = ["ratio", "--variant", "lyu-5", "--queries", "0,0", "--neighbour-queries", "1,-1"]
    assert main([*lyu5, "--fail-on", "violation"]) == 1  # AB is impossible on D, possible on D': infinite loss
    assert "NO" in capsys.readouterr().out
    assert main(lyu5) == 0
    capsys.readouterr()
    assert main(["ratio", "--queries", "0,0", "--neighbour-queries", "1,-1", "--fail-on", "violation"]) == 0


def test_fail_on_sweep(capsys):
    small = ["sweep", "--k", "2", "--query-values=-2:2:1", "--workers", "1", "--max-violations", "1"]
    assert main([*small, "--threshold-scale", "1", "--query-scale", "1", "--fail-on", "refuted"]) == 1
    assert "verdict: refuted" in capsys.readouterr().out
    assert main([*small, "--fail-on", "refuted,violation"]) == 0  # Mechanism One
    assert "verdict: consistent" in capsys.readouterr().out


@pytest.mark.parametrize("argv", [
    ["ratio", "--queries", "0", "--neighbour-queries", "1", "--fail-on", "not_private"],
    ["worst-case", "--fail-on", "violation"],
    ["worst-case", "--fail-on", "not-private"],
    ["family", "--fail-on", ""],
])
def test_fail_on_refuses_findings_the_command_has_not(capsys, argv):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--fail-on" in err


@pytest.mark.parametrize("command", ["worst-case", "sweep", "ratio", "certify", "family", "proofs"])
def test_exit_codes_in_help(capsys, command):
    assert main([command, "--help"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "--fail-on" in out
    assert "exit status: 0 done; 1 a finding named by --fail-on occurred; 2 bad input" in out and "130 interrupted" in out
    assert "141" in out


def test_family_at_another_configuration(capsys):
    assert main(["family", "--rows", "lyu-1:1", "--max-queries", "2", "--epsilon", "1", "--threshold", "0", "--json"]) == 0
    j = json.loads(capsys.readouterr().out)
    row = j["rows"][0]
    assert row["claimed_epsilon"] == "1" and row["published"] == [] and "ε = 1, Δ = 1, t = 0" in j["configuration"]
    assert "--epsilon 1 --threshold 0" in row["reproduce"]
    assert main(["family", "--rows", "lyu-1:1", "--max-queries", "2", "--epsilon", "1", "--threshold", "0"]) == 0
    assert "left empty" in capsys.readouterr().out


def test_ratio_rows_near_and_at_the_bound_look_different(capsys):
    """Two rows printing -1.00000000000000: one below ε by 4e-19 (yes), one equal to ε (Mechanism Two's s_2)."""
    assert main(["ratio", "--queries", "60,60,60,60,-60", "--neighbour-queries", "59,59,59,59,-59", "--output", "5"]) == 0
    near = capsys.readouterr().out.splitlines()[4]
    assert "-1.00000000000000" in near and re.search(r"yes \(ε - \|log ratio\| = 4\.\d+e-19\)", near), near
    assert main(["ratio", "--noise", "exponential", "--queries", "0,0", "--neighbour-queries", "1,-1", "--output", "2"]) == 0
    at = capsys.readouterr().out.splitlines()[4]
    assert "1.00000000000000" in at and "= ε (at the bound" in at and "yes" not in at, at


@pytest.mark.parametrize("epsilon", ["1e6", "1e40"])
def test_family_refuses_scales_below_the_search_limit(capsys, epsilon):
    """ε = 1e6 ran past 5 minutes and 1e40 raised OverflowError: the worst-case search's scale limit applies to every row."""
    assert main(["family", "--rows", "lyu-1:1", "--epsilon", epsilon]) == 2
    err = capsys.readouterr().err
    assert "noise scale" in err and err.count("\n") == 1


def test_family_rows_cutoff_unlimited(capsys):
    """NAME:unlimited runs the preset without a cutoff (it ran cutoff 1 under the label ∞ for presets whose default is 1)."""
    from verify.cli.family import parse_rows
    from verify.family.table import row_mechanism

    assert [row_mechanism(*r).cutoff for r in parse_rows("seed-m1:unlimited,lyu-6,lyu-1:2")] == [None, None, 2]
    assert main(["family", "--rows", "lyu-1:unlimited"]) == 2
    assert "not unlimited" in capsys.readouterr().err
