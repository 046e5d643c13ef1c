"""Exact probability (or density) of one output of an SVT variant by direct mpmath quadrature.

This is the verdicts' own, deliberately plain path: one 1-D integral per
threshold segment, ``mpmath.quad`` split at every kink, at the digits asked.
It serves as the independent re-check of every witness (issue 11: "every
not_private witness re-checked by an independent path").

Formula (issue 10, "Probabilities"; seed, Proof 1, conditioning on Z): for a
segment of the run that uses one threshold draw Z (the whole run for a shared
threshold; the stretch up to and including each A for a resampled one, Lyu
Alg. 2), the answers are independent given Z = z, so

    Pr[segment] = ∫ p_Z(z) Π_{i∈B} F(t+z-q_i) Π_{i∈A} G_i(z) dz,

with F(y) = Pr[X < y], S(y) = Pr[X >= y] and, by the release rule,
G_i = S(t+z-q_i) (none), p_Y(v_i - q_i)·S(t+z-q_i) (fresh, v_i released),
p_X(v_i - q_i)·[v_i >= t+z] (query: the density of q_i + X_i at v_i on the
event), p_X(v_i + t + z - q_i)·[v_i >= 0] (gap: v_i = q_i + X_i - t - z).
Without threshold noise the integral is the integrand at z = 0.  Segments
multiply.  Kinks: z = 0 (the density of Z), z = q_i - t (F, S), z = q_i - t - v_i
(gap), the cap z <= v_i - t (query).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import mpmath

from verify.errors import InputError
from verify.exact import to_fraction
from verify.family.shape import Law, VariantShape
from verify.precision import MPMATH_LOCK


def _mp(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def _cdf_below(law: Law, y):
    """F(y) = Pr[X < y]."""
    if law.is_none:
        return mpmath.mpf(1) if y > 0 else mpmath.mpf(0)
    b = _mp(law.scale)
    if law.family == "laplace":
        return mpmath.exp(y / b) / 2 if y < 0 else 1 - mpmath.exp(-y / b) / 2
    if law.family == "exponential":
        return -mpmath.expm1(-y / b) if y > 0 else mpmath.mpf(0)
    return mpmath.erfc(-y / (b * mpmath.sqrt(2))) / 2


def _sf(law: Law, y):
    """S(y) = Pr[X >= y]."""
    if law.is_none:
        return mpmath.mpf(1) if y <= 0 else mpmath.mpf(0)
    b = _mp(law.scale)
    if law.family == "laplace":
        return 1 - mpmath.exp(y / b) / 2 if y < 0 else mpmath.exp(-y / b) / 2
    if law.family == "exponential":
        return mpmath.exp(-y / b) if y > 0 else mpmath.mpf(1)
    return mpmath.erfc(y / (b * mpmath.sqrt(2))) / 2


def _pdf(law: Law, y):
    if law.is_none:
        raise InputError("noise density: 'none' has no density")
    b = _mp(law.scale)
    if law.family == "laplace":
        return mpmath.exp(-abs(y) / b) / (2 * b)
    if law.family == "exponential":
        return mpmath.exp(-y / b) / b if y >= 0 else mpmath.mpf(0)
    return mpmath.exp(-(y / b) ** 2 / 2) / (b * mpmath.sqrt(2 * mpmath.pi))


def segments(shape: VariantShape, outcome: str) -> list[list[int]]:
    """Positions sharing one threshold draw: all of them (shared), or each stretch ending at an A (resample)."""
    if shape.policy == "shared":
        return [list(range(len(outcome)))]
    out, cur = [], []
    for i, ch in enumerate(outcome):
        cur.append(i)
        if ch == "A":
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


def check_output(shape: VariantShape, k: int, outcome: str, released: Sequence[Fraction]) -> None:
    """The rules of a complete output (issue 10): letters A/B, at most c A's and halt at the c-th, else k letters."""
    if not outcome or set(outcome) - {"A", "B"}:
        raise InputError(f"outcome: {outcome!r} must be a non-empty string of A and B")
    n_a = outcome.count("A")
    c = shape.cutoff
    if len(outcome) > k:
        raise InputError(f"outcome: {outcome!r} is longer than the k = {k} queries")
    if c is not None and n_a > c or (c is not None and n_a == c and outcome[-1] != "A"):
        raise InputError(f"outcome: {outcome!r} continues after the run halts (cutoff {c})")
    if (c is None or n_a < c) and len(outcome) != k:
        raise InputError(f"outcome: {outcome!r} must have k = {k} letters (the run halts only at the c-th A)")
    if len(released) != (n_a if shape.releases_values else 0):
        raise InputError(f"released: {len(released)} values for {n_a} A's (release {shape.release})")


