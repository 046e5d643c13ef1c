"""Rules of the decision and numerical core that the older tests left unguarded (mutation testing).

Each test here was written because `benchmarks/mutation_score.py` changed the rule it states and no test
noticed; the docstring of each test says the rule.  They are small and fast, so that the mutation runner
can afford them for every mutant of their target.
"""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

from verify.mechanism import NO_HALT, AboveThreshold
from verify.probabilities import fast_log_conditional, mp_conditional
from verify.screen import Position, classify, confirm_tolerance


# --- fast path: the conditional form ------------------------------------------------------------------
@pytest.mark.parametrize("zf, xf", [("laplace", "laplace"), ("exponential", "laplace"), ("laplace", "exponential"),
                                    ("none", "laplace")])
def test_fast_conditional_measures_the_cutoff_from_the_threshold(zf, xf):
    """The proofs' conditional form restricts the threshold noise to z > cutoff - t (`FastIntegrator.events`):
    with t = 3/2 (not 0) the fast path must agree with the mpmath path (30 digits) to 1e-12 in log space,
    for i = 1 (no cutoff) and for cutoffs below, at and above the threshold; exact zeros stay -inf."""
    m = AboveThreshold.with_noise("laplace", 1, 1, F(3, 2), 0 if zf == "none" else 3, 3, threshold_family=zf,
                                  query_family=xf)
    cases = [(None, F(1)), (F(-1), F(2)), (F(2), F(-1)), (F(1, 2), F(1, 2)), (F(-2), F(-1, 2))]
    gm = np.array([-np.inf if g is None else float(g) for g, _ in cases])
    gq = np.array([float(d) for _, d in cases])
    fast = fast_log_conditional(m, gm, gq)
    for (g, d), lf in zip(cases, fast):
        v = mp_conditional(m, g, d, digits=30)
        if v == 0:
            assert lf == -np.inf, (g, d)
        else:
            assert abs(lf - float(mpmath.log(v))) < 1e-12, (g, d)


# --- screen: placing a confirmed value against ε ------------------------------------------------------
@pytest.mark.parametrize("eps", [F(1, 2), F(7, 3)])
def test_classify_places_against_a_fractional_epsilon(eps):
    """`verify.screen.classify` reads ε given as a Fraction as its value p/q: at ε, within tol, just beyond
    ε + tol and below ε it answers at_bound, at_bound, violation and inside (tol = `confirm_tolerance`)."""
    digits = 30
    with mpmath.workdps(digits + 10):
        e = mpmath.mpf(eps.numerator) / eps.denominator
        tol = confirm_tolerance(eps, digits)
        assert classify(e, eps, digits) is Position.AT_BOUND
        assert classify(e + tol / 2, eps, digits) is Position.AT_BOUND
        assert classify(-(e - tol / 2), eps, digits) is Position.AT_BOUND
        assert classify(e + 2 * tol, eps, digits) is Position.VIOLATION
        assert classify(e - 2 * tol, eps, digits) is Position.INSIDE
        assert classify(mpmath.inf, eps, digits) is Position.VIOLATION


def test_float_margin_and_confirm_tolerance_follow_their_formulas():
    """`float_margin`(ε) = 1e-9·max(1, ε) and `confirm_tolerance`(ε, digits) = 10^-(digits-5)·max(1, ε),
    on both sides of ε = 1 and for ε given as a Fraction (the module docstring of `verify.screen`)."""
    from verify.screen import float_margin

    assert float_margin(0.5) == 1e-9 and float_margin(1.0) == 1e-9 and float_margin(3.0) == 1e-9 * 3.0
    with mpmath.workdps(50):
        for eps, scale in ((F(1, 2), 1), (F(1), 1), (F(7, 3), mpmath.mpf(7) / 3), (2, 2)):
            for digits in (15, 30):
                want = mpmath.mpf(10) ** (5 - digits) * scale
                assert abs(confirm_tolerance(eps, digits) / want - 1) < mpmath.mpf(10) ** -40, (eps, digits)


def test_classify_edges_are_inclusive_for_at_bound():
    """The rule's strictness, with exactly representable numbers (digits = 5: tol = 10^0·max(1, ε) = 1, ε = 1):
    |log r| = ε + tol = 2 is at the bound, not a violation (violation needs > ε + tol); |log r| = 0, at
    distance exactly tol, is at the bound too (at the bound is ||log r| - ε| <= tol)."""
    assert classify(mpmath.mpf(2), F(1), 5) is Position.AT_BOUND
    assert classify(mpmath.mpf(0), F(1), 5) is Position.AT_BOUND
    assert classify(mpmath.mpf(3), F(1), 5) is Position.VIOLATION


