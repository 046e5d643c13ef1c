"""``svt-verify delta``: exact δ(ε') of a pair of neighbours, or the worst one the search finds, with the RDP bound for Gaussian SVT."""

from __future__ import annotations

import argparse

from verify.cli import flags
from verify.cli.common import EXIT_CODES_NO_FINDING, add_mechanism_flags, emit_json
from verify.cli.progress import Staged, add_progress_flag
from verify.cli.variant import add_variant_flags, variant_from_args
from verify.errors import InputError

#: Largest number of queries the δ search accepts: measured on the 2-core machine under load, lyu-6 took
#: 2.8 s CPU at 2 queries, 8.2 s at 3 and 23 s at 4 (the search grows about 3x per query).
MAX_DELTA_QUERIES = 4
#: Gaussian noise has no closed form: its search runs on quadrature (one query is exact by erfc;
#: two queries took 70-77 s), so the search is limited to one query there.
MAX_GAUSSIAN_DELTA_QUERIES = 1


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("delta", help="approximate DP: exact δ(ε') = Σ_s max(0, Pr[A(D)=s] - e^ε' Pr[A(D')=s]) of a variant",
                       description="With --queries/--neighbour-queries: the exact δ(ε') of that ordered pair. Without: the "
                                   "largest δ(ε') over structured pairs with up to --max-queries queries, recomputed exactly. "
                                   "For gaussian-svt (cutoff 1) the Rényi-DP upper bound of Zhu & Wang (NeurIPS 2020, Thm 8) "
                                   "is printed beside it.",
                       epilog=EXIT_CODES_NO_FINDING)
    add_mechanism_flags(p)
    add_variant_flags(p)
    p.add_argument("--epsilon-prime", type=flags.NON_NEGATIVE, required=True, metavar="E", help="ε' >= 0 of the (ε', δ) guarantee")
    p.add_argument("--queries", type=flags.vector(), metavar="Q1,Q2,...", help="q_j(D) (with --neighbour-queries: exact δ of this pair)")
    p.add_argument("--neighbour-queries", type=flags.vector(), metavar="Q1,Q2,...", help="q_j(D'), each within Δ of q_j(D)")
    p.add_argument("--max-queries", type=flags.integer(1, MAX_DELTA_QUERIES), default=None, metavar="K", help=f"search (without --queries): largest number of queries (1..{MAX_DELTA_QUERIES}, Gaussian 1; default 2, Gaussian 1)")
    p.add_argument("--digits", type=flags.integer(5, 60), default="20", help="significant digits of the exact δ (5..60, default 20)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--plot", type=flags.output_file(".png"), metavar="FILE.png", help="draw δ(ε') of the pair for ε' from 0 to 2ε' (13 points), RDP bound beside it")
    add_progress_flag(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from verify.family.delta import exact_delta, worst_delta

    mech = variant_from_args(args)
    ep = args.epsilon_prime
    if (args.queries is None) != (args.neighbour_queries is None):
        raise InputError("--queries and --neighbour-queries: give both (an exact pair) or neither (a search)")
    if args.queries is not None and args.max_queries is not None:
        raise InputError("--max-queries and --queries: --max-queries bounds the search, which a given pair replaces (drop one)")
    staged = Staged("delta", ["exact pair" if args.queries is not None else "search"] + ["plot"] * bool(args.plot), args)
    if args.queries is not None:
        with staged.stage("exact pair"):
            res = exact_delta(mech, list(args.queries), list(args.neighbour_queries), ep, args.digits)
        how = "exact δ of the given pair"
    else:
        gaussian = not (mech.threshold_spec.law.piecewise and mech.query_spec.law.piecewise)
        if args.max_queries is None:
            args.max_queries = MAX_GAUSSIAN_DELTA_QUERIES if gaussian else 2
        if gaussian and args.max_queries > MAX_GAUSSIAN_DELTA_QUERIES:
            raise InputError(f"--max-queries: {args.max_queries} is above {MAX_GAUSSIAN_DELTA_QUERIES} for Gaussian noise "
                             "(the search runs on quadrature; give --queries/--neighbour-queries for an exact pair)")
        with staged.stage("search"):
            res = worst_delta(mech, ep, max_queries=args.max_queries, digits=args.digits)
        how = f"largest exact δ over the structured pairs with up to {args.max_queries} queries"
    if args.plot:
        with staged.stage("plot"):
            _plot(mech, res, ep, args.plot)
    j = res.to_json()
    j["variant"] = mech.describe()
    j["method"] = how
    if args.json:
        emit_json(j)
        return 0
    print(mech.describe())
    print(f"ε' = {j['epsilon_prime']}: δ = {j['delta']} ({how}; a lower bound on the mechanism's δ(ε'))")
    print(f"  q(D) = ({', '.join(j['queries'])}), q(D') = ({', '.join(j['neighbour_queries'])}); largest term: output {j['largest_term_output']}")
    if j["rdp_delta_upper_bound"] is not None:
        print(f"  Rényi-DP upper bound (Zhu & Wang 2020, Thm 8; BBGHS conversion, α = {j['rdp_alpha']}): δ <= {j['rdp_delta_upper_bound']}")
    return 0


def _plot(mech, res, ep, path: str) -> None:
    from fractions import Fraction

    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    from verify.family.delta import exact_delta
    from verify.plots import save_figure

    top = 2 * ep if ep > 0 else Fraction(1)
    eps = [top * j / 12 for j in range(13)]
    pts = [exact_delta(mech, res.queries, res.neighbour, e, 15) for e in eps]
    fig = Figure(figsize=(6, 3.6))
    ax = fig.add_subplot()
    pos = [(float(e), float(p.delta)) for e, p in zip(eps, pts) if p.delta > 0]  # δ = 0 exactly: not drawn on a log axis
    if pos:
        ax.semilogy(*zip(*pos), "o-", label="exact δ(ε') of the pair (lower bound; δ = 0 not drawn)")
    if pts[0].rdp_delta is not None:
        ax.semilogy([float(e) for e in eps], [float(p.rdp_delta) for p in pts], "s--", label="Zhu-Wang RDP bound (upper bound)")
    ax.set_xlabel("ε'")
    ax.set_ylabel("δ")
    ax.set_title(mech.name)
    ax.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, path, dpi=120)
