"""The README stays true and short: it opens with the two set-up commands CI runs, keeps the
order a newcomer needs (what it is, set-up, a tour in five recipes, findings, where to read
next), its findings table and docs/findings.md are generated from the current verdicts, and
every notebook is listed in the docs.  Its ``>>>`` lines run as doctests (pyproject addopts)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")
MAX_LINES = 200


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


def test_readme_is_short_and_in_the_newcomers_order():
    assert len(README.splitlines()) <= MAX_LINES, f"README has {len(README.splitlines())} lines (at most {MAX_LINES})"
    sections = re.findall(r"^## (.+)$", README, re.M)
    assert sections[:3] == ["A tour in six recipes", "Findings", "Where to read next"], sections
    assert "MIT ([LICENSE](LICENSE))" in README
    recipes = re.findall(r"^### (.+)$", README, re.M)
    assert len(recipes) == 7 and recipes[-1].endswith("Python session"), recipes
    # every recipe shows a real command with its output (docs/refresh_examples.py regenerates them)
    examples = re.findall(r"<!-- example(?:: [^>]*)? -->\n```\n\$ (svt-verify [^\n]+)\n(.+?)```", README, re.S)
    commands = {cmd.split()[1] for cmd, _ in examples}
    assert {"prob", "worst-case", "family", "delta", "proofs", "audit"} <= commands, commands
    assert all(out.strip() for _, out in examples), "an example block without output: run python docs/refresh_examples.py README.md"


@pytest.mark.slow
def test_findings_are_generated_and_current():
    """docs/findings.md, the README's table and docs/proofs.md's table equal what the verdicts give now
    (the claims are checked once for the three)."""
    from proofs.findings import (
        CLAIMS_END,
        CLAIMS_START,
        FINDINGS_END,
        FINDINGS_START,
        TABLE_END,
        TABLE_START,
        check_all,
        claims_table_markdown,
        findings_markdown,
        findings_table_markdown,
    )

    def between(text: str, start: str, end: str) -> str:
        return text.split(start, 1)[1].split(end, 1)[0].strip()

    checked = check_all()
    fix = "run python -m proofs.findings --write docs/findings.md --readme README.md --docs docs/proofs.md"
    findings = (ROOT / "docs" / "findings.md").read_text(encoding="utf-8")
    assert between(findings, FINDINGS_START, FINDINGS_END) == findings_markdown(checked).strip(), f"docs/findings.md is stale: {fix}"
    assert between(README, TABLE_START, TABLE_END) == findings_table_markdown(checked).strip(), f"README findings are stale: {fix}"
    proofs = (ROOT / "docs" / "proofs.md").read_text(encoding="utf-8")
    assert between(proofs, CLAIMS_START, CLAIMS_END) == claims_table_markdown(checked).strip(), f"docs/proofs.md is stale: {fix}"


def test_every_notebook_is_listed_in_the_docs():
    docs = README + "".join(p.read_text(encoding="utf-8") for p in (ROOT / "docs").glob("*.md"))
    missing = [nb.name for nb in (ROOT / "notebooks").glob("*.ipynb") if f"`{nb.name}`" not in docs]
    assert not missing, missing
