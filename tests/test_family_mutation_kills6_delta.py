"""Tests for the survivors of the full enumerations of family-delta, family-rdp and release-rules (2026-12-06).

Each test states the rule it guards; the expected values are derived here (a formula written in the test, exact
arithmetic, a property the rule implies), never by calling the function under test for the answer.  One class per
mutation target (`benchmarks/mutation_score.py`).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
from test_family_mutation_kills2 import variant  # the same variant builder (absolute scales)


def _mp(x: Fraction) -> mpmath.mpf:
    """An exact rational as an mpf at the working precision."""
    return mpmath.mpf(x.numerator) / x.denominator


# --- family-delta ----------------------------------------------------------------------------------------------------
class TestDeltaKills6:
    """`verify.family.delta` and `verify.family.delta_search`: the tie rules and the survivors of the full enumeration."""

    def test_search_pair_keeps_the_first_of_two_equally_good_moves(self, monkeypatch) -> None:
        """Rule (`search_pair`'s tie rule): among one state's moves of exactly equal score the first in the order
        u + h, u - h, v + h, v - h is kept.  One pattern "B" (sign +1), one start (grid 1, the hand-picked shapes
        monkeypatched to (0, 0) only), score |u| (exact in float64 for the dyadic u here): at u = 0 the moves +h and
        -h tie at h, the first (+h) is taken, and then u climbs by steps of s to the reach 16s (the move to 17s
        leaves the reach, the move back scores lower).  So q = (t + 16s,) and q' = q + Δ, the documented pair
        (B queries moved by +Δ for sign +1)."""
        from verify.family import delta_search as ds

        calls: list[int] = []

        class Synthetic:
            def __init__(self, shape, score) -> None:
                pass

            def __call__(self, points):
                calls.append(len(points))
                assert len(calls) < 500, "the compass search does not end"
                return np.array([abs(float(u)) for _, u, _ in points])

        monkeypatch.setattr(ds, "_Scorer", Synthetic)
        monkeypatch.setattr(ds, "HAND_PICKED", ((Fraction(0), Fraction(0)),))
        monkeypatch.setattr(ds, "patterns", lambda shape, k: [ds.Pattern("B", 1)])
        shape = variant(z=("laplace", 2), x=("laplace", 2), cutoff=1)
        s, t, d = Fraction(2), shape.threshold, shape.sensitivity
        q, qn, val = ds.search_pair(shape, None, 1, 1)
        assert q == (t + ds.REACH * s,) and qn == (t + ds.REACH * s + d,)
        assert val == float(ds.REACH * s)

    def test_search_pair_returns_the_best_final_state_not_the_best_start(self, monkeypatch) -> None:
        """Rule (delta_search module docstring, step 2: the search ends at least as high as every start, and
        `search_pair` returns the best pair): of the refined states, the one with the highest score is returned.
        Two patterns "B" (sign +1, then -1), one start each at u = 0 (grid 1, hand-picked shapes monkeypatched to
        (0, 0) only); synthetic scores: sign +1 is flat at 1 (its start is the best start, and no move beats it),
        sign -1 is 1/2 + |u|/s, which climbs (first tied move +h) to the reach 16s, score 16.5 > 1.  Both states end
        with the same step s/2^9, so only the score tells them apart: the pair returned is sign -1's,
        q = (t + 16s,), q' = q - Δ (B queries moved by sign·Δ)."""
        from verify.family import delta_search as ds

        s = Fraction(2)

        class Synthetic:
            def __init__(self, shape, score) -> None:
                pass

            def __call__(self, points):
                return np.array([1.0 if p.sign > 0 else 0.5 + abs(float(u / s)) for p, u, _ in points])

        monkeypatch.setattr(ds, "_Scorer", Synthetic)
        monkeypatch.setattr(ds, "HAND_PICKED", ((Fraction(0), Fraction(0)),))
        monkeypatch.setattr(ds, "patterns", lambda shape, k: [ds.Pattern("B", 1), ds.Pattern("B", -1)])
        shape = variant(z=("laplace", 2), x=("laplace", 2), cutoff=1)
        t, d = shape.threshold, shape.sensitivity
        q, qn, val = ds.search_pair(shape, None, 1, 1)
        assert q == (t + ds.REACH * s,) and qn == (t + ds.REACH * s - d,)
        assert val == 0.5 + ds.REACH

    def test_delta_at_names_the_first_of_two_outputs_with_equal_terms(self) -> None:
        """Rule (`PairProfile.delta_at`'s tie rule): of outputs whose terms P_s - e^{ε'} P'_s are exactly equal, the
        first in ``outputs`` is named.  Synthetic profile, ε' = 0: P = (1/4, 1/2, 1/4), P' = (1/8, 3/8, 1/8), terms
        1/8, 1/8, 1/8 (exact binary fractions): the first output "A" is named, and δ(0) = 3/8."""
        from verify.family.delta import PairProfile

        mp = mpmath.mpf
        prof = PairProfile(("A", "BA", "BB"), (mp(1) / 4, mp(1) / 2, mp(1) / 4), (mp(1) / 8, mp(3) / 8, mp(1) / 8), 20)
        total, top = prof.delta_at(Fraction(0))
        assert top == "A" and total == mp(3) / 8

    def test_pair_profile_default_precision_is_thirty_digits(self) -> None:
        """Rule (`pair_profile(..., digits=30)`): without ``digits`` the profile is computed at, and says, 30 digits."""
        from verify.family.delta import pair_profile

        prof, _, _ = pair_profile(variant(z=("laplace", 2), x=("laplace", 3)), (Fraction(0),), (Fraction(1),))
        assert prof.digits == 30

    def test_epsilon_for_delta_default_precision_is_thirty_digits(self) -> None:
        """Rule (`epsilon_for_delta(..., digits=30)`): without ``digits`` the result is computed at, and says, 30 digits."""
        from verify.family.delta import epsilon_for_delta

        r = epsilon_for_delta(variant(z=("laplace", 2), x=("laplace", 3)), (Fraction(0),), (Fraction(1),), Fraction(1, 100))
        assert r.digits == 30

    def test_delta_at_infinity_is_the_mass_without_neighbour_mass_to_the_profile_digits(self) -> None:
        """Rule (`PairProfile.delta_at_infinity`): lim δ(ε') as ε' -> ∞ is Σ P_s over the outputs with P'_s = 0, to the
        profile's ``digits`` (the probabilities are known to those digits, the sum must not lose them).  Synthetic
        profile at 20 digits (the probabilities given at 40): P = (1/3, 1/7, 1/5), P' = (0, 0, 1/5): the limit is
        1/3 + 1/7 = 10/21, exact rational arithmetic, matched to 10^-20 relative."""
        from verify.family.delta import PairProfile

        with mpmath.workdps(40):
            p = (_mp(Fraction(1, 3)), _mp(Fraction(1, 7)), _mp(Fraction(1, 5)))
            pn = (mpmath.mpf(0), mpmath.mpf(0), _mp(Fraction(1, 5)))
        got = PairProfile(("A", "BA", "BB"), p, pn, 20).delta_at_infinity()
        with mpmath.workdps(40):
            want = _mp(Fraction(1, 3) + Fraction(1, 7))
            assert abs(got - want) <= mpmath.mpf(10) ** -20 * want


# --- family-rdp ------------------------------------------------------------------------------------------------------
def _zhu_wang_log_delta(s1: Fraction, s2: Fraction, d: Fraction, k: int, a: mpmath.mpf, ep: Fraction) -> mpmath.mpf:
    """log δ_α of the BBGHS conversion of Zhu & Wang's curve, written out here (rdp module docstring):
    ε(α) = log k/(α-1) + αΔ²/σ₁² + 2αΔ²/σ₂², δ_α = exp((α-1)(ε(α) - ε')) · (1 - 1/α)^(α-1) / α."""
    e_alpha = mpmath.log(k) / (a - 1) + a * _mp(d * d / (s1 * s1)) + 2 * a * _mp(d * d / (s2 * s2))
    return (a - 1) * (e_alpha - _mp(ep)) + (a - 1) * mpmath.log(1 - 1 / a) - mpmath.log(a)


class TestRdpKills6:
    """`verify.family.rdp.GaussianSVTRdp.delta`: the order found and the working precision."""

    S1, S2, D, K = Fraction(4), Fraction(5), Fraction(1), 4

    def test_delta_is_the_conversion_at_its_order_for_a_fractional_epsilon_prime(self) -> None:
        """Rule (`GaussianSVTRdp.delta`, rdp module docstring): the δ returned is δ_α(ε') at the order α returned, and
        no order of an independent grid (α = 1 + j/20, j = 1..400) gives a smaller δ_α.  ε' = 7/10 (a Fraction with
        denominator 10: ε' enters as the exact rational numerator/denominator).  δ_α is written out in the test."""
        from verify.family.rdp import GaussianSVTRdp

        ep = Fraction(7, 10)
        d, a = GaussianSVTRdp(self.S1, self.S2, self.D, self.K).delta(ep)
        with mpmath.workdps(40):
            want = mpmath.exp(_zhu_wang_log_delta(self.S1, self.S2, self.D, self.K, mpmath.mpf(a), ep))
            assert 0 < d < 1
            assert abs(d - want) <= mpmath.mpf(10) ** -25 * want
            grid = min(_zhu_wang_log_delta(self.S1, self.S2, self.D, self.K, 1 + mpmath.mpf(j) / 20, ep) for j in range(1, 401))
            assert mpmath.log(d) <= grid + mpmath.mpf(10) ** -25

    def test_delta_is_evaluated_at_thirty_digits(self) -> None:
        """Rule (rdp module docstring: the bound is "evaluated with mpmath at 30 digits"): the δ and α returned are
        numbers of that precision, i.e. their mantissas have at most mpmath's bit precision at 30 digits (an mpf
        keeps the bits of the precision it was computed at)."""
        from verify.family.rdp import GaussianSVTRdp

        with mpmath.workdps(30):
            bits = mpmath.mp.prec
        for ep in (Fraction(7, 10), Fraction(1, 3), Fraction(2)):
            d, a = GaussianSVTRdp(self.S1, self.S2, self.D, self.K).delta(ep)
            assert d._mpf_[3] <= bits and a._mpf_[3] <= bits, (ep, d._mpf_[3], a._mpf_[3], bits)


# --- release-rules ---------------------------------------------------------------------------------------------------
class TestReleaseRuleKills6:
    """`verify.release`: the rules' class attributes against the module docstrings that define them."""

    def test_only_the_fresh_release_moves_its_value_in_the_search(self) -> None:
        """Rule (protocol docstring: the search runs its second phase, the released value off its A query, only "with
        ``search_moves``", an opt-in; fresh docstring: p_Y is not monotone in the query and may end, so the fresh
        release's search "also" moves the value): the second phase belongs to the rule whose constant is a fresh
        release noise (Role.RELEASE) and to no other; a rule that does not opt in (a bare subclass) has none."""
        from verify.release.protocol import ReleaseRule, Role
        from verify.release.registry import RELEASE_RULES

        moving = {r.name for r in RELEASE_RULES.values() if r.search_moves}
        fresh_noise = {r.name for r in RELEASE_RULES.values() if r.constant is Role.RELEASE}
        assert moving == fresh_noise == {"fresh"}

        class Bare(ReleaseRule):
            name, formula = "bare", "nothing"

            def draw(self, noisy, t_hat, query, release_noise, rng, runs):
                return None

            def noiseless_value(self, query, threshold):
                return None

        assert Bare().search_moves is False