def test_classify_works_at_the_precision_of_the_digits():
    """`classify` compares at ``digits + 10`` digits, whatever the caller's precision: a value 5e-26 above
    ε = 1 at 30 digits (tol 1e-25) is at the bound, 2e-25 above is a violation, even when the caller
    works at 15 digits (where ε + tol would round to ε)."""
    with mpmath.workdps(60):
        at = mpmath.mpf(1) + mpmath.mpf("5e-26")
        over = mpmath.mpf(1) + mpmath.mpf("2e-25")
    assert classify(at, F(1), 30) is Position.AT_BOUND
    assert classify(over, F(1), 30) is Position.VIOLATION


def test_screen_orders_candidates_and_counts_nan_as_violating():
    """`verify.screen.screen`: NaN margins count as -inf (never inside); a candidate's margin is below
    -1e-9·max(1, |scale|) (strictly: a margin of exactly -1e-9 is not one); most violating first, ties in
    index order; the worst point is the smallest margin; an empty batch has worst = -1, margin +inf."""
    from verify.screen import screen

    s = screen(np.array([0.5, -1e-12, -0.25, np.nan]), 1.0)
    assert (s.worst, s.candidates.tolist(), s.worst_margin, s.points) == (3, [3, 2], -np.inf, 4)
    s = screen(np.array([-1e-9, -2e-9, -0.5, -2e-9, 0.1]), 1.0)
    assert s.candidates.tolist() == [2, 1, 3] and s.worst == 2 and s.worst_margin == -0.5
    # the limit scales with |scale| when it exceeds 1, and is 1e-9 below 1
    assert screen(np.array([-2e-9, -4e-9]), 3.0).candidates.tolist() == [1]
    assert screen(np.array([-1.5e-9]), 0.5).candidates.tolist() == [0]
    assert screen(np.array([-1.5e-9])).candidates.tolist() == [0]  # the default scale is 1
    assert screen(np.array([-1.5e-9, -4e-9]), np.array([0.5, 3.0])).candidates.tolist() == [1, 0]
    empty = screen(np.array([]), 1.0)
    assert (empty.worst, empty.worst_margin, empty.candidates.tolist(), empty.points) == (-1, np.inf, [], 0)


def test_first_violation_confirms_at_most_limit_candidates_in_order():
    """`first_violation` confirms candidates in order, at most ``limit`` (default 5) of them, and returns the
    first one `classify` places beyond its bound (not one at the bound), with |log ratio| at ``digits``."""
    from verify.screen import first_violation

    digits = 30
    with mpmath.workdps(60):
        values = [mpmath.mpf("0.5"), mpmath.mpf(1), -(1 + mpmath.mpf("2e-25")), mpmath.mpf(3)]
    seen: list[int] = []

    def confirm(j: int):
        seen.append(j)
        return ("p", j), values[j], F(1)

    hit = first_violation(range(4), confirm, digits)
    assert hit is not None and hit.point == ("p", 2) and hit.position is Position.VIOLATION
    with mpmath.workdps(60):
        assert abs(hit.abs_log_ratio - (1 + mpmath.mpf("2e-25"))) < mpmath.mpf(10) ** -38
    assert seen == [0, 1, 2]
    # only the sixth candidate violates: beyond the default limit of 5
    six = [mpmath.mpf("0.5")] * 5 + [mpmath.mpf(2)]
    assert first_violation(range(6), lambda j: (j, six[j], F(1)), digits) is None
    assert first_violation(range(6), lambda j: (j, six[j], F(1)), digits, limit=6).point == 5
    assert first_violation([], confirm, digits) is None


