"""Report Noisy Max verdicts through the library and `svt-verify worst-case --variant`."""

import json
from functools import cache

import mpmath
import pytest

from verify.cli.main import main
from verify.selection.model import ReportNoisyMax
from verify.selection.presets import selection_preset
from verify.selection.verdict import selection_verdict
from verify.verdicts import MechanismVerdict


@cache
def _verdict(mech: ReportNoisyMax, max_queries: int):
    """`selection_verdict`, computed once per (mechanism, K) for the tests below (a deterministic search and
    50-digit confirmation: the tests read the same verdict object)."""
    return selection_verdict(mech, max_queries)


def test_value_release_with_laplace_is_not_private_and_unbounded():
    r = selection_verdict(selection_preset("dpsniper-rnm3"), 4)
    assert r.verdict is MechanismVerdict.NOT_PRIVATE and r.unbounded
    with mpmath.workdps(50):
        assert abs(r.loss - 2) < mpmath.mpf(10) ** -45  # kΔ/b = 4·1/2, exact below every score
    assert r.loss_by_k[3] == pytest.approx(1.5, rel=1e-12)


def test_value_release_with_exponential_noise_has_infinite_loss():
    r = selection_verdict(selection_preset("statdp-noisy-max-v2b"), 2)
    assert r.verdict is MechanismVerdict.NOT_PRIVATE and mpmath.isinf(r.loss)


@pytest.mark.slow
def test_index_with_too_little_noise_is_refuted_by_a_witness():
    """Laplace at scale Δ/ε, any direction: the loss approaches 2Δ/b = 2ε; a witness above ε at 50 digits."""
    r = _verdict(ReportNoisyMax(1, 1, "laplace", 1), 3)
    assert r.verdict is MechanismVerdict.NOT_PRIVATE and r.bound.value == 2 and 1 < r.loss <= 2


@pytest.mark.slow
def test_index_is_private_with_its_bound():
    r = _verdict(selection_preset("statdp-noisy-max-v1a"), 3)
    assert r.verdict is MechanismVerdict.PRIVATE and r.bound.value == 1 and r.loss <= 1


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cli_worst_case_rnm3(capsys):
    code, out, _ = _run(capsys, "worst-case", "--variant", "dpsniper-rnm3", "--max-queries", "3", "--json")
    j = json.loads(out)
    assert code == 0 and j["verdict"] == "not_private" and j["unbounded"] and j["witness"]["neighbour"] == ["1", "1", "1"]


@pytest.mark.slow
def test_cli_worst_case_statdp_v1a(capsys):
    code, out, _ = _run(capsys, "worst-case", "--variant", "statdp-noisy-max-v1a", "--max-queries", "3", "--fail-on", "not_private")
    assert code == 0 and "verdict: private" in out and "proven upper bound: 1 nats" in out


def test_cli_refuses_svt_flags(capsys):
    code, out, err = _run(capsys, "worst-case", "--variant", "checkdp-noisymax", "--cutoff", "2")
    assert code == 2 and out == "" and "--cutoff" in err and "Traceback" not in err


@pytest.mark.slow
def test_an_attained_bound_is_neither_a_witness_nor_a_broken_bound():
    """RNM2 (exponential noise, index) attains its bound 2Δ/b = ε exactly: at ε = 1/10 the 50-digit loss is
    ε give or take the last digits, and the verdict is `private` (it raised 'exceeds ε under a proven bound: a
    bug' when the witness test had no slack; `verify.exact.confirmation_tolerance`)."""
    import mpmath

    from verify.exact import confirmation_tolerance
    from verify.selection.presets import selection_preset
    from verify.selection.verdict import selection_verdict

    v = selection_verdict(selection_preset("dpsniper-rnm2", epsilon="1/10"), max_queries=3)
    assert v.verdict.value == "private"
    with mpmath.workdps(60):
        assert abs(v.loss - mpmath.mpf(1) / 10) < mpmath.mpf(confirmation_tolerance(50, 1).numerator) / confirmation_tolerance(50, 1).denominator


def test_witness_loss_is_enclosed_in_arb_in_the_notes():
    """The index with Laplace noise at scale Δ/ε: the witness's loss (near 2ε) as an arb ball whose lower end
    exceeds ε; a private preset's witness ball lies below ε; the released value has no such note."""
    r = _verdict(ReportNoisyMax(1, 1, "laplace", 1), 3)
    note = next(n for n in r.notes if "enclosed in arb" in n)
    assert "its lower end exceeds ε" in note
    with mpmath.workdps(50):
        mid = mpmath.mpf(note.split("[")[1].split(" +/-")[0])
        assert abs(mid - r.loss) < mpmath.mpf(10) ** -20
    private = _verdict(selection_preset("statdp-noisy-max-v1a"), 3)
    assert any("enclosed in arb" in n and "its upper end is below ε" in n for n in private.notes)
    assert not any("enclosed in arb" in n for n in selection_verdict(selection_preset("dpsniper-rnm3"), 2).notes)
