"""Exact laws the audit compares samples with: a family member, and the two laws outside the family.

* A family member (`verify.family.SparseVector`): the letters' law at a pair is
  the float64 fast path of the library (`verify.family.fast_api.fast_log_distribution`,
  relative error at most 1e-12, escalating to mpmath).  A release does not
  change the letters' law (the released value is a function of the same or of
  independent noise), so it is computed for the variant with release none.
* `Law.REUSED`: one query-noise draw X used for every query (shared threshold).
  Query i is above iff W = Z - X <= q_i - t, so an outcome is the event
  max_B(q_i - t) < W <= min_A(q_i - t), of probability F_W(hi) - F_W(lo).  For
  Z ~ Lap(a), X ~ Lap(b) (a ≠ b), W has the density
  (a e^{-|w|/a} - b e^{-|w|/b}) / (2(a² - b²)) and, for w >= 0, the CDF
  1 - (a² e^{-w/a} - b² e^{-w/b}) / (2(a² - b²)); for a = b, 1 - ½(1 + w/(2a)) e^{-w/a}
  (convolution of two Laplace densities; by symmetry F_W(-w) = 1 - F_W(w)).
* `Law.FRESH`: the threshold noise drawn afresh for every query: the answers are
  independent until the c-th A (`_fresh_laws`).
* `Law.UNNOISED`: a release of q_i itself (no noise): the letters' law of the
  family member, the released value a point mass at q_i.

Released values are tested at one-query pairs only (`release_cells`): the first
(and only) released value there has a one-dimensional law, with density
p(A, v) = f_X(v - q)·Pr[Z <= v - t] (release ``query``),
∫ f_Z(z) f_X(g + t + z - q) dz for the gap g >= 0 (release ``gap``), and
Pr[A]·f_Y(v - q) (release ``fresh``).  Its mass per bin is integrated by the
trapezoidal rule on `GRID_POINTS` points over ±`GRID_SCALES` noise scales with
every kink as a node, then scaled so that the bins sum to the fast path's Pr[A]
(that rescaling, reported as ``grid_error``, is the estimate of the rule's error).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

import numpy as np

from verify.audit.discrete_laws import engine_laws, prefix_products, rounded_laws, window_laws
from verify.family.fast_api import fast_log_distribution
from verify.mechanism import Release, SparseVector, ThresholdPolicy
from verify.noise import Laplace
from verify.release import Role

#: Relative error allowed in a letter probability (the fast path escalates beyond it): far below
#: what any sample size can resolve (a relative error r moves an expected count N·p by N·p·r).
LAW_TOLERANCE = 1e-8
GRID_POINTS = 20001
GRID_SCALES = 40.0
#: Nodes of the gap's convolution integral, in g and in z (a double integral: fewer nodes each).
GAP_GRID_POINTS = 4001


class Law(StrEnum):
    """Which kind of law a candidate is."""

    FAMILY = "family"
    REUSED = "reused query noise"
    UNNOISED = "release without noise"
    FRESH = "threshold drawn afresh per query"
    ROUNDED = "continuous Laplace rounded to the integers"


@dataclass(frozen=True)
class Candidate:
    """A law the samples may come from: ``mech`` (the family member it starts from) and ``law``."""

    label: str
    mech: SparseVector
    law: Law = Law.FAMILY

    def describe(self) -> str:
        m = self.mech
        base = (f"threshold {m.threshold_noise.describe()}, queries {m.query_noise.describe()}, "
                f"cutoff {'unlimited' if m.cutoff is None else m.cutoff}, threshold {m.threshold_policy.value}, "
                f"release {m.release.value}" + (f" {m.release_noise.describe()}" if m.release_noise is not None else ""))
        if m.is_discrete:  # the threshold is one of the integer-code bugs (off by one)
            base = f"t = {m.threshold}, " + base
        if self.law is Law.REUSED:
            return base.replace(f"queries {m.query_noise.describe()}", f"one query noise {m.query_noise.describe()} reused for every query")
        if self.law is Law.UNNOISED:
            return base.replace(f"release {m.release.value}", "release q_i without noise")
        if self.law is Law.FRESH:
            return base.replace(f"threshold {m.threshold_policy.value}", "threshold drawn afresh for every query")
        if m.compare.value != "ge":
            base += f", compare {m.compare.value}"
        if self.law is Law.ROUNDED:
            return re.sub(r"DLap\(([^)]*)\)", r"round(Lap(\1))", base)
        return base

    def key(self) -> tuple:
        """Candidates with the same key have the same law (labels aside)."""
        m = self.mech
        policy = ThresholdPolicy.SHARED if m.cutoff == 1 or self.law is Law.FRESH else m.threshold_policy
        rel = m.release if self.law is not Law.UNNOISED else "unnoised"
        return (self.law, m.threshold_noise, m.query_noise, m.cutoff, policy, rel, m.release_noise, m.compare, m.threshold)


def letters_only(mech: SparseVector) -> SparseVector:
    return mech.with_changes(release=Release.NONE, release_spec=None) if mech.releases_values else mech


def reuse_supported(mech: SparseVector) -> bool:
    """`Law.REUSED` is computed for Laplace (or no) noise, a shared threshold and no release."""
    laplace_or_none = all(n.is_none or isinstance(n.law, Laplace) for n in (mech.threshold_noise, mech.query_noise))
    return laplace_or_none and mech.threshold_policy is ThresholdPolicy.SHARED and not mech.releases_values


def _laplace_cdf(w: float, a: float) -> float:
    return 0.5 * math.exp(w / a) if w < 0 else 1 - 0.5 * math.exp(-w / a)


def reused_cdf(w: float, a: float, b: float) -> float:
    """F_W(w) = Pr[Z - X <= w] for Z ~ Lap(a), X ~ Lap(b) (module docstring); a or b may be 0 (no noise)."""
    if math.isinf(w):
        return 1.0 if w > 0 else 0.0
    if a == 0 and b == 0:
        return 1.0 if w >= 0 else 0.0
    if a == 0 or b == 0:
        return _laplace_cdf(w, a or b)
    x = abs(w)
    if abs(a - b) <= 1e-9 * max(a, b):
        tail = 0.5 * (1 + x / (2 * a)) * math.exp(-x / a)
    else:
        tail = (a * a * math.exp(-x / a) - b * b * math.exp(-x / b)) / (2 * (a * a - b * b))
    return 1 - tail if w >= 0 else tail


def _reused_law(mech: SparseVector, q: Sequence[float]) -> dict[str, float]:
    t = float(mech.threshold)
    a, b = float(mech.threshold_noise.scale), float(mech.query_noise.scale)
    out = {}
    for s in mech.outputs(len(q)):
        lo = max((q[i] - t for i, ch in enumerate(s) if ch == "B"), default=-math.inf)
        hi = min((q[i] - t for i, ch in enumerate(s) if ch == "A"), default=math.inf)
        out[s] = max(reused_cdf(hi, a, b) - reused_cdf(lo, a, b), 0.0) if hi > lo else 0.0
    return out


def _fresh_laws(mech: SparseVector, rows: tuple[tuple[float, ...], ...]) -> list[dict[str, float]]:
    """`Law.FRESH`: a new threshold noise Z_i for every query, so the answers are independent until the c-th A:
    Pr[o] = Π_i Pr[A at q_i]^[o_i = A] Pr[B at q_i]^[o_i = B], Pr[A at q] the one-query law of the family member."""
    one = letters_only(mech).with_changes(cutoff=1)
    singles = sorted({x for r in rows for x in r})
    p_a = dict(zip(singles, (d.get("A", 0.0) for d in _family_laws(one, tuple((x,) for x in singles)))))
    out = []
    for q in rows:
        law = {}
        for s in mech.outputs(len(q)):
            prob = 1.0
            for x, ch in zip(q, s):
                prob *= p_a[x] if ch == "A" else 1.0 - p_a[x]
            law[s] = prob
        out.append(law)
    return out


@lru_cache(maxsize=1024)
def _family_laws(mech: SparseVector, rows: tuple[tuple[float, ...], ...]) -> tuple[dict[str, float], ...]:
    """One fast-path call per query length (the path is vectorised over rows); noise on ℤ: the exact
    discrete engine (`verify.audit.discrete_laws.engine_laws`)."""
    if mech.is_discrete:
        return tuple(engine_laws(mech, rows))
    out: list[dict[str, float] | None] = [None] * len(rows)
    for k in sorted({len(r) for r in rows}):
        idx = [i for i, r in enumerate(rows) if len(r) == k]
        logp, outs, _ = fast_log_distribution(mech, np.array([rows[i] for i in idx]), tolerance=LAW_TOLERANCE)
        for j, i in enumerate(idx):
            out[i] = dict(zip(outs, np.exp(logp[j]).tolist()))
    return tuple(out)


def letter_laws(cand: Candidate, rows: Sequence[Sequence[float]]) -> list[dict[str, float]]:
    """Pr of every outcome string at each query vector of ``rows`` under ``cand``."""
    qs = tuple(tuple(float(x) for x in r) for r in rows)
    if cand.law is Law.REUSED:
        return [_reused_law(cand.mech, q) for q in qs]
    if cand.law is Law.FRESH:
        return _fresh_laws(cand.mech, qs)
    if cand.law is Law.ROUNDED:
        return rounded_laws(letters_only(cand.mech), qs)
    return [dict(d) for d in _family_laws(letters_only(cand.mech), qs)]


#: Nodes of the quadrature of `grid_letter_laws` (plus every kink).
FIT_GRID_POINTS = 4001


def grid_letter_laws(cand: Candidate, rows: Sequence[Sequence[float]]) -> list[dict[str, float]]:
    """The letters' law by the trapezoidal rule in z, for ranking candidates (`verify.audit.fit`).

    Pr[o] = Π_segments ∫ f_Z(z) Π_{i in segment} P_i(z) dz with P_i(z) = Pr[X_i >= t + z - q_i] for an A
    and Pr[X_i < t + z - q_i] for a B; one segment for a shared threshold, a new one after every A
    when it is resampled.  Nodes: `FIT_GRID_POINTS` over ±`GRID_SCALES` scales of Z plus every kink
    z = q_i - t.  An estimate (about 1e-4 relative for continuous noise, 1e-2 without query noise, tested
    against the fast path),
    used only to rank candidates; the claimed law's tests use the fast path."""
    if cand.law in (Law.REUSED, Law.FRESH, Law.ROUNDED):
        return letter_laws(cand, rows)  # exact already
    if cand.mech.is_discrete:  # a sum over the integers, no quadrature: one vectorised window per row
        mech = letters_only(cand.mech)
        return [dict(_window_row(mech, tuple(float(x) for x in r))) for r in rows]
    return [dict(_grid_row(cand.mech, tuple(float(x) for x in r))) for r in rows]


