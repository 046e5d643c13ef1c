"""Regenerate the example outputs of README.md and the docs from the commands themselves.

A code block preceded by ``<!-- example -->`` (or ``<!-- example: abridged -->``)
and starting with ``$ COMMAND`` is replaced by ``$ COMMAND`` and the command's
real output (abridged: the claim list of ``svt-verify report`` keeps its first
rows and the theorems).  Run from the project root after a change that moves a
number:

    python docs/refresh_examples.py README.md docs/guide.md
"""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

BLOCK = re.compile(r"(<!-- example(?P<mode>: abridged)? -->\n```\n)\$ (?P<cmd>[^\n]+)\n.*?(```)", re.S)
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


def run(cmd: str) -> str:
    proc = subprocess.run(shlex.split(cmd), capture_output=True, text=True, check=True)
    return proc.stdout.rstrip("\n")


def refresh(text: str) -> str:
    def one(m: re.Match) -> str:
        out = run(m.group("cmd"))
        if m.group("mode"):
            out = abridge(out)
        return f"{m.group(1)}$ {m.group('cmd')}\n{out}\n```"

    return BLOCK.sub(one, text)


if __name__ == "__main__":
    for name in sys.argv[1:] or ["README.md"]:
        path = Path(name)
        path.write_text(refresh(path.read_text(encoding="utf-8")), encoding="utf-8")
