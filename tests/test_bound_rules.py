"""The proven upper bounds and the growth families (`verify.family.bounds`), the seed's bounds.

Re-homed from the mutation rounds' files (`test_family_mutation_kills.py`, `test_family_mutation_kills2.py`, `test_family_mutation_kills5.py`, `test_family_mutation_kills6_bounds.py`, `test_family_mutation_kills7_decision.py`, `test_mutation_kills.py`); each class or test keeps its name, so
docs/mutation.md and `benchmarks/mutation_score.py` still find it.
"""

from __future__ import annotations

import math
from fractions import Fraction
from fractions import Fraction as F

import mpmath
import pytest
from family_variants import variant

from verify.family import worstcase as wc
from verify.family.bounds import Growth, growth, growth_witness, no_cutoff_push, proven_upper_bound, upper_bound_at, why_no_bound
from verify.family.presets import preset
from verify.mechanism import NO_HALT, AboveThreshold, SparseVector
from verify.noise import NoiseSpec
from verify.oracles.family import output_probability
from verify.verdicts import MechanismVerdict


# --- the survivors of the fifth sample (seed 2205) ------------------------------------------------------------------
def _variant(z, x, release="none", cutoff=1):
    from verify.mechanism import SparseVector
    from verify.noise.spec import NoiseSpec

    return SparseVector(Fraction(1, 10), Fraction(1), Fraction(0), NoiseSpec(z[0], absolute=Fraction(z[1])),
                        NoiseSpec(x[0], absolute=Fraction(x[1])), cutoff=cutoff, release=release)


def _lap(b: Fraction | int) -> NoiseSpec:
    """Laplace noise of absolute scale ``b`` (log-Lipschitz constant 1/b for density and survival)."""
    return NoiseSpec("laplace", absolute=Fraction(b))


class TestBoundKills:
    """`ProvenBound.exceeded_by` and the bound of a seed constructor."""

    def test_exceeded_by_is_strict_beyond_the_tolerance(self):
        """Rule: a loss exceeds a bound B only when loss > B + tol (equality with B + tol is not a violation)."""
        from verify.family.bounds import ProvenBound

        b = ProvenBound(Fraction(1, 8), "x", "y")  # decided exactly: an edge that is a binary rational
        with mpmath.workdps(60):
            tol = Fraction(1, 2**150)
            at = mpmath.mpf(1) / 8 + mpmath.mpf(2) ** -150  # exactly 1/8 + tol
            assert not b.exceeded_by(at, tol)
            assert b.exceeded_by(at + mpmath.mpf(2) ** -160, tol)
            assert not b.exceeded_by(mpmath.mpf(1) / 8, Fraction(0))
            assert b.exceeded_by(mpmath.inf, tol) and not b.exceeded_by(-mpmath.inf, tol)

    def test_bound_of_the_seed_constructors(self):
        """Rule: the seed's Mechanism One (Lap(3Δ/ε) on both) has the proven bound Δ/b_Z + 2Δ/b_X = ε/3 + 2ε/3 = ε,
        and with monotone neighbours Δ/b_Z + Δ/b_X = 2ε/3."""
        from verify.family.bounds import proven_upper_bound_of
        from verify.mechanism import AboveThreshold

        m = AboveThreshold.mechanism_one(Fraction(1, 2))
        assert proven_upper_bound_of(m).value == Fraction(1, 2)
        assert proven_upper_bound_of(m, monotone=True).value == Fraction(1, 3)

    def test_no_cutoff_push_is_the_threshold_scale_times_m_plus_two_ln_two_rounded_up(self):
        """Rule (`no_cutoff_growth`, Laplace Z): the push for 2m queries is L = b_Z (m + 2) ln 2, rounded up to a multiple
        of 1/1000 (never below the value, at most 2/1000 above); b_Z is the threshold noise's scale."""
        from verify.family.bounds import no_cutoff_push

        for bz in (Fraction(30), Fraction(1, 4)):
            s = variant(z=("laplace", bz), cutoff=None)
            for m in (1, 4):
                exact = float(bz) * (m + 2) * math.log(2)
                got = no_cutoff_push(s, m)
                assert got.denominator in (1, 2, 4, 5, 8, 10, 20, 25, 40, 50, 100, 125, 200, 250, 500, 1000)
                assert exact <= float(got) <= exact + 2e-3, (bz, m, got, exact)


