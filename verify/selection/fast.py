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

_RULES = {n: np.polynomial.legendre.leggauss(n) for n in (12, 16, 48, 64)}
#: Where the exponential family's u-integral is cut: Π_{j≠i}(1 − a_j u) <= e^{−u(A − a_i)} and A − a_i >= A − 1.
_CUT = 45.0


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


def _exponential_index_logs(s: np.ndarray, b: float, rule: int) -> np.ndarray:
    """Exponential noise, with u = e^{−(z − max s)/b} and a_j = e^{(s_j − max s)/b}:
    Pr[i] = a_i ∫_0^1 Π_{j≠i} (1 − a_j u) du (docs/selection.md), one set of Gauss–Legendre nodes for every i, on
    [0, U], U = min(1, 45/(A − 1)), A = Σ a_j: beyond U the integrand is below e^{−45(A − a_i)/(A − 1)} <= e^{−45}
    times its bound e^{−u(A − a_i)}, and the integral is at least 1/(2A), so the cut is below 4e^{−45} of Pr[i].
    On [0, U] the integrand is a polynomial of degree k − 1 that behaves like e^{−uA}: smooth at the nodes' scale."""
    a = np.exp((s - s.max()) / b)
    rest = float(a.sum()) - 1.0
    top = 1.0 if rest <= _CUT else _CUT / rest
    x, w = _RULES[rule]
    u = top * (x + 1) / 2
    log_w = np.log(top * w / 2)
    f = 1.0 - np.outer(u, a)  # every factor in (0, 1]: u < U <= 1 at the nodes
    g = np.prod(f, axis=1)
    if g.min() > 1e-250:  # plain products (rounding about k·2^-53 relative): the fast way
        return np.log(a) + np.log((w * top / 2) @ (g[:, None] / f))
    lg = np.log(f)  # products that could underflow: in log space
    return np.log(a) + logsumexp(lg.sum(axis=1)[:, None] - lg + log_w[:, None], axis=0)


def index_log_probabilities_of_floats(mech: ReportNoisyMax, scores: np.ndarray) -> tuple[np.ndarray, float]:
    """`fast_index_log_probabilities` at float64 effective scores (no exact conversion: the k = 1000 path)."""
    s = np.asarray(scores, dtype=float)
    b = float(mech.b)
    if isinstance(mech.law, Gumbel):
        return s / b - logsumexp(s / b), 4e-16 * (1 + math.log(len(s)) + float(np.abs(s).max()) / b)
    if len(s) == 1:
        return np.zeros(1), 0.0
    if mech.law.discrete:
        return fast_discrete_index_logs(mech.law, s, b, mech.ties is TieRule.FIRST)
    if not mech.law.two_sided:
        coarse, fine = _exponential_index_logs(s, b, 48), _exponential_index_logs(s, b, 64)
        return fine, float(np.max(np.abs(np.expm1(coarse - fine))))
    coarse, fine = _index_logs(mech, s, b, 12), _index_logs(mech, s, b, 16)
    return fine, float(np.max(np.abs(np.expm1(coarse - fine))))


def fast_index_log_probabilities(mech: ReportNoisyMax, queries: Sequence[object]) -> tuple[np.ndarray, float]:
    """log Pr[i] for every i (float64) and the estimated largest relative error."""
    s = _scores(mech, queries)
    b = float(mech.b)
    if not mech.law.two_sided:
        return index_log_probabilities_of_floats(mech, s)
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
