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
from verify.cli.variant import add_variant_flags, family_requested, released_from_args, variant_from_args
from verify.errors import InputError
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
    add_variant_flags(p, allow_all=True)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if family_requested(args):
        return run_family(args)
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


def run_family(args: argparse.Namespace) -> int:
    """``ratio`` for a member of the SVT family: Pr (or density) on D and D' for outcome strings."""
    from verify.exact import fmt
    from verify.family.integrand import Kind
    from verify.family.probability import evaluate

    mech = variant_from_args(args)
    q, qn = args.queries, args.neighbour_queries
    limits.check_queries(len(q), limits.RATIO_MAX_QUERIES, "ratio")
    if len(q) != len(qn):
        raise InputError(f"--neighbour-queries: length {len(qn)} differs from the {len(q)} queries of D")
    for j, (x, y) in enumerate(zip(q, qn), start=1):
        if abs(x - y) > mech.sensitivity:
            raise InputError(f"--neighbour-queries: |q_{j}(D) - q_{j}(D')| = {fmt(abs(x - y))} exceeds the sensitivity Δ = {fmt(mech.sensitivity)}")
    k = len(q)
    released = released_from_args(args)
    if args.outcomes in (None, "all"):
        if mech.releases_values:
            raise InputError(f"--outcomes all: {mech.name} releases values; give one --outcomes STRING with --released")
        if args.outcomes is None and args.output not in (None, "all"):
            from verify.cli.variant import outcome_from_args

            outcomes = [outcome_from_args(args, mech, k)]
        else:
            outcomes = mech.outputs(k)  # refuses more than 2^20
    else:
        outcomes = [mech.check_outcome(args.outcomes, k)]
    digits = args.digits
    bound = mpmath.mpf(mech.epsilon.numerator) / mech.epsilon.denominator
    rows, worst = [], mpmath.mpf(0)
    with stages(f"ratio (k = {k}, {len(outcomes)} outputs)", len(outcomes)) as bar:
        for s in outcomes:
            rel = mech.check_released(s, released)
            a = evaluate(mech, q, s, rel, digits)
            b = evaluate(mech, qn, s, rel, digits)
            with mpmath.workdps(digits + 10):
                if a.value == 0 and b.value == 0:
                    ratio, log_ratio = mpmath.mpf(1), mpmath.mpf(0)
                elif a.value == 0 or b.value == 0:
                    ratio = mpmath.inf if b.value == 0 else mpmath.mpf(0)
                    log_ratio = mpmath.inf if b.value == 0 else -mpmath.inf
                else:
                    ratio = a.value / b.value
                    log_ratio = mpmath.log(ratio)
                within = bool(abs(log_ratio) <= bound)
                worst = max(worst, abs(log_ratio))
            rows.append({"outcomes": s, "released": [str(v) for v in rel], "kind": a.kind.value,
                         "probability" if a.kind is Kind.PROBABILITY else "density": mp_str(a.value, digits),
                         "neighbour_" + ("probability" if a.kind is Kind.PROBABILITY else "density"): mp_str(b.value, digits),
                         "ratio": mp_str(ratio, digits), "log_ratio": mp_str(log_ratio, digits), "within_bounds": within})
            bar.update(1)
    result = {
        "mechanism": mech.to_json(), "variant": mech.describe(), "queries": [str(x) for x in q],
        "neighbour_queries": [str(x) for x in qn], "digits": digits, "epsilon": str(mech.epsilon),
        "outputs": rows, "max_abs_log_ratio": mp_str(worst, digits), "all_within_bounds": all(r["within_bounds"] for r in rows),
    }
    if args.json:
        emit_json(result)
        return 0
    print(mech.describe())
    print(f"D  = ({', '.join(result['queries'])})\nD' = ({', '.join(result['neighbour_queries'])})")
    w = max(4, max(len(r["outcomes"]) for r in rows))
    print(f"{'outcome':<{w}}  {'log ratio':>22}  {'ratio':>22}  within [e^-ε, e^ε]")
    for r in rows:
        print(f"{r['outcomes']:<{w}}  {r['log_ratio'][:22]:>22}  {r['ratio'][:22]:>22}  {'yes' if r['within_bounds'] else 'NO'}")
    print(f"max |log ratio| = {result['max_abs_log_ratio'][:17]} (ε = {mech.epsilon})")
    return 0
