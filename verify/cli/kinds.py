"""What the commands share for the mechanisms that are not Sparse Vector variants: Report Noisy Max
(`verify.cli.selection`, `verify.cli.selection_commands`) and Adaptive SVT (`verify.cli.adaptive`,
`verify.cli.adaptive_commands`).

* **One refusal table** (`APPLIED`): for each kind and command, the flags (argparse dest names) the command
  applies; any other flag given with a value other than its default is refused in one line
  (`refuse_others`, naming the flag, the kind and, where the table has one, why: `WHY`).  A flag is
  applied or refused, never ignored.  ``worst-case`` first refuses the Sparse Vector flags a kind has
  not (`WORST_CASE_REFUSED`, with its own message).
* **One worst-case printer** (`print_worst_case`): the verdict, its method, the confirmed loss and its
  witness, the proven bound, the unbounded evidence, the float64 search's loss by size and the notes,
  in the same lines for both kinds (`report_worst_case` adds ``--json`` and the exit status).
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from verify.cli.common import emit_json, exit_status, given
from verify.errors import InputError
from verify.exact import check_neighbours, fmt

RNM = "Report Noisy Max"
ADAPTIVE = "Adaptive SVT"

#: Namespace entries that are not flags.
NOT_FLAGS = frozenset({"func", "command", "variant", "selection_defaults", "help"})

#: How a refusal names a preset of each kind.
NOUN = {RNM: "a Report Noisy Max", ADAPTIVE: "an Adaptive SVT preset"}

#: (kind, command) -> the flags the command applies to a preset of that kind (argparse dest names).
APPLIED: dict[tuple[str, str], frozenset[str]] = {
    (RNM, "worst-case"): frozenset({"epsilon", "sensitivity", "max_queries", "json", "fail_on"}),
    (RNM, "prob"): frozenset({"epsilon", "sensitivity", "queries", "method", "digits", "json", "output", "outcomes",
                              "released"}),
    (RNM, "ratio"): frozenset({"epsilon", "sensitivity", "queries", "neighbour_queries", "digits", "json", "fail_on",
                               "output", "outcomes", "released"}),
    (RNM, "delta"): frozenset({"epsilon", "sensitivity", "epsilon_prime", "delta", "queries", "neighbour_queries",
                               "max_queries", "digits", "json", "progress"}),
    (RNM, "audit"): frozenset({"epsilon", "sensitivity", "implementation", "samples", "target_tv", "false_alarm",
                               "random_pairs", "max_runs", "queries_per_pair", "no_worst_pair", "seed", "workers",
                               "scheduler", "json"}),
    # family --rows naming Report Noisy Max presets (--no-discrete: no discrete section is shown with --rows)
    (RNM, "family"): frozenset({"epsilon", "sensitivity", "max_queries", "monotone", "rows", "no_discrete", "json",
                                "fail_on", "progress"}),
    (ADAPTIVE, "prob"): frozenset({"epsilon", "sensitivity", "threshold", "cutoff", "queries", "method", "digits", "json",
                                   "output", "outcomes"}),
    (ADAPTIVE, "ratio"): frozenset({"epsilon", "sensitivity", "threshold", "cutoff", "queries", "neighbour_queries",
                                    "digits", "json", "fail_on", "output", "outcomes"}),
}

#: kind -> (the reason shown for a refused flag, or None; the reasons of single flags).
WHY: dict[str, tuple[str | None, dict[str, str]]] = {
    RNM: (None, {}),
    ADAPTIVE: ("the preset fixes its noises, scales and release",
               {"method": "Adaptive SVT has no sympy path (use mpmath or fast)",
                "released": "an Adaptive SVT outcome carries its values in its answers, e.g. middle(1/2), top(20)",
                "neighbour_queries": "prob evaluates one query vector"}),
}

#: kind -> (the Sparse Vector flags ``worst-case`` refuses for it, and what the refusal says after the kind).
WORST_CASE_REFUSED: dict[str, tuple[tuple[str, ...], str]] = {
    RNM: (("threshold", "noise", "threshold_noise", "query_noise", "threshold_scale", "query_scale",
           "threshold_absolute_scale", "query_absolute_scale", "cutoff", "threshold_policy", "compare", "release",
           "release_noise", "release_scale", "release_absolute_scale", "plot"),
          "which has no {name} (its flags: --epsilon, --sensitivity, --max-queries)"),
    ADAPTIVE: (("noise", "threshold_noise", "query_noise", "threshold_scale", "query_scale", "threshold_absolute_scale",
                "query_absolute_scale", "threshold_policy", "compare", "release", "release_noise", "release_scale",
                "release_absolute_scale", "plot"),
               "which fixes its noises and release (its flags: --epsilon, --sensitivity, --threshold, --cutoff K, "
               "--max-queries)"),
}


def why(kind: str, dest: str) -> str | None:
    """The table's reason for refusing ``dest`` for ``kind`` (None: no reason beyond the flag list)."""
    default, single = WHY[kind]
    return single.get(dest, default)


def is_default(value: Any, default: Any) -> bool:
    """Whether a flag's value is its default (so not given): None, False, equal, or the same number."""
    if value is None or value is False or value == default:
        return True
    if default is None:
        return False
    try:
        return str(value) == str(default) or Fraction(str(value)) == Fraction(str(default))
    except (ValueError, ZeroDivisionError):
        return False


