"""``svt-verify audit``: does an implementation sample the law of the variant it claims (docs/audit.md)?

Exit status: 0 ``matches``, 1 ``deviates``, 3 ``undecided`` (not a pass), 2 for
bad input or a failure of the implementation (it raised, exited, printed its way
out or was killed: one line naming the exception and where it came from), 130
when interrupted (the partial result is printed first).  The implementation runs
in child processes of its own (`verify.audit.sandbox`).
"""

from __future__ import annotations

import argparse
import sys
from fractions import Fraction

from verify.cli import adaptive, adaptive_commands, flags, limits, selection, selection_commands
from verify.cli.common import add_mechanism_flags, emit_json
from verify.cli.variant import add_variant_flags, variant_from_args
from verify.errors import InputError
from verify.verdicts import AuditVerdict

#: Largest number of samples per side of a pair, longest structured pair and the default cap on the runs: the
#: values of `verify.audit.core` (not imported here: every command's start-up would load numpy and scipy;
#: tests/test_audit_exit.py checks that they agree).
MAX_SAMPLES = 100_000_000
MAX_QUERIES_PER_PAIR = 12
MAX_RUNS = 50_000_000
#: Exit status of ``undecided``: a CI job must not read it as a pass (0) nor as a finding (1).
EXIT_UNDECIDED = 3


def _spec(text: str, name: str) -> str:
    from verify.audit.adapters import parse_spec  # start-up time (see MAX_SAMPLES)

    value = flags.TEXT.parse(text, name).strip()
    parse_spec(value)  # refuses a bad spec here, in one line; the module is imported (run) in the audit's children
    return value


IMPLEMENTATION = flags.Flag(_spec, "MODULE:CALLABLE")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("audit", help="test an implementation's output frequencies against the exact law of the variant it claims",
                       description="Run MODULE:CALLABLE (impl(queries, rng) -> outcome string, or (outcome, released values)) at the "
                                   "claimed variant's worst pair, structured and random pairs; G-test every side against the exact "
                                   "law; on a confirmed deviation, name the law it samples (docs/audit.md). Exit status: 0 matches, "
                                   "1 deviates, 3 undecided, 2 bad input or a failure of the implementation.")
    p.add_argument("--implementation", type=IMPLEMENTATION, required=True, metavar="MODULE:CALLABLE",
                   help="the callable to audit: MODULE:CALLABLE, path/to/file.py:CALLABLE, either with ?key=value&... "
                        "keyword parameters (e.g. verify.audit.examples:lyu1). The module is imported, which runs its code, "
                        "in child processes with stdout captured")
    add_mechanism_flags(p)
    add_variant_flags(p)
    g = p.add_argument_group("audit")
    g.add_argument("--samples", type=flags.integer(10, MAX_SAMPLES), metavar="N",
                   help="runs per side of each pair (default: chosen from --target-tv; not with --target-tv)")
    g.add_argument("--target-tv", type=flags.number_range(Fraction(1, 10**4), Fraction(1)),
                   metavar="D", help="call any deviation of total variation >= D at a pair deviates with power 0.9 (default 0.05; "
                                     "not with --samples)")
    g.add_argument("--false-alarm", type=flags.number_range(Fraction(1, 10**12), Fraction(49, 100)),
                   default="0.001", metavar="A", help="false-alarm rate over all tests, Bonferroni (default 0.001)")
    g.add_argument("--random-pairs", type=flags.integer(0, 100), default="4", metavar="N", help="seeded random pairs (default 4)")
    g.add_argument("--max-runs", type=flags.integer(1, 10**12), default=str(MAX_RUNS), metavar="N",
                   help=f"refuse up front an audit that may need more runs than N, re-runs included (default {MAX_RUNS:,})")
    g.add_argument("--queries-per-pair", type=flags.integer(1, MAX_QUERIES_PER_PAIR), metavar="K",
                   help="queries of the structured and random pairs (default max(3, cutoff + 1))")
    g.add_argument("--no-worst-pair", action="store_true", help="skip the worst-case search's pair")
    g.add_argument("--seed", type=flags.integer(0, 2**63 - 1), default="0", help="seed of the pairs and the runs (default 0)")
    r = p.add_argument_group("running and output")
    r.add_argument("--workers", type=flags.integer(1, limits.MAX_WORKERS), metavar="N",
                   help="worker processes (default: all cores; 1 = serial)")
    r.add_argument("--scheduler", type=flags.SCHEDULER, metavar="ADDRESS",
                   help="run on a Dask distributed cluster (tcp://HOST:PORT, e.g. tcp://127.0.0.1:8786)")
    r.add_argument("--json", action="store_true", help="print one JSON object")
    selection.extend_variant_choices(p)  # Report Noisy Max presets (verify/cli/selection_commands.py)
    adaptive.extend_variant_choices(p)  # Adaptive SVT presets (verify/cli/adaptive_commands.py)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if adaptive.is_adaptive(args):
        return adaptive_commands.run_audit(args)
    if selection.is_selection(args):
        return selection_commands.run_audit(args)
    from verify.audit import audit  # start-up time (see MAX_SAMPLES)

    if args.workers is not None and args.scheduler is not None:
        raise InputError("--workers: give either --workers or --scheduler, not both")
    if args.samples is not None and args.target_tv is not None:
        raise InputError("--samples: give either --samples (runs per side) or --target-tv (which chooses them), not both")
    mech = variant_from_args(args)
    res = audit(args.implementation, mech, samples=args.samples,
                target_tv=None if args.target_tv is None else float(args.target_tv), false_alarm=float(args.false_alarm),
                random_pairs=args.random_pairs, queries_per_pair=args.queries_per_pair, seed=args.seed,
                workers=args.workers, scheduler=args.scheduler, progress=sys.stderr.isatty() and not args.json,
                worst_pair=not args.no_worst_pair, name=args.implementation, max_runs=args.max_runs)
    if args.json:
        emit_json(res.to_json())
    else:
        print("\n".join(res.lines()))
    if res.interrupted:
        sys.stderr.write("svt-verify: interrupted (partial result above)\n")
        return 130
    if res.verdict is AuditVerdict.DEVIATES:
        return 1
    return EXIT_UNDECIDED if res.verdict is AuditVerdict.UNDECIDED else 0