# --- sweep: deciding a block of float64 log ratios --------------------------------------------------
def test_sweep_decide_counts_every_kind_of_point():
    """`verify.sweep.decision.decide` on one row of eight synthetic points (ε = 1, margin 1e-9, cap 2):
    exactly ε - margin is decided inside by float64 (not re-evaluated); exactly ε + margin and the band
    around ±ε are re-evaluated (at the bound, inside); NaN is re-evaluated (here a violation); clear
    violations are listed up to the cap, and a listed one that high precision puts inside is a fast-path
    disagreement, not a violation; the witness is the largest |log ratio|."""
    from verify.sweep.decision import decide
    from verify.sweep.results import Witness, WitnessKind

    eps, margin = 1.0, 1e-9
    lr = np.array([[0.5, eps - margin, eps + margin, 1 - 5e-10, np.nan, 2.0, 3.0, -1 + 5e-10]])
    with mpmath.workdps(60):
        exact = {2: mpmath.mpf(1), 3: mpmath.mpf(1) - mpmath.mpf("5e-10"), 4: 1 + mpmath.mpf("1e-20"),
                 7: -mpmath.mpf(1)}
        confirmed = {0: "0.5", 2: "1", 4: "1.00000000000000000001", 5: "0.5", 6: "3"}
    calls: list[int] = []
    made: list[tuple[int, WitnessKind]] = []

    def exact_lr(r: int, c: int) -> mpmath.mpf:
        calls.append(c)
        return exact[c]

    def make_witness(r: int, c: int, kind: WitnessKind) -> Witness:
        made.append((c, kind))
        return Witness(F(1), confirmed[c], "", "", "", 30, kind=kind)

    tally = decide(lr, F(1), 30, 2, exact_lr, make_witness, points=8)
    assert calls == [2, 3, 4, 7]
    assert made == [(2, WitnessKind.AT_BOUND), (4, WitnessKind.VIOLATION), (5, WitnessKind.VIOLATION),
                    (6, WitnessKind.WITNESS)]
    assert tally.points == 8 and tally.refined_by_mpmath == 0
    assert tally.near_bound_reevaluated == 4 and tally.at_bound == 2
    assert tally.violation_count == 2 and tally.fast_path_disagreements == 1
    assert [w.log_ratio for w in tally.violations] == ["1.00000000000000000001"]
    assert tally.at_bound_example is not None and tally.at_bound_example.log_ratio == "1"
    assert tally.witness is not None and tally.witness.log_ratio == "3"
    assert decide(lr[:, :1], F(1), 30, 2, exact_lr, make_witness, points=1, refined_by_mpmath=3).refined_by_mpmath == 3


# --- fast path: which rows are summed in linear space, and blocks of rows --------------------------
def test_linear_safe_rows_follow_the_stated_bound():
    """`FastIntegrator.linear_safe`: a row is summed in linear space iff (k+2)·(2λR+1)·max(1, ρ) < 600,
    R = max(|a_j|, |c|) over the kinks, an infinite cutoff being no kink.  Lap(3) both (λ = 1/3, ρ = 1),
    k = 2: R < 223.5; threshold Lap(1), queries Lap(3) (ρ = 3): R < 73.5; queries Lap(1/100) (λ = 100):
    R = 0 is safe, R = 1 is not."""
    from verify.engine.fast_closed_form import FastIntegrator

    fi = FastIntegrator(AboveThreshold.with_noise("laplace", 1, 1, 0, 3, 3))
    a = np.array([[223.4, 0.0], [-223.6, 1.0], [0.0, 0.0], [0.0, 0.0], [0.0, -223.4]])
    c = np.array([-np.inf, -np.inf, 223.4, -223.6, -np.inf])
    assert fi.linear_safe(a, c).tolist() == [True, False, True, False, True]
    assert fi.linear_safe(a, None).tolist() == [True, False, True, True, True]
    rho3 = FastIntegrator(AboveThreshold.with_noise("laplace", 1, 1, 0, 1, 3))
    assert rho3.linear_safe(np.array([[73.4, 0.0], [73.6, 0.0]]), None).tolist() == [True, False]
    # λ = ρ = 1, k = 1: the bound 3·(2R + 1) is exactly 600 at R = 99.5, which is not below 600
    unit = FastIntegrator(AboveThreshold.with_noise("laplace", 1, 1, 0, 1, 1))
    assert unit.linear_safe(np.array([[99.5], [-99.25]]), None).tolist() == [False, True]
    sharp = FastIntegrator(AboveThreshold.with_noise("laplace", 1, 1, 0, 3, F(1, 100)))
    assert sharp.linear_safe(np.array([[0.0], [0.0], [1.0]]), np.array([-np.inf, 0.0, -np.inf])).tolist() == [True, True, False]


@pytest.mark.parametrize("with_cutoff", [False, True])
def test_fast_events_in_blocks_equal_one_pass(with_cutoff):
    """More rows than `verify.engine.fast_closed_form.CHUNK` are evaluated block by block with the same arithmetic: every row
    (and its cutoff, when given) gives bit-identical log-probabilities and error estimates to evaluating
    that row on its own."""
    from verify.engine.fast_closed_form import CHUNK, FastIntegrator

    fi = FastIntegrator(AboveThreshold.with_noise("laplace", 1, 1, F(1, 2), 3, 3))
    n = CHUNK + 3
    rng = np.random.default_rng(5)
    q = rng.uniform(-4, 4, size=(n, 2))
    cut = rng.uniform(-4, 4, size=n) if with_cutoff else None
    whole = fi.events(q, cut)
    for i in (0, 1, CHUNK - 1, CHUNK, n - 1):
        one = fi.events(q[i : i + 1], None if cut is None else cut[i : i + 1])
        assert np.array_equal(whole.log_probability[i], one.log_probability[0]), i
        assert np.array_equal(whole.error_estimate[i], one.error_estimate[0]), i


