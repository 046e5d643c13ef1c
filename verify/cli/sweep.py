"""``svt-verify sweep``: grid sweeps of the privacy ratio (and of the proofs' conditional ratio)."""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction

from verify.cli import flags, limits
from verify.cli.common import EXIT_CODES, VIOLATION, add_fail_on, add_mechanism_flags, emit_json, exit_status, given
from verify.cli.variant import add_variant_flags, seed_label, seed_mechanism
from verify.errors import InputError
from verify.exact import fmt
from verify.mechanism import output_name
from verify.verdicts import SweepVerdict

#: Findings --fail-on can name: a violation confirmed at high precision (verdict refuted), or any
#: violation flagged, confirmed or not (refuted_float64 included).
FINDINGS = (SweepVerdict.REFUTED, VIOLATION)
#: Flags of the output sweep (not of --conditional), with their defaults.
GRID_FLAGS = {"k": 3, "query_values": None, "random": None, "shift_steps": 0}
#: Flags that only mean something with --random, with their defaults.
RANDOM_FLAGS = {"random_range": None, "resolution": None, "seed": 0}
#: Flags of the conditional sweep, with their defaults.
CONDITIONAL_FLAGS = {"gap_max": None, "gap_query": None, "kappa_steps": 9, "delta_steps": 9}


def _point(w) -> str:
    """Where a witness sits: both query vectors and the output, or (m, κ, d, δ) of a conditional sweep."""
    if w.queries is not None:
        return (f"q(D) = ({', '.join(fmt(x) for x in w.queries)}), q(D') = ({', '.join(fmt(x) for x in w.neighbour_queries)}), "
                f"output {output_name(w.output, len(w.queries))}")
    m = "-inf" if w.gap_max is None else fmt(w.gap_max)
    return f"m = {m}, κ = {fmt(w.kappa)}, d = {fmt(w.gap_query)}, δ = {fmt(w.delta)}"


