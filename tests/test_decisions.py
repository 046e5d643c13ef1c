"""Every decision rule of verify/ tested at its edge ("decisions that no test guards").

Each test sits where a rule flips, so that moving the rule (a threshold, a
comparison's strictness, a tolerance) makes it fail:

* worst case (`verify.worstcase.worst_case`): ``private`` only when the proven
  bound is <= ε (not <= 1.1ε); ``approached`` only when the gap to ε vanishes
  (not when it is merely small);
* the sampler (`AboveThreshold.sample`): the seed's rule "halt iff
  q_i + X_i >= t + Z", visible without noise where ties have positive mass;
* interval arithmetic (`verify.certify.interval`): every endpoint rounded
  outward, at a deliberately low arb precision so that rounding happens;
* sweep decisions (`verify.sweep`): a violation smaller than the float64 margin
  is still confirmed, a point just inside is not "at the bound", an exact
  bound is "at the bound", ``refuted_float64`` when nothing was confirmed;
* `verify.ratio.privacy_ratio`'s ``within_bounds``/``at_bound`` at the
  resolution of the digits asked for;
* certification (`verify.certify`): 1/c_Z + 2/c_X = 1 is certified, 1 + 10^-12
  refuted; `certify_sup` at a constant equal to / above the bound.

The near-ε mechanisms use exponential noise with c_Z = 3 and c_X = 3(1 ∓ 10^-12):
their worst log ratio is (1/c_Z + 2/c_X)·ε = ε(1 ± 2/3·10^-12) at
q(D) = (t, t), q(D') = (t+Δ, t-Δ), output s_2 (docs/certify.md, the tail cell),
which the first test checks at 40 digits before the others rely on it.
"""

from __future__ import annotations

import math
from contextlib import contextmanager
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest
import sympy
from flint import ctx
from hypothesis import Phase, example, given, settings
from hypothesis import strategies as st
from scipy import stats

from verify.certify import certify_conditional_ratio
from verify.certify.interval import Interval, evaluate, to_fraction
from verify.certify.search import Piece, certify_sup
from verify.errors import InputError
from verify.mechanism import NO_HALT, AboveThreshold
from verify.probabilities import mp_distribution
from verify.ratio import privacy_ratio
from verify.sweep import GridSpec, float_margin, sweep
from verify.verdicts import CertificateVerdict, MechanismVerdict, SweepVerdict, Tightness
from verify.worstcase import proven_upper_bound, worst_case

TINY = F(1, 10**12)
OVER = AboveThreshold.with_noise("exponential", 1, threshold_multiplier=3, query_multiplier=3 * (1 - TINY))
UNDER = AboveThreshold.with_noise("exponential", 1, threshold_multiplier=3, query_multiplier=3 * (1 + TINY))
AT = AboveThreshold.mechanism_two(1)
ATTAINED = ((F(0), F(0)), (F(1), F(-1)), 2)  # q(D), q(D'), output


def _excess(mech: AboveThreshold, digits: int = 40) -> mpmath.mpf:
    q, qn, out = ATTAINED
    r = privacy_ratio(mech, q, qn, outputs=[out], digits=digits).outputs[0]
    with mpmath.workdps(digits + 10):
        return abs(r.log_ratio) - 1


def test_near_epsilon_mechanisms_are_where_the_docstring_says():
    with mpmath.workdps(50):
        third = mpmath.mpf(2) / 3 * mpmath.mpf(10) ** -12
        assert abs(_excess(OVER) - third) < mpmath.mpf(10) ** -20
        assert abs(_excess(UNDER) + third) < mpmath.mpf(10) ** -20
        assert abs(_excess(AT)) < mpmath.mpf(10) ** -35
        assert 0 < _excess(OVER) < float_margin(1.0)  # inside float64's ambiguity band: needs mpmath


# --- worst case: verdict --------------------------------------------------------------------------------
def test_private_needs_a_proven_bound_at_most_epsilon():
    """Lap(3Δ/ε) threshold, Lap(2.9Δ/ε) queries: proven bound 1/3 + 2/2.9 = 1.023ε (<= 1.1ε but > ε).
    With one query the search cannot exceed ε (k = 1 loses at most 1/3 + 1/2.9), so the verdict
    rests on the bound alone: it must be `undecided`, never `private`."""
    mech = AboveThreshold.with_noise("laplace", 1, threshold_multiplier=3, query_multiplier=F(29, 10))
    bound = proven_upper_bound(mech)
    assert bound is not None and 1 < bound.value <= F(11, 10)
    r = worst_case(mech, max_queries=1, starts=1, push_study=False)
    assert float(r.loss) < 1
    assert r.verdict == MechanismVerdict.UNDECIDED


