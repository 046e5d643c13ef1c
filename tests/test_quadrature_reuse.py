"""`proofs.numerics.quad` reuses work (an interval's sum under a key, the nodes on [a, ∞), the nodes of a
finite interval mapped on mpmath's raw values) without
changing a single bit: its result is `mpmath.quad`'s over the same breakpoints."""

from __future__ import annotations

import random

import mpmath
import pytest

from proofs import numerics
from proofs.numerics import cdf, pdf, quad


def _cases(seed: int, n: int):
    rnd = random.Random(seed)
    for _ in range(n):
        b = mpmath.mpf(rnd.uniform(0.2, 5))
        lo = mpmath.mpf(rnd.uniform(-5, 5))
        q = mpmath.mpf(rnd.uniform(-3, 3))
        fam = rnd.choice(["laplace", "exponential"])
        for args in [(lo, None, [0, q]), (None, None, [0, q]), (None, lo, [0]), (lo, lo + 3, [0, q]), (mpmath.mpf(0), None, [])]:
            yield fam, b, q, args


def _mpmath_quad(f, lo, hi, kinks):
    a = mpmath.ninf if lo is None else lo
    c = mpmath.inf if hi is None else hi
    return mpmath.quad(f, [a, *sorted({k for k in kinks if a < k < c}), c])


@pytest.mark.slow
@pytest.mark.parametrize("dps", [15, 45])
def test_quad_is_mpmaths_bit_for_bit_with_and_without_a_key(dps: int) -> None:
    with mpmath.workdps(dps):
        for fam, b, q, args in _cases(dps, 2):
            def f(z, fam=fam, b=b, q=q):
                return pdf(fam, z, b) * (1 - cdf(fam, z - q, b))

            ref = _mpmath_quad(f, *args)
            key = ("test", fam, b, q)
            got = [quad(f, *args), quad(f, *args, key=key), quad(f, *args, key=key)]  # the last from the remembered sums
            assert all(g._mpf_ == ref._mpf_ for g in got), (dps, fam, args, ref, got)


def test_an_interval_met_again_under_the_same_key_is_not_summed_again() -> None:
    calls = []
    b = mpmath.mpf(3) / 2

    def f(x):
        calls.append(x)
        return pdf("laplace", x, b)

    with mpmath.workdps(20):
        quad(f, mpmath.mpf(-1), None, [0], key=("reuse test", b))
        first = len(calls)
        calls.clear()
        got = quad(f, mpmath.mpf(-2), None, [0], key=("reuse test", b))  # [-2, 0] is new, [0, ∞) is remembered
        again = len(calls)
        ref = _mpmath_quad(f, mpmath.mpf(-2), None, [0])
    assert 0 < again < first
    assert got._mpf_ == ref._mpf_


@pytest.mark.parametrize("prec", [53, 150])
def test_the_nodes_on_a_finite_interval_are_mpmaths(prec: int) -> None:
    from mpmath.calculus.quadrature import TanhSinh

    rule = TanhSinh(mpmath.mp)
    rnd = random.Random(prec)
    ends = [mpmath.mpf(0), mpmath.mpf(-1) / 3, mpmath.mpf(rnd.uniform(-9, 9)), mpmath.mpf(7) / 11, mpmath.mpf(-1), mpmath.mpf(1)]
    with mpmath.workprec(prec + 60):  # ends with more bits than the nodes' precision
        ends.append(mpmath.mpf(2) / 3 + mpmath.mpf(2) ** -(prec + 30))
    for a in ends:
        for b in ends:
            if a < b:
                for degree in (1, 3):
                    for _ in range(2):  # mpmath keeps an interval's nodes once asked twice: both ways
                        got = numerics.rule_nodes(a, b, degree, prec)
                        ref = rule.get_nodes(a, b, degree, prec)
                        assert [(x._mpf_, w._mpf_) for x, w in got] == [(x._mpf_, w._mpf_) for x, w in ref], (prec, a, b)


@pytest.mark.parametrize("prec", [53, 150])
def test_the_nodes_on_a_half_line_are_mpmaths(prec: int) -> None:
    from mpmath.calculus.quadrature import TanhSinh

    rule = TanhSinh(mpmath.mp)
    rnd = random.Random(prec)
    for a in [mpmath.mpf(0), mpmath.mpf(-1) / 3, mpmath.mpf(rnd.uniform(-9, 9)), mpmath.mpf(7) / 11]:
        for degree in (1, 3):
            got = numerics.rule_nodes(a, mpmath.inf, degree, prec)
            ref = rule.get_nodes(a, mpmath.inf, degree, prec)
            assert [(x._mpf_, w._mpf_) for x, w in got] == [(x._mpf_, w._mpf_) for x, w in ref], (prec, a, degree)


def test_a_remembered_density_or_cdf_is_the_one_computed_at_the_current_precision() -> None:
    x, b = mpmath.mpf(-7) / 10, mpmath.mpf(9) / 4
    for dps in (15, 40, 15, 70):  # the same arguments at several precisions, each value as computed afresh
        with mpmath.workdps(dps):
            for _ in range(2):
                assert pdf("laplace", x, b)._mpf_ == (mpmath.exp(-abs(x) / b) / (2 * b))._mpf_
                assert pdf("laplace", -x, b)._mpf_ == (mpmath.exp(-abs(x) / b) / (2 * b))._mpf_
                assert cdf("laplace", x, b)._mpf_ == (mpmath.exp(x / b) / 2)._mpf_
                assert cdf("exponential", -x, b)._mpf_ == (-mpmath.expm1(x / b))._mpf_
                assert pdf("exponential", x, b) == 0