class TestBoundKills2:
    """The growth families' instantiated members."""

    @pytest.mark.parametrize("loss", [Fraction(1, 10), Fraction(7, 20)])
    def test_growth_witness_of_no_threshold_noise_exceeds_the_loss_by_the_oracle(self, loss):
        """Rule (`growth_witness`, no threshold noise, Laplace X with scale b): m = floor(loss·b/Δ) + 1 belows at t and an
        above at t, neighbour t + Δ on the belows; each below's factor is F(0)/F(-Δ) = e^{Δ/b}, the above's cancels, so
        the member's exact loss is mΔ/b > loss.  Checked with the exact oracle at 30 digits, at Δ = 2 and t = 1/3."""
        d, b, t = Fraction(2), Fraction(30), Fraction(1, 3)
        s = variant(eps=Fraction(1, 10), delta=d, t=t, z=("none", 1), x=("laplace", b))
        g = growth(s)
        member = growth_witness(s, g, loss)
        assert member is not None
        q, qn, outcome, released = member
        m = math.floor(loss * b / d) + 1
        assert outcome == "B" * m + "A" and q == (t,) * (m + 1) and qn == (t + d,) * m + (t,) and released == ()
        with mpmath.workdps(30):
            lr = mpmath.log(output_probability(s, q, outcome) / output_probability(s, qn, outcome))
            assert abs(lr - m * mpmath.mpf(d.numerator) / mpmath.mpf(b.numerator)) < mpmath.mpf(10) ** -20
            assert lr > mpmath.mpf(loss.numerator) / loss.denominator

    def test_growth_witness_is_built_for_the_m_family_only(self):
        """Rule: the growth families of parameter L (Gaussian tail) have no instantiated member (None, whatever their
        slope; the m, i and k families have one: tests/test_verdict_every_variant.py)."""
        for s in (variant(z=("gaussian", 30), x=("gaussian", 30)),):
            g = growth(s)
            assert g is not None and g.parameter != "m" and g.slope > 0
            assert growth_witness(s, g, Fraction(1, 10)) is None
        s = variant(z=("none", 1), x=("laplace", 30))
        g = growth(s)
        assert growth_witness(s, Growth(g.statement, g.parameter, Fraction(0)), Fraction(1, 10)) is None
        assert growth_witness(s, Growth(g.statement, "L", g.slope), Fraction(1, 10)) is None


class TestSeedBoundKills5:
    """`_seed_bound` (the seed's Mechanism Two case): a bound only when both noises are piecewise exponential and
    present; with no query noise it gives none and says why (the certified conditional ratio covers Laplace and
    exponential threshold and query noise only)."""

    def test_no_query_noise_gets_no_seed_bound(self):
        from verify.family.bounds import _seed_bound

        bound, why = _seed_bound(_variant(("exponential", 30), ("none", 0)))
        assert bound is None and "Laplace and exponential threshold and query noise only" in why


# --- the survivors of the sixth sample (seed 2206), written after it (no sample has measured them) ----------------
class TestNoCutoffGrowthKills6:
    """`no_cutoff_growth` (unlimited cutoff, Laplace queries, shared threshold): loss(k = 2m) >= kΔ/b_X - log(5/3)
    for a Laplace threshold and - 0 without threshold noise; any other threshold gets the general form with
    log Pr[|Z| < L]; the growth is never valid for monotone neighbours (its neighbour moves queries both ways)."""

    @pytest.mark.parametrize("z,tail", [(("laplace", 30), "- log(5/3) ="), (("none", 0), "- 0 =")])
    def test_laplace_or_no_threshold_noise_gets_the_closed_tail(self, z, tail):
        from verify.family.bounds import no_cutoff_growth

        g = no_cutoff_growth(_variant(z, ("laplace", 30), cutoff=None))
        assert tail in str(g) and "k·1/30" in str(g) and g.monotone_valid is False

    def test_other_threshold_noise_gets_the_general_form_not_for_monotone_neighbours(self):
        from verify.family.bounds import no_cutoff_growth

        g = no_cutoff_growth(_variant(("exponential", 30), ("laplace", 30), cutoff=None))
        assert "log Pr[|Z| < L]" in str(g) and g.monotone_valid is False


