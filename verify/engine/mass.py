"""Where a family integrand's mass lies: the window [L, R] and its panels.

Every integrand of the model (`integrand`) is **log-concave** in z:
p_Z, F_X(z - x), S_X(z - x) and p_X(z - x) are log-concave for Laplace,
exponential and Gaussian noise (a log-concave density has a log-concave
CDF and survival function: Bagnoli, Bergstrom, "Log-concave probability and
its applications", Economic Theory 26 (2005), Theorems 1 and 3), the 'none'
noise gives indicators of half-lines, the cap an indicator, and a product of
log-concave functions is log-concave.  So h = log g is concave on its
support (an interval), and:

* the mode is found by golden-section search on a bracket read off the kinks;
* the window [L, R] is where h >= h(m) - drop (m the mode found), found by
  bisection on each side;
* **the mass outside the window is bounded**: for R > m, concavity gives
  h(z) <= h(R) + (z - R)(h(R) - h(m))/(R - m) on [R, ∞) (the slope at R is at
  most the secant's), so the right tail is at most g(R)(R - m)/d with
  d = h(m) - h(R), while the chord bound h >= h(m) - d(z - m)/(R - m) on
  [m, R] gives at least g(m)(R - m)(1 - e^{-d})/d inside: tail/inside <=
  e^{-d}/(1 - e^{-d}); the same on the left.

Far-pushed queries put the mass in a narrow peak hundreds of widths away
from the kinks, so panels split only at the kinks leave tanh-sinh (and
``acb.integral`` with its default absolute tolerance) blind to it: 0.7% to 98%
error and useless balls were seen before this window existed (a follow-up,
tests/test_family_gaussian.py).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath

from verify.exact import mpf_fraction

#: Search precision (decimal digits); only locations come out of it, never values.
SEARCH_DPS = 30
_GOLDEN = (mpmath.sqrt(5) - 1) / 2


@dataclass(frozen=True)
class Segment:
    """g on (lo, hi) (None: unbounded) by a formula ``f`` valid there (an mpmath function)."""

    lo: Fraction | None
    hi: Fraction | None
    f: Callable[[Any], Any]


@dataclass(frozen=True)
class Window:
    """[lo, hi] holds the mass; ``lo_end``/``hi_end``: the support ends there (nothing beyond);
    ``tail``: a bound on (mass outside)/(mass inside) from log-concavity (module docstring)."""

    lo: Fraction
    hi: Fraction
    lo_end: bool
    hi_end: bool
    mode: Fraction
    log_peak: mpmath.mpf
    tail: mpmath.mpf


def _mp(x: Fraction | None) -> Any:
    return None if x is None else mpmath.mpf(x.numerator) / x.denominator


def _as_fraction(x: Any) -> Fraction:
    """x as an exact rational (an mpf is m·2^e): a float would round z = 1e25 to 2^-53 of itself,
    wider than the whole window there (the window's ends need not be exact, only rational)."""
    if isinstance(x, mpmath.mpf) and mpmath.isfinite(x):
        return mpf_fraction(x)
    return Fraction(float(x))


class _LogG:
    """h(z) = log g(z) on the support (-inf outside), evaluated at `SEARCH_DPS`."""

    def __init__(self, segments: Sequence[Segment]) -> None:
        self.segments = list(segments)
        self.lo = segments[0].lo
        self.hi = segments[-1].hi
        for a, b in zip(self.segments[:-1], self.segments[1:]):
            if a.hi != b.lo:  # a log-concave function has an interval as support
                raise ArithmeticError(f"mass window: support not an interval (gap between {a.hi} and {b.lo})")
        self.mp_lo, self.mp_hi = _mp(self.lo), _mp(self.hi)
        self.ends = [_mp(seg.hi) for seg in self.segments]

    def __call__(self, z: Any) -> Any:
        if (self.lo is not None and z < self.mp_lo) or (self.hi is not None and z > self.mp_hi):
            return mpmath.ninf
        for seg, hi in zip(self.segments, self.ends):
            if hi is None or z <= hi:
                v = seg.f(z)
                return mpmath.log(v) if v > 0 else mpmath.ninf
        return mpmath.ninf  # pragma: no cover


def locate(segments: Sequence[Segment], drop: float, step: Fraction, extra_dps: int = 0) -> Window:
    """The window where log g >= its maximum - ``drop`` (nats); ``step``: a length scale (a noise scale);
    ``extra_dps``: digits the magnitudes of z and log g take (far from 0 they are not small)."""
    with mpmath.workdps(SEARCH_DPS + extra_dps):
        h = _LogG(segments)
        s = mpmath.mpf(step.numerator) / step.denominator
        pts = sorted({_mp(x) for seg in segments for x in (seg.lo, seg.hi) if x is not None}
                     | {_inside(seg, s) for seg in segments})
        vals = [h(p) for p in pts]
        j = max(range(len(pts)), key=lambda i: vals[i])
        left = pts[j - 1] if j > 0 else _outward(h, pts[0], -s)
        right = pts[j + 1] if j + 1 < len(pts) else _outward(h, pts[-1], s)
        mode = _golden(h, left, right, s * mpmath.mpf(10) ** -6)
        peak = h(mode)
        if peak == mpmath.ninf:
            raise ArithmeticError("mass window: the integrand vanishes at every probe")
        target = peak - drop
        lo, lo_end, d_lo = _cut(h, mode, -s, target, h.lo)
        hi, hi_end, d_hi = _cut(h, mode, s, target, h.hi)
        tail = mpmath.mpf(0)
        for end, d in ((lo_end, peak - d_lo), (hi_end, peak - d_hi)):
            if not end:
                tail += mpmath.exp(-d) / -mpmath.expm1(-d)
        m = _as_fraction(mode)
        return Window(lo, hi, lo_end, hi_end, m, peak, tail)


def _inside(seg: Segment, s: Any) -> Any:
    """A probe inside the segment (its ends may be zeros of g: an exponential F at 0)."""
    if seg.lo is not None and seg.hi is not None:
        return (_mp(seg.lo) + _mp(seg.hi)) / 2
    if seg.lo is not None:
        return _mp(seg.lo) + s
    return mpmath.mpf(0) if seg.hi is None else _mp(seg.hi) - s


def _outward(h: _LogG, start: Any, s: Any) -> Any:
    """From ``start`` (the best kink, at the end of the list) step outward, doubling, until h decreases."""
    a, ha = start, h(start)
    for _ in range(200):
        b = a + s
        end = h.hi if s > 0 else h.lo
        if end is not None and (b - _mp(end)) * (1 if s > 0 else -1) >= 0:
            return _mp(end)
        hb = h(b)
        if hb < ha:
            return b
        a, ha, s = b, hb, 2 * s
    raise ArithmeticError("mass window: log-integrand increases without end (not integrable)")  # pragma: no cover


def _golden(h: _LogG, a: Any, b: Any, tol: Any) -> Any:
    """The maximiser of the concave h on [a, b] to within ``tol`` (golden-section search)."""
    c, d = b - _GOLDEN * (b - a), a + _GOLDEN * (b - a)
    hc, hd = h(c), h(d)
    for _ in range(400):
        if b - a <= tol:
            break
        if hc >= hd:
            b, d, hd = d, c, hc
            c = b - _GOLDEN * (b - a)
            hc = h(c)
        else:
            a, c, hc = c, d, hd
            d = a + _GOLDEN * (b - a)
            hd = h(d)
    return c if hc >= hd else d


def _cut(h: _LogG, mode: Any, s: Any, target: Any, end: Fraction | None) -> tuple[Fraction, bool, Any]:
    """The cut on one side of the mode: (point, is the support's end, h there)."""
    sign = 1 if s > 0 else -1
    if end is not None:
        e = _mp(end)
        if h(e) >= target:
            return end, True, h(e)
    inner, outer = mode, mode + s
    for _ in range(200):
        if end is not None and (outer - e) * sign >= 0:
            outer = e
            break
        if h(outer) < target:
            break
        inner, outer, s = outer, outer + 2 * s, 2 * s
    for _ in range(60):  # bisect; keep the outer point (h below target there)
        if abs(outer - inner) <= abs(outer - mode) * mpmath.mpf(10) ** -3:
            break
        mid = (inner + outer) / 2
        if h(mid) < target:
            outer = mid
        else:
            inner = mid
    point = _as_fraction(outer)
    if end is not None and (point - end) * sign >= 0:
        return end, True, h(e)
    return point, False, h(_mp(point))


def panels(window: Window, kinks: Sequence[Fraction], n: int) -> list[Fraction]:
    """Breakpoints of the window: n equal panels plus every kink inside (exact rationals, sorted)."""
    lo, hi = window.lo, window.hi
    pts = {lo + (hi - lo) * j / n for j in range(n + 1)}
    pts |= {k for k in kinks if lo < k < hi}
    return sorted(pts)
