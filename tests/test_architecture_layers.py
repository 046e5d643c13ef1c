"""The layer order of docs/architecture.md, checked on the imports of every module in `verify/`.

Each module of `verify/` gets a layer from `LAYER_RULES` (the table docs/architecture.md states);
an import may point to the same layer or a lower one, never up, and the module graph has no
loop.  Imports are read with ast (the source is never imported), at module level and inside
functions; ``if TYPE_CHECKING:`` imports are not executed and are skipped.  Importing
``verify.a.b`` also runs the package ``verify.a`` (its ``__init__``), so that edge is counted too,
except for the root package `verify`, whose ``__init__`` imports nothing at run time (PEP 562
``__getattr__``).

A function-local import of a `verify` module needs a reason: a ``# lazy: <reason>`` comment on
its line, or one of the two standing rules below (`LAZY_IMPORTERS`: the command modules are
imported to register their flags, so they load the library in ``run``; `LAZY_TARGETS`: the numba
kernels compile on import, so commands that do not use them never load numba).

A module missing from the table fails with a message saying to add it: a new module in a
package that has a ``.*`` rule is placed automatically; a new top-level module or package needs
one line in `LAYER_RULES` (and in docs/architecture.md's table).
"""

from __future__ import annotations

import ast
import functools
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

#: The layers, lowest first.  An import may point to its own layer or one listed before it.
LAYERS = ("base", "noise", "release", "mechanism", "text", "engine", "probabilities", "ratio", "checker", "interface")

#: Module -> layer.  ``"pkg.*"`` matches the package ``pkg`` and everything under it; any other key
#: matches that one module.  An exact key wins, else the longest matching ``.*`` key.
LAYER_RULES: dict[str, str] = {
    # vocabulary, exact numbers, precision, validation, the process pool
    "verify.errors": "base", "verify.verdicts": "base", "verify.exact": "base", "verify.validate": "base",
    "verify.precision": "base", "verify.comparison": "base", "verify.parallel": "base", "verify.logratio": "base",
    "verify.lazy": "base", "verify.jit_interrupts": "base",
    "verify.noise.*": "noise",
    "verify.release.*": "release",
    # the one mechanism type, the integer rules it validates, named variants and the samplers
    "verify.mechanism": "mechanism", "verify.integer_rules": "mechanism",
    "verify.family": "mechanism", "verify.discrete": "mechanism", "verify.family.presets": "mechanism", "verify.family.sampler": "mechanism",
    "verify.discrete.presets": "mechanism", "verify.discrete.sampler": "mechanism",
    "verify.selection": "mechanism", "verify.selection.model": "mechanism", "verify.selection.presets": "mechanism",
    "verify.selection.sampler": "mechanism",
    "verify.adaptive": "mechanism", "verify.adaptive.model": "mechanism", "verify.adaptive.presets": "mechanism",
    "verify.adaptive.sampler": "mechanism",
    # text of a mechanism and of results (JSON, Markdown)
    "verify.serialize": "text", "verify.notebook": "text",
    # the engine room and the independent oracles (a room of their own: test_oracles_import_no_engine)
    "verify.engine.*": "engine", "verify.oracles.*": "engine",
    # front doors
    "verify.doors.*": "probabilities", "verify.probabilities": "probabilities", "verify.family.probability": "probabilities",
    "verify.family.fast_api": "probabilities", "verify.discrete.probability": "probabilities",
    "verify.selection.probability": "probabilities", "verify.selection.fast": "probabilities",
    "verify.selection.discrete": "probabilities", "verify.selection.laplace_rows": "probabilities",
    "verify.adaptive.probability": "probabilities", "verify.adaptive.fast": "probabilities",
    "verify.ratio": "ratio",
    # screens, sweeps, searches, bounds, verdicts, δ, tables, certification, audit, plots
    "verify.family.*": "checker", "verify.discrete.*": "checker", "verify.worstcase.*": "checker",
    "verify.sweep.*": "checker", "verify.certify.*": "checker", "verify.audit.*": "checker",
    "verify.selection.*": "checker", "verify.adaptive.*": "checker", "verify.peers.*": "checker", "verify.screen": "checker", "verify.seed_check": "checker", "verify.plots": "checker",
    # the public API and the command line
    "verify": "interface", "verify.__main__": "interface", "verify.cli.*": "interface",
}

#: Modules whose every function-local import is lazy for a standing reason.
LAZY_IMPORTERS: dict[str, str] = {
    "verify.cli.*": "start-up: a command module is imported to register its flags; it loads the library in run()",
    "verify.__main__": "start-up: `python -m verify --version` answers before the library loads",
}
#: Modules that may always be imported inside a function, and why.
LAZY_TARGETS: dict[str, str] = {
    "verify.engine.nodes": "numba: compiled on import", "verify.engine.halting_kernel": "numba: compiled on import",
    "verify.engine.piece_kernel": "numba: compiled on import", "verify.engine.halting_extended": "numba: compiled on import",
}
#: Loops left on purpose, each with its reason; a listed loop that disappears fails too (then delete its line).
KNOWN_LOOPS: dict[frozenset[str], str] = {
}
#: The engine room (and the front doors that call it), which the oracles must never reach.
ENGINE = ("verify.engine.", "verify.doors", "verify.probabilities", "verify.family.probability", "verify.family.fast_api",
          "verify.discrete.probability")


