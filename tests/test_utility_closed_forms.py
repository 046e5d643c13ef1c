"""The utility claims' closed forms agree with the seed's integrals, and the quadrature subset can fail a claim.

`proofs.utility_checks.tail_closed` (the engine's sf(c) + cdf(-c), `verify.noise`) replaces the quadrature of
the density (`tail_value`, the seed's integral) over the tail grid; the quadrature stays at `TAIL_QUAD_POINTS`.
References here: the quadrature at 40 digits (points on and off the subset) and the hand derivation
Pr[|Z| >= c] = e^{-c/b} with c/b = (multiple/3)·ln((k+1)/β), i.e. (β/(k+1))^{multiple/3}, for Lap(b) and Exp(b).
`tail_abs` (the symbolic tail the tail claims prove with) integrates term by term; the reference is
`proofs.symbolic.tail_abs`, the same integrals by sympy.integrate.  `theorem_sweep` stacks the rows of every β into one engine call; the reference is the per-β loop it replaced.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
import sympy as sp

from proofs import symbolic as Y
from proofs import utility_checks as U
from proofs.claim import ClaimVerdict
from proofs.sweeps import mechanism

FAMILIES = ("laplace", "exponential")
#: (ε, k, β): the quadrature subset and points off it (ε = 1 is not on the grid; (1/2, 3, 1/100) and (3, 10, 1/2) are).
POINTS = (*U.TAIL_QUAD_POINTS, (Fraction(1, 2), 3, Fraction(1, 100)), (Fraction(3), 10, Fraction(1, 2)),
          (Fraction(1), 1, Fraction(1, 2)))


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("multiple", (2, 3))
@pytest.mark.parametrize("point", POINTS, ids=lambda p: "-".join(map(str, p)))
def test_tail_closed_form_is_the_seed_integral(family: str, multiple: int, point: tuple) -> None:
    eps, k, beta = point
    with mpmath.workdps(40):
        closed = U.tail_closed(family, multiple, k, beta, eps)
        by_quadrature = U.tail_value(family, multiple, k, beta, eps)
        by_hand = (mpmath.mpf(beta.numerator) / beta.denominator / (k + 1)) ** (mpmath.mpf(multiple) / 3)
        assert abs(closed - by_quadrature) <= U.AGREE * by_quadrature, (closed, by_quadrature)
        assert abs(closed - by_hand) <= mpmath.mpf(10) ** -35 * by_hand, (closed, by_hand)


@pytest.mark.slow
@pytest.mark.parametrize("family", FAMILIES)
def test_symbolic_tail_is_sympys_integral(family: str) -> None:
    new, reference = U.tail_abs(family), Y.tail_abs(family)
    assert sp.simplify(new - reference) == 0, (new, reference)
    assert new.free_symbols == reference.free_symbols


def test_quadrature_subset_spans_the_grid() -> None:
    """The subset holds the smallest and the largest threshold c/b = ln((k+1)/β) (times multiple/3) of the
    grid, and each ε of the grid."""
    ratio = {(k, beta): (k + 1) / beta for k in U.TAIL_KS for beta in U.TAIL_BETAS}
    on = [(k, beta) for _, k, beta in U.TAIL_QUAD_POINTS]
    assert min(ratio, key=ratio.get) in on and max(ratio, key=ratio.get) in on
    assert {eps for eps, _, _ in U.TAIL_QUAD_POINTS} == set(U.TAIL_EPS)
    assert all(eps in U.TAIL_EPS and k in U.TAIL_KS and beta in U.TAIL_BETAS for eps, k, beta in U.TAIL_QUAD_POINTS)


def test_a_disagreeing_quadrature_leaves_the_tails_undecided(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cross-check is live: a quadrature off by 1e-25 (relative) makes both tail claims undecided."""
    seed_integral = U.tail_value

    def off(*args: object) -> mpmath.mpf:
        return seed_integral(*args) * (1 + mpmath.mpf(10) ** -25)

    assert U.check_tail_1("exponential").verdict is ClaimVerdict.PROVED
    assert U.check_tail_corrected("exponential").verdict is ClaimVerdict.PROVED
    monkeypatch.setattr(U, "tail_value", off)
    assert U.check_tail_1("exponential").verdict is ClaimVerdict.UNDECIDED
    assert U.check_tail_corrected("exponential").verdict is ClaimVerdict.UNDECIDED


def _theorem_sweep_per_block(family: str) -> tuple:
    """`theorem_sweep` as it was: one engine call per (ε, k, β)."""
    from verify.probabilities import fast_log_distribution

    rng = np.random.default_rng(U.MC_SEED + 3)
    best, n = None, 0
    for eps in (Fraction(1, 2), Fraction(1), Fraction(2)):
        mech = mechanism(family, eps)
        for k in (1, 2, 3, 5):
            for beta in U.BETAS:
                with mpmath.workdps(20):
                    a = float(U.alpha(eps, Fraction(1), k, beta))
                Q = U._theorem_rows(k, a, rng)
                logp, _ = fast_log_distribution(mech, Q)
                pr = np.where(U.output_errors(Q, 0.0) > a, np.exp(logp), 0.0).sum(axis=1)
                n += len(Q)
                ratio = pr / float(beta)
                r = int(np.argmax(ratio))
                if best is None or ratio[r] > best[0]:
                    best = (float(ratio[r]), eps, k, beta, tuple(Fraction(v) for v in Q[r]))
    return n, best


@pytest.mark.slow
@pytest.mark.parametrize("family", FAMILIES)
def test_theorem_sweep_stacked_is_per_block(family: str) -> None:
    """The stacked engine call picks the same worst point from the same number of rows (its float64 ratio bit for bit)."""
    n, (ratio, eps, k, beta, q) = _theorem_sweep_per_block(family)
    n_new, _, worst, pr = U.theorem_sweep(family)
    assert (n_new, worst) == (n, (eps, k, beta, q))
    assert abs(float(pr) / float(beta) - ratio) <= 1e-12 * ratio
