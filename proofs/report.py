"""``svt-verify report`` (also what a bare ``svt-verify`` runs): the main job.

1. Both seed mechanisms and the negative controls: a grid sweep of the privacy
   ratio, a sweep of the proofs' conditional ratio and the worst-case search
   (`verify.seed_check`).
2. Every claim of the seed with its verdict (`proofs.findings.verdict_rows`),
   which includes the rigorous certificates of `verify.certify`.

The report lives in ``proofs/`` because it combines the library's checks with
the claims built on it; ``verify/`` never imports ``proofs``.
"""

from __future__ import annotations

import argparse
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import asdict
from typing import Any

from verify.cli import flags, limits
from verify.cli.common import emit_json
from verify.cli.progress import add_progress_flag
from verify.verdicts import CLAIM_VERDICT_ORDER, ClaimVerdict


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "report",
        help="the verification report: both seed mechanisms, negative controls and every claim of the seed (default command)",
        description="Check both seed mechanisms and the negative controls (sweeps and worst-case search), then every claim "
        "of the seed's proofs with its verdict.",
    )
    lo, hi = limits.REPORT_EPSILON_RANGE
    p.add_argument("--epsilon", type=flags.number_range(lo, hi), default="1", metavar="E",
                   help="ε of the mechanism checks (1e-8..300, default 1)")
    p.add_argument("--max-queries", type=flags.integer(1, limits.REPORT_MAX_QUERIES), default="5", metavar="K",
                   help=f"worst-case search up to K queries (1..{limits.REPORT_MAX_QUERIES}, default 5)")
    p.add_argument("--workers", type=flags.integer(1, limits.MAX_WORKERS), default=None, metavar="N",
                   help="processes for the mechanism checks, the claims and the family table's rows (default all cores)")
    p.add_argument("--no-claims", action="store_true", help="skip the claims of the proofs (mechanism checks only)")
    p.add_argument("--no-family", action="store_true", help="skip the SVT family table (svt-verify family)")
    p.add_argument("--json", action="store_true", help="print one JSON object: mechanisms, claims, summary, seconds")
    add_progress_flag(p)
    p.set_defaults(func=run)


def build_report(epsilon: object = "1", max_queries: int = 5, workers: int | None = None, claims: bool = True,
                 family: bool = True, run: Any = None) -> dict[str, Any]:
    """The report as a dict (also what ``--json`` prints).

    ``family``: also the SVT family table at DP-Sniper's configuration (`verify.family.table`),
    whose ε, t and query count are its own (the table's), not ``epsilon``/``max_queries``; its rows run
    on ``workers`` processes too (`verify.family.table.TableRun`).
    ``run``: a `verify.cli.progress.Staged` whose bars and sections show each part as it is done.
    The claims start first, on their own worker processes (`proofs.parallel`), and run beside the
    mechanism checks; the seconds printed for the claims are the wait after the mechanisms finish."""
    from proofs.parallel import ClaimRows
    from verify import validate
    from verify.parallel import default_workers
    from verify.seed_check import check_seed_mechanisms

    eps = validate.number_in(epsilon, "--epsilon", lo=limits.REPORT_EPSILON_RANGE[0], hi=limits.REPORT_EPSILON_RANGE[1])
    validate.integer_in(max_queries, "--max-queries", 1, limits.REPORT_MAX_QUERIES)
    if workers is not None:
        validate.integer_in(workers, "--workers", 1, limits.MAX_WORKERS)
    show = _Sections(run, eps)
    t0 = time.perf_counter()
    # the claims start on their own worker processes and run beside the mechanism checks (proofs.parallel)
    pending = ClaimRows(default_workers() if workers is None else workers) if claims else None
    with show.stage("mechanisms"):
        rows = check_seed_mechanisms(eps, max_queries=max_queries, workers=workers)
    show.mechanisms(rows)
    t1 = time.perf_counter()
    claim_rows: list[dict[str, Any]] = []
    if pending is not None:
        with show.stage("claims"):
            claim_rows = pending.rows()
        show.claims(claim_rows)
    t2 = time.perf_counter()
    family_rows = []
    if family:
        from verify.family.table import TableRun

        # the table's rows on their own worker processes (started before the stage's bar thread)
        with TableRun(workers=workers) as family_run, show.stage("family"):
            family_rows = family_run.table()
        show.family(family_rows)
    t3 = time.perf_counter()
    return {
        "epsilon": str(eps),
        "mechanisms": [asdict(r) for r in rows],
        "mechanism_rows": rows,
        "claims": claim_rows,
        "summary": dict(Counter(r["verdict"] for r in claim_rows)),
        "family": [r.to_json() for r in family_rows],
        "family_rows": family_rows,
        "seconds": {"mechanisms": t1 - t0, "claims": t2 - t1, "family": t3 - t2, "total": t3 - t0},
    }