def _match(rules: dict[str, str], module: str) -> str | None:
    if module in rules:  # an exact key wins over every package rule
        return rules[module]
    best = None
    for key, value in rules.items():
        hit = (module == key[:-2] or module.startswith(key[:-1])) if key.endswith(".*") else module == key
        if hit and (best is None or len(key) > len(best[0])):
            best = (key, value)
    return None if best is None else best[1]


def _module_name(p: Path) -> str:
    parts = list(p.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _sources() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted((ROOT / "verify").rglob("*.py")) if "__pycache__" not in p.parts}


def _resolve(name: str, modules: set[str]) -> str | None:
    parts = name.split(".")
    while parts:
        if ".".join(parts) in modules:
            return ".".join(parts)
        parts.pop()
    return None


def imports_of(source: str, module: str, is_package: bool, modules: set[str]) -> list[tuple[str, int, bool, str | None]]:
    """(imported project module, line, inside a function, the line's ``# lazy:`` reason or None),
    relative imports resolved, ``TYPE_CHECKING`` blocks skipped, ``from p import m`` read as module m.

    Imports are statements, so only statement nodes are visited (expressions never hold one); the
    imports come out in the breadth-first order of ``ast.walk`` (sorted by depth, then by their path
    of child positions), so the first line recorded for a target is the same as a full walk's."""
    tree = ast.parse(source)
    lines = source.splitlines()
    nodes: list[tuple[int, tuple[int, ...], ast.Import | ast.ImportFrom, bool]] = []
    has_flag = "TYPE_CHECKING" in source  # else no test can mention it: skip unparsing every `if`

    def visit(node: ast.AST, depth: int, path: tuple[int, ...], local: bool) -> None:
        for i, child in enumerate(ast.iter_child_nodes(node)):
            if not isinstance(child, (ast.stmt, ast.excepthandler, ast.match_case)):
                continue
            if isinstance(child, ast.If) and has_flag and "TYPE_CHECKING" in ast.unparse(child.test):
                continue  # not executed at run time: the whole block (and its else) is skipped
            where = (*path, i)
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                nodes.append((depth + 1, where, child, local))
            visit(child, depth + 1, where, local or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)))

    visit(tree, 0, (), False)
    nodes.sort(key=lambda item: item[:2])
    out = []
    for _, _, node, local in nodes:
        marker = re.search(r"#\s*lazy:\s*(\S.*)", lines[node.lineno - 1])
        reason = marker.group(1).strip() if marker else None
        targets = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        else:
            base = node.module or ""
            if node.level:
                pkg = module.split(".") if is_package else module.split(".")[:-1]
                pkg = pkg[: len(pkg) - (node.level - 1)]
                base = ".".join(pkg + ([base] if base else []))
            targets = [f"{base}.{a.name}" for a in node.names]
        for t in targets:
            hit = _resolve(t, modules)
            if hit is not None:
                out.append((hit, node.lineno, local, reason))
    return out


@functools.cache
def _imports_once(source: str, module: str, is_package: bool, modules: frozenset[str]) -> tuple:
    """`imports_of`, parsed once a session per file (four tests read every module's imports)."""
    return tuple(imports_of(source, module, is_package, set(modules)))


def import_graph(sources: dict[str, str], packages: set[str]) -> dict[str, dict[str, int]]:
    """module -> {imported module: line}, with the implicit edge to each package a target sits in
    (other than the root `verify` and the importer's own packages)."""
    modules = frozenset(sources)
    graph: dict[str, dict[str, int]] = {m: {} for m in modules}
    for m, src in sources.items():
        for t, line, _, _ in _imports_once(src, m, m in packages, modules):
            chain = t.split(".")
            for i in range(2, len(chain) + 1):
                target = ".".join(chain[:i])
                if target in modules and target != m and not (m + ".").startswith(target + "."):
                    graph[m].setdefault(target, line)
    return graph


def upward_edges(graph: dict[str, dict[str, int]], rules: dict[str, str]) -> list[str]:
    rank = {name: i for i, name in enumerate(LAYERS)}
    bad = []
    for m, targets in sorted(graph.items()):
        for t, line in sorted(targets.items()):
            lm, lt = _match(rules, m), _match(rules, t)
            if lm and lt and rank[lt] > rank[lm]:
                bad.append(f"{m}:{line} ({lm}) imports {t} ({lt}), a higher layer")
    return bad


def cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, {})))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    x = stack.pop()
                    on.discard(x)
                    comp.append(x)
                    if x == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def _project():
    paths = _sources()
    sources = {m: p.read_text(encoding="utf-8") for m, p in paths.items()}
    packages = {m for m, p in paths.items() if p.name == "__init__.py"}
    return paths, sources, packages


def test_every_module_has_a_layer():
    paths, _, _ = _project()
    missing = [m for m in paths if _match(LAYER_RULES, m) is None]
    assert not missing, (f"modules without a layer: {missing}; add them to LAYER_RULES in "
                         "tests/test_architecture_layers.py and to the table of docs/architecture.md")


@pytest.mark.slow
def test_no_import_points_up_a_layer():
    _, sources, packages = _project()
    bad = upward_edges(import_graph(sources, packages), LAYER_RULES)
    assert not bad, "imports from a lower layer to a higher one:\n" + "\n".join(bad)


def test_no_import_loop():
    _, sources, packages = _project()
    loops = {frozenset(c) for c in cycles(import_graph(sources, packages))}
    assert not loops - set(KNOWN_LOOPS), f"import loops: {[sorted(c) for c in loops - set(KNOWN_LOOPS)]}"
    assert not set(KNOWN_LOOPS) - loops, f"listed loops that no longer exist (delete them): {set(KNOWN_LOOPS) - loops}"


def test_function_local_imports_have_a_reason():
    paths, sources, packages = _project()
    bad = []
    for m, src in sources.items():
        if _match(LAZY_IMPORTERS, m):
            continue
        for t, line, local, reason in _imports_once(src, m, m in packages, frozenset(paths)):
            if frozenset({m, t}) in KNOWN_LOOPS:
                continue
            if local and reason is None and _match(LAZY_TARGETS, t) is None:
                bad.append(f"{m}:{line} imports {t} inside a function (move it to the top, or say why: '# lazy: <reason>')")
    assert not bad, "\n".join(bad)


def _closure(graph: dict[str, dict[str, int]], start: str) -> set[str]:
    seen, todo = set(), [start]
    while todo:
        m = todo.pop()
        for t in graph.get(m, {}):
            if t not in seen:
                seen.add(t)
                todo.append(t)
    return seen


def test_oracles_import_no_engine():
    """The oracles re-check the engine, so nothing they load, directly or not, is the engine or a front door."""
    paths, sources, packages = _project()
    graph = import_graph(sources, packages)
    oracles = [m for m in paths if m.startswith("verify.oracles")]
    assert len(oracles) >= 3
    for m in oracles:
        reached = sorted(t for t in _closure(graph, m) if t.startswith(ENGINE))
        assert not reached, f"{m} reaches the engine: {reached}"


def test_the_layer_checks_catch_what_they_are_for():
    """Negative controls: an upward edge, a loop, a loop through a package's __init__, an unreasoned
    local import and an unknown module are each caught; a reasoned one and TYPE_CHECKING are not."""
    rules = {"p.low": "base", "p.high": "checker", "p.pkg.*": "engine"}
    sources = {
        "p.low": "from p.high import x\n",
        "p.high": "import p.low\n",
        "p.pkg": "from p.pkg.b import y\n",
        "p.pkg.a": "def f():\n    from p.pkg.b import y\n    import p.low  # lazy: start-up\n",
        "p.pkg.b": "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import p.high\n",
        "p.user": "from p.pkg.a import f\n",
    }
    packages = {"p.pkg"}
    graph = import_graph(sources, packages)
    assert upward_edges(graph, rules) == ["p.low:1 (base) imports p.high (checker), a higher layer"]
    assert cycles(graph) == [["p.high", "p.low"]]
    assert "p.pkg" in graph["p.user"] and "p.high" not in graph["p.pkg.b"]
    found = imports_of(sources["p.pkg.a"], "p.pkg.a", False, set(sources))
    assert [(t, local, reason) for t, _, local, reason in found] == [("p.pkg.b", True, None), ("p.low", True, "start-up")]
    loop = {"p.pkg": "from p.pkg.b import y\n", "p.pkg.b": "from p.user import z\n", "p.user": "from p.pkg.b import y\n"}
    assert cycles(import_graph(loop, {"p.pkg"})) == [["p.pkg", "p.pkg.b", "p.user"]]
    assert _match(LAYER_RULES, "verify.brand_new") is None
    assert _match(LAYER_RULES, "verify.engine.brand_new") == "engine"
    assert _match(LAYER_RULES, "verify.family.probability") == "probabilities"
    assert _match(LAYER_RULES, "verify.family") == "mechanism" and _match(LAYER_RULES, "verify.family.x") == "checker"


@pytest.mark.parametrize("layer", sorted(set(LAYER_RULES.values()) | set(LAYERS)))
def test_the_table_names_known_layers(layer):
    assert layer in LAYERS
