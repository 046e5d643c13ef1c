"""Tests for the survivors of the full enumeration of the family-decision target (2026-12-06, evening).

Each test states the rule it guards and was checked by applying its mutant by hand and watching it fail.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest

from verify.exact import exceeds, mpf_fraction
from verify.family import worstcase as wc
from verify.family.bounds import why_no_bound
from verify.family.presets import preset
from verify.family.structured import Layout
from verify.family.witness import FamilyWitness
from verify.mechanism import AboveThreshold
from verify.verdicts import MechanismVerdict, Tightness
from verify.worstcase import worst_case


def _w(loss: mpmath.mpf | int | Fraction, k: int = 1) -> FamilyWitness:
    """A witness with k queries whose confirmed loss is ``loss``: Pr = e^loss·Pr', Pr' = 1/4 (at 90 digits)."""
    with mpmath.workdps(90):
        pn = mpmath.mpf(1) / 4
        loss = mpmath.mpf(loss.numerator) / loss.denominator if isinstance(loss, Fraction) else mpmath.mpf(loss)
        return FamilyWitness((Fraction(0),) * k, (Fraction(1),) * k, "B" * (k - 1) + "A", (), pn * mpmath.exp(loss), pn, 50)


def _p(value: float, lay: Layout, tag: float = 0.0) -> wc._Point:
    """A search point of layout ``lay`` with float64 value ``value``; ``tag`` (its u) tells equal points apart."""
    return wc._Point(value, lay, tag, 0.0, 0.0, 1.0, -1.0)


class TestSearchStartsKills7:
    """The refinement starts from the best grid points (`cands` sorted by decreasing value), so the reported witness
    is at least as large as every float64 value the search recorded per k (`loss_by_k`), up to float64 noise."""

    def test_witness_is_at_least_every_recorded_search_value(self):
        # Lyu et al. 2017, Algorithm 3 at ε = 1/2: the search has one candidate per layout; with 6 queries there are
        # more layouts than `starts` (4), so starting from the worst ones loses the best layout (6 queries).
        res = wc.family_worst_case(preset("lyu-3", epsilon=Fraction(1, 2)), max_queries=6, tightness_study=False)
        top = max(res.loss_by_k.values())
        assert math.isfinite(top)
        assert float(res.witness.loss) >= top * (1 - 1e-9)
        assert len(res.witness.queries) == 6  # the loss of Algorithm 3 grows with the number of belows

    def test_loss_by_k_is_the_largest_value_of_each_k(self):
        """`loss_by_k[k]` is a max over the points of k queries, starting from nothing (-inf), not from +inf."""
        lay1, lay2 = Layout(0, 1), Layout(1, 1)
        by_k: dict[int, float] = {}
        wc._best_per_layout([_p(0.25, lay1), _p(0.5, lay2), _p(0.125, lay1)], by_k)
        assert by_k == {1: 0.25, 2: 0.5}


class TestTieRulesKills7:
    """The documented tie rules of the witness's choice (`_best_per_layout`, `_largest_confirmed`)."""

    def test_best_per_layout_keeps_the_first_of_equal_values(self):
        lay = Layout(1, 1)
        best = wc._best_per_layout([_p(0.5, lay, 1.0), _p(0.5, lay, 2.0), _p(0.25, lay, 3.0)], {})
        assert best[lay].u == 1.0
        best = wc._best_per_layout([_p(0.25, lay, 1.0), _p(0.5, lay, 2.0)], {})
        assert best[lay].u == 2.0  # a strictly larger later value replaces

    def test_the_search_witness_is_kept_unless_a_row_is_strictly_larger(self):
        lay = Layout(0, 1)
        search = (_p(0.5, lay, 0.0), _w(Fraction(1, 2)))
        equal, larger = (_p(0.5, lay, 1.0), _w(Fraction(1, 2))), (_p(0.5, lay, 2.0), _w(Fraction(1, 2) + Fraction(1, 10**40)))
        assert wc._largest_confirmed(search, []) is search
        assert wc._largest_confirmed(search, [equal]) is search
        assert wc._largest_confirmed(search, [equal, larger]) is larger

    def test_among_equal_rows_the_fewest_queries_then_the_first(self):
        lay = Layout(0, 1)
        search = (_p(0.0, lay), _w(0))
        long_, short, short2 = ((_p(0.5, lay, float(i)), _w(Fraction(1, 2), k)) for i, k in ((1, 3), (2, 2), (3, 2)))
        assert wc._largest_confirmed(search, [long_, short, short2]) is short
        assert wc._largest_confirmed(search, [short2, long_, short]) is short2


class TestGrowthWitnessKills7:
    """`_decide`: when the search (here one query) does not exceed ε and a growth family can be instantiated, its member
    beyond --max-queries is confirmed and, exceeding ε, becomes the witness with verdict not_private."""

    def test_no_threshold_noise_growth_witness_beyond_one_query(self):
        # The seed's AboveThreshold with Lap(3Δ/ε) queries and no threshold noise, ε = Δ = 1: each below at t against
        # t + Δ costs Δ/b = 1/3 (Pr[X < 0] / Pr[X < -Δ] = e^{Δ/b}); the above at t cancels.  m = floor(ε/(1/3)) + 1 = 4
        # belows exceed ε: loss 4/3.  The search alone, at one query, finds only 1/3 <= ε.
        mech = AboveThreshold.with_noise("laplace", 1, threshold_multiplier=0)
        res = wc.family_worst_case(mech, max_queries=1, tightness_study=False)
        assert res.loss_by_k[1] == pytest.approx(1 / 3, rel=1e-9)
        assert res.verdict is MechanismVerdict.NOT_PRIVATE and res.unbounded
        assert res.witness.outcome == "BBBBA"
        with mpmath.workdps(60):
            assert abs(res.witness.loss - mpmath.mpf(4) / 3) < mpmath.mpf(10) ** -45
        assert any("growth family with 5 queries" in n for n in res.notes)