@lru_cache(maxsize=8192)
def _window_row(mech: SparseVector, row: tuple[float, ...]) -> dict[str, float]:
    """`window_laws` at one row, remembered: the fit and the sensitive rows ask for the same rows again (callers copy)."""
    return window_laws(mech, [row])[0]


@lru_cache(maxsize=8192)
def _grid_row(mech: SparseVector, row: tuple[float, ...]) -> dict[str, float]:
    """`grid_letter_laws` of a family member at one row (its docstring), remembered per (mechanism, row): the
    sensitive rows' choice (`verify.audit.sensitive`) and the fit (`verify.audit.fit`) ask for the same laws
    again within an audit and across audits of one claim (callers copy the dict)."""
    t = float(mech.threshold)
    zn, xn = mech.threshold_noise, mech.query_noise
    resample = mech.threshold_policy is ThresholdPolicy.RESAMPLE
    q = np.asarray(row, dtype=float)
    if zn.is_none:
        z, w = np.zeros(1), np.ones(1)
    else:
        z = _grid(0.0, list(q - t) + [0.0], float(zn.scale), FIT_GRID_POINTS)
        if not zn.law.two_sided:
            z = z[z >= 0]  # the density jumps at 0: integrate over its support only
        h = np.diff(z)
        w = np.concatenate([[h[0] / 2], (h[:-1] + h[1:]) / 2, [h[-1] / 2]]) * zn.pdf(z)
        w = w / w.sum()  # Z's mass is 1 (its tails beyond the window are below e^-40): the rule's own error cancels
    below = xn.cdf_below(t + z[None, :] - q[:, None]) if not xn.is_none else (t + z[None, :] - q[:, None] > 0).astype(float)
    return prefix_products(mech.outputs(len(q)), below, 1.0 - below, w, resample)


