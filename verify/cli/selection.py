"""Report Noisy Max on the command line: ``--variant`` names one of `verify.selection.presets`.

The SVT commands offer the selection presets beside their own (`extend_variant_choices`) and hand a
run whose ``--variant`` is a selection preset to this module (`is_selection`), which prints the
result of `verify.selection.verdict` (``worst-case``).  ``--epsilon``, ``--sensitivity``,
``--max-queries``, ``--json`` and ``--fail-on`` apply; every Sparse Vector flag (threshold, noise
families and scales, cutoff, release, ``--plot``) is refused in one line: Report Noisy Max has none
of them.
"""

from __future__ import annotations

import argparse

from verify.cli import kinds
from verify.cli.common import DEFAULT_EPSILON, DEFAULT_SENSITIVITY, value_or
from verify.errors import InputError
from verify.selection.presets import SELECTION_NAMES, is_selection_preset, selection_preset

#: The largest number of scores the worst-case search takes (the gap search stops at 3).
MAX_SCORES = 10


def extend_variant_choices(parser: argparse.ArgumentParser) -> None:
    """Add the selection presets to ``--variant``'s choices (and its help)."""
    kinds.extend_variant_choices(parser, SELECTION_NAMES, "a Report Noisy Max preset (docs/selection.md)")
    record_defaults(parser)


def record_defaults(parser: argparse.ArgumentParser) -> None:
    """Every flag's default, so that a flag left at it is not refused (`verify.cli.kinds.refuse_others`);
    call it again after adding flags."""
    parser.set_defaults(selection_defaults={a.dest: a.default for a in parser._actions if a.dest != "help"})


def is_selection(args: argparse.Namespace) -> bool:
    """Whether ``--variant`` names a Report Noisy Max preset."""
    return is_selection_preset(getattr(args, "variant", None))


def _model(args: argparse.Namespace):
    kinds.refuse_worst_case_flags(args, kinds.RNM)
    kinds.refuse_others(args, kinds.RNM, "worst-case")
    return selection_preset(args.variant, value_or(args, "epsilon", DEFAULT_EPSILON),
                            value_or(args, "sensitivity", DEFAULT_SENSITIVITY))


def run_worst_case(args: argparse.Namespace) -> int:
    """``worst-case --variant <RNM preset>``: the verdict with its witness, bound and loss by k."""
    mech = _model(args)
    if args.max_queries > MAX_SCORES:
        raise InputError(f"--max-queries {args.max_queries}: the Report Noisy Max search takes at most {MAX_SCORES} scores")
    from verify.selection.verdict import WITNESS_DIGITS, selection_verdict  # lazy: start-up time (scipy.optimize)

    res = selection_verdict(mech, args.max_queries)
    outcome = None if res.witness is None else res.witness.outcome.describe()
    return kinds.report_worst_case(args, mech, res, res.to_json()["loss_over_epsilon"], outcome, WITNESS_DIGITS, "k",
                                   res.notes)
