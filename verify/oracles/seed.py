"""An independent oracle for the output probabilities: direct quadrature, not the closed form.

The library's three probability paths (`verify.probabilities`) all go through
one closed form (`verify.engine.piecewise`); two of them literally evaluate the same
expression.  This module computes the same numbers another way, from the
algorithm's definition only (seed, Algorithm A: "if q̂_i(D) >= t̂: output ⊥"),
so that a mistake in the closed form cannot hide in both:

    Pr[s_i] = ∫ p_Z(z) · Π_{j<i} F_X(t + z - q_j) · S_X(t + z - q_i) dz,
    Pr[⊤^k] = ∫ p_Z(z) · Π_{j<=k} F_X(t + z - q_j) dz,

with ``F_X(y) = Pr[X < y]`` (query j stays below the noisy threshold t + z:
q_j + X_j < t + z) and ``S_X(y) = Pr[X >= y]`` (query i reaches it: the seed's
rule "above iff q_i + X_i >= t + Z").  The integral is evaluated by
``mpmath.quad`` (tanh-sinh) with every kink as a breakpoint: z = 0 (the kink
of the Laplace density, the start of the exponential's support) and
z = q_j - t for every query that enters (where F_X and S_X have their kink,
or their jump for a noiseless X), plus points at 4 and 64 noise
scales beyond the outermost kinks so that each infinite tail starts where the
integrand is already decaying.  Between breakpoints the integrand is smooth,
so the quadrature converges fast (STYLE: "give the integrator the kinks").

Noiseless variables are handled exactly, not by a narrow density:

* no threshold noise (Z = 0, a point mass): no integral, the product
  Π_{j<i} F_X(t - q_j) · S_X(t - q_i) (seed, the example under Mechanism One);
* no query noise (X = 0): F_X(y) = [y > 0] and S_X(y) = [y <= 0] are
  indicators; with breakpoints at their jumps, quad integrates the density on
  the pieces where the indicator product is 1 and gets exact zeros elsewhere.

A probability is exactly 0 when every piece's integrand is identically 0 (an
mpf zero, not an underflow: mpmath's exponent range is unbounded).

The CDFs are written out here again on purpose (Laplace:
``F(y) = e^{y/b}/2`` for y < 0, ``1 - e^{-y/b}/2`` for y >= 0; exponential:
``F(y) = 1 - e^{-y/b}`` for y > 0, else 0) instead of imported from
`verify.noise`, so that the oracle shares nothing with the code it checks but
the `AboveThreshold` description (family, scale, ε, Δ, t).

The quadrature error of ``mpmath.quad`` is an *estimate*, not a bound (mpmath
documents it as "not very conservative"): this module is an oracle for tests
and for re-checking witnesses, never a source of `certified` verdicts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

import mpmath

from verify.errors import InputError
from verify.logratio import log_ratio
from verify.mechanism import NO_HALT, AboveThreshold, Output, SparseVector, output_column, parse_queries  # noqa: F401  (AboveThreshold: doctests)
from verify.noise import NoiseFamily
from verify.precision import MPMATH_LOCK

#: Extra breakpoints beyond the outermost kinks, in noise scales.
TAIL_POINTS = (4, 64)
#: Guard digits of the working precision above the digits asked for.
GUARD_DIGITS = 8
#: Bisections of one piece at most (along each branch) when its error estimate is too large.
MAX_SPLITS = 12
MIN_DIGITS, MAX_DIGITS = 10, 200


def _mpf(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


@dataclass(frozen=True)
class OracleValue:
    """One output probability by quadrature, with mpmath's error *estimate* (not a bound)."""

    output: Output
    probability: mpmath.mpf
    error_estimate: mpmath.mpf
    digits: int


def _check_digits(digits: int) -> int:
    if isinstance(digits, bool) or not isinstance(digits, int) or not MIN_DIGITS <= digits <= MAX_DIGITS:
        raise InputError(f"oracle digits: {digits!r} must be an integer from {MIN_DIGITS} to {MAX_DIGITS}")
    return digits


def _breakpoints(z_law: NoiseFamily, z_scale: mpmath.mpf, kinks: list[mpmath.mpf], x_scale: mpmath.mpf | None) -> list:
    """Sorted integration points: the kinks, tail points beyond them, ±∞ (or 0 for a one-sided Z)."""
    pts = set(kinks) | {mpmath.mpf(0)}
    scales = [z_scale] + ([x_scale] if x_scale is not None else [])
    lo, hi = min(pts), max(pts)
    for s in scales:
        for m in TAIL_POINTS:
            pts.add(lo - m * s)
            pts.add(hi + m * s)
    inner = sorted(pts)
    if not z_law.two_sided:  # support [0, ∞)
        inner = [p for p in inner if p > 0]
        return [mpmath.mpf(0)] + inner + [mpmath.inf]
    return [mpmath.ninf] + inner + [mpmath.inf]