def stage_names(args: argparse.Namespace) -> list[str]:
    """The stages of this report: mechanisms, then claims and family unless skipped."""
    return ["mechanisms"] + ["claims"] * (not args.no_claims) + ["family"] * (not args.no_family)


def run(args: argparse.Namespace) -> int:
    from verify.cli.progress import Staged

    with Staged("report", stage_names(args), args, quiet_partial=args.json) as staged:
        rep = build_report(args.epsilon, args.max_queries, args.workers, claims=not args.no_claims,
                           family=not args.no_family, run=None if args.json else staged)
        if args.json:
            rep.pop("mechanism_rows")
            rep.pop("family_rows")
            emit_json(rep)
            return 0
        s = rep["seconds"]
        staged.section(f"time: mechanisms {s['mechanisms']:.1f} s, claims {s['claims']:.1f} s, family {s['family']:.1f} s, "
                       f"total {s['total']:.1f} s")
    return 0


class _Sections:
    """The report's sections, each printed and flushed as soon as it is computed (text mode); with no
    `Staged` run (``--json``, or a caller of `build_report`) the stages are silent and nothing is printed."""

    def __init__(self, run: Any, eps: Any) -> None:
        self.run, self.eps = run, eps

    @contextmanager
    def stage(self, name: str) -> Iterator[None]:
        if self.run is None:
            yield
            return
        with self.run.stage(name):  # one long step: the bar shows the stage's name and elapsed time
            yield

    def mechanisms(self, rows: list) -> None:
        if self.run is None:
            return
        from verify.seed_check import render_table

        self.run.section(f"svt-verify report: AboveThreshold as stated in the seed (ε = {self.eps}, Δ = 1, t = 0)\n\n"
                         "1. Privacy ratio Pr[A(D)=s]/Pr[A(D')=s] against [e^-ε, e^ε]: grid sweep, conditional sweep, "
                         f"worst-case search\n\n{render_table(rows)}\n")

    def claims(self, claim_rows: list[dict[str, Any]]) -> None:
        if self.run is None or not claim_rows:
            return
        lines = ["2. The seed's claims (svt-verify proofs shows the evidence of each)", ""]
        w = max(len(r["id"]) for r in claim_rows)
        lines += [f"  {r['id']:<{w}}  {r['verdict']:<10}  {r['title']}" for r in claim_rows]
        counts = Counter(r["verdict"] for r in claim_rows)
        lines += ["", "  " + ", ".join(f"{counts[v]} {v}" for v in CLAIM_VERDICT_ORDER if counts.get(v))]
        refuted = [r for r in claim_rows if r["verdict"] == ClaimVerdict.REFUTED]
        if refuted:
            lines.append("  refuted (counterexamples confirmed at >= 30 digits): " + ", ".join(r["id"] for r in refuted))
        self.run.section("\n".join(lines) + "\n")

    def family(self, family_rows: list) -> None:
        if self.run is None or not family_rows:
            return
        from verify.family.table import render

        self.run.section("3. The SVT family (svt-verify family): exact verdicts beside the sampling tools' published "
                         f"lower bounds\n\n{render(family_rows)}\n")
