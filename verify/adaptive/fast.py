"""Adaptive SVT densities in float64, with an error estimate (the search's evaluator; docs/adaptive.md).

The integral of `verify.adaptive.probability` (density(ω | q) = ∫ p_Z(z) Π_i factor_i(z) dz) in log
space on Gauss–Legendre panels: the panel ends are every kink of the integrand (z = 0 and the points
where a factor's argument is 0, and the cut of a TOP value), the panels are cut to width at most
4·min(b), and the range runs from 45·max(b) below the lowest kink to 45·max(b) above the highest (beyond
it the integrand is below e^{−45} of its value at the kink: every factor is at most 1 and p_Z decays
at rate 1/b_Z, a TOP or MIDDLE density at its own rate).  On each panel every factor is one exponential
branch of the Laplace law, so the integrand is analytic there.  The estimate is the largest relative
difference between the rules with 12 and 16 nodes per panel (the 16-node value is returned).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Sequence

import numpy as np

from verify.adaptive.model import AdaptiveSVT, Answer, Branch, TopRelease
from verify.engine.fast_plan import gauss_legendre


def _plan(mech: AdaptiveSVT, q: np.ndarray, answers: Sequence[Answer]):
    t, sig = float(mech.threshold), mech.sigma_value()
    kinks = [0.0]
    upper = math.inf
    for qi, a in zip(q, answers):
        kinks += [qi - t - sig, qi - t]
        if a.branch is Branch.MIDDLE:
            if float(a.value) < 0:
                return None
            kinks.append(qi - t - float(a.value))
        elif a.branch is Branch.TOP:
            if mech.top_release is TopRelease.GAP:
                if float(a.value) < sig:
                    return None
                kinks.append(qi - t - float(a.value))
            else:
                upper = min(upper, float(a.value) - sig - t)
    return kinks, upper


def _lse(x: np.ndarray) -> float:
    m = float(np.max(x))
    if m == -math.inf:
        return -math.inf
    return m + math.log(float(np.sum(np.exp(x - m))))


def _log_integrand(mech: AdaptiveSVT, q: np.ndarray, answers: Sequence[Answer], z: np.ndarray) -> np.ndarray:
    law, t, sig = mech.law, float(mech.threshold), mech.sigma_value()
    bz, bx, be = (float(b) for b in (mech.b_threshold, mech.b_top, mech.b_middle))
    out = law.log_pdf(z, bz)
    for qi, a in zip(q, answers):
        d = t + z - qi
        if a.branch is Branch.BELOW:
            out = out + law.log_cdf(sig + d, bx) + law.log_cdf(d, be)
        elif a.branch is Branch.MIDDLE:
            out = out + law.log_cdf(sig + d, bx) + law.log_pdf(float(a.value) + d, be)
        elif mech.top_release is TopRelease.GAP:
            out = out + law.log_pdf(float(a.value) + d, bx)
        else:
            out = out + float(law.log_pdf(np.array(float(a.value) - qi), bx))
    return out


def _log_rules(mech: AdaptiveSVT, q: np.ndarray, answers: Sequence[Answer], edges: np.ndarray) -> tuple[float, float]:
    """The 12- and 16-node values, from one evaluation of the integrand at both sets of nodes."""
    left, width = edges[:-1], np.diff(edges)
    zs, logws = [], []
    for rule in (12, 16):
        u, w = gauss_legendre(rule)
        zs.append((left[:, None] + width[:, None] * u[None, :]).ravel())
        logws.append(np.log((width[:, None] * w[None, :]).ravel()))
    f = _log_integrand(mech, q, answers, np.concatenate(zs))
    cut = len(zs[0])
    return _lse(f[:cut] + logws[0]), _lse(f[cut:] + logws[1])


#: Densities `fast_log_density` keeps: the search's grid asks a pair's neighbour again as another point's base.
DENSITY_CACHE = 4096


def fast_log_density(mech: AdaptiveSVT, queries: Sequence[float], answers: Sequence[Answer]) -> tuple[float, float]:
    """log density(ω | q) in float64 (−inf where it is 0) and the estimated relative error."""
    return _log_density_of_floats(mech, tuple(float(x) for x in queries), tuple(answers))


def clear_cache() -> None:
    """Forget the densities `fast_log_density` keeps, so that a benchmark times the computation, not the cache."""
    _log_density_of_floats.cache_clear()


@functools.lru_cache(maxsize=DENSITY_CACHE)
def _log_density_of_floats(mech: AdaptiveSVT, queries: tuple[float, ...], answers: tuple[Answer, ...]) -> tuple[float, float]:
    """`fast_log_density` at float64 queries: a pure function of its frozen, hashable arguments, so cached."""
    q = np.asarray(queries)
    if not mech.is_possible(tuple(answers), len(q)):
        return -math.inf, 0.0
    plan = _plan(mech, q, answers)
    if plan is None:
        return -math.inf, 0.0
    kinks, upper = plan
    bmax = float(max(mech.b_threshold, mech.b_top, mech.b_middle))
    step = 4 * float(min(mech.b_threshold, mech.b_top, mech.b_middle))
    lo, hi = min(kinks) - 45 * bmax, min(max(kinks) + 45 * bmax, upper)
    if hi <= lo:
        lo = hi - 45 * bmax
    ends = np.unique(np.array([lo, hi, *[k for k in kinks if lo < k < hi]]))
    pts = [ends[0]]
    for x in ends[1:]:
        n = max(1, math.ceil((x - pts[-1]) / step))
        pts.extend(pts[-1] + (x - pts[-1]) * np.arange(1, n + 1) / n)
    edges = np.array(pts)
    coarse, fine = _log_rules(mech, q, answers, edges)
    if fine == -math.inf:
        return -math.inf, 0.0
    return fine, abs(math.expm1(coarse - fine))