def oracle_probability(mech: SparseVector, queries: Sequence[object], output: Output, digits: int = 30) -> OracleValue:
    """Pr[A(D) = output] for the query vector ``queries`` by direct quadrature (module docstring).

    >>> m = AboveThreshold.mechanism_one(1)
    >>> v = oracle_probability(m, [0], 1)
    >>> mpmath.nstr(v.probability, 10)
    '0.5'
    """
    _check_digits(digits)
    mech.require_halting("oracle")
    if not mech.is_piecewise:
        raise InputError(f"oracle: {mech.name} has Gaussian noise; this oracle integrates piecewise exponential noise "
                         "(use verify.oracles.family)")
    q = parse_queries(queries)
    k = len(q)
    col = output_column(output, k)
    halt = output != NO_HALT
    n_below = col if halt else k
    with MPMATH_LOCK, mpmath.workdps(digits + GUARD_DIGITS):
        value, err = _integrate(mech, q, n_below, halt)
    return OracleValue(output, value, err, digits)


def _integrate(mech: SparseVector, q: tuple[Fraction, ...], n_below: int, halt: bool) -> tuple[mpmath.mpf, mpmath.mpf]:
    zn, xn = mech.threshold_noise, mech.query_noise
    xf = xn.law
    xs = None if xn.is_none else _mpf(xn.scale)
    t = _mpf(mech.threshold)
    below = [_mpf(x) for x in q[:n_below]]
    top = _mpf(q[n_below]) if halt else None

    def factors(level: mpmath.mpf) -> mpmath.mpf:
        """Π_{j<i} F_X(level - q_j) · S_X(level - q_i), level = t + z (the noisy threshold)."""
        out = mpmath.mpf(1)
        for qj in below:
            out *= xf.mp_cdf(level - qj, xs)
            if out == 0:
                return out
        if halt:
            out *= xf.mp_sf(level - top, xs)
        return out

    if not xf.is_none:
        # the same product with one exponential per point: e^{-(level - q_j)/b} = w · c_j,
        # w = e^{-level/b}, c_j = e^{q_j/b}; each factor is then the CDF's branch at y = level - q_j
        rate = 1 / xs
        c_below = [mpmath.exp(qj * rate) for qj in below]
        c_top = mpmath.exp(top * rate) if halt else None

        def factors(level: mpmath.mpf) -> mpmath.mpf:  # noqa: F811 - same function, fewer exp() calls
            w = mpmath.exp(-level * rate)
            out = mpmath.mpf(1)
            for qj, cj in zip(below, c_below):
                out *= xf.mp_cdf_u(level - qj, w * cj)
                if out == 0:
                    return out
            if halt:
                out *= xf.mp_sf_u(level - top, w * c_top)
            return out

    if zn.is_none:  # Z = 0: a point mass, no integral
        return factors(t), mpmath.mpf(0)
    zf, zs = zn.law, _mpf(zn.scale)
    kinks = [qj - t for qj in below] + ([top - t] if halt else [])
    pts = _breakpoints(zf, zs, kinks, xs)

    def integrand(z: mpmath.mpf) -> mpmath.mpf:
        d = zf.mp_pdf(z, zs)
        return d * factors(t + z) if d != 0 else d

    scale = min(zs, xs) if xs is not None else zs
    total, err = mpmath.mpf(0), mpmath.mpf(0)
    for a, b in zip(pts, pts[1:]):
        v, e = _piece(integrand, a, b, scale, MAX_SPLITS)
        total += v
        err += e
    return +total, +err


def _samples(a: mpmath.mpf, b: mpmath.mpf, scale: mpmath.mpf) -> list[mpmath.mpf]:
    """Points inside (a, b) at which a piece's integrand is probed for its size."""
    if mpmath.isinf(a) and mpmath.isinf(b):
        return [mpmath.mpf(0)]
    if mpmath.isinf(a):
        return [b - m * scale for m in (mpmath.mpf(1) / 64, 1, 4)]
    if mpmath.isinf(b):
        return [a + m * scale for m in (mpmath.mpf(1) / 64, 1, 4)]
    step = min(scale, b - a) / 64
    return [a + step, (a + b) / 2, b - step]


