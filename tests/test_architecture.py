"""The layout rules, checked on the source (parsed with ast, never imported).

* `verify/` never imports `verify.cli` (outside `verify/cli/` itself) or `proofs`;
* no file in `verify/` or `proofs/` is over 500 lines;
* no module imports another module's private (underscore) name, by
  ``from m import _x`` or by ``m._x`` on an imported module;
* no verdict word ("proved", "private", "not_private", "refuted", ...) as a bare
  string literal in a comparison, an assignment, a return or a ``verdict=`` /
  ``status=`` / ``tightness=`` argument in `verify/` outside `verify/verdicts.py`
  (docstrings, f-strings and messages are not code and are not flagged).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MAX_LINES = 500
VERDICT_WORDS = {"proved", "certified", "consistent", "undecided", "refuted", "refuted_float64", "private", "not_private",
                 "attained", "approached", "loose", "exceeded"}
VERDICT_SLOTS = {"verdict", "status", "tightness", "sweep_verdict"}


def _files(*tops: str) -> list[Path]:
    return sorted(p for top in tops for p in (ROOT / top).rglob("*.py") if "__pycache__" not in p.parts)


def _rel(p: Path) -> str:
    return p.relative_to(ROOT).as_posix()


def _module_name(p: Path) -> str:
    parts = list(p.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(tree: ast.AST, module: str, is_package: bool) -> list[tuple[str, list[str], int]]:
    """(imported module, names taken from it, line) for every import, relative ones resolved."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, [], node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                pkg = module.split(".") if is_package else module.split(".")[:-1]
                pkg = pkg[: len(pkg) - (node.level - 1)]
                base = ".".join(pkg + ([base] if base else []))
            out.append((base, [a.name for a in node.names], node.lineno))
    return out


@pytest.mark.parametrize("path", _files("verify"), ids=_rel)
def test_library_never_imports_cli_or_proofs(path: Path):
    if "cli" in path.relative_to(ROOT / "verify").parts[:1]:
        pytest.skip("verify/cli is the CLI layer")
    if path == ROOT / "verify" / "__main__.py":
        pytest.skip("python -m verify is the command line's entry point")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    bad = [(m, line) for m, _, line in _imports(tree, _module_name(path), path.name == "__init__.py")
           if m == "proofs" or m.startswith(("proofs.", "verify.cli"))]
    assert not bad, f"{_rel(path)} imports {bad}"


@pytest.mark.parametrize("path", _files("verify", "proofs"), ids=_rel)
def test_no_file_over_500_lines(path: Path):
    n = len(path.read_text(encoding="utf-8").splitlines())
    assert n <= MAX_LINES, f"{_rel(path)} has {n} lines (at most {MAX_LINES})"


def _private_uses(source: str, module: str, is_package: bool = False) -> list[str]:
    tree = ast.parse(source)
    bad = []
    aliases: dict[str, str] = {}
    for m, names, line in _imports(tree, module, is_package):
        if m == "__future__":
            continue
        for name in names:
            if name.startswith("_") and not name.startswith("__"):
                bad.append(f"line {line}: from {m} import {name}")
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                aliases[a.asname or a.name.split(".")[0]] = a.name
        elif isinstance(node, ast.ImportFrom) and node.module:
            for a in node.names:
                aliases.setdefault(a.asname or a.name, f"{node.module}.{a.name}")
    local_project = ("verify", "proofs")
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
                and isinstance(node.value, ast.Name) and aliases.get(node.value.id, "").startswith(local_project)):
            bad.append(f"line {node.lineno}: {node.value.id}.{node.attr}")
    return bad


@pytest.mark.parametrize("path", _files("verify", "proofs"), ids=_rel)
def test_no_import_of_private_names(path: Path):
    bad = _private_uses(path.read_text(encoding="utf-8"), _module_name(path), path.name == "__init__.py")
    assert not bad, f"{_rel(path)} uses private names of other modules: {bad}"


def _verdict_literals(tree: ast.AST) -> list[tuple[int, str]]:
    def word(node: ast.AST) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in VERDICT_WORDS:
            return node.value
        return None

    def words(node: ast.AST) -> list[str]:
        if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            return [w for e in node.elts if (w := word(e))]
        w = word(node)
        return [w] if w else []

    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            for side in [node.left, *node.comparators]:
                found += [(node.lineno, w) for w in words(side)]
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.Return)) and node.value is not None:
            found += [(node.lineno, w) for w in words(node.value)]
        elif isinstance(node, ast.keyword) and node.arg in VERDICT_SLOTS:
            found += [(node.value.lineno, w) for w in words(node.value)]
        elif isinstance(node, ast.IfExp):
            found += [(node.lineno, w) for w in words(node.body) + words(node.orelse)]
    return found


@pytest.mark.parametrize("path", [p for p in _files("verify") if _rel(p) != "verify/verdicts.py"], ids=_rel)
def test_no_verdict_string_literals(path: Path):
    found = _verdict_literals(ast.parse(path.read_text(encoding="utf-8")))
    assert not found, f"{_rel(path)}: verdict words as bare strings (use verify.verdicts): {found}"


def test_the_checks_catch_what_they_are_for():
    """Negative controls: each check flags a planted violation and not a docstring."""
    src = ('"""A docstring saying proved and private."""\n'
           'from verify.sweep.driver import _fold\n'
           'import verify.sweep.decision as d\n'
           'x = d._hidden\n'
           'def f(v):\n'
           '    msg = f"verdict: {v} (refuted?)"\n'
           '    if v == "not_private":\n'
           '        return "proved"\n'
           '    return msg\n')
    tree = ast.parse(src)
    assert sorted(w for _, w in _verdict_literals(tree)) == ["not_private", "proved"]
    bad = _private_uses(src, "verify.planted")
    assert any("_fold" in b for b in bad) and any("d._hidden" in b for b in bad)
    assert _private_uses("from .results import _x\n", "verify.sweep.planted") == ["line 1: from verify.sweep.results import _x"]
