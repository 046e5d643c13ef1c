"""The one screen-and-confirm rule (`verify.screen`) and the sweep's decision.

Re-homed from the mutation rounds' files (`test_mutation_kills.py`); each class or test keeps its name, so
docs/mutation.md and `benchmarks/mutation_score.py` still find it.
"""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

from verify.screen import Position, classify, confirm_tolerance


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