class TestSeedTightnessKills7:
    """`verify.worstcase.worst_case`: the tightness is reported with a study (push_study) or, without one, when the
    loss is unbounded (`exceeded`); a private mechanism without a study reports none."""

    def test_unbounded_without_a_study_is_exceeded(self):
        mech = AboveThreshold.with_noise("laplace", 1, threshold_multiplier=0)
        res = worst_case(mech, max_queries=2, push_study=False)
        assert res.unbounded and res.tightness is Tightness.EXCEEDED

    def test_a_study_reports_the_tightness_of_a_bounded_mechanism(self):
        res = worst_case(AboveThreshold.with_noise("laplace", 1), max_queries=2, push_study=True)
        assert not res.unbounded and res.tightness is not None
        res = worst_case(AboveThreshold.with_noise("laplace", 1), max_queries=2, push_study=False)
        assert res.tightness is None


class TestGuardNearKills7:
    """`_guard_all`: besides the witnesses it carries, the best point of every layout whose float64 value is strictly
    above bound·(1 - 1e-6) (and that is not already a confirmed row) is confirmed and guarded; no other."""

    def test_only_points_strictly_within_a_millionth_of_the_bound(self, monkeypatch):
        res = wc.family_worst_case(preset("seed-m1", epsilon=Fraction(1, 2)), max_queries=1, tightness_study=False)
        b = float(res.upper_bound.value)
        near = b * (1 - 1e-6)
        inside, at, outside = Layout(0, 1), Layout(1, 1), Layout(2, 1)
        best_of = {inside: _p(math.nextafter(near, math.inf), inside), at: _p(near, at), outside: _p(b * (1 - 1.5e-6), outside)}
        guarded: list[str] = []
        monkeypatch.setattr(wc, "guard", lambda r, w, what: guarded.append(what))
        monkeypatch.setattr(wc, "_witness", lambda shape, p, unit, digits=None: res.witness)
        res.rows = {}
        wc._guard_all(res, best_of, Fraction(1))
        assert guarded == ["witness", f"best {inside.string(res.shape)} point"]


class TestDecideKills7:
    """`_decide`: the verdict's evidence fields."""

    SHAPE = preset("seed-m1", epsilon=Fraction(1, 10))

    def test_a_fifty_digit_violation_is_not_confirmed_again(self, monkeypatch):
        calls = []
        monkeypatch.setattr(wc, "confirm", lambda *a, **k: calls.append(a) or _w(1))
        res = wc._decide(self.SHAPE, False, 1, _w(1), {1: 1.0}, [])
        assert res.verdict is MechanismVerdict.NOT_PRIVATE and calls == []

    def test_the_reason_for_no_bound_is_given_exactly_when_there_is_no_bound(self):
        res = wc._decide(self.SHAPE, False, 1, _w(Fraction(1, 20)), {1: 0.05}, [])
        assert res.upper_bound is not None and res.no_bound_reason is None
        gauss = preset("gaussian-svt", epsilon=Fraction(1, 10))  # Gaussian noise: no pure-DP bound
        res = wc._decide(gauss, False, 1, _w(Fraction(1, 20)), {1: 0.05}, [])
        assert res.upper_bound is None and res.no_bound_reason == why_no_bound(gauss)
        assert isinstance(res.no_bound_reason, str) and res.no_bound_reason


class TestExactRuleKills7:
    """`verify.exact.exceeds` / `mpf_fraction`: the verdict rule and the guard compare exactly, with no working
    precision: a confirmed mpf is the binary rational it stores."""

    def test_exact_and_strict(self):
        with mpmath.workdps(200):
            x = mpmath.mpf(1) / 3  # 1/3 rounded to 200 digits: not 1/3, and not its 53-bit rounding either
        d = mpf_fraction(x) - Fraction(1, 3)
        assert d != 0 and abs(d) < Fraction(1, 10**199)  # read at the default 53 bits: still all 200 digits
        assert not exceeds(x, mpf_fraction(x)) and exceeds(x, mpf_fraction(x) - Fraction(1, 10**300))
        assert exceeds(x, Fraction(1, 3) - Fraction(1, 10**150)) and exceeds(x, Fraction(1, 3)) is (d > 0)
        assert mpf_fraction(-mpmath.mpf(3) / 4) == Fraction(-3, 4) and mpf_fraction(mpmath.mpf(2) ** 70) == 2**70

    def test_infinities_and_nan(self):
        assert exceeds(mpmath.inf, Fraction(10**100)) and not exceeds(-mpmath.inf, Fraction(-(10**100)))
        with pytest.raises(ValueError):
            exceeds(mpmath.nan, Fraction(0))
        with pytest.raises(ValueError):
            mpf_fraction(mpmath.inf)
