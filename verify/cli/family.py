"""``svt-verify family``: exact verdicts for every SVT preset beside the sampling tools' published lower bounds."""

from __future__ import annotations

import argparse

from verify.cli import flags
from verify.cli.common import EXIT_CODES, add_fail_on, emit_json, exit_status
from verify.errors import InputError
from verify.verdicts import MechanismVerdict

#: Findings --fail-on can name (any row's verdict).
FINDINGS = (MechanismVerdict.NOT_PRIVATE, MechanismVerdict.UNDECIDED)

#: Largest number of queries the family search accepts on the command line.
MAX_FAMILY_QUERIES = 20


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("family", help="exact worst-case verdicts for the SVT family (Lyu Alg. 1-6, NumericalSVT, GapSVT, ...) "
                                      "beside DP-Sniper's and StatDP's published lower bounds",
                       description="One row per preset, by default at DP-Sniper's configuration (ε = 1/10, Δ = 1, t = 1, "
                                   "lyu-1 t = 1/2, 10 queries): verdict, loss found (confirmed at 50 digits), proven upper bound, "
                                   "tightness, witness, seconds, and (at DP-Sniper's configuration only) the published lower bound "
                                   "and time of DP-Sniper and StatDP (cited).",
                       epilog=EXIT_CODES)
    p.add_argument("--epsilon", type=flags.POSITIVE, metavar="E", help="ε of every row (default 1/10, DP-Sniper's)")
    p.add_argument("--sensitivity", type=flags.POSITIVE, metavar="D", help="sensitivity Δ of every row (default 1)")
    p.add_argument("--threshold", type=flags.NUMBER, metavar="T", help="threshold t of every row (default 1, lyu-1 1/2: DP-Sniper's)")
    p.add_argument("--max-queries", type=flags.integer(1, MAX_FAMILY_QUERIES), default="10", metavar="K", help=f"largest number of queries searched (1..{MAX_FAMILY_QUERIES}, default 10)")
    p.add_argument("--monotone", action="store_true", help="neighbours with all q_j(D') - q_j(D) of one sign (Lyu et al. §4)")
    p.add_argument("--rows", metavar="NAME[:C|:unlimited],...", help="only these presets (e.g. lyu-3:1,lyu-6:unlimited); default every row")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_fail_on(p, FINDINGS, "the verdict of any row")
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
        if c.strip().lower() == flags.UNLIMITED:
            out.append((name, None))
        elif c:
            out.append((name, validate.integer_in(c, f"--rows: cutoff of {name}", 1, MAX_FAMILY_QUERIES)))
        else:
            out += [r for r in ROWS if r[0] == name]
    return tuple(out)


def run(args: argparse.Namespace) -> int:
    from verify.family.table import DP_SNIPER, TableConfig, render, timed_table

    config = TableConfig(epsilon=DP_SNIPER.epsilon if args.epsilon is None else args.epsilon,
                         sensitivity=DP_SNIPER.sensitivity if args.sensitivity is None else args.sensitivity,
                         threshold=args.threshold)
    from verify.cli import limits
    from verify.family.table import row_mechanism

    chosen = parse_rows(args.rows)
    for name, cutoff in chosen:  # the search's limit on the noise scale (see limits.check_worst_case_scales)
        limits.check_worst_case_scales(row_mechanism(name, cutoff, config))
    rows, seconds = timed_table(rows=chosen, max_queries=args.max_queries, monotone=args.monotone, config=config)
    code = exit_status(args, [r.result.verdict for r in rows])
    if args.json:
        j = {"rows": [r.to_json() for r in rows], "monotone": args.monotone, "max_queries": args.max_queries,
             "seconds": round(seconds, 3)}
        if not config.is_dp_sniper:
            j["configuration"] = config.describe()
        emit_json(j)
        return code
    print(render(rows))
    print(f"whole table: {seconds:.1f} s")
    return code
