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

from verify.cli.common import DEFAULT_EPSILON, DEFAULT_SENSITIVITY, emit_json, exit_status, given, value_or
from verify.cli.selection_commands import refuse_others
from verify.errors import InputError
from verify.exact import fmt
from verify.selection.presets import SELECTION_NAMES, is_selection_preset, selection_preset

#: Flags of the Sparse Vector model that a Report Noisy Max does not have.
SVT_ONLY = ("threshold", "noise", "threshold_noise", "query_noise", "threshold_scale", "query_scale",
            "threshold_absolute_scale", "query_absolute_scale", "cutoff", "threshold_policy", "compare", "release",
            "release_noise", "release_scale", "release_absolute_scale", "plot")
#: The largest number of scores the worst-case search takes (the gap search stops at 3).
MAX_SCORES = 10


def extend_variant_choices(parser: argparse.ArgumentParser) -> None:
    """Add the selection presets to ``--variant``'s choices (and its help)."""
    for action in parser._actions:
        if action.dest == "variant" and action.choices is not None:
            action.choices = [*action.choices, *SELECTION_NAMES]
            action.help = (action.help or "") + "; or a Report Noisy Max preset (docs/selection.md)"
    record_defaults(parser)


def record_defaults(parser: argparse.ArgumentParser) -> None:
    """Every flag's default, so that a flag left at it is not refused (`verify.cli.selection_commands.refuse_others`);
    call it again after adding flags."""
    parser.set_defaults(selection_defaults={a.dest: a.default for a in parser._actions if a.dest != "help"})


def is_selection(args: argparse.Namespace) -> bool:
    """Whether ``--variant`` names a Report Noisy Max preset."""
    return is_selection_preset(getattr(args, "variant", None))


def _model(args: argparse.Namespace):
    refused = given(args, *SVT_ONLY)
    if refused:
        raise InputError(f"{refused[0]}: {args.variant} is a Report Noisy Max, which has no {refused[0][2:]} "
                         "(its flags: --epsilon, --sensitivity, --max-queries)")
    refuse_others(args, "worst-case")
    return selection_preset(args.variant, value_or(args, "epsilon", DEFAULT_EPSILON),
                            value_or(args, "sensitivity", DEFAULT_SENSITIVITY))


def run_worst_case(args: argparse.Namespace) -> int:
    """``worst-case --variant <RNM preset>``: the verdict with its witness, bound and loss by k."""
    mech = _model(args)
    if args.max_queries > MAX_SCORES:
        raise InputError(f"--max-queries {args.max_queries}: the Report Noisy Max search takes at most {MAX_SCORES} scores")
    from verify.selection.verdict import selection_verdict  # lazy: start-up time (scipy.optimize)

    res = selection_verdict(mech, args.max_queries)
    code = exit_status(args, [res.verdict])
    if args.json:
        emit_json(res.to_json())
        return code
    w = res.witness
    print(mech.describe())
    print(f"source: {mech.source}")
    print(f"verdict: {res.verdict}  ({res.method})")
    print(f"loss found: {res.loss_text()} nats ({res.to_json()['loss_over_epsilon']}·ε)")
    if w is not None:
        print(f"  witness: q(D) = ({', '.join(fmt(x) for x in w.queries)}), q(D') = ({', '.join(fmt(x) for x in w.neighbour)}), "
              f"{w.outcome.describe()}, log ratio at 50 digits")
    b = res.bound
    print(f"proven upper bound: {'none (' + b.reason + ')' if b.value is None else fmt(b.value) + ' nats (' + b.formula + '; ' + b.reason + ')'}")
    print(f"unbounded: {'yes: ' + res.unbounded_evidence if res.unbounded else 'no evidence'}")
    print("loss by k (float64 search): " + "; ".join(f"{k}: {v:.6g}" for k, v in res.loss_by_k.items()))
    for note in res.notes:
        print(f"note: {note}")
    return code