def _piece(f, a: mpmath.mpf, b: mpmath.mpf, scale: mpmath.mpf, splits: int) -> tuple[mpmath.mpf, mpmath.mpf]:
    """∫_a^b f with f smooth on (a, b), relative to its own size.

    ``mpmath.quad`` stops when its error estimate is below the working precision's
    epsilon in absolute terms, which is no accuracy at all for a piece of size
    1e-800: the integrand is divided by its largest probed value first.  On (a, b)
    the integrand is either identically 0 (an indicator of a noiseless variable is
    0 there, or the exponential density is) or positive everywhere, so a zero probe
    decides an exact zero.  A piece whose relative error estimate stays above the
    target is bisected (at most ``splits`` times along each branch).
    """
    probes = [f(x) for x in _samples(a, b, scale)]
    size = max(probes)
    if size == 0:
        return mpmath.mpf(0), mpmath.mpf(0)
    # tanh-sinh: its nodes cluster at the ends, where the integrand's mass sits when it
    # is sharply peaked at a kink (Gauss-Legendre needs fewer evaluations but its
    # nodes cost seconds to compute at each new precision)
    v, e = mpmath.quad(lambda x: f(x) / size, [a, b], error=True, maxdegree=8)
    target = mpmath.mpf(10) ** -(mpmath.mp.dps - GUARD_DIGITS + 3)  # relative: 10^-(digits+3)
    if e <= target * abs(v) or splits == 0:
        return v * size, e * size
    if mpmath.isinf(a) and mpmath.isinf(b):
        mid = mpmath.mpf(0)
    elif mpmath.isinf(a):
        mid = b - 4 * scale
    elif mpmath.isinf(b):
        mid = a + 4 * scale
    else:
        mid = (a + b) / 2
    v1, e1 = _piece(f, a, mid, scale, splits - 1)
    v2, e2 = _piece(f, mid, b, scale, splits - 1)
    return v1 + v2, e1 + e2


def oracle_distribution(mech: SparseVector, queries: Sequence[object], digits: int = 30) -> list[mpmath.mpf]:
    """[Pr[s_1], ..., Pr[s_k], Pr[⊤^k]] by direct quadrature, one integral per output."""
    k = len(parse_queries(queries))
    outs: list[Output] = [*range(1, k + 1), NO_HALT]
    return [oracle_probability(mech, queries, o, digits).probability for o in outs]


@dataclass(frozen=True)
class WitnessRecheck:
    """A witness's log ratio recomputed by the oracle, and whether it matches the claimed one.

    ``agrees``: |oracle - claimed| <= 10^{-(digits-5)}·max(1, |claimed|), or both infinite with the same sign.
    """

    log_ratio: mpmath.mpf
    probability: mpmath.mpf
    neighbour_probability: mpmath.mpf
    claimed_log_ratio: mpmath.mpf | None
    digits: int
    agrees: bool | None


def recheck_witness(mech: SparseVector, queries: Sequence[object], neighbour_queries: Sequence[object], output: Output,
                    claimed_log_ratio: object | None = None, digits: int = 30) -> WitnessRecheck:
    """Recompute log Pr[A(D)=output] - log Pr[A(D')=output] with the oracle (not with
    `verify.ratio.privacy_ratio`, which found the witness) and compare with ``claimed_log_ratio``.

    A witness of `verify.worstcase.worst_case` is rechecked with
    ``recheck_witness(mech, w.queries, w.neighbour_queries, w.output, w.log_ratio)``.
    """
    _check_digits(digits)
    q = parse_queries(queries)
    qn = parse_queries(neighbour_queries, "neighbour queries")
    mech.check_neighbours(q, qn)
    p = oracle_probability(mech, q, output, digits).probability
    pn = oracle_probability(mech, qn, output, digits).probability
    with MPMATH_LOCK, mpmath.workdps(digits + GUARD_DIGITS):
        lr = log_ratio(p, pn)
        claimed = None if claimed_log_ratio is None else mpmath.mpf(claimed_log_ratio)
        agrees = None
        if claimed is not None:
            if mpmath.isinf(lr) or mpmath.isinf(claimed):
                agrees = bool(lr == claimed)
            else:
                tol = mpmath.mpf(10) ** (-(digits - 5)) * max(1, abs(claimed))
                agrees = bool(abs(lr - claimed) <= tol)
    return WitnessRecheck(lr, p, pn, claimed, digits, agrees)
