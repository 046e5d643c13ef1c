"""The claims' quadratures with ``decay`` (`proofs.quadrature.quad`): infinite ends on the exponential map
∫_c^∞ f = ∫_0^1 f(c - b ln u)·b/u du, every piece by Gauss-Legendre until two consecutive degrees agree
within ε, by tanh-sinh when they do not.

It must give the seed's integrals to the working precision (against closed forms and against mpmath's own
tanh-sinh on its map of a half line, the path without ``decay``) with far fewer evaluations of the
integrand; and the forms' memo (`proofs.conditional.by_inputs`) must share a value only between points
that agree on what the form reads."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from proofs import conditional as C
from proofs import numerics
from proofs.numerics import Point, cdf, mpf, pdf, quad
from proofs.quadrature import gauss_sum

FORMS = (C.p1_survival_form, C.p1_expectation_cdf_form, C.p1_integral_form, C.p1_shifted_form, C.m2_survival_form,
         C.m2_shifted_form)
#: Points of every case of the forms: i = 1 (M = -∞) and i > 1, M - t on each side of 0 and of q_i - t, κ of both signs.
POINTS = (
    Point(Fraction(1), Fraction(1), Fraction(0), None, Fraction(1, 2), None, Fraction(3, 2)),
    Point(Fraction(1, 2), Fraction(2, 3), Fraction(1, 2), Fraction(-1), Fraction(2), Fraction(-1, 3), Fraction(4, 3)),
    Point(Fraction(3), Fraction(1), Fraction(-1), Fraction(2), Fraction(-3, 2), Fraction(1), Fraction(-1, 2)),
    Point(Fraction(7, 5), Fraction(1, 3), Fraction(1, 4), Fraction(1, 4), Fraction(1, 4), Fraction(7, 12), Fraction(-1, 12)),
)


def _exact(form, pt: Point) -> mpmath.mpf:
    """The closed form each form equals: the library's conditional probability of its side."""
    if form is C.m2_shifted_form:
        return C.library("exponential", pt, "Dp")
    return C.library("exponential" if form is C.m2_survival_form else "laplace", pt)


def _without_tails(form, pt: Point, monkeypatch) -> mpmath.mpf:
    """The form on mpmath's own map of the half line (``quad`` without ``decay``), not remembered."""
    plain = numerics.quad

    def no_decay(f, lo, hi, kinks=(), key=None, decay=None):
        return plain(f, lo, hi, kinks, key)

    with monkeypatch.context() as m:
        m.setattr(C, "quad", no_decay)
        return form.__wrapped__(pt)


@pytest.mark.parametrize("form", FORMS, ids=lambda f: f.__name__)
def test_every_form_on_the_exponential_map_is_the_closed_form_and_mpmaths_map_to_40_digits(form, monkeypatch) -> None:
    with mpmath.workdps(40):
        for pt in POINTS:
            got = form.__wrapped__(pt)
            exact = _exact(form, pt)
            plain = _without_tails(form, pt, monkeypatch)
            assert abs(got - exact) <= mpmath.mpf(10) ** -38 * exact, (form.__name__, pt, got, exact)
            assert abs(got - plain) <= mpmath.mpf(10) ** -37 * exact, (form.__name__, pt, got, plain)


@pytest.mark.parametrize("family", ["laplace", "exponential"])
def test_tails_of_a_density_are_its_survival_and_cdf(family: str) -> None:
    with mpmath.workdps(40):
        b = mpf(Fraction(7, 3))
        for c in (mpf(Fraction(-5, 2)), mpmath.mpf(0), mpf(Fraction(9, 4))):
            right = quad(lambda x: pdf(family, x, b), c, None, [0], decay=b)
            assert abs(right - (1 - cdf(family, c, b))) <= mpmath.mpf(10) ** -39
            if family == "laplace":
                left = quad(lambda x: pdf(family, x, b), None, c, [0], decay=b)
                assert abs(left - cdf(family, c, b)) <= mpmath.mpf(10) ** -39
        whole = quad(lambda x: pdf(family, x, b), None, None, decay=b)  # no finite breakpoint: 0 is the anchor
        assert abs(whole - 1) <= mpmath.mpf(10) ** -39


def test_the_exponential_map_needs_far_fewer_evaluations_than_mpmaths_half_line() -> None:
    b, q = mpf(3), mpf(Fraction(1, 3))
    calls = []

    def f(z):
        calls.append(z)
        return pdf("laplace", z, b) * (1 - cdf("laplace", z - q, b))

    with mpmath.workdps(40):
        quad(f, mpf(Fraction(1, 2)), None)
        plain = len(calls)
        calls.clear()
        quad(f, mpf(Fraction(1, 2)), None, decay=b)
        mapped = len(calls)
    assert plain >= 500  # mpmath's map of [c, ∞) runs to degree 8 at 40 digits
    assert mapped <= 20, (mapped, plain)  # a polynomial of degree 1 in u: 3 and 6 Gauss nodes agree


