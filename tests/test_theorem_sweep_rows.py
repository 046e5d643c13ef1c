"""The two theorem sweeps of a family (outputs s_i and ⊤^k) read one set of rows and float64 ratios.

`proofs.sweeps.theorem_ratios` draws every block's rows from one seeded generator and computes all the outputs'
log ratios once; `proofs.sweeps.theorem_sweep` picks its columns.  References: `verify.ratio.fast_log_ratios`
recomputed on the same rows, and each sweep computed first in a fresh process state (the other's ratios not yet
cached), which is how it was computed before the rows were shared.
"""

from __future__ import annotations

import numpy as np
import pytest

from proofs import sweeps
from verify.ratio import fast_log_ratios

SMALL = dict(n_random=40, kmax=2)


@pytest.mark.parametrize("family", ["laplace", "exponential"])
def test_shared_ratios_are_the_engines_on_the_same_rows(family: str) -> None:
    blocks = sweeps.theorem_ratios(family, SMALL["n_random"], SMALL["kmax"])
    assert [(eps, k) for eps, k, *_ in blocks] == [(e, k) for e in sweeps.EPSILONS for k in (1, 2)]
    for eps, k, Q, Qn, lr in blocks:
        assert lr.shape == (len(Q), k + 1) and not lr.flags.writeable
        np.testing.assert_array_equal(lr, fast_log_ratios(sweeps.mechanism(family, eps), np.array(Q), np.array(Qn)))


@pytest.mark.parametrize("family", ["laplace", "exponential"])
def test_each_sweep_is_the_same_whichever_runs_first(family: str) -> None:
    results = {}
    for first in ("halt", "none"):
        sweeps.clear_caches()
        sweeps.theorem_sweep(family, first, **SMALL)
        sweeps.theorem_sweep.cache_clear()
        results[first] = {w: sweeps.theorem_sweep(family, w, **SMALL) for w in ("halt", "none")}
    sweeps.clear_caches()
    for w in ("halt", "none"):
        fresh = sweeps.theorem_sweep(family, w, **SMALL)
        sweeps.clear_caches()
        assert results["halt"][w] == results["none"][w] == fresh
    assert results["halt"]["halt"].points != results["halt"]["none"].points  # k columns vs one: different sweeps