def test_private_at_a_bound_equal_to_epsilon():
    """Mechanism One: proven bound exactly ε: `private` (the rule is <=, not <)."""
    mech = AboveThreshold.mechanism_one(1)
    assert proven_upper_bound(mech).value == 1
    r = worst_case(mech, max_queries=1, starts=1, push_study=False)
    assert r.verdict == MechanismVerdict.PRIVATE
    assert r.tightness is None and not r.push  # no push study was asked for


def test_a_loss_equal_to_epsilon_is_not_a_violation_but_above_is():
    """Mechanism Two attains ε exactly (k = 2): not `not_private`; the OVER variant exceeds ε by
    6.7e-13 and must be `not_private` with a witness confirmed above ε."""
    kw = dict(max_queries=2, starts=1, push_study=False)
    at = worst_case(AT, **kw)
    assert at.verdict == MechanismVerdict.PRIVATE
    over = worst_case(OVER, **kw)
    assert over.verdict == MechanismVerdict.NOT_PRIVATE
    with mpmath.workdps(60):
        assert over.witness.loss > 1 + mpmath.mpf(10) ** -13


# --- worst case: tightness ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def lap_16_5():
    """Lap(16/5·Δ/ε) threshold, Lap(3Δ/ε) queries: sup loss = 5/16 + 2/3 = 47/48·ε < ε."""
    mech = AboveThreshold.with_noise("laplace", 1, threshold_multiplier=F(16, 5), query_multiplier=3)
    return worst_case(mech, max_queries=4, starts=1)


def test_tightness_is_measured_against_the_proven_bound_not_epsilon(lap_16_5):
    """The one tightness rule (`verify.family.worstcase`) asks whether the proven bound is tight: here the
    pushed loss approaches the bound 47/48 (gap below 1e-6·bound), while the gap to ε stays 1/48."""
    r = lap_16_5
    assert r.verdict == MechanismVerdict.PRIVATE and r.upper_bound.value == F(47, 48)
    final_gaps = [1 - v for k, p, v in r.push if p == max(pp for _, pp, _ in r.push)]
    with mpmath.workdps(40):
        assert min(final_gaps) > mpmath.mpf("0.02")  # to ε: open
        assert 0 <= mpmath.mpf(47) / 48 - r.loss < mpmath.mpf(10) ** -6 * 47 / 48  # to the bound: closing
    assert r.tightness == Tightness.APPROACHED


def test_push_table_has_eight_doubling_pushes_below_the_bound(lap_16_5):
    """The push table (`verify.family.worstcase._push`) follows the best layout with the queries pushed out to
    L = unit·2^j, j = 0..7: 8 confirmed losses, each below the bound."""
    r = lap_16_5
    assert len({k for k, _, _ in r.push}) == 1
    pushes = [p for _, p, _ in r.push]
    assert pushes == [pushes[0] * 2**j for j in range(8)]
    assert all(v < mpmath.mpf(47) / 48 for _, _, v in r.push)


# --- sampler ------------------------------------------------------------------------------------------
NO_NOISE = AboveThreshold.with_noise("laplace", 1, threshold=F(1, 2), threshold_multiplier=0, query_multiplier=0)


@pytest.mark.parametrize("queries, expected", [
    ((F(1, 2), F(3, 2)), [1, 0, 0]),     # q_1 = t exactly: q_1 + 0 >= t + 0 halts at once
    ((F(-1, 2), F(1, 2)), [0, 1, 0]),    # tie at the second query
    ((F(-1, 2), F(0)), [0, 0, 1]),       # nobody reaches t
])
def test_sampler_halts_on_ties_without_noise(queries, expected):
    exact = mp_distribution(NO_NOISE, queries, 30)
    assert [int(p) for p in exact] == expected
    counts = NO_NOISE.sample_counts(queries, 50, seed=1)
    assert list(counts) == [50 * e for e in expected]


def test_sampler_runs_and_rejects_bad_run_counts():
    assert list(NO_NOISE.sample_counts((F(1, 2),), 1, seed=0)) == [1, 0]  # one run is a valid run count
    with pytest.raises(InputError):
        NO_NOISE.sample((F(1, 2),), 0, seed=0)


