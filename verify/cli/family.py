"""``svt-verify family``: exact verdicts for every SVT preset beside the sampling tools' published lower bounds."""

from __future__ import annotations

import argparse

from verify.cli import flags, limits, selection_commands
from verify.cli.common import EXIT_CODES, add_fail_on, emit_json, exit_status
from verify.cli.progress import Staged, add_progress_flag
from verify.errors import InputError
from verify.exact import fmt
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
    p.add_argument("--rows", metavar="NAME[:C|:unlimited],...", help="only these presets (e.g. lyu-3:1,lyu-6:unlimited,sampcert-above-threshold:1, or Report Noisy Max presets "
                        "such as dpsniper-rnm3:1,statdp-noisy-max-v1a:1 (docs/selection.md); each runs at the table's "
                        "ε, Δ, t; then no separate discrete section); default every row")
    p.add_argument("--no-discrete", action="store_true",
                   help="leave out the discrete-noise rows (SampCert's AboveThreshold, discrete Laplace and Gaussian; "
                        "shown by default at ε = 1, Δ = 1, t = 0, or at the --epsilon/--sensitivity/--threshold given)")
    p.add_argument("--workers", type=flags.integer(1, limits.MAX_WORKERS), metavar="N",
                   help="processes running the rows, longest first (default: all cores; 1 = serial); with N > 1 the "
                        "discrete rows run on one more process, started first, beside the compiled evaluator's load; "
                        "each row's seconds are its own search's wall time in its worker")
    p.add_argument("--suite", choices=["peers"],
                   help="peers: every SVT and Report Noisy Max program of DP-Sniper, StatDP and CheckDP (13 CheckDP "
                        "programs), each at its peer's configuration, with our verdict, loss and bound beside the lower "
                        "bounds the peers published and CheckDP's verdict (docs/adaptive.md); takes --workers, --json, --fail-on")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    add_fail_on(p, FINDINGS, "the verdict of any row")
    add_progress_flag(p)
    p.set_defaults(func=run, selection_defaults={a.dest: a.default for a in p._actions if a.dest != "help"})


def parse_rows(text: str | None):
    from verify import validate
    from verify.family.table import EXTRA_ROWS, ROWS

    if text is None:
        return ROWS
    named = ROWS + EXTRA_ROWS  # the discrete presets too (one registry): a row at the table's ε, Δ, t
    known = {n for n, _ in named}
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
            out += [r for r in named if r[0] == name]
    seen = set()
    for row in out:
        if row in seen:
            raise InputError(f"--rows: {row[0]}:{'unlimited' if row[1] is None else row[1]} is named twice (each row runs once)")
        seen.add(row)
    if len(out) > limits.FAMILY_MAX_ROWS:
        raise InputError(f"--rows: {len(out)} rows is above the limit of {limits.FAMILY_MAX_ROWS} (the default table's "
                         "size; split the list; see docs/limits.md)")
    return tuple(out)


def run(args: argparse.Namespace) -> int:
    import time

    if args.suite is not None:
        return run_suite(args)

    from verify.family.table import DP_SNIPER, TableConfig, TableRun, render

    rnm, _ = selection_commands.split_family_rows(args.rows)
    if rnm:  # Report Noisy Max rows (verify/cli/selection_commands.py)
        return selection_commands.run_family(args, rnm, DP_SNIPER.epsilon if args.epsilon is None else args.epsilon)
    config = TableConfig(epsilon=DP_SNIPER.epsilon if args.epsilon is None else args.epsilon,
                         sensitivity=DP_SNIPER.sensitivity if args.sensitivity is None else args.sensitivity,
                         threshold=args.threshold)

    from verify.family.table import row_mechanism

    chosen = parse_rows(args.rows)
    for name, cutoff in chosen:  # the search's limit on the noise scale (see limits.check_worst_case_scales)
        limits.check_worst_case_scales(row_mechanism(name, cutoff, config))
    with_discrete = _check_discrete(args)
    _check_monotone(args, [name for name, cutoff in chosen if row_mechanism(name, cutoff, config).is_discrete], with_discrete)
    rows: list = []
    discrete = None
    shown: list[str] = []  # the sections printed
    with Staged("family", ["rows"] + ["discrete rows"] * with_discrete, args, quiet_partial=args.json) as staged:
        staged.partial = lambda: _partial(args, rows, "rows" in shown)
        t0 = time.perf_counter()
        n = len(chosen)
        # the discrete rows run in the same pool, beside the others (handed out longest first)
        extra = _discrete_tasks(args) if with_discrete else []
        # the workers start (forked) before the stage's bar thread does
        with TableRun(chosen, args.max_queries, args.monotone, config, args.workers, extra=extra) as run_rows:
            results = iter(run_rows)  # one iterator for both stages (closing it stops the workers)
            done: dict[int, object] = {}  # index -> row: the table's rows (< n), then the discrete rows
            with staged.stage("rows", total=n, unit="row") as bar:
                while len(rows) < n:
                    i, row = next(results)  # one row at a time, so that the bar moves and Ctrl-C keeps the rows done
                    done[i] = row
                    if i < n:
                        rows[:] = [done[j] for j in sorted(done) if j < n]  # the rows done, in the table's order
                        bar.set_postfix_str(f"{row.name}:{'∞' if row.cutoff is None else row.cutoff}")
                        bar.update(1)
            seconds = time.perf_counter() - t0
            if not args.json:
                staged.section(f"{render(rows)}\nwhole table: {seconds:.1f} s")
                shown.append("rows")
            if with_discrete:
                from verify.discrete.table import render as render_discrete

                with staged.stage("discrete rows"):
                    for i, row in results:
                        done[i] = row
                    discrete = [done[j] for j in sorted(done) if j >= n]
                if not args.json:
                    staged.section(f"\nDiscrete noise (ties have mass; {_discrete_config(args)}; cutoff-1 rows searched up to "
                                   f"{min(args.max_queries, 5)} queries, the others over every integer pair of up to "
                                   f"{min(args.max_queries, 2)} queries in a box; losses confirmed at 50 digits):\n"
                                   f"{render_discrete(discrete)}")
    code = exit_status(args, [r.result.verdict for r in rows] + [r.result.verdict for r in discrete or []])
    if args.json:
        j = {"rows": [r.to_json() for r in rows], "monotone": args.monotone, "max_queries": args.max_queries,
             "seconds": round(seconds, 3)}
        if not config.is_dp_sniper:
            j["configuration"] = config.describe()
        if discrete is not None:
            j["discrete_rows"] = [r.to_json() for r in discrete]
        emit_json(j)
    return code


