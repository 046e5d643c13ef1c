"""The discrete rows of the `family` table: exact verdicts of the discrete presets.

Configuration: ε = 1, Δ = 1, t = 0.  Unlike continuous Laplace noise, the loss of
a discrete variant divided by ε depends on ε (the lattice ℤ does not scale), so
the configuration is part of every number.  Search: the structured search up
to 5 queries for AboveThreshold rows (cutoff 1), the exhaustive 2-query box
otherwise (`verify.discrete.search`, both confirmed at 50 digits).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import mpmath

from verify.discrete.presets import discrete_preset
from verify.discrete.verdict import DiscreteVerdict, discrete_verdict
from verify.exact import fmt

#: (preset, cutoff, compare) of every row.
ROWS: tuple[tuple[str, int, str], ...] = (
    ("sampcert-above-threshold", 1, "ge"), ("sampcert-above-threshold", 1, "gt"),
    ("dlap-seed-m1", 1, "ge"), ("dlap-lyu-1", 2, "ge"), ("dgauss-above-threshold", 1, "ge"),
)


@dataclass(frozen=True)
class DiscreteRow:
    name: str
    cutoff: int
    compare: str
    result: DiscreteVerdict
    seconds: float

    def to_json(self) -> dict[str, Any]:
        return {"preset": self.name, "cutoff": self.cutoff, "compare": self.compare, "seconds": round(self.seconds, 2),
                **self.result.to_json()}


#: Largest number of queries of the structured search of a cutoff-1 row (and of the box of the others).
MAX_STRUCTURED_QUERIES, MAX_BOX_QUERIES = 5, 2


def row_mechanism(name: str, cutoff: int, compare: str, epsilon: object = 1, sensitivity: object = 1, threshold: object = 0):
    options: dict[str, Any] = {"compare": compare}
    if name == "dlap-lyu-1":
        options["cutoff"] = cutoff
    return discrete_preset(name, epsilon, sensitivity, threshold, **options)


def discrete_table(rows=ROWS, epsilon: object = 1, sensitivity: object = 1, threshold: object = 0,
                   max_queries: int = MAX_STRUCTURED_QUERIES) -> list[DiscreteRow]:
    """Every row at one configuration (ε, Δ, t; Δ and t integers), searched up to
    ``min(max_queries, 5)`` queries (cutoff 1, structured) or ``min(max_queries, 2)`` (the exhaustive box)."""
    mechs = [(name, cutoff, compare, row_mechanism(name, cutoff, compare, epsilon, sensitivity, threshold))
             for name, cutoff, compare in rows]  # every row validated before any search
    out = []
    for name, cutoff, compare, mech in mechs:
        t0 = time.perf_counter()
        if cutoff == 1:
            res = discrete_verdict(mech, max_queries=min(max_queries, MAX_STRUCTURED_QUERIES), width=10, structured=True)
        else:
            res = discrete_verdict(mech, max_queries=min(max_queries, MAX_BOX_QUERIES), width=4)
        out.append(DiscreteRow(name, cutoff, compare, res, time.perf_counter() - t0))
    return out


def render(rows: list[DiscreteRow]) -> str:
    head = f"{'preset':26s} {'c':>2s} {'cmp':4s} {'verdict':12s} {'bound':>6s} {'loss found':>20s}  witness"
    lines = [head, "-" * len(head)]
    for r in rows:
        v, s = r.result, r.result.search
        bound = "-" if v.bound is None else fmt(v.bound)
        lines.append(f"{r.name:26s} {r.cutoff:>2d} {r.compare:4s} {v.verdict.value:12s} {bound:>6s} "
                     f"{mpmath.nstr(s.loss_confirmed, 15):>20s}  q={list(s.queries)} q'={list(s.neighbour)} {s.outcome}")
    return "\n".join(lines)


if __name__ == "__main__":  # pragma: no cover - python -m verify.discrete.table
    print(render(discrete_table()))
