"""Long query vectors on the family's fast path: 2000 queries spread with k (evenly over ±0.03k).

The compiled halting kernel's error estimate is per output (each node's rounding bound weighted by
its share, compensated 1 - s updates), so it stays below the tolerance where the float64 error
does; its values are within their stated error of mpmath (a sample of outputs whose mpmath
integrand is short enough to finish) and of the same rule in long double (every output).  When an
output is above the tolerance, the escalation finishes: long double, finer panels, then mpmath for a
short outcome or a one-line refusal.  No timing here (benchmarks/bench_family.py times it)."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import verify.doors.fast as door
import verify.engine.fast_halting as fh
import verify.probabilities as probs
from verify.engine.fast_halting import halting_distribution
from verify.errors import InputError
from verify.family import preset
from verify.family.fast_api import fast_log_distribution
from verify.family.probability import mp_probability
from verify.precision import FAST_TOLERANCE

K = 2000


def _spread(k: int) -> np.ndarray:
    return np.linspace(-0.03 * k, 0.03 * k, k)


def _rel(logv: float, exact: mpmath.mpf) -> float:
    with mpmath.workdps(30):
        return abs(float(mpmath.expm1(mpmath.mpf(logv) - mpmath.log(exact))))


@pytest.fixture(scope="module")
def spread_2000():
    m = preset("seed-m1")
    q = _spread(K)
    return m, q, halting_distribution(m, q[None, :])


def test_front_door_at_2000_spread_queries_recomputes_nothing_and_sums_to_one(spread_2000):
    m, q, res = spread_2000
    assert res.error_estimate.max() <= FAST_TOLERANCE / 5
    logp, outs, refined = fast_log_distribution(m, q[None, :])
    assert refined == 0 and len(outs) == K + 1
    assert np.array_equal(logp, res.log_value)
    assert abs(math.fsum(np.exp(logp[0])) - 1) <= 1e-12


def test_sample_of_outputs_within_their_stated_error_of_mpmath(spread_2000):
    """B^iA depends on the first i+1 queries only: the mpmath closed form of the short ones finishes."""
    m, q, res = spread_2000
    fq = [Fraction(float(x)) for x in q]
    for i in (0, 1, 7, 30):
        exact = mp_probability(m, fq[: i + 1], "B" * i + "A", None, 30)
        assert _rel(res.log_value[0, i], exact) <= res.error_estimate[0, i], i


@pytest.mark.slow
def test_every_output_within_its_stated_error_of_the_same_rule_in_long_double(spread_2000):
    """The same nodes in long double (3 more digits): every output's float64 value is within the sum of
    the two estimates of it, and the long double estimates are below the tolerance too."""
    m, q, res = spread_2000
    ext = halting_distribution(m, q[None, :], extended_upto=K)
    assert ext.error_estimate.max() <= FAST_TOLERANCE
    diff = np.abs(np.expm1(res.log_value - ext.log_value))
    assert np.all(diff <= res.error_estimate + ext.error_estimate)


@pytest.mark.parametrize("name", ["seed-m1", "seed-m2", "dwork-roth"])
def test_estimate_does_not_grow_with_k_for_spread_equal_and_uniform_queries(name):
    """From k = 125 to 2000 the largest estimate grows by less than 3x (the old per-factor bound grew 16x)."""
    m = preset(name)
    rng = np.random.default_rng(33)
    for make in (_spread, lambda k: np.full(k, 1.0), lambda k: np.round(rng.uniform(-6, 6, k), 4)):
        small = halting_distribution(m, make(125)[None, :]).error_estimate
        large = halting_distribution(m, make(K)[None, :]).error_estimate
        finite = np.isfinite(large)
        assert large[finite].max() <= 3 * small[np.isfinite(small)].max()
        assert large[finite].max() <= FAST_TOLERANCE


def test_escalation_finishes_and_refuses_a_long_outcome_in_one_line(monkeypatch):
    """A tolerance no float path meets: long double and finer panels cannot, mpmath serves the outcomes of
    at most MP_FALLBACK_MAX_LETTERS letters, and a longer one is refused in one line (not integrated for
    hours).  The limit is lowered to 3 here so that the test stays short."""
    monkeypatch.setattr(fh, "MP_FALLBACK_MAX_LETTERS", 3)
    served = []
    monkeypatch.setattr(door, "_mp_log_outcome", lambda mech, row, outcome, digits: served.append(outcome) or 0.0)
    m = preset("lyu-2", cutoff=1)  # a halting variant of the seed's shape: the seed's front door serves it
    q = np.round(np.random.default_rng(5).uniform(-6, 6, (1, 30)), 3)  # above SEED_FAST_MAX_K: the halting path
    with pytest.raises(InputError) as exc:
        fast_log_distribution(m, q, tolerance=1e-40)
    assert "\n" not in str(exc.value) and "at most 3 letters" in str(exc.value)
    assert served == ["A", "BA", "BBA"]


def test_escalation_long_double_step_serves_a_flagged_row(monkeypatch):
    """Outputs flagged by the float64 estimate are served by the long double step, with values that agree."""
    m = preset("lyu-2", cutoff=1)
    q = np.round(np.random.default_rng(6).uniform(-6, 6, (1, 30)), 3)
    plain, _, _ = fast_log_distribution(m, q)
    seen = []
    real = fh.halting_distribution

    def spy(mech, rows, **options):
        seen.append(options)
        res = real(mech, rows, **options)
        if not options:  # the float64 pass: flag every output
            return type(res)(res.log_value, np.full_like(res.error_estimate, np.inf))
        return res

    monkeypatch.setattr(door, "halting_distribution", spy)  # the float64 pass (the float64 door's closed-form engine)
    monkeypatch.setattr(fh, "halting_distribution", spy)  # the escalation's steps (verify.engine.fast_halting.escalate_row)
    logp, _, refined = fast_log_distribution(m, q)
    assert refined == 1 and seen[1] == {"extended_upto": 30} and len(seen) == 2
    assert np.abs(np.expm1(logp - plain)).max() <= 2 * FAST_TOLERANCE


def test_the_seed_front_door_takes_the_halting_path_above_its_closed_form_range(spread_2000):
    """`verify.fast_log_distribution` (the seed's API, (logp, rows recomputed)) at 2000 spread queries:
    above SEED_FAST_MAX_K it serves the halting path's values (the closed form's cost grows as k³),
    recomputes nothing, and a sample of outputs is within its stated error of mpmath."""
    import verify
    from verify.probabilities import SEED_FAST_MAX_K

    m, q, res = spread_2000
    assert K > SEED_FAST_MAX_K
    logp, refined = verify.fast_log_distribution(m, q[None, :])
    assert refined == 0 and logp.shape == (1, K + 1)
    assert np.array_equal(logp, np.minimum(res.log_value, 0.0))
    fq = [Fraction(float(x)) for x in q]
    for i in (0, 3, 30):
        exact = mp_probability(m, fq[: i + 1], "B" * i + "A", None, 30)
        assert _rel(logp[0, i], exact) <= res.error_estimate[0, i], i


def test_the_seed_front_door_escalates_a_flagged_row(monkeypatch):
    """A row flagged by the float64 estimate on the seed's halting path finishes on the engine's
    escalation (long double first) with values that agree with the unflagged ones."""
    m = preset("seed-m1")
    q = np.round(np.random.default_rng(8).uniform(-6, 6, (1, 30)), 3)
    plain, _ = probs.fast_log_distribution(m, q)
    real = fh.halting_distribution

    def flag_all(mech, rows, **options):
        res = real(mech, rows, **options)
        return type(res)(res.log_value, np.full_like(res.error_estimate, np.inf))

    monkeypatch.setattr(door, "halting_distribution", flag_all)
    logp, refined = probs.fast_log_distribution(m, q)
    assert refined == 1
    assert np.abs(np.expm1(logp - plain)).max() <= 2 * FAST_TOLERANCE


def test_halting_estimate_covers_the_error_with_exponential_queries_deep_in_the_tail():
    """20 queries at -900 (Lap(3) threshold, Exp(2) queries): the F factors of all 20 queries vanish at
    one kink, so the segment's variation sits at its left end; equal panels gave an error of 3.0e-9 in
    log Pr[B^7 A] against an estimate of 1.1e-13.  The panels graded there (`verify.engine.nodes.panels_rows`)
    carry at most the variation the estimate assumes, and the error is within it."""
    from verify.mechanism import AboveThreshold
    from verify.probabilities import mp_distribution

    m = AboveThreshold.with_noise("laplace", 1, 1, 0, 3, 2, threshold_family="laplace", query_family="exponential")
    q = np.full((1, 20), -900.0)
    res = halting_distribution(m, q)
    exact = mp_distribution(m, [Fraction(-900)] * 20, digits=25)
    for i, e in enumerate(exact):
        assert _rel(res.log_value[0, i], e) <= max(res.error_estimate[0, i], 1e-15), i
