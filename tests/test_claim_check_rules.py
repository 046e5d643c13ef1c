"""The claims' equality and pointwise checks (`proofs/`).

Re-homed from the mutation rounds' files (`test_mutation_kills.py`); each class or test keeps its name, so
docs/mutation.md and `benchmarks/mutation_score.py` still find it.
"""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import numpy as np
import pytest


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
