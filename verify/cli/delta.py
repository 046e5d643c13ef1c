"""``svt-verify delta``: exact δ(ε') of a pair of neighbours (or ε' at a given δ), or the worst pair the search finds, with the RDP bound for Gaussian SVT."""

from __future__ import annotations

import argparse
from fractions import Fraction

from verify.cli import adaptive, adaptive_commands, flags, kinds, selection, selection_commands
from verify.cli.common import EXIT_CODES_NO_FINDING, add_mechanism_flags, emit_json
from verify.cli.progress import Staged, add_progress_flag
from verify.cli.variant import add_variant_flags, variant_from_args
from verify.errors import InputError

#: Largest number of queries the δ search accepts: measured on the 2-core machine under heavy load (load
#: average 16-21), `--variant lyu-6 --epsilon-prime 1 --max-queries 4` took 37.4 s CPU (search and confirmation).
MAX_DELTA_QUERIES = 4
#: Gaussian noise has no closed form: the float64 search is fast, but the exact confirmation of a pair with
#: more than one query runs on quadrature; `--variant gaussian-svt --epsilon-prime 1 --max-queries 3` took
#: 51.0 s CPU under the same load (2 queries: search 12 s, confirmation at 20 digits 20 s).
MAX_GAUSSIAN_DELTA_QUERIES = 3
#: Default --max-queries of the search.
DEFAULT_DELTA_QUERIES = 2


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("delta", help="approximate DP: exact δ(ε') = Σ_s max(0, Pr[A(D)=s] - e^ε' Pr[A(D')=s]) of a variant, or ε' at a given δ",
                       description="With --queries/--neighbour-queries: the exact δ(ε') of that ordered pair (--epsilon-prime), "
                                   "or the smallest ε' with δ(ε') <= D (--delta D). Without: the worst pair the search finds "
                                   "(structured pairs and hand-picked shapes with up to --max-queries queries, refined, then "
                                   "recomputed exactly). For gaussian-svt (cutoff 1) the Rényi-DP upper bound of Zhu & Wang "
                                   "(NeurIPS 2020, Thm 8) is printed beside it.",
                       epilog=EXIT_CODES_NO_FINDING)
    add_mechanism_flags(p)
    add_variant_flags(p)
    p.add_argument("--epsilon-prime", type=flags.NON_NEGATIVE, metavar="E", help="ε' >= 0: print δ(ε') (give this or --delta)")
    p.add_argument("--delta", type=flags.number_range(Fraction(0), Fraction(1)), metavar="D",
                   help="D in [0, 1]: print the smallest ε' with δ(ε') <= D (give this or --epsilon-prime; D = 0: the pure-DP loss of the pair)")
    p.add_argument("--queries", type=flags.vector(), metavar="Q1,Q2,...", help="q_j(D) (with --neighbour-queries: exact δ of this pair)")
    p.add_argument("--neighbour-queries", type=flags.vector(), metavar="Q1,Q2,...", help="q_j(D'), each within Δ of q_j(D)")
    p.add_argument("--max-queries", type=flags.integer(1, MAX_DELTA_QUERIES), default=None, metavar="K", help=f"search (without --queries): largest number of queries (1..{MAX_DELTA_QUERIES}, Gaussian 1..{MAX_GAUSSIAN_DELTA_QUERIES}; default {DEFAULT_DELTA_QUERIES})")
    p.add_argument("--digits", type=flags.integer(5, 60), default="20", help="significant digits of the exact δ or ε' (5..60, default 20)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--plot", type=flags.output_file(".png"), metavar="FILE.png", help="draw δ(ε') of the pair for ε' from 0 to 2ε' (13 points; with --delta, 2ε'(D)), RDP bound beside it")
    add_progress_flag(p)
    selection.extend_variant_choices(p)  # Report Noisy Max presets (verify/cli/selection_commands.py)
    adaptive.extend_variant_choices(p)  # Adaptive SVT presets (verify/cli/adaptive_commands.py)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if adaptive.is_adaptive(args):
        return adaptive_commands.run_delta(args)
    if selection.is_selection(args):
        return selection_commands.run_delta(args)
    from verify.family import delta as fd
    from verify.family import delta_search

    mech = variant_from_args(args)
    kinds.refuse_delta_flag_combinations(args)
    staged = Staged("delta", ["exact pair" if args.queries is not None else "search"] + ["plot"] * bool(args.plot), args)
    if args.queries is not None:
        pair = (list(args.queries), list(args.neighbour_queries))
        with staged.stage("exact pair"):
            res = fd.exact_delta(mech, *pair, args.epsilon_prime, args.digits) if args.delta is None \
                else fd.epsilon_for_delta(mech, *pair, args.delta, args.digits)
        how = "exact, the given pair"
    else:
        gaussian = not (mech.threshold_spec.law.piecewise and mech.query_spec.law.piecewise)
        if args.max_queries is None:
            args.max_queries = DEFAULT_DELTA_QUERIES
        if gaussian and args.max_queries > MAX_GAUSSIAN_DELTA_QUERIES:
            raise InputError(f"--max-queries: {args.max_queries} is above {MAX_GAUSSIAN_DELTA_QUERIES} for Gaussian noise "
                             "(the exact confirmation runs on quadrature; give --queries/--neighbour-queries for an exact pair)")
        with staged.stage("search"):
            res = delta_search.worst_delta(mech, args.epsilon_prime, max_queries=args.max_queries, digits=args.digits) if args.delta is None \
                else delta_search.worst_epsilon_for_delta(mech, args.delta, max_queries=args.max_queries, digits=args.digits)
        how = f"exact, the worst pair the search found with up to {args.max_queries} queries"
    if args.plot:
        with staged.stage("plot"):
            _plot(mech, res, args.plot)
    j = res.to_json()
    j["variant"] = mech.describe()
    j["method"] = how
    if args.json:
        emit_json(j)
        return 0
    print(mech.describe())
    if args.delta is None:
        print(f"ε' = {j['epsilon_prime']}: δ = {j['delta']} ({how}; a lower bound on the mechanism's δ(ε'))")
        print(f"  q(D) = ({', '.join(j['queries'])}), q(D') = ({', '.join(j['neighbour_queries'])}); largest term: output {j['largest_term_output']}")
        if j["rdp_delta_upper_bound"] is not None:
            print(f"  Rényi-DP upper bound (Zhu & Wang 2020, Thm 8; BBGHS conversion, α = {j['rdp_alpha']}) for {_queries(j)}: "
                  f"δ <= {j['rdp_delta_upper_bound']}")
        return 0
    why = " (an output of D has probability 0 under D')" if j["epsilon_prime"] == "inf" else \
        " (the pure-DP loss of the pair)" if args.delta == 0 else \
        " (δ >= δ(0), the total variation distance of the pair)" if res.epsilon_prime == 0 else ""
    print(f"δ = {j['delta']}: ε' = {j['epsilon_prime']}{why}, the smallest ε' with δ(ε') <= δ ({how}; a lower bound on the mechanism's ε')")
    at = f"δ(ε') -> {j['delta_at_epsilon_prime']} as ε' -> inf (the mass of those outputs, above δ)" \
        if j["epsilon_prime"] == "inf" else f"δ(ε') = {j['delta_at_epsilon_prime']}"
    print(f"  q(D) = ({', '.join(j['queries'])}), q(D') = ({', '.join(j['neighbour_queries'])}); {at}")
    if j["rdp_epsilon_upper_bound"] is not None:
        print(f"  Rényi-DP upper bound (Zhu & Wang 2020, Thm 8; BBGHS conversion) for {_queries(j)}: "
              f"ε' <= {j['rdp_epsilon_upper_bound']}")
    return 0


