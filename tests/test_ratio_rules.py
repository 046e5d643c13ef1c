"""The privacy ratio's conventions and resolution (`verify.ratio`, `verify.logratio`).

Re-homed from the mutation rounds' files (`test_mutation_kills.py`); each class or test keeps its name, so
docs/mutation.md and `benchmarks/mutation_score.py` still find it.
"""

from __future__ import annotations

from fractions import Fraction as F

import mpmath

from verify.mechanism import AboveThreshold


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


def test_one_output_ratio_agrees_with_the_whole_distribution():
    """`privacy_ratio` for one output computes that output's closed form alone; its probabilities agree with
    the whole distribution's (`mp_distribution`, the path of several outputs) to the digits asked, for every
    output of both seed mechanisms and the seed's no-threshold-noise example on a pair of neighbours."""
    from verify.probabilities import mp_distribution
    from verify.ratio import privacy_ratio

    q, qn = (F(1), F(-1, 2), F(2), F(0)), (F(0), F(1, 2), F(1), F(1))
    for mech in (AboveThreshold.mechanism_one(1), AboveThreshold.mechanism_two(F(1, 2)),
                 AboveThreshold.with_noise("laplace", 1, threshold_multiplier=0)):
        p, pn = mp_distribution(mech, q, 30), mp_distribution(mech, qn, 30)
        every = privacy_ratio(mech, q, qn, digits=30).outputs
        for j, whole in enumerate(every):
            (one,) = privacy_ratio(mech, q, qn, outputs=[whole.output], digits=30).outputs
            assert one.output == whole.output
            for a, b in ((one.probability, p[j]), (one.neighbour_probability, pn[j])):
                assert abs(a - b) <= mpmath.mpf(10) ** -30 * abs(b), (mech.name, whole.output, a, b)
            assert one.within_bounds == whole.within_bounds and one.at_bound == whole.at_bound
