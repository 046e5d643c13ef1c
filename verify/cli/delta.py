"""``svt-verify delta``: exact δ(ε') of a pair of neighbours, or the worst one the search finds, with the RDP bound for Gaussian SVT."""

from __future__ import annotations

import argparse

from verify.cli.common import emit_json
from verify.errors import InputError


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("delta", help="approximate DP: exact δ(ε') = Σ_s max(0, Pr[A(D)=s] - e^ε' Pr[A(D')=s]) of a variant",
                       description="With --queries/--neighbour-queries: the exact δ(ε') of that ordered pair. Without: the "
                                   "largest δ(ε') over structured pairs with up to --max-queries queries, recomputed exactly. "
                                   "For gaussian-svt (cutoff 1) the Rényi-DP upper bound of Zhu & Wang (NeurIPS 2020, Thm 8) "
                                   "is printed beside it.")
    p.add_argument("--variant", required=True, metavar="NAME", help="a preset of the SVT family (e.g. gaussian-svt, lyu-6)")
    p.add_argument("--cutoff", metavar="C|unlimited", help="cutoff c (default: the preset's)")
    p.add_argument("--epsilon", default="1", metavar="E", help="the variant's ε (scales are multiples of Δ/ε; default 1)")
    p.add_argument("--threshold", default="0", metavar="T", help="threshold t (default 0)")
    p.add_argument("--epsilon-prime", required=True, metavar="E", help="ε' >= 0 of the (ε', δ) guarantee")
    p.add_argument("--queries", metavar="Q1,Q2,...", help="q_j(D) (with --neighbour-queries: exact δ of this pair)")
    p.add_argument("--neighbour-queries", metavar="Q1,Q2,...", help="q_j(D'), each within Δ of q_j(D)")
    p.add_argument("--max-queries", default="2", metavar="K", help="search: largest number of queries (1..10, default 2)")
    p.add_argument("--digits", default="20", help="significant digits of the exact δ (5..60, default 20)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--plot", metavar="FILE.png", help="draw δ(ε') of the pair for ε' from 0 to 2ε' (13 points), RDP bound beside it")
    p.set_defaults(func=run)


def _mech(args: argparse.Namespace):
    from verify.exact import parse_number
    from verify.family.presets import NAMES, preset

    if args.variant not in NAMES:
        raise InputError(f"--variant: {args.variant!r} is not one of {', '.join(NAMES)}")
    kw = {"epsilon": parse_number(args.epsilon, "--epsilon"), "threshold": parse_number(args.threshold, "--threshold")}
    if args.cutoff is not None:
        if args.cutoff == "unlimited":
            kw["cutoff"] = None
        elif args.cutoff.isdigit() and int(args.cutoff) >= 1:
            kw["cutoff"] = int(args.cutoff)
        else:
            raise InputError(f"--cutoff: {args.cutoff!r} must be an integer >= 1 or 'unlimited'")
    return preset(args.variant, **kw)


def run(args: argparse.Namespace) -> int:
    from verify.exact import parse_number, parse_vector
    from verify.family.delta import exact_delta, worst_delta

    mech = _mech(args)
    ep = parse_number(args.epsilon_prime, "--epsilon-prime")
    if not args.digits.isdigit() or not 5 <= int(args.digits) <= 60:
        raise InputError(f"--digits: {args.digits!r} must be an integer from 5 to 60")
    if (args.queries is None) != (args.neighbour_queries is None):
        raise InputError("--queries and --neighbour-queries: give both (an exact pair) or neither (a search)")
    if args.queries is not None:
        res = exact_delta(mech, parse_vector(args.queries, "--queries"), parse_vector(args.neighbour_queries, "--neighbour-queries"),
                          ep, int(args.digits))
        how = "exact δ of the given pair"
    else:
        if not args.max_queries.isdigit():
            raise InputError(f"--max-queries: {args.max_queries!r} must be an integer from 1 to 10")
        res = worst_delta(mech, ep, max_queries=int(args.max_queries), digits=int(args.digits))
        how = f"largest exact δ over the structured pairs with up to {args.max_queries} queries"
    if args.plot:
        if not args.plot.lower().endswith(".png"):
            raise InputError(f"--plot: {args.plot!r} must end in .png")
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
    fig.savefig(path, dpi=120)
