"""Closed-form evaluation of a family integrand (`integrand`) on any backend.

For Laplace, exponential and no noise every factor of the integrand is, between
consecutive kinks, ``const · w^e · (p0 + p1·w)`` with ``w = exp(-λ(z - r))``:
the seed's closed form (`verify.piecewise`, whose docstring derives it).  This
module reuses that integrator's pieces (`PiecewiseIntegrator.factor_below`,
``factor_reach``, ``density``, ``segment_integral``, ``point_below``,
``point_reach``) and adds the two things the family needs: the query-noise
*density* as a factor (GapSVT releases the gap, so p_X(z - x) enters the
integrand; Laplace: ``(λ/2)e^{λ(r-x)}·w^{-1}`` below x and ``(λ/2)e^{λ(x-r)}·w``
above it; exponential: 0 below, ``λe^{λ(x-r)}·w`` above) and an upper cap on z
(a released noisy query v caps the threshold at z <= v - t).

The result carries the sum of the magnitudes of its terms, so callers can
measure the cancellation (condition number) exactly as `verify.probabilities`
does for the seed.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from verify.backends import Backend
from verify.errors import InputError
from verify.family.integrand import Integrand, Piece, Term, TermKind
from verify.family.model import SparseVector
from verify.noise import Noise
from verify.piecewise import Factor, Integral, PiecewiseIntegrator
from verify.piecewise import rates as piecewise_rates


def rates(mech: SparseVector) -> tuple[Fraction, Fraction]:
    """(λ, ρ): the query-noise rate (the threshold's if the queries are noiseless, else 1) and rate_Z/λ."""
    return piecewise_rates(mech.threshold_noise, mech.query_noise)


def integrator(mech: SparseVector, backend: Backend, lam: Any | None = None) -> PiecewiseIntegrator:
    """The seed's integrator for this mechanism's threshold and query noise (closed-form families only)."""
    if not (mech.threshold_noise.is_piecewise and mech.query_noise.is_piecewise):
        raise InputError(f"closed form: {mech.name} has Gaussian noise; no closed form exists, use quadrature")
    lam_f, rho = rates(mech)
    return PiecewiseIntegrator(backend, backend.num(lam_f) if lam is None else lam, rho,
                               mech.threshold_noise.family, mech.query_noise.family)


class ClosedForm:
    """Evaluates `Integrand` s of one mechanism on one backend."""

    def __init__(self, mech: SparseVector, backend: Backend) -> None:
        self.mech = mech
        self.b = backend
        self.integ = integrator(mech, backend)

    def _e(self, x: Fraction) -> Any:
        """exp(x·λ), x exact (1 exactly for x = 0)."""
        return self.b.exp(self.b.num(x) * self.integ.lam) if x != 0 else self.integ.one

    # --- factors --------------------------------------------------------------------------
    def density_factor(self, x: Fraction, r: Fraction, below: bool) -> Factor | None:
        """p_X(z - x) on a segment below (z <= x) or above x."""
        integ, law = self.integ, self.mech.query_noise.law
        if law.is_none:
            raise InputError("density of the query noise: the query noise is 'none', it has no density")
        weight = law.lower_weight if below else law.upper_weight
        if not weight:
            return None
        w_lam = integ.weighted(weight, integ.lam)
        return Factor(w_lam * self._e(r - x), -1, integ.one) if below else Factor(w_lam * self._e(x - r), 1, integ.one)

    def factor(self, term: Term, r: Fraction, below: bool) -> Factor | None:
        if term.kind is TermKind.BELOW:
            return self.integ.factor_below(term.x, r, below)
        if term.kind is TermKind.ABOVE:
            return self.integ.factor_reach(term.x, r, below)
        return self.density_factor(term.x, r, below)

    def point(self, term: Term) -> Any | None:
        """The factor at z = 0 (no threshold noise); None where exactly 0."""
        integ = self.integ
        if term.kind is TermKind.BELOW:
            return integ.point_below(-term.x)
        if term.kind is TermKind.ABOVE:
            return integ.point_reach(-term.x)
        law = self.mech.query_noise.law
        if law.is_none:
            raise InputError("density of the query noise: the query noise is 'none', it has no density")
        # p_X(-x): the branch of -x's sign (the upper one at x = 0)
        weight = law.upper_weight if term.x <= 0 else law.lower_weight
        return integ.weighted(weight, integ.lam) * self._e(-abs(term.x)) if weight else None

    # --- one piece ------------------------------------------------------------------------------
    def piece(self, piece: Piece) -> Integral:
        b, integ = self.b, self.integ
        acc = Integral(integ.zero, integ.zero)
        if piece.zero:
            return acc
        if self.mech.threshold_noise.is_none:
            return self._point_piece(piece)
        kinks = piece.kinks
        ends: list[Fraction | None] = [None, *kinks, None]
        for lo, hi in zip(ends[:-1], ends[1:]):
            if piece.cap is not None and (hi is None or hi > piece.cap):
                continue
            r = lo if lo is not None else hi
            dens = integ.density(r, above_zero=lo is not None and lo >= 0)
            if dens is None:
                continue
            const, zexp = dens
            poly: list[Any] = [integ.one]
            shift = 0
            for term in piece.terms:
                f = self.factor(term, r, hi is not None and hi <= term.x)
                if f is None:
                    break
                const = const * f.const
                shift += f.e
                poly = poly_times(poly, f)
            else:
                for c, coef in enumerate(poly):
                    term_value = const * coef * integ.segment_integral(zexp - (c + shift), lo, hi)
                    acc.value = acc.value + term_value
                    if not b.exact:
                        acc.magnitude = acc.magnitude + b.magnitude(term_value)
                    acc.zero = False
        return acc

    def _point_piece(self, piece: Piece) -> Integral:
        integ = self.integ
        if piece.cap is not None and piece.cap < 0:
            return Integral(integ.zero, integ.zero)
        value = integ.one
        for term in piece.terms:
            f = self.point(term)
            if f is None:
                return Integral(integ.zero, integ.zero)
            value = value * f
        return Integral(value, value if self.b.exact else self.b.magnitude(value), zero=False)

    # --- constants --------------------------------------------------------------------------------
    def constant(self, noise: Noise, y: Fraction) -> Any:
        """p_noise(y) exactly (Laplace, exponential) on this backend."""
        b, law = self.b, noise.law
        if not law.piecewise:
            return gaussian_density(b, noise.scale, y)
        weight = law.upper_weight if y >= 0 else law.lower_weight
        return b.num(noise.rate * weight) * b.exp(b.num(-abs(y) * noise.rate)) if weight else b.num(Fraction(0))

    def evaluate(self, integrand: Integrand) -> tuple[Any, list[Integral]]:
        """(value, the pieces' integrals): value = Π constants · Π pieces."""
        pieces = [self.piece(p) for p in integrand.pieces]
        value = self.integ.one
        for noise, y in integrand.constants:
            value = value * self.constant(noise, y)
        for p in pieces:
            value = value * (self.integ.zero if p.zero else p.value)
        return value, pieces


def poly_times(poly: list[Any], f: Factor) -> list[Any]:
    """poly(w) · (p0 + p1·w), coefficients in increasing powers of w."""
    out = [c * f.p0 for c in poly]
    if f.p1 is not None:
        out.append(poly[-1] * f.p1)
        for c in range(len(poly) - 1, 0, -1):
            out[c] = out[c] + poly[c - 1] * f.p1
    return out


def gaussian_density(b: Backend, sigma: Fraction, y: Fraction) -> Any:
    """exp(-y²/(2σ²)) / (σ√(2π)) on the backend (a fresh Gaussian release noise)."""
    import mpmath
    import sympy

    from verify.backends import ArbBackend, SympyBackend

    if isinstance(b, SympyBackend):
        return sympy.exp(-b.num(y * y / (2 * sigma * sigma))) / (b.num(sigma) * sympy.sqrt(2 * sympy.pi))
    if isinstance(b, ArbBackend):
        import flint

        return b.exp(-b.num(y * y / (2 * sigma * sigma))) / (b.num(sigma) * (2 * flint.arb.pi()).sqrt())
    return mpmath.exp(-b.num(y * y / (2 * sigma * sigma))) / (b.num(sigma) * mpmath.sqrt(2 * mpmath.pi))
