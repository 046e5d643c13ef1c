"""Entry point of ``svt-verify``: one-line errors, exit code 2 for bad input."""

from __future__ import annotations

import argparse
import codecs
import functools
import os
import re
import sys
from collections.abc import Sequence
from importlib.metadata import EntryPoint, PackageNotFoundError, entry_points, version

from verify.cli.flags import Store
from verify.cli.unraisable import deliver_ignored_interrupts
from verify.errors import InputError

#: Order in which commands are listed in ``--help``.
ORDER = ["report", "prob", "ratio", "sweep", "worst-case", "certify", "proofs"]


def package_version() -> str:
    """The version of the installed distribution (package metadata), or ``unknown`` when not installed."""
    try:
        return version("svt-verify")
    except PackageNotFoundError:
        return "unknown"


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

    def _print_message(self, message: str, file=None) -> None:  # type: ignore[override]
        """argparse's, without swallowing a failed write: ``--help > /dev/full`` must not exit 0."""
        if message:
            (file or sys.stderr).write(message)

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"{self.prog}: error: {one_line(message)}\n")
        raise SystemExit(2)


@functools.cache
def command_entry_points() -> dict[str, EntryPoint]:
    """The installed commands, name -> entry point of the group ``svt_verify.commands`` (read once per process:
    the scan of every installed distribution's metadata costs about 20 ms)."""
    return {ep.name: ep for ep in entry_points(group="svt_verify.commands")}


def build_parser(commands: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser of ``svt-verify``, with every installed command, or only those named in ``commands``
    (`needed_commands`: a command's module, and what it imports, is loaded only when that command runs)."""
    parser = OneLineParser(
        prog="svt-verify",
        description="Exact numerical verifier for the privacy proofs of AboveThreshold (Sparse Vector Technique).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"svt-verify {package_version()}",
                        help="print the installed version and exit")
    sub = parser.add_subparsers(dest="command", parser_class=OneLineParser, metavar="COMMAND")
    found = command_entry_points()
    names = found if commands is None else [n for n in commands if n in found]
    for name in sorted(names, key=lambda n: (ORDER.index(n) if n in ORDER else len(ORDER), n)):
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


def needed_commands(argv: Sequence[str]) -> list[str] | None:
    """The commands whose parsers a command line needs (for `build_parser`): the command it starts with alone;
    none for ``--version`` first (argparse answers it before reading further); every command otherwise
    (``--help`` lists them all, an unknown name is refused with their list).

    >>> needed_commands(["prob", "--queries", "0"]), needed_commands(["--version"]), needed_commands(["--help"])
    (['prob'], [], None)
    """
    if argv and argv[0] == "--version":
        return []
    if argv and argv[0] in command_entry_points():
        return [argv[0]]
    return None


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


#: Exit status after Ctrl-C (128 + SIGINT).
EXIT_INTERRUPTED = 130

EPILOG = """exit status:
  0    done
  1    the finding named by --fail-on occurred (where a command offers it)
  2    bad input, or an output that cannot be written (one line on standard error)
  130  interrupted (Ctrl-C); report, proofs, family and worst-case first print what they finished, marked partial
  141  standard output closed by its reader (a pipe into head)"""


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the exit status: 0 done, 2 bad input or an output that cannot be
    written (one line on stderr), 130 interrupted (report, proofs, family and worst-case first print what they
    finished, marked partial), 141 stdout closed by its reader (quietly)."""
    deliver_ignored_interrupts()  # a Ctrl-C raised where Python cannot raise it is delivered again, not printed
    stdout_closed = sys.stdout is None
    _usable_streams()
    if stdout_closed:  # ``>&-``: every command writes its result there
        _say("svt-verify: error: cannot write the output (standard output is closed)")
        return 2
    try:
        return _main(argv)
    except BrokenPipeError:
        _silence_stdout()
        return EXIT_BROKEN_PIPE
    except KeyboardInterrupt:
        return _interrupted()
    except OSError as exc:
        if interrupted_inside(exc):
            return _interrupted()
        if not _is_stdout_failure(exc):
            raise
        _silence_stdout()
        _say(f"svt-verify: error: cannot write the output ({exc.strerror or exc})")
        return 2
    except Exception as exc:  # C code (numba loading a kernel) can wrap a Ctrl-C: see interrupted_inside
        if not interrupted_inside(exc):
            raise
        return _interrupted()


def _interrupted() -> int:
    """The end of an interrupted run: one line on stderr, exit status 130."""
    _say("svt-verify: interrupted")
    forget_interrupted_exec()
    return EXIT_INTERRUPTED


def interrupted_inside(exc: BaseException | None) -> bool:
    """Is ``exc`` a KeyboardInterrupt that other code wrapped?  A Ctrl-C that lands while numba loads or compiles
    a kernel (its ``_numba_unpickle`` called from C) surfaces as SystemError("... returned a result with an
    exception set") chained, through ``__cause__``/``__context__``, to the KeyboardInterrupt."""
    seen: set[int] = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, KeyboardInterrupt):
            return True
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return False


def forget_interrupted_exec() -> None:
    """Let the exit status of an interrupted run be 130, not death by SIGINT.

    CPython (``Python/pythonrun.c``, ``run_eval_code_obj``) records a KeyboardInterrupt that ends the
    evaluation of a *string* (``exec(text)``: dataclasses, sympy's ``lambdify`` and others build code that
    way while the claims' modules load) in a process-wide flag, even when a caller catches it later; after
    ``python -m verify`` returns, ``Py_RunMain`` sees the flag and kills the process with SIGINT (status -2
    in Python, where the tool documents 130).  Every such evaluation first clears the flag, so evaluating
    a constant empty statement clears it once the interrupt has been handled.  No user text is evaluated."""
    exec("pass", {})  # noqa: S102 (a constant: see the docstring)


def _say(line: str) -> None:
    """One line on stderr, if there is a stderr to write to (``2>&-`` closes it)."""
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass


def _is_stdout_failure(exc: OSError) -> bool:
    """A write to stdout failed (a full device, an I/O error): errno set, not a file the command opened."""
    return exc.errno is not None and exc.filename is None


def _usable_streams() -> None:
    """Closed streams become /dev/null (Python sets them to None when fd 1 or 2 is closed at start),
    and text that the stream's encoding cannot hold is spelt in ASCII (``ε`` as ``eps``)."""
    for name in ("stdout", "stderr"):
        stream = getattr(sys, name)
        if stream is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))  # noqa: SIM115 (lives as long as the process)
            continue
        encoding = getattr(stream, "encoding", None) or "utf-8"
        try:
            "εδΔ⊤⊥·≤".encode(encoding)
        except (UnicodeEncodeError, LookupError):
            if hasattr(stream, "reconfigure"):
                stream.reconfigure(errors=ASCII_FALLBACK)