def output_probability(shape: VariantShape, queries: Sequence[object], outcome: str, released: Sequence[object] = (),
                       digits: int = 30) -> mpmath.mpf:
    """Pr[A(D) = outcome] (a density in the released values when the variant releases any), to ~``digits``."""
    q = [to_fraction(x, "query") for x in queries]
    v = [to_fraction(x, "released value") for x in released]
    check_output(shape, len(q), outcome, v)
    with MPMATH_LOCK, mpmath.workdps(digits + 15):
        total = mpmath.mpf(1)
        a_index = {i: j for j, i in enumerate(i for i, ch in enumerate(outcome) if ch == "A")}
        for seg in segments(shape, outcome):
            total *= _segment(shape, q, outcome, v, a_index, seg)
            if total == 0:
                return mpmath.mpf(0)
        return +total


def _segment(shape: VariantShape, q: list[Fraction], outcome: str, v: list[Fraction], a_index: dict[int, int],
             seg: list[int]) -> mpmath.mpf:
    t = shape.threshold
    xn, zn = shape.query_noise, shape.threshold_noise
    const = mpmath.mpf(1)
    kinks: set[Fraction] = {Fraction(0)}
    cap: Fraction | None = None
    for i in seg:
        kinks.add(q[i] - t)
        if outcome[i] != "A" or not shape.releases_values:
            continue
        vi = v[a_index[i]]
        if shape.release == "fresh":
            const *= _pdf(shape.release_noise, _mp(vi - q[i]))
        elif shape.release == "query":
            const *= _pdf(xn, _mp(vi - q[i]))
            cap = vi - t if cap is None else min(cap, vi - t)
        elif shape.release == "gap":
            if vi < 0:
                return mpmath.mpf(0)
            kinks.add(q[i] - t - vi)
    if const == 0:
        return mpmath.mpf(0)

    def integrand(z):
        f = mpmath.mpf(1)
        for i in seg:
            y = _mp(t - q[i]) + z
            if outcome[i] == "B":
                f *= _cdf_below(xn, y)
            elif shape.release == "gap":
                f *= _pdf(xn, _mp(v[a_index[i]]) + y)
            elif shape.release != "query":
                f *= _sf(xn, y)
            if f == 0:
                return f
        return f

    if zn.is_none:
        if cap is not None and cap < 0:
            return mpmath.mpf(0)
        return const * integrand(mpmath.mpf(0))
    pts = sorted(k for k in kinks if cap is None or k < cap)
    hi = mpmath.inf if cap is None else _mp(cap)
    nodes = [-mpmath.inf] + [_mp(k) for k in pts] + [hi]
    if zn.family == "exponential":  # no mass below 0
        nodes = [mpmath.mpf(0)] + [x for x in nodes[1:] if x > 0]
        if len(nodes) < 2 or nodes[-1] <= 0:
            return mpmath.mpf(0)
    val = mpmath.quad(lambda z: _pdf(zn, z) * integrand(z), nodes)
    return const * val


def log_ratio(shape: VariantShape, queries, neighbour, outcome: str, released=(), digits: int = 50) -> mpmath.mpf:
    """log Pr[A(D)=o] - log Pr[A(D')=o] at ``digits`` (±inf when exactly one side is 0, 0 when both are)."""
    with MPMATH_LOCK, mpmath.workdps(digits + 15):
        p = output_probability(shape, queries, outcome, released, digits)
        pn = output_probability(shape, neighbour, outcome, released, digits)
        if p == 0 and pn == 0:
            return mpmath.mpf(0)
        if pn == 0:
            return mpmath.inf
        if p == 0:
            return -mpmath.inf
        return mpmath.log(p) - mpmath.log(pn)
