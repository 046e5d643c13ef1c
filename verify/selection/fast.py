"""Report Noisy Max in float64, with an error estimate (the search's evaluator; docs/selection.md).

* Gumbel noise: the softmax Pr[i] = e^{s_i/b} / Σ_j e^{s_j/b}, in log space (exact up to rounding).
* Laplace and exponential noise: log Pr[i] = log ∫ p(z − s_i) G(z) / F(z − s_i) dz with
  G(z) = Π_j F(z − s_j), all k outputs in one pass over one set of Gauss–Legendre nodes: panels between
  the sorted scores (the kinks of every factor) cut to width <= b/2, from the support's lower end (max s
  for exponential noise; min s for Laplace, below which every factor is on its lower branch and the
  integral is w₋^k/k · e^{(k·min s − Σ s)/b} exactly) to max s + (40 + log k)·b (beyond it the
  integrand is below e^{−40} of its mass).  On each panel every factor is one exponential branch, so the
  integrand is analytic there.  The estimate is the largest relative difference between the rules with
  12 and 16 nodes per panel (the 16-node values are returned).
* The released value: log of Σ_i p(v − s_i) Π_{j≠i} F(v − s_j) (a sum, no integral).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
from scipy.special import logsumexp

from verify.noise.gumbel import Gumbel
from verify.selection.discrete import fast_discrete_index_logs
from verify.selection.model import ReportNoisyMax, TieRule

_RULES = {n: np.polynomial.legendre.leggauss(n) for n in (12, 16)}


def _scores(mech: ReportNoisyMax, queries: Sequence[object]) -> np.ndarray:
    return np.array([float(x) for x in mech.effective_scores(mech.check_queries(queries))])


def _panels(s: np.ndarray, b: float, lo: float) -> np.ndarray:
    hi = float(s.max()) + (40.0 + math.log(len(s))) * b
    ends = np.unique(np.concatenate(([lo, hi], s[(s > lo) & (s < hi)])))
    out = [ends[0]]
    for x in ends[1:]:
        n = max(1, math.ceil((x - out[-1]) / (b / 2)))
        out.extend(out[-1] + (x - out[-1]) * np.arange(1, n + 1) / n)
    return np.array(out)


def _index_logs(mech: ReportNoisyMax, s: np.ndarray, b: float, rule: int) -> np.ndarray:
    law = mech.law
    lo = float(s.max()) if not law.two_sided else float(s.min())
    edges = _panels(s, b, lo)
    x, w = _RULES[rule]
    left, width = edges[:-1], np.diff(edges)
    z = (left[:, None] + width[:, None] * (x[None, :] + 1) / 2).ravel()
    logw = np.log((width[:, None] * w[None, :] / 2).ravel())
    d = z[:, None] - s[None, :]
    log_f = law.log_cdf(d, b)
    log_g = log_f.sum(axis=1)
    terms = law.log_pdf(d, b) + (log_g[:, None] - log_f) + logw[:, None]
    out = logsumexp(terms, axis=0)
    if law.two_sided:  # the Laplace-type lower tail below min s, exact
        k = len(s)
        tail = k * math.log(float(law.lower_weight)) - math.log(k) + (k * float(s.min()) - float(s.sum())) / b
        out = np.logaddexp(out, tail)
    return out


def fast_index_log_probabilities(mech: ReportNoisyMax, queries: Sequence[object]) -> tuple[np.ndarray, float]:
    """log Pr[i] for every i (float64) and the estimated largest relative error."""
    s = _scores(mech, queries)
    b = float(mech.b)
    if isinstance(mech.law, Gumbel):
        return s / b - logsumexp(s / b), 4e-16 * (1 + math.log(len(s)) + float(np.abs(s).max()) / b)
    if len(s) == 1:
        return np.zeros(1), 0.0
    if mech.law.discrete:  # a sum over ℤ with the tie rule (verify.selection.discrete)
        return fast_discrete_index_logs(mech.law, s, b, mech.ties is TieRule.FIRST)
    coarse, fine = _index_logs(mech, s, b, 12), _index_logs(mech, s, b, 16)
    return fine, float(np.max(np.abs(np.expm1(coarse - fine))))


def fast_value_log_density(mech: ReportNoisyMax, queries: Sequence[object], value: float) -> float:
    """log of the released maximum's density at ``value`` (−inf where it is 0)."""
    s = _scores(mech, queries)
    b = float(mech.b)
    d = value - s
    log_f = mech.law.log_cdf(d, b)
    log_p = mech.law.log_pdf(d, b)
    others = np.array([np.sum(np.delete(log_f, i)) for i in range(len(s))])
    with np.errstate(invalid="ignore"):
        return float(logsumexp(log_p + others))
