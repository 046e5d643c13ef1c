"""The proofs' conditional probabilities, exactly and as the seed writes them.

For a fixed x_{i-1} every proof works with

    Pr[A(D) = s_i ∥ X_{i-1} = x_{i-1}] = Pr[M(D, x) < t + Z <= q_i(D) + X_i],

a function of ε, Δ, t, M(D, x) and q_i(D).  `library` gives its exact value
(`verify.probabilities.mp_conditional`, closed form, correct to the digits
asked); the other functions evaluate the seed's own expressions for it by
tanh-sinh quadrature with the kinks as breakpoints and the infinite ends on
the exponential map z = c ∓ b·ln u of the noise scale b (`proofs.quadrature.quad`
with ``decay=b``: the same integrand at other nodes, several times fewer of them).

`total_probability` checks the conditioning step itself: integrating the
conditional probability over the law of M(D, X_{i-1}) (density
Σ_j p(m - q_j) Π_{l≠j} F(m - q_l)) must give the unconditional Pr[A(D) = s_i]
(`verify.probabilities.mp_distribution`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Hashable, Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any

import mpmath

from proofs.numerics import Point, cdf, mpf, pdf, quad, scale
from proofs.sweeps import mechanism
from verify.exact import mpf_fraction
from verify.noise import family_type


def at_precision(f: Callable[..., mpmath.mpf]) -> Callable[..., mpmath.mpf]:
    """Memoise a form per (arguments, working precision): links of a chain share their sides."""
    return by_inputs(lambda *args: args)(f)


def by_inputs(inputs: Callable[..., Hashable]) -> Callable[[Callable[..., mpmath.mpf]], Callable[..., mpmath.mpf]]:
    """Memoise a form per (the inputs it reads, working precision): links of a chain share their sides,
    and so do two claims that evaluate the same form at points differing only in what it does not read
    (the grids with and without neighbours share ε, Δ, t, M(D, x), q_i(D) at their 17 structured points).

    ``inputs(*args)`` returns exactly the values the form reads (a form of D does not read M(D', x),
    q_i(D')), so a remembered value is the one the form would compute again, bit for bit."""

    def decorate(f: Callable[..., mpmath.mpf]) -> Callable[..., mpmath.mpf]:
        cache: dict = {}

        @functools.wraps(f)
        def wrapper(*args: Any) -> mpmath.mpf:
            key = (inputs(*args), mpmath.mp.prec)
            if key not in cache:
                cache[key] = f(*args)
            return cache[key]

        wrapper.cache_clear = cache.clear  # type: ignore[attr-defined]
        return wrapper

    return decorate


def side_inputs(pt: Point, side: str = "D") -> tuple:
    """(ε, Δ, t, M, q_i) of D (``side="D"``) or of D' (``"Dp"``): all that a form of one side reads."""
    M, q = (pt.M, pt.q) if side == "D" else (pt.Mp, pt.qp)
    return (pt.eps, pt.delta, pt.t, M, q)


def _family_inputs(pt: Point, family: str = "laplace") -> tuple:
    return (family, *side_inputs(pt))


def _shifted_inputs(pt: Point) -> tuple:
    """The shifted forms read κ = M(D, x) - M(D', x) and one side's values: the whole point but Δ's role."""
    return (pt.eps, pt.delta, pt.t, pt.M, pt.Mp, pt.q, pt.qp)


@lru_cache(maxsize=4096)
def library(family: str, pt: Point, side: str = "D", digits: int = 40) -> mpmath.mpf:
    """Exact Pr[A(·) = s_i ∥ x] for D (``side="D"``) or D' (``"Dp"``), by the library's closed form."""
    from verify.probabilities import mp_conditional

    mech = mechanism(family, pt.eps, pt.delta, pt.t)
    M, q = (pt.M, pt.q) if side == "D" else (pt.Mp, pt.qp)
    return mp_conditional(mech, None if M is None else M - pt.t, q - pt.t, digits)


def _lower(M: Fraction | None, t: Fraction) -> mpmath.mpf | None:
    return None if M is None else mpf(M) - mpf(t)


# --- Proof 1 (Laplace) ---------------------------------------------------------------------------------------
@by_inputs(_family_inputs)
def p1_survival_form(pt: Point, family: str = "laplace") -> mpmath.mpf:
    """E_z[I[M < t+z] (1 - F(t+z-q_i(D)))] = ∫_{M-t}^∞ p(z)(1 - F(t + z - q_i(D))) dz."""
    b, t, q = scale(pt.eps, pt.delta), mpf(pt.t), mpf(pt.q)
    return quad(lambda z: pdf(family, z, b) * (1 - cdf(family, t + z - q, b)), _lower(pt.M, pt.t), None, [0, q - t], decay=b)


@by_inputs(side_inputs)
def p1_expectation_cdf_form(pt: Point) -> mpmath.mpf:
    """E_z[I[M < t+z] F(-t-z+q_i(D))] as an integral over the whole line with the indicator inside."""
    b, t, q = scale(pt.eps, pt.delta), mpf(pt.t), mpf(pt.q)
    M = None if pt.M is None else mpf(pt.M)

    def f(z: mpmath.mpf) -> mpmath.mpf:
        if M is not None and not M < t + z:
            return mpmath.mpf(0)
        return pdf("laplace", z, b) * cdf("laplace", -t - z + q, b)

    return quad(f, None, None, [0, q - t, *([] if M is None else [M - t])], decay=b)


@by_inputs(side_inputs)
def p1_integral_form(pt: Point, side: str = "D") -> mpmath.mpf:
    """∫_{M-t}^∞ p(z) F(-t - z + q_i) dz for D (or D' with its own M and q_i)."""
    b, t = scale(pt.eps, pt.delta), mpf(pt.t)
    M, q = (pt.M, pt.q) if side == "D" else (pt.Mp, pt.qp)
    qm = mpf(q)
    return quad(lambda z: pdf("laplace", z, b) * cdf("laplace", -t - z + qm, b), _lower(M, pt.t), None, [0, qm - t], decay=b)


@by_inputs(_shifted_inputs)
def p1_shifted_form(pt: Point) -> mpmath.mpf:
    """∫_{M(D')-t}^∞ p(z + κ) F(-t - z - κ + q_i(D)) dz, κ = M(D,x) - M(D',x)."""
    b, t, q = scale(pt.eps, pt.delta), mpf(pt.t), mpf(pt.q)
    k = mpf(pt.kappa)
    return quad(
        lambda z: pdf("laplace", z + k, b) * cdf("laplace", -t - z - k + q, b),
        _lower(pt.Mp, pt.t),
        None,
        [-k, q - t - k],
        decay=b,
    )


# --- Mechanism Two -------------------------------------------------------------------------------------------
@by_inputs(side_inputs)
def m2_survival_form(pt: Point, side: str = "D") -> mpmath.mpf:
    """∫_{M-t}^∞ p(z) exp(-(ε/3Δ) max{0, t + z - q_i}) dz (seed, Mechanism Two proof)."""
    b, t = scale(pt.eps, pt.delta), mpf(pt.t)
    M, q = (pt.M, pt.q) if side == "D" else (pt.Mp, pt.qp)
    qm = mpf(q)
    lam = 1 / b
    return quad(
        lambda z: pdf("exponential", z, b) * mpmath.exp(-lam * max(mpmath.mpf(0), t + z - qm)),
        _lower(M, pt.t),
        None,
        [0, qm - t],
        decay=b,
    )


@by_inputs(_shifted_inputs)
def m2_shifted_form(pt: Point) -> mpmath.mpf:
    """∫_{M(D)-t}^∞ p(y - κ) exp(-(ε/3Δ) max{0, t + y - κ - q_i(D')}) dy."""
    b, t, qp = scale(pt.eps, pt.delta), mpf(pt.t), mpf(pt.qp)
    k = mpf(pt.kappa)
    lam = 1 / b
    return quad(
        lambda y: pdf("exponential", y - k, b) * mpmath.exp(-lam * max(mpmath.mpf(0), t + y - k - qp)),
        _lower(pt.M, pt.t),
        None,
        [k, qp - t + k],
        decay=b,
    )


# --- nested double integrals (Proof 2; Mechanism Two's first integral) -------------------------------------------
@lru_cache(maxsize=256)
def nested(family: str, pt: Point, side: str = "D", digits: int = 15) -> mpmath.mpf:
    """∫_{M-t}^∞ p(z) (∫_{t+z-q_i}^∞ p(x) dx) dz, both integrals by quadrature, the inner one at every
    node of the outer one (few points; both half lines on the exponential map of `proofs.quadrature.exp_tail`,
    on which the inner integrand is a constant: 10-30 nodes instead of 200-460)."""
    with mpmath.workdps(digits):
        b, t = scale(pt.eps, pt.delta), mpf(pt.t)
        M, q = (pt.M, pt.q) if side == "D" else (pt.Mp, pt.qp)
        qm = mpf(q)

        def inner(z: mpmath.mpf) -> mpmath.mpf:
            # the ∫_0^∞ part is the same for every outer node with t + z - q_i < 0: summed once (numerics.quad's key)
            return quad(lambda x: pdf(family, x, b), t + z - qm, None, [0], key=("pdf", family, b), decay=b)

        return +quad(lambda z: pdf(family, z, b) * inner(z), _lower(M, pt.t), None, [0, qm - t], decay=b)


@lru_cache(maxsize=256)
def p2_substituted_denominator(pt: Point, digits: int = 15) -> mpmath.mpf:
    """∫∫ p(z') p(x_i') I[M(D) < t + z <= q_i(D) + x_i] dx_i dz with z' = z - κ and
    x_i' = x_i - κ + q_i(D) - q_i(D') (the two equations of Proof 2 solved for z', x_i')."""
    with mpmath.workdps(digits):
        b, t, q, qp = scale(pt.eps, pt.delta), mpf(pt.t), mpf(pt.q), mpf(pt.qp)
        k = mpf(pt.kappa)
        shift_x = -k + q - qp

        def inner(z: mpmath.mpf) -> mpmath.mpf:
            # the part beyond the kink -shift_x is the same for every outer node below it: summed once
            return quad(lambda x: pdf("laplace", x + shift_x, b), t + z - q, None, [-shift_x], key=("pdf(x + s)", "laplace", b, shift_x), decay=b)

        return +quad(lambda z: pdf("laplace", z - k, b) * inner(z), _lower(pt.M, pt.t), None, [k, q - t - shift_x], decay=b)


# --- total probability ------------------------------------------------------------------------------------------------
def total_probability(family: str, eps: Fraction, delta: Fraction, t: Fraction, previous: Sequence[Fraction], q_i: Fraction, digits: int = 20) -> tuple[mpmath.mpf, mpmath.mpf]:
    """(∫ Pr[A = s_i ∥ M = m] dP_M(m), Pr[A = s_i]) for queries previous + [q_i], i = len(previous) + 1."""
    from verify.probabilities import mp_conditional, mp_distribution

    mech = mechanism(family, eps, delta, t)
    ref = mp_distribution(mech, [*previous, q_i], digits)[len(previous)]
    if not previous:
        return mp_conditional(mech, None, q_i - t, digits), ref
    with mpmath.workdps(digits):
        b = scale(eps, delta)
        P = [mpf(q) for q in previous]

        def density_of_max(m: mpmath.mpf) -> mpmath.mpf:
            s = mpmath.mpf(0)
            for j, qj in enumerate(P):
                term = pdf(family, m - qj, b)
                for l_, ql in enumerate(P):
                    if l_ != j:
                        term *= cdf(family, m - ql, b)
                s += term
            return s

        def cond(m: mpmath.mpf) -> mpmath.mpf:
            return mp_conditional(mech, mpf_fraction(m) - t, q_i - t, digits)

        lo = None if family_type(family).two_sided else min(previous)
        val = quad(lambda m: density_of_max(m) * cond(m), lo, None, [*previous, t, q_i], decay=b)
        return val, ref
