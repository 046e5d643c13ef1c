"""Entry point of ``svt-verify``: one-line errors, exit code 2 for bad input."""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Sequence
from importlib.metadata import entry_points

from verify.cli.flags import Store
from verify.errors import InputError

#: Order in which commands are listed in ``--help``.
ORDER = ["report", "prob", "ratio", "sweep", "worst-case", "certify", "proofs"]


#: Longest error message printed (a hostile value can be 100,000 characters long).
MAX_MESSAGE = 500


def one_line(message: str) -> str:
    """``message`` on one line, at most `MAX_MESSAGE` characters."""
    text = " ".join(str(message).split())
    return text if len(text) <= MAX_MESSAGE else text[: MAX_MESSAGE - 1] + "…"


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line on stderr, exit 2, and whose
    flags all go through `verify.cli.flags` (`Store` is the default action)."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.register("action", None, Store)
        self.register("action", "store", Store)

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"{self.prog}: error: {one_line(message)}\n")
        raise SystemExit(2)


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="svt-verify",
        description="Exact numerical verifier for the privacy proofs of AboveThreshold (Sparse Vector Technique).",
    )
    sub = parser.add_subparsers(dest="command", parser_class=OneLineParser, metavar="COMMAND")
    found = {ep.name: ep for ep in entry_points(group="svt_verify.commands")}
    for name in sorted(found, key=lambda n: (ORDER.index(n) if n in ORDER else len(ORDER), n)):
        ep = found[name]
        try:
            register = ep.load()
        except ModuleNotFoundError as exc:
            # the entry point of another installed checkout whose module this one does not have
            # (an editable install shared between branches): not a command here
            if exc.name and (ep.module == exc.name or ep.module.startswith(exc.name + ".")):
                continue
            raise
        register(sub)
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


#: Exit status after the reader of stdout went away (128 + SIGPIPE, as ``cat`` and ``yes`` report it).
EXIT_BROKEN_PIPE = 141


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the exit status: 0 done, 2 bad input (one line on stderr),
    130 interrupted, 141 stdout closed by its reader (quietly)."""
    try:
        return _main(argv)
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE


def _main(argv: Sequence[str] | None) -> int:
    args_list = join_negative_values(list(sys.argv[1:] if argv is None else argv))
    try:
        parser = build_parser()
        if not args_list:
            args_list = ["report"]
        args = parser.parse_args(args_list)
    except SystemExit as exc:  # usage errors (one line, already printed) and --help
        return exc.code if isinstance(exc.code, int) else 2
    except KeyboardInterrupt:
        sys.stderr.write("svt-verify: interrupted\n")
        return 130
    if getattr(args, "func", None) is None:
        sys.stderr.write("svt-verify: error: give a command (svt-verify --help lists them)\n")
        return 2
    try:
        code = int(args.func(args) or 0)
        sys.stdout.flush()  # a closed pipe shows here, inside the handler of main()
        return code
    except InputError as exc:
        sys.stderr.write(f"svt-verify {args.command}: error: {one_line(str(exc))}\n")
        return 2
    except KeyboardInterrupt:
        sys.stderr.write("svt-verify: interrupted\n")
        return 130


def _silence_stdout() -> None:
    """Point stdout at /dev/null so that the interpreter's final flush does not
    raise a second BrokenPipeError (the recipe of the Python docs, "Note on SIGPIPE")."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, OSError, ValueError):
        return  # not a real file (captured in tests)
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
