"""The Report Noisy Max search against a seeded random search, and its corner rule against random
neighbours; the proven bound against the losses found (50 digits)."""

import math
from fractions import Fraction
from functools import cache

import mpmath
import numpy as np
import pytest

from verify.selection.bounds import proven_bound
from verify.selection.fast import fast_index_log_probabilities
from verify.selection.model import ReportNoisyMax
from verify.selection.probability import SelectionOutcome, mp_log_ratio
from verify.selection.search import corners, index_loss, search_index

FAMILIES = ["laplace", "exponential", "gumbel"]


def _loss(m, q, qn):
    a = fast_index_log_probabilities(m, q)[0][0]
    c = fast_index_log_probabilities(m, qn)[0][0]
    return abs(a - c)


@cache
def _search(family, scale, monotone):
    """`search_index` up to 4 scores, computed once per mechanism for the tests below (a deterministic search)."""
    return search_index(ReportNoisyMax(1, 1, family, scale, monotone=monotone), 4)


@pytest.mark.slow
@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("monotone", [False, True])
def test_structured_search_beats_a_random_search(family, monotone):
    """Seeded random bases in [−8b, 8b]^k and random neighbours in the box (any corner, or uniform; all one
    sign when monotone), index 1: none exceeds the structured search's best at that k (1e-9 slack)."""
    m = ReportNoisyMax(1, 1, family, 1 if monotone else 2, monotone=monotone)
    b = float(m.b)
    _, by_k = _search(family, 1 if monotone else 2, monotone)
    rng = np.random.default_rng(2031)
    for k in (2, 3, 4):
        for _ in range(150):
            q = [Fraction(f"{x:.4f}") for x in rng.uniform(-8 * b, 8 * b, k)]
            shift = rng.choice([-1.0, 1.0], k) if rng.random() < 0.5 else rng.uniform(-1, 1, k)
            if monotone:
                shift = np.abs(shift) * rng.choice([-1.0, 1.0])
            qn = [x + Fraction(f"{d:.4f}") for x, d in zip(q, shift)]
            assert _loss(m, q, qn) <= by_k[k] + 1e-9, (q, qn)


@pytest.mark.parametrize("family", FAMILIES)
def test_the_corner_is_the_worst_neighbour(family):
    """For a fixed base, no neighbour in the box beats the corner of `corners` (monotonicity of Pr[i])."""
    m = ReportNoisyMax(1, 1, family, 2)
    rng = np.random.default_rng(7)
    for _ in range(40):
        q = [Fraction(f"{x:.3f}") for x in rng.uniform(-6, 6, 3)]
        worst, _ = index_loss(m, q)
        base = fast_index_log_probabilities(m, q)[0][0]  # the base's value, once per base (deterministic)
        for _ in range(10):
            qn = [x + Fraction(f"{d:.3f}") for x, d in zip(q, rng.uniform(-1, 1, 3))]
            assert base - fast_index_log_probabilities(m, qn)[0][0] <= worst + 1e-12


def test_monotone_corners_move_one_way():
    m = ReportNoisyMax(1, 1, "laplace", 1, monotone=True)
    for c in corners(m, [Fraction(0), Fraction(2)]):
        d = [c[0] - 0, c[1] - 2]
        assert all(x >= 0 for x in d) or all(x <= 0 for x in d)


@pytest.mark.slow
@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("monotone", [False, True])
def test_bound_holds_and_is_approached(family, monotone):
    """The proven bound is above the best loss found at 50 digits, and the search comes within 1e-3 of it
    (2Δ/b any direction, Δ/b monotone: tight for these families)."""
    m = ReportNoisyMax(1, 1, family, 2, monotone=monotone)
    best, _ = _search(family, 2, monotone)
    bound = proven_bound(m).value
    assert bound == (Fraction(1, 2) if monotone else 1)
    with mpmath.workdps(50):
        loss = mp_log_ratio(m, best.queries, best.neighbour, SelectionOutcome(best.outcome.kind, 0), 50)
        assert 0 <= loss <= mpmath.mpf(bound.numerator) / bound.denominator
        assert float(loss) > float(bound) - 1e-3
    assert math.isclose(best.loss, float(loss), rel_tol=1e-9, abs_tol=1e-12)
