"""``svt-verify ratio``: the privacy ratio between two neighbouring query vectors."""

from __future__ import annotations

import argparse

import mpmath

from verify.cli import flags, limits
from verify.cli.common import (
    add_mechanism_flags,
    emit_json,
    mechanism_from_args,
    mechanism_json,
    mp_str,
    output_json,
    parse_output,
)
from verify.cli.progress import stages
from verify.mechanism import output_label
from verify.probabilities import MAX_DIGITS, MIN_DIGITS
from verify.ratio import privacy_ratio


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ratio", help="privacy ratio Pr[A(D)=s]/Pr[A(D')=s] for neighbouring query vectors",
                       description="Pr[A(D)=s]/Pr[A(D')=s] and its log for every output s, at high precision (mpmath path).")
    add_mechanism_flags(p)
    p.add_argument("--queries", type=flags.vector(), required=True, metavar="Q1,Q2,...",
                   help=f"query values q_j(D) (at most {limits.RATIO_MAX_QUERIES})")
    p.add_argument("--neighbour-queries", type=flags.vector(), required=True, metavar="Q1,Q2,...",
                   help="query values q_j(D'), each within Δ of q_j(D)")
    p.add_argument("--output", default="all", metavar="{i|none|all}", help="which output (default all)")
    p.add_argument("--digits", type=flags.integer(MIN_DIGITS, MAX_DIGITS), default="30",
                   help=f"significant digits ({MIN_DIGITS}..{MAX_DIGITS}, default 30)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    mech = mechanism_from_args(args)
    q, qn = args.queries, args.neighbour_queries
    limits.check_queries(len(q), limits.RATIO_MAX_QUERIES, "ratio")
    mech.check_neighbours(q, qn)
    out = parse_output(args.output, len(q), allow_all=True)
    digits = args.digits
    with stages(f"ratio (k = {len(q)})", 1) as bar:
        rep = privacy_ratio(mech, q, qn, None if out is None else [out], digits)
        bar.update(1)
    rows = [
        {
            "output": output_json(o.output),
            "probability": mp_str(o.probability, digits),
            "neighbour_probability": mp_str(o.neighbour_probability, digits),
            "ratio": mp_str(o.ratio, digits),
            "log_ratio": mp_str(o.log_ratio, digits),
            "within_bounds": o.within_bounds,
            "at_bound": o.at_bound,
        }
        for o in rep.outputs
    ]
    result = {
        "mechanism": mechanism_json(mech),
        "queries": [str(x) for x in q],
        "neighbour_queries": [str(x) for x in qn],
        "digits": digits,
        "epsilon": str(mech.epsilon),
        "outputs": rows,
        "max_abs_log_ratio": mp_str(rep.max_abs_log_ratio, digits),
        "all_within_bounds": all(r["within_bounds"] for r in rows),
    }
    if args.json:
        emit_json(result)
        return 0
    print(mech.describe())
    print(f"D  = ({', '.join(result['queries'])})\nD' = ({', '.join(result['neighbour_queries'])})")
    w = max(len(output_label(o.output)) for o in rep.outputs)
    print(f"{'output':<{w}}  {'log ratio':>22}  {'ratio':>22}  within [e^-ε, e^ε]")
    for o in rep.outputs:
        print(f"{output_label(o.output):<{w}}  {mp_str(o.log_ratio, 15):>22}  {mp_str(o.ratio, 15):>22}  {'at the bound' if o.at_bound else ('yes' if o.within_bounds else 'NO')}")
    with mpmath.workdps(digits):
        print(f"max |log ratio| = {mp_str(rep.max_abs_log_ratio, 15)} (ε = {mech.epsilon})")
    return 0