@pytest.mark.parametrize("mech", [
    AboveThreshold.mechanism_one(1),
    AboveThreshold.with_noise("laplace", 1, threshold_family="exponential", threshold_multiplier=2, query_multiplier=F(1, 2)),
    AboveThreshold.with_noise("laplace", 1, query_family="none", threshold_multiplier=3, query_multiplier=0),
], ids=["Mechanism One", "Exp threshold, Lap queries", "no query noise"])
def test_sampler_matches_exact_distribution(mech):
    """χ² goodness of fit of 20,000 seeded runs against the exact probabilities; false-alarm rate
    1e-4 per case (the seed is fixed, so the test is deterministic)."""
    q = (F(1, 2), F(-1), F(1), F(0))
    runs = 20_000
    counts = mech.sample_counts(q, runs, seed=20261201)
    p = np.array([float(x) for x in mp_distribution(mech, q, 30)])
    keep = p > 0
    assert counts[~keep].sum() == 0  # impossible outputs never sampled
    chi2 = float((((counts[keep] - runs * p[keep]) ** 2) / (runs * p[keep])).sum())
    assert stats.chi2.sf(chi2, keep.sum() - 1) > 1e-4, (counts, runs * p)


# --- interval endpoints round outward ---------------------------------------------------------------
@contextmanager
def _arb_bits(bits: int):
    """arb at ``bits`` bits (12: nearly every operation rounds), restored afterwards."""
    old = ctx.prec
    ctx.prec = bits
    try:
        yield
    finally:
        ctx.prec = old


@pytest.fixture
def low_precision():
    with _arb_bits(12):
        yield


def _encloses(iv: Interval, exact: mpmath.mpf) -> bool:
    lo, hi = to_fraction(iv.lo), to_fraction(iv.hi)
    with mpmath.workdps(60):
        lo_ok = lo == -math.inf or mpmath.mpf(lo.numerator) / lo.denominator <= exact
        hi_ok = hi == math.inf or exact <= mpmath.mpf(hi.numerator) / hi.denominator
    return lo_ok and hi_ok


def _mpq(q: F) -> mpmath.mpf:
    return mpmath.mpf(q.numerator) / q.denominator


rationals = st.fractions(min_value=-50, max_value=50, max_denominator=10**6)


@pytest.mark.slow
@settings(max_examples=80, phases=[Phase.explicit, Phase.generate])  # no shrinking: the failing example is small already
@given(a=rationals, b=rationals)
@example(a=F(1, 3), b=F(-2, 3))
@example(a=F(1, 10), b=F(7, 10))
def test_every_interval_endpoint_rounds_outward(a, b):
    with _arb_bits(12):
        _check_outward(a, b)


def _check_outward(a: F, b: F) -> None:
    A, B = Interval.point(a), Interval.point(b)
    assert _encloses(A, _mpq(a)) and _encloses(B, _mpq(b))
    if a.denominator & (a.denominator - 1):  # not dyadic: cannot be exact, must be strictly inside
        assert to_fraction(A.lo) < a < to_fraction(A.hi)
    with mpmath.workdps(60):
        ea, eb = _mpq(a), _mpq(b)
        assert _encloses(A + B, ea + eb)
        assert _encloses(A - B, ea - eb)
        assert _encloses(A * B, ea * eb)
        if b != 0:
            assert _encloses(A / B, ea / eb)
        assert _encloses(A.exp(), mpmath.exp(ea))
        assert _encloses(A.expm1(), mpmath.expm1(ea))
        if a > 0:
            assert _encloses(A.log(), mpmath.log(ea))
        for n in (2, 3, -2):
            if n > 0 or a != 0:
                assert _encloses(A.power(n), ea**n)
        assert _encloses(Interval.of(a, None) + B, ea + eb)  # [a, ∞) + b
        x = sympy.Symbol("x")
        expr = sympy.exp(-x / 3) * (1 - sympy.exp(x) / 2) + sympy.Rational(1, 7) * x**2
        assert _encloses(evaluate(expr, {x: A}), mpmath.exp(-ea / 3) * (1 - mpmath.exp(ea) / 2) + ea**2 / 7)


def test_outward_rounding_example_one_third(low_precision):
    """At 12 bits 1/3 is not representable: the point interval must straddle it strictly."""
    iv = Interval.point(F(1, 3))
    assert to_fraction(iv.lo) < F(1, 3) < to_fraction(iv.hi)
    s = Interval.point(F(1, 3)) + Interval.point(F(1, 3)) + Interval.point(F(1, 3))
    assert to_fraction(s.lo) < 1 < to_fraction(s.hi)


