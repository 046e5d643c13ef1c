"""``svt-verify sweep``: grid sweeps of the privacy ratio (and of the proofs' conditional ratio)."""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction

from verify.cli.common import add_mechanism_flags, emit_json, mechanism_from_args
from verify.errors import InputError
from verify.exact import fmt, parse_number, parse_vector
from verify.mechanism import output_label


def _point(w) -> str:
    """Where a witness sits: both query vectors and the output, or (m, κ, d, δ) of a conditional sweep."""
    if w.queries is not None:
        return (f"q(D) = ({', '.join(fmt(x) for x in w.queries)}), q(D') = ({', '.join(fmt(x) for x in w.neighbour_queries)}), "
                f"output {output_label(w.output)}")
    m = "-inf" if w.gap_max is None else fmt(w.gap_max)
    return f"m = {m}, κ = {fmt(w.kappa)}, d = {fmt(w.gap_query)}, δ = {fmt(w.delta)}"


def parse_values(text: str, flag: str) -> tuple[Fraction, ...]:
    """``a,b,c`` or ``LO:HI:STEP`` (inclusive of HI when on the grid)."""
    if ":" in text:
        parts = text.split(":")
        if len(parts) != 3:
            raise InputError(f"{flag}: {text!r} is not LO:HI:STEP")
        lo, hi, step = (parse_number(p, flag) for p in parts)
        if step <= 0:
            raise InputError(f"{flag}: step {fmt(step)} must be > 0")
        if hi < lo:
            raise InputError(f"{flag}: {fmt(hi)} is below {fmt(lo)}")
        n = int((hi - lo) // step) + 1
        if n > 100_000:
            raise InputError(f"{flag}: {n} values is too many (at most 100000)")
        return tuple(lo + j * step for j in range(n))
    return parse_vector(text, flag)


def _int_flag(text: str, flag: str, lo: int) -> int:
    s = text.strip()
    if not s.isdigit() or int(s) < lo:
        raise InputError(f"{flag}: {text!r} must be an integer >= {lo}")
    return int(s)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("sweep", help="check the privacy ratio over a grid of queries, neighbours and outputs",
                       description="Check |log Pr[A(D)=s]/Pr[A(D')=s]| <= ε over a grid (fast float64 path; points outside "
                                   "or within 1e-9 of the bound are re-evaluated at 30+ digits).")
    add_mechanism_flags(p)
    g = p.add_argument_group("grid")
    g.add_argument("--epsilons", metavar="E1,E2,...", help="several ε values (overrides --epsilon)")
    g.add_argument("--k", default="3", help="number of queries k (default 3)")
    g.add_argument("--query-values", metavar="LIST|LO:HI:STEP", help="values of every query coordinate (default t-6Δ..t+6Δ step Δ)")
    g.add_argument("--random", metavar="N", help="N seeded random query vectors instead of a grid")
    g.add_argument("--random-range", metavar="LO,HI", help="range of the random queries (default t-6Δ,t+6Δ)")
    g.add_argument("--resolution", metavar="R", help="random queries are multiples of R (default Δ/64)")
    g.add_argument("--seed", default="0", help="seed of the random queries (default 0)")
    g.add_argument("--shift-steps", default="0", metavar="N", help="0: corners {-Δ,0,Δ}^k (default); N >= 2: N shifts per coordinate in [-Δ,Δ]")
    c = p.add_argument_group("conditional sweep (the proofs' integrals)")
    c.add_argument("--conditional", action="store_true", help="sweep cond(m,d)/cond(m-κ,d+δ) instead of the outputs")
    c.add_argument("--gap-max", metavar="LIST|LO:HI:STEP", help="m = M(D,x)-t values (default -6Δ..6Δ step Δ/2; -∞ is added)")
    c.add_argument("--gap-query", metavar="LIST|LO:HI:STEP", help="d = q_i(D)-t values (default -6Δ..6Δ step Δ/2)")
    c.add_argument("--kappa-steps", default="9", metavar="N", help="κ grid size in [-Δ,Δ] (default 9)")
    c.add_argument("--delta-steps", default="9", metavar="N", help="δ grid size in [-Δ,Δ] (default 9)")
    r = p.add_argument_group("running and output")
    r.add_argument("--workers", metavar="N", help="worker processes (default: all cores; 1 = serial)")
    r.add_argument("--scheduler", metavar="ADDRESS", help="run on a Dask distributed cluster (e.g. tcp://127.0.0.1:8786)")
    r.add_argument("--chunk-size", default="20000", metavar="N", help="grid points (pairs) per chunk (default 20000)")
    r.add_argument("--max-violations", default="20", metavar="N", help="violations listed (confirmed at high precision) per ε (default 20)")
    r.add_argument("--digits", default="30", help="digits of the high-precision re-evaluation (30..1000, default 30)")
    r.add_argument("--json", action="store_true", help="print one JSON object")
    r.add_argument("--csv", metavar="FILE", help="write the witness, at-bound example and listed violations as CSV")
    r.add_argument("--plot", metavar="FILE.png", help="draw the privacy-loss landscape around the witness")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from verify.sweep import ConditionalGridSpec, GridSpec, conditional_sweep, sweep

    mech = mechanism_from_args(args)
    eps = parse_values(args.epsilons, "--epsilons") if args.epsilons else (mech.epsilon,)
    digits = _int_flag(args.digits, "--digits", 30)
    chunk = _int_flag(args.chunk_size, "--chunk-size", 1)
    cap = _int_flag(args.max_violations, "--max-violations", 0)
    workers = _int_flag(args.workers, "--workers", 1) if args.workers is not None else None
    if args.plot and not args.plot.lower().endswith(".png"):
        raise InputError(f"--plot: {args.plot!r} must end in .png")
    if args.conditional:
        spec = ConditionalGridSpec(
            epsilons=eps, sensitivity=mech.sensitivity,
            gap_max=parse_values(args.gap_max, "--gap-max") if args.gap_max else None,
            gap_query=parse_values(args.gap_query, "--gap-query") if args.gap_query else None,
            kappas=_steps(args.kappa_steps, "--kappa-steps", mech.sensitivity),
            deltas=_steps(args.delta_steps, "--delta-steps", mech.sensitivity),
            chunk_size=chunk, max_listed_violations=cap, digits=digits)
        run_fn = conditional_sweep
    else:
        random_n = _int_flag(args.random, "--random", 1) if args.random else 0
        spec = GridSpec(
            epsilons=eps, sensitivity=mech.sensitivity, threshold=mech.threshold, k=_int_flag(args.k, "--k", 1),
            query_values=parse_values(args.query_values, "--query-values") if args.query_values else None,
            random_samples=random_n,
            random_range=parse_vector(args.random_range, "--random-range") if args.random_range else None,
            random_resolution=parse_number(args.resolution, "--resolution") if args.resolution else None,
            seed=_int_flag(args.seed, "--seed", 0), shift_steps=_int_flag(args.shift_steps, "--shift-steps", 0),
            chunk_size=chunk, max_listed_violations=cap, digits=digits)
        if spec.random_range is not None and len(spec.random_range) != 2:
            raise InputError("--random-range: give two numbers LO,HI")
        run_fn = sweep
    result = run_fn(mech, spec, workers=workers, scheduler=args.scheduler, progress=sys.stderr.isatty())
    if args.csv:
        result.write_csv(args.csv)
    if args.plot and result.witness is not None:
        from verify.plots import plot_sweep

        plot_sweep(result, args.plot)
    if args.json:
        emit_json(result.to_json())
    else:
        print_result(result)
    if not result.complete:
        sys.stderr.write(f"svt-verify sweep: interrupted after {result.chunks_done} of {result.chunks_total} chunks; partial result above\n")
        return 130
    return 0


def _steps(text: str, flag: str, delta: Fraction) -> tuple[Fraction, ...]:
    from verify.sweep import shift_values

    n = _int_flag(text, flag, 1)
    return (Fraction(0),) if n == 1 else shift_values(delta, n)


def print_result(result) -> None:
    import mpmath

    j = result.to_json()
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