# --- worst case: inputs and the run time reported ----------------------------------------------------
def test_worst_case_reports_its_run_time_and_refuses_a_bad_seed():
    """`WorstCaseResult.seconds` is the search's own run time: >= 0 and at most the caller's wall time, on
    both return paths (no tightness study; a study, here `exceeded` for the unbounded no-threshold-noise
    variant); a negative, boolean or non-integer seed is refused."""
    import time

    from verify.errors import InputError
    from verify.worstcase import worst_case

    kw = dict(starts=1)
    for mech, extra in ((AboveThreshold.mechanism_one(1), dict(max_queries=1, push_study=False)),
                        (AboveThreshold.with_noise("laplace", 1, threshold_multiplier=0), dict(max_queries=3))):
        t0 = time.perf_counter()
        r = worst_case(mech, **kw, **extra)
        wall = time.perf_counter() - t0
        assert 0 <= r.seconds <= wall, (r.seconds, wall)
    assert r.unbounded and r.tightness is not None
    for bad in (-1, True, 1.5, 1):  # the search is deterministic: only seed 0
        with pytest.raises(InputError):
            worst_case(AboveThreshold.mechanism_one(1), max_queries=1, seed=bad)


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


# --- ratio: the log ratio's conventions and the resolution of `at_bound` --------------------------------
def test_log_ratio_conventions_and_probability_one():
    """`verify.ratio.log_ratio`: 0/0 -> 0, x/0 -> +inf, 0/x -> -inf, else log p - log p' (a probability
    of exactly 1 on either side is an ordinary value, not a special case)."""
    from verify.ratio import log_ratio

    half, one, zero = mpmath.mpf("0.5"), mpmath.mpf(1), mpmath.mpf(0)
    assert log_ratio(zero, zero) == 0
    assert log_ratio(half, zero) == mpmath.inf and log_ratio(zero, half) == mpmath.ninf
    assert log_ratio(one, zero) == mpmath.inf and log_ratio(zero, one) == mpmath.ninf
    assert log_ratio(half, one) == -mpmath.log(2) and log_ratio(one, half) == mpmath.log(2)
    assert log_ratio(one, one) == 0


def test_ratio_of_an_output_impossible_on_one_side():
    """`privacy_ratio` for an output with probability 0 under D and > 0 under D': log ratio -inf, ratio 0
    exactly, not within the bounds (and +inf, ratio +inf, the other way round)."""
    from verify.ratio import privacy_ratio

    no_noise = AboveThreshold.with_noise("laplace", 1, threshold=F(1, 2), threshold_multiplier=0, query_multiplier=0)
    r = privacy_ratio(no_noise, (F(1), F(1)), (F(0), F(1)), outputs=[2], digits=30).outputs[0]
    assert r.probability == 0 < r.neighbour_probability
    assert r.log_ratio == mpmath.ninf and r.ratio == 0 and not r.within_bounds and not r.at_bound
    r = privacy_ratio(no_noise, (F(0), F(1)), (F(1), F(1)), outputs=[2], digits=30).outputs[0]
    assert r.log_ratio == mpmath.inf and r.ratio == mpmath.inf and not r.within_bounds


def test_ratio_resolution_scales_with_epsilon_above_one():
    """`at_bound` is ||log r| - ε| <= 10^(3-digits)·max(1, ε), with ε read as the fraction it is.
    Exponential noise c_Z = 3, c_X = 3(1 - δ) attains (1/3 + 2/(3(1-δ)))·ε at q(D) = (t, t),
    q(D') = (t+Δ, t-Δ), s_2, a gap of about (2/3)δε: ε = 3/2, δ = 1e-12 gives 1.0e-12, at the bound at
    15 digits (resolution 1.5e-12), resolved at 16; ε = 1, δ = 2.25e-13 gives 1.5e-13, resolved at 16
    digits (resolution 1e-13)."""
    from verify.ratio import privacy_ratio

    q, qn, out = (F(0), F(0)), (F(1), F(-1)), 2
    m = AboveThreshold.with_noise("exponential", F(3, 2), threshold_multiplier=3, query_multiplier=3 * (1 - F(1, 10**12)))
    r15 = privacy_ratio(m, q, qn, outputs=[out], digits=15).outputs[0]
    assert r15.at_bound and r15.within_bounds
    r16 = privacy_ratio(m, q, qn, outputs=[out], digits=16).outputs[0]
    assert not r16.at_bound and not r16.within_bounds
    m1 = AboveThreshold.with_noise("exponential", 1, threshold_multiplier=3, query_multiplier=3 * (1 - F(9, 4) / 10**13))
    r = privacy_ratio(m1, q, qn, outputs=[out], digits=16).outputs[0]
    assert not r.at_bound and not r.within_bounds


