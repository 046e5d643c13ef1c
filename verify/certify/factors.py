"""Certificates for the factor bounds the seed proofs compare pointwise.

For a noise with scale b (rate 1/b), every real point y and every shift s:

* density ratio   p(y+s)/p(y) in [e^{-|s|/b}, e^{|s|/b}]
  (seed, Proof 1: "Comparing p(z) and p(z+κ)", |κ| <= Δ; Proof 2: the
  substitution's density factors, shifts Δ and 2Δ; Mechanism Two: "Comparing
  the integrands");
* survival ratio  S(y+s)/S(y) in the same interval, S(y) = Pr[X >= y];
* CDF ratio       F(y+s)/F(y) in the same interval, F(y) = Pr[X < y]
  (seed, Proof 1: "F(-t-z-κ+q_i(D)) and F(-t-z+q_i(D'))", shifts up to 2Δ).

Each holds for every s as soon as log f is continuous and |(log f)'| <= 1/b
(mean value theorem), so the certificate is: continuity of log f at the
pieces' joints (sympy, exact) and a one-dimensional branch and bound for
b·|(log f)'| <= 1 (`verify.certify.search`).  The bounds are scale-free, so a
certificate holds for every ε and Δ.  Where f vanishes on part of the line
(the exponential density below 0, the exponential CDF at or below 0) the
ratio is 0 or ∞: the claim is refuted at a concrete point, evaluated at 50
digits.  A ``none`` noise (a point mass, scale 0) has no density and no
finite bound: its claims are reported undecided, "not applicable".

The proofs combine the factors: e^{Δ/b_Z}·e^{2Δ/b_X} <= e^ε, i.e.
1/c_Z + 2/c_X <= 1 for scales c·Δ/ε (`FactorBounds.product`).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any

import mpmath
import sympy

from verify.certify import closed_forms as cf
from verify.certify.conditional import rates, search_summary
from verify.certify.results import (
    DEFAULT_EPSILON_RANGE,
    Certificate,
    CertifySpec,
    ProofStep,
    SearchSummary,
    check_epsilon_range,
    counterexample_json,
)
from verify.certify.search import Piece, SupResult, certify_sup
from verify.exact import fmt
from verify.noise import NoiseSpec, family_type
from verify.verdicts import CertificateVerdict, Counterexample, StepStatus

DIGITS = 50
KINDS = ("density", "survival", "cdf")
_TEXT = {
    "density": "p(y+s)/p(y) in [e^{-|s|/b}, e^{|s|/b}] for every real y and shift s",
    "survival": "S(y+s)/S(y) in [e^{-|s|/b}, e^{|s|/b}] for every real y and shift s, S(y) = Pr[X >= y]",
    "cdf": "F(y+s)/F(y) in [e^{-|s|/b}, e^{|s|/b}] for every real y and shift s, F(y) = Pr[X < y]",
}


@dataclass(frozen=True)
class NoiseFactors:
    """The three factor certificates of one noise variable."""

    variable: str  # "threshold noise Z" or "query noise X"
    noise: str
    density_ratio: Certificate
    survival_ratio: Certificate
    cdf_ratio: Certificate

    def all(self) -> tuple[Certificate, ...]:
        return (self.density_ratio, self.survival_ratio, self.cdf_ratio)

    def to_json(self) -> dict[str, Any]:
        return {"variable": self.variable, "noise": self.noise, "density_ratio": self.density_ratio.to_json(),
                "survival_ratio": self.survival_ratio.to_json(), "cdf_ratio": self.cdf_ratio.to_json()}


@dataclass(frozen=True)
class FactorBounds:
    """Factor certificates of both noises and of the proofs' product e^{Δ/b_Z} e^{2Δ/b_X} <= e^ε."""

    threshold: NoiseFactors
    query: NoiseFactors
    product: Certificate
    seconds: float

    @property
    def verdict(self) -> str:
        """refuted if any factor claim is refuted, certified if all are, else undecided."""
        vs = [c.verdict for c in (*self.threshold.all(), *self.query.all(), self.product)]
        if CertificateVerdict.REFUTED in vs:
            return CertificateVerdict.REFUTED
        return CertificateVerdict.CERTIFIED if all(v == CertificateVerdict.CERTIFIED for v in vs) else CertificateVerdict.UNDECIDED

    def parts(self) -> tuple[Certificate, ...]:
        return (*self.threshold.all(), *self.query.all(), self.product)

    @property
    def boxes(self) -> int:
        return sum(c.boxes for c in self.parts())

    @property
    def method(self) -> str:
        return "per factor: exact continuity + 1-D ball-arithmetic branch and bound + mean value, or an exact support argument"

    @property
    def min_margin(self) -> Fraction | None:
        """Smallest margin (nats) over the parts when all are certified, else None."""
        if self.verdict != CertificateVerdict.CERTIFIED:
            return None
        return min(c.min_margin for c in self.parts())

    @property
    def counterexample(self) -> Counterexample | None:
        """The first refuted part's counterexample, if any."""
        return next((c.counterexample for c in self.parts() if c.verdict == CertificateVerdict.REFUTED), None)

    def to_json(self) -> dict[str, Any]:
        return {"verdict": self.verdict, "method": self.method, "boxes": self.boxes, "seconds": round(self.seconds, 4),
                "min_margin": None if self.min_margin is None else float(self.min_margin),
                "counterexample": None if self.counterexample is None else counterexample_json(self.counterexample),
                "threshold_noise": self.threshold.to_json(), "query_noise": self.query.to_json(),
                "product": self.product.to_json()}


