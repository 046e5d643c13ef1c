"""Entry point of ``svt-verify``: one-line errors, exit code 2 for bad input."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from importlib.metadata import entry_points

from verify.errors import InputError

#: Order in which commands are listed in ``--help``.
ORDER = ["report", "prob", "ratio", "sweep", "worst-case", "certify", "proofs"]


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line on stderr, exit 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"{self.prog}: error: {message}\n")
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="svt-verify",
        description="Exact numerical verifier for the privacy proofs of AboveThreshold (Sparse Vector Technique).",
    )
    sub = parser.add_subparsers(dest="command", parser_class=OneLineParser, metavar="COMMAND")
    found = {ep.name: ep for ep in entry_points(group="svt_verify.commands")}
    for name in sorted(found, key=lambda n: (ORDER.index(n) if n in ORDER else len(ORDER), n)):
        found[name].load()(sub)
    return parser


_NEGATIVE_VALUE = re.compile(r"^-(\d|\.\d)[\d.,/:eE+-]*$")


def join_negative_values(argv: list[str]) -> list[str]:
    """``--queries -1,2`` -> ``--queries=-1,2``: argparse would read ``-1,2`` as an option.

    >>> join_negative_values(["ratio", "--queries", "-1,-1", "--epsilon", "1"])
    ['ratio', '--queries=-1,-1', '--epsilon', '1']
    """
    out: list[str] = []
    i = 0
    while i < len(argv):
        tok = argv[i]
        if tok.startswith("--") and "=" not in tok and i + 1 < len(argv) and _NEGATIVE_VALUE.match(argv[i + 1]):
            out.append(f"{tok}={argv[i + 1]}")
            i += 2
            continue
        out.append(tok)
        i += 1
    return out


def main(argv: Sequence[str] | None = None) -> int:
    args_list = join_negative_values(list(sys.argv[1:] if argv is None else argv))
    parser = build_parser()
    if not args_list:
        args_list = ["report"]
    args = parser.parse_args(args_list)
    if getattr(args, "func", None) is None:
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except InputError as exc:
        sys.stderr.write(f"svt-verify {args.command}: error: {exc}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("svt-verify: interrupted\n")
        return 130


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