def test_additive_family_supplies_a_witness_beyond_max_queries():
    """Without threshold noise, Pr[s_i] = Π_{j<i} F(t - q_j)·S(t - q_i), so with Lap(6Δ/ε) queries each earlier
    query adds c = 1/6 nats (`verify.family.bounds.no_threshold_noise_growth`).  Searching k <= 3 finds at most
    1/2 < ε; the verdict must still be `not_private`, by the growth family's member with m = floor(ε/c) + 1 = 7
    belows and one above (8 queries, beyond max_queries), confirmed with loss 7/6 > ε."""
    from verify.verdicts import MechanismVerdict
    from verify.worstcase import worst_case

    mech = AboveThreshold.with_noise("laplace", 1, threshold_multiplier=0, query_multiplier=6)
    r = worst_case(mech, max_queries=3, starts=1, push_study=False)
    assert max(float(row.halt.loss) for row in r.by_k) <= 0.5 + 1e-12
    # ⊤^k = Π_j F(t - q_j): each query in F's exponential tail adds exactly Δ/b = 1/6, so the ⊤^k row's loss is k/6
    with mpmath.workdps(60):
        for row in r.by_k:
            assert row.no_halt.output == NO_HALT and len(row.no_halt.queries) == row.k
            assert abs(row.no_halt.loss - mpmath.mpf(row.k) / 6) < mpmath.mpf(10) ** -25, row.k  # rows at 30 digits
        assert len(r.witness.queries) == 8 and abs(r.loss - mpmath.mpf(7) / 6) < mpmath.mpf(10) ** -45
    assert r.unbounded and r.verdict == MechanismVerdict.NOT_PRIVATE


def test_fast_error_estimate_is_the_stated_multiple_of_the_condition_number():
    """`FastIntegrator.events` estimates the relative error of each log-probability as
    cond·(8·(k+2) + 2E)·2^-52 (cond = Σ|term| / |Σ term|), and as (4·(k+1) + 2E)·2^-52 without threshold
    noise (a product of k+1 kernel values), 0 for an exact zero; E = (k+2)·(2λR + 1)·max(1, ρ) with
    R = max|q_j| + |t| (+ |cutoff - t|) bounds the exponents, whose arguments are rounded to u·R.
    Exponential noise, k = 1, output s_1: every term is positive, cond = 1, so the estimate is exactly
    that multiple at every row (also in the log-space rows: q = 400 is beyond the linear-space bound); an
    exact zero likewise (an empty sum: cond = 1)."""
    from verify.engine.fast_closed_form import EPS, FastIntegrator

    def reach(q_row, t, lam, rho, cut=None):
        k = len(q_row)
        r = max(abs(x) for x in q_row) + abs(t) + (abs(cut - t) if cut is not None and np.isfinite(cut) else 0)
        return (k + 2) * (2 * lam * r + 1) * max(1.0, rho)

    fi = FastIntegrator(AboveThreshold.with_noise("exponential", 1, 1, F(1, 2), 3, 3))
    q = np.array([[0.0], [2.0], [-3.0], [400.0]])
    assert not fi.linear_safe(q - 0.5, None)[-1]
    r = fi.events(q)
    want = np.array([(24 + 2 * reach(row, 0.5, 1 / 3, 1.0)) * EPS for row in q])
    assert np.allclose(r.error_estimate[:, 0], want, rtol=1e-12, atol=0)
    assert np.all(r.error_estimate[:, 1] >= want * (1 - 1e-12))
    # an exact zero (exponential threshold, no query noise, q_1 < t: s_1 is impossible) is an empty sum, cond 1,
    # in a linear-space row (q = -1) and in a log-space row (q = -400)
    zero = FastIntegrator(AboveThreshold.with_noise("exponential", 1, 1, 0, 3, 0, query_family="none"))
    q = np.array([[-1.0], [-400.0]])
    assert zero.linear_safe(q, None).tolist() == [True, False]
    r = zero.events(q)
    want = np.array([(24 + 2 * reach(row, 0.0, 1 / 3, 1.0)) * EPS for row in q])
    assert np.all(r.log_probability[:, 0] == -np.inf) and np.allclose(r.error_estimate[:, 0], want, rtol=1e-12, atol=0)
    none = FastIntegrator(AboveThreshold.with_noise("laplace", 1, 1, F(1, 2), 0, 3))
    r = none.events(np.array([[0.0, 1.0], [2.0, -1.0]]), np.array([-np.inf, 1.0]))
    assert np.allclose(r.error_estimate[0], (12 + 2 * reach([0.0, 1.0], 0.5, 1 / 3, 1.0)) * EPS, rtol=1e-12, atol=0)
    assert np.all(r.log_probability[1] == -np.inf) and np.all(r.error_estimate[1] == 0)