# --- log-derivative searches (scale 1; the claims are scale-free) ---------------------------------------------------
def _slope_pieces(kind: str, family: str) -> list[Piece]:
    one = sympy.Integer(1)
    if kind == "density":
        return cf.log_density_slope_pieces(family, one, cf.X)
    if kind == "survival":
        return [Piece(p.lo, p.hi, -p.expr) for p in cf.hazard_pieces(family, one, cf.X)]
    return cf.reverse_hazard_pieces(family, one, cf.X)


def _raw_pieces(kind: str, family: str):
    one = sympy.Integer(1)
    if kind == "density":
        return cf.density_pieces(family, one, cf.X)
    if kind == "survival":
        return cf.survival_pieces(family, one, cf.X)
    return cf.cdf_pieces(family, one, cf.X)


@cache
def _slope_searches(kind: str, family: str) -> tuple[SupResult, SupResult]:
    """b·(log f)' <= 1 and -b·(log f)' <= 1 on every piece where f > 0."""
    pieces = _slope_pieces(kind, family)
    up = certify_sup(pieces, cf.X, Fraction(1))
    down = certify_sup([Piece(p.lo, p.hi, -p.expr) for p in pieces], cf.X, Fraction(1))
    return up, down


def _positive_everywhere(kind: str, family: str) -> bool:
    """f > 0 on all of ℝ and log f continuous at the joints (exact, sympy)."""
    pieces = _raw_pieces(kind, family)
    if pieces[0][0] is not None or pieces[-1][1] is not None:
        return False
    for (_, hi, e), (lo, _, e2) in zip(pieces[:-1], pieces[1:]):
        if hi != lo or sympy.simplify(e.subs(cf.X, hi) - e2.subs(cf.X, lo)) != 0:
            return False
    return all(e != 0 for _, _, e in pieces)


def _mp_factor(kind: str, family: str, b: mpmath.mpf) -> Callable[[mpmath.mpf], mpmath.mpf]:
    """f(y) at the working precision for the scale b (independent of the sympy forms)."""
    law = family_type(family)

    def density(y):
        return law.mp_pdf(y, b)

    def survival(y):
        return law.mp_sf(y, b)

    def cdf(y):
        return 1 - survival(y)

    return {"density": density, "survival": survival, "cdf": cdf}[kind]


