"""Adaptive SVT's exact probabilities (verify.adaptive.probability): they sum to one, the float64 path
agrees with mpmath, a density integrates to its branch probability, and the seeded sampler matches them."""

from __future__ import annotations

import math
from collections import Counter

import mpmath
import numpy as np
import pytest
from scipy import integrate, stats

from verify.adaptive.fast import fast_log_density
from verify.adaptive.model import Answer, Branch, below, middle, top
from verify.adaptive.presets import adaptive_preset
from verify.adaptive.probability import branch_probability, outcome_density
from verify.adaptive.sampler import sample
from verify.errors import InputError

CHECKDP = adaptive_preset("checkdp-adaptive-svt")
BAD = adaptive_preset("checkdp-bad-adaptive-svt")
Q = (1, 3)
#: Every branch sequence a run on two queries can end in with CheckDP's k = 1 (an above answer halts).
SEQUENCES = ((below(), below()), (below(), top(0)), (below(), middle(0)), (top(0),), (middle(0),))


def _letters(seq) -> str:
    return "".join({Branch.BELOW: "B", Branch.MIDDLE: "M", Branch.TOP: "T"}[a.branch] for a in seq)


@pytest.mark.slow
def test_branch_probabilities_sum_to_one():
    total = sum(branch_probability(CHECKDP, Q, s, 20) for s in SEQUENCES)
    assert abs(total - 1) < mpmath.mpf(10) ** -18


def test_an_outcome_that_runs_on_after_a_halt_has_probability_zero():
    assert branch_probability(CHECKDP, Q, (top(0), below()), 20) == 0
    assert outcome_density(CHECKDP, Q, (below(),), 20) == 0  # shorter than the queries without a halt


@pytest.mark.parametrize("mech", [CHECKDP, BAD, adaptive_preset("adaptive-svt-gap", k=2)], ids=lambda m: m.name)
@pytest.mark.parametrize("queries, answers", [
    ((1, 3), (below(), top(20))), ((1, 3), (below(), middle(2))), ((0, 5, -3), (below(), below(), top(30))),
    ((0, 5, -3), (below(), below(), below())),
])
def test_float64_path_agrees_with_mpmath(mech, queries, answers):
    exact = outcome_density(mech, queries, answers, 25)
    fast, err = fast_log_density(mech, queries, answers)
    if exact == 0:
        assert fast == -math.inf
        return
    assert err < 1e-12
    assert abs(fast - float(mpmath.log(exact))) < 1e-11


def test_the_middle_density_integrates_to_its_branch_probability():
    """∫ density(⊥, middle(g)) dg over g >= 0 is Pr[⊥ then middle]: the density's factors against the
    survival function the branch probability uses (independent paths: float64 quadrature over g)."""
    f = lambda g: math.exp(fast_log_density(CHECKDP, Q, (below(), Answer(Branch.MIDDLE, round(g, 12))))[0])  # noqa: E731
    total, _ = integrate.quad(f, 0, np.inf, limit=200, points=None)
    assert total == pytest.approx(float(branch_probability(CHECKDP, Q, (below(), middle(0)), 20)), rel=1e-7)


@pytest.mark.slow
@pytest.mark.parametrize("mech", [CHECKDP, BAD], ids=lambda m: m.name)
def test_sampler_matches_the_exact_branch_probabilities(mech):
    """χ² goodness of fit of 200 000 seeded runs against the exact probabilities of the five branch
    sequences (4 degrees of freedom); false-alarm rate 1e-3 per case (critical value chi2.ppf(0.999, 4))."""
    runs = 200_000
    got = sample(mech, Q, runs, np.random.default_rng(20261207)).sequences()
    tally = Counter(got)
    counts = np.array([tally[_letters(seq)] for seq in SEQUENCES])
    assert counts.sum() == runs  # every run ends in one of the five
    expected = np.array([float(branch_probability(mech, Q, s, 15)) for s in SEQUENCES]) * runs
    chi2 = float(((counts - expected) ** 2 / expected).sum())
    assert chi2 < stats.chi2.ppf(0.999, len(SEQUENCES) - 1)


def test_sampled_gaps_follow_the_released_law():
    """The top answers' released values: a gap (>= σ) for the paper's program, q + ξ for the bad one."""
    good = sample(CHECKDP, (30,), 20_000, np.random.default_rng(1))
    tops = good.values[good.branches[:, 0] == 2, 0]
    assert len(tops) > 100 and (tops >= 16).all()
    bad = sample(BAD, (30,), 20_000, np.random.default_rng(1))
    tops_bad = bad.values[bad.branches[:, 0] == 2, 0]
    assert (bad.branches == good.branches).all()  # the same seed draws the same noises: the same branches
    assert not np.allclose(tops_bad, tops)  # but q + ξ differs from the gap q + ξ − T̂ by T̂


def test_bad_input_is_refused_in_one_line():
    with pytest.raises(InputError, match="BELOW answer releases no value"):
        Answer(Branch.BELOW, 1)
    with pytest.raises(InputError, match="answers for 2 queries"):
        outcome_density(CHECKDP, Q, (below(), below(), below()))
    with pytest.raises(InputError, match="Laplace noise only"):
        CHECKDP.with_changes(family="gaussian")
    with pytest.raises(InputError, match="runs"):
        sample(CHECKDP, Q, 0, np.random.default_rng(0))