def test_fast_result_is_immutable():
    """A `FastResult` is a frozen record: its arrays cannot be rebound after the evaluation."""
    import dataclasses

    from verify.engine.fast_closed_form import FastIntegrator

    r = FastIntegrator(AboveThreshold.mechanism_one(1)).events(np.array([[0.0]]))
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.log_probability = np.zeros((1, 2))


def test_proven_bound_scales_with_epsilon():
    """`proven_upper_bound` in units of the queries, for ε != 1: the certified supremum per ε times ε
    (Mechanism Two at ε = 1/2 and 2: exactly ε; exponential c_Z = c_X = 3 at ε = 2: (1/3 + 2/3)·2 = 2),
    and Δ/b_Z + 2Δ/b_X for Laplace noise (Mechanism One at ε = 3: 3)."""
    from verify.worstcase import proven_upper_bound

    assert proven_upper_bound(AboveThreshold.mechanism_two(F(1, 2))).value == F(1, 2)
    assert proven_upper_bound(AboveThreshold.mechanism_two(2)).value == 2
    assert proven_upper_bound(AboveThreshold.with_noise("exponential", 2, threshold_multiplier=3, query_multiplier=3)).value == 2
    assert proven_upper_bound(AboveThreshold.mechanism_one(3)).value == 3


def test_attained_means_equal_to_the_bound_at_fifty_digits(monkeypatch):
    """Tightness `attained`: a witness at moderate queries whose loss, confirmed at 50 digits, equals the proven
    bound to 10^-45 (`verify.family.worstcase._tightness`).  Exponential noise c_Z = 3, c_X = 3(1 + δ) has sup
    loss (1/3 + 2/(3(1+δ)))·ε ≈ ε(1 - 2δ/3) at q(D) = (t, t), q(D') = (t+Δ, t-Δ), s_2; with the bound taken as
    ε (a valid bound, stubbed): δ = 7.5e-46 (gap 5e-46) is attained, δ = 7.5e-45 (gap 5e-45) is not."""
    import verify.family.worstcase as W
    from verify.family.bounds import ProvenBound
    from verify.verdicts import Tightness
    from verify.worstcase import worst_case

    eps_bound = ProvenBound(F(1), "1", "stub: ε")
    monkeypatch.setattr(W, "proven_upper_bound", lambda shape, monotone=False: eps_bound)
    monkeypatch.setattr(W, "upper_bound_at", lambda shape, k, monotone=False: eps_bound)
    kw = dict(max_queries=2, starts=1)
    tiny = F(3, 4) * F(1, 10**45)
    at = worst_case(AboveThreshold.with_noise("exponential", 1, threshold_multiplier=3, query_multiplier=3 * (1 + tiny)), **kw)
    assert at.tightness == Tightness.ATTAINED
    # the attaining witness at moderate queries is the one reported (its loss equals the search's best to tol)
    assert (at.witness.queries, at.witness.neighbour_queries, at.witness.output) == ((0, 0), (1, -1), 2)
    off = worst_case(AboveThreshold.with_noise("exponential", 1, threshold_multiplier=3, query_multiplier=3 * (1 + 10 * tiny)), **kw)
    assert off.tightness != Tightness.ATTAINED


# --- proof steps: a discrepancy is refuted only when it is confirmed ----------------------------------
def test_equality_check_refutes_only_a_confirmed_discrepancy():
    """`proofs.steps.equality_check`: a discrepancy seen at 40 digits that vanishes at the confirmation
    precisions (45 and 70 digits: relative difference <= 1e-30 there) is not a counterexample, so the step
    is `undecided`, never `refuted` (nor `proved`); a real one (2 against 1) is `refuted`."""
    from proofs.claim import ClaimVerdict
    from proofs.steps import equality_check

    def artefact(_p: object) -> mpmath.mpf:  # 1 + 10^-(dps-10): 1e-30 at 40 digits, 1e-35 and 1e-60 later
        return 1 + mpmath.mpf(10) ** (-(mpmath.mp.dps - 10))

    one = lambda _p: mpmath.mpf(1)  # noqa: E731
    assert equality_check(artefact, one, [("both sides are 1", True)]).verdict == ClaimVerdict.UNDECIDED
    assert equality_check(lambda _p: mpmath.mpf(2), one, [("both sides are 1", True)]).verdict == ClaimVerdict.REFUTED
    # a persistent discrepancy of 5e-31 relative is below the 1e-30 a counterexample needs
    small = lambda _p: 1 + mpmath.mpf("5e-31")  # noqa: E731
    assert equality_check(small, one, [("both sides are 1", True)]).verdict == ClaimVerdict.UNDECIDED