def _refute_support(kind: str, family: str, spec: NoiseSpec, which: str, eps: Fraction, delta: Fraction,
                    y: Fraction, s: Fraction) -> Counterexample | None:
    scale = spec.resolve(eps, delta).scale
    with mpmath.workdps(DIGITS + 10):
        b = mpmath.mpf(scale.numerator) / scale.denominator
        f = _mp_factor(kind, family, b)
        fy = f(mpmath.mpf(y.numerator) / y.denominator)
        fys = f(mpmath.mpf((y + s).numerator) / (y + s).denominator)
        bound = abs(mpmath.mpf(s.numerator) / s.denominator) / b
        if fy == 0 and fys > 0:
            ratio, log_ratio = "inf", "inf"
        elif fys == 0 and fy > 0:
            ratio, log_ratio = "0", "-inf"
        else:
            lr = mpmath.log(fys) - mpmath.log(fy)
            if abs(lr) <= bound:
                return None
            ratio, log_ratio = mpmath.nstr(mpmath.exp(lr), DIGITS), mpmath.nstr(lr, DIGITS)
        name = {"density": "p", "survival": "S", "cdf": "F"}[kind]
        where = ("the ratio p(y+s)/p(y) is ∞ for every y in [-s, 0) when s > 0 and 0 for every y in [0, -s) when s < 0"
                 if kind == "density" else
                 "F(y) = 0 for y <= 0: the ratio F(y+s)/F(y) is ∞ whenever y <= 0 < y + s, and unbounded as y -> 0+")
        return Counterexample(
            detail=f"{which}: {name}(y) = {mpmath.nstr(fy, 10)} and {name}(y+s) = {mpmath.nstr(fys, 10)}: "
                        f"the ratio {name}(y+s)/{name}(y) is {ratio}, outside [e^-|s|/b, e^|s|/b] "
                        f"(support mismatch: {where}; the pointwise comparison is refuted)",
            params=(("epsilon", fmt(eps)), ("sensitivity", fmt(delta)), ("scale", fmt(scale)), ("y", fmt(y)), ("s", fmt(s)),
                    (f"{name}(y)", mpmath.nstr(fy, DIGITS)), (f"{name}(y+s)", mpmath.nstr(fys, DIGITS)),
                    ("ratio", ratio), ("log_ratio", log_ratio), ("bound_log", mpmath.nstr(bound, DIGITS))),
            digits=DIGITS,
        )


def _factor_certificate(kind: str, spec: NoiseSpec, which: str, cspec: CertifySpec,
                        eps_range: tuple[Fraction, Fraction]) -> Certificate:
    start = time.perf_counter()
    family = spec.family
    claim = f"{which} {spec.describe()}: {_TEXT[kind]}"
    base = dict(claim=claim, spec=cspec, epsilon_range=eps_range, every_epsilon=True)
    if spec.is_none:
        step = ProofStep("not applicable", "the noise is identically 0 (scale 0): no density, and e^{|s|/b} is not finite",
                         "definition", StepStatus.UNDECIDED)
        return Certificate(verdict=CertificateVerdict.UNDECIDED, method="not applicable: point mass", boxes=0, min_margin=None,
                           counterexample=None, steps=(step,), seconds=time.perf_counter() - start, **base)
    delta = cspec.sensitivity
    if not _positive_everywhere(kind, family):
        # the factor vanishes on a half-line: the ratio is infinite just across its edge
        y, s = (-delta / 2, delta) if kind == "density" else (-delta, 2 * delta)
        cex = _refute_support(kind, family, spec, which, eps_range[0], delta, y, s)
        step = ProofStep("support", f"{kind} of {family} noise vanishes on a half-line, positive on the other",
                         "closed form", StepStatus.REFUTED if cex else StepStatus.UNDECIDED)
        if cex is not None:
            return Certificate(verdict=CertificateVerdict.REFUTED, method="exact support argument, values at 50 digits", boxes=0,
                               min_margin=None, counterexample=cex, steps=(step,), seconds=time.perf_counter() - start, **base)
        return Certificate(verdict=CertificateVerdict.UNDECIDED, method="support argument not confirmed", boxes=0, min_margin=None,
                           counterexample=None, steps=(step,), seconds=time.perf_counter() - start, **base)
    up, down = _slope_searches(kind, family)
    searches: tuple[SearchSummary, ...] = (
        search_summary(f"{kind}: b·(log f)' <= 1", f"b · d/dy log {kind}", up),
        search_summary(f"{kind}: -b·(log f)' <= 1", f"-b · d/dy log {kind}", down),
    )
    steps = (
        ProofStep("continuity", f"the {kind} is positive on ℝ and log of it is continuous at the joints", "sympy, exact", StepStatus.EXACT),
        ProofStep("log-Lipschitz", "|b · d/dy log f(y)| <= 1 on every piece", "1-D branch and bound in ball arithmetic",
                  StepStatus.CERTIFIED if up.verdict == down.verdict == CertificateVerdict.CERTIFIED else StepStatus.UNDECIDED),
        ProofStep("mean value", "|log f(y+s) - log f(y)| <= |s|/b for every y and s", "mean value theorem", StepStatus.BY_HAND),
    )
    boxes = up.count + down.count
    if up.verdict == down.verdict == CertificateVerdict.CERTIFIED:
        # the bound is attained (slope exactly ±1/b on a half-line) and trivially at s = 0: margin 0
        return Certificate(verdict=CertificateVerdict.CERTIFIED, method="exact continuity + 1-D ball-arithmetic branch and bound + mean value",
                           boxes=boxes, min_margin=Fraction(0), counterexample=None, steps=steps, searches=searches,
                           seconds=time.perf_counter() - start, **base)
    return Certificate(verdict=CertificateVerdict.UNDECIDED, method="1-D boxes not all settled", boxes=boxes, min_margin=None, counterexample=None,
                       steps=steps, searches=searches, seconds=time.perf_counter() - start,
                       undecided_boxes=tuple(b for sm in searches for b in sm.undecided), **base)


