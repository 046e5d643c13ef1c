"""benchmarks/bench_peers.py without the peers: the mapping of their SVT mechanisms onto the presets, the exact
event probabilities, the check that a reported lower bound is at most the exact loss (a fake peer that reports
more must fail it), and the one-line refusal of missing or wrong checkout paths.  The family table's cited
cells say what they measured (ε of the run, and that the seconds are the authors' machine's)."""

from __future__ import annotations

import importlib.util
import json
import os
import stat
import sys
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest

from verify.errors import InputError
from verify.family.literature import PUBLISHED_MACHINE
from verify.family.table import family_table, render
from verify.oracles.family import log_ratio

ROOT = Path(__file__).resolve().parent.parent


def _load():
    spec = importlib.util.spec_from_file_location("bench_peers", ROOT / "benchmarks" / "bench_peers.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["bench_peers"] = mod
    spec.loader.exec_module(mod)
    return mod


bp = _load()
E = Fraction(1, 10)
NONE = None

#: (tool, name) -> (threshold scale, query scale, release scale or None, resampled, cutoff), written from the
#: peers' code at ε = 1/10, Δ = 1: dpsniper/mechanisms/sparse_vector_technique.py (eps1 = ε/2, eps2 = ε - eps1;
#: Alg. 4: eps1 = ε/4), statdp/algorithms.py (N = 1).
PEER_CODE = {
    ("DP-Sniper", "SparseVectorTechnique1"): (1 / (E / 2), 2 * 1 / (E / 2), NONE, False, 1),
    ("DP-Sniper", "SparseVectorTechnique2"): (1 / (E / 2), 2 * 1 / (E / 2), NONE, True, 1),
    ("DP-Sniper", "SparseVectorTechnique3"): (1 / (E / 2), 1 / (E / 2), NONE, False, 1),
    ("DP-Sniper", "SparseVectorTechnique4"): (1 / (E / 4), 1 / (E - E / 4), NONE, False, 1),
    ("DP-Sniper", "SparseVectorTechnique5"): (1 / (E / 2), NONE, NONE, False, None),
    ("DP-Sniper", "SparseVectorTechnique6"): (1 / (E / 2), 1 / (E / 2), NONE, False, None),
    ("DP-Sniper", "NumericalSVT"): (3 / E, 6 * 2 / E, 3 * 2 / E, False, 2),
    ("StatDP", "SVT"): (2 / E, 4 / E, NONE, False, 1),
    ("StatDP", "iSVT1"): (2 / E, NONE, NONE, False, None),
    ("StatDP", "iSVT2"): (2 / E, 2 / E, NONE, False, None),
    ("StatDP", "iSVT3"): (4 / E, Fraction(4, 3) / E, NONE, False, 1),
    ("StatDP", "iSVT4"): (2 / E, 2 / E, NONE, False, 1),
}


@pytest.mark.parametrize("key", sorted(PEER_CODE))
def test_each_peer_mechanism_maps_to_a_preset_with_the_same_noises(key):
    z, x, r, resampled, cutoff = PEER_CODE[key]
    shape = bp.peer(*key).variant()
    assert shape.threshold_noise.scale == z
    assert shape.query_noise.is_none if x is None else shape.query_noise.scale == x
    if key[1] == "NumericalSVT":
        assert shape.release_noise.scale == r
    assert (str(shape.threshold_policy) == "resample") == resampled
    assert shape.cutoff == cutoff
    assert shape.epsilon == E
    assert shape.releases_values == (bp.peer(*key).output is bp.OutputKind.RELEASED)


def test_every_peer_mechanism_is_mapped_and_unknown_names_are_refused():
    assert {n for _, n in bp.PEERS} == {"SparseVectorTechnique1", "SparseVectorTechnique2", "SparseVectorTechnique3",
                                         "SparseVectorTechnique4", "SparseVectorTechnique5", "SparseVectorTechnique6",
                                         "NumericalSVT", "SVT", "iSVT1", "iSVT2", "iSVT3", "iSVT4"}
    with pytest.raises(InputError, match="SparseVectorTechnique7"):
        bp.peer("DP-Sniper", "SparseVectorTechnique7")


def test_output_encodings_follow_the_peers_code():
    assert bp.dpsniper_vector("BBA", 5) == [0.0, 0.0, 1.0, -1.0, -1.0]
    assert bp.dpsniper_vector("ABBA", 4) == [1.0, 0.0, 0.0, 1.0]
    assert bp.statdp_value(bp.OutputKind.FALSE_COUNT, "BBBA", 10) == 3
    assert bp.statdp_value(bp.OutputKind.FALSE_COUNT, "B" * 10, 10) == 10
    # pattern [True, True, False, False]; a halted run is shorter and zip_longest counts the missing places
    assert bp.statdp_value(bp.OutputKind.HAMMING, "AABB", 4) == 0
    assert bp.statdp_value(bp.OutputKind.HAMMING, "BBAA", 4) == 4
    assert bp.statdp_value(bp.OutputKind.HAMMING, "BA", 4) == 3
    assert bp.in_statdp_event(3, 3) and not bp.in_statdp_event(3, 4)
    assert bp.in_statdp_event(0.5, [float("-inf"), 1.0]) and not bp.in_statdp_event(1.0, [float("-inf"), 1.0])


def test_event_probabilities_sum_exactly():
    """All outputs in the event: probability 1 on both sides, loss 0; one output: the oracle's log ratio."""
    m = bp.peer("DP-Sniper", "SparseVectorTechnique1")
    a1, a2 = [1.0] * 10, [0.0] + [2.0] * 9
    whole, sup, _ = bp.event_losses(m, a1, a2, lambda outs: [1.0] * len(outs))
    assert abs(whole) < mpmath.mpf(10) ** -25
    one, _, _ = bp.event_losses(m, a1, a2, lambda outs: [1.0 if o == "BA" else 0.0 for o in outs])
    assert abs(one - log_ratio(m.variant(), a1, a2, "BA", digits=30)) < mpmath.mpf(10) ** -25
    assert one <= sup


def _fake_result(lower_bound: float, weights: list[float]) -> dict:
    return {"lower_bound": lower_bound, "a1": [1.0] * 10, "a2": [0.0] + [2.0] * 9, "event": "attack t = 0.5, q = 0",
            "weights": weights, "cpu_seconds": 10.0}


@pytest.mark.slow
def test_the_check_fails_when_a_fake_peer_reports_more_than_the_exact_loss():
    m = bp.peer("DP-Sniper", "SparseVectorTechnique1")
    outputs = m.variant().outputs(10)
    weights = [1.0 if o == "A" else 0.25 for o in outputs]
    exact, _, _ = bp.event_losses(m, [1.0] * 10, [0.0] + [2.0] * 9,
                                  lambda outs: [1.0 if o == "A" else 0.25 for o in outs])
    assert exact > 0
    below = bp.dpsniper_row(m, _fake_result(float(exact) * 0.999, weights), outputs)
    above = bp.dpsniper_row(m, _fake_result(float(exact) * 1.001, weights), outputs)
    assert below.ok and below.checks["LB <= event loss"]
    assert not above.ok and not above.checks["LB <= event loss"]
    assert "FAIL: LB <= event loss" in bp.render([below, above])
    # a bound above the worst case fails that check too
    worst = bp.dpsniper_row(m, _fake_result(float(below.worst_loss) + 0.01, weights), outputs)
    assert not worst.checks["LB <= worst case"]


def _fake_checkout(tmp_path: Path) -> Path:
    d = tmp_path / "dp-sniper" / "dpsniper" / "mechanisms"
    d.mkdir(parents=True)
    (d / "sparse_vector_technique.py").write_text("")
    return tmp_path / "dp-sniper"


def test_a_fake_peer_above_the_exact_loss_makes_the_script_exit_1(tmp_path, capsys):
    """The whole driver with a fake peer interpreter that reports lower bound 5 nats (SVT1's worst case is 0.1)."""
    m = bp.peer("DP-Sniper", "SparseVectorTechnique1")
    n = len(m.variant().outputs(10))
    result = _fake_result(5.0, [1.0] + [0.0] * (n - 1))
    fake = tmp_path / "fake-python"
    fake.write_text("#!/bin/sh\ncat <<'EOF'\n" + json.dumps(result) + "\nEOF\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    code = bp.main(["--dpsniper", str(_fake_checkout(tmp_path)), "--peer-python", str(fake),
                    "--only", "SparseVectorTechnique1"])
    out = capsys.readouterr().out
    assert code == 1
    assert "FAIL: LB <= event loss" in out and "FAIL: LB <= worst case" in out


