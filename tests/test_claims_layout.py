"""The shape of proofs/: no import cycle, no file over 500 lines, no verdict word as a bare string
literal (the words live in verify/verdicts.py), no import of another module's private names, and every
claim's sides declared with the claim."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from proofs import all_claims
from verify.verdicts import CertificateVerdict, ClaimVerdict, MechanismVerdict, SweepVerdict, Tightness

PROOFS = Path(__file__).resolve().parent.parent / "proofs"
MODULES = {p.stem: p for p in PROOFS.glob("*.py") if p.stem != "__init__"}
VERDICT_WORDS = {str(v) for enum in (ClaimVerdict, MechanismVerdict, SweepVerdict, CertificateVerdict, Tightness) for v in enum}


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"))


def _top_level_imports(path: Path) -> set[str]:
    """proofs modules imported at module level (not inside functions)."""
    out = set()
    for node in _tree(path).body:
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("proofs"):
            parts = node.module.split(".")
            if len(parts) == 2:
                out.add(parts[1])
            else:  # from proofs import x
                out.update(a.name for a in node.names if a.name in MODULES)
        elif isinstance(node, ast.Import):
            out.update(a.name.split(".")[1] for a in node.names if a.name.startswith("proofs."))
    return out & set(MODULES)


def test_no_import_cycle() -> None:
    graph = {m: _top_level_imports(p) for m, p in MODULES.items()}
    state: dict[str, int] = {}

    def visit(m: str, path: tuple[str, ...]) -> None:
        if state.get(m) == 2:
            return
        assert state.get(m) != 1, f"import cycle: {' -> '.join((*path, m))}"
        state[m] = 1
        for n in graph[m]:
            visit(n, (*path, m))
        state[m] = 2

    for m in graph:
        visit(m, ())


def test_no_file_over_500_lines() -> None:
    long = {m: n for m, p in MODULES.items() if (n := len(p.read_text(encoding="utf-8").splitlines())) > 500}
    assert not long


def test_no_verdict_word_as_a_string_literal() -> None:
    found = []
    for m, p in MODULES.items():
        if m == "sweeps":  # owned by the shared screening engine, ported separately
            continue
        for node in ast.walk(_tree(p)):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value in VERDICT_WORDS:
                found.append(f"{m}.py:{node.lineno}: {node.value!r}")
    assert not found, found


@pytest.mark.slow
def test_no_private_name_imported_from_another_module() -> None:
    found = []
    for m, p in MODULES.items():
        for node in ast.walk(_tree(p)):
            if isinstance(node, ast.ImportFrom):
                found += [f"{m}.py:{node.lineno}: {a.name}" for a in node.names if a.name.startswith("_") and a.name != "__future__"
                          and not a.name.startswith("__")]
    assert not found, found


def test_sides_are_declared_with_the_claims() -> None:
    assert not (PROOFS / "sides.py").exists()
    with_sides = [c for c in all_claims() if c.lhs is not None]
    assert len(with_sides) >= 60
    assert all(c.rhs is not None for c in with_sides)


def _order_after_importing_first(first: str, conn) -> None:
    """In a forked child: forget every proofs module, import ``first`` afresh, send `all_claims()`'s IDs."""
    import importlib
    import sys

    for name in [n for n in sys.modules if n == "proofs" or n.startswith("proofs.")]:
        del sys.modules[name]
    importlib.import_module(first)
    from proofs.registry import all_claims as fresh_all_claims

    conn.send([c.id for c in fresh_all_claims()])
    conn.close()


@pytest.mark.slow
def test_the_registry_orders_claims_by_module_whatever_was_imported_first():
    """`all_claims()` follows `proofs.registry.MODULES`, not the import order: a process that imports a later
    claim module first (as a test or a notebook may) gets the same order as one that does not.  Each order
    comes from a child forked from this process with every ``proofs`` module removed from ``sys.modules``, so
    that the claim modules are imported afresh in the order given (the registry is new; numpy, sympy and
    ``verify`` stay loaded, which spares a Python start-up of about 3 s of CPU per order)."""
    import multiprocessing

    expected = [c.id for c in all_claims()]  # in this process first: the children inherit what the claims import
    ctx = multiprocessing.get_context("fork")
    orders = []
    for first in ("proofs", "proofs.noisy_max_twice", "proofs.beyond_seed"):
        recv, send = ctx.Pipe(duplex=False)
        child = ctx.Process(target=_order_after_importing_first, args=(first, send))
        child.start()
        send.close()
        orders.append(recv.recv())
        child.join(60)
        assert child.exitcode == 0, first
    assert orders[0] == orders[1] == orders[2] == expected
    assert orders[0][0].startswith("M1.")
