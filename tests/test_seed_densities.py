"""The seed's densities and CDFs as the claims' quadratures evaluate them (`proofs.numerics.pdf`, `cdf`):
computed on mpmath's raw values, they must equal the mpmath expressions they stand for (`_pdf`, `_cdf`,
the seed's formulas written with mpmath numbers) bit for bit, at every precision the claims use, on
nodes with more bits than the precision, at 0, at both signs, far in the tails; and a remembered value
is the value computed afresh."""

from __future__ import annotations

import random

import mpmath
import pytest

from proofs import numerics
from proofs.numerics import _cdf, _pdf, cdf, pdf

FAMILIES = ("laplace", "exponential")
#: The claims' working precisions (15, 20, 40, 45, 70 digits) as bits, and the quadrature's own prec + 20.
PRECISIONS = (53, 70, 73, 90, 136, 153, 153 + 20, 236, 256)


def _points(rnd: random.Random, prec: int) -> list[mpmath.mpf]:
    with mpmath.workprec(prec + 40):  # more bits than the precision: the first operation rounds
        xs = [mpmath.mpf(rnd.uniform(-60, 60)) / 7 + mpmath.mpf(2) ** -(prec + 10) for _ in range(40)]
    xs += [mpmath.mpf(v) for v in (0, 1, -1, "1e-30", "-1e-30", 300, -300, "0.5", "-0.5")]
    return xs


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("prec", PRECISIONS)
def test_fast_densities_are_the_mpmath_expressions_bit_for_bit(family: str, prec: int) -> None:
    rnd = random.Random(prec)  # seeded
    xs = _points(rnd, prec)
    with mpmath.workprec(prec):
        for b in (mpmath.mpf(3), 3 * mpmath.mpf(2) / 3 / (mpmath.mpf(1) / 7), mpmath.mpf("0.061")):
            numerics._VALUES.clear()
            for x in xs:
                for f, ref in ((pdf, _pdf), (cdf, _cdf)):
                    want = ref(family, x, b)
                    got = f(family, x, b)
                    assert got._mpf_ == want._mpf_, (f.__name__, family, prec, x, b)
                    assert f(family, x, b)._mpf_ == want._mpf_  # remembered
                    assert f(family, -x, b)._mpf_ == ref(family, -x, b)._mpf_


def test_other_numbers_take_the_mpmath_expressions() -> None:
    # an int or a Fraction-built value is not a node: evaluated as written, not remembered
    assert pdf("laplace", 0, mpmath.mpf(3)) == mpmath.mpf(1) / 6
    assert cdf("laplace", 0, mpmath.mpf(3)) == mpmath.mpf("0.5")
    assert pdf("exponential", -1, mpmath.mpf(3)) == 0
