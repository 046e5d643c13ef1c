"""Tests for the survivors of the full enumeration of `family-structured` (sixth round, 2026-12-06).

The full enumerations of `family-tightness` (47 mutants) and `family-witness` (30) on the same tree left no
non-equivalent survivor, so this file has one class, for the float64 structured evaluator
(`verify.family.structured`).  Each test states the rule it guards; expected values are derived here from the
documented rule (the integration range's formula, the documented outcome strings), never by calling the function
under test for the answer.  Each was checked by applying its mutant by hand and watching it fail.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_family_mutation_kills2 import variant

from verify.family import structured as S
from verify.noise.spec import Noise


def _threshold_nodes(monkeypatch, shape, n_b: int, n_a: int, u: float, v: float, r: float = 0.0) -> np.ndarray:
    """Every quadrature node z at which `_segment_points` evaluates the threshold noise's density p_Z (t = 0)."""
    seen: list[np.ndarray] = []
    real = Noise.log_pdf
    zn = shape.threshold_noise

    def log_pdf(self, x):
        if self == zn:
            seen.append(np.array(x, dtype=float).reshape(-1))
        return real(self, x)

    monkeypatch.setattr(Noise, "log_pdf", log_pdf)
    S._segment_points(shape, n_b, n_a, np.array([u]), np.array([v]), np.array([r]))
    assert seen
    return np.concatenate(seen)


class TestStructuredKills6:
    """The float64 objective's integration range, and the outcome string of a layout."""

    @pytest.mark.parametrize("x, n_b, n_a", [(("gaussian", 3), 1, 1), (("gaussian", 3), 0, 2),
                                             (("laplace", 3), 1, 1), (("laplace", 3), 0, 2)])
    def test_tails_are_cut_forty_e_folds_out_at_the_documented_rates(self, monkeypatch, x, n_b, n_a):
        """Rule (`_segment_points`, TAIL_EFOLDS = 40): beyond the outermost kink the integrand decays at least at the
        threshold's rate 1/b_Z plus, only when both noises are Laplace/exponential, the query factors' (n_B/b_X on the
        left, n_A/b_X on the right); the range is cut 40 e-folds out at that rate.  A Gaussian X's factors are not
        counted (its rate is not a constant), so the range is [k_min - 40·b_Z, k_max + 40·b_Z].  Laplace Z, b_Z = 2,
        kinks 0, u = 0, v = 5: the nodes lie strictly inside [lo, hi], and the last (first) of them in the outermost
        segment's last (first) quarter, since every segment has at least MIN_PANELS = 4 equal sub-panels."""
        bz, bx = 2.0, 3.0
        s = variant(z=("laplace", 2), x=x)
        piece = x[0] == "laplace"
        left = 1 / bz + (n_b / bx if piece else 0.0)
        right = 1 / bz + (n_a / bx if piece else 0.0)
        k_min, k_max = 0.0, 5.0
        lo, hi = k_min - 40 / left, k_max + 40 / right
        z = _threshold_nodes(monkeypatch, s, n_b, n_a, 0.0, k_max)
        assert S.MIN_PANELS == 4 and S.TAIL_EFOLDS == 40.0
        assert lo < z.min() < lo + (k_min - lo) / 4, (z.min(), lo)
        assert hi - (hi - k_max) / 4 < z.max() < hi, (z.max(), hi)

    @pytest.mark.parametrize("cutoff", [None, 1, 2, 3])
    def test_shared_outcome_strings_are_the_documented_ones(self, cutoff):
        """Rule (`Layout`: ``string()``): with a shared threshold, B^{n_B} A^c when the run halted at its c-th A (the
        halting A last), else A^{n_A} B^{n_B} (the A's first).  Every layout of up to 4 queries (``every_k``); each
        string has the layout's counts, and only a halted run ends with its c-th A."""
        s = variant(cutoff=cutoff)
        lays = S.layouts(s, 4, every_k=True)
        assert any(0 < lay.n_a < (cutoff or 5) and lay.n_b for lay in lays) or cutoff == 1
        for lay in lays:
            halted = cutoff is not None and lay.n_a == cutoff
            want = "B" * lay.n_b + "A" * lay.n_a if halted else "A" * lay.n_a + "B" * lay.n_b
            assert lay.string(s) == want, (cutoff, lay)
