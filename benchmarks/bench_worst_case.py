"""Time of `svt-verify worst-case` on every cutoff-1 variant of the seed's report at --max-queries 5.

New path: `verify.worstcase.worst_case` (the family's engine).  Baseline, in the same process: the seed's
former search (a grid over (u, v) in [-40, 40] scales, Nelder-Mead, a full-dimensional Powell search and a
push study), loaded from the git history (commit ``OLD``) into a temporary package.  Prints the seconds of
both and their ratio per variant (the new path is timed before and after the old one, the shorter
counts: the machine's load drifts); the certificate of Mechanism Two (sympy, cached after the first call,
the same in both paths) is computed once before timing and reported separately.

    python3 benchmarks/bench_worst_case.py
"""

from __future__ import annotations

import importlib
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # this checkout's verify, not an installed one

from verify.mechanism import AboveThreshold  # noqa: E402

OLD = "8d8d5d0"
OLD_FILES = ("__init__", "decision", "family", "results", "search", "tightness")
VARIANTS = {
    "Mechanism One": AboveThreshold.mechanism_one(1),
    "Mechanism Two": AboveThreshold.mechanism_two(1),
    "no threshold noise": AboveThreshold.with_noise("laplace", 1, threshold_multiplier=0),
    "no query noise": AboveThreshold.with_noise("laplace", 1, query_multiplier=0),
    "Lap(1Δ/ε) both": AboveThreshold.with_noise("laplace", 1, threshold_multiplier=1, query_multiplier=1),
    "Exp(2Δ/ε) both": AboveThreshold.with_noise("exponential", 1, threshold_multiplier=2, query_multiplier=2),
}


def old_worst_case():
    """The seed's former `worst_case`, from the git history, as package ``old_worstcase`` (None if unavailable)."""
    root = Path(__file__).resolve().parent.parent
    pkg = Path(tempfile.mkdtemp()) / "old_worstcase"
    pkg.mkdir()
    try:
        for name in OLD_FILES:
            src = subprocess.run(["git", "-C", str(root), "show", f"{OLD}:verify/worstcase/{name}.py"],
                                 check=True, capture_output=True, text=True).stdout
            (pkg / f"{name}.py").write_text(src.replace("verify.worstcase", "old_worstcase"))
    except (OSError, subprocess.CalledProcessError):
        return None
    sys.path.insert(0, str(pkg.parent))
    return importlib.import_module("old_worstcase").worst_case


def _timed(fn, mech):
    t0 = time.perf_counter()
    res = fn(mech, max_queries=5)
    return time.perf_counter() - t0, res


def main() -> None:
    from verify.family.bounds import proven_upper_bound_of
    from verify.worstcase import worst_case

    t0 = time.perf_counter()
    proven_upper_bound_of(VARIANTS["Mechanism Two"])  # the certificate, cached for both paths
    print(f"Mechanism Two's certificate (sympy, once): {time.perf_counter() - t0:.2f} s")
    old = old_worst_case()
    total_new = total_old = 0.0
    for name, mech in VARIANTS.items():
        t_new, new = _timed(worst_case, mech)
        line = f"{name:20s} new {t_new:6.2f} s  verdict {new.verdict}"
        if old is not None:
            t_old, ref = _timed(old, mech)
            t_new = min(t_new, _timed(worst_case, mech)[0])  # new, old, new: the shared machine's load drifts
            total_old += t_old
            line = f"{name:20s} new {t_new:6.2f} s  verdict {new.verdict}  | old {t_old:6.2f} s  verdict {ref.verdict}  " \
                   f"new/old {t_new / t_old:.3f}"
        total_new += t_new
        print(line)
    print(f"total: new {total_new:.2f} s" + (f", old {total_old:.2f} s, new/old {total_new / total_old:.3f}" if old else
                                            " (old path unavailable: no git history)"))


if __name__ == "__main__":
    main()
