"""``svt-verify proofs --show ID`` prints a claim's whole evidence, and a misspelt ID gets
the closest IDs ("did you mean"), both through the real command line."""

from __future__ import annotations

import pytest

from verify.cli.main import main


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


def test_show_prints_the_whole_evidence_uncut(capsys: pytest.CaptureFixture[str]) -> None:
    from proofs.registry import get_claim

    verdict = get_claim("U.tail_Z.M1").check()
    code, out, _ = _run(["proofs", "--show", "U.tail_Z.M1"], capsys)
    assert code == 0
    flat = " ".join(out.split())  # --show wraps long lines at word boundaries
    # the method the table abridges ("...; Monte Ca]") appears whole, and so do both sides and every note
    assert verdict.method in flat
    assert "Monte Carlo" in verdict.method
    cx = verdict.evidence.counterexample
    assert cx is not None and cx.lhs in flat and cx.rhs in flat
    for note in verdict.evidence.notes:
        assert " ".join(note.split()) in flat
    assert out.startswith("U.tail_Z.M1: refuted")


def test_table_never_cuts_a_word(capsys: pytest.CaptureFixture[str]) -> None:
    from proofs.registry import get_claim

    full = get_claim("U.tail_Z.M1").check().method
    code, out, _ = _run(["proofs", "U.tail_Z.M1"], capsys)
    assert code == 0
    row = next(line for line in out.splitlines() if line.startswith("U.tail_Z.M1 "))
    shown = row.rsplit("[", 1)[1].rstrip("]")
    assert shown.endswith("…") and len(shown) < len(full)
    prefix = shown[:-1]
    assert full.startswith(prefix)
    assert full[len(prefix)] == " ", f"cut inside a word: {shown!r}"
    assert "--show" in out


@pytest.mark.parametrize(
    "typo, expected",
    [("P1.chian", "P1.chain"), ("u.tail_z.m1", "U.tail_Z.M1"), ("M1.theorm", "M1.theorem")],
)
def test_misspelt_id_gets_did_you_mean(typo: str, expected: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["proofs", typo], capsys)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1
    assert f"did you mean {expected}" in err


def test_far_off_id_gets_no_suggestion(capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(["proofs", "zzzzzz"], capsys)
    assert code == 2 and "did you mean" not in err and "--list" in err


def test_show_with_list_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(["proofs", "--show", "--list", "P1.chain"], capsys)
    assert code == 2 and out == "" and "--show" in err