def first_unapplied(args: argparse.Namespace, applied: frozenset[str]) -> str | None:
    """The first flag (as ``--name``) given a value other than its default that is not in ``applied``."""
    defaults = getattr(args, "selection_defaults", {}) or {}
    for dest, value in vars(args).items():
        if dest not in NOT_FLAGS and dest not in applied and not is_default(value, defaults.get(dest)):
            return "--" + dest.replace("_", "-")
    return None


def refuse_others(args: argparse.Namespace, kind: str, command: str) -> None:
    """Refuse, in one line, the first flag given that ``command`` does not apply to a preset of ``kind``."""
    applied = APPLIED[(kind, command)]
    flag = first_unapplied(args, applied)
    if flag is None:
        return
    listed = ", ".join("--" + d.replace("_", "-") for d in sorted(applied))
    reason = why(kind, flag[2:].replace("-", "_"))
    raise InputError(f"{flag}: {args.variant} is {NOUN[kind]}, for which {command} has no use of {flag} "
                     f"({'' if reason is None else reason + '; '}it applies: {listed})")


def refuse_worst_case_flags(args: argparse.Namespace, kind: str) -> None:
    """``worst-case``: refuse the first Sparse Vector flag given that a preset of ``kind`` has not."""
    dests, says = WORST_CASE_REFUSED[kind]
    refused = given(args, *dests)
    if refused:
        raise InputError(f"{refused[0]}: {args.variant} is {NOUN[kind]}, {says.format(name=refused[0][2:])}")


def extend_variant_choices(parser: argparse.ArgumentParser, names: Sequence[str], what: str) -> None:
    """Add a kind's presets ``names`` to ``--variant``'s choices, and ``what`` to its help."""
    for action in parser._actions:
        if action.dest == "variant" and action.choices is not None:
            action.choices = [*action.choices, *names]
            action.help = (action.help or "") + f"; or {what}"


def refuse_delta_flag_combinations(args: argparse.Namespace) -> None:
    """``delta``'s flags that go together, for every kind: exactly one of ``--epsilon-prime`` and ``--delta``;
    ``--queries`` with ``--neighbour-queries`` or neither; ``--max-queries`` only for a search."""
    if (args.epsilon_prime is None) == (args.delta is None):
        raise InputError("--epsilon-prime and --delta: give exactly one (δ at ε', or the smallest ε' with δ(ε') <= D)")
    if (args.queries is None) != (args.neighbour_queries is None):
        raise InputError("--queries and --neighbour-queries: give both (an exact pair) or neither (a search)")
    if args.queries is not None and args.max_queries is not None:
        raise InputError("--max-queries and --queries: --max-queries bounds the search, which a given pair replaces (drop one)")


def neighbour_queries(args: argparse.Namespace, mech: Any, queries: Sequence[Fraction]) -> tuple[Fraction, ...]:
    """``--neighbour-queries`` as the mechanism's exact queries, refused in one line unless it has as many
    entries as ``queries`` and each within the sensitivity Δ of its own."""
    qn = mech.check_queries(args.neighbour_queries, "--neighbour-queries")
    check_neighbours(queries, qn, mech.sensitivity, "--neighbour-queries")
    return qn


def print_worst_case(mech: Any, res: Any, loss_over_epsilon: str | None, outcome: str | None, digits: int,
                     size: str, notes: Sequence[str]) -> None:
    """The one text rendering of a worst-case verdict of either kind: ``outcome`` is the witness's outcome as
    printed (None without a witness), ``digits`` those of its log ratio, ``size`` what the float64 search's
    loss is indexed by (k scores, number of queries)."""
    w = res.witness
    print(mech.describe())
    print(f"source: {mech.source}")
    print(f"verdict: {res.verdict}  ({res.method})")
    print(f"loss found: {res.loss_text()} nats ({loss_over_epsilon}·ε)")
    if w is not None:
        print(f"  witness: q(D) = ({', '.join(fmt(x) for x in w.queries)}), q(D') = ({', '.join(fmt(x) for x in w.neighbour)}), "
              f"{outcome}, log ratio at {digits} digits")
    b = res.bound
    print(f"proven upper bound: {'none (' + b.reason + ')' if b.value is None else fmt(b.value) + ' nats (' + b.formula + '; ' + b.reason + ')'}")
    print(f"unbounded: {'yes: ' + res.unbounded_evidence if res.unbounded else 'no evidence'}")
    print(f"loss by {size} (float64 search): " + "; ".join(f"{k}: {v:.6g}" for k, v in res.loss_by_k.items()))
    for note in notes:
        print(f"note: {note}")


def report_worst_case(args: argparse.Namespace, mech: Any, res: Any, loss_over_epsilon: str | None,
                      outcome: str | None, digits: int, size: str, notes: Sequence[str]) -> int:
    """``--json`` (the result's ``to_json()``) or `print_worst_case`; the exit status of the verdict (``--fail-on``)."""
    code = exit_status(args, [res.verdict])
    if args.json:
        emit_json(res.to_json())
    else:
        print_worst_case(mech, res, loss_over_epsilon, outcome, digits, size, notes)
    return code
