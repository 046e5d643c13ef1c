"""``svt-verify ratio``: the privacy ratio between two neighbouring query vectors.

Every log ratio, ratio and bound status comes from `verify.ratio` (one rule:
0/0 -> log ratio 0, x/0 -> +inf, 0/x -> -inf; a log ratio within the
evaluation's resolution of ±ε is *at the bound*).  The table marks such a row
``= ε (at the bound ...)`` so it cannot be mistaken for one below the bound whose
first 15 digits print the same.
"""

from __future__ import annotations

import argparse
from fractions import Fraction

import mpmath

from verify.cli import adaptive, adaptive_commands, flags, limits, selection, selection_commands
from verify.cli.common import EXIT_CODES, VIOLATION, add_fail_on, add_mechanism_flags, emit_json, exit_status, mp_str
from verify.cli.progress import stages
from verify.cli.variant import (
    add_output_flags,
    add_variant_flags,
    family_requested,
    outcome_from_args,
    released_from_args,
    seed_output,
    variant_from_args,
)
from verify.errors import InputError
from verify.exact import check_neighbours, fmt
from verify.mechanism import output_name
from verify.precision import MAX_DIGITS, MIN_DIGITS

#: The finding --fail-on can name here: a ratio outside [e^-ε, e^ε].
FINDINGS = (VIOLATION,)
#: Digits of the log ratio and ratio columns.
SHOWN = 15


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ratio", help="privacy ratio Pr[A(D)=s]/Pr[A(D')=s] for neighbouring query vectors",
                       description="Pr[A(D)=s]/Pr[A(D')=s] and its log for every output s, at high precision (mpmath path).",
                       epilog=EXIT_CODES)
    add_mechanism_flags(p)
    p.add_argument("--queries", type=flags.vector(), required=True, metavar="Q1,Q2,...",
                   help=f"query values q_j(D) (at most {limits.RATIO_MAX_QUERIES})")
    p.add_argument("--neighbour-queries", type=flags.vector(), required=True, metavar="Q1,Q2,...",
                   help="query values q_j(D'), each within Δ of q_j(D)")
    p.add_argument("--digits", type=flags.integer(MIN_DIGITS, MAX_DIGITS), default="30",
                   help=f"significant digits ({MIN_DIGITS}..{MAX_DIGITS}, default 30)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_fail_on(p, FINDINGS, "violation: some |log ratio| > ε")
    add_variant_flags(p)
    add_output_flags(p, allow_all=True)
    selection.extend_variant_choices(p)  # Report Noisy Max presets (verify/cli/selection_commands.py)
    adaptive.extend_variant_choices(p)  # Adaptive SVT presets (verify/cli/adaptive_commands.py)
    adaptive.extend_outcome_flags(p)
    p.set_defaults(func=run)


def status(lr, epsilon, within: bool, at_bound: bool, digits: int) -> str:
    """The last column: yes, NO, or the at-bound mark (numbers alone cannot tell it from equality).  A row
    whose |log ratio| prints like ε at `SHOWN` digits without being at the bound shows its distance to ε."""
    if at_bound:
        return f"= ε (at the bound: |log ratio| - ε within 1e{3 - digits}; counts as within)"
    word = "yes" if within else "NO"
    with mpmath.workdps(digits + 10):
        eps = mpmath.mpf(Fraction(epsilon).numerator) / Fraction(epsilon).denominator
        if mpmath.isfinite(lr) and abs(abs(lr) - eps) < mpmath.mpf(10) ** (1 - SHOWN) * max(1, eps):
            return f"{word} (ε - |log ratio| = {mpmath.nstr(eps - abs(lr), 3)})"
    return word


def _table(describe: str, q, qn, labels: list[str], rows: list[tuple], worst, epsilon, digits: int, min_width: int = 1,
           head: str = "output") -> None:
    print(describe)
    print(f"D  = ({', '.join(q)})\nD' = ({', '.join(qn)})")
    w = max(min_width, *(len(s) for s in labels))
    print(f"{head:<{w}}  {'log ratio':>22}  {'ratio':>22}  within [e^-ε, e^ε]")
    for label, (lr, ratio, within, at_bound) in zip(labels, rows):
        print(f"{label:<{w}}  {mp_str(lr, SHOWN):>22}  {mp_str(ratio, SHOWN):>22}  {status(lr, epsilon, within, at_bound, digits)}")
    with mpmath.workdps(digits):
        print(f"max |log ratio| = {mp_str(worst, SHOWN)} (ε = {fmt(epsilon)})")


def run(args: argparse.Namespace) -> int:
    if adaptive.is_adaptive(args):
        return adaptive_commands.run_ratio(args)
    adaptive.refuse_adaptive_outcome(args)
    if selection.is_selection(args):
        return selection_commands.run_ratio(args)
    variant = variant_from_args(args)
    if family_requested(args, variant):
        return run_family(args, variant)
    mech = variant
    q, qn = args.queries, args.neighbour_queries
    limits.check_queries(len(q), limits.RATIO_MAX_QUERIES, "ratio")
    mech.check_neighbours(q, qn)
    out = seed_output(args, len(q), allow_all=True)
    digits = args.digits
    from verify.ratio import privacy_ratio  # lazy: start-up time (the exact engines)

    with stages(f"ratio (k = {len(q)})", 1) as bar:
        rep = privacy_ratio(mech, q, qn, None if out is None else [out], digits)
        bar.update(1)
    result = rep.to_json()
    code = exit_status(args, [] if result["all_within_bounds"] else [VIOLATION])
    if args.json:
        emit_json(result)
        return code
    _table(mech.describe(), result["queries"], result["neighbour_queries"], [output_name(o.output, len(q)) for o in rep.outputs],
           [(o.log_ratio, o.ratio, o.within_bounds, o.at_bound) for o in rep.outputs], rep.max_abs_log_ratio, mech.epsilon, digits)
    return code


def run_family(args: argparse.Namespace, mech) -> int:
    """``ratio`` for a member of the SVT family: Pr (or density) on D and D' for outcome strings."""
    from verify.doors.exact import closed_form_applies, exact_evaluation
    from verify.engine.integrand import Kind
    from verify.ratio import bound_status, log_ratio, ratio_of

    q, qn = args.queries, args.neighbour_queries
    limits.check_queries(len(q), limits.RATIO_MAX_QUERIES, "ratio")
    check_neighbours(q, qn, mech.sensitivity, "--neighbour-queries")
    k = len(q)
    released = released_from_args(args)
    outcome = outcome_from_args(args, mech, k, allow_all=True)
    if outcome == "all":
        if mech.releases_values:
            raise InputError(f"--outcomes all: {mech.name} releases values; give one --outcomes STRING with --released")
        limits.check_outcomes_all(mech.output_count(k), args.digits)
        outcomes = mech.outputs(k)
    else:
        outcomes = [outcome]
    digits = args.digits
    if not mech.is_discrete and not closed_form_applies(mech):
        limits.check_quadrature(2 * sum(len(s) for s in outcomes), digits, "ratio")
    rows, table, worst = [], [], mpmath.mpf(0)
    with stages(f"ratio (k = {k}, {len(outcomes)} outputs)", len(outcomes)) as bar:
        for s in outcomes:
            rel = mech.check_released(s, released)
            a = exact_evaluation(mech, q, s, rel, digits)
            b = exact_evaluation(mech, qn, s, rel, digits)
            with mpmath.workdps(digits + 10):
                lr = log_ratio(a.value, b.value)
                ratio = ratio_of(lr)
                within, at_bound = bound_status(lr, mech.epsilon, digits)
                worst = max(worst, abs(lr))
            name = "probability" if a.kind is Kind.PROBABILITY else "density"
            rows.append({"outcomes": s, "released": [str(v) for v in rel], "kind": a.kind.value,
                         name: mp_str(a.value, digits), "neighbour_" + name: mp_str(b.value, digits),
                         "ratio": mp_str(ratio, digits), "log_ratio": mp_str(lr, digits), "within_bounds": within,
                         "at_bound": at_bound})
            table.append((lr, ratio, within, at_bound))
            bar.update(1)
    result = {
        "mechanism": mech.to_json(), "variant": mech.describe(), "queries": [str(x) for x in q],
        "neighbour_queries": [str(x) for x in qn], "digits": digits, "epsilon": str(mech.epsilon),
        "outputs": rows, "max_abs_log_ratio": mp_str(worst, digits), "all_within_bounds": all(r["within_bounds"] for r in rows),
    }
    code = exit_status(args, [] if result["all_within_bounds"] else [VIOLATION])
    if args.json:
        emit_json(result)
        return code
    _table(mech.describe(), result["queries"], result["neighbour_queries"], [r["outcomes"] for r in rows], table, worst,
           mech.epsilon, digits, min_width=4, head="outcome")
    return code
