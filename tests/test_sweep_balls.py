"""Ball confirmation of a sweep's near-bound points (`verify.sweep.balls`).

A ball settles a point only when every number within the mpmath path's error of it is placed alike by
`verify.screen.classify` and recorded alike by the decision (float of |log ratio|); else the mpmath
closed form confirms the point as before.  These tests hold `settled` to those rules on balls built at
the edges (a tie at exactly ε, the tolerance's ends, a float rounding boundary, wide and signless balls),
the balls to the mpmath closed form, and whole sweeps with balls to the same sweeps confirmed by mpmath
alone (every count, witness and value the same).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import flint
import mpmath
import pytest

import verify.sweep.conditional as sc
import verify.sweep.outputs as so
from verify.mechanism import AboveThreshold, column_output
from verify.probabilities import mp_conditional, mp_probability
from verify.screen import Position, classify, confirm_tolerance
from verify.sweep import ConditionalGridSpec, GridSpec, conditional_sweep, sweep
from verify.sweep.balls import ball_bits, conditional_ball, log_ratio_ball, output_ball, output_balls, settled

DIGITS = 30
M1 = AboveThreshold.mechanism_one(1)
M2 = AboveThreshold.mechanism_two(1)
LAP1 = AboveThreshold.with_noise("laplace", 1, threshold_multiplier=1, query_multiplier=1)
NO_Z = AboveThreshold.with_noise("laplace", 1, threshold_multiplier=0)


def _ball(value: str, radius: str = "0", digits: int = DIGITS):
    """A ball at ``value`` (a decimal string, rounded at the balls' precision) of at least ``radius``."""
    old = flint.ctx.prec
    flint.ctx.prec = ball_bits(digits)
    try:
        return flint.arb(value) + flint.arb(0, radius)
    finally:
        flint.ctx.prec = old


def test_a_tie_at_epsilon_settles_at_the_bound_with_the_records_of_epsilon():
    for eps, text in ((Fraction(1), "1"), (Fraction(1, 3), "0.333333333333333333333333333333333333333333333333333333")):
        for sign in (1, -1):
            got = settled(_ball(("-" if sign < 0 else "") + text, "1e-45"), eps, DIGITS)
            assert got is not None
            assert classify(got, eps, DIGITS) is Position.AT_BOUND
            assert float(abs(got)) == float(eps)


@pytest.mark.parametrize("eps", [Fraction(1), Fraction(1, 10), Fraction(5, 2)])
def test_a_ball_across_an_end_of_the_tolerance_is_left_to_mpmath(eps):
    """Balls whose ends, widened by the mpmath path's error, fall on two sides of ε ± tol, or within the
    margins around those ends, are not settled; the same offsets well inside and well outside are, and placed as classify places them."""
    with mpmath.workdps(DIGITS + 40):
        e = mpmath.mpf(eps.numerator) / eps.denominator
        tol = confirm_tolerance(eps, DIGITS)
        cases = {  # offset from ε: settled? where
            tol: None, -tol: None, tol * (1 + mpmath.mpf(10) ** -6): None,
            tol + mpmath.mpf(10) ** -DIGITS: None, -tol - mpmath.mpf(10) ** -DIGITS: None,  # within the mpmath path's error
            tol / 2: Position.AT_BOUND, -tol / 2: Position.AT_BOUND,
            2 * tol: Position.VIOLATION, -2 * tol: Position.INSIDE,
        }
        texts = {off: mpmath.nstr(e + off, DIGITS + 30, strip_zeros=False) for off in cases}
    for off, place in cases.items():
        got = settled(_ball(texts[off], "1e-50"), eps, DIGITS)
        if place is None:
            assert got is None, off
        else:
            assert got is not None and classify(got, eps, DIGITS) is place, off


def test_a_ball_across_a_float_rounding_boundary_is_left_to_mpmath():
    """1 + 2^-53 is the midpoint between the floats 1 and 1 + 2^-52: a ball around it could be recorded
    as either, so it is not settled; a ball just as narrow a little above it is (recorded 1 + 2^-52)."""
    eps = Fraction(2)
    with mpmath.workdps(80):
        mid = mpmath.nstr(1 + mpmath.ldexp(1, -53), 60)
        above = mpmath.nstr(1 + 3 * mpmath.ldexp(1, -54), 60)
    assert settled(_ball(mid, "1e-50"), eps, DIGITS) is None
    got = settled(_ball(above, "1e-50"), eps, DIGITS)
    assert got is not None and float(abs(got)) == 1 + 2.0**-52


def test_a_wide_ball_a_signless_ball_and_no_ball_are_left_to_mpmath():
    assert settled(_ball("1", "1e-33"), Fraction(1), DIGITS) is None  # radius above 10^-(digits+5)
    assert settled(_ball("1", "1e-36"), Fraction(1), DIGITS) is not None
    assert settled(_ball("0", "1e-50"), Fraction(1), DIGITS) is None  # ends of both signs
    assert settled(None, Fraction(1), DIGITS) is None
    assert settled(flint.arb("nan"), Fraction(1), DIGITS) is None
    assert log_ratio_ball(_ball("0.5"), None, DIGITS) is None  # an exactly-zero probability
    assert log_ratio_ball(_ball("0.5"), _ball("0", "1e-60"), DIGITS) is None  # a ball not certainly positive


def test_the_settled_value_is_the_balls_midpoint_to_its_radius():
    b = _ball("0.69314718055994530941723212145817656807550013436025525412", "1e-52")
    got = settled(b, Fraction(1), DIGITS)
    with mpmath.workdps(80):
        assert abs(got - mpmath.log(2)) <= mpmath.mpf(10) ** -50


@pytest.mark.parametrize("mech", [M1, M2, NO_Z], ids=["mechanism one", "mechanism two", "no threshold noise"])
def test_output_balls_contain_the_mpmath_closed_form(mech):
    for q in ((-1, 2, 0), (3, 3, -2), (0, 0, 0)):
        for c in range(len(q) + 1):
            ball = output_ball(mech, q, c, 1, DIGITS)
            exact = mp_probability(mech, [Fraction(x) for x in q], column_output(c, len(q)), DIGITS + 10)
            if ball is None:
                assert exact == 0, (q, c)
                continue
            with mpmath.workdps(DIGITS + 20):
                assert abs(mpmath.mpf(ball.mid().str(DIGITS + 15, radius=False)) - exact) <= exact * mpmath.mpf(10) ** -(DIGITS + 5)
            assert ball.rad() < flint.arb(10) ** -(DIGITS + 10)


@pytest.mark.slow
@pytest.mark.parametrize("mech", [M1, M2], ids=["mechanism one", "mechanism two"])
def test_output_balls_asked_together_are_each_outputs_own(mech, monkeypatch):
    """Every output of every vector of a k = 3 grid, asked for at once (pieces with the same kinks are
    integrated in one pass), is a ball around that output's own mpmath closed form; and asked again,
    none is integrated twice."""
    import verify.sweep.balls as sb

    wanted = [(tuple(q), c) for q in itertools.product(range(-2, 3), repeat=3) for c in range(4)]
    sb.clear_output_balls()
    passes = []
    real = sb.ClosedForm.integrals

    def counted(self, pieces, floor=None):
        passes.append(len(pieces))
        return real(self, pieces, floor)

    monkeypatch.setattr(sb.ClosedForm, "integrals", counted)
    got = output_balls(mech, wanted, 1, DIGITS)
    assert sum(passes) == len(wanted) and max(passes) > 1  # each once, several in one pass
    assert output_balls(mech, wanted, 1, DIGITS) == got and sum(passes) == len(wanted)
    sb.clear_output_balls()
    for (q, c), ball in got.items():
        exact = mp_probability(mech, [Fraction(x) for x in q], column_output(c, 3), DIGITS + 10)
        if ball is None:
            assert exact == 0, (q, c)
            continue
        assert ball.rad() < flint.arb(10) ** -(DIGITS + 10)
        with mpmath.workdps(DIGITS + 20):
            assert abs(mpmath.mpf(ball.mid().str(DIGITS + 15, radius=False)) - exact) <= exact * mpmath.mpf(10) ** -(DIGITS + 5), (q, c)


def test_conditional_balls_contain_the_mpmath_closed_form():
    for mech in (M1, LAP1):
        for m, d in ((None, Fraction(0)), (Fraction(-1), Fraction(1, 2)), (Fraction(2), Fraction(-3))):
            ball = conditional_ball(mech, m, d, DIGITS)
            exact = mp_conditional(mech, m, d, DIGITS + 10)
            with mpmath.workdps(DIGITS + 20):
                assert abs(mpmath.mpf(ball.mid().str(DIGITS + 15, radius=False)) - exact) <= exact * mpmath.mpf(10) ** -(DIGITS + 5)


def _without_balls(monkeypatch, module):
    calls = []

    def never(lr, epsilon, digits):
        calls.append(lr)
        return None

    monkeypatch.setattr(module, "settled", never)
    return calls


@pytest.mark.parametrize("mech", [M2, NO_Z, LAP1], ids=["mechanism two", "no threshold noise", "Lap(1) both"])
def test_an_output_sweep_with_balls_is_the_sweep_confirmed_by_mpmath(mech, monkeypatch):
    k = 3 if mech is NO_Z else 2  # without threshold noise, k = 2 has no point at the bound on this grid
    spec = GridSpec(k=k, query_values=tuple(range(-3, 4)), chunk_size=1000, max_listed_violations=3)
    so.exact_output.cache_clear()
    with_balls = sweep(mech, spec, workers=1).to_json()
    calls = _without_balls(monkeypatch, so)
    mp_only = sweep(mech, spec, workers=1).to_json()
    so.exact_output.cache_clear()
    if mech is not LAP1:
        assert with_balls["near_bound_reevaluated"] > 0 and calls
    for key in ("seconds", "runner"):
        with_balls.pop(key, None), mp_only.pop(key, None)
    assert with_balls == mp_only


@pytest.mark.slow
@pytest.mark.parametrize("mech", [M1, LAP1], ids=["mechanism one", "Lap(1) both"])
def test_a_conditional_sweep_with_balls_is_the_sweep_confirmed_by_mpmath(mech, monkeypatch):
    spec = ConditionalGridSpec(sensitivity=mech.sensitivity, max_listed_violations=3)
    sc.exact_conditional.cache_clear()
    with_balls = conditional_sweep(mech, spec, workers=1).to_json()
    calls = _without_balls(monkeypatch, sc)
    mp_only = conditional_sweep(mech, spec, workers=1).to_json()
    sc.exact_conditional.cache_clear()
    assert with_balls["near_bound_reevaluated"] > 0 and calls
    for key in ("seconds", "runner"):
        with_balls.pop(key, None), mp_only.pop(key, None)
    assert with_balls == mp_only


def test_ball_bits_cover_the_digits_and_their_guard():
    assert ball_bits(30) >= math.ceil(55 * math.log2(10))