def test_equality_check_reports_the_failing_point_and_needs_lemmas_to_prove():
    """`equality_check`: the counterexample is the point where the sides disagree (here only the first of the
    default grid); agreeing sides with no sympy lemma at all are `consistent`, not `proved` (a proof needs
    at least one lemma, every one shown); with a lemma not shown, `consistent` too."""
    from proofs.claim import ClaimVerdict
    from proofs.steps import default_points, equality_check

    pts = default_points(False)
    one = lambda _p: mpmath.mpf(1)  # noqa: E731
    o = equality_check(lambda p: mpmath.mpf(2) if p is pts[0] else mpmath.mpf(1), one, [("x", True)], points=pts)
    assert o.verdict == ClaimVerdict.REFUTED and o.evidence.counterexample.params == pts[0].as_params()
    assert equality_check(one, one, []).verdict == ClaimVerdict.CONSISTENT
    assert equality_check(one, one, [("a", True), ("b", False)]).verdict == ClaimVerdict.CONSISTENT
    assert equality_check(one, one, [("a", True), ("b", True)]).verdict == ClaimVerdict.PROVED


def test_pointwise_check_at_a_given_point_uses_the_distance_to_the_nearer_bound():
    """`pointwise_check` at one given point: the margin is up - lr (upper bound only) or
    min(up - lr, lr - lo); a negative margin (beyond -1e-30) is a confirmed `refuted`, otherwise `consistent`,
    and the evidence reports that margin."""
    from proofs.claim import ClaimVerdict
    from proofs.steps import pointwise_check

    def at(lr: object, up: object, lo: object):
        o = pointwise_check(None, None, None, None,  # type: ignore[arg-type]  # unused with params
                            lambda _pt: (mpmath.mpf(lr), mpmath.mpf(up), None if lo is None else mpmath.mpf(lo)),
                            "grid", "lo <= lr <= up", params={"eps": 1})
        return o.verdict, float(o.evidence.min_margin)

    assert at(2, 1, None) == (ClaimVerdict.REFUTED, -1.0)
    assert at("0.5", 1, None) == (ClaimVerdict.CONSISTENT, 0.5)
    assert at("0.75", 1, 0) == (ClaimVerdict.CONSISTENT, 0.25)
    assert at("0.25", 1, 0) == (ClaimVerdict.CONSISTENT, 0.25)
    assert at(-1, 1, 0) == (ClaimVerdict.REFUTED, -1.0)


def test_interval_reciprocal_through_zero_is_everything():
    """1/x over an interval that contains or touches 0 is undefined at 0, so `Interval.reciprocal` widens
    it to (-∞, ∞); an interval strictly on one side of 0 gets its exact reciprocal range."""
    from verify.certify.interval import Interval

    for lo, hi in ((-1, 0), (0, 1), (-1, 1), (0, 0)):
        assert Interval.of(lo, hi).reciprocal() == Interval.everything(), (lo, hi)
    assert Interval.of(-4, -2).reciprocal() == Interval.of(F(-1, 2), F(-1, 4))
    assert Interval.of(2, 4).reciprocal() == Interval.of(F(1, 4), F(1, 2))


def test_an_infinite_loss_is_unbounded_with_a_zero_side():
    """Exponential threshold noise without query noise: q_1 in [t, t + Δ) with the neighbour below t makes s_1
    impossible under D' only (loss +inf): not_private and unbounded, the witness's probability exactly 0 on
    one side (decided structurally by the mpmath path)."""
    from verify.verdicts import MechanismVerdict
    from verify.worstcase import worst_case

    mech = AboveThreshold.with_noise("exponential", 1, 1, 0, 3, 0, query_family="none")
    r = worst_case(mech, max_queries=5, starts=1, push_study=False)
    assert mpmath.isinf(r.loss) and 0 in (r.witness.probability, r.witness.neighbour_probability)
    assert r.verdict == MechanismVerdict.NOT_PRIVATE and r.unbounded and "exactly 0" in r.unbounded_evidence


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