def _noise_factors(spec: NoiseSpec, which: str, cspec: CertifySpec, eps_range) -> NoiseFactors:
    return NoiseFactors(which, spec.describe(), *(_factor_certificate(k, spec, which, cspec, eps_range) for k in KINDS))


def _product_certificate(cspec: CertifySpec, eps_range: tuple[Fraction, Fraction]) -> Certificate:
    start = time.perf_counter()
    claim = "e^{Δ/b_Z} · e^{2Δ/b_X} <= e^ε (the proofs' product of factor bounds) for every ε in the range"
    base = dict(claim=claim, spec=cspec, epsilon_range=eps_range, boxes=0)
    if cspec.threshold.is_none or cspec.query.is_none:
        step = ProofStep("not applicable", "a noise of scale 0 makes a factor bound infinite", "definition", StepStatus.UNDECIDED)
        return Certificate(verdict=CertificateVerdict.UNDECIDED, method="not applicable: point mass", min_margin=None, counterexample=None,
                           steps=(step,), seconds=time.perf_counter() - start, **base)
    units, alpha, beta = rates(cspec)
    s = alpha + 2 * beta
    if units == "relative":
        ok, text, margin = s <= 1, f"1/c_Z + 2/c_X = {fmt(s)} <= 1", eps_range[0] * (1 - s)
    else:
        ok, text, margin = s <= eps_range[0], f"Δ/B_Z + 2Δ/B_X = {fmt(s)} <= min ε = {fmt(eps_range[0])}", eps_range[0] - s
    step = ProofStep("product", text, "exact rational arithmetic", StepStatus.EXACT if ok else StepStatus.REFUTED)
    if ok:
        return Certificate(verdict=CertificateVerdict.CERTIFIED, method="exact rational arithmetic", min_margin=margin, counterexample=None,
                           steps=(step,), seconds=time.perf_counter() - start, every_epsilon=units == "relative",
                           sup_log_ratio_per_epsilon=s if units == "relative" else None, **base)
    eps = eps_range[0]
    cex = Counterexample(detail=f"at ε = {fmt(eps)} the product of the factor bounds is e^{{{fmt(s)}·ε}} > e^ε"
                         if units == "relative" else f"the product of the factor bounds is e^{fmt(s)} > e^{fmt(eps)}",
                         params=(("epsilon", fmt(eps)), ("log_product", fmt(s * eps if units == "relative" else s)),
                                 ("bound", fmt(eps))), digits=DIGITS)  # exact rationals: correct to any number of digits
    return Certificate(verdict=CertificateVerdict.REFUTED, method="exact rational arithmetic", min_margin=None, counterexample=cex,
                       steps=(step,), seconds=time.perf_counter() - start, **base)


def certify_factor_bounds(mech_or_spec: Any, epsilon_range: Any = DEFAULT_EPSILON_RANGE) -> FactorBounds:
    """Certify or refute the density, survival and CDF ratio bounds of both noises, and their product.

    >>> from verify.mechanism import AboveThreshold
    >>> fb = certify_factor_bounds(AboveThreshold.mechanism_two(1))
    >>> [str(v) for v in (fb.threshold.density_ratio.verdict, fb.query.survival_ratio.verdict, fb.product.verdict)]
    ['refuted', 'certified', 'certified']
    """
    start = time.perf_counter()
    cspec = CertifySpec.of(mech_or_spec)
    eps_range = check_epsilon_range(epsilon_range)
    z = _noise_factors(cspec.threshold, "threshold noise Z", cspec, eps_range)
    x = _noise_factors(cspec.query, "query noise X", cspec, eps_range)
    return FactorBounds(z, x, _product_certificate(cspec, eps_range), time.perf_counter() - start)


def clear_caches() -> None:
    _slope_searches.cache_clear()