def test_interval_predicates_are_conservative(low_precision):
    third = Interval.point(F(1, 3))
    assert not third.certainly_le(F(1, 3)) and not third.certainly_ge(F(1, 3))
    assert third.certainly_le(F(1, 2)) and third.certainly_ge(F(1, 4)) and third.certainly_gt(F(1, 4))
    assert not third.certainly_gt(F(1, 3))
    one = Interval.point(1)
    assert one.certainly_le(F(1)) and one.certainly_ge(F(1)) and not one.certainly_gt(F(1))


# --- sweep decisions ------------------------------------------------------------------------------------
SMALL = GridSpec(k=2, query_values=(F(0), F(1)))


def test_sweep_confirms_a_violation_below_the_float_margin():
    r = sweep(OVER, SMALL, workers=1)
    assert r.violation_count >= 1 and r.verdict == SweepVerdict.REFUTED
    assert r.per_epsilon[0].near_bound_reevaluated >= 1
    for v in r.violations:
        with mpmath.workdps(50):
            assert abs(mpmath.mpf(v.log_ratio)) > 1


def test_sweep_just_inside_is_neither_violation_nor_at_bound():
    r = sweep(UNDER, SMALL, workers=1)
    assert r.violation_count == 0 and r.per_epsilon[0].at_bound == 0
    assert r.per_epsilon[0].near_bound_reevaluated >= 1
    assert r.verdict == SweepVerdict.CONSISTENT


def test_sweep_exact_bound_is_at_bound_not_violation():
    r = sweep(AT, SMALL, workers=1)
    assert r.violation_count == 0 and r.per_epsilon[0].at_bound >= 1
    assert r.verdict == SweepVerdict.CONSISTENT


def test_sweep_unconfirmed_violations_read_refuted_float64():
    bad = AboveThreshold.with_noise("laplace", 1, threshold_multiplier=1, query_multiplier=1)
    listed = sweep(bad, GridSpec(k=2, query_values=(F(0), F(1))), workers=1)
    unlisted = sweep(bad, GridSpec(k=2, query_values=(F(0), F(1)), max_listed_violations=0), workers=1)
    assert listed.verdict == SweepVerdict.REFUTED and listed.violations
    assert unlisted.violation_count == listed.violation_count > 0 and not unlisted.violations
    assert unlisted.verdict == SweepVerdict.REFUTED_FLOAT64


# --- ratio: within_bounds / at_bound ---------------------------------------------------------------------
def test_ratio_within_bounds_at_the_resolution_of_the_digits():
    q, qn, out = ATTAINED
    over30 = privacy_ratio(OVER, q, qn, outputs=[out], digits=30).outputs[0]
    assert not over30.within_bounds and not over30.at_bound  # 6.7e-13 is resolved at 30 digits
    over10 = privacy_ratio(OVER, q, qn, outputs=[out], digits=10).outputs[0]
    assert over10.within_bounds and over10.at_bound  # ...but not at 10 (resolution 1e-7): cannot tell
    under30 = privacy_ratio(UNDER, q, qn, outputs=[out], digits=30).outputs[0]
    assert under30.within_bounds and not under30.at_bound
    at = privacy_ratio(AT, q, qn, outputs=[out], digits=30).outputs[0]
    assert at.within_bounds and at.at_bound
    inside = privacy_ratio(AT, q, qn, outputs=[1], digits=30).outputs[0]
    assert inside.within_bounds and not inside.at_bound
    # an output impossible on both sides cannot tell D from D': ratio 1, log ratio 0 (not a violation, not at the bound)
    none_both = privacy_ratio(NO_NOISE, (F(0), F(1)), (F(-1), F(1)), outputs=[NO_HALT], digits=30).outputs[0]
    assert none_both.probability == 0 == none_both.neighbour_probability
    assert none_both.log_ratio == 0 and none_both.ratio == 1 and none_both.within_bounds and not none_both.at_bound
    one_side = privacy_ratio(NO_NOISE, (F(0), F(1)), (F(1), F(1)), outputs=[2], digits=30).outputs[0]
    assert one_side.neighbour_probability == 0 < one_side.probability
    assert one_side.log_ratio == mpmath.inf and not one_side.within_bounds
    # the documented resolution 10^(3-digits)·max(1, ε): 6.7e-13 is resolved at 16 digits (1e-13), not at 15 (1e-12)
    assert not privacy_ratio(OVER, q, qn, outputs=[out], digits=16).outputs[0].within_bounds
    assert privacy_ratio(OVER, q, qn, outputs=[out], digits=15).outputs[0].at_bound