# --- proof steps: exact-equality edges of the ±1e-30 rules, the sweep path --------------------------------
def test_equality_check_needs_a_nonzero_discrepancy_at_the_confirmation_precisions():
    """`equality_check`'s counterexample rule is |a - b| > max(|a|, |b|)·1e-30 (strict): sides that disagree at
    40 digits but are both exactly 0 at 45 and 70 digits (|a - b| = 0 = the threshold) are not a counterexample,
    so the step is `undecided`, not `refuted`.  The default grid is the one without neighbouring outputs
    (`default_points(False)`): its first point is the counterexample reported and its size is the points count."""
    from proofs.claim import ClaimVerdict
    from proofs.numerics import CONFIRM_PRECISIONS, DIGITS
    from proofs.steps import default_points, equality_check

    assert DIGITS not in CONFIRM_PRECISIONS
    only_at_40 = lambda _p: mpmath.mpf(1) if mpmath.mp.dps == DIGITS else mpmath.mpf(0)  # noqa: E731
    zero = lambda _p: mpmath.mpf(0)  # noqa: E731
    assert equality_check(only_at_40, zero, [("x", True)]).verdict == ClaimVerdict.UNDECIDED
    o = equality_check(lambda _p: mpmath.mpf(2), lambda _p: mpmath.mpf(1), [("x", True)])
    pts = default_points(False)
    assert pts[0].as_params() != default_points(True)[0].as_params()
    assert o.verdict == ClaimVerdict.REFUTED and o.evidence.counterexample.params == pts[0].as_params()
    assert o.evidence.points == len(pts)


def test_pointwise_check_margin_of_exactly_minus_1e30_is_not_a_violation():
    """`pointwise_check` at a given point: a violation needs margin < -1e-30 (strict), so a log ratio exactly
    `VIOLATION` above an upper bound 0 is `consistent` (the bound attained to 30 digits)."""
    from proofs.claim import ClaimVerdict
    from proofs.steps import VIOLATION, pointwise_check

    o = pointwise_check(None, None, None, None,  # type: ignore[arg-type]  # unused with params
                        lambda _pt: (+VIOLATION, mpmath.mpf(0), None), "grid", "lr <= up", params={"eps": 1})
    assert o.verdict == ClaimVerdict.CONSISTENT


def test_confirm_pointwise_needs_more_than_1e30_beyond_a_bound():
    """`_confirm_pointwise` confirms an upper-bound violation only if lr > up + 1e-30 and a lower-bound one only
    if lr < lo - 1e-30 (strict, at both confirmation precisions): exactly 1e-30 beyond is not confirmed,
    twice that is."""
    from proofs.steps import VIOLATION, _confirm_pointwise

    def sides(lr, up, lo):
        return lambda _pt: (mpmath.mpf(lr), mpmath.mpf(up), None if lo is None else mpmath.mpf(lo))

    pt = {"eps": F(1)}
    assert not _confirm_pointwise(sides(VIOLATION, 0, None), pt, "r").confirmed
    assert _confirm_pointwise(sides(2 * VIOLATION, 0, None), pt, "r").confirmed
    assert not _confirm_pointwise(sides(0, 1, VIOLATION), pt, "r").confirmed
    assert _confirm_pointwise(sides(0, 1, 2 * VIOLATION), pt, "r").confirmed


@pytest.mark.parametrize("with_lower", [False, True])
def test_pointwise_check_sweep_reports_the_mpmath_margin_at_the_worst_point(with_lower):
    """`pointwise_check`'s sweep path: the reported margin is mpmath's up - lr at the sweep's worst point
    (min(up - lr, lr - lo) with a lower bound); here lr = x/4 on x in [0, 1], up = 1 (lower bound -1), so
    the worst point is the largest sampled x and the margin is 1 - x/4 (>= 3/4: `consistent`)."""
    from proofs.claim import ClaimVerdict
    from proofs.steps import pointwise_check

    sample = lambda rng: {"x": rng.uniform(0, 1, 200)}  # noqa: E731
    worst = {}

    def mp_sides(pt):
        worst["x"] = pt["x"]
        return mpmath.mpf(pt["x"]) / 4, mpmath.mpf(1), (mpmath.mpf(-1) if with_lower else None)

    o = pointwise_check(lambda p: p["x"] / 4, sample, lambda p: np.ones_like(p["x"]),
                        (lambda p: -np.ones_like(p["x"])) if with_lower else None, mp_sides, "grid", "-1 <= x/4 <= 1")
    assert o.verdict == ClaimVerdict.CONSISTENT
    assert 0.99 < worst["x"] <= 1
    assert abs(float(o.evidence.min_margin) - (1 - worst["x"] / 4)) < 1e-9


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
