"""The goodness-of-fit test of observed frequencies against an exact law.

G = 2 Σ_j O_j log(O_j / E_j) over cells j, E_j = N·p_j, referred to χ² with
(cells - 1) degrees of freedom (Wilks 1938; Agresti, Categorical Data
Analysis, 3rd ed., Section 1.5.5).  The χ² reference is asymptotic: cells whose
expected count is below `MIN_EXPECTED` are pooled into one cell (and that cell,
if still small, into the smallest other cell), the usual rule for the
approximation (Cochran 1954, "Some methods for strengthening the common χ²
tests", Biometrics 10).

When pooling leaves a single cell (one large cell and a remainder whose expected count is still below
`MIN_EXPECTED`, or every cell small), the G-test has nothing to compare: an implementation that puts all its
runs in an outcome of expected count 0.0 would pass.  There the remainder (every cell but the most likely) is
tested exactly: its count X is Binomial(N, p_rest) under the law, with the two-sided p-value
min(1, 2·min(Pr[X >= x], Pr[X <= x])) (``scipy.special.bdtrc``/``bdtr``; the doubled tail, which never exceeds
α under the law).  Where two or more cells remain, small cells merged into a large one are compared only
through that cell's total (the usual price of pooling; docs/audit.md).

An outcome observed although its exact probability is 0 (or that is not an
output of the claimed law at all) rejects outright: p-value 0.  That rule has no
false alarms, since the exact law never produces such an outcome.

The standardized residual (O_j - E_j)/sqrt(E_j) ranks the outcomes that deviate
most (unpooled, so a rare outcome with a large residual is still named).

The χ² tail is ``scipy.special.chdtrc``, the function ``scipy.stats.chi2.sf`` calls (the same floats), without
importing ``scipy.stats`` (about a second of start-up for every audit).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import special


def chi2_sf(x: float, df: float) -> float:
    """Pr[χ²_df > x]: ``scipy.stats.chi2.sf(x, df)`` (module docstring), 1 below the support as there."""
    return 1.0 if x < 0 else float(special.chdtrc(df, x))


#: Cells with a smaller expected count are pooled (Cochran's rule of five, made stricter).
MIN_EXPECTED = 5.0
#: Outcomes listed as deviating most.
TOP = 3


@dataclass(frozen=True)
class Deviation:
    """One outcome: observed and expected counts and the standardized residual."""

    outcome: str
    observed: int
    expected: float

    @property
    def residual(self) -> float:
        if self.expected == 0:
            return math.inf if self.observed else 0.0
        return (self.observed - self.expected) / math.sqrt(self.expected)

    def to_json(self) -> dict[str, object]:
        r = self.residual
        return {"outcome": self.outcome, "observed": self.observed, "expected": round(self.expected, 3),
                "residual": "inf" if math.isinf(r) else round(r, 3)}


@dataclass(frozen=True)
class GofResult:
    """G statistic, degrees of freedom, p-value, pooled cells, and the outcomes deviating most."""

    statistic: float
    df: int
    p_value: float
    samples: int
    cells: int
    impossible: tuple[str, ...]
    top: tuple[Deviation, ...]

    def to_json(self) -> dict[str, object]:
        return {"G": round(self.statistic, 4), "df": self.df, "p_value": float(f"{self.p_value:.4g}"), "samples": self.samples,
                "cells_after_pooling": self.cells, "impossible_outcomes": list(self.impossible),
                "deviating_most": [d.to_json() for d in self.top]}


def rest_p_value(observed: int, n: int, p: float) -> float:
    """Two-sided exact binomial p-value of ``observed`` runs in a remainder of probability ``p`` out of ``n``:
    min(1, 2·min(Pr[X >= observed], Pr[X <= observed])), X ~ Binomial(n, p) (module docstring)."""
    if p <= 0.0:
        return 0.0 if observed else 1.0
    if p >= 1.0:
        return 0.0 if observed < n else 1.0
    upper = 1.0 if observed == 0 else float(special.bdtrc(observed - 1, n, p))
    lower = float(special.bdtr(observed, n, p))
    return min(1.0, 2.0 * min(upper, lower))


def pooled_cells(expected: np.ndarray, min_expected: float = MIN_EXPECTED) -> list[list[int]]:
    """Groups of cell indices: every large cell alone, the small ones pooled (module docstring)."""
    order = np.argsort(expected, kind="stable")
    big = [[int(j)] for j in range(len(expected)) if expected[j] >= min_expected]
    small = [int(j) for j in order if expected[j] < min_expected]
    if not small:
        return big
    if sum(expected[j] for j in small) >= min_expected or not big:
        return big + [small]
    smallest = min(range(len(big)), key=lambda g: sum(expected[j] for j in big[g]))
    big[smallest] = big[smallest] + small
    return big


def total_variation(counts: Mapping[str, int], law: Mapping[str, float]) -> float:
    """½ Σ_o |counts[o]/n − law[o]| over the outcomes of either (n = Σ counts): the total variation between the
    sampled frequencies and ``law``.  Summed with `math.fsum` (correctly rounded), so the value does not depend on
    the order a set of outcome strings comes in, which changes with Python's string hashing from run to run."""
    total = sum(counts.values())
    return 0.5 * math.fsum(abs(counts.get(o, 0) / total - law.get(o, 0.0)) for o in set(law) | set(counts))


def g_test(counts: Mapping[str, int], law: Mapping[str, float], min_expected: float = MIN_EXPECTED) -> GofResult:
    """The G-test of ``counts`` (outcome -> runs) against ``law`` (outcome -> exact probability)."""
    n = int(sum(counts.values()))
    if n < 1:
        raise ValueError("g_test: no samples")
    names: Sequence[str] = list(law)
    probs = np.array([max(float(law[s]), 0.0) for s in names])
    probs = probs / probs.sum()  # the fast path's float64 values sum to 1 within ~1e-12
    observed = np.array([int(counts.get(s, 0)) for s in names], dtype=float)
    impossible = tuple(sorted(s for s, c in counts.items() if c and (s not in law or law[s] <= 0)))
    expected = n * probs
    devs = [Deviation(s, int(counts.get(s, 0)), float(n * law.get(s, 0.0)) if s in law else 0.0)
            for s in set(names) | {s for s, c in counts.items() if c}]
    top = tuple(sorted(devs, key=lambda d: (-abs(d.residual), d.outcome))[:TOP])
    groups = pooled_cells(expected, min_expected)
    o = np.array([observed[g].sum() for g in groups])
    e = np.array([expected[g].sum() for g in groups])
    df = max(len(groups) - 1, 1)
    if impossible:
        return GofResult(math.inf, df, 0.0, n, len(groups), impossible, top)
    if len(groups) < 2:  # nothing for the G-test to compare: the remainder's exact test (module docstring)
        rest = np.arange(len(names)) != int(np.argmax(probs))
        return GofResult(0.0, df, rest_p_value(int(observed[rest].sum()), n, float(probs[rest].sum())), n,
                         len(groups), (), top)
    pos = o > 0
    g = float(2 * np.sum(o[pos] * np.log(o[pos] / e[pos])))
    return GofResult(g, df, chi2_sf(g, df), n, len(groups), (), top)