#: Name of the codec error handler that spells the tool's non-ASCII symbols in ASCII.
ASCII_FALLBACK = "svt-ascii"
_SPELLING = {"ε": "eps", "δ": "delta", "Δ": "Delta", "λ": "lambda", "ρ": "rho", "σ": "sigma", "κ": "kappa",
             "⊤": "T", "⊥": "F", "·": "*", "×": "x", "≤": "<=", "≥": ">=", "≠": "!=", "≈": "~", "−": "-", "±": "+/-",
             "∞": "inf", "√": "sqrt", "…": "...", "—": "--", "–": "-", "′": "'", "→": "->", "∈": "in", "Σ": "sum",
             "Π": "prod", "ᵏ": "^k", "²": "^2", "¹": "^1", "⁰": "^0", "ⁿ": "^n"}


def _ascii_spelling(exc: UnicodeError) -> tuple[str, int]:
    if not isinstance(exc, UnicodeEncodeError):
        raise exc
    text = exc.object[exc.start : exc.end]
    return "".join(_SPELLING.get(ch, "?") for ch in text), exc.end


codecs.register_error(ASCII_FALLBACK, _ascii_spelling)


def _main(argv: Sequence[str] | None) -> int:
    args_list = join_negative_values(list(sys.argv[1:] if argv is None else argv))
    try:
        if not args_list:
            args_list = ["report"]
        parser = build_parser(needed_commands(args_list))
        args = parser.parse_args(args_list)
    except SystemExit as exc:  # usage errors (one line, already printed), --help and --version
        sys.stdout.flush()  # a full or closed stdout shows here, inside the handlers of main()
        return exc.code if isinstance(exc.code, int) else 2
    if getattr(args, "func", None) is None:
        _say("svt-verify: error: give a command (svt-verify --help lists them)")
        return 2
    try:
        code = int(args.func(args) or 0)
        sys.stdout.flush()  # a closed pipe or a full device shows here, inside the handlers of main()
        return code
    except InputError as exc:
        sys.stdout.flush()
        _say(f"svt-verify {args.command}: error: {one_line(str(exc))}")
        return 2


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
