"""Generate docs/cli.md, the command-line reference, from the argparse parsers themselves.

    python docs/generate_cli.py --write docs/cli.md     # regenerate (after any change of a flag or command)
    python docs/generate_cli.py                         # print it

Every command that ``svt-verify --help`` lists gets a section: its description, its usage
line and a table of its flags (choices, defaults and help text as the parser has them),
grouped as ``--help`` groups them.  Commands are discovered from the installed entry points,
so a new command appears here once the package is reinstalled (``pip install -e .``).
tests/test_docs.py checks that the committed file equals this output.
"""

from __future__ import annotations

import argparse
import inspect
import sys
from pathlib import Path

#: The repository root: its `verify` and `proofs` are documented, not those of another installed checkout.
ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path[:1]:
    sys.path.insert(0, str(ROOT))

#: Width of the usage lines (fixed, so that the output does not depend on the terminal).
WIDTH = 100

HEADER = """# Command-line reference

Generated from the argparse parsers by `python docs/generate_cli.py --write docs/cli.md`: do not edit
by hand (a test checks that this file is current). `svt-verify --help` lists the commands and
`svt-verify COMMAND --help` shows the same flags on the terminal. The concepts behind the flags
(mechanism, variants, outputs, neighbours, verdicts) are explained in the [guide](guide.md)
and in [verdicts.md](verdicts.md); size limits in [limits.md](limits.md).
"""


def _subparsers(parser: argparse.ArgumentParser) -> argparse._SubParsersAction:
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _flag_name(action: argparse.Action, formatter: argparse.HelpFormatter) -> str:
    if not action.option_strings:
        return formatter._format_args(action, action.metavar or action.dest)
    if action.nargs == 0:
        return ", ".join(action.option_strings)
    args = formatter._format_args(action, formatter._get_default_metavar_for_optional(action))
    return ", ".join(f"{o} {args}" for o in action.option_strings)


def _help(action: argparse.Action, formatter: argparse.HelpFormatter) -> str:
    text = formatter._expand_help(action) if action.help else ""
    if action.choices is not None and action.metavar is not None:  # choices hidden behind a metavar
        listed = ", ".join(f"`{c}`" for c in action.choices)
        if listed not in text:
            text = f"{text} (one of {listed})".strip()
    return text


def _usage(parser: argparse.ArgumentParser) -> str:
    formatter = argparse.HelpFormatter(parser.prog, width=WIDTH)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups)
    return formatter.format_help().strip()


def command_section(name: str, parser: argparse.ArgumentParser, summary: str) -> list[str]:
    """The Markdown section of one command."""
    formatter = parser._get_formatter()
    lines = [f"## svt-verify {name}", ""]
    description = parser.description or summary
    if description:
        lines += [_cell(description), ""]
    lines += ["```text", _usage(parser), "```", ""]
    for group in parser._action_groups:
        actions = [a for a in group._group_actions if a.help is not argparse.SUPPRESS and not isinstance(a, argparse._HelpAction)]
        if not actions:
            continue
        title = group.title or ""
        lines += [f"**{title}**" if title not in ("options", "optional arguments") else "**options**", ""]
        lines += ["| flag | meaning |", "| --- | --- |"]
        for a in actions:
            lines.append(f"| `{_cell(_flag_name(a, formatter))}` | {_cell(_help(a, formatter))} |")
        lines.append("")
    return lines


def cli_markdown() -> str:
    """docs/cli.md: the header, the command list, the exit status, one section per command."""
    from verify.cli import main as main_module

    parser = main_module.build_parser()
    sub = _subparsers(parser)
    summaries = {a.dest: a.help or "" for a in sub._choices_actions}
    lines = [HEADER, "## Commands", "", "| command | what it does |", "| --- | --- |"]
    for name in sub.choices:
        lines.append(f"| [`{name}`](#svt-verify-{name}) | {_cell(summaries.get(name, ''))} |")
    lines += ["", "A bare `svt-verify` runs `report`.", ""]
    top = [a for a in parser._actions if a.option_strings and not isinstance(a, argparse._HelpAction)]
    if top:
        formatter = parser._get_formatter()
        lines += ["Options of `svt-verify` itself:", "", "| flag | meaning |", "| --- | --- |"]
        lines += [f"| `{_cell(_flag_name(a, formatter))}` | {_cell(_help(a, formatter))} |" for a in top]
        lines.append("")
    doc = inspect.getdoc(main_module.main)
    if doc:
        lines += ["## Exit status", "", _cell(doc), ""]
    for name, sp in sub.choices.items():
        lines += command_section(name, sp, summaries.get(name, ""))
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python docs/generate_cli.py", description=__doc__.splitlines()[0])
    p.add_argument("--write", metavar="FILE", help="write the reference to FILE (docs/cli.md)")
    args = p.parse_args(argv)
    text = cli_markdown()
    if args.write:
        Path(args.write).write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
