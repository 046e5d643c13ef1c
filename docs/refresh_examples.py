"""Regenerate the example outputs of README.md and the docs from the commands themselves.

A code block preceded by ``<!-- example -->`` (or ``<!-- example: abridged -->``, or
``<!-- example: first N lines -->``, or ``<!-- example: lines 1-5,16-19 -->``) and starting with ``$ COMMAND`` is replaced by
``$ COMMAND`` and the command's real output (abridged: the claim list of
``svt-verify report`` keeps its first rows and the theorems; first N lines: the
output's first N lines and a line saying how many more there are).  Run from the project root after a change that moves a
number:

    python docs/refresh_examples.py README.md docs/guide.md
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

BLOCK = re.compile(r"(<!-- example(?P<mode>: abridged|: first (?P<n>\d+) lines|: lines (?P<ranges>[\d,-]+))? -->\n```\n)"
                   r"\$ (?P<cmd>[^\n]+)\n.*?(```)", re.S)
VERDICTS = ("proved", "certified", "consistent", "refuted", "undecided")
KEEP = ("M1.theorem", "M2.theorem", "M2.compare.integrand", "U.theorem.M1", "X.no_halt", "X.tightness.M1", "X.tightness.M2")


def abridge(text: str) -> str:
    out: list[str] = []
    rows = 0
    for line in text.splitlines():
        parts = line.split()
        if line.startswith("  ") and len(parts) >= 2 and parts[1] in VERDICTS:
            rows += 1
            if rows <= 6 or parts[0] in KEEP:
                out.append(line)
            elif out[-1] != "  ...":
                out.append("  ...")
            continue
        out.append(line)
    return "\n".join(out) + "\n(claim list abridged: `svt-verify proofs` prints all of them)"


#: The repository root: commands run with its `verify` and `proofs` first on the path, so that the outputs are
#: those of this tree, not of another installed checkout (an installed ``svt-verify`` script may import either).
ROOT = Path(__file__).resolve().parent.parent
MAIN = "import sys; from verify.cli.main import main; sys.exit(main())"


def first_lines(text: str, n: int) -> str:
    """The first ``n`` lines of ``text`` and, if any were left out, a line saying how many."""
    lines = text.splitlines()
    rest = len(lines) - n
    return "\n".join(lines[:n] + ([f"… ({rest} more lines)"] if rest > 0 else []))


def some_lines(text: str, ranges: str) -> str:
    """The lines of ``text`` in ``ranges`` (``1-5,16-19``, 1-based, inclusive), "…" where lines were left out."""
    lines = text.splitlines()
    keep: list[int] = []
    for part in ranges.split(","):
        lo, _, hi = part.partition("-")
        keep += range(int(lo) - 1, min(int(hi or lo), len(lines)))
    out, last = [], -1
    for i in keep:
        if i != last + 1:
            out.append("…")
        out.append(lines[i])
        last = i
    return "\n".join(out + (["…"] if last < len(lines) - 1 else []))


#: Exit statuses of a command that ran: 0 done, 1 a finding (--fail-on, or an audit that deviates).
RAN = (0, 1)


def run(cmd: str) -> str:
    argv = shlex.split(cmd)
    if argv[0] == "svt-verify":
        argv = [sys.executable, "-c", MAIN, *argv[1:]]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    proc = subprocess.run(argv, capture_output=True, text=True, check=False, cwd=ROOT, env=env)
    if proc.returncode not in RAN:
        raise SystemExit(f"{cmd}: exit {proc.returncode}: {proc.stderr.strip()}")
    return proc.stdout.rstrip("\n")


def refresh(text: str) -> str:
    def one(m: re.Match) -> str:
        out = run(m.group("cmd"))
        if m.group("n"):
            out = first_lines(out, int(m.group("n")))
        elif m.group("ranges"):
            out = some_lines(out, m.group("ranges"))
        elif m.group("mode"):
            out = abridge(out)
        return f"{m.group(1)}$ {m.group('cmd')}\n{out}\n```"

    return BLOCK.sub(one, text)


if __name__ == "__main__":
    for name in sys.argv[1:] or ["README.md"]:
        path = Path(name)
        path.write_text(refresh(path.read_text(encoding="utf-8")), encoding="utf-8")
