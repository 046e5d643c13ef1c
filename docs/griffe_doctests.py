"""A griffe extension for the API reference: doctest examples in docstrings become code blocks.

The docstrings of svt-verify carry runnable examples (``>>>`` lines and their output, checked by
``pytest --doctest-modules``) in plain text.  Rendered as Markdown, an output such as
``['0.5', '0.5']`` under ``[... for p in ...]`` would read as a link; fenced as ``pycon`` it
reads as the session it is.  mkdocs.yml loads this file (``extensions:``).
"""

from __future__ import annotations

from typing import Any

import griffe


def fence_doctests(text: str) -> str:
    """Wrap every run of lines starting at a ``>>>`` line (up to the next blank line) in a ``pycon`` fence,
    preceded by a blank line; text already inside a fence is left alone (tests/test_docs_api.py)."""
    lines, out, i, fenced = text.split("\n"), [], 0, False
    while i < len(lines):
        line = lines[i]
        stripped = line.lstrip()
        if stripped.startswith("```"):
            fenced = not fenced
        if fenced or not stripped.startswith(">>>"):
            out.append(line)
            i += 1
            continue
        indent = line[: len(line) - len(stripped)]
        block = []
        while i < len(lines) and lines[i].strip():
            block.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i].strip())
            i += 1
        if out and out[-1].strip():
            out.append("")
        out += [f"{indent}```pycon", *(f"{indent}{b}" for b in block), f"{indent}```"]
    return "\n".join(out)


class DoctestBlocks(griffe.Extension):
    """Fence the doctest examples of every docstring (`fence_doctests`)."""

    def on_instance(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        if obj.docstring is not None and ">>>" in obj.docstring.value:
            obj.docstring.value = fence_doctests(obj.docstring.value)
