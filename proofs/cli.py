"""``svt-verify proofs``: the seed's claims with their verdicts.

    svt-verify proofs                      # verdict table of every claim
    svt-verify proofs P1.chain 'U.tail_*'  # chosen claims (exact IDs or shell-style patterns)
    svt-verify proofs --json M2.compare.integrand
    svt-verify proofs --list               # IDs and titles only, nothing checked

JSON: ``{"claims": [{"id", "verdict", "method", "statement", "evidence", ...}], "summary": {verdict: count}}``.
An unknown ID (or a pattern matching nothing) is a one-line error, exit 2.
"""

from __future__ import annotations

import argparse
import fnmatch
import sys
from collections import Counter
from typing import Any

from verify.errors import InputError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "proofs",
        help="every claim of the seed's proofs with its verdict (proved/certified/consistent/refuted/undecided)",
        description="Check the seed's claims step by step. Verdicts (docs/verdicts.md): proved (every step symbolic, or an "
        "exhaustive case analysis covering all inputs), certified (rigorous enclosures), consistent (numerics at stated points, "
        "no violation), refuted (counterexample confirmed at >= 30 digits), undecided (could not decide, or an engine failed).",
    )
    p.add_argument("ids", nargs="*", metavar="ID", help="claim IDs or shell-style patterns (default: all claims)")
    p.add_argument("--json", action="store_true", help="print one JSON object with a 'claims' list")
    p.add_argument("--list", action="store_true", help="list the claim IDs and titles without checking them")
    from verify.cli.common import add_fail_on
    from verify.verdicts import ClaimVerdict

    add_fail_on(p, (ClaimVerdict.REFUTED, ClaimVerdict.UNDECIDED), "the verdict of any claim checked")
    p.set_defaults(func=run)


def select(patterns: list[str]) -> list:
    """Claims matching the IDs/patterns, in registry order; InputError for one that matches nothing."""
    from proofs.registry import all_claims

    claims = all_claims()
    if not patterns:
        return claims
    ids = [c.id for c in claims]
    chosen: set[str] = set()
    for pat in patterns:
        hits = [i for i in ids if i == pat] or ([i for i in ids if fnmatch.fnmatchcase(i, pat)] if any(ch in pat for ch in "*?[") else [])
        if not hits:
            raise InputError(f"claim ID {pat!r} is unknown (svt-verify proofs --list shows the IDs)")
        chosen.update(hits)
    return [c for c in claims if c.id in chosen]


def claim_json(claim: Any, verdict: Any) -> dict[str, Any]:
    return {
        "id": claim.id,
        "title": claim.title,
        "section": claim.section,
        "mechanism": claim.mechanism or None,
        "verdict": verdict.verdict,
        "method": verdict.method,
        "statement": claim.latex,
        "explicit": claim.explicit,
        "seed_fragments": list(claim.seed_fragments),
        "hypotheses": list(claim.hypotheses),
        "quantifiers": list(claim.quantifiers),
        "justification": claim.justification,
        "relation": claim.relation,
        "lhs": None if claim.lhs is None else str(claim.lhs),
        "rhs": None if claim.rhs is None else str(claim.rhs),
        "links": list(claim.links),
        "corrects": claim.corrects or None,
        "evidence": verdict.evidence.as_dict(),
    }


def short_evidence(v: Any) -> str:
    e = v.evidence
    if e.counterexample is not None:
        cx = e.counterexample
        return f"counterexample: lhs {cx.lhs[:14]} vs rhs {cx.rhs[:14]}" + ("" if cx.confirmed else " (NOT confirmed)")
    if e.min_margin is not None:
        return f"{e.points} pts, min margin {e.min_margin}"
    if e.max_discrepancy is not None:
        return f"{e.points} pts, max discrepancy {e.max_discrepancy}"
    if e.links:
        return "links: " + ", ".join(f"{v_}" for _, v_ in e.links)
    return f"{e.points} pts" if e.points else ""


def run(args: argparse.Namespace) -> int:
    from verify.cli.common import emit_json, exit_status

    claims = select(args.ids)
    if args.list:
        if args.json:
            emit_json({"claims": [{"id": c.id, "title": c.title, "section": c.section} for c in claims]})
        else:
            for c in claims:
                print(f"{c.id:34s} {c.title}")
        return 0
    from tqdm import tqdm

    # checking every claim takes ~30 s: a progress bar on a terminal
    bar = tqdm(claims, unit="claim", desc="proofs", leave=False, disable=not sys.stderr.isatty())
    verdicts = [(c, c.check()) for c in bar]
    summary = dict(Counter(v.verdict for _, v in verdicts))
    code = exit_status(args, summary)
    if args.json:
        emit_json({"claims": [claim_json(c, v) for c, v in verdicts], "summary": summary})
        return code
    w = max(len(c.id) for c in claims)
    print(f"{'ID':<{w}}  {'verdict':<10}  evidence / method")
    for c, v in verdicts:
        print(f"{c.id:<{w}}  {v.verdict:<10}  {short_evidence(v)}  [{v.method[:70]}]")
    print("summary: " + ", ".join(f"{k} {n}" for k, n in sorted(summary.items())))
    return code
