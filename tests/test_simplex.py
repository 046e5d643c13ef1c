"""`verify.family.simplex.nelder_mead` is scipy's Nelder-Mead step for step: the same point, value and counts.

The family search's refinement moved from ``scipy.optimize.minimize(method="Nelder-Mead")`` to this copy (so that
the ``family`` command does not import scipy.optimize); every number the table prints rests on the two agreeing
bit for bit, on the search's own objective and on functions that exercise every branch (expansion, outside and
inside contraction, shrink, a zero start coordinate, the iteration limit).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import optimize

from verify.family import search_tuning as tune
from verify.family.presets import preset
from verify.family.simplex import nelder_mead
from verify.family.structured import family_log_ratio, layouts


def _scipy(func, x0, xatol, fatol, maxiter):
    return optimize.minimize(func, x0, method="Nelder-Mead", options={"xatol": xatol, "fatol": fatol, "maxiter": maxiter})


def _same(func, x0, xatol=1e-4, fatol=1e-4, maxiter=200):
    calls_ours: list[bytes] = []
    calls_scipy: list[bytes] = []

    def recorded(log):
        def f(x):
            log.append(np.asarray(x, dtype=float).tobytes())
            return func(x)
        return f

    ours = nelder_mead(recorded(calls_ours), x0, xatol=xatol, fatol=fatol, maxiter=maxiter)
    ref = _scipy(recorded(calls_scipy), x0, xatol, fatol, maxiter)
    assert calls_ours == calls_scipy  # every point evaluated, in order, bit for bit
    assert ours.x.tobytes() == np.asarray(ref.x).tobytes()
    assert ours.fun == float(ref.fun) or (math.isnan(ours.fun) and math.isnan(ref.fun))
    assert (ours.nit, ours.nfev) == (ref.nit, ref.nfev)
    return ours


def rosenbrock(x):
    return float(sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2))


@pytest.mark.parametrize("x0", [[-1.2, 1.0], [0.0, 0.0], [0.0, 3.0, -2.0], [1e-3, -5.0, 0.0]])
def test_rosenbrock_from_several_starts_is_scipy_bit_for_bit(x0):
    _same(rosenbrock, x0, xatol=1e-8, fatol=1e-10, maxiter=400)


def test_the_iteration_limit_and_a_one_dimensional_start_match():
    res = _same(lambda x: float(np.cos(3 * x[0]) + 0.1 * x[0] ** 2), [2.0], maxiter=5)
    assert res.nit == 5


def test_a_flat_objective_with_ties_and_a_clamp_matches():
    """Ties in the values (the argsort's order) and the clamp the search uses for infinite losses (1e300)."""
    _same(lambda x: 1e300 if x[0] > 1.0 else float(round(x[0] * x[1], 1)), [0.5, 2.0], maxiter=60)


def test_the_family_refinement_objective_matches_scipy():
    """The search's own objective (`verify.family.worstcase._refine_once`'s obj) on lyu-2 and gap-svt, from a start
    off the optimum, with the search's tolerances and budget."""
    for name, cutoff in (("lyu-2", 2), ("gap-svt", 1)):
        shape = preset(name, Fraction(1, 10), 1, 1, cutoff=cutoff)
        lay = next(lay for lay in layouts(shape, 3) if lay.n_a and lay.n_b)
        scale = max(float(shape.threshold_noise.scale), float(shape.query_noise.scale))

        def obj(x, shape=shape, lay=lay):
            val = family_log_ratio(shape, lay, float(x[0]), float(x[1]), 0.0, 1.0, -1.0)[0]
            return -min(val, 1e300) if np.isfinite(val) or val > 0 else 1e300

        _same(obj, [0.5 * scale, -0.25 * scale], xatol=tune.REFINE_XATOL * scale, fatol=tune.REFINE_FATOL,
              maxiter=tune.REFINE_BUDGET * 2)


def test_breaking_a_coefficient_is_seen(monkeypatch):
    """The comparison can fail: with another contraction coefficient the path differs."""
    import verify.family.simplex as simplex

    monkeypatch.setattr(simplex, "PSI", 0.4)
    with pytest.raises(AssertionError):
        _same(rosenbrock, [-1.2, 1.0], xatol=1e-8, fatol=1e-10, maxiter=400)
