"""``svt-verify proofs``: the seed's claims with their verdicts.

    svt-verify proofs                      # verdict table of every claim
    svt-verify proofs P1.chain 'U.tail_*'  # chosen claims (exact IDs or shell-style patterns)
    svt-verify proofs --json M2.compare.integrand
    svt-verify proofs --list               # IDs and titles only, nothing checked
    svt-verify proofs --show U.tail_Z.M1   # the full evidence of a claim, nothing cut

JSON: ``{"claims": [{"id", "verdict", "method", "statement", "evidence", ...}], "summary": {verdict: count}}``.
An unknown ID (or a pattern matching nothing) is a one-line error, exit 2, that names
the closest IDs ("did you mean ...", by `difflib`).
"""

from __future__ import annotations

import argparse
import difflib
import fnmatch
import textwrap
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
    p.add_argument("--show", action="store_true",
                   help="print the full evidence of each chosen claim (statement, method, points, margins, counterexample, notes)")
    from verify.cli.common import add_fail_on
    from verify.verdicts import ClaimVerdict

    add_fail_on(p, (ClaimVerdict.REFUTED, ClaimVerdict.UNDECIDED), "the verdict of any claim checked")
    from verify.cli.progress import add_progress_flag

    add_progress_flag(p)
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
            raise InputError(f"claim ID {pat!r} is unknown{did_you_mean(pat, ids)} (svt-verify proofs --list shows the IDs)")
        chosen.update(hits)
    return [c for c in claims if c.id in chosen]


def did_you_mean(word: str, ids: list[str]) -> str:
    """``"; did you mean A or B?"`` for the IDs closest to ``word`` (case-insensitive), or ``""``.

    >>> did_you_mean("P1.chian", ["P1.chain", "P1.event", "M1.theorem"])
    '; did you mean P1.chain?'
    >>> did_you_mean("zzz", ["P1.chain"])
    ''
    """
    lower = {i.lower(): i for i in ids}
    close = difflib.get_close_matches(word.lower(), list(lower), n=3, cutoff=0.6)
    return f"; did you mean {' or '.join(lower[c] for c in close)}?" if close else ""


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


def shorten(text: str, width: int = 70) -> str:
    """``text`` cut at a word boundary to at most ``width`` characters, with "…" where cut.

    >>> shorten("exact tail (quadrature at two precisions); Monte Carlo agrees", 40)
    'exact tail (quadrature at two…'
    """
    return textwrap.shorten(text, width=width, placeholder="…")


def _wrap(label: str, text: str, width: int = 100) -> list[str]:
    """``label: text`` wrapped at word boundaries (never cut inside a word), continuation lines indented."""
    return textwrap.wrap(f"{label}: {text}", width=width, subsequent_indent="    ", break_long_words=False,
                         break_on_hyphens=False) or [f"{label}:"]


def full_evidence(claim: Any, verdict: Any) -> list[str]:
    """Every field of a claim's verdict and evidence, one per line, nothing truncated (``--show``)."""
    e = verdict.evidence
    lines = [f"{claim.id}: {verdict.verdict}", *_wrap("  title", claim.title), *_wrap("  section", claim.section)]
    lines += _wrap("  statement", claim.latex)
    if claim.corrects:
        lines += _wrap("  corrects", claim.corrects)
    for h in claim.hypotheses:
        lines += _wrap("  hypothesis", str(h))
    if claim.justification:
        lines += _wrap("  justification", claim.justification)
    lines += _wrap("  method", verdict.method)
    if e.points:
        lines += _wrap("  points", f"{e.points}" + (f" ({e.grid})" if e.grid else ""))
    elif e.grid:
        lines += _wrap("  grid", e.grid)
    if e.digits is not None:
        lines += _wrap("  digits", str(e.digits))
    if e.min_margin is not None:
        lines += _wrap("  min margin", f"{e.min_margin} {e.margin_unit}".rstrip())
    if e.max_discrepancy is not None:
        lines += _wrap("  max discrepancy", e.max_discrepancy)
    cx = e.counterexample
    if cx is not None:
        params = ", ".join(f"{k} = {v}" for k, v in cx.params)
        state = "confirmed" if cx.confirmed else "NOT confirmed"
        lines += _wrap("  counterexample", f"{params} ({state} to {cx.digits} digits)")
        for side in ("lhs", "rhs", "relation", "detail"):
            if getattr(cx, side):
                lines += _wrap(f"    {side}", str(getattr(cx, side)))
    for link_id, link_verdict in e.links:
        lines += _wrap("  link", f"{link_id}: {link_verdict}")
    for note in e.notes:
        lines += _wrap("  note", note)
    return lines


def run(args: argparse.Namespace) -> int:
    from verify.cli.common import emit_json, exit_status

    if args.show and args.list:
        raise InputError("--show and --list: --list prints IDs without checking, --show checks and prints the evidence; give one")
    claims = select(args.ids)
    if args.list:
        if args.json:
            emit_json({"claims": [{"id": c.id, "title": c.title, "section": c.section} for c in claims]})
        else:
            for c in claims:
                print(f"{c.id:34s} {c.title}")
        return 0
    from verify.cli.progress import Staged

    verdicts: list[tuple[Any, Any]] = []
    w = max(len(c.id) for c in claims)
    with Staged("proofs", ["claims"], args) as staged:
        staged.partial = lambda: _partial(args, claims, verdicts, staged)
        if not args.json and not args.show:
            staged.section(f"{'ID':<{w}}  {'verdict':<10}  evidence / method")
        # checking every claim takes ~30 s: each row is printed as soon as its claim is checked
        with staged.stage("claims", total=len(claims), unit="claim") as bar:
            for c in claims:
                verdicts.append((c, c.check()))
                bar.update(1)
                if not args.json:
                    staged.section(_claim_text(args, *verdicts[-1], len(verdicts) == 1, w))
    summary = dict(Counter(v.verdict for _, v in verdicts))
    code = exit_status(args, summary)
    if args.json:
        emit_json({"claims": [claim_json(c, v) for c, v in verdicts], "summary": summary})
        return code
    if args.show:
        print()
    else:
        print("(evidence abridged: --show ID prints all of it)")
    print("summary: " + ", ".join(f"{k} {n}" for k, n in sorted(summary.items())))
    return code


def _claim_text(args: argparse.Namespace, claim: Any, verdict: Any, first: bool, width: int) -> str:
    """A checked claim as printed: its row of the table, or its full evidence (``--show``)."""
    if args.show:
        return ("" if first else "\n") + "\n".join(full_evidence(claim, verdict))
    return f"{claim.id:<{width}}  {verdict.verdict:<10}  {short_evidence(verdict)}  [{shorten(verdict.method)}]"


def _partial(args: argparse.Namespace, claims: list, verdicts: list[tuple[Any, Any]], staged: Any) -> None:
    """What Ctrl-C leaves: the claims checked so far (already printed in text mode), marked partial."""
    from verify.cli.common import emit_json

    summary = dict(Counter(v.verdict for _, v in verdicts))
    if args.json:
        emit_json({"partial": True, "checked": len(verdicts), "of": len(claims),
                   "claims": [claim_json(c, v) for c, v in verdicts], "summary": summary})
        return
    staged.section(f"partial (interrupted): {len(verdicts)} of {len(claims)} claims checked; summary so far: "
                + (", ".join(f"{k} {n}" for k, n in sorted(summary.items())) or "none"))
