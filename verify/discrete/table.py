"""The discrete rows of the `family` table: the discrete presets on the one worst-case search and verdict.

Configuration: ε = 1, Δ = 1, t = 0.  Unlike continuous Laplace noise, the loss of
a discrete variant divided by ε depends on ε (the lattice ℤ does not scale), so
the configuration is part of every number.  Each row is one
`verify.family.worstcase.family_worst_case` (the integer searches of
`verify.discrete.search`, confirmed at 50 digits, the one verdict rule), searched up
to 5 queries for AboveThreshold rows (cutoff 1) and 2 otherwise (the exhaustive box).
A row is a `verify.family.table.FamilyRow`: the same JSON keys as the continuous rows,
plus ``compare`` and ``search_domain``.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath

from verify.discrete.search import check_search_for
from verify.errors import InputError
from verify.exact import fmt
from verify.family.presets import preset
from verify.family.table import FamilyRow, RowTask, TableConfig, TableRun
from verify.precision import MPMATH_LOCK

#: (preset, cutoff, compare) of every row.
ROWS: tuple[tuple[str, int, str], ...] = (
    ("sampcert-above-threshold", 1, "ge"), ("sampcert-above-threshold", 1, "gt"),
    ("dlap-seed-m1", 1, "ge"), ("dlap-lyu-1", 2, "ge"), ("dgauss-above-threshold", 1, "ge"),
)

#: Largest number of queries searched for a cutoff-1 row (structured) and for the others (the exhaustive box).
MAX_STRUCTURED_QUERIES, MAX_BOX_QUERIES = 5, 2


def row_mechanism(name: str, cutoff: int, compare: str, epsilon: object = 1, sensitivity: object = 1, threshold: object = 0):
    """The row's variant (`verify.family.presets.preset`, the one registry)."""
    return preset(name, epsilon, sensitivity, threshold, cutoff=cutoff, compare=compare)


def check_table(rows=ROWS, epsilon: object = 1, sensitivity: object = 1, threshold: object = 0,
                max_queries: int = MAX_STRUCTURED_QUERIES) -> None:
    """Every row's variant and the size limits of its searches (`verify.discrete.search.check_search_for`), checked
    before any row of the whole `family` table runs: a row it cannot compute is refused in one line up front."""
    for name, cutoff, compare in rows:
        most = MAX_STRUCTURED_QUERIES if cutoff == 1 else MAX_BOX_QUERIES
        try:
            check_search_for(row_mechanism(name, cutoff, compare, epsilon, sensitivity, threshold), min(max_queries, most))
        except InputError as exc:
            raise InputError(f"discrete row {name} (c = {cutoff}, {compare}): {exc} (or leave the discrete rows out: "
                             "--no-discrete)") from None


def discrete_tasks(rows=ROWS, epsilon: object = 1, sensitivity: object = 1, threshold: object = 0,
                   max_queries: int = MAX_STRUCTURED_QUERIES) -> list[RowTask]:
    """The rows as tasks of a `verify.family.table.TableRun` at one configuration (ε, Δ, t; Δ and t integers),
    each searched up to ``min(max_queries, 5)`` queries (cutoff 1, structured) or ``min(max_queries, 2)`` (the
    exhaustive box); every row's variant is validated here, before any search."""
    config = TableConfig(Fraction(epsilon), Fraction(sensitivity), Fraction(threshold))
    tasks = []
    for name, cutoff, compare in rows:
        row_mechanism(name, cutoff, compare, epsilon, sensitivity, threshold)
        most = MAX_STRUCTURED_QUERIES if cutoff == 1 else MAX_BOX_QUERIES
        tasks.append(RowTask(name, cutoff, min(max_queries, most), False, config, compare))
    return tasks


def discrete_table(rows=ROWS, epsilon: object = 1, sensitivity: object = 1, threshold: object = 0,
                   max_queries: int = MAX_STRUCTURED_QUERIES, workers: int | None = 1) -> list[FamilyRow]:
    """Every row at one configuration (`discrete_tasks`), on ``workers`` processes (default 1: here, one after
    another), in the rows' order."""
    tasks = discrete_tasks(rows, epsilon, sensitivity, threshold, max_queries)
    return TableRun(rows=(), workers=workers, extra=tasks).table()


def render(rows: list[FamilyRow]) -> str:
    head = f"{'preset':26s} {'c':>2s} {'cmp':4s} {'verdict':12s} {'bound':>6s} {'loss found':>20s}  witness"
    lines = [head, "-" * len(head)]
    for r in rows:
        v, w = r.result, r.result.witness
        bound = "-" if v.upper_bound is None else fmt(v.upper_bound.value)
        with MPMATH_LOCK, mpmath.workdps(w.digits + 15):
            loss = mpmath.nstr(v.loss, 15)
        lines.append(f"{r.name:26s} {r.cutoff:>2d} {v.shape.compare.value:4s} {v.verdict.value:12s} {bound:>6s} "
                     f"{loss:>20s}  q={[int(x) for x in w.queries]} q'={[int(x) for x in w.neighbour]} {w.outcome}")
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover - python -m verify.discrete.table
    print(render(discrete_table()))