def letter_law(cand: Candidate, queries: Sequence[float]) -> dict[str, float]:
    """Pr of every outcome string at ``queries`` under ``cand``."""
    return letter_laws(cand, [queries])[0]


def _grid(centre: float, kinks: Sequence[float], scale: float, points: int = GRID_POINTS) -> np.ndarray:
    g = np.linspace(centre - GRID_SCALES * scale, centre + GRID_SCALES * scale, points)
    return np.union1d(g, np.asarray(kinks, dtype=float))


def _density(mech: SparseVector, q: float) -> tuple[np.ndarray, np.ndarray]:
    """Nodes and p(A, v) at one query (module docstring)."""
    t = float(mech.threshold)
    zn, xn = mech.threshold_noise, mech.query_noise
    rule = mech.release_rule  # its attributes (`verify.release.protocol`), never its name
    if rule.constant is Role.RELEASE:  # an independent Y: Pr[A]·f_Y(v - q)
        yn = mech.release_noise
        v = _grid(q, [q], float(yn.scale))
        return v, letter_law(Candidate("", mech), [q]).get("A", 0.0) * yn.pdf(v - q)
    scale = max(float(zn.scale), float(xn.scale))
    if rule.caps_threshold:  # v = q + X: f_X(v - q)·Pr[Z <= v - t]
        v = _grid(q, [q, t], scale)
        below = 1.0 - zn.cdf_below(t - v) if zn.is_none else zn.cdf_below(v - t)
        return v, xn.pdf(v - q) * below
    # the gap g >= 0 (a density of X inside the threshold integral): ∫ f_Z(z) f_X(g + t + z - q) dz
    g = _grid(max(q - t, 0.0), [0.0, q - t], scale, GAP_GRID_POINTS)
    g = g[g >= 0]
    if zn.is_none:
        return g, xn.pdf(g + t - q)
    z = _grid(0.0, [0.0, q - t], float(zn.scale), GAP_GRID_POINTS)
    fz = zn.pdf(z)
    w = np.diff(z)
    dens = np.empty_like(g)
    for j in range(0, len(g), 512):  # bounded memory: 512 x |z| at a time
        f = fz * xn.pdf(g[j:j + 512, None] + t + z - q)
        dens[j:j + 512] = np.sum((f[:, 1:] + f[:, :-1]) * w / 2, axis=1)
    return g, dens


