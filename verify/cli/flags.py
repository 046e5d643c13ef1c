"""The one parsing layer of the command line: every flag value goes through here.

Each flag's ``type=`` is a `Flag` built from a `verify.validate` function, so
the CLI and the library refuse a value for the same reason.  A refused value
is one line naming the flag, the value and the rule, exit status 2:

    svt-verify prob: error: --epsilon: '1e999' is outside the supported magnitudes: 0 or 1e-50 <= |x| <= 1e50

`Store` is the default action of every svt-verify parser (`verify.cli.main.OneLineParser`
registers it): a flag declared without a ``type`` gets `TEXT` (non-empty,
bounded, no control characters), a ``type`` that is not a `Flag` is a
programming error caught when the parser is built, and ``--flag=--`` is
refused.  A new flag therefore gets the same guarantees without new code; a
numeric flag picks its kind here.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from verify import validate
from verify.errors import InputError


class Flag:
    """How one kind of flag value is parsed: ``parse(text, name)`` from `verify.validate`,
    raising `InputError` whose message starts with ``name`` (the flag)."""

    def __init__(self, parse: Callable[[str, str], Any], kind: str) -> None:
        self.parse = parse
        self.kind = kind

    def __repr__(self) -> str:
        return f"Flag({self.kind})"


#: Numbers on the command line: 0 or 1e-50 <= |x| <= 1e50 (`verify.validate.MAX_MAGNITUDE_DIGITS`).
DIGITS = validate.MAX_MAGNITUDE_DIGITS

TEXT = Flag(validate.text_value, "text")
NUMBER = Flag(lambda text, name: validate.parse_number(text, name, DIGITS), "number")
POSITIVE = Flag(lambda text, name: validate.positive(text, name, DIGITS), "positive number")
NON_NEGATIVE = Flag(lambda text, name: validate.non_negative(text, name, DIGITS), "non-negative number")


def number_range(lo: Fraction, hi: Fraction) -> Flag:
    """A number in [lo, hi]."""
    return Flag(lambda text, name: validate.number_in(text, name, lo=lo, hi=hi, digits=DIGITS), "number in a range")


def integer(lo: int, hi: int) -> Flag:
    """An integer in [lo, hi], ASCII digits."""
    return Flag(lambda text, name: validate.integer_in(text, name, lo, hi), f"integer {lo}..{hi}")


def vector(max_len: int = validate.MAX_LIST) -> Flag:
    """``Q1,Q2,...``: numbers separated by commas."""
    return Flag(lambda text, name: validate.parse_list(text, name, max_len, DIGITS), "list of numbers")


def grid(max_len: int = validate.MAX_LIST, positive: bool = False) -> Flag:
    """``a,b,c`` or ``LO:HI:STEP``; with ``positive`` every value must be > 0."""

    def parse(text: str, name: str) -> tuple[Fraction, ...]:
        values = validate.parse_grid(text, name, max_len, DIGITS)
        if positive:
            for pos, v in enumerate(values, start=1):
                validate.positive(v, f"value {pos}")
        return values

    return Flag(parse, "grid of numbers")


def pair(sep: str = ",") -> Flag:
    """``LO<sep>HI`` with LO < HI."""
    return Flag(lambda text, name: validate.parse_pair(text, name, sep, DIGITS), f"LO{sep}HI")


def output_file(suffix: str | None = None) -> Flag:
    """A file to write (its folder must exist)."""
    return Flag(lambda text, name: validate.output_path(text, name, suffix), "output file")


def _scheduler(text: str, name: str) -> str:
    validate.scheduler_address(text, name)
    return text.strip()


SCHEDULER = Flag(_scheduler, "scheduler address")


class Store(argparse.Action):
    """argparse's ``store``, converting the value with a `Flag` (`TEXT` when none is given).

    The conversion happens here rather than in argparse's ``type=`` so that a
    refused value is reported as ``--flag: rule`` (the flag, then the rule, one
    line) and ``--flag=--`` is refused (argparse strips the ``--`` and stores an
    empty list without calling any type).  String defaults are converted once,
    when the parser is built.
    """

    def __init__(self, option_strings: list[str], dest: str, nargs: Any = None, type: Any = None, default: Any = None,
                 **kwargs: Any) -> None:
        flag = TEXT if type is None else type
        if not isinstance(flag, Flag):
            raise TypeError(f"{option_strings or dest}: type must be a verify.cli.flags.Flag, not {flag!r}")
        self.flag = flag
        self.label = option_strings[-1] if option_strings else (kwargs.get("metavar") or dest)
        if isinstance(default, str) and default != argparse.SUPPRESS:
            default = flag.parse(default, self.label)
        super().__init__(option_strings, dest, nargs=nargs, default=default, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any,
                 option_string: str | None = None) -> None:
        label = option_string or self.label
        if self.nargs is None and isinstance(values, list):
            parser.error(f"{label}: '--' is not a value (write the value after '=')")
        for v in values if isinstance(values, list) else [values]:
            if isinstance(v, str) and not v.strip():
                parser.error(f"{label}: the value is empty (a flag given with '=' needs a value; leave the flag out for its default)")
        try:
            if isinstance(values, list):
                value: Any = [self.flag.parse(v, label) for v in values]
            else:
                value = self.flag.parse(values, label)
        except InputError as exc:
            parser.error(str(exc))
        setattr(namespace, self.dest, value)


# --- values shared by several commands -------------------------------------------------------

#: ``--cutoff unlimited`` parses to this marker (``None`` would look like "not given").
UNLIMITED = "unlimited"
#: Largest cutoff accepted on the command line.
MAX_CUTOFF = 1000
#: Longest outcome string.
MAX_OUTCOME_LETTERS = 1000


def _cutoff(text: str, name: str) -> int | str:
    if validate.text_value(text, name).strip().lower() == UNLIMITED:
        return UNLIMITED
    return validate.integer_in(text, name, 1, MAX_CUTOFF)


#: ``C`` (1..`MAX_CUTOFF`) or ``unlimited`` (returned as `UNLIMITED`).
CUTOFF = Flag(_cutoff, "cutoff")

#: How outputs are written, in every notation the tool prints (help text of ``--output``/``--outcomes``).
OUTPUT_NOTATION = ("A = above: q_i + X_i >= t + Z (the seed's ⊥, the run halts at the c-th A); B = below (the seed's ⊤). "
                   "An output is written as letters (BA, BBB), as s_i or i (= B^{i-1}A), or none / ⊤^k (= B^k)")
_NONE_SPELLINGS = ("none", "⊤^k", "t^k", "top^k")


def _output(text: str, name: str) -> int | str:
    """``i``, ``s_i`` -> i (int); ``none``, ``⊤^k`` -> ``"none"``; ``all``; a string of A and B letters."""
    s = validate.text_value(text, name).strip()
    low = s.lower()
    if low in ("all", *_NONE_SPELLINGS):
        return "none" if low != "all" else "all"
    digits = s[2:] if low.startswith("s_") else s
    if digits.isascii() and digits.isdigit():
        if len(digits.lstrip("0")) > validate.MAX_INT_DIGITS:
            raise InputError(f"{name}: {validate.shown(s)} is not an output index (too many digits)")
        return int(digits)  # checked against 1..k where k is known
    letters = s.upper()
    if letters and len(letters) <= MAX_OUTCOME_LETTERS and not set(letters) - {"A", "B"}:
        return letters
    raise InputError(f"{name}: {validate.shown(s)} is not an output: letters A (above) and B (below) such as BA, "
                     f"s_i or i (ASCII digits), none or ⊤^k, or all where allowed (at most {MAX_OUTCOME_LETTERS} letters)")


#: An output in any notation the tool prints (`OUTPUT_NOTATION`).
OUTPUT = Flag(_output, "output")


def one_or_more(choices: tuple[str, ...]) -> Flag:
    """One word of ``choices``, or several separated by commas; returns a frozenset."""

    def parse(text: str, name: str) -> frozenset[str]:
        words = [w.strip().lower() for w in validate.text_value(text, name).split(",")]
        bad = [w for w in words if w not in choices]
        if bad or not words:
            raise InputError(f"{name}: {validate.shown(bad[0] if bad else text)} is not one of {', '.join(choices)} "
                             "(several: separated by commas)")
        return frozenset(words)

    return Flag(parse, "one or more of " + ",".join(choices))