def test_gauss_legendre_gives_way_to_tanh_sinh_where_its_degrees_do_not_agree() -> None:
    """√x on [0, 1] (an endpoint singularity, not a case of the claims): Gauss-Legendre's degrees disagree
    beyond ε, so `gauss_sum` returns None and quad falls back to tanh-sinh, which gets 2/3."""
    with mpmath.workdps(40):
        assert gauss_sum(mpmath.sqrt, mpmath.mpf(0), mpmath.mpf(1), mpmath.mp.prec, mpmath.eps / 8) is None
        got = quad(mpmath.sqrt, mpmath.mpf(0), mpmath.mpf(1), decay=1)
        assert abs(got - mpmath.mpf(2) / 3) <= mpmath.mpf(10) ** -39
        smooth = gauss_sum(mpmath.exp, mpmath.mpf(-1), mpmath.mpf(2), mpmath.mp.prec, mpmath.eps / 8)
        assert smooth is not None and abs(smooth[0] - (mpmath.e ** 2 - 1 / mpmath.e)) <= mpmath.mpf(10) ** -39


@pytest.mark.slow
@pytest.mark.parametrize("family", ["exponential", "laplace"])
def test_the_nested_integral_equals_the_form_with_its_inner_integral_in_closed_form_to_40_digits(family: str) -> None:
    """The seed's double integral, both integrals by quadrature (`conditional.nested`), against the outer quadrature
    over the inner integral in closed form (the survival function: m2_survival_form, p1_survival_form) and against
    the library's closed form, at the points of every case (i = 1, M - t on each side of 0 and of q_i - t)."""
    closed_inner = C.m2_survival_form if family == "exponential" else C.p1_survival_form
    for pt in POINTS:
        for side in ("D", "Dp"):
            v = C.nested(family, pt, side, 40)
            with mpmath.workdps(40):
                w = closed_inner(pt) if side == "D" else closed_inner(Point(pt.eps, pt.delta, pt.t, pt.Mp, pt.qp, pt.M, pt.q))
                ref = C.library(family, pt, side, 45)
                assert abs(v - w) <= mpmath.mpf(10) ** -36 * ref, (family, pt, side, v, w)
                assert abs(v - ref) <= mpmath.mpf(10) ** -36 * ref, (family, pt, side, v, ref)
    pt = POINTS[1]
    v = C.p2_substituted_denominator(pt, 40)  # Proof 2's substituted denominator, a double integral: Pr[A(D') = s_i ∥ x]
    ref = C.library("laplace", pt, "Dp", 45)
    with mpmath.workdps(40):
        assert abs(v - ref) <= mpmath.mpf(10) ** -36 * ref


def test_a_form_is_shared_between_points_that_agree_on_what_it_reads_and_only_then() -> None:
    a = Point(Fraction(1), Fraction(1), Fraction(0), Fraction(1, 3), Fraction(1, 2), Fraction(-2, 3), Fraction(3, 2))
    same_d = Point(a.eps, a.delta, a.t, a.M, a.q, a.M, a.q)  # D as in a, another D'
    other_d = Point(a.eps, a.delta, a.t, a.M, Fraction(1, 4), a.Mp, a.qp)
    dp_as_d = Point(a.eps, a.delta, a.t, a.Mp, a.qp, a.M, a.q)  # a's D' as the D of this point
    with mpmath.workdps(40):
        assert C.p1_survival_form(same_d) is C.p1_survival_form(a)
        assert C.m2_survival_form(same_d) is C.m2_survival_form(a)
        assert C.p1_integral_form(dp_as_d) is C.p1_integral_form(a, "Dp")
        assert C.p1_survival_form(other_d) != C.p1_survival_form(a)
        assert C.p1_shifted_form(same_d) is not C.p1_shifted_form(a)  # κ differs: computed apart
        for form, pt, args in ((C.p1_survival_form, same_d, ()), (C.p1_integral_form, dp_as_d, ()), (C.m2_survival_form, a, ("Dp",))):
            assert form(pt, *args) == form.__wrapped__(pt, *args)  # the remembered value is the one computed afresh
        at_40 = C.p1_survival_form(a)
    with mpmath.workdps(20):  # remembered per working precision
        at_20 = C.p1_survival_form(a)
        assert at_20 is not at_40
        assert at_20._mpf_ == C.p1_survival_form.__wrapped__(a)._mpf_
