"""Discrete Laplace: every outcome probability as a finite sum of geometric series.

Notation (`verify.engine.discrete_plan`): a segment is ``Σ_{z∈ℤ} Pr[Z=z] Π_i f_i(z)``
with ``f_i(z) = S(z + u_i)`` (letter A) or ``F(z + u_i)`` (letter B).  For the
two-sided geometric law ``Pr[X = x] = (1-r)/(1+r) r^{|x|}``, ``r = e^{-1/b}``
(Canonne, Kamath, Steinke, NeurIPS 2020, Definition 1), the tails are
(`verify.noise.discrete_laplace`)

    z >= κ_i = 1 - u_i  (m >= 1):  S = K⁺ r^z,      F = 1 - K⁺ r^z,   K⁺ = r^{u_i}/(1+r)
    z <  κ_i            (m <= 0):  S = 1 - K⁻ r^{-z}, F = K⁻ r^{-z},  K⁻ = r^{1-u_i}/(1+r)

and ``Pr[Z = z] = c_Z r_Z^{z}`` for ``z >= 0``, ``c_Z r_Z^{-z}`` for ``z <= -1``,
``c_Z = (1-r_Z)/(1+r_Z)``.  (With no query noise the factors are the
indicators ``[z <= -u_i]`` and ``[z >= 1 - u_i]``, the same kink.)  Split ℤ at
the kinks (the integers ``κ_i`` and 0): on each interval ``[lo, hi]`` every
factor is ``A + B·w^z`` with ``w = e^{∓λ}``, so the product expands to
``Σ_e C_e e^{-e λ z}`` with exact rational exponents ``e`` (collected, at most
one term per exponent), and

    Σ_{z=lo}^{hi} e^{-eλz} = e^{-eλ lo} · expm1(-eλ n) / expm1(-eλ),   n = hi - lo + 1
    Σ_{z>=lo}     e^{-eλz} = e^{-eλ lo} / (-expm1(-eλ))                (e > 0)
    Σ_{z<=hi}     e^{-eλz} = e^{-eλ hi} / (-expm1(eλ))                 (e < 0)
    e = 0: the count n (finite intervals only; an infinite one diverges, which
    the tails above exclude: every term decays toward ±∞).

``λ`` is ε when every scale is a multiple of Δ/ε (exponents ``e = 1/(cΔ)``),
else 1 with ``e = 1/b``: exponents are exact fractions, so ``e = 0`` is decided
exactly.  The backends are those of `verify.engine.backends` (sympy exact with ε
symbolic or rational; mpmath; arb balls).  Cancellation is tracked with the
same expansion on absolute values (``magnitude``): the rounding error of a
float backend is at most about ``magnitude · 2^{-prec}`` times the term count.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from verify.engine.backends import Backend
from verify.engine.discrete_plan import Plan, Segment
from verify.errors import InputError
from verify.noise import Noise
from verify.noise.discrete_laplace import DiscreteLaplace

Poly = dict[Fraction, Any]


@dataclass(frozen=True)
class Evaluated:
    """A closed-form value and the same sum on absolute values (for cancellation)."""

    value: Any
    magnitude: Any
    zero: bool


def uses_epsilon(plan: Plan, spec_multipliers: tuple) -> bool:
    """λ = ε: every noise that is present has a scale given as a multiple of Δ/ε."""
    return all(m is not None for m, n in zip(spec_multipliers, (plan.threshold_noise, plan.query_noise)) if not n.is_none)


def _lam_and_rates(plan: Plan, epsilon: Fraction, sensitivity: Fraction, spec_multipliers: tuple) -> tuple[bool, Fraction | None, Fraction | None]:
    """(λ is ε, exponent of Z, exponent of X) with ``1/b = e·λ``."""
    z, x = plan.threshold_noise, plan.query_noise
    mz, mx = spec_multipliers
    by_eps = uses_epsilon(plan, spec_multipliers)

    def coef(noise: Noise, mult: Fraction | None) -> Fraction | None:
        if noise.is_none:
            return None
        if not isinstance(noise.law, DiscreteLaplace):
            raise InputError(f"closed form: the noise {noise.describe()} is not discrete Laplace; use the direct sum")
        return 1 / (mult * sensitivity) if by_eps else 1 / noise.scale

    return by_eps, coef(z, mz), coef(x, mx)


class ClosedForm:
    """The geometric-series closed form (module docstring) over one backend."""

    def __init__(self, backend: Backend, lam: Any, cz: Fraction | None, cx: Fraction | None, track: bool) -> None:
        self.b, self.lam, self.cz, self.cx, self.track = backend, lam, cz, cx, track
        self._exp_cache: dict[Fraction, Any] = {}

    def _e(self, a: Fraction) -> Any:
        """``exp(a·λ)``."""
        if a not in self._exp_cache:
            self._exp_cache[a] = self.b.exp(self.b.num(a) * self.lam) if a != 0 else self.b.num(Fraction(1))
        return self._exp_cache[a]

    def _k(self, power: int) -> Any:
        """``r^{power}/(1+r)`` for the query noise."""
        return self._e(-self.cx * power) / (1 + self._e(-self.cx))

    def _factor(self, u: int, above: bool, upper: bool) -> Poly:
        one = self.b.num(Fraction(1))
        if self.cx is None:  # no query noise: indicators
            return {Fraction(0): one} if above != upper else {}
        if upper:
            k = self._k(u)
            return {self.cx: k} if above else {Fraction(0): one, self.cx: -k}
        k = self._k(1 - u)
        return {Fraction(0): one, -self.cx: -k} if above else {-self.cx: k}

    def _geom(self, e: Fraction, lo: int | None, hi: int | None) -> Any:
        b, lam = self.b, self.lam
        if e == 0:
            if lo is None or hi is None:
                raise ArithmeticError("closed form: a constant term on an infinite interval (divergent)")
            return b.num(Fraction(hi - lo + 1))
        el = b.num(e) * lam
        if lo is not None and hi is not None:
            return self._e(-e * lo) * b.expm1(-el * (hi - lo + 1)) / b.expm1(-el)
        if hi is None and lo is not None and e > 0:
            return self._e(-e * lo) / (-b.expm1(-el))
        if lo is None and hi is not None and e < 0:
            return self._e(-e * hi) / (-b.expm1(el))
        raise ArithmeticError(f"closed form: the geometric series of exponent {e} diverges on ({lo}, {hi})")

    @staticmethod
    def _times(poly: Poly, f: Poly, add: Callable[[Any, Any], Any]) -> Poly:
        out: Poly = {}
        for e1, c1 in poly.items():
            for e2, c2 in f.items():
                e = e1 + e2
                out[e] = add(out[e], c1 * c2) if e in out else c1 * c2
        return out

    def segment(self, seg: Segment) -> Evaluated:
        """``Σ_z Pr[Z=z] Π_i f_i(z)`` for one segment."""
        b = self.b
        kinks = sorted({1 - u for u in seg.offsets} | ({0} if self.cz is not None else set()))
        if self.cz is None:
            intervals: list[tuple[int | None, int | None]] = [(0, 0)]
        else:
            intervals = [(None, kinks[0] - 1)] + [(kinks[j], kinks[j + 1] - 1) for j in range(len(kinks) - 1)] + [(kinks[-1], None)]
        total = b.num(Fraction(0))
        mag = b.num(Fraction(0))
        nonzero = False
        for lo, hi in intervals:
            if lo is not None and hi is not None and hi < lo:
                continue
            if self.cz is None:
                poly: Poly = {Fraction(0): b.num(Fraction(1))}
            else:
                cz_const = -b.expm1(-b.num(self.cz) * self.lam) / (1 + self._e(-self.cz))
                poly = {self.cz if lo is not None and lo >= 0 else -self.cz: cz_const}
            apoly = dict(poly)
            for u, above in zip(seg.offsets, seg.above):
                upper = lo is not None and lo >= 1 - u
                f = self._factor(u, above, upper)
                poly = self._times(poly, f, lambda a, c: a + c)
                if self.track:
                    apoly = self._times(apoly, {e: b.magnitude(c) for e, c in f.items()}, lambda a, c: a + c)
                if not poly:
                    break
            if not poly:
                continue
            nonzero = True
            for e, c in poly.items():
                g = self._geom(e, lo, hi)
                total = total + c * g
                if self.track:
                    mag = mag + apoly[e] * b.magnitude(g)
        return Evaluated(total, mag if self.track else total, not nonzero)

    def evaluate(self, plan: Plan) -> Evaluated:
        value = self.b.num(Fraction(1))
        mag = self.b.num(Fraction(1))
        zero = False
        for seg in plan.segments:
            ev = self.segment(seg)
            value, mag, zero = value * ev.value, mag * ev.magnitude, zero or ev.zero
        return Evaluated(value, mag, zero)


def make(plan: Plan, mech: Any, backend: Backend, epsilon: Any, track: bool) -> ClosedForm:
    """A `ClosedForm` for ``mech``'s plan; ``epsilon`` is the backend's ε (a sympy symbol is allowed
    when every scale is a multiple of Δ/ε)."""
    mults = (mech.threshold_spec.multiplier, mech.query_spec.multiplier)
    by_eps, cz, cx = _lam_and_rates(plan, mech.epsilon, mech.sensitivity, mults)
    lam = epsilon if by_eps else backend.num(Fraction(1))
    return ClosedForm(backend, lam, cz, cx, track)
