"""Each verdict word of the family's worst-case decision at the edge of its rule, one step either side.

The search runs as usual (one or two queries), but the exact confirmation `confirm` is replaced by a
stub that returns a witness with a chosen loss, so that each rule can be tried just inside and just
outside its threshold (module docstring of `verify.family.worstcase`):

* ``not_private`` / ``exceeded``: confirmed loss > ε + tol, tol = 10^-(50-5)·max(1, ε);
* ``private``: a proven bound <= ε (equality included);
* ``unbounded``: a loss exactly infinite (one side 0) or a proven growth family, never a large finite loss;
* ``attained``: the 50-digit loss equals the bound to 10^-45;
* ``approached``: bound - loss <= 10^-6·bound;
* the guard: a confirmed loss above the proven bound by more than tol is a bug (RuntimeError).

A rule loosened or tightened by one step (45 -> 44 or 46 digits, 25 digits, the factor max(1, ε)
dropped, a gap of 10^-5 or 10^-7, a factor 2 on the guard) fails one of these tests.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

import verify.family.worstcase as fw
from verify.family.witness import FamilyWitness
from verify.mechanism import SparseVector
from verify.noise import Noise, NoiseSpec
from verify.verdicts import MechanismVerdict, Tightness

D = Fraction(1)


def lap(b) -> Noise:
    return Noise("laplace", Fraction(b))


def mp(x: Fraction) -> mpmath.mpf:
    """x at 120 digits (well beyond the 50 + 15 the decision works at)."""
    with mpmath.workdps(120):
        return mpmath.mpf(x.numerator) / x.denominator


def variant(eps, bz, bx, z="laplace", x="laplace", cutoff=1) -> SparseVector:
    return SparseVector(Fraction(eps), D, Fraction(0), NoiseSpec(z, absolute=Fraction(bz)), NoiseSpec(x, absolute=Fraction(bx)),
                        cutoff=cutoff)


def stub_confirm(monkeypatch, loss_of):
    """Replace the 50-digit confirmation by a witness whose loss is ``loss_of()`` (mpf, or inf)."""
    def confirm(shape, q, qn, outcome, released=(), digits=50):
        with mpmath.workdps(120):
            loss = loss_of()
            p = mpmath.mpf(1) / 4
            pn = mpmath.mpf(0) if mpmath.isinf(loss) else p * mpmath.exp(-loss)
        return FamilyWitness(tuple(q), tuple(qn), outcome, tuple(released), p, pn, digits)

    monkeypatch.setattr(fw, "confirm", confirm)


def run(monkeypatch, shape, loss, max_queries=1, tightness=True):
    with mpmath.workdps(120):
        value = loss if callable(loss) else (lambda: loss)
    stub_confirm(monkeypatch, value)
    return fw.family_worst_case(shape, max_queries=max_queries, tightness_study=tightness)


def tiny(k) -> mpmath.mpf:
    with mpmath.workdps(120):
        return mpmath.mpf(10) ** -k


# M1 at scales 2Δ/ε (bound 3ε/2 > ε: no `private`, no guard below 3ε/2)
WEAK = variant(Fraction(1, 10), 20, 20)
# the seed's Mechanism One (Lap(3Δ/ε) on both): bound exactly ε
M1 = variant(Fraction(1, 10), 30, 30)


def test_not_private_just_above_epsilon_plus_tol_and_not_just_below(monkeypatch):
    e = mp(WEAK.epsilon)
    with mpmath.workdps(120):
        above, below = e + 2 * tiny(45), e + 5 * tiny(46)
    r = run(monkeypatch, WEAK, above, tightness=False)
    assert r.verdict is MechanismVerdict.NOT_PRIVATE and r.tightness is Tightness.EXCEEDED
    r = run(monkeypatch, WEAK, below, tightness=False)
    assert r.verdict is MechanismVerdict.UNDECIDED and r.tightness is not Tightness.EXCEEDED


def test_not_private_tolerance_scales_with_epsilon_above_one(monkeypatch):
    # ε = 4: tol = 4·10^-45; Lap(2Δ/ε) noise so that the bound 3ε/2 does not trigger the guard
    big = variant(4, Fraction(1, 2), Fraction(1, 2))
    with mpmath.workdps(120):
        inside, outside = 4 + 3 * tiny(45), 4 + 5 * tiny(45)
    assert run(monkeypatch, big, inside, tightness=False).verdict is MechanismVerdict.UNDECIDED
    assert run(monkeypatch, big, outside, tightness=False).verdict is MechanismVerdict.NOT_PRIVATE


def test_private_at_a_bound_equal_to_epsilon_and_not_just_above(monkeypatch):
    with mpmath.workdps(120):
        small = mp(M1.epsilon) / 2
    r = run(monkeypatch, M1, small, tightness=False)
    assert r.upper_bound.value == M1.epsilon and r.verdict is MechanismVerdict.PRIVATE
    # b_X one millionth smaller: Δ/b_Z + 2Δ/b_X just above ε
    nudged = variant(Fraction(1, 10), 30, Fraction(30) * (1 - Fraction(1, 10**6)))
    r = run(monkeypatch, nudged, small, tightness=False)
    assert r.upper_bound.value > nudged.epsilon and r.verdict is MechanismVerdict.UNDECIDED


def test_unbounded_needs_an_infinite_loss_or_a_growth_proof(monkeypatch):
    # exponential threshold noise, cutoff 2: no proven bound (so no guard) and no growth family
    no_bound = variant(Fraction(1, 10), 30, 30, z="exponential", cutoff=2)
    r = run(monkeypatch, no_bound, mpmath.inf, tightness=False)
    assert r.unbounded and "probability exactly 0" in r.unbounded_evidence
    # a loss of 10^6 nats is large, but finite
    with mpmath.workdps(120):
        huge = mpmath.mpf(10) ** 6
    r = run(monkeypatch, no_bound, huge, tightness=False)
    assert r.verdict is MechanismVerdict.NOT_PRIVATE and not r.unbounded and r.unbounded_evidence is None
    # unlimited cutoff: the no-cutoff growth family proves it at a small finite loss
    r = run(monkeypatch, variant(Fraction(1, 10), 30, 30, cutoff=None), mp(Fraction(1, 20)), tightness=False)
    assert r.unbounded and "no cutoff" in r.unbounded_evidence


def test_guard_a_loss_above_the_bound_by_more_than_tol_is_a_bug(monkeypatch):
    b = mp(M1.epsilon)  # the bound of M1 is ε
    with mpmath.workdps(120):
        ok, bad = b + 5 * tiny(46), b + 2 * tiny(45)
    assert run(monkeypatch, M1, ok, tightness=False).verdict is MechanismVerdict.PRIVATE
    with pytest.raises(RuntimeError, match="exceeds the proven bound"):
        run(monkeypatch, M1, bad, tightness=False)
    # and far above (a guard loosened by a factor 2 would still let 1.5·bound through)
    with pytest.raises(RuntimeError, match="exceeds the proven bound"):
        run(monkeypatch, WEAK, mp(Fraction(3, 2) * Fraction(3, 20)), tightness=False)  # WEAK's bound is 3/20


# the seed's Mechanism Two: exp(3Δ/ε) noise, its bound ε is attained at moderate queries
M2 = variant(Fraction(1, 10), 30, 30, z="exponential", x="exponential")


def test_attained_at_fifty_digits_and_not_one_digit_short(monkeypatch):
    b = mp(M2.epsilon)
    with mpmath.workdps(120):
        at, near = b - 5 * tiny(46), b - 2 * tiny(45)
    r = run(monkeypatch, M2, at, max_queries=2)
    assert r.verdict is MechanismVerdict.PRIVATE and r.tightness is Tightness.ATTAINED
    r = run(monkeypatch, M2, near, max_queries=2)
    assert r.tightness is Tightness.APPROACHED  # 2·10^-45 is far below 10^-6·bound, but not equality at 45 digits


def test_approached_below_a_millionth_of_the_bound_and_loose_above(monkeypatch):
    b = mp(M1.epsilon)
    with mpmath.workdps(120):
        inside, outside = b * (1 - mpmath.mpf("0.9e-6")), b * (1 - mpmath.mpf("1.1e-6"))
    assert run(monkeypatch, M1, inside).tightness is Tightness.APPROACHED
    r = run(monkeypatch, M1, outside)
    assert r.verdict is MechanismVerdict.PRIVATE and r.tightness is Tightness.LOOSE