def _partial(args: argparse.Namespace, rows: list, table_shown: bool) -> None:
    """Ctrl-C: the rows finished so far, marked partial (text: the rows table if it was not printed yet)."""
    if args.json:
        emit_json({"partial": True, "rows": [r.to_json() for r in rows]})
        return
    from verify.family.table import render

    if not table_shown:
        if rows:
            print(render(rows))
        print(f"(partial: family interrupted; {len(rows)} row(s) done, the rest not computed)")
    else:
        print("(partial: family interrupted during the discrete rows; the rows above are complete)")


def _discrete_config(args: argparse.Namespace) -> str:
    eps = 1 if args.epsilon is None else args.epsilon
    sens = 1 if args.sensitivity is None else args.sensitivity
    t = 0 if args.threshold is None else args.threshold
    return f"ε = {fmt(eps)}, Δ = {fmt(sens)}, t = {fmt(t)}"


def _check_discrete(args: argparse.Namespace) -> bool:
    """Whether the discrete rows are shown (not with --no-discrete, nor when --rows names the continuous rows
    to run); their integer flags and their searches' size limits are checked here, before any row runs."""
    if args.no_discrete or args.rows is not None:
        return False
    for flag, value in (("--sensitivity", args.sensitivity), ("--threshold", args.threshold)):
        if value is not None and value.denominator != 1:
            raise InputError(f"{flag} {fmt(value)}: the discrete rows need an integer (ties on the lattice ℤ); "
                             "give an integer or --no-discrete")
    from verify.discrete.table import check_table

    check_table(epsilon=1 if args.epsilon is None else args.epsilon, sensitivity=1 if args.sensitivity is None else args.sensitivity,
                threshold=0 if args.threshold is None else args.threshold, max_queries=args.max_queries)
    return True


def _check_monotone(args: argparse.Namespace, discrete_named: list[str], with_discrete: bool) -> None:
    """--monotone is applied to the continuous rows or refused: the discrete search (every integer pair in a box,
    every neighbour) has no monotone restriction, so a run with a discrete row refuses it before any row runs."""
    if not args.monotone or not (discrete_named or with_discrete):
        return
    if discrete_named:
        which, fix = f"--rows names {', '.join(sorted(set(discrete_named)))}", "name only continuous rows in --rows"
    else:
        which, fix = "the default table shows the discrete rows", "add --no-discrete"
    raise InputError(f"--monotone: {which}, and the discrete search (every integer neighbour) has no monotone "
                     f"restriction; {fix}")


def _discrete_tasks(args: argparse.Namespace):
    """The discrete rows (`verify.discrete.table.discrete_tasks`) at the flags' ε, Δ, t."""
    from verify.discrete.table import discrete_tasks

    return discrete_tasks(epsilon=1 if args.epsilon is None else args.epsilon,
                          sensitivity=1 if args.sensitivity is None else args.sensitivity,
                          threshold=0 if args.threshold is None else args.threshold, max_queries=args.max_queries)


def run_suite(args: argparse.Namespace) -> int:
    """``family --suite peers`` (`verify.peers.suite`): each program at its own peer's configuration, so the
    flags that set one configuration for every row are refused."""
    import time

    from verify.peers.suite import render
    from verify.peers.suite import run_suite as suite_rows

    for flag, dest in (("--epsilon", "epsilon"), ("--sensitivity", "sensitivity"), ("--threshold", "threshold"),
                       ("--rows", "rows")):
        if getattr(args, dest) is not None:
            raise InputError(f"{flag}: --suite peers runs every program at its peer's own configuration; drop {flag}")
    for flag, on in (("--monotone", args.monotone), ("--no-discrete", args.no_discrete), ("--max-queries", args.max_queries != 10)):
        if on:
            raise InputError(f"{flag}: --suite peers fixes it per program (the svt-verify command of each row is printed "
                             "with --json); drop {flag}".replace("{flag}", flag))
    if getattr(args, "progress", None) == "always":
        raise InputError("--progress always: --suite peers shows no progress bar; use auto or never")
    t0 = time.perf_counter()
    rows = list(suite_rows(args.workers))
    seconds = time.perf_counter() - t0
    code = exit_status(args, [r.judgement.verdict for r in rows if r.judgement is not None])
    if args.json:
        emit_json({"suite": "peers", "rows": [r.to_json() for r in rows], "seconds": round(seconds, 3)})
        return code
    print(render(rows))
    print(f"whole table: {seconds:.1f} s")
    return code
