"""A sweep's exact confirmations (`verify.sweep`): one per integral, never one for two different integrals.

The output sweep confirms a near-bound point from `verify.sweep.outputs.confirming_queries`: output
column c of q is the integral of output column c of (sorted q_1..q_c, q_{c+1}) (sorted q for ⊤^k).
These tests hold that rule to the one description of an outcome (`verify.engine.integrand.build`) and
to each row's own exact distribution, and hold the sweeps' fast row deduplication
(`verify.sweep.decode.unique_rows`) and the remembered tolerance of `verify.screen.classify` to the
computations they replace.
"""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from verify.engine.integrand import build
from verify.mechanism import AboveThreshold, column_output, output_column
from verify.probabilities import mp_distribution, mp_probability
from verify.screen import Position, classify, confirm_tolerance
from verify.sweep.conditional import NEG_INF_CODE
from verify.sweep.decode import unique_rows
from verify.sweep.outputs import confirming_queries, exact_output

M2 = AboveThreshold.mechanism_two(1)
EXP2 = AboveThreshold.with_noise("exponential", 1, threshold_multiplier=2, query_multiplier=2)
NO_Z = AboveThreshold.with_noise("laplace", 1, threshold_multiplier=0)
K = 3
VALUES = range(-2, 3)


def _outcome(mech, k: int, column: int) -> str:
    return mech.outputs(k)[column]


def _integral(mech, numerators: tuple[int, ...], column: int) -> tuple:
    """The outcome's integrand as a multiset of its factors (a product: the order of factors is not the integral)."""
    integ = build(mech, [Fraction(x) for x in numerators], _outcome(mech, len(numerators), column))
    return tuple((frozenset(Counter(p.terms).items()), p.cap, p.zero) for p in integ.pieces), integ.constants, integ.kind


@pytest.mark.parametrize("mech", [M2, NO_Z], ids=["mechanism two", "no threshold noise"])
def test_a_confirming_vector_has_the_same_integral_and_different_integrals_never_share_one(mech):
    """Key and integral determine each other on every (vector, output) of a k = 3 grid: equal keys have
    equal integrands (the confirmation is the row's own integral), and different integrands have
    different keys (two rows that differ are never confirmed by one value)."""
    by_key: dict[tuple, tuple] = {}
    by_integral: dict[tuple, tuple] = {}
    for q in itertools.product(VALUES, repeat=K):
        for c in range(K + 1):
            key = confirming_queries(q, c)
            integral = _integral(mech, q, c)
            assert _integral(mech, key, c) == integral, (q, c, key)
            assert by_key.setdefault((key, c), integral) == integral
            assert by_integral.setdefault(integral, (key, c)) == (key, c)
    assert len(by_key) < (len(VALUES) ** K) * (K + 1)  # the rule does merge rows (else it saves nothing)


@pytest.mark.parametrize("mech", [M2, EXP2], ids=["mechanism two", "Exp(2Δ/ε) both"])
def test_a_confirmed_output_equals_the_rows_own_exact_distribution(mech):
    """Every output of every vector of a k = 3 grid, confirmed through its key, is its own vector's
    exact probability (the whole distribution of q, 30 digits) to 30 digits."""
    digits = 30
    exact_output.cache_clear()
    with mpmath.workdps(digits + 10):
        for q in itertools.product(VALUES, repeat=K):
            own = mp_distribution(mech, [Fraction(x) for x in q], digits)
            for c in range(K + 1):
                got = exact_output(mech, confirming_queries(q, c), c, 1, digits)
                assert abs(got - own[c]) <= own[c] * mpmath.mpf(10) ** (1 - digits), (q, c)
    exact_output.cache_clear()


def test_one_output_alone_is_the_distributions_entry():
    m = AboveThreshold.mechanism_one(1)
    q = [Fraction(-1), Fraction(1, 2), Fraction(2)]
    dist = mp_distribution(m, q, 40)
    with mpmath.workdps(50):
        for c in range(len(q) + 1):
            one = mp_probability(m, q, column_output(c, len(q)), 40)
            assert output_column(column_output(c, len(q)), len(q)) == c
            assert abs(one - dist[c]) <= dist[c] * mpmath.mpf(10) ** -39