def _cumulative(v: np.ndarray, dens: np.ndarray) -> np.ndarray:
    return np.concatenate([[0.0], np.cumsum((dens[1:] + dens[:-1]) * np.diff(v) / 2)])


#: Released-value laws remembered (`value_law`): at most 2 arrays of about `GRID_POINTS` floats each, so 64
#: entries hold at most about 20 MB; one audit of a releasing claim asks for about 2 per candidate of its fit.
VALUE_LAW_CACHE = 64


@lru_cache(maxsize=VALUE_LAW_CACHE)
def value_law(mech: SparseVector, q: float) -> tuple[np.ndarray, np.ndarray]:
    """The nodes v and the trapezoidal cumulative mass ∫ p(A, u) du up to each node (`_density`) at one query,
    remembered per (mechanism, q): an audit asks for them at each side of its release pair for the bins' edges,
    the exact law and the grid error, and its fit once per candidate and ranking (read-only arrays)."""
    v, dens = _density(mech, q)
    cum = _cumulative(v, dens)
    v.flags.writeable = False
    cum.flags.writeable = False
    return v, cum


def release_cells(cand: Candidate, q: float, inner_edges: np.ndarray) -> tuple[np.ndarray, float]:
    """(Pr[B], Pr[A, v in bin 1], ..., Pr[A, v in bin J]) at the one-query pair ``q``, bins cut at
    ``inner_edges`` (bin j is (e_{j-1}, e_j]), and the grid's relative error estimate."""
    law = letter_law(cand, [q])
    p_a, p_b = law.get("A", 0.0), law.get("B", 0.0)
    if cand.law is Law.UNNOISED:
        cells = np.zeros(len(inner_edges) + 2)
        cells[0] = p_b
        cells[1 + int(np.searchsorted(inner_edges, q, side="left"))] = p_a
        return cells, 0.0
    v, cum = value_law(cand.mech, q)
    total = cum[-1]
    at = np.interp(inner_edges, v, cum, left=0.0, right=total)
    mass = np.diff(np.concatenate([[0.0], at, [total]]))
    err = abs(total - p_a) / p_a if p_a > 0 else 0.0
    scaled = mass / total * p_a if total > 0 else mass
    return np.concatenate([[p_b], np.maximum(scaled, 0.0)]), err


def release_edges(cand: Candidate, q: float, bins: int) -> np.ndarray:
    """The ``bins - 1`` inner edges cutting the released value's conditional law at ``q`` into equal masses."""
    v, cum = value_law(cand.mech, q)
    levels = cum[-1] * np.arange(1, bins) / bins
    return np.interp(levels, cum, v)
