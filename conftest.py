"""Collection of the library's doctests (``--doctest-modules`` in pyproject's addopts).

pytest imports every ``.py`` file under ``verify/`` and ``proofs/`` to look for doctests, and every
pytest-xdist worker does it again at collection.  Most of those modules have no doctest, and some pull
in libraries at import that a worker may never need otherwise (verify.plots loads matplotlib, the
engine's kernels load numba: about a second of CPU together).  A docstring example starts with
``>>>`` in the source, so a module whose text has no ``>>>`` yields no doctest item: it is skipped
here without being imported, and the collected items are the same (the sorted node ids of a
``--collect-only`` run are identical with and without this hook).  Test modules (tests/) are never
skipped.
"""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent
LIBRARY = (ROOT / "verify", ROOT / "proofs")


def pytest_ignore_collect(collection_path: Path, config: pytest.Config) -> bool | None:
    """True (skip, unimported) for a library module without a ``>>>``; None (no opinion) otherwise."""
    if collection_path.suffix != ".py" or not config.getoption("doctestmodules", False):
        return None
    if not any(collection_path.is_relative_to(pkg) for pkg in LIBRARY):
        return None
    try:
        text = collection_path.read_text(encoding="utf-8")
    except OSError:
        return None
    return None if ">>>" in text else True
