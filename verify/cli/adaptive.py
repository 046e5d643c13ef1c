"""Adaptive SVT on the command line: ``--variant`` names one of `verify.adaptive.presets`.

``worst-case`` offers the Adaptive SVT presets beside its own (`extend_variant_choices`) and hands a run
whose ``--variant`` is one of them to this module (`is_adaptive`), which prints the result of
`verify.adaptive.verdict`.  ``--epsilon``, ``--sensitivity``, ``--threshold``, ``--cutoff`` (read as
CheckDP's ``NN``: the number of above answers the budget is sized for, an integer), ``--max-queries``,
``--json`` and ``--fail-on`` apply; the other Sparse Vector flags (noise families and scales, threshold
policy, release, ``--plot``) are refused in one line: the preset fixes them.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass

from verify.adaptive.model import Answer, Branch
from verify.adaptive.presets import ADAPTIVE_NAMES, adaptive_preset, is_adaptive_preset
from verify.cli import flags, kinds
from verify.cli.common import DEFAULT_EPSILON, DEFAULT_SENSITIVITY, DEFAULT_THRESHOLD, value_or
from verify.errors import InputError
from verify.validate import parse_number

#: The largest number of queries the search takes (each step adds one below answer).
MAX_QUERIES = 6


def extend_variant_choices(parser: argparse.ArgumentParser) -> None:
    """Add the Adaptive SVT presets to ``--variant``'s choices (and its help)."""
    kinds.extend_variant_choices(parser, ADAPTIVE_NAMES, "an Adaptive SVT preset (docs/adaptive.md)")


#: How an Adaptive SVT outcome is spelt on the command line (``--outcomes``/``--output``), as `Answer.describe` prints it.
OUTCOME_SPELLING = ("one answer per query, comma-separated: below (or ⊥), middle(G) (the gap G >= 0), top(G) "
                    "(the gap G >= σ; the bad variant: top(V), the noisy query), e.g. 'below,middle(1/2),top(20)'")


@dataclass(frozen=True)
class AdaptiveOutcome:
    """An outcome of Adaptive SVT as given on the command line: its answers, in order."""

    answers: tuple[Answer, ...]

    def describe(self) -> str:
        return ",".join(a.describe() for a in self.answers)


def parse_answers(text: str, name: str) -> AdaptiveOutcome:
    """``below,middle(G),top(G)`` (`OUTCOME_SPELLING`) -> the answers; `InputError` naming the item otherwise."""
    items = [s.strip() for s in text.split(",")]
    out = []
    for item in items:
        low = item.lower()
        if low in ("below", "⊥"):
            out.append(Answer(Branch.BELOW))
            continue
        head, paren, rest = low.partition("(")
        if head.strip() not in ("middle", "top") or not paren or not rest.endswith(")"):
            raise InputError(f"{name}: {item[:40]!r} is not an Adaptive SVT answer ({OUTCOME_SPELLING})")
        out.append(Answer(Branch(head.strip()), parse_number(rest[:-1].strip(), f"{name} ({head.strip()} value)",
                                                            flags.DIGITS)))
    return AdaptiveOutcome(tuple(out))


def _looks_adaptive(text: str) -> bool:
    low = text.lower()
    return any(w in low for w in ("below", "⊥", "middle", "top"))


def extend_outcome_flags(parser: argparse.ArgumentParser) -> None:
    """Let ``--output``/``--outcomes`` also take an Adaptive SVT outcome (`OUTCOME_SPELLING`)."""
    for action in parser._actions:
        if action.dest in ("output", "outcomes") and isinstance(getattr(action, "flag", None), flags.Flag):
            base = action.flag

            def parse(text: str, name: str, base: flags.Flag = base) -> object:
                if isinstance(text, str) and _looks_adaptive(text):
                    return parse_answers(text, name)
                return base.parse(text, name)

            action.flag = flags.Flag(parse, "output")
            action.help = (action.help or "") + "; for an Adaptive SVT preset: " + OUTCOME_SPELLING


def refuse_adaptive_outcome(args: argparse.Namespace) -> None:
    """An Adaptive SVT outcome given with a variant that is not Adaptive SVT: refused in one line."""
    for dest in ("output", "outcomes"):
        if isinstance(getattr(args, dest, None), AdaptiveOutcome):
            raise InputError(f"--{dest}: {getattr(args, dest).describe()!r} is an Adaptive SVT outcome; "
                             "give --variant an Adaptive SVT preset (" + ", ".join(ADAPTIVE_NAMES) + ")")


def is_adaptive(args: argparse.Namespace) -> bool:
    return is_adaptive_preset(getattr(args, "variant", None))


def model(args: argparse.Namespace):
    """The preset at --epsilon, --sensitivity, --threshold and --cutoff (after the refusals of the fixed flags)."""
    return _model(args)


def _model(args: argparse.Namespace):
    kinds.refuse_worst_case_flags(args, kinds.ADAPTIVE)
    if getattr(args, "progress", None) == "always":
        raise InputError(f"--progress always: {args.variant}'s search shows no progress bar; use auto or never")
    k = getattr(args, "cutoff", None)
    if k == flags.UNLIMITED:
        raise InputError(f"--cutoff unlimited: {args.variant}'s budget is sized for k above answers; give an integer k")
    return adaptive_preset(args.variant, value_or(args, "epsilon", DEFAULT_EPSILON),
                           value_or(args, "sensitivity", DEFAULT_SENSITIVITY), value_or(args, "threshold", DEFAULT_THRESHOLD),
                           1 if k is None else k)


def run_worst_case(args: argparse.Namespace) -> int:
    """``worst-case --variant <Adaptive SVT preset>``: the verdict with its witness, bound and loss by n."""
    mech = _model(args)
    if args.max_queries > MAX_QUERIES:
        raise InputError(f"--max-queries {args.max_queries}: the Adaptive SVT search takes at most {MAX_QUERIES} queries")
    from verify.adaptive.verdict import adaptive_verdict  # lazy: start-up time

    res = adaptive_verdict(mech, args.max_queries)
    w = res.witness
    outcome = None if w is None else f"outcome ({', '.join(a.describe() for a in w.answers)})"
    notes = [f"the source claims: {mech.claimed}"] if mech.claimed else []
    return kinds.report_worst_case(args, mech, res, res.loss_over_epsilon(), outcome, res.digits, "number of queries",
                                   notes)
