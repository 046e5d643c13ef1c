"""The claims' verdict rows checked on several processes (the claims section of ``svt-verify report``).

A claim's default verdict is deterministic (its checkers seed every generator they use), and a
conclusion reads the verdicts of its links, which are the same whether they were cached or checked
afresh (`proofs.claim.Claim.check`).  So the claims can be split between processes and the rows put
back in the registry's order: the result equals `proofs.findings.verdict_rows()` of a serial run, row
for row (tests/test_claims_parallel.py; the report's JSON was compared in full).  The unit of work is the claims of one section of the seed: a conclusion and
most of its links share a section, so few claims are checked twice; a worker that takes a second
section keeps the verdicts and the shared computations (sweeps, certificates, sympy lemmas) of the
first in its caches.  The sections are handed out largest first, each to the next free worker.
"""

from __future__ import annotations

import atexit
import multiprocessing
from typing import Any

from verify.parallel import ignore_sigint, sigint_deferred

#: Sections with fewer claims than this are checked together, as one unit of work.
SMALL_SECTION = 6


def units_of_work(ids: list[str] | None = None) -> list[list[str]]:
    """The claim IDs grouped by the seed's section (`proofs.claim.Claim.section`), largest group first;
    the sections of fewer than `SMALL_SECTION` claims (the theorems, the examples, the claims beyond the
    seed, which reuse the theorem's verdict) form one unit.  A conclusion and its links share a section.
    The grouping only balances the workers; it never changes a row."""
    from proofs.registry import all_claims

    groups: dict[str, list[str]] = {}
    for claim in all_claims():
        if ids is not None and claim.id not in ids:
            continue
        groups.setdefault(claim.section, []).append(claim.id)
    units = sorted((ids for ids in groups.values() if len(ids) >= SMALL_SECTION), key=len, reverse=True)
    small = [i for ids in groups.values() if len(ids) < SMALL_SECTION for i in ids]
    return units + [small] * bool(small)


def _rows_of(ids: list[str]) -> list[dict[str, Any]]:
    from proofs.findings import verdict_rows
    from proofs.registry import get_claim

    return verdict_rows([get_claim(i) for i in ids])


class ClaimRows:
    """The verdict rows of every claim (or of the claims ``ids``), checked on ``workers`` processes from
    the moment this object is made, so that the caller can do other work meanwhile; `rows` waits for them.  ``workers = 1``: checked
    here, serially, when `rows` is called.  Workers still running when the interpreter exits (the caller
    was interrupted) are terminated."""

    def __init__(self, workers: int, ids: list[str] | None = None) -> None:
        self._pool = None
        self._ids = ids
        self._parts: list[Any] = []
        if workers > 1:
            units = units_of_work(ids)
            with sigint_deferred():  # Ctrl-C during the forks is delivered after them
                self._pool = multiprocessing.get_context().Pool(min(workers, len(units)), initializer=ignore_sigint)
            self._parts = [self._pool.apply_async(_rows_of, (u,)) for u in units]
            atexit.register(self.close)

    def rows(self) -> list[dict[str, Any]]:
        """`proofs.findings.verdict_rows()` of the claims, in the registry's order."""
        from proofs.findings import verdict_rows
        from proofs.registry import all_claims

        claims = [c for c in all_claims() if self._ids is None or c.id in self._ids]
        if self._pool is None:
            return verdict_rows(claims)
        try:
            by_id = {r["id"]: r for part in self._parts for r in part.get()}
        finally:
            self.close()
        return [by_id[c.id] for c in claims]

    def close(self) -> None:
        """Stop the workers (done or not)."""
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None
            atexit.unregister(self.close)


def _verdicts_of(ids: list[str]) -> list[tuple[str, Any]]:
    from proofs.registry import get_claim

    return [(i, get_claim(i).check()) for i in ids]


def parallel_verdicts(workers: int, ids: list[str] | None = None) -> dict[str, Any]:
    """Every claim's default `proofs.claim.Verdict` (or those of ``ids``) by ID, in the registry's order, checked on
    ``workers`` processes as the rows are (`units_of_work`, largest first, each to the next free worker; 1: here,
    serially).  The test suite computes its shared verdicts so (tests/conftest.py, ``claim_verdicts``); this process's
    verdict cache is left as it was (`proofs.claim.remember_verdicts` takes them in)."""
    from proofs.registry import all_claims

    claims = [c for c in all_claims() if ids is None or c.id in ids]
    if workers <= 1:
        return {c.id: c.check() for c in claims}
    units = units_of_work(ids)
    with sigint_deferred():  # Ctrl-C during the forks is delivered after them
        pool = multiprocessing.get_context().Pool(min(workers, len(units)), initializer=ignore_sigint)
    try:
        parts = pool.map(_verdicts_of, units, chunksize=1)
    finally:
        pool.terminate()
        pool.join()
    by_id = dict(pair for part in parts for pair in part)
    return {c.id: by_id[c.id] for c in claims}


def parallel_verdict_rows(workers: int) -> list[dict[str, Any]]:
    """`proofs.findings.verdict_rows()` of every claim, checked on ``workers`` processes (1: here, serially)."""
    return ClaimRows(workers).rows()
