"""The public API: every name of ``verify.__all__`` resolves (the family, worst-case and δ names
lazily, so that ``import verify`` stays quick), is documented in docs/api.md, and the API reference
builds from the docstrings with warnings as errors (mkdocs --strict)."""

from __future__ import annotations

import importlib
import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import verify

ROOT = Path(__file__).resolve().parent.parent
API = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
#: Data, not code: exported, but with no docstring of their own to render.
CONSTANTS = {"NO_HALT", "ABOVE", "BELOW", "PRESETS", "PRESET_NAMES"}


def _resolve(dotted: str) -> object:
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


def documented_objects() -> list[object]:
    """Objects rendered by docs/api.md: each ``::: path`` and, for a module, its ``members: [...]``."""
    objs = []
    for m in re.finditer(r"^::: ([\w.]+)\n((?:    .*\n)*)", API, re.M):
        target = _resolve(m.group(1))
        members = re.search(r"members: \[([^\]]*)\]", m.group(2))
        if members:
            objs += [getattr(target, name.strip()) for name in members.group(1).split(",")]
        else:
            objs.append(target)
    return objs


def test_every_public_name_resolves() -> None:
    missing = [n for n in verify.__all__ if not hasattr(verify, n)]
    assert not missing, missing
    assert set(verify._LAZY) <= set(verify.__all__)
    assert len(set(verify.__all__)) == len(verify.__all__)
    for name in ("SparseVector", "preset", "family_worst_case", "exact_delta", "worst_case", "mp_probability"):
        assert name in verify.__all__ and name in dir(verify)
    with pytest.raises(AttributeError, match="no_such_name"):
        verify.no_such_name  # noqa: B018


def test_lazy_names_are_the_library_objects() -> None:
    from verify.family.delta import exact_delta
    from verify.family.presets import NAMES
    from verify.family.worstcase import family_worst_case
    from verify.mechanism import SparseVector

    assert verify.SparseVector is SparseVector and verify.exact_delta is exact_delta
    assert verify.family_worst_case is family_worst_case and verify.PRESET_NAMES is NAMES


def test_import_verify_does_not_load_the_family_search() -> None:
    code = "import sys, verify; print('verify.family.worstcase' in sys.modules, 'verify.family.delta' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "False"]


def test_every_public_name_is_in_the_api_reference() -> None:
    documented = documented_objects()
    missing = [n for n in verify.__all__ if n not in CONSTANTS and not any(getattr(verify, n) is o for o in documented)]
    assert not missing, f"public names without a section in docs/api.md: {missing}"


def test_doctest_fence_for_the_api_reference() -> None:
    spec = importlib.util.spec_from_file_location("griffe_doctests", ROOT / "docs" / "griffe_doctests.py")
    if importlib.util.find_spec("griffe") is None:
        pytest.skip("griffe is not installed (pip install '.[test]' brings mkdocstrings[python])")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    text = "Example.\n>>> [str(x) for x in (1, 2)]\n['1', '2']\n\nEnd.\n```\n>>> kept\n```"
    assert module.fence_doctests(text).split("\n") == [
        "Example.", "", "```pycon", ">>> [str(x) for x in (1, 2)]", "['1', '2']", "```", "", "End.", "```", ">>> kept", "```"]


@pytest.mark.slow
def test_api_reference_builds_without_warnings(tmp_path: Path) -> None:
    """mkdocs --strict turns every warning (a broken link, an unresolved reference, a docstring that
    does not parse) into a failed build."""
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("mkdocstrings_handlers") is None:
        pytest.skip("mkdocs / mkdocstrings[python] are not installed (pip install '.[test]' brings them)")
    exe = shutil.which("mkdocs")
    cmd = [exe] if exe else [sys.executable, "-m", "mkdocs"]
    proc = subprocess.run([*cmd, "build", "--strict", "--site-dir", str(tmp_path / "site")], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)
    warnings = [line for line in proc.stderr.splitlines() if "WARNING" in line or "ERROR" in line]
    assert proc.returncode == 0 and not warnings, proc.stderr[-3000:]
    html = (tmp_path / "site" / "api" / "index.html").read_text(encoding="utf-8")
    for name in ("SparseVector", "family_worst_case", "exact_delta", "privacy_ratio", "AboveThreshold"):
        assert name in html