@pytest.mark.parametrize("argv, message", [
    ([], "give --dpsniper PATH"),
    (["--dpsniper", "/nonexistent/dp-sniper"], "is not a directory"),
    (["--statdp", "/nonexistent/statdp"], "is not a directory"),
    (["--dpsniper", "."], "has no dpsniper/mechanisms/sparse_vector_technique.py"),
    (["--statdp", "."], "has no statdp/algorithms.py"),
    (["--dpsniper", "DIR", "--scale", "0"], "--scale: 0.0 must be in (0, 1]"),
    (["--dpsniper", "DIR", "--only", "SVT9"], "--only: 'SVT9'"),
    (["--dpsniper", "DIR", "--peer-python", "/nonexistent/python"], "--peer-python"),
])
def test_missing_or_wrong_paths_are_refused_in_one_line(argv, message, tmp_path, capsys):
    argv = [str(_fake_checkout(tmp_path)) if a == "DIR" else a for a in argv]
    assert bp.main(argv) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_family_table_cited_cells_say_what_they_measured():
    """Every cited cell names the ε of its run where it is not the table's (StatDP ran Alg. 5 at ε = 1/20), and the
    footer says the seconds are wall seconds on the authors' machine."""
    text = render(family_table(rows=(("lyu-5", None),), max_queries=2))
    row = next(line for line in text.splitlines() if line.startswith("lyu-5"))
    assert row.count("at ε = 1/20") == 2 and "s†" in row
    assert PUBLISHED_MACHINE in text and "bench_peers.py" in text
    assert os.path.exists(ROOT / "benchmarks" / "bench_peers.py")


