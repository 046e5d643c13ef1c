"""Interval arithmetic of the certification (`verify.certify.interval`).

Re-homed from the mutation rounds' files (`test_mutation_kills.py`); each class or test keeps its name, so
docs/mutation.md and `benchmarks/mutation_score.py` still find it.
"""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np


# --- interval arithmetic: sums with infinite endpoints, printing --------------------------------------
def test_interval_sums_with_infinite_endpoints_follow_the_extended_reals():
    """`Interval.__add__` with infinite endpoints: +∞ + finite = +∞ and -∞ + finite = -∞ at either end;
    +∞ + (-∞) is undefined and widens that end to the safe side (lower end -∞, upper end +∞)."""
    from verify.certify.interval import INF, Interval

    one = Interval.point(1)
    assert (Interval(INF, INF) + one) == Interval(INF, INF) == (one + Interval(INF, INF))
    assert (Interval(-INF, -INF) + one) == Interval(-INF, -INF) == (one + Interval(-INF, -INF))
    assert (Interval(INF, INF) + Interval(-INF, -INF)) == Interval.everything()
    assert (Interval(-INF, -INF) + Interval(INF, INF)) == Interval.everything()
    assert (Interval(-INF, 1) + Interval.of(2, None)) == Interval.everything()
    s = Interval.of(1, None) + Interval.of(F(1, 2), None)
    assert s.hi == INF and s.lo == Interval.point(F(3, 2)).lo


def test_interval_boundedness_and_zero_times_infinity():
    """`is_bounded` is true only with both endpoints finite; 0·∞ is undefined, so a product in which an
    endpoint 0 meets an infinite one widens to (-∞, ∞)."""
    from verify.certify.interval import Interval

    assert Interval.of(0, 1).is_bounded()
    assert not Interval.of(1, None).is_bounded() and not Interval.of(None, 1).is_bounded()
    assert (Interval.of(0, 1) * Interval.of(1, None)) == Interval.everything()
    assert (Interval.of(None, -1) * Interval.of(0, 1)) == Interval.everything()
    assert (Interval.of(1, 2) * Interval.of(1, None)) == Interval(Interval.point(1).lo, float("inf"))


def test_interval_of_a_non_finite_ball_is_everything():
    """A ball that is not finite (here arb's log(0), a NaN ball) encloses nothing usable: the interval made
    from it is (-∞, ∞), never an empty or one-sided one."""
    from flint import arb

    from verify.certify.interval import Interval

    assert Interval.ball(arb(0).log()) == Interval.everything()


def test_interval_prints_ten_digits():
    """An interval prints as [lo, hi] with ten significant digits and inf for infinite ends."""
    from verify.certify.interval import Interval

    assert repr(Interval.of(F(1, 2), None)) == "[0.5000000000, inf]"
    assert repr(Interval.point(F(1, 3))) == "[0.3333333333, 0.3333333333]"
    assert repr(Interval.everything()) == "[-inf, inf]"


def test_interval_reciprocal_through_zero_is_everything():
    """1/x over an interval that contains or touches 0 is undefined at 0, so `Interval.reciprocal` widens
    it to (-∞, ∞); an interval strictly on one side of 0 gets its exact reciprocal range."""
    from verify.certify.interval import Interval

    for lo, hi in ((-1, 0), (0, 1), (-1, 1), (0, 0)):
        assert Interval.of(lo, hi).reciprocal() == Interval.everything(), (lo, hi)
    assert Interval.of(-4, -2).reciprocal() == Interval.of(F(-1, 2), F(-1, 4))
    assert Interval.of(2, 4).reciprocal() == Interval.of(F(1, 4), F(1, 2))


# --- interval arithmetic: zero, log at 0, expm1 at -∞ (second round) ---------------------------
def test_interval_is_zero_only_for_the_exact_point_zero():
    """`Interval.is_zero` is true exactly for [0, 0]: not for [-1, 0], [0, 1] or an interval with an infinite
    end.  It decides `__mul__`'s shortcut 0·x = 0 (even for x = (-∞, ∞)), so [0, 0]·(-∞, ∞) = [0, 0] while
    [-1, 0]·(-∞, ∞) is (-∞, ∞)."""
    from verify.certify.interval import INF, Interval

    zero = Interval.point(0)
    assert zero.is_zero()
    for iv in (Interval.of(-1, 0), Interval.of(0, 1), Interval(zero.lo, INF), Interval(-INF, zero.hi), Interval.everything()):
        assert not iv.is_zero(), iv
    assert zero * Interval.everything() == zero == Interval.everything() * zero
    assert Interval.of(-1, 0) * Interval.everything() == Interval.everything()


def test_interval_log_is_minus_infinity_only_at_an_endpoint_zero():
    """`Interval.log`: an endpoint 0 maps to -∞ and a positive endpoint x to an enclosure of log x (log 1 = 0
    exactly, log 2 ≈ 0.693); [1, 2].log() is therefore [0, log 2], not (-∞, log 2]."""
    from verify.certify.interval import INF, Interval

    iv = Interval.of(1, 2).log()
    assert iv.lo == 0 and iv.hi != INF and 0.6931 < float(iv.hi) < 0.6932
    assert Interval.of(0, 1).log() == Interval(-INF, iv.lo)
    assert Interval.point(0).log() == Interval(-INF, -INF)


def test_interval_expm1_is_at_least_minus_one():
    """exp(x) - 1 > -1 for every real x, and tends to -1 as x -> -∞: `Interval.expm1` of (-∞, 0] is [-1, 0],
    and of the point -∞ (at either end) the point -1."""
    from verify.certify.interval import INF, Interval

    assert Interval.of(None, 0).expm1() == Interval.of(-1, 0)
    assert Interval(-INF, -INF).expm1() == Interval.point(-1)
    assert Interval.everything().expm1() == Interval.of(-1, None)


# worst_case's decision, guard and tightness rules: tests/test_worstcase_guard.py (the family engine).


def test_signed_log_terms_sum_and_the_empty_sum():
    """`verify.engine.fast_closed_form._Terms.total`: the log of a sum of signed terms (log|term|, sign) and its condition number
    Σ|term| / |Σ term|; no term at all is the empty sum 0, log -inf, condition 1.  2 + 1 = 3 (condition 1),
    2 - 1 = 1 (condition 3)."""
    from verify.engine.fast_closed_form import _Terms

    logv, cond = _Terms().total(3)
    assert np.all(logv == -np.inf) and np.all(cond == 1.0)
    t = _Terms()
    t.add(np.log(np.array([2.0, 2.0])), np.array([1.0, 1.0]))
    t.add(np.log(np.array([1.0, 1.0])), np.array([1.0, -1.0]))
    logv, cond = t.total(2)
    assert np.allclose(logv, [np.log(3.0), 0.0], rtol=0, atol=1e-15) and np.allclose(cond, [1.0, 3.0], rtol=1e-15)