class TestBoundKills6:
    """`verify.family.bounds`: the bound of each case of the module docstring, and `why_no_bound` agreeing with it."""

    @pytest.mark.parametrize("monotone", [False, True])
    def test_why_no_bound_is_none_exactly_when_a_bound_is_proven(self, monotone):
        """`why_no_bound(shape, monotone)` gives a reason iff `proven_upper_bound(shape, monotone)` is None, with the
        same default (general neighbours).  Seed Mechanism Two (Exp(3Δ/ε) on both): the certified conditional ratio
        bounds general neighbours (cutoff 1, shared, no release); for monotone neighbours the certified path does not
        apply and the exponential threshold density is not log-Lipschitz, so there is no bound."""
        shape = preset("seed-m2")
        if monotone:
            assert proven_upper_bound(shape, monotone=True) is None
            assert "no log-Lipschitz density" in why_no_bound(shape, monotone=True)
        else:
            assert proven_upper_bound(shape) is not None
            assert why_no_bound(shape) is None
            assert why_no_bound(shape, False) is None

    @pytest.mark.parametrize("monotone", [False, True])
    def test_resampled_threshold_with_fresh_release_adds_c_delta_over_b_y(self, monotone):
        """Cases 2 + 4 (+ 6): resampled threshold, cutoff c, Laplace Z, X, fresh Laplace Y:
        c(Δ/b_Z + wΔ/b_X) + cΔ/b_Y, w = 2 (general) or 1 (monotone).  Δ = 2, b = 5, 7, 11, c = 2."""
        d, bz, bx, by, c = Fraction(2), Fraction(5), Fraction(7), Fraction(11), 2
        w = 1 if monotone else 2
        expected = c * (d / bz + w * d / bx) + c * d / by
        shape = SparseVector(Fraction(1, 10), d, Fraction(0), _lap(bz), _lap(bx), cutoff=c, threshold_policy="resample",
                             release="fresh", release_spec=_lap(by))
        assert proven_upper_bound(shape, monotone=monotone).value == expected
        # the same with at most k = 1 query: one above, c replaced by 1
        assert upper_bound_at(shape, 1, monotone=monotone).value == (d / bz + w * d / bx) + d / by

    def test_no_cutoff_push_without_threshold_noise_uses_the_unit_scale(self):
        """`no_cutoff_push` (documented convention): with no threshold noise b_Z = 1 stands in, L = ceil(1000(m+2) ln 2)
        /1000 + 1/1000.  And the push is a valid witness there: with Z = 0 and Laplace X, every above at t - L (neighbour
        -Δ) has S(L)/S(L+Δ) = e^{Δ/b_X} and every below at t + L (neighbour +Δ) F(-L)/F(-L-Δ) = e^{Δ/b_X} for L >= 0,
        so the loss of A^m B^m is exactly 2mΔ/b_X."""
        bx, d = Fraction(2), Fraction(1)
        shape = SparseVector(Fraction(1, 2), d, Fraction(0), NoiseSpec("none"), _lap(bx), cutoff=None)
        for m in (1, 2, 5):
            expected = Fraction(math.ceil((m + 2) * math.log(2) * 1000) + 1, 1000)
            assert no_cutoff_push(shape, m) == expected
        m = 2
        push = no_cutoff_push(shape, m)
        q = [-push] * m + [push] * m
        qn = [-push - d] * m + [push + d] * m
        with mpmath.workdps(40):
            loss = mpmath.log(output_probability(shape, q, "A" * m + "B" * m, (), 30)
                              / output_probability(shape, qn, "A" * m + "B" * m, (), 30))
            exact = Fraction(2 * m) * d / bx
            assert abs(loss - mpmath.mpf(exact.numerator) / exact.denominator) < mpmath.mpf(10) ** -25


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


def test_additive_family_supplies_a_witness_beyond_max_queries():
    """Without threshold noise, Pr[s_i] = Π_{j<i} F(t - q_j)·S(t - q_i), so with Lap(6Δ/ε) queries each earlier
    query adds c = 1/6 nats (`verify.family.bounds.no_threshold_noise_growth`).  Searching k <= 3 finds at most
    1/2 < ε; the verdict must still be `not_private`, by the growth family's member with m = floor(ε/c) + 1 = 7
    belows and one above (8 queries, beyond max_queries), confirmed with loss 7/6 > ε."""
    from verify.verdicts import MechanismVerdict
    from verify.worstcase import worst_case

    mech = AboveThreshold.with_noise("laplace", 1, threshold_multiplier=0, query_multiplier=6)
    r = worst_case(mech, max_queries=3, starts=1, push_study=False)
    assert max(float(row.halt.loss) for row in r.by_k) <= 0.5 + 1e-12
    # ⊤^k = Π_j F(t - q_j): each query in F's exponential tail adds exactly Δ/b = 1/6, so the ⊤^k row's loss is k/6
    with mpmath.workdps(60):
        for row in r.by_k:
            assert row.no_halt.output == NO_HALT and len(row.no_halt.queries) == row.k
            assert abs(row.no_halt.loss - mpmath.mpf(row.k) / 6) < mpmath.mpf(10) ** -25, row.k  # rows at 30 digits
        assert len(r.witness.queries) == 8 and abs(r.loss - mpmath.mpf(7) / 6) < mpmath.mpf(10) ** -45
    assert r.unbounded and r.verdict == MechanismVerdict.NOT_PRIVATE


def test_proven_bound_scales_with_epsilon():
    """`proven_upper_bound` in units of the queries, for ε != 1: the certified supremum per ε times ε
    (Mechanism Two at ε = 1/2 and 2: exactly ε; exponential c_Z = c_X = 3 at ε = 2: (1/3 + 2/3)·2 = 2),
    and Δ/b_Z + 2Δ/b_X for Laplace noise (Mechanism One at ε = 3: 3)."""
    from verify.worstcase import proven_upper_bound

    assert proven_upper_bound(AboveThreshold.mechanism_two(F(1, 2))).value == F(1, 2)
    assert proven_upper_bound(AboveThreshold.mechanism_two(2)).value == 2
    assert proven_upper_bound(AboveThreshold.with_noise("exponential", 2, threshold_multiplier=3, query_multiplier=3)).value == 2
    assert proven_upper_bound(AboveThreshold.mechanism_one(3)).value == 3