@pytest.mark.parametrize("wide", [False, True], ids=["one int64 per row", "ranked columns"])
@pytest.mark.parametrize("shape", [(1, 1), (50, 1), (400, 2), (400, 3), (1000, 5)])
def test_unique_rows_is_numpys_unique_over_rows(shape, wide):
    """Every way of `unique_rows`: rows packed into one int64 (narrow columns, the output grid's; a table
    of the keys present, or a 1-d `np.unique` where the keys spread wider) and columns ranked one by one
    (a column spanning the conditional sweep's code for m = -∞)."""
    rng = np.random.default_rng(20261207 + shape[0] * 10 + shape[1])
    a = rng.integers(-3, 4, size=shape).astype(np.int64)
    a[:, -1] *= 1 + np.arange(shape[0]) % 3  # columns of different widths
    if wide:
        a[rng.random(shape[0]) < 0.2, 0] = NEG_INF_CODE  # the conditional sweep's code for m = -∞
    u, inv = unique_rows(a)
    ref_u, ref_inv = np.unique(a, axis=0, return_inverse=True)
    assert np.array_equal(u, ref_u) and np.array_equal(inv, ref_inv.reshape(-1))
    assert np.array_equal(u[inv], a)


def test_classify_remembers_no_bound_for_another():
    """`classify` keeps (ε, tol) per (ε, digits): interleaved calls with different ε and digits (and one ε
    in several types) place each value against its own bound."""
    points = []
    for eps in (Fraction(1, 3), 1, Fraction(1), 1.0, Fraction(2), Fraction(1, 2), 0.5):
        for digits in (20, 30):
            with mpmath.workdps(digits + 10):
                e = mpmath.mpf(eps) if not isinstance(eps, Fraction) else mpmath.mpf(eps.numerator) / eps.denominator
                tol = confirm_tolerance(eps, digits)
                points += [(e, eps, digits, Position.AT_BOUND), (e + tol / 2, eps, digits, Position.AT_BOUND),
                           (e - tol / 2, eps, digits, Position.AT_BOUND), (e + 2 * tol, eps, digits, Position.VIOLATION),
                           (e - 2 * tol, eps, digits, Position.INSIDE)]
    for _ in range(2):
        for value, eps, digits, place in points:
            assert classify(value, eps, digits) is place, (eps, digits, place)


@pytest.mark.slow
@pytest.mark.parametrize("mech", [M2, NO_Z], ids=["mechanism two", "no threshold noise"])
def test_every_row_gets_its_own_confirmed_log_ratio(mech, monkeypatch):
    """The output sweep's ``exact_lr`` (confirming vectors, remembered values and log ratios), asked for
    every point of a small grid and not only the near-bound ones, gives each point the log ratio that
    `verify.ratio.privacy_ratio` computes from the point's own two query vectors (its witness)."""
    import verify.sweep.outputs as so
    from verify.sweep import GridSpec, sweep
    from verify.sweep.results import WitnessKind

    checked = []
    real = so.decide

    def every_point(lr, epsilon, digits, cap, exact_lr, make_witness, *args, **kwargs):
        rows, cols = lr.shape
        for r in range(rows):
            for c in range(cols):
                got = exact_lr(r, c)
                w = make_witness(r, c, WitnessKind.WITNESS)
                with mpmath.workdps(digits + 10):
                    assert abs(got - mpmath.mpf(w.log_ratio)) <= mpmath.mpf(10) ** (4 - digits), (w.queries, w.neighbour_queries, c)
                checked.append((w.queries, w.neighbour_queries, c))
        return real(lr, epsilon, digits, cap, exact_lr, make_witness, *args, **kwargs)

    monkeypatch.setattr(so, "decide", every_point)
    exact_output.cache_clear()
    sweep(mech, GridSpec(k=2, query_values=(-1, 0, 2), chunk_size=40), workers=1)
    exact_output.cache_clear()
    assert len(checked) == len(set(checked)) == 9 * 9 * 3
