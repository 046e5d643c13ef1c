"""``svt-verify worst-case``: search for the largest privacy loss of a variant and decide."""

from __future__ import annotations

import argparse

from verify.cli import flags, limits
from verify.cli.common import add_mechanism_flags, emit_json, mechanism_from_args
from verify.cli.progress import stages
from verify.exact import fmt
from verify.mechanism import output_label


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("worst-case", help="search for the largest privacy loss of a variant; verdict private / not_private / undecided",
                       description="Structured search (extreme shifts, pushed queries) plus scipy.optimize for sup |log ratio| "
                                   "over k = 1..K; the best witness is confirmed by the mpmath path.")
    add_mechanism_flags(p)
    p.add_argument("--max-queries", type=flags.integer(1, limits.WORST_CASE_MAX_QUERIES), default="10", metavar="K",
                   help=f"largest number of queries searched (1..{limits.WORST_CASE_MAX_QUERIES}, default 10)")
    p.add_argument("--seed", type=flags.integer(0, 2**63 - 1), default="0", help="seed of the random starts (default 0)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--plot", type=flags.output_file(".png"), metavar="FILE.png", help="draw the loss against k and against how far the queries are pushed")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import mpmath

    from verify.worstcase import worst_case

    mech = mechanism_from_args(args)
    limits.check_worst_case_scales(mech)
    # one stage per k, and one for the decision and the tightness study
    with stages(f"worst-case (k = 1..{args.max_queries})", args.max_queries + 1, unit="k") as bar:
        res = worst_case(mech, max_queries=args.max_queries, seed=args.seed, progress=lambda k: bar.update(1))
        bar.update(bar.total - bar.n)
    if args.plot:
        from verify.plots import plot_worst_case

        plot_worst_case(res, args.plot)
    if args.json:
        emit_json(res.to_json())
        return 0
    j = res.to_json()
    w = res.witness
    print(mech.describe())
    with mpmath.workdps(40):
        print(f"verdict: {res.verdict}")
        print(f"loss found: {mpmath.nstr(res.loss, 20)} nats = {mpmath.nstr(res.loss_over_epsilon, 12)}·ε")
    print(f"  witness: q(D) = ({', '.join(fmt(x) for x in w.queries)}), q(D') = ({', '.join(fmt(x) for x in w.neighbour_queries)}), "
          f"output {output_label(w.output)}, log ratio ({w.digits} digits) {j['witness']['log_ratio']}")
    ub = res.upper_bound
    print(f"proven upper bound: {'none' if ub is None else fmt(ub.value) + ' nats (' + ub.source + ')'}")
    print(f"unbounded: {'yes: ' + res.unbounded_evidence if res.unbounded else 'no evidence'}")
    print("loss by k (s_k, ⊤^k): " + "; ".join(f"{r['k']}: {_short(r['loss_s_k'])}, {_short(r['loss_top_k'])}" for r in j["loss_by_k"]))
    if res.tightness:
        print(f"tightness: {res.tightness}: {res.tightness_evidence}")
    for note in res.notes:
        print(f"note: {note}")
    return 0


def _short(x) -> str:
    return x if isinstance(x, str) else f"{x:.6g}"
