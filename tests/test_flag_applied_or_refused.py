"""A flag is applied or refused, never ignored: `family --monotone` with discrete rows, and the ``starts`` of
`family_worst_case` for a discrete variant (compared with the real default, `DEFAULT_STARTS`).

The command line runs in this process (`verify.cli.main.main`, which turns bad input into exit 2 and one line
on stderr, and lets any other exception out, so that it fails the test): what is checked is the refusal, not
the process; tests/test_cli_process.py checks the real process."""

from __future__ import annotations

import subprocess

import pytest

from verify.cli.main import main
from verify.errors import InputError
from verify.family.presets import preset
from verify.family.worstcase import DEFAULT_STARTS, family_worst_case


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> subprocess.CompletedProcess:
    """``svt-verify ARGV`` in this process: its exit status and what it printed (module docstring)."""
    capsys.readouterr()
    code = main(list(argv))
    out, err = capsys.readouterr()
    return subprocess.CompletedProcess(list(argv), code, out, err)


@pytest.mark.parametrize("argv, says", [
    (("family", "--monotone", "--max-queries", "1"), "add --no-discrete"),
    (("family", "--monotone", "--rows", "lyu-1:1,sampcert-above-threshold:1", "--max-queries", "1"), "sampcert-above-threshold"),
])
def test_monotone_with_discrete_rows_is_refused_in_one_line(argv, says, capsys):
    """The default table shows the discrete rows, whose search has no monotone restriction: refused (exit 2, one
    line, no traceback), exactly as when --rows names a discrete row; nothing runs before the refusal."""
    p = _run(capsys, *argv)
    assert p.returncode == 2, p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1 and "--monotone" in lines[0] and says in lines[0], p.stderr
    assert "Traceback" not in p.stderr and p.stdout == ""


def test_monotone_applies_without_discrete_rows(capsys):
    """--monotone with only continuous rows (--no-discrete) runs, and the table says the restriction was applied."""
    p = _run(capsys, "family", "--monotone", "--no-discrete", "--rows", "lyu-1:1", "--max-queries", "1")
    assert p.returncode == 0, p.stderr
    assert "Monotone neighbours" in p.stdout


def test_discrete_starts_refused_at_both_sides_of_the_default():
    """The discrete search takes only the default ``starts``: one above and one below are refused."""
    mech = preset("sampcert-above-threshold")
    for starts in (DEFAULT_STARTS - 1, DEFAULT_STARTS + 1):
        with pytest.raises(InputError, match="starts"):
            family_worst_case(mech, max_queries=1, starts=starts)
    res = family_worst_case(mech, max_queries=1, starts=DEFAULT_STARTS, tightness_study=False)
    assert res.witness is not None
