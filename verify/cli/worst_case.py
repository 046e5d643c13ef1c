"""``svt-verify worst-case``: search for the largest privacy loss of a variant and decide.

Every variant flag applies (`verify.cli.variant`).  Every variant, discrete
noise included, runs on the one search entry point and verdict rule
(`verify.family.worstcase.family_worst_case`) and prints the same report; for a
mechanism of the seed's shape (cutoff 1, no release, Laplace / exponential /
none noise) named without family flags, `search` returns it in the seed's
terms (`verify.worstcase.worst_case`: outputs s_i and ⊤^k, a loss-by-k table
and the push study that ``--plot`` draws).  Either result is shown by the one
printer with the same JSON keys (`verify.cli.worst_case_view`).  The search is deterministic: it has
no random starts, hence no ``--seed``.
"""

from __future__ import annotations

import argparse

from verify.cli import adaptive, flags, limits, selection
from verify.cli.common import EXIT_CODES, add_fail_on, add_mechanism_flags, emit_json, exit_status
from verify.cli.progress import Staged, add_progress_flag
from verify.cli.variant import FAMILY_DESTS, add_variant_flags, variant_from_args
from verify.errors import InputError
from verify.verdicts import MechanismVerdict

#: Findings --fail-on can name (the verdict).
FINDINGS = (MechanismVerdict.NOT_PRIVATE, MechanismVerdict.UNDECIDED)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("worst-case", help="search for the largest privacy loss of a variant; verdict private / not_private / undecided",
                       description="Structured search (extreme shifts, pushed queries) plus scipy.optimize for sup |log ratio| "
                                   "over k = 1..K; the best witness is confirmed by the mpmath path.  Any variant: "
                                   "--variant and the flags that override it.",
                       epilog=EXIT_CODES)
    add_mechanism_flags(p)
    add_variant_flags(p)
    selection.extend_variant_choices(p)  # Report Noisy Max presets (verify/cli/selection.py)
    adaptive.extend_variant_choices(p)  # Adaptive SVT presets (verify/cli/adaptive.py)
    p.add_argument("--max-queries", type=flags.integer(1, limits.WORST_CASE_MAX_QUERIES), default="10", metavar="K",
                   help=f"largest number of queries searched (1..{limits.WORST_CASE_MAX_QUERIES}, default 10)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--plot", type=flags.output_file(".png"), metavar="FILE.png",
                   help="draw the loss against k and against how far the queries are pushed (the seed's search)")
    add_fail_on(p, FINDINGS, "the verdict")
    add_progress_flag(p)
    selection.record_defaults(p)
    p.set_defaults(func=run)


def uses_seed_search(args: argparse.Namespace, mech) -> bool:
    """The seed's search for the seed's shape named without family flags; the family's otherwise."""
    return mech.is_above_threshold and not any(getattr(args, d, None) is not None for d in FAMILY_DESTS)


def search(args: argparse.Namespace, mech, progress, on_best=None):
    """The worst-case result of ``mech`` (a `SparseVector`): the one switch between the two searches.
    ``on_best``: told the best pair so far (`verify.family.witness.BestSoFar`; discrete noise: the confirmed witness only)."""
    if uses_seed_search(args, mech):
        from verify.worstcase import worst_case

        return worst_case(mech, max_queries=args.max_queries, progress=progress, on_best=on_best)
    from verify.family.worstcase import family_worst_case

    if args.plot is not None:
        raise InputError(f"--plot: only for the seed's AboveThreshold; {mech.name} runs on the family's structured search "
                         "(no plot)")
    return family_worst_case(mech, max_queries=args.max_queries, on_best=on_best)  # discrete noise too (integer search)


def run(args: argparse.Namespace) -> int:
    if selection.is_selection(args):
        return selection.run_worst_case(args)
    if adaptive.is_adaptive(args):
        return adaptive.run_worst_case(args)
    mech = variant_from_args(args)
    limits.check_worst_case_scales(mech)
    best: list = []  # the best pair so far, shown if Ctrl-C comes before the verdict

    def found(b) -> None:
        best[:] = [b]
        bar.set_postfix_str(f"best loss so far {b.loss:.6g}")

    with Staged("worst-case", [f"search k = 1..{args.max_queries}"], args, quiet_partial=args.json) as staged:
        staged.partial = lambda: _partial(args, mech, best[0] if best else None, staged)
        # one step per k, and one for the decision and the tightness study
        with staged.stage(staged.names[0], args.max_queries + 1, unit="k") as bar:
            res = search(args, mech, lambda k: bar.update(1), found)
    code = exit_status(args, [res.verdict])
    if args.plot:
        from verify.plots import plot_worst_case

        plot_worst_case(res, args.plot)
    from verify.cli.worst_case_view import json_of, print_view, view  # lazy: start-up time (the result types)

    v = view(res, mech, args.max_queries)
    if args.json:
        emit_json(json_of(v))
        return code
    print_view(v)
    return code


def _partial(args: argparse.Namespace, mech, best, run) -> None:
    """Ctrl-C before the verdict: the best pair found so far, marked partial (a lower bound on the loss
    at best, never a verdict)."""
    if args.json:
        emit_json({"partial": True, "verdict": None, "variant": mech.describe(),
                   "best_so_far": None if best is None else best.to_json()})
        return
    if best is not None:
        text = best.describe()
    else:
        text = "none: the discrete search reports its pair only at the end" if mech.is_discrete else "no pair searched yet"
    run.section(f"{mech.describe()}\npartial result (interrupted before the verdict; not a verdict): best pair so far\n"
                f"  {text}")