# --- certification verdicts -------------------------------------------------------------------------------
def test_certify_at_and_just_above_the_bound():
    assert certify_conditional_ratio(AT).verdict == CertificateVerdict.CERTIFIED
    assert certify_conditional_ratio(UNDER).verdict == CertificateVerdict.CERTIFIED
    over = certify_conditional_ratio(OVER)
    assert over.verdict == CertificateVerdict.REFUTED and over.counterexample is not None


def test_certify_sup_constant_pieces_at_the_edge():
    x = sympy.Symbol("x")
    at = certify_sup([Piece(None, None, sympy.Rational(1, 3))], x, F(1, 3))
    assert at.verdict == CertificateVerdict.CERTIFIED and at.attained
    above = certify_sup([Piece(None, None, sympy.Rational(1, 3) + sympy.Rational(1, 10**15))], x, F(1, 3))
    assert above.verdict == CertificateVerdict.REFUTED
    below = certify_sup([Piece(F(0), F(1), x / 3)], x, F(1, 3))
    assert below.verdict == CertificateVerdict.CERTIFIED
    over = certify_sup([Piece(F(0), F(1), x / 3 + sympy.Rational(1, 10**15))], x, F(1, 3))
    assert over.verdict != CertificateVerdict.CERTIFIED


def test_interval_infinite_endpoints_follow_the_extended_reals(low_precision):
    """Half-infinite and infinite intervals: products, sums, reciprocals, exp/log and the predicates."""
    inf = math.inf
    up = Interval.of(1, None)  # [1, ∞)
    down = Interval.of(None, -2)  # (-∞, -2]
    two_three = Interval.of(2, 3)
    p = up * two_three
    assert to_fraction(p.lo) == 2 and p.hi == inf
    n = down * two_three
    assert n.lo == -inf and to_fraction(n.hi) == -4
    assert (up * down).lo == -inf and to_fraction((up * down).hi) == -2
    s = up + down
    assert s.lo == -inf and s.hi == inf
    at_inf = Interval(inf, inf) + Interval.point(-1)  # (+∞) + (-1) = +∞ on both ends
    assert at_inf.lo == inf and at_inf.hi == inf
    at_minus_inf = Interval(-inf, -inf) + Interval.point(1)
    assert at_minus_inf.lo == -inf and at_minus_inf.hi == -inf
    r = up.reciprocal()
    assert to_fraction(r.lo) == 0 and to_fraction(r.hi) == 1
    r = down.reciprocal()
    assert to_fraction(r.lo) == F(-1, 2) and to_fraction(r.hi) == 0
    assert Interval.of(0, 1).reciprocal() == Interval.everything()  # 1/0 is undefined: no claim at all
    e = down.exp()
    assert to_fraction(e.lo) == 0 and 0 < to_fraction(e.hi) < F(1, 7)
    em = down.expm1()
    assert to_fraction(em.lo) == -1 and -1 < to_fraction(em.hi) < F(-6, 7)  # expm1(-∞) = -1
    cube = down.power(3)
    assert cube.lo == -inf and to_fraction(cube.hi) == -8  # (-∞)³ = -∞
    square = down.power(2)
    assert to_fraction(square.lo) == 4 and square.hi == inf
    lg = Interval.of(0, 1).log()
    assert lg.lo == -inf and to_fraction(lg.hi) == 0
    assert not up.certainly_le(F(10**6)) and up.certainly_ge(F(1)) and up.certainly_gt(F(1, 2))
    assert down.certainly_le(F(-2)) and not down.certainly_ge(F(-10**6))
    assert Interval.of(-inf, 1).lo == -inf and Interval.of(F(1, 2), 2.0) == Interval(Interval.point(F(1, 2)).lo, Interval.point(2).hi)
    assert to_fraction(Interval.of(0.5, 2.0).lo) == F(1, 2)  # a float endpoint is a dyadic rational, kept exactly


def test_worst_case_input_edges_and_frozen_intervals():
    """max_queries is 1..64 (documented); an interval is an immutable mathematical object."""
    import dataclasses

    mech = AboveThreshold.mechanism_one(1)
    for bad in (0, 65, True, 2.0):
        with pytest.raises(InputError):
            worst_case(mech, max_queries=bad)
    iv = Interval.point(1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        iv.lo = Interval.point(2).lo