#: Largest k of a sweep (the grid's index must fit in int64 for any k <= this).
MAX_K = 64


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sweep", help="check the privacy ratio over a grid of queries, neighbours and outputs",
                       description="Check |log Pr[A(D)=s]/Pr[A(D')=s]| <= ε over a grid (fast float64 path; points outside "
                                   "or within 1e-9 of the bound are re-evaluated at 30+ digits).",
                       epilog=EXIT_CODES)
    add_mechanism_flags(p)
    add_variant_flags(p)
    g = p.add_argument_group("grid")
    g.add_argument("--epsilons", type=flags.grid(limits.SWEEP_MAX_EPSILONS, positive=True), metavar="E1,E2,...",
                   help=f"several ε values, at most {limits.SWEEP_MAX_EPSILONS} (overrides --epsilon)")
    g.add_argument("--k", type=flags.integer(1, MAX_K), help=f"number of queries k, 1..{MAX_K} (default 3)")
    g.add_argument("--query-values", type=flags.grid(), metavar="LIST|LO:HI:STEP",
                   help="values of every query coordinate (default t-6Δ..t+6Δ step Δ)")
    g.add_argument("--random", type=flags.integer(1, limits.SWEEP_MAX_RANDOM), metavar="N",
                   help=f"N seeded random query vectors instead of a grid (N <= {limits.SWEEP_MAX_RANDOM:,})")
    g.add_argument("--random-range", type=flags.pair(","), metavar="LO,HI", help="range of the random queries (with --random; default t-6Δ,t+6Δ)")
    g.add_argument("--resolution", type=flags.POSITIVE, metavar="R", help="random queries are multiples of R (with --random; default Δ/64)")
    g.add_argument("--seed", type=flags.integer(0, 2**63 - 1), help="seed of the random queries (with --random; default 0)")
    g.add_argument("--shift-steps", type=flags.integer(0, 1001), metavar="N",
                   help="0: corners {-Δ,0,Δ}^k (default); N >= 2: N shifts per coordinate in [-Δ,Δ]")
    c = p.add_argument_group("conditional sweep (the proofs' integrals)")
    c.add_argument("--conditional", action="store_true", help="sweep cond(m,d)/cond(m-κ,d+δ) instead of the outputs")
    c.add_argument("--gap-max", type=flags.grid(), metavar="LIST|LO:HI:STEP",
                   help="m = M(D,x)-t values (default -6Δ..6Δ step Δ/2; -∞ is added)")
    c.add_argument("--gap-query", type=flags.grid(), metavar="LIST|LO:HI:STEP", help="d = q_i(D)-t values (default -6Δ..6Δ step Δ/2)")
    c.add_argument("--kappa-steps", type=flags.integer(1, 1001), metavar="N", help="κ grid size in [-Δ,Δ] (default 9)")
    c.add_argument("--delta-steps", type=flags.integer(1, 1001), metavar="N", help="δ grid size in [-Δ,Δ] (default 9)")
    r = p.add_argument_group("running and output")
    r.add_argument("--workers", type=flags.integer(1, limits.MAX_WORKERS), metavar="N",
                   help="worker processes (default: all cores; 1 = serial)")
    r.add_argument("--scheduler", type=flags.SCHEDULER, metavar="ADDRESS",
                   help="run on a Dask distributed cluster (tcp://HOST:PORT, e.g. tcp://127.0.0.1:8786)")
    r.add_argument("--chunk-size", type=flags.integer(1, 10_000_000), default="20000", metavar="N",
                   help="grid points (pairs) per chunk (default 20000)")
    r.add_argument("--max-violations", type=flags.integer(0, limits.SWEEP_MAX_LISTED), default="20", metavar="N",
                   help=f"violations listed (confirmed at high precision) per ε (0..{limits.SWEEP_MAX_LISTED}, default 20)")
    r.add_argument("--digits", type=flags.integer(30, 1000), default="30",
                   help="digits of the high-precision re-evaluation (30..1000, default 30)")
    r.add_argument("--json", action="store_true", help="print one JSON object")
    add_fail_on(r, FINDINGS, "refuted: a violation confirmed at high precision; violation: any |log ratio| > ε flagged")
    r.add_argument("--csv", type=flags.output_file(), metavar="FILE",
                   help="write the witness, at-bound example and listed violations as CSV")
    r.add_argument("--plot", type=flags.output_file(".png"), metavar="FILE.png", help="draw the privacy-loss landscape around the witness")
    p.set_defaults(func=run)


def check_modes(args: argparse.Namespace) -> None:
    """Refuse a flag of one mode given with the other mode, or without its mode (one line naming both flags)."""
    if args.conditional:
        for f in given(args, *GRID_FLAGS, *RANDOM_FLAGS, "threshold"):
            why = "m and d are measured from t" if f == "--threshold" else "it belongs to the output sweep"
            raise InputError(f"{f} and --conditional: {f} has no effect on the conditional sweep ({why})")
    else:
        for f in given(args, *CONDITIONAL_FLAGS):
            raise InputError(f"{f} without --conditional: it belongs to the conditional sweep (add --conditional or drop {f})")
        if args.random is None:
            for f in given(args, *RANDOM_FLAGS):
                raise InputError(f"{f} without --random: it sets the random query vectors (add --random N or drop {f})")
        elif args.query_values is not None:
            raise InputError("--query-values and --random: the queries are either a product grid or random, not both")
    if args.epsilons is not None and args.epsilon is not None:
        raise InputError("--epsilon and --epsilons: give one (--epsilons sweeps several ε values)")


def _arg(args: argparse.Namespace, defaults: dict, name: str):
    v = getattr(args, name)
    return defaults[name] if v is None else v


