"""The docs cannot drift: every relative link in README.md and docs/*.md resolves to a file of the
repository, docs/cli.md is what the parsers generate now, every command has its section, the seed
ships verbatim, and no ticket number or machine path appears in README.md or docs/."""

from __future__ import annotations

import hashlib
import importlib.util
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = [ROOT / "README.md", *sorted(DOCS.glob("*.md"))]
#: sha256 of the seed as distributed (UTF-8, without the trailing newline): docs/seed.md must hold exactly this text.
SEED_SHA256 = "944d56a01d47b1567a2be44b742163ac2935e9003300e692a6e7a2e3a799fa55"

LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)


def _load(name: str):
    spec = importlib.util.spec_from_file_location(name, DOCS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def relative_links(text: str) -> list[str]:
    """Targets of Markdown links and images outside code fences that are not URLs or in-page anchors.

    >>> relative_links("[a](docs/x.md#y) [b](https://e.org) ![c](f.png) [d](#top)\\n```\\n[e](no.md)\\n```")
    ['docs/x.md#y', 'f.png']
    """
    text = FENCE.sub("", text)
    targets = [a or b for a, b in LINK.findall(text)]
    return [t for t in targets if not re.match(r"^[a-z][a-z0-9+.-]*:", t) and not t.startswith("#")]


def broken_links(text: str, folder: Path) -> list[str]:
    """Relative link targets of ``text`` (a page in ``folder``) that are not files or folders inside the repository."""
    root = ROOT.resolve()
    broken = []
    for target in relative_links(text):
        path = (folder / target.split("#", 1)[0]).resolve()
        if not path.is_relative_to(root) or not path.exists():
            broken.append(target)
    return broken


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_every_relative_link_resolves_inside_the_repository(page: Path) -> None:
    broken = broken_links(page.read_text(encoding="utf-8"), page.parent)
    assert not broken, f"{page.name}: links that do not resolve inside the repository: {broken}"


def test_the_link_checker_catches_broken_links() -> None:
    text = "[seed](../shared/seed/above-threshold.txt) [ok](docs/seed.md#top) [gone](docs/no-such-page.md) [up](LICENSE)"
    assert broken_links(text, ROOT) == ["../shared/seed/above-threshold.txt", "docs/no-such-page.md"]


@pytest.mark.parametrize("page", PAGES, ids=[p.relative_to(ROOT).as_posix() for p in PAGES])
def test_no_ticket_numbers_or_machine_paths(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    if page.name == "seed.md":
        return  # the seed is quoted verbatim
    tickets = re.findall(r"\bissues? #?\d+\b|\bticket #?\d+\b", text, re.I)
    paths = re.findall(r"(?:/work/|/home/|/root/|/Users/|/tmp/|[A-Z]:\\\\)\S*", text)
    assert not tickets and not paths, f"{page.name}: tickets {tickets}, machine paths {paths}"


def test_cli_reference_is_current() -> None:
    expected = _load("generate_cli").cli_markdown()
    current = (DOCS / "cli.md").read_text(encoding="utf-8")
    assert current == expected, "docs/cli.md is stale: run python docs/generate_cli.py --write docs/cli.md"


def test_every_command_has_its_section_in_the_cli_reference() -> None:
    from verify.cli.main import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    documented = set(re.findall(r"^## svt-verify ([a-z-]+)$", text, re.M))
    assert documented == set(sub.choices), (documented, set(sub.choices))
    for name, command in sub.choices.items():
        section = text.split(f"## svt-verify {name}\n", 1)[1].split("\n## ", 1)[0]
        flags = {o for a in command._actions for o in a.option_strings if o.startswith("--") and o != "--help"}
        missing = [f for f in flags if f"`{f}" not in section]
        assert not missing, f"svt-verify {name}: flags missing from docs/cli.md: {missing}"


def test_the_seed_ships_verbatim() -> None:
    text = (DOCS / "seed.md").read_text(encoding="utf-8")
    block = text.split("<!-- seed:start -->\n```text\n", 1)[1].split("\n```\n<!-- seed:end -->", 1)[0]
    assert hashlib.sha256(block.encode("utf-8")).hexdigest() == SEED_SHA256, "docs/seed.md differs from the seed"
    for heading in ("Mechanism One", "Privacy Guarantee", "Proof 1.", "Mechanism Two", "Utility Guarantee"):
        assert heading in block


def test_license_is_mit_as_pyproject_says() -> None:
    license_text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert license_text.startswith("MIT License") and "the svt-verify authors" in license_text
    assert 'license = { text = "MIT" }' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")


def test_every_notebook_has_a_checks_cell() -> None:
    """The docs say every notebook ends with a Checks cell that asserts what it teaches."""
    import nbformat

    for path in sorted((ROOT / "notebooks").glob("*.ipynb")):
        nb = nbformat.read(path, as_version=4)
        code = [c for c in nb.cells if c.cell_type == "code"]
        last = code[-1].source
        assert "assert" in last and any("Checks" in c.source for c in nb.cells if c.cell_type == "markdown"), path.name
