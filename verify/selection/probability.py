"""Exact probabilities of Report Noisy Max, in mpmath at any precision (docs/selection.md).

With effective scores s (q, or −q for ``min``; `ReportNoisyMax.effective_scores`), noise density p and
F(x) = Pr[X < x], conditioning on the winner's noisy score z = s_i + X_i:

* index:  Pr[i] = ∫ p(z − s_i) Π_{j≠i} F(z − s_j) dz;
* value:  the density of max_j (s_j + X_j) at v is Σ_i p(v − s_i) Π_{j≠i} F(v − s_j) (no integral);
* gap:    the density of (i, g), g > 0 the gap to the runner-up, conditions on the runner-up's noisy
  score r: Σ_{j≠i} ∫ p(r − s_j) p(r + g − s_i) Π_{l≠i,j} F(r − s_l) dr.

A tie has probability 0 (continuous noise).  The integrals run under `MPMATH_LOCK` at the caller's
digits plus guard digits, with mpmath's tanh-sinh quadrature split at every kink of the integrand
(the points s_j, and s_i − g for the gap) and started at the support's lower end (max s for
exponential noise); the quadrature's own error estimate must be below 10^-(digits+1) of the value,
else the degree is raised, else a recomputation at 10 more digits must agree, else `ArithmeticError`.  Closed forms (`closed_forms`) check these.

The product Π F(z − s_j) is evaluated once per distinct score, raised to its multiplicity (tied scores), and for a
piecewise exponential family (Laplace, exponential) with one exponential per node: e^{−(z − s_j)/b} = w·c_j,
w = e^{−z/b}, c_j = e^{s_j/b} (`NoiseFamily.mp_cdf_u`), as `verify.oracles.seed` does for the Sparse Vector
Technique; the same factors, k exponentials fewer per node.  For Gumbel noise the product is exp(−w·Σ_j c_j).

The index integrand p(z − s_i) Π_{j≠i} F(z − s_j) of those three families (`_index_integrand`) draws the density from
the same w (p(z − s_i) = w·c_i/(2b) or 1/(2b·w·c_i) for Laplace, w·c_i/b for exponential noise, (c_i/b)·w·e^{−w·c_i} for
Gumbel) and the Laplace factors above z as 2^{−M}·e^{−S/b}·w^{−M}: one exponential per node (two for Gumbel) instead
of k + 1.  It runs in mpmath's raw arithmetic (`mpmath.libmp`: mpf_mul, mpf_exp, ... at the working precision, rounding
to nearest, as the mpf operators do) to skip the mpf wrappers' overhead; the quadrature around it is unchanged.  The
50-digit values of tests/test_rnm_enclosure.py's query vectors agree with the former integrand to 60 digits.
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
from mpmath.libmp import fone, mpf_div, mpf_exp, mpf_mul, mpf_pow_int, mpf_sub, round_nearest

from verify.engine.relative_quad import relative_piece
from verify.errors import InputError
from verify.exact import to_fraction
from verify.noise.exponential import Exponential
from verify.noise.gumbel import Gumbel
from verify.noise.laplace import Laplace
from verify.precision import MPMATH_LOCK, check_digits
from verify.selection.discrete import mp_discrete_index_probabilities
from verify.selection.model import ReportNoisyMax, SelectionOutput, TieRule

#: Guard digits of the quadrature.
GUARD = 10
#: The rounding of the integrands' raw arithmetic (module docstring): mpmath's default, so each operation rounds as the
#: same operation on mpf numbers does; `_MAKE` wraps the raw result as an mpf.
_RND = round_nearest
_MAKE = mpmath.mp.make_mpf


@dataclass(frozen=True)
class SelectionOutcome:
    """One outcome: an index (``index``), a value (``value``), or an index with its gap (``gap``)."""

    kind: SelectionOutput
    index: int | None = None
    value: Fraction | None = None

    def describe(self) -> str:
        if self.kind is SelectionOutput.INDEX:
            return f"index {self.index + 1}"
        if self.kind is SelectionOutput.VALUE:
            return f"value {self.value}"
        return f"index {self.index + 1} with gap {self.value}"

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind.value, "index": None if self.index is None else self.index + 1,
                "value": None if self.value is None else str(self.value)}


def _mpf(x: Any) -> Any:
    """An exact number (Fraction, int, decimal text) or an mpf, as an mpf at the working precision."""
    if isinstance(x, mpmath.mpf):
        return +x
    x = to_fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


def _quad(f: Callable[[Any], Any], points: Sequence[Any], dps: int, width: Any) -> Any:
    """∫ f over the consecutive intervals of ``points`` (±inf allowed), to dps digits; a finite interval
    longer than ``width`` (4b: the integrand changes by at most e^{4k} there) is cut into pieces."""
    ends = sorted(set(points))
    if len(ends) < 2:
        return mpmath.mpf(0)
    if mpmath.isinf(ends[-1]) and mpmath.isfinite(ends[-2]):
        # a finite piece before +inf: the last finite end can be a zero of the integrand (exponential noise at max s),
        # and `relative_piece` scales by the values at its finite ends and midpoint: [e, e + width] has a midpoint
        ends.insert(-1, ends[-2] + width)
    pts = [ends[0]]
    for x in ends[1:]:
        last = pts[-1]
        if mpmath.isfinite(last) and mpmath.isfinite(x) and x - last > width:
            n = int(mpmath.ceil((x - last) / width))
            pts.extend(last + (x - last) * m / n for m in range(1, n))
        pts.append(x)
    total = mpmath.mpf(0)
    for a, c in zip(pts, pts[1:]):
        total += relative_piece(f, a, c, dps, GUARD)
    return total


def _cdf_product(law: Any, scores: Sequence[Any], b: Any) -> Callable[[Any], Any]:
    """z ↦ Π_j F(z − s_j) over the multiset ``scores``: one factor per distinct score raised to its multiplicity,
    and for a piecewise exponential family each factor from u = w·c_j (module docstring); 0 as soon as a factor is."""
    groups = sorted(Counter(scores).items(), reverse=True)  # highest score first: the first to give F = 0
    if isinstance(law, Gumbel):
        return _gumbel_product(groups, 1 / b)
    if not law.piecewise:
        return lambda z: _powers_product((law.mp_cdf(z - sj, b), m) for sj, m in groups)
    rate = 1 / b
    if isinstance(law, Laplace):
        return _laplace_product(groups[::-1], rate)
    if isinstance(law, Exponential):
        return _exponential_product(groups, rate)
    terms = [(sj, mpmath.exp(sj * rate), m) for sj, m in groups]

    def product_u(z: Any) -> Any:
        w = mpmath.exp(-z * rate)
        return _powers_product((law.mp_cdf_u(z - sj, w * cj), m) for sj, cj, m in terms)
    return product_u


def _powers_product(factors: Iterable[tuple[Any, int]]) -> Any:
    """Π f^m over (f, m), the factors drawn one at a time: the first f = 0 is returned as it is (no later factor
    is computed)."""
    v = mpmath.mpf(1)
    for f, m in factors:
        if f == 0:
            return f
        v *= f if m == 1 else f ** m
    return v


def _gumbel_product(groups: Sequence[tuple[Any, int]], rate: Any) -> Callable[[Any], Any]:
    """Π_j F(z − s_j) for Gumbel noise, F(y) = exp(−e^{−y/b}): exp(−e^{−z/b}·T), T = Σ_j m_j·e^{s_j/b} over the distinct
    scores s_j with multiplicities m_j (two exponentials per node; every term of T is positive)."""
    total = mpmath.fsum(m * mpmath.exp(sj * rate) for sj, m in groups)

    def product(z: Any) -> Any:
        return mpmath.exp(-mpmath.exp(-z * rate) * total)
    return product


def _exponential_product(groups: Sequence[tuple[Any, int]], rate: Any) -> Callable[[Any], Any]:
    """Π_j F(z − s_j) for exponential noise, ``groups`` the distinct scores descending with their multiplicities: 0 at or
    below the highest score, else Π (1 − w·c_j)^{m_j}, w = e^{−z/b}, c_j = e^{s_j/b} (u = w·c_j < 1; for u >= ½ the
    subtraction 1 − u is exact, Sterbenz's lemma, so no digit is lost near a kink beyond u's own rounding)."""
    top = groups[0][0] if groups else None
    terms = [(mpmath.exp(sj * rate), m) for sj, m in groups]

    def product(z: Any) -> Any:
        if top is not None and z <= top:
            return mpmath.mpf(0)
        w = mpmath.exp(-z * rate)
        v = mpmath.mpf(1)
        for c, m in terms:
            f = 1 - w * c
            v *= f if m == 1 else f ** m
        return v
    return product


def _laplace_product(groups: Sequence[tuple[Any, int]], rate: Any) -> Callable[[Any], Any]:
    """Π_j F(z − s_j) for Laplace noise, ``groups`` the distinct scores ascending with their multiplicities: the
    scores above z give Π (½e^{(z − s_j)/b})^{m_j} = 2^{−M}·e^{(M·z − S)/b} (M = Σ m_j, S = Σ m_j·s_j over them: one
    exponential), the scores at or below z give Π (1 − w·c_j/2)^{m_j}, w = e^{−z/b}, c_j = e^{s_j/b}; each factor is in
    [½, 1] (no cancellation)."""
    ends = [sj for sj, _ in groups]
    halves = [mpmath.exp(sj * rate) / 2 for sj, _ in groups]
    mult = [m for _, m in groups]
    above = []  # for p = 0..n: (M, S·rate, 2^{−M}) over groups[p:]
    big_m, big_s = 0, mpmath.mpf(0)
    for sj, m in reversed(groups):
        above.append((big_m, big_s * rate, mpmath.mpf(2) ** -big_m))
        big_m, big_s = big_m + m, big_s + m * sj
    above.append((big_m, big_s * rate, mpmath.mpf(2) ** -big_m))
    above.reverse()

    def product(z: Any) -> Any:
        p = bisect_right(ends, z)  # groups[:p] at or below z
        m_up, s_up, two = above[p]
        v = two * mpmath.exp(m_up * z * rate - s_up) if m_up else mpmath.mpf(1)
        if p:
            w = mpmath.exp(-z * rate)
            for h, m in zip(halves[:p], mult[:p]):
                f = 1 - w * h
                v *= f if m == 1 else f ** m
        return v
    return product


def _floor(mech: ReportNoisyMax, s: Sequence[Any], dps: int) -> Any:
    """The lower end of the integration: max s for a one-sided family (every F(z − s_j) is 0 below it),
    −inf for Laplace; for Gumbel noise the integrand is exp(−e^{−z/b}·T)·(a single exponential) with
    T = Σ_j e^{s_j/b} over the scores in the product, and it is cut where e^{−z/b}·T = L,
    L = (dps + 5)·ln 10 + 10: what lies below is at most (1 + L)e^{−L} of the whole (`Gumbel.left_cut`; for the gap the product
    also holds p(r + g − s_i), whose shift s_i − g joins T)."""
    law = mech.law
    if not law.two_sided:
        return max(s)
    if isinstance(law, Gumbel):
        return law.left_cut(s, _mpf(mech.b), dps)
    return -mpmath.inf


def _kinks(mech: ReportNoisyMax, s: Sequence[Any], dps: int, extra: Sequence[Any] = ()) -> list[Any]:
    """Integration breakpoints: every score (where F or p of that score changes branch), the lower end
    (`_floor`) and +inf."""
    lo = _floor(mech, s, dps)
    inner = [x for x in (*s, *extra) if x > lo]
    return [lo, *inner, mpmath.inf]


def mp_index_probability(mech: ReportNoisyMax, queries: Sequence[object], index: int, digits: int = 30) -> Any:
    """Pr[the reported index is ``index``] (0-based), to ``digits`` digits."""
    return mp_index_probabilities(mech, queries, digits, only=index)[0]


def mp_index_probabilities(mech: ReportNoisyMax, queries: Sequence[object], digits: int = 30,
                           only: int | None = None) -> list[Any]:
    """Pr[i] for every i (or for ``only``), to ``digits`` digits: ∫ p(z − s_i) Π_{j≠i} F(z − s_j) dz."""
    check_digits(digits)
    qs = mech.check_queries(queries)
    which = range(len(qs)) if only is None else [_index(only, len(qs))]
    law = mech.law
    if law.discrete:  # a sum over ℤ with the tie rule (verify.selection.discrete)
        s_int = [int(x) for x in mech.effective_scores(qs)]
        return mp_discrete_index_probabilities(law, s_int, mech.b, digits, list(which), mech.ties is TieRule.FIRST)
    with MPMATH_LOCK, mpmath.workdps(digits + GUARD):
        dps = digits + GUARD
        b = _mpf(mech.b)
        s = [_mpf(x) for x in mech.effective_scores(qs)]
        return [_quad(_index_integrand(law, s, i, b), _kinks(mech, s, dps), dps, 4 * b) for i in which]


def _index_integrand(law: Any, s: Sequence[Any], i: int, b: Any) -> Callable[[Any], Any]:
    """z ↦ p(z − s_i) Π_{j≠i} F(z − s_j).  For Laplace, exponential and Gumbel noise every factor is drawn from the one
    exponential w = e^{−z/b} (`_laplace_integrand`, `_exponential_integrand`, `_gumbel_integrand`); otherwise the
    density times `_cdf_product`."""
    rest = list(s[:i]) + list(s[i + 1:])
    rate = 1 / b
    if isinstance(law, Laplace):
        return _laplace_integrand(sorted(Counter(rest).items()), s[i], rate)
    if isinstance(law, Exponential):
        return _exponential_integrand(sorted(Counter(rest).items(), reverse=True), s[i], rate)
    if isinstance(law, Gumbel):
        return _gumbel_integrand(sorted(Counter(rest).items(), reverse=True), s[i], rate)
    product = _cdf_product(law, rest, b)

    def f(z: Any) -> Any:
        v = law.mp_pdf(z - s[i], b)
        return v * product(z) if v != 0 else v
    return f


def _laplace_integrand(groups: Sequence[tuple[Any, int]], si: Any, rate: Any) -> Callable[[Any], Any]:
    """Laplace noise, ``groups`` the other scores ascending with their multiplicities, w = e^{−z/b}, c_j = e^{s_j/b}:
    p(z − s_i) = w·c_i/(2b) for z >= s_i and 1/(2b·w·c_i) below; the scores above z give
    2^{−M}·e^{−S/b}·w^{−M} (M = Σ m_j, S = Σ m_j·s_j over them); those at or below z give Π (1 − w·c_j/2)^{m_j},
    each factor in [½, 1] (no cancellation).  One exponential per node (module docstring)."""
    ends = [sj for sj, _ in groups]
    halves = [(mpmath.exp(sj * rate) / 2)._mpf_ for sj, _ in groups]
    mult = [m for _, m in groups]
    ci = mpmath.exp(si * rate)
    up, down = (ci * rate / 2)._mpf_, (rate / (2 * ci))._mpf_
    above = []  # for p = 0..n: (M, 2^{−M}·e^{−S/b}) over groups[p:]
    big_m, big_s = 0, mpmath.mpf(0)
    for sj, m in reversed(groups):
        above.append((big_m, (mpmath.exp(-big_s * rate) * mpmath.mpf(2) ** -big_m)._mpf_))
        big_m, big_s = big_m + m, big_s + m * sj
    above.append((big_m, (mpmath.exp(-big_s * rate) * mpmath.mpf(2) ** -big_m)._mpf_))
    above.reverse()
    neg_rate = (-rate)._mpf_

    def f(z: Any) -> Any:
        prec = mpmath.mp.prec
        w = mpf_exp(mpf_mul(z._mpf_, neg_rate, prec, _RND), prec, _RND)
        v = mpf_mul(w, up, prec, _RND) if z >= si else mpf_div(down, w, prec, _RND)
        p = bisect_right(ends, z)  # groups[:p] at or below z
        m_up, coef = above[p]
        if m_up:
            v = mpf_mul(v, mpf_div(coef, mpf_pow_int(w, m_up, prec, _RND), prec, _RND), prec, _RND)
        for h, m in zip(halves[:p], mult[:p]):
            g = mpf_sub(fone, mpf_mul(w, h, prec, _RND), prec, _RND)
            v = mpf_mul(v, g if m == 1 else mpf_pow_int(g, m, prec, _RND), prec, _RND)
        return _MAKE(v)
    return f


def _exponential_integrand(groups: Sequence[tuple[Any, int]], si: Any, rate: Any) -> Callable[[Any], Any]:
    """Exponential noise, ``groups`` the other scores descending with their multiplicities: 0 below s_i or at or below
    the highest other score, else (w·c_i/b)·Π (1 − w·c_j)^{m_j}, w = e^{−z/b}, c_j = e^{s_j/b} (`_exponential_product`).
    One exponential per node (module docstring)."""
    top = groups[0][0] if groups else None
    terms = [(mpmath.exp(sj * rate)._mpf_, m) for sj, m in groups]
    ci = (mpmath.exp(si * rate) * rate)._mpf_
    neg_rate = (-rate)._mpf_

    def f(z: Any) -> Any:
        if z < si or (top is not None and z <= top):
            return mpmath.mpf(0)
        prec = mpmath.mp.prec
        w = mpf_exp(mpf_mul(z._mpf_, neg_rate, prec, _RND), prec, _RND)
        v = mpf_mul(w, ci, prec, _RND)
        for c, m in terms:
            g = mpf_sub(fone, mpf_mul(w, c, prec, _RND), prec, _RND)
            v = mpf_mul(v, g if m == 1 else mpf_pow_int(g, m, prec, _RND), prec, _RND)
        return _MAKE(v)
    return f


def _gumbel_integrand(groups: Sequence[tuple[Any, int]], si: Any, rate: Any) -> Callable[[Any], Any]:
    """Gumbel noise, F(y) = exp(−e^{−y/b}), p(y) = (1/b)·e^{−y/b}·exp(−e^{−y/b}): with w = e^{−z/b} and c_j = e^{s_j/b},
    p(z − s_i) Π_{j≠i} F(z − s_j) = (c_i/b)·w·exp(−w·(c_i + T)), T = Σ_{j≠i} m_j·c_j.  Two exponentials per node
    (module docstring)."""
    ci = mpmath.exp(si * rate)
    neg_total = (-(ci + mpmath.fsum(m * mpmath.exp(sj * rate) for sj, m in groups)))._mpf_
    lead = (ci * rate)._mpf_
    neg_rate = (-rate)._mpf_

    def f(z: Any) -> Any:
        prec = mpmath.mp.prec
        w = mpf_exp(mpf_mul(z._mpf_, neg_rate, prec, _RND), prec, _RND)
        e = mpf_exp(mpf_mul(w, neg_total, prec, _RND), prec, _RND)
        return _MAKE(mpf_mul(mpf_mul(lead, w, prec, _RND), e, prec, _RND))
    return f


def mp_value_density(mech: ReportNoisyMax, queries: Sequence[object], value: object, digits: int = 30) -> Any:
    """The density of the released maximum at ``value``: Σ_i p(v − s_i) Π_{j≠i} F(v − s_j)."""
    check_digits(digits)
    qs = mech.check_queries(queries)
    law = mech.law
    with MPMATH_LOCK, mpmath.workdps(digits + GUARD):
        b = _mpf(mech.b)
        v = _mpf(value)
        s = [_mpf(x) for x in mech.effective_scores(qs)]
        total = mpmath.mpf(0)
        for i, si in enumerate(s):
            term = law.mp_pdf(v - si, b)
            for j, sj in enumerate(s):
                if j != i and term != 0:
                    term *= law.mp_cdf(v - sj, b)
            total += term
        return total


def mp_gap_density(mech: ReportNoisyMax, queries: Sequence[object], index: int, gap: object, digits: int = 30) -> Any:
    """The density of (index, gap): Σ_{j≠i} ∫ p(r − s_j) p(r + g − s_i) Π_{l≠i,j} F(r − s_l) dr (g > 0)."""
    check_digits(digits)
    qs = mech.check_queries(queries)
    i = _index(index, len(qs))
    if not (gap > 0):
        raise InputError(f"gap: {gap} must be > 0 (the winner's lead over the runner-up)")
    if len(qs) < 2:
        raise InputError("gap: needs at least two scores (a runner-up)")
    law = mech.law
    with MPMATH_LOCK, mpmath.workdps(digits + GUARD):
        dps = digits + GUARD
        b, gm = _mpf(mech.b), _mpf(gap)
        s = [_mpf(x) for x in mech.effective_scores(qs)]
        total = mpmath.mpf(0)
        for j in range(len(s)):
            if j == i:
                continue

            rest = _cdf_product(law, [x for m, x in enumerate(s) if m not in (i, j)], b)

            def f(r: Any, j: int = j, rest: Callable[[Any], Any] = rest) -> Any:
                v = law.mp_pdf(r - s[j], b) * law.mp_pdf(r + gm - s[i], b)
                return v * rest(r) if v != 0 else v
            others = [x for m, x in enumerate(s) if m != i]
            lo = max(max(others), s[i] - gm) if not law.two_sided else _floor(mech, [*others, s[i] - gm], dps)
            pts = [lo, *[x for x in (*others, s[i] - gm) if x > lo], mpmath.inf]
            total += _quad(f, pts, dps, 4 * b)
        return total


def mp_outcome(mech: ReportNoisyMax, queries: Sequence[object], outcome: SelectionOutcome, digits: int = 30) -> Any:
    """The probability (index) or density (value, gap) of ``outcome``."""
    if outcome.kind is not mech.output:
        raise InputError(f"outcome: {outcome.kind.value} is not what {mech.name} releases ({mech.output.value})")
    if outcome.kind is SelectionOutput.INDEX:
        return mp_index_probability(mech, queries, outcome.index, digits)
    if outcome.kind is SelectionOutput.VALUE:
        return mp_value_density(mech, queries, outcome.value, digits)
    return mp_gap_density(mech, queries, outcome.index, outcome.value, digits)


def mp_log_ratio(mech: ReportNoisyMax, queries: Sequence[object], neighbour: Sequence[object],
                 outcome: SelectionOutcome, digits: int = 50) -> Any:
    """log P(outcome | q) − log P(outcome | q'), ±inf where exactly one side is 0, 0 where both are."""
    with MPMATH_LOCK, mpmath.workdps(digits + GUARD):
        a = mp_outcome(mech, queries, outcome, digits)
        c = mp_outcome(mech, neighbour, outcome, digits)
        if a == 0 and c == 0:
            return mpmath.mpf(0)
        if c == 0:
            return mpmath.inf
        if a == 0:
            return -mpmath.inf
        return mpmath.log(a) - mpmath.log(c)


def _index(i: object, k: int) -> int:
    if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < k:
        raise InputError(f"index: {i!r} must be an integer from 0 to {k - 1} (0-based) for {k} scores")
    return i
