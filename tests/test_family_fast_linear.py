"""The halting path's mass-weighted node plan keeps the fast path's accuracy.

`verify.family.fast_halting.mass_weighted_variation` lets a segment's panel count depend on how
much of an output's value the segment can hold; these tests check, against the seed's mpmath
distribution (40 digits) and the family's mpmath closed form (30 digits), that every value whose
estimate is within the tolerance is within it, on clustered queries, ties and far tails."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from verify.errors import InputError
from verify.family import preset
from verify.family.fast import panels, searchsorted_rows, tail_edges, variation_bound
from verify.family.fast_api import FAST_TOLERANCE
from verify.family.fast_halting import halting_distribution, mass_weighted_variation
from verify.family.probability import mp_probability
from verify.probabilities import mp_distribution as seed_distribution


def _rel(logv: float, exact: mpmath.mpf) -> float:
    with mpmath.workdps(30):
        return abs(float(mpmath.expm1(mpmath.mpf(logv) - mpmath.log(exact))))


def _vectors(rng: np.random.Generator, k: int) -> list[np.ndarray]:
    uniform = rng.uniform(-6, 6, k)
    clustered = rng.normal(0, 0.05, k) + 1.5
    ties = np.resize(np.repeat(rng.uniform(-5, 5, max(1, k // 4)), 4), k)
    far = rng.uniform(-6, 6, k)
    far[rng.integers(0, k, max(1, k // 5))] = rng.choice([-80.0, 80.0, 150.0], max(1, k // 5))
    return [np.round(v, 4) for v in (uniform, clustered, ties, far)]


@pytest.mark.parametrize("name", ["seed-m1", "seed-m2", "dwork-roth"])
def test_all_outputs_agree_with_the_seed_at_k_20(name):
    m = preset(name)
    for q in _vectors(np.random.default_rng(20), 20):
        res = halting_distribution(m, q[None, :], node_plan="weighted")
        exact = seed_distribution(m.as_above_threshold(), [Fraction(str(x)) for x in q], 40)
        for c, e in enumerate(exact):
            if res.error_estimate[0, c] <= FAST_TOLERANCE:
                assert _rel(res.log_value[0, c], e) <= FAST_TOLERANCE, (c, q)


def test_k_1000_first_outputs_agree_with_mpmath():
    """k = 1000, clustered and uniform queries: outputs 0, 1, 3 against the mpmath closed form; all
    estimates within the tolerance; the distribution sums to 1."""
    m = preset("seed-m1")
    rng = np.random.default_rng(1000)
    for q in (np.round(rng.uniform(-6, 6, 1000), 4), np.round(rng.normal(0, 0.05, 1000) + 1.5, 4)):
        res = halting_distribution(m, q[None, :])
        assert np.all(res.error_estimate <= FAST_TOLERANCE)
        assert abs(math.fsum(np.exp(res.log_value[0])) - 1) < 1e-12
        fq = [Fraction(str(x)) for x in q]
        for i in (0, 1, 3):
            exact = mp_probability(m, fq, "B" * i + "A", None, 30)
            assert _rel(res.log_value[0, i], exact) <= FAST_TOLERANCE


def test_mass_weighting_only_lowers_the_variation_and_saves_nodes():
    """The mass-weighted variation never exceeds the plain bound, and at k = 1000 the plan has fewer
    nodes than the plain one (a count, not a timing)."""
    m = preset("seed-m1")
    a = np.sort(np.random.default_rng(3).uniform(-6, 6, (1, 1000)), axis=1)
    points = np.sort(np.concatenate([a, np.zeros((1, 1))], axis=1), axis=1)
    edges = tail_edges(m, points)
    var = variation_bound(m, edges, a, extra=1 / 3)
    above = 1000 - searchsorted_rows(a, edges[:, 1:], side="left")
    weighted = mass_weighted_variation(m, edges, a, var, above)
    assert np.all(weighted <= var * (1 + 1e-12))
    z_plain, _, _ = panels(edges, var)
    z_new, w_new, _ = panels(edges, weighted)
    assert z_new.shape[1] < 0.8 * z_plain.shape[1]
    assert math.isclose(w_new.sum(), edges[0, -1] - edges[0, 0], rel_tol=1e-12)


def test_weighted_and_plain_plans_agree_and_bad_plan_is_refused():
    m = preset("seed-m1")
    q = np.random.default_rng(4).uniform(-6, 6, (3, 200))
    new, old = halting_distribution(m, q), halting_distribution(m, q, node_plan="plain")
    ok = (new.error_estimate <= FAST_TOLERANCE) & (old.error_estimate <= FAST_TOLERANCE)
    assert ok.all()
    assert np.abs(np.expm1(new.log_value - old.log_value)).max() <= 2 * FAST_TOLERANCE
    with pytest.raises(InputError):
        halting_distribution(m, q, node_plan="quadratic")
