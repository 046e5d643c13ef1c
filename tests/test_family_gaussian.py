"""Gaussian SVT probabilities at far-pushed queries.

Before the mass window (`verify.engine.mass`) the quadrature split only at the kinks: at
q = (1601, -1599), output BA (gaussian-svt, ε = 1/10, Δ = 1, t = 1) it returned
1.0377e-699 (4.9% low), single-query B at 1601 was 98% low, and the arb balls were
[+/- 1e-258]-wide (true, useless).  mpmath.quad also stops on an *absolute* error
below eps, so an unscaled 1e-699 integrand is accepted at its first degree: 4e-14 relative
error even with dense panels.  The references here are therefore (a) the exact erfc form
for one query, (b) an independent dense-panel mpmath.quad (tanh-sinh, its own brute-force
scan for the mass, integrand divided by its peak) at 10 more digits.
"""

from __future__ import annotations

import random
from fractions import Fraction

import flint
import mpmath
import numpy as np
import pytest

from verify import probabilities
from verify.engine import integrand as integrand_mod
from verify.engine import quadrature
from verify.engine.quadrature import acb_enclosure
from verify.errors import InputError
from verify.family.presets import preset
from verify.family.probability import arb_probability, evaluate, mp_probability
from verify.mechanism import AboveThreshold
from verify.oracles.family import output_probability

DIGITS = 20
T = Fraction(1)


def _gsvt(cutoff: int = 2):
    return preset("gaussian-svt", epsilon=Fraction(1, 10), sensitivity=1, threshold=T, cutoff=cutoff)


def _reference(mech, queries, outcome: str, dps: int) -> mpmath.mpf:
    """∫ φ_Z(z) Π_B Φ((z - a_i)/σ_X) Π_A Φ((a_i - z)/σ_X) dz (a_i = q_i - t, shared threshold), written
    from scratch: the mass from a grid scan every σ_Z, then mpmath.quad (tanh-sinh) on panels 2σ_Z wide
    with the integrand divided by its peak."""
    sz, sx = (mpmath.mpf(n.scale.numerator) / n.scale.denominator for n in (mech.threshold_noise, mech.query_noise))
    a = [mpmath.mpf((Fraction(q) - T).numerator) / (Fraction(q) - T).denominator for q in queries]

    def logg(z):
        v = -z * z / (2 * sz * sz) - mpmath.log(sz * mpmath.sqrt(2 * mpmath.pi))
        for ai, ch in zip(a, outcome):
            u = (z - ai) / (sx * mpmath.sqrt(2))
            v += mpmath.log(mpmath.erfc(-u if ch == "B" else u) / 2)
        return v

    with mpmath.workdps(dps):
        lo, hi = min(a + [0]) - 30 * sx, max(a + [0]) + 30 * sx  # the mode is within 8k of [min a, max a]
        grid = mpmath.linspace(lo, hi, int((hi - lo) / sz) + 1)
        with mpmath.workdps(12):
            vals = [logg(z) for z in grid]
        top = max(vals)
        keep = [i for i, v in enumerate(vals) if v >= top - (dps * 2.31 + 30)]
        a0, b0 = grid[max(keep[0] - 1, 0)], grid[min(keep[-1] + 1, len(grid) - 1)]
        nodes = mpmath.linspace(a0, b0, max(2, int((b0 - a0) / (2 * sz)) + 1))
        peak = logg(grid[vals.index(top)])
        v = mpmath.quad(lambda z: mpmath.exp(logg(z) - peak), nodes)
        return v * mpmath.exp(peak)


def _in_ball(ball, x: mpmath.mpf) -> bool:
    """x lies in the ball, compared exactly (midpoint and radius are dyadic: man·2^exp)."""
    (mm, me), (rm, re) = ball.mid().man_exp(), ball.rad().man_exp()
    with mpmath.workprec(int(mm).bit_length() + int(rm).bit_length() + 4 * mpmath.mp.prec + 400):
        mid, rad = mpmath.ldexp(mpmath.mpf(int(mm)), int(me)), mpmath.ldexp(mpmath.mpf(int(rm)), int(re))
        return mid - rad <= x <= mid + rad


def _far_cases():
    """Seeded far-pushed queries, 200 to 2000 from t, each on its letter's unlikely side (B above t, A
    below) with probability 3/4 (outputs of 1 to 5 letters, probabilities down to ~1e-1000)."""
    rng = random.Random(20261201)
    cases = [([1601, -1599], "BA")]  # the colleague's point
    for outcome in ("B", "A", "AA", "BBA", "BABA", "BBBBA"):
        sides = [(1 if ch == "B" else -1) * (1 if rng.random() < 0.75 else -1) for ch in outcome]
        cases.append(([T + s * Fraction(rng.randint(400, 4000), 2) for s in sides], outcome))
    return cases