@pytest.mark.slow
def test_released_tail_sums_to_one_and_differentiates_to_the_oracle_density():
    """lyu-3, c = 1: Σ_j Pr[B^j A] + Pr[B^k] = 1, and -d/dr Pr[B^j A, v >= r] is the oracle's density at v = r."""
    from verify.oracles.family import output_probability

    m = bp.peer("DP-Sniper", "SparseVectorTechnique3")
    shape, a = m.variant(), [1.0, 0.0, 2.0, 1.0]
    with mpmath.workdps(30):
        total = sum(bp.released_tail(shape, a, j, -mpmath.inf) for j in range(4))
        total += output_probability(shape, [Fraction(x) for x in a], "BBBB", digits=30)
        assert abs(total - 1) < mpmath.mpf(10) ** -25
        r, h = mpmath.mpf(3), mpmath.mpf(10) ** -8
        slope = -(bp.released_tail(shape, a, 2, r + h) - bp.released_tail(shape, a, 2, r - h)) / (2 * h)
        density = output_probability(shape, [Fraction(x) for x in a], "BBA", [Fraction(3)], digits=25)
        assert abs(slope / density - 1) < mpmath.mpf(10) ** -12


@pytest.mark.slow  # about 5 s CPU; the only test of the released-event enclosure
def test_released_event_enclosure_contains_the_event_loss():
    """A switch at v in [2, 2.1] along every output: the enclosure holds the loss of S = {v >= 2} and of {v >= 2.1};
    weights that change too often are refused (None); a weight that goes 0, 1, 0 counts only the middle run."""
    m = bp.peer("DP-Sniper", "SparseVectorTechnique3")
    shape, a1, a2 = m.variant(), [1.0, 1.0, 1.0], [2.0, 0.0, 2.0]
    sw = {"per_j": [{"left": 0.0, "changes": [[2.0, 2.1, 1.0]]}] * 3, "all_below": 0.0, "grid": [-10, 10, 201]}
    low, high = bp.released_event_losses(m, a1, a2, sw)
    with mpmath.workdps(30):
        for r in (mpmath.mpf(2), mpmath.mpf("2.1")):
            p1 = sum(bp.released_tail(shape, a1, j, r) for j in range(3))
            p2 = sum(bp.released_tail(shape, a2, j, r) for j in range(3))
            assert low <= mpmath.log(p1) - mpmath.log(p2) <= high
    assert high - low < 0.01
    assert bp.released_event_losses(m, a1, a2, {**sw, "per_j": [None] * 3}) is None
    band = {**sw, "per_j": [{"left": 0.0, "changes": [[2.0, 2.1, 1.0], [5.0, 5.1, 0.0]]}] * 3}
    low, high = bp.released_event_losses(m, a1, a2, band)
    with mpmath.workdps(30):
        for r1, r2 in ((2, 5.1), (2.1, 5)):
            p1 = sum(bp.released_tail(shape, a1, j, mpmath.mpf(r1)) - bp.released_tail(shape, a1, j, mpmath.mpf(r2)) for j in range(3))
            p2 = sum(bp.released_tail(shape, a2, j, mpmath.mpf(r1)) - bp.released_tail(shape, a2, j, mpmath.mpf(r2)) for j in range(3))
            assert low <= mpmath.log(p1) - mpmath.log(p2) <= high


def test_a_peer_run_that_fails_is_reported_in_one_line(tmp_path, capsys):
    broken = tmp_path / "broken-python"
    broken.write_text("#!/bin/sh\necho 'ModuleNotFoundError: No module named torch' >&2\nexit 1\n")
    broken.chmod(broken.stat().st_mode | stat.S_IEXEC)
    code = bp.main(["--dpsniper", str(_fake_checkout(tmp_path)), "--peer-python", str(broken), "--only", "SparseVectorTechnique1"])
    err = capsys.readouterr().err
    assert code == 2 and "No module named torch" in err and "Traceback" not in err
