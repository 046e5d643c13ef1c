"""Report Noisy Max's arb enclosure of the index probability (verify.selection.enclosure): the ball holds
the 50-digit mpmath value and the closed forms, is tight, and its tail bounds are what keeps it honest."""

from fractions import Fraction
from functools import cache

import flint
import pytest

from verify.errors import InputError
from verify.selection.enclosure import ENCLOSED_FAMILIES, arb_index_probability, exponential_pair_closed_form
from verify.selection.model import ReportNoisyMax, SelectionOutput
from verify.selection.presets import SELECTION_NAMES, selection_preset
from verify.selection.probability import mp_index_probabilities

#: Query vectors: k = 2..6, ties, far apart (a score 40 above the rest: probabilities near 1e-9), fractions.
QUERIES = [(0, 1), (0, 0, 1), (3, 0, 1, 1), (Fraction(-1, 2), 2, 2, 0, 1), (0, 40, 0, 1, 2, 5)]
CONTINUOUS_INDEX = [n for n in SELECTION_NAMES if selection_preset(n).family in ENCLOSED_FAMILIES
                    and selection_preset(n).output is SelectionOutput.INDEX]


def _fr(a) -> Fraction:
    """An exact arb (a midpoint or a radius) as a Fraction."""
    m, e = a.man_exp()
    return Fraction(int(m)) * Fraction(2) ** int(e)


def _holds(ball, value) -> bool:
    """Whether the ball contains ``value`` (an mpf), decided exactly in rationals."""
    x = Fraction(int(value.man)) * Fraction(2) ** int(value.exp) if value.man else Fraction(0)
    return abs(x - _fr(ball.mid())) <= _fr(ball.rad())


def _relative_radius(ball) -> Fraction:
    return _fr(ball.rad()) / abs(_fr(ball.mid()))


def test_the_continuous_index_presets_are_all_here():
    assert len(CONTINUOUS_INDEX) == 10  # 3 dp-sniper/statdp/checkdp Laplace, 2 exponential, 5 OpenDP


@cache
def _reference(family, b, optimize, qs):
    """The 50-digit mpmath values, shared by presets with the same law (e.g. RNM1, v1a and noisymax)."""
    return mp_index_probabilities(ReportNoisyMax(1, 1, family, b, "index", optimize=optimize), qs, 50)


@pytest.mark.slow
@pytest.mark.parametrize("name", CONTINUOUS_INDEX)
def test_ball_holds_the_50_digit_value_and_is_tight(name):
    mech = selection_preset(name)
    for qs in QUERIES:
        want = _reference(mech.family, mech.b, mech.optimize, qs)
        for i, w in enumerate(want):
            ball = arb_index_probability(mech, qs, i, prec=128)
            assert _holds(ball, w), (name, qs, i, ball, w)
            assert _relative_radius(ball) < Fraction(1, 10**20), (name, qs, i, ball)


def test_exponential_pair_closed_form_lies_in_the_ball():
    """k = 2, Exp(b): Pr[index 1] = 1 − e^{−d/b}/2 with d = q_1 − q_2 >= 0 (derived in
    `exponential_pair_closed_form`); the closed form, at 256 bits, lies inside the 128-bit ball."""
    mech = ReportNoisyMax(1, 1, "exponential", 2)
    for d in (Fraction(0), Fraction(1, 3), Fraction(5), Fraction(60)):
        ball = arb_index_probability(mech, (d, 0), 0, prec=128)
        old = flint.ctx.prec
        flint.ctx.prec = 256
        try:
            closed = exponential_pair_closed_form(d, mech.b)
        finally:
            flint.ctx.prec = old
        assert ball.contains(closed), (d, ball, closed)


def test_gumbel_softmax_lies_in_the_ball():
    """Gumbel-max is the exponential mechanism: Pr[i] = e^{q_i/b}/Σ_j e^{q_j/b} (b = 2)."""
    mech = ReportNoisyMax(1, 1, "gumbel", 2)
    qs = (0, 1, 3, Fraction(-1, 2), 7)
    old = flint.ctx.prec
    for i in range(len(qs)):
        ball = arb_index_probability(mech, qs, i)
        flint.ctx.prec = 256
        try:
            w = [(flint.arb(flint.fmpq(Fraction(q).numerator, Fraction(q).denominator)) / 2).exp() for q in qs]
            closed = w[i] / sum(w[1:], w[0])
        finally:
            flint.ctx.prec = old
        assert ball.contains(closed), (i, ball, closed)


@pytest.mark.parametrize("family", ENCLOSED_FAMILIES)
def test_near_cuts_the_tail_bounds_keep_the_value_inside(family):
    """Cuts 3 e-folds out leave tails of mass about e^{-3}: only the tails' [0, B] keeps the value inside,
    and the ball is correspondingly wide (a dropped tail bound fails here)."""
    mech = ReportNoisyMax(1, 1, family, 2)
    qs = (0, 1, Fraction(1, 2))
    want = mp_index_probabilities(mech, qs, 50)
    for i, w in enumerate(want):
        ball = arb_index_probability(mech, qs, i, margin=3)
        assert _holds(ball, w), (family, i, ball, w)
        assert _relative_radius(ball) > Fraction(1, 10**6)


def test_probabilities_sum_to_one_within_the_balls():
    for family in ENCLOSED_FAMILIES:
        mech = ReportNoisyMax(1, 1, family, 1)
        qs = (0, 2, 2, Fraction(7, 3))
        balls = [arb_index_probability(mech, qs, i) for i in range(len(qs))]
        old = flint.ctx.prec
        flint.ctx.prec = 128  # add at the balls' precision (the default 53 bits would round)
        try:
            total = sum(balls, flint.arb(0))
        finally:
            flint.ctx.prec = old
        assert total.contains(1) and total.rad() < flint.arb(10) ** -30, (family, total)


def test_one_score_is_certain():
    assert arb_index_probability(ReportNoisyMax(1, 1, "laplace", 2), (5,), 0) == 1


@pytest.mark.parametrize("mech, index, margin, words", [
    (ReportNoisyMax(1, 1, "laplace", 2, "value"), 0, None, "output: value"),
    (ReportNoisyMax(1, 1, "discrete-laplace", 2), 0, None, "noise family: 'discrete-laplace'"),
    (ReportNoisyMax(1, 1, "laplace", 2), 2, None, "index: 2"),
    (ReportNoisyMax(1, 1, "laplace", 2), 0, -1.0, "margin: -1.0"),
])
def test_refusals_are_one_line(mech, index, margin, words):
    with pytest.raises(InputError, match=words) as err:
        arb_index_probability(mech, (0, 1), index, margin=margin)
    assert "\n" not in str(err.value)


@pytest.mark.parametrize("family", ENCLOSED_FAMILIES)
def test_scores_far_from_zero_keep_the_ball_tight(family):
    """Pr[i] is shift-invariant: scores near 10^6 give a ball that overlaps the one at the shifted scores and is
    as tight (the enclosure subtracts max s before integrating)."""
    mech = ReportNoisyMax(1, 1, family, 2)
    far = arb_index_probability(mech, (10**6, 10**6 + 1, 10**6 - Fraction(1, 3)), 0)
    near = arb_index_probability(mech, (0, 1, Fraction(-1, 3)), 0)
    assert far.overlaps(near) and _relative_radius(far) < Fraction(1, 10**35), (far, near)