@pytest.mark.slow
@pytest.mark.parametrize(("queries", "outcome"), _far_cases())
def test_far_pushed_gaussian_meets_the_digits_and_the_ball_contains_it(queries, outcome):
    m = _gsvt()
    ref = _reference(m, queries, outcome, DIGITS + 10)
    e = evaluate(m, queries, outcome, digits=DIGITS)
    assert e.method == "quadrature"
    with mpmath.workdps(DIGITS + 15):
        assert ref > 0
        assert abs(e.value / ref - 1) <= mpmath.mpf(10) ** -DIGITS
    assert e.error_estimate <= mpmath.mpf(10) ** -DIGITS
    ball = arb_probability(m, queries, outcome, prec=100)
    assert _in_ball(ball, ref)
    with mpmath.workdps(30):  # informative, not just true (the old balls were 1e250 times the value)
        assert mpmath.mpf(ball.rad().str(5, radius=False)) <= mpmath.mpf(10) ** -18 * ref


@pytest.mark.slow
@pytest.mark.parametrize(("q", "letter"), [(1601, "B"), (-2399, "A"), (Fraction(3203, 2), "B"), (5, "A")])
def test_one_query_matches_the_exact_erfc_form(q, letter):
    """One query: X - Z ~ N(0, σ_X² + σ_Z²), Pr[B] = erfc((q - t)/(σ√2))/2 (the oracle's exact path too)."""
    m = _gsvt(cutoff=1)
    digits = 50
    with mpmath.workdps(digits + 15):
        d = T - Fraction(q)
        y = mpmath.mpf(d.numerator) / d.denominator / mpmath.sqrt(2 * (20**2 + 40**2))
        exact = mpmath.erfc(-y if letter == "B" else y) / 2
        oracle = output_probability(m, [q], letter, digits=digits)
        assert abs(oracle / exact - 1) <= mpmath.mpf(10) ** -(digits + 5)
        value = mp_probability(m, [q], letter, digits=digits)
        assert abs(value / exact - 1) <= mpmath.mpf(10) ** -digits
    ball = arb_probability(m, [q], letter, prec=200)
    assert _in_ball(ball, exact)


@pytest.mark.slow
def test_agrees_with_the_verdicts_oracle_far_out():
    """The verdicts' oracle (`verify.oracles.family`, its own mass grid, integrand divided by its peak so
    that mpmath.quad's absolute stopping rule becomes relative) and this path agree to 22 digits at
    a far-pushed point of ~1e-699 (before the peak scaling the oracle was ~4e-14 off here)."""
    m = _gsvt()
    ours = mp_probability(m, [1601, -1599], "BA", digits=25)
    oracle = output_probability(m, [1601, -1599], "BA", digits=25)
    with mpmath.workdps(40):
        assert abs(ours / oracle - 1) <= mpmath.mpf(10) ** -22


@pytest.mark.slow
def test_a_disagreement_between_passes_is_reported_not_hidden(monkeypatch):
    """Passes that never agree (each off by 1/n: a synthetic non-converging rule) must show in the
    estimate, and mp_probability must refuse the value rather than return it."""
    real = quadrature._window_quad

    def drifting(segs, window, kinks, n):
        value, err = real(segs, window, kinks, n)
        return value * (1 + mpmath.mpf(1) / n), err

    monkeypatch.setattr(quadrature, "_window_quad", drifting)
    m = _gsvt()
    e = evaluate(m, [1601, -1599], "BA", digits=DIGITS)
    assert e.error_estimate > mpmath.mpf(10) ** -3
    with pytest.raises(ArithmeticError, match="estimated relative error"):
        mp_probability(m, [1601, -1599], "BA", digits=DIGITS)


@pytest.mark.slow
def test_kinked_integrands_far_out_match_the_closed_form():
    """Laplace and exponential through the same quadrature and enclosure: the closed form is exact."""
    for mech, q, outcome in [
        (preset("lyu-1", epsilon=Fraction(1, 10), sensitivity=1, threshold=Fraction(1, 2)), [Fraction(1281, 2)] * 3 + [Fraction(-1279, 2)], "BBBA"),
        (preset("seed-m2"), [1, 1, 0, 3], "BBBA"),
        (preset("seed-m2"), [1], "B"),  # an exponential F vanishes at its kink
    ]:
        closed = evaluate(mech, q, outcome, digits=DIGITS, method="closed").value
        quad = evaluate(mech, q, outcome, digits=DIGITS, method="quadrature")
        with mpmath.workdps(DIGITS + 10):
            assert abs(quad.value / closed - 1) <= mpmath.mpf(10) ** -DIGITS
        assert _in_ball(acb_enclosure(mech, integrand_mod.build(mech, q, outcome), 100), closed)


def test_the_seed_paths_refuse_gaussian_noise():
    """verify.probabilities is the seed's closed form: Gaussian noise used to give wrong numbers silently
    (the fast path) or a ValueError about densities; now one InputError pointing to verify.family."""
    m = AboveThreshold.with_noise("gaussian", 1)
    calls = [
        lambda: probabilities.mp_distribution(m, [0, 1]),
        lambda: probabilities.arb_distribution(m, [0, 1]),
        lambda: probabilities.symbolic_distribution(m, [0, 1]),
        lambda: probabilities.fast_log_distribution(m, np.array([[0.0, 1.0]])),
        lambda: probabilities.distribution(m, [0, 1], "fast"),
        lambda: probabilities.mp_conditional(m, None, 0),
    ]
    for call in calls:
        with pytest.raises(InputError, match=r"gaussian threshold noise .*verify\.family\.probability") as info:
            call()
        assert "\n" not in str(info.value)
    assert flint.arb(1).contains(1)  # (flint imported for the balls above)
