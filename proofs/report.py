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
from dataclasses import asdict
from typing import Any

from verify.cli import flags, limits
from verify.cli.common import emit_json
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
                   help="processes for the mechanism checks and for the claims (default all cores)")
    p.add_argument("--no-claims", action="store_true", help="skip the claims of the proofs (mechanism checks only)")
    p.add_argument("--no-family", action="store_true", help="skip the SVT family table (svt-verify family; about 30 s)")
    p.add_argument("--json", action="store_true", help="print one JSON object: mechanisms, claims, summary, seconds")
    p.set_defaults(func=run)


def build_report(epsilon: object = "1", max_queries: int = 5, workers: int | None = None, claims: bool = True,
                 family: bool = True) -> dict[str, Any]:
    """The report as a dict (also what ``--json`` prints).

    ``family``: also the SVT family table at DP-Sniper's configuration (`verify.family.table`),
    whose ε, t and query count are its own (the table's), not ``epsilon``/``max_queries``."""
    from proofs.parallel import ClaimRows
    from verify import validate
    from verify.parallel import default_workers
    from verify.seed_check import check_seed_mechanisms

    eps = validate.number_in(epsilon, "--epsilon", lo=limits.REPORT_EPSILON_RANGE[0], hi=limits.REPORT_EPSILON_RANGE[1])
    validate.integer_in(max_queries, "--max-queries", 1, limits.REPORT_MAX_QUERIES)
    if workers is not None:
        validate.integer_in(workers, "--workers", 1, limits.MAX_WORKERS)
    t0 = time.perf_counter()
    # the claims start on their own worker processes now and run beside the mechanism checks (proofs.parallel)
    pending = ClaimRows(default_workers() if workers is None else workers) if claims else None
    rows = check_seed_mechanisms(eps, max_queries=max_queries, workers=workers)
    t1 = time.perf_counter()
    claim_rows: list[dict[str, Any]] = []
    if pending is not None:
        claim_rows = pending.rows()
    t2 = time.perf_counter()
    family_rows = []
    if family:
        from verify.family.table import family_table

        family_rows = family_table()
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


def run(args: argparse.Namespace) -> int:
    from verify.cli.progress import stages
    from verify.seed_check import render_table

    with stages("report", 1) as bar:  # ~10-60 s: the elapsed time on a terminal
        rep = build_report(args.epsilon, args.max_queries, args.workers, claims=not args.no_claims, family=not args.no_family)
        bar.update(1)
    rows = rep.pop("mechanism_rows")
    family_rows = rep.pop("family_rows")
    if args.json:
        emit_json(rep)
        return 0
    print(f"svt-verify report: AboveThreshold as stated in the seed (ε = {rep['epsilon']}, Δ = 1, t = 0)")
    print()
    print("1. Privacy ratio Pr[A(D)=s]/Pr[A(D')=s] against [e^-ε, e^ε]: grid sweep, conditional sweep, worst-case search")
    print()
    print(render_table(rows))
    print()
    if rep["claims"]:
        print("2. The seed's claims (svt-verify proofs shows the evidence of each)")
        print()
        w = max(len(r["id"]) for r in rep["claims"])
        for r in rep["claims"]:
            print(f"  {r['id']:<{w}}  {r['verdict']:<10}  {r['title']}")
        print()
        counts = rep["summary"]
        print("  " + ", ".join(f"{counts[v]} {v}" for v in CLAIM_VERDICT_ORDER if counts.get(v)))
        refuted = [r for r in rep["claims"] if r["verdict"] == ClaimVerdict.REFUTED]
        if refuted:
            print("  refuted (counterexamples confirmed at >= 30 digits): " + ", ".join(r["id"] for r in refuted))
        print()
    if family_rows:
        from verify.family.table import render

        print("3. The SVT family (svt-verify family): exact verdicts beside the sampling tools' published lower bounds")
        print()
        print(render(family_rows))
        print()
    s = rep["seconds"]
    print(f"time: mechanisms {s['mechanisms']:.1f} s, claims {s['claims']:.1f} s, family {s['family']:.1f} s, total {s['total']:.1f} s")
    return 0
