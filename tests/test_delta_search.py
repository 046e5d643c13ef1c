"""The δ search and ε' at a given δ (`verify.family.delta_search`, `verify.family.delta`).

* The search finds at least what hand-picked pairs give (the README's gaussian-svt pair among them), and
  the pair it reports reproduces its δ by `exact_delta` at other digits.
* ε' at δ = D: the closed form on the exact probabilities against a bisection on `exact_delta` (an
  independent path: every δ there recomputes the probabilities), the edge cases D >= δ(0), D = 0 (finite
  and +∞), D outside [0, 1], and the command line's exactly-one-of rule.
Reference values come from the exact oracle (`verify.oracles.family`) at the digits stated.
"""

from __future__ import annotations

import json
from fractions import Fraction

import mpmath
import pytest

from verify import NoiseSpec, SparseVector, epsilon_for_delta, exact_delta, preset, worst_delta, worst_epsilon_for_delta
from verify.errors import InputError
from verify.family.delta import complete_outputs
from verify.family.delta_search import HAND_PICKED, patterns
from verify.oracles.family import output_probability

# (preset, ε', hand-picked q(D), q(D'), --max-queries).  The first is the README's pair; (10)/(11) is the
# docstring's and (-10)/(-11) notebook 08's; (0, 0)/(1, -1) the CLI test's lyu-6 pair.
SLOW = pytest.mark.slow  # Gaussian pairs of two queries: the exact oracle runs on quadrature (about 7 s CPU each)
HAND = [
    pytest.param("gaussian-svt", Fraction(1), (5, -10), (6, -11), 2, marks=SLOW, id="readme-gaussian-svt"),
    ("gaussian-svt", Fraction(1, 2), (10,), (11,), 1),
    ("gaussian-svt", Fraction(1, 2), (-10,), (-11,), 1),
    ("lyu-6", Fraction(1, 10), (0, 0), (1, -1), 2),
    ("seed-m1", Fraction(1, 10), (0,), (1,), 1),
    ("lyu-2", Fraction(1, 4), (3, -3), (4, -4), 2),
]


@pytest.mark.slow
@pytest.mark.parametrize("name,ep,q,qn,k", HAND)
def test_search_finds_at_least_the_hand_picked_pair(name, ep, q, qn, k):
    mech = preset(name)
    hand = exact_delta(mech, q, qn, ep, digits=10)
    found = worst_delta(mech, ep, max_queries=k, digits=10)
    assert hand.delta > 0
    assert found.delta >= hand.delta, (found.queries, found.neighbour, found.delta, hand.delta)
    # the reported pair is a pair of neighbours and reproduces its δ (recomputed at other digits)
    assert all(abs(a - b) <= mech.sensitivity for a, b in zip(found.queries, found.neighbour))
    again = exact_delta(mech, found.queries, found.neighbour, ep, digits=12)
    with mpmath.workdps(30):
        assert abs(again.delta - found.delta) <= mpmath.mpf(10) ** -9 * found.delta


def test_patterns_are_the_structured_layouts_both_signs():
    mech = preset("gaussian-svt")
    got = {(p.letters, p.sign) for p in patterns(mech, 3)}
    assert got == {(s, g) for s in ("A", "B", "BA", "BB", "BBA", "BBB") for g in (1, -1)}
    # the README's pair (5, -10) vs (6, -11) is the hand-picked start (5/4, -5/2) scales (s = 4), pattern BA
    assert (Fraction(5, 4), Fraction(-5, 2)) in HAND_PICKED
    pat = next(p for p in patterns(mech, 2) if p.letters == "BA" and p.sign == 1)
    assert pat.pair(Fraction(0), Fraction(1), 4 * Fraction(5, 4), 4 * Fraction(-5, 2)) == ((5, -10), (6, -11))
    pat = next(p for p in patterns(mech, 2) if p.letters == "BA" and p.sign == -1)
    assert pat.pair(Fraction(0), Fraction(1), Fraction(5), Fraction(-10)) == ((5, -10), (4, -9))