def _queries(j: dict) -> str:
    """The length the RDP bound holds for: it is computed for k queries and grows with log k."""
    k = len(j["queries"])
    return f"runs of at most k = {k} quer{'y' if k == 1 else 'ies'} (it grows with log k)"


def _plot(mech, res, path: str) -> None:
    import mpmath
    from matplotlib.figure import Figure

    from verify.family.delta import DeltaResult, pair_profile, rdp_delta
    from verify.plots import save_figure

    if isinstance(res, DeltaResult):
        ep = res.epsilon_prime
    else:  # ε' at a given δ: draw around it (1 when it is 0 or +∞)
        ep = Fraction(0) if mpmath.isinf(res.epsilon_prime) else Fraction(mpmath.nstr(res.epsilon_prime, 8))
    top = 2 * ep if ep > 0 else Fraction(1)
    eps = [top * j / 12 for j in range(13)]
    prof, _, _ = pair_profile(mech, res.queries, res.neighbour, 15)  # one exact computation, every ε' from it
    pts = [prof.delta_at(e)[0] for e in eps]
    rdp = [rdp_delta(mech, len(res.queries), e)[0] for e in eps]
    fig = Figure(figsize=(6, 3.6))
    ax = fig.add_subplot()
    pos = [(float(e), float(p)) for e, p in zip(eps, pts) if p > 0]  # δ = 0 exactly: not drawn on a log axis
    if pos:
        ax.semilogy(*zip(*pos), "o-", label="exact δ(ε') of the pair (lower bound; δ = 0 not drawn)")
    if rdp[0] is not None:
        ax.semilogy([float(e) for e in eps], [float(r) for r in rdp], "s--", label="Zhu-Wang RDP bound (upper bound)")
    if not isinstance(res, DeltaResult) and res.delta_target > 0:
        ax.axhline(float(res.delta_target), color="grey", linewidth=0.8, linestyle=":", label=f"δ = {float(res.delta_target):g} (--delta)")
    ax.set_xlabel("ε'")
    ax.set_ylabel("δ")
    ax.set_title(f"{mech.name}: q = ({', '.join(map(str, res.queries))}), q' = ({', '.join(map(str, res.neighbour))})", fontsize=9)
    ax.legend(fontsize=8)
    fig.tight_layout()
    save_figure(fig, path, dpi=120)