def run(args: argparse.Namespace) -> int:
    from verify.sweep import ConditionalGridSpec, GridSpec, conditional_sweep, sweep

    check_modes(args)
    mech = seed_mechanism(args, "sweep")
    eps = args.epsilons if args.epsilons is not None else (mech.epsilon,)
    common = dict(epsilons=eps, sensitivity=mech.sensitivity, chunk_size=args.chunk_size,
                  max_listed_violations=args.max_violations, digits=args.digits)
    if args.conditional:
        c = CONDITIONAL_FLAGS
        spec = ConditionalGridSpec(
            gap_max=args.gap_max, gap_query=args.gap_query,
            kappas=_steps(_arg(args, c, "kappa_steps"), mech.sensitivity),
            deltas=_steps(_arg(args, c, "delta_steps"), mech.sensitivity), **common)
        run_fn = conditional_sweep
    else:
        g, r = GRID_FLAGS, RANDOM_FLAGS
        spec = GridSpec(
            threshold=mech.threshold, k=_arg(args, g, "k"), query_values=args.query_values, random_samples=args.random or 0,
            random_range=args.random_range, random_resolution=args.resolution, seed=_arg(args, r, "seed"),
            shift_steps=_arg(args, g, "shift_steps"), **common)
        run_fn = sweep
    limits.check_sweep_points(spec.points_per_epsilon * len(eps), min(eps), args.digits)
    limits.check_sweep_listed(args.max_violations, len(eps), args.digits)
    result = run_fn(mech, spec, workers=args.workers, scheduler=args.scheduler, progress=sys.stderr.isatty())
    if args.csv:
        result.write_csv(args.csv)
    if args.plot and result.witness is not None:
        from verify.plots import plot_sweep

        plot_sweep(result, args.plot)
    if args.json:
        emit_json(result.to_json())
    else:
        print_result(result, seed_label(args))
    if not result.complete:
        sys.stderr.write(f"svt-verify sweep: interrupted after {result.chunks_done} of {result.chunks_total} chunks; partial result above\n")
        return 130
    found = ([SweepVerdict.REFUTED] if result.verdict == SweepVerdict.REFUTED else []) + ([VIOLATION] if result.violation_count else [])
    return exit_status(args, found)


def _steps(n: int, delta: Fraction) -> tuple[Fraction, ...]:
    """``n`` equally spaced values in [-Δ, Δ] (0 alone for n = 1)."""
    from verify.sweep import shift_values

    return (Fraction(0),) if n == 1 else shift_values(delta, n)


def print_result(result, label: str = "") -> None:
    import mpmath

    j = result.to_json()
    print(label, end="")
    print(result.mechanism.describe() if len(result.per_epsilon) == 1 else
          result.mechanism.describe().replace(f"ε={fmt(result.mechanism.epsilon)}", "ε=" + ",".join(j["grid"]["epsilons"])))
    print(f"grid: {result.spec.describe()}")
    state = "" if result.complete else f" (INTERRUPTED: {result.chunks_done}/{result.chunks_total} chunks)"
    print(f"points checked: {result.points:,} in {result.seconds:.2f} s ({result.runner}){state}")
    w = result.witness
    if w is not None:
        with mpmath.workdps(40):
            frac = result.max_abs_log_ratio_over_epsilon
            print(f"max |log ratio| = {mpmath.nstr(result.max_abs_log_ratio, 15)} = {mpmath.nstr(frac, 10)}·ε (ε = {fmt(w.epsilon)})")
        print(f"  witness: {_point(w)}")
        print(f"  log ratio ({w.digits} digits) = {w.log_ratio}")
    print(f"near the bound (re-evaluated at {result.spec.digits} digits): {j['near_bound_reevaluated']:,}; exactly at the bound: {j['at_bound']:,}")
    print(f"violations: {result.violation_count:,} ({len(result.violations)} listed, each confirmed at {result.spec.digits} digits)")
    for v in result.violations[:5]:
        print(f"  ε = {fmt(v.epsilon)}: {_point(v)}: log ratio {v.log_ratio}")
    print(f"verdict: {result.verdict}")