# --------------------------------------------------------------------------------------------------
# ε' at a given δ
# --------------------------------------------------------------------------------------------------
def _mp(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def _bisect(mech, q, qn, d, lo, hi, steps):
    """The smallest ε' with exact δ(ε') <= d, by bisection on `exact_delta` (δ is non-increasing in ε')."""
    d = _mp(d)
    for _ in range(steps):
        mid = (lo + hi) / 2
        if exact_delta(mech, q, qn, mid, digits=20).delta <= d:
            hi = mid
        else:
            lo = mid
    return lo, hi


@pytest.mark.slow
@pytest.mark.parametrize("name,q,qn,d", [("seed-m1", (0,), (1,), Fraction(1, 100)),
                                         ("gaussian-svt", (-10,), (-11,), Fraction(1, 10**4)),
                                         ("lyu-6", (0, 0), (1, -1), Fraction(1, 1000))])
def test_epsilon_for_delta_agrees_with_bisection(name, q, qn, d):
    mech = preset(name)
    r = epsilon_for_delta(mech, q, qn, d, digits=20)
    lo, hi = _bisect(mech, q, qn, d, Fraction(0), Fraction(4), 24)  # bracket width 4/2^24 < 2.4e-7
    with mpmath.workdps(30):
        assert _mp(lo) <= r.epsilon_prime <= _mp(hi)
        assert r.delta_at <= _mp(d) * (1 + mpmath.mpf(10) ** -15)
        assert exact_delta(mech, q, qn, lo, digits=20).delta > _mp(d)  # just below: above the target


def test_epsilon_for_delta_edge_cases():
    mech = preset("seed-m1")
    tv = exact_delta(mech, (0,), (1,), 0, digits=20).delta
    with mpmath.workdps(30):
        # D >= δ(0) (the total variation distance): ε' = 0
        assert epsilon_for_delta(mech, (0,), (1,), 1, digits=20).epsilon_prime == 0
        assert epsilon_for_delta(mech, (0,), (1,), Fraction(mpmath.nstr(tv * 1.0001, 20)), digits=20).epsilon_prime == 0
        # D = 0: the pure-DP loss of the pair, max_s log(P_s / P'_s), from the oracle directly
        loss = max(mpmath.log(output_probability(mech, (Fraction(0),), s, (), 20) / output_probability(mech, (Fraction(1),), s, (), 20))
                   for s in complete_outputs(mech, 1))
        r = epsilon_for_delta(mech, (0,), (1,), 0, digits=20)
        assert abs(r.epsilon_prime - loss) < mpmath.mpf(10) ** -18 and r.delta_at < mpmath.mpf(10) ** -25
    # D = 0 with an output of D impossible under D': +∞ (no threshold noise, exponential query noise:
    # B needs q + X < t, impossible at q' = 1/2 >= t, possible at q = -1/2)
    s = SparseVector(1, 1, 0, NoiseSpec("none"), NoiseSpec("exponential", absolute=Fraction(3)))
    assert mpmath.isinf(epsilon_for_delta(s, [Fraction(-1, 2)], [Fraction(1, 2)], 0, 15).epsilon_prime)
    assert mpmath.isinf(epsilon_for_delta(s, [Fraction(-1, 2)], [Fraction(1, 2)], "0.1", 15).epsilon_prime)  # 0.1 < Pr[B] = 0.15
    assert epsilon_for_delta(s, [Fraction(-1, 2)], [Fraction(1, 2)], "0.2", 15).epsilon_prime == 0
    for bad in (-1, "1.5", "-1e-9"):
        with pytest.raises(InputError, match="--delta"):
            epsilon_for_delta(mech, (0,), (1,), bad)


@SLOW
def test_worst_epsilon_for_delta_at_least_the_readme_pair():
    mech = preset("gaussian-svt")
    hand = epsilon_for_delta(mech, (5, -10), (6, -11), "1e-4", digits=8)
    found = worst_epsilon_for_delta(mech, "1e-4", max_queries=2, digits=8)
    assert found.epsilon_prime >= hand.epsilon_prime > 0
    assert found.rdp_epsilon is not None and found.epsilon_prime <= found.rdp_epsilon  # exact pair <= RDP upper bound


# --------------------------------------------------------------------------------------------------
# command line (in-process: the entry points are visible only after a reinstall)
# --------------------------------------------------------------------------------------------------
def _main(argv):
    from verify.cli.main import main

    return main(argv)


@pytest.mark.parametrize("extra", [[], ["--epsilon-prime", "1", "--delta", "0.1"]])
def test_cli_needs_exactly_one_of_epsilon_prime_and_delta(capsys, extra):
    assert _main(["delta", "--variant", "seed-m1", "--queries", "0", "--neighbour-queries", "1", *extra]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--epsilon-prime and --delta" in err[0]


@pytest.mark.parametrize("bad", ["2", "-0.5"])
def test_cli_refuses_delta_outside_unit_interval(capsys, bad):
    assert _main(["delta", "--variant", "seed-m1", f"--delta={bad}", "--queries", "0", "--neighbour-queries", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "--delta" in err[0]


def test_cli_delta_pair_and_search(capsys):
    assert _main(["delta", "--variant", "seed-m1", "--delta", "1/100", "--queries", "0", "--neighbour-queries", "1", "--json"]) == 0
    j = json.loads(capsys.readouterr().out)
    ref = epsilon_for_delta(preset("seed-m1"), (0,), (1,), Fraction(1, 100), digits=20)
    with mpmath.workdps(30):
        assert abs(mpmath.mpf(j["epsilon_prime"]) - ref.epsilon_prime) < mpmath.mpf(10) ** -18
    assert _main(["delta", "--variant", "seed-m1", "--delta", "0", "--queries", "0", "--neighbour-queries", "1"]) == 0
    assert "pure-DP loss of the pair" in capsys.readouterr().out
    assert _main(["delta", "--variant", "seed-m1", "--delta", "1/100", "--max-queries", "1", "--json"]) == 0
    j = json.loads(capsys.readouterr().out)
    assert Fraction(j["delta"]) == Fraction(1, 100) and mpmath.mpf(j["epsilon_prime"]) >= ref.epsilon_prime
    again = epsilon_for_delta(preset("seed-m1"), [Fraction(x) for x in j["queries"]], [Fraction(x) for x in j["neighbour_queries"]],
                              Fraction(1, 100), digits=20)
    with mpmath.workdps(30):
        assert abs(again.epsilon_prime - mpmath.mpf(j["epsilon_prime"])) < mpmath.mpf(10) ** -15


def test_infinite_epsilon_reports_the_limit_of_delta_not_zero():
    """No finite ε' reaches D when D is below the mass of the outputs impossible under D': then ε' = +∞ and
    δ(ε') is its limit, that mass.  Lyu Alg. 5 (threshold Lap(2), no query noise, t = 0), q = (-2, -4) vs
    q' = (-3, -3): AB is impossible under D' (equal queries are both above or both below), and under D it is
    -4 < Z <= -2, so the limit is F(-2) - F(-4) = (e^-1 - e^-2)/2, larger than D = 0 and D = 1/10."""
    want = (mpmath.e ** -1 - mpmath.e ** -2) / 2
    for d in (Fraction(0), Fraction(1, 10)):
        r = epsilon_for_delta(preset("lyu-5"), [-2, -4], [-3, -3], d, digits=30)
        assert mpmath.isinf(r.epsilon_prime) and r.delta_at > mpmath.mpf(d.numerator) / d.denominator
        assert abs(r.delta_at / want - 1) < mpmath.mpf(10) ** -25
