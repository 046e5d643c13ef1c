"""A witness's 50-digit confirmation (`verify.family.witness.confirm`): arb balls of the closed form first, where
they settle every printed number, the mpmath oracle (`verify.oracles.family`) otherwise; the printed numbers are
the oracle's either way."""

from __future__ import annotations

from fractions import Fraction

import flint
import mpmath
import pytest

from verify.errors import InputError
from verify.family import witness
from verify.family.presets import preset
from verify.family.witness import FamilyWitness, confirm
from verify.oracles.family import MAX_GUARD_DIGITS, output_probability

E = Fraction(1, 10)

#: (preset, cutoff, q, q', outcome, released): witnesses of the family table (docs/family.md) and their kinds:
#: a shared threshold, a resampled one, releases (gap, fresh, query), and far-out queries (cancellation).
WITNESSES = [
    ("seed-m1", 1, (481, 481, 481, 481, -239), (482, 482, 482, 482, -240), "BBBBA", ()),
    ("lyu-2", 2, (1, 1, 0, 2, 1), (2, 2, -1, 1, 0), "BBABA", ()),
    ("gap-svt", 1, (1, 1, Fraction(3, 2)), (2, 2, Fraction(1, 2)), "BBA", (Fraction(1, 4),)),
    ("numeric-svt", 2, (0, 1, 1), (1, 2, 0), "BAA", (Fraction(7, 5), Fraction(6, 5))),
    ("lyu-6", None, (3, 3, 0, 0), (2, 2, 1, 1), "AABB", ()),
    ("lyu-1", 1, (Fraction(-5, 2), 1), (Fraction(-3, 2), 0), "BA", ()),
]


def _oracle(mech, q, qn, outcome, rel, digits=50) -> FamilyWitness:
    qq, qqn = tuple(Fraction(x) for x in q), tuple(Fraction(x) for x in qn)
    return FamilyWitness(qq, qqn, outcome, tuple(rel), output_probability(mech, qq, outcome, rel, digits),
                         output_probability(mech, qqn, outcome, rel, digits), digits)


@pytest.mark.parametrize("name,cutoff,q,qn,outcome,rel", WITNESSES)
def test_balls_settle_and_print_what_the_oracle_prints(name, cutoff, q, qn, outcome, rel):
    mech = preset(name, epsilon=E, threshold=1, cutoff=cutoff)
    qq, qqn = tuple(Fraction(x) for x in q), tuple(Fraction(x) for x in qn)
    assert witness._ball_probabilities(mech, qq, qqn, outcome, tuple(rel), 50) is not None  # the ball path decided
    got, want = confirm(mech, q, qn, outcome, rel).to_json(), _oracle(mech, q, qn, outcome, rel).to_json()
    assert got == want
    with mpmath.workdps(70):
        w = confirm(mech, q, qn, outcome, rel)
        assert mpmath.nstr(w.loss, 30) == mpmath.nstr(_oracle(mech, q, qn, outcome, rel).loss, 30)


def test_an_exact_zero_and_gaussian_noise_take_the_mpmath_path():
    """A probability exactly 0 (lyu-5's witness: infinite loss) is the oracle's exact 0, not a ball reaching 0;
    Gaussian noise has no closed form."""
    lyu5 = preset("lyu-5", epsilon=E, threshold=1)
    q = (Fraction(-51, 2), *([Fraction(-27)] * 9))  # the family table's witness (docs/family.md)
    qn = (Fraction(-53, 2), *([Fraction(-26)] * 9))
    outcome = "ABBBBBBBBB"
    w = confirm(lyu5, q, qn, outcome)
    assert witness._ball_probabilities(lyu5, q, qn, outcome, (), 50) is None
    assert (w.probability == 0) != (w.neighbour_probability == 0) and mpmath.isinf(w.loss)
    gauss = preset("gaussian-svt", epsilon=E, threshold=1, cutoff=1)
    assert witness._ball_probabilities(gauss, (Fraction(1), Fraction(0)), (Fraction(2), Fraction(1)), "BA", (), 20) is None


def test_a_ball_on_a_rounding_boundary_is_not_settled():
    """A ball whose ends print differently at 50 digits (its midpoint on `mpmath.nstr`'s rounding boundary near
    1 + 5·10^-50, found by bisection: nstr rounds to binary first, then to decimal) is refused, as is one wider than 10^-(digits+15) of its midpoint; a narrow ball away from the boundary is kept."""
    ident = ((lambda x: x, 50),)
    with mpmath.workdps(70), flint.ctx.workprec(300):
        edge = flint.arb("1.000000000000000000000000000000000000000000000000050000002745", "1e-75")
        assert witness._settled(edge, ident, 50) is None
        assert witness._settled(flint.arb("1.2", "1e-64"), ident, 50) is None  # radius above 10^-65
        kept = witness._settled(flint.arb("1.2", "1e-75"), ident, 50)
        assert kept is not None and mpmath.nstr(kept, 50) == mpmath.nstr(mpmath.mpf("1.2"), 50)


def test_the_oracles_input_limit_holds_on_the_ball_path():
    """Queries beyond the oracle's limit (`verify.oracles.family.MAX_GUARD_DIGITS` digits of cancellation) are
    refused by `confirm` as by the oracle, although the balls could be computed there: one limit for every exact
    path of a witness (the audit refuses such a claim up front, tests/test_audit_exit.py).  Just inside the
    limit the witness is confirmed."""
    mech = preset("lyu-1", epsilon=E, threshold=1, cutoff=1)
    b = min(n.scale for n in (mech.threshold_noise, mech.query_noise))
    far = int(2.3 * (MAX_GUARD_DIGITS - 20 - 2) * b)  # |q - t| at the edge of the limit
    with pytest.raises(InputError, match="at most 6000"):
        confirm(mech, (1 - 2 * far, 1), (-2 * far, 0), "BA")
    with pytest.raises(InputError, match="at most 6000"):
        output_probability(mech, (1 - 2 * far, 1), "BA", (), 50)
    assert confirm(mech, (1 - far // 2, 1), (-far // 2, 0), "BA", digits=20).probability > 0
