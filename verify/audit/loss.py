"""The empirical privacy loss at a pair, with Clopper–Pearson intervals, beside the exact loss.

At a pair (D, D') and an outcome o, the exact loss is |log Pr[A(D) = o] - log Pr[A(D') = o]|.
The implementation's is estimated from n₁ of N₁ runs on D and n₂ of N₂ on D'
ending in o.  Each probability gets the Clopper–Pearson interval (Clopper and
Pearson 1934, "The use of confidence or fiducial limits illustrated in the case
of the binomial", Biometrika 26): the β/2 and 1 - β/2 quantiles of
Beta(n, N - n + 1) and Beta(n + 1, N - n), exact (conservative) coverage.  With
each side at confidence 1 - γ/2, the log ratio lies in
[log(lo₁/hi₂), log(hi₁/lo₂)] with confidence at least 1 - γ (Bonferroni over the
two sides).

The outcome chosen at a pair is the one with the largest exact loss among the
outcomes whose expected count is at least `MIN_EXPECTED_FOR_LOSS` on both sides
(a loss at an outcome seen a handful of times cannot be estimated); if none
qualifies, the outcome with the largest exact loss is reported with its counts.
The quantiles are ``scipy.special.betaincinv`` / ``betainccinv`` (the same floats as ``scipy.stats.beta.ppf`` /
``isf``, without importing ``scipy.stats``).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass

from scipy import special


def exact_loss(law: Mapping[str, float], nlaw: Mapping[str, float]) -> float:
    """max over outcomes o of |log Pr[A(D) = o] − log Pr[A(D′) = o]|: ∞ if an outcome has probability 0 on one
    side only; outcomes of probability 0 on both sides are left out."""
    best = 0.0
    for o in set(law) | set(nlaw):
        p, pn = law.get(o, 0.0), nlaw.get(o, 0.0)
        if p > 0 and pn > 0:
            best = max(best, abs(math.log(p) - math.log(pn)))
        elif p > 0 or pn > 0:
            return math.inf
    return best


#: Expected count, on both sides, for an outcome's loss to be estimated.
MIN_EXPECTED_FOR_LOSS = 20.0


def clopper_pearson(k: int, n: int, confidence: float) -> tuple[float, float]:
    """The two-sided Clopper–Pearson interval for a binomial proportion k/n.

    >>> lo, hi = clopper_pearson(0, 10, 0.95)
    >>> (lo, round(hi, 4))
    (0.0, 0.3085)
    """
    if not 0 <= k <= n or n < 1:
        raise ValueError(f"clopper_pearson: need 0 <= k <= n, n >= 1 (k = {k}, n = {n})")
    a = 1 - confidence
    lo = 0.0 if k == 0 else float(special.betaincinv(k, n - k + 1, a / 2))  # Beta(k, n-k+1).ppf(a/2)
    hi = 1.0 if k == n else float(special.betainccinv(k + 1, n - k, a / 2))  # Beta(k+1, n-k).isf(a/2)
    return lo, hi


def _log(x: float) -> float:
    return math.log(x) if x > 0 else -math.inf


@dataclass(frozen=True)
class EmpiricalLoss:
    """At one outcome: the exact log ratio, the sampled one and its interval (module docstring)."""

    outcome: str
    exact: float
    estimate: float
    lower: float
    upper: float
    counts: tuple[int, int]
    samples: tuple[int, int]
    confidence: float
    estimable: bool

    @property
    def covers_exact(self) -> bool:
        return self.lower <= self.exact <= self.upper

    def to_json(self) -> dict[str, object]:
        def num(x: float) -> object:
            return x if math.isfinite(x) else ("inf" if x > 0 else "-inf")

        return {"outcome": self.outcome, "exact_log_ratio": num(round(self.exact, 6)), "estimate": num(round(self.estimate, 6)),
                "interval": [num(round(self.lower, 6)), num(round(self.upper, 6))], "confidence": self.confidence,
                "counts": list(self.counts), "samples": list(self.samples), "estimable": self.estimable}


def log_ratio_interval(k1: int, n1: int, k2: int, n2: int, confidence: float) -> tuple[float, float, float]:
    """(estimate, lower, upper) of log(p₁/p₂) from k₁/n₁ and k₂/n₂ at joint ``confidence``."""
    side = 1 - (1 - confidence) / 2
    lo1, hi1 = clopper_pearson(k1, n1, side)
    lo2, hi2 = clopper_pearson(k2, n2, side)
    est = _log(k1 / n1) - _log(k2 / n2) if k1 and k2 else (math.inf if k1 else -math.inf if k2 else math.nan)
    return est, _log(lo1) - _log(hi2), _log(hi1) - _log(lo2)


def empirical_loss(law: Mapping[str, float], neighbour_law: Mapping[str, float], counts: Mapping[str, int],
                   neighbour_counts: Mapping[str, int], confidence: float) -> EmpiricalLoss | None:
    """The loss at the outcome chosen as in the module docstring (None if no outcome has mass on both sides).

    The sign is oriented so that the exact log ratio is >= 0 (the larger side first)."""
    n1, n2 = int(sum(counts.values())), int(sum(neighbour_counts.values()))
    rows = []
    for s in law:
        p, pn = float(law[s]), float(neighbour_law.get(s, 0.0))
        if p <= 0 and pn <= 0:
            continue
        exact = _log(p) - _log(pn)
        flip = exact < 0
        estimable = min(p * n1, pn * n2) >= MIN_EXPECTED_FOR_LOSS
        rows.append((estimable, abs(exact), s, flip))
    if not rows:
        return None
    estimable, _, s, flip = max(rows)
    k1, k2 = int(counts.get(s, 0)), int(neighbour_counts.get(s, 0))
    p, pn = float(law[s]), float(neighbour_law.get(s, 0.0))
    if flip:
        k1, k2, p, pn, n1, n2 = k2, k1, pn, p, n2, n1
    est, lo, hi = log_ratio_interval(k1, n1, k2, n2, confidence)
    return EmpiricalLoss(s, _log(p) - _log(pn), est, lo, hi, (k1, k2), (n1, n2), confidence, estimable)
