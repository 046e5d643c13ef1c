"""Exact output probabilities of AboveThreshold by piecewise integration.

Conditioning on the threshold noise Z = z makes the query noises independent
(seed, Proof 1: "Since the random variables Z, X_{i-1}, X_i are independent"),
so with a_j = q_j - t

    Pr[s_i] = ∫ p_Z(z) · Π_{j<i} F(z - a_j) · S(z - a_i) dz,
    Pr[⊤^k] = ∫ p_Z(z) · Π_{j<=k} F(z - a_j) dz,

where F(x) = Pr[X < x] and S(x) = Pr[X >= x] (`verify.noise`).  The proofs'
conditional probabilities are the same integral restricted to z > m with
m = M(D, x) - t and a single factor S(z - d), d = q_i(D) - t (seed, Proof 1,
the display ending in ∫_{M(D,x)-t}^∞ p(z) F(-t-z+q_i(D)) dz; Mechanism Two,
the display ending in ∫_{M(D,x)-t}^∞ p(z) exp(-(ε/3Δ) max{0, t+z-q_i(D)}) dz).

Between consecutive kinks (z = 0 and z = a_j) every factor is, for the
Laplace, exponential and no-noise families, ``const · w^e · (p0 + p1·w)`` with
``w = exp(-λ(z - r))`` (λ the query-noise rate, r a reference point of the
segment), and the threshold density is ``const · exp(ζλ(z - r))``.  The
integrand on a segment is therefore a finite sum of exponentials whose
exponents are *rational* multiples of λ: each term is integrated in closed
form.  Exponents are kept as `Fraction` multiples of λ, so a vanishing
exponent is recognised exactly (the term integrates to the segment's length).

Positions are exact `Fraction` multiples of a unit u (u = 1 numerically, u = Δ
for symbolic ε and Δ); ``lam`` is the backend number λ·u.  Reference points
are chosen so that every expanded term is bounded by its factor's bound
(<= 1/2 for Laplace, <= 1 for exponential): nothing overflows, and the sum of
the terms' magnitudes over the value is the condition number of the sum,
returned so that callers can raise the precision where cancellation bites.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from verify.backends import Backend
from verify.errors import InputError
from verify.noise import NoiseFamily, family_type

INF = None  # an open end of a segment


@dataclass(frozen=True)
class Factor:
    """``const · w^e · (p0 + p1·w)`` on one segment; ``p1`` may be None."""

    const: Any
    e: int
    p0: Any
    p1: Any = None


@dataclass
class Integral:
    """A value with the sum of the magnitudes of the terms that made it."""

    value: Any
    magnitude: Any
    zero: bool = True  # no term at all: the probability is exactly 0



def rates(threshold_noise: Any, query_noise: Any) -> tuple[Fraction, Fraction]:
    """(λ, ρ) of `PiecewiseIntegrator`: λ the query-noise rate (the threshold's if the queries are
    noiseless, 1 if neither is noisy), ρ = rate_Z/λ (1 without threshold noise); exact."""
    zn, xn = threshold_noise, query_noise
    lam = xn.rate if not xn.is_none else (zn.rate if not zn.is_none else Fraction(1))
    rho = zn.rate / lam if not zn.is_none else Fraction(1)
    return lam, rho

class PiecewiseIntegrator:
    """Closed-form integration of the AboveThreshold integrals on one backend.

    Parameters
    ----------
    backend: the number type (`verify.backends`).
    lam: λ·u as a backend number, λ the query-noise rate (the threshold-noise
        rate when the queries carry no noise).
    rho: the threshold-noise rate over λ, exact.
    zfamily, xfamily: noise families (names or `verify.noise.NoiseFamily` objects) of the
        threshold and the queries.  Each must be piecewise exponential: density
        ``w₋·λe^{λx}`` on x < 0 and ``w₊·λe^{-λx}`` on x >= 0 with the family's exact
        weights ``lower_weight = w₋``, ``upper_weight = w₊`` (Laplace ½, ½; exponential
        0, 1), or no noise; every factor below is written in these weights.
    """

    def __init__(self, backend: Backend, lam: Any, rho: Fraction, zfamily: str | NoiseFamily, xfamily: str | NoiseFamily) -> None:
        self.zlaw = zfamily if isinstance(zfamily, NoiseFamily) else family_type(zfamily)
        self.xlaw = xfamily if isinstance(xfamily, NoiseFamily) else family_type(xfamily)
        for name, law in (("threshold", self.zlaw), ("query", self.xlaw)):
            if not law.piecewise:
                raise InputError(f"noise: {law.name} {name} noise is not piecewise exponential; the closed form needs "
                                 "Laplace, exponential or none (use verify.family.probability)")
        self.b = backend
        self.lam = lam
        self.rho = Fraction(rho)
        self.half = backend.num(Fraction(1, 2))
        self.one = backend.num(Fraction(1))
        self.zero = backend.num(Fraction(0))

    # --- the pieces ----------------------------------------------------------------
    def _e(self, x: Fraction) -> Any:
        """exp(x·lam), x exact."""
        return self.b.exp(self.b.num(x) * self.lam) if x != 0 else self.one

    def weighted(self, weight: Fraction, value: Any) -> Any:
        """weight·value, with weight 1 applied as no operation (so an exact 1 adds no rounding)."""
        return value if weight == 1 else self.b.num(weight) * value

    def factor_below(self, x: Fraction, r: Fraction, below: bool) -> Factor | None:
        """F(z - x) = Pr[X < z - x] on a segment below (z <= x) or above x:
        w₋e^{λ(z-x)} below, 1 - w₊e^{-λ(z-x)} above (none: 0 below, 1 above)."""
        law = self.xlaw
        if below:
            if law.is_none or not law.lower_weight:
                return None  # no mass below 0: Pr[X < negative] = 0
            return Factor(self.b.num(law.lower_weight) * self._e(r - x), -1, self.one)
        if law.is_none:
            return Factor(self.one, 0, self.one)
        return Factor(self.one, 0, self.one, -self.weighted(law.upper_weight, self._e(x - r)))

    def factor_reach(self, x: Fraction, r: Fraction, below: bool) -> Factor | None:
        """S(z - x) = Pr[X >= z - x] on a segment below (z <= x) or above x:
        1 - w₋e^{λ(z-x)} below, w₊e^{-λ(z-x)} above (none: 1 below, 0 above)."""
        law = self.xlaw
        if below:
            if law.is_none or not law.lower_weight:
                return Factor(self.one, 0, self.one)
            return Factor(self.one, -1, -self.b.num(law.lower_weight) * self._e(r - x), self.one)
        if law.is_none:
            return None
        return Factor(self.weighted(law.upper_weight, self._e(x - r)), 1, self.one)

    def density(self, r: Fraction, above_zero: bool) -> tuple[Any, Fraction] | None:
        """The threshold density on a segment: (const, ζ) with p = const·e^{ζ·lam(z - r)}
        (w₊ρλe^{-ρλz} above 0, w₋ρλe^{ρλz} below; None where the weight is 0)."""
        law = self.zlaw
        if law.is_none:
            raise ValueError("density() is for a continuous threshold noise")
        rl = self.b.num(self.rho) * self.lam
        weight = law.upper_weight if above_zero else law.lower_weight
        if not weight:
            return None
        zeta = -self.rho if above_zero else self.rho
        return self.weighted(weight, rl) * self._e(zeta * r), zeta

    def segment_integral(self, alpha: Fraction, lo: Fraction | None, hi: Fraction | None) -> Any:
        """∫_lo^hi exp(alpha·lam·(z - r)) dz, r = lo if finite else hi."""
        lam = self.lam
        if lo is not None and hi is not None:
            length = hi - lo
            if alpha == 0:
                return self.b.num(length)
            a = self.b.num(alpha) * lam
            return self.b.expm1(a * self.b.num(length)) / a
        if alpha == 0 or (lo is not None and alpha > 0) or (hi is not None and alpha < 0):
            raise ArithmeticError(f"divergent term: exponent {alpha} on an infinite segment")
        a = self.b.num(alpha) * lam
        return -1 / a if lo is not None else 1 / a

    # --- all events at once ------------------------------------------------------------
    def events(self, positions: Sequence[Fraction], cutoff: Fraction | None = None) -> list[Integral]:
        """Integrals for s_1..s_k and ⊤^k (k = len(positions)), z restricted to z > cutoff."""
        k = len(positions)
        results = [Integral(self.zero, self.zero) for _ in range(k + 1)]
        if self.zlaw.is_none:
            return self._point_events(positions, cutoff)
        kinks = sorted({Fraction(0), *positions, *([cutoff] if cutoff is not None else [])})
        ends: list[Fraction | None] = [INF, *kinks, INF]
        for lo, hi in zip(ends[:-1], ends[1:]):
            if cutoff is not None and (hi is not None and hi <= cutoff):
                continue
            r = lo if lo is not None else hi
            dens = self.density(r, above_zero=lo is not None and lo >= 0)
            if dens is None:
                continue
            const, zexp = dens
            poly: list[Any] = [self.one]
            shift = 0
            alive = True
            for i, x in enumerate(positions):
                below = hi is not None and hi <= x
                reach = self.factor_reach(x, r, below)
                if reach is not None:
                    self._accumulate(results[i], const * reach.const, shift + reach.e, _times(poly, reach), zexp, lo, hi)
                f = self.factor_below(x, r, below)
                if f is None:
                    alive = False
                    break
                const = const * f.const
                shift += f.e
                poly = _times(poly, f)
            if alive:
                self._accumulate(results[k], const, shift, poly, zexp, lo, hi)
        return results

    def _accumulate(self, acc: Integral, const: Any, shift: int, poly: list[Any], zexp: Fraction, lo, hi) -> None:
        for c, coef in enumerate(poly):
            alpha = zexp - (c + shift)
            term = const * coef * self.segment_integral(alpha, lo, hi)
            acc.value = acc.value + term
            if not self.b.exact:
                acc.magnitude = acc.magnitude + self.b.magnitude(term)
            acc.zero = False

    def _point_events(self, positions: Sequence[Fraction], cutoff: Fraction | None) -> list[Integral]:
        """No threshold noise: z = 0, everything is a product of closed forms."""
        k = len(positions)
        out = [Integral(self.zero, self.zero) for _ in range(k + 1)]
        if cutoff is not None and not 0 > cutoff:
            return out
        prod = self.one
        for i, x in enumerate(positions):
            reach = self.point_reach(-x)
            if reach is not None:
                v = prod * reach
                out[i] = Integral(v, self.b.magnitude(v) if not self.b.exact else v, zero=False)
            f = self.point_below(-x)
            if f is None:
                return out
            prod = prod * f
        out[k] = Integral(prod, self.b.magnitude(prod) if not self.b.exact else prod, zero=False)
        return out

    def point_below(self, d: Fraction) -> Any | None:
        """F(d) = Pr[X < d], d exact (None where exactly 0): w₋e^{λd} for d < 0,
        1 - w₊e^{-λd} for d >= 0 (as -expm1(-λd) when w₊ = 1, no cancellation)."""
        law = self.xlaw
        if law.is_none:
            return None if d <= 0 else self.one
        if d < 0 or (d == 0 and not law.lower_weight):
            return self.b.num(law.lower_weight) * self._e(d) if law.lower_weight else None
        if law.upper_weight == 1:
            return -self.b.expm1(self.b.num(-d) * self.lam)
        return self.one - self.b.num(law.upper_weight) * self._e(-d)

    def point_reach(self, d: Fraction) -> Any | None:
        """S(d) = Pr[X >= d], d exact (None where exactly 0): 1 - w₋e^{λd} for d < 0,
        w₊e^{-λd} for d >= 0."""
        law = self.xlaw
        if law.is_none:
            return self.one if d <= 0 else None
        if d < 0 or (d == 0 and not law.lower_weight):
            return self.one - self.b.num(law.lower_weight) * self._e(d) if law.lower_weight else self.one
        return self.weighted(law.upper_weight, self._e(-d))


def _times(poly: list[Any], f: Factor) -> list[Any]:
    """poly(w) · (p0 + p1·w)."""
    out = [c * f.p0 for c in poly]
    if f.p1 is not None:
        out.append(poly[-1] * f.p1)
        for c in range(len(poly) - 1, 0, -1):
            out[c] = out[c] + poly[c - 1] * f.p1
    return out
