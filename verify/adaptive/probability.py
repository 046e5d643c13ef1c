"""Exact probabilities of Adaptive SVT outcomes, in mpmath at any precision (docs/adaptive.md).

Condition on the threshold noise Z = z (T̂ = t + z) and write d_i = t + z − q_i; given z the queries'
noises are independent, so the outcome's density is a product with one factor per answer, each a
density p, a CDF F(x) = Pr[X < x] or a survival S(x) = Pr[X >= x] of that query's own noises ξ_i
(scale b_top) and η_i (scale b_mid) at offsets from z (the tests of `verify.adaptive.model`):

* BELOW:            F_ξ(σ + d_i) · F_η(d_i)                 (ξ_i < σ − (q_i − T̂), η_i < T̂ − q_i);
* MIDDLE, gap g:    F_ξ(σ + d_i) · p_η(g + d_i) · [g >= 0];
* TOP, gap g:       p_ξ(g + d_i) · [g >= σ];
* TOP, value v:     p_ξ(v − q_i) · [v − q_i − d_i... i.e. z <= v − σ − t]   (the bad variant);

    density(ω | q) = ∫ p_Z(z) Π_i factor_i(z) dz,

provided the branch sequence is possible (`AdaptiveSVT.is_possible`: no halt before the last answer,
and a run shorter than the queries halted after it), else 0.  Releasing only the branches (summing the
values out) turns the MIDDLE factor into F_ξ(σ + d_i)·S_η(d_i) and the TOP factor into S_ξ(σ + d_i)
(`branch_probability`).  This is the conditioning of the issue "Beyond AboveThreshold" (each query's branch a
product of S, F or a density of its own noises at offsets from z), the same argument as the seed's
Mechanism One (condition on the threshold noise, then the queries factorise).

The integral is split at every kink (z = 0 and every point where an argument above is 0) and at the
cut of a TOP value; each piece runs mpmath's tanh-sinh quadrature, scaled to the piece's size so that
its tolerance is relative (`verify.engine.relative_quad.relative_piece`, Report Noisy Max's rule too, here
from degree 8): the estimated error below 10^-(digits+1) of the value, else a recomputation at 10 more
digits must agree, else `ArithmeticError`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import mpmath

from verify.adaptive.model import AdaptiveSVT, Answer, Branch, TopRelease
from verify.engine.relative_quad import relative_piece
from verify.exact import to_fraction
from verify.precision import MPMATH_LOCK, check_digits

#: Guard digits of the quadrature.
GUARD = 10
#: At most this many pieces between two kinks (each piece is analytic; the recheck at 10 more digits catches
#: a piece the quadrature did not resolve): the cost stays bounded when the kinks are many scales apart.
MAX_SPLIT = 4


def _mpf(x: Any) -> Any:
    x = to_fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


def _sigma(mech: AdaptiveSVT) -> Any:
    s = _mpf(mech.sigma)
    return s * mpmath.sqrt(2) if mech.sigma_sqrt2 else s


def _integrate(f: Callable[[Any], Any], kinks: Sequence[Any], upper: Any, width: Any, dps: int) -> Any:
    """∫_{-inf}^{upper} f, split at the kinks below ``upper`` and into pieces no longer than ``width`` (at most
    `MAX_SPLIT` between two kinks)."""
    ends = sorted({k for k in kinks if k < upper})
    if not ends:
        ends = [upper - width] if mpmath.isfinite(upper) else [mpmath.mpf(0)]
    pts = [mpmath.mpf("-inf"), ends[0]]
    for x in [*ends[1:], *([upper] if mpmath.isfinite(upper) else [])]:
        last = pts[-1]
        if x <= last:
            continue
        n = min(int(mpmath.ceil((x - last) / width)), MAX_SPLIT)
        pts.extend(last + (x - last) * m / n for m in range(1, n + 1))
    if not mpmath.isfinite(upper):
        pts.append(mpmath.mpf("inf"))
    return sum((relative_piece(f, a, c, dps, GUARD, (8,)) for a, c in zip(pts, pts[1:])), mpmath.mpf(0))


def _factors(mech: AdaptiveSVT, queries: Sequence[Any], answers: Sequence[Answer], marginal: bool):
    """The per-answer factors as functions of z, their kinks, and the upper end of z (TOP values cut it)."""
    law, t, sig = mech.law, _mpf(mech.threshold), _sigma(mech)
    bz, bx, be = _mpf(mech.b_threshold), _mpf(mech.b_top), _mpf(mech.b_middle)
    fs: list[Callable[[Any], Any]] = []
    kinks: list[Any] = [mpmath.mpf(0)]
    upper = mpmath.mpf("inf")
    for q, a in zip(queries, answers):
        q = _mpf(q)
        kinks += [q - t - sig, q - t]
        if a.branch is Branch.BELOW:
            fs.append(lambda z, q=q: law.mp_cdf(sig + t + z - q, bx) * law.mp_cdf(t + z - q, be))
        elif a.branch is Branch.MIDDLE:
            if marginal:
                fs.append(lambda z, q=q: law.mp_cdf(sig + t + z - q, bx) * law.mp_sf(t + z - q, be))
            else:
                g = _mpf(a.value)
                if g < 0:
                    return None
                kinks.append(q - t - g)
                fs.append(lambda z, q=q, g=g: law.mp_cdf(sig + t + z - q, bx) * law.mp_pdf(g + t + z - q, be))
        elif marginal:
            fs.append(lambda z, q=q: law.mp_sf(sig + t + z - q, bx))
        elif mech.top_release is TopRelease.GAP:
            g = _mpf(a.value)
            if g < sig:
                return None
            kinks.append(q - t - g)
            fs.append(lambda z, q=q, g=g: law.mp_pdf(g + t + z - q, bx))
        else:
            v = _mpf(a.value)
            upper = min(upper, v - sig - t)
            dens = law.mp_pdf(v - q, bx)
            fs.append(lambda z, dens=dens: dens)
    return fs, kinks, upper, max(bz, bx, be) * 8


def _density(mech: AdaptiveSVT, queries: Any, answers: Any, digits: int, marginal: bool) -> Any:
    qs = mech.check_queries(queries)
    ans = mech.check_outcome(answers, len(qs))
    digits = check_digits(digits)
    with MPMATH_LOCK, mpmath.workdps(digits + GUARD):
        if not mech.is_possible(ans, len(qs)):
            return mpmath.mpf(0)
        built = _factors(mech, qs, ans, marginal)
        if built is None:
            return mpmath.mpf(0)
        fs, kinks, upper, width = built
        bz = _mpf(mech.b_threshold)

        def integrand(z: Any) -> Any:
            out = mech.law.mp_pdf(z, bz)
            for f in fs:
                out *= f(z)
            return out

        return +_integrate(integrand, kinks, upper, width, digits + GUARD)


def outcome_density(mech: AdaptiveSVT, queries: Any, answers: Any, digits: int = 30) -> Any:
    """The density of the outcome (branches with their released values) at the queries (module docstring)."""
    return _density(mech, queries, answers, digits, marginal=False)


def branch_probability(mech: AdaptiveSVT, queries: Any, answers: Any, digits: int = 30) -> Any:
    """Pr[the run's branches are those of ``answers``] (their values ignored: summed out)."""
    return _density(mech, queries, answers, digits, marginal=True)


def mp_log_ratio(mech: AdaptiveSVT, queries: Any, neighbour: Any, answers: Any, digits: int = 50) -> Any:
    """log density(ω | q) − log density(ω | q'), at ``digits`` digits (±inf where one side is 0)."""
    with MPMATH_LOCK, mpmath.workdps(digits + GUARD):
        a = outcome_density(mech, queries, answers, digits)
        c = outcome_density(mech, neighbour, answers, digits)
        if a == 0 and c == 0:
            return mpmath.mpf(0)
        if a == 0:
            return mpmath.mpf("-inf")
        if c == 0:
            return mpmath.mpf("inf")
        return mpmath.log(a) - mpmath.log(c)
