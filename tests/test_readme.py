"""The README stays true: its generated findings are current, its set-up
commands are the ones CI runs, and every command it documents exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")


def setup_commands() -> list[str]:
    block = re.search(r"```bash\n(.*?)```", README, re.S)
    assert block, "README must open with a bash block of set-up commands"
    return [line for line in block.group(1).splitlines() if line.strip()]


def test_readme_opens_with_exactly_two_setup_commands():
    cmds = setup_commands()
    assert len(cmds) == 2
    assert README.index("```bash") < README.index("\n## ")  # before any section
    assert "svt-verify report" in cmds[0]
    assert "pytest" in cmds[1]


def test_ci_runs_the_readme_test_command_verbatim():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert setup_commands()[1] in ci.splitlines()


def test_findings_section_is_generated_and_current():
    from proofs.findings import FINDINGS_END, FINDINGS_START, findings_markdown

    body = README.split(FINDINGS_START, 1)[1].split(FINDINGS_END, 1)[0]
    assert body.strip() == findings_markdown().strip(), "README findings are stale: run python -m proofs.findings --write README.md"


def test_every_documented_command_exists():
    from verify.cli.main import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    documented = set(re.findall(r"^### `svt-verify ([a-z-]+)`", README, re.M))
    assert documented == set(sub.choices), (documented, set(sub.choices))


def test_every_notebook_is_listed():
    for nb in (ROOT / "notebooks").glob("*.ipynb"):
        assert f"`{nb.name}`" in README, nb.name
