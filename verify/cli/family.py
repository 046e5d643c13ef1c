"""``svt-verify family``: exact verdicts for every SVT preset beside the sampling tools' published lower bounds."""

from __future__ import annotations

import argparse

from verify.cli import flags
from verify.cli.common import emit_json
from verify.errors import InputError

#: Largest number of queries the family search accepts on the command line.
MAX_FAMILY_QUERIES = 20


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("family", help="exact worst-case verdicts for the SVT family (Lyu Alg. 1-6, NumericalSVT, GapSVT, ...) "
                                      "beside DP-Sniper's and StatDP's published lower bounds",
                       description="One row per preset at DP-Sniper's configuration (ε = 1/10, t = 1, 10 queries): verdict, "
                                   "loss found (confirmed at 50 digits), proven upper bound, tightness, witness, seconds, "
                                   "and the published lower bound and time of DP-Sniper and StatDP (cited).")
    p.add_argument("--max-queries", type=flags.integer(1, MAX_FAMILY_QUERIES), default="10", metavar="K", help=f"largest number of queries searched (1..{MAX_FAMILY_QUERIES}, default 10)")
    p.add_argument("--monotone", action="store_true", help="neighbours with all q_j(D') - q_j(D) of one sign (Lyu et al. §4)")
    p.add_argument("--rows", metavar="NAME[:C],...", help="only these presets (e.g. lyu-3:1,lyu-6); default every row")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def parse_rows(text: str | None):
    from verify import validate
    from verify.family.table import ROWS

    if text is None:
        return ROWS
    known = {n for n, _ in ROWS}
    out = []
    for item in text.split(","):
        name, _, c = item.strip().partition(":")
        if name not in known:
            raise InputError(f"--rows: {name!r} is not one of {', '.join(sorted(known))}")
        if c:
            out.append((name, validate.integer_in(c, f"--rows: cutoff of {name}", 1, MAX_FAMILY_QUERIES)))
        else:
            out += [r for r in ROWS if r[0] == name]
    return tuple(out)


def run(args: argparse.Namespace) -> int:
    from verify.family.table import render, timed_table

    rows, seconds = timed_table(rows=parse_rows(args.rows), max_queries=args.max_queries, monotone=args.monotone)
    if args.json:
        emit_json({"rows": [r.to_json() for r in rows], "monotone": args.monotone, "max_queries": args.max_queries,
                   "seconds": round(seconds, 3)})
        return 0
    print(render(rows))
    print(f"whole table: {seconds:.1f} s")
    return 0
