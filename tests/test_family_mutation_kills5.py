"""Tests for the survivors of the fresh samples with seeds 2204 and 2205, one class per target.

Each states its rule and was checked by applying its mutant by hand and watching it fail.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from verify.cli.main import build_parser
from verify.cli.variant import variant_from_args
from verify.exact import mpf_fraction
from verify.family import worstcase as wc
from verify.family.presets import preset
from verify.family.witness import FamilyWitness
from verify.verdicts import MechanismVerdict


def _witness(above: mpmath.mpf, digits: int = 50) -> FamilyWitness:
    """A witness whose confirmed loss is 1/10 + ``above``: Pr = e^loss·Pr' with Pr' = 1/4 (at 40 more digits)."""
    with mpmath.workdps(digits + 40):
        pn = mpmath.mpf(1) / 4
        return FamilyWitness((Fraction(0),), (Fraction(1),), "A", (), pn * mpmath.exp(mpmath.mpf(1) / 10 + above), pn, digits)


class TestVerdictRuleKills5:
    """`verdict_rule`: not_private iff the confirmed loss exceeds ε + 10^-(digits-5)·max(1, ε), strictly, decided
    exactly (rational arithmetic on the confirmed mpf), whatever precision the caller works at."""

    SHAPE = preset("seed-m1", epsilon=Fraction(1, 10))

    def test_equal_to_epsilon_plus_tol_is_not_a_violation(self, monkeypatch):
        """Decided exactly: a loss equal to ε + tol as rationals is not a violation; with half that tol it is."""
        w = _witness(mpmath.mpf(10) ** -45)
        tol = mpf_fraction(w.loss) - Fraction(1, 10)  # the confirmed loss is a binary rational: ε + tol == loss exactly
        monkeypatch.setattr(wc, "_tol", lambda shape, digits: tol)
        assert wc.verdict_rule(self.SHAPE, w, None) is not MechanismVerdict.NOT_PRIVATE
        monkeypatch.setattr(wc, "_tol", lambda shape, digits: tol / 2)
        assert wc.verdict_rule(self.SHAPE, w, None) is MechanismVerdict.NOT_PRIVATE
        monkeypatch.setattr(wc, "_tol", lambda shape, digits: tol + Fraction(1, 10**80))
        assert wc.verdict_rule(self.SHAPE, w, None) is not MechanismVerdict.NOT_PRIVATE

    @pytest.mark.parametrize("caller_digits", [15, 20, 35, 65, 120])
    def test_the_rule_does_not_depend_on_the_callers_precision(self, caller_digits):
        tol = mpmath.mpf(10) ** -45  # 10^-(50-5)·max(1, 1/10)
        inside, outside = _witness(tol / 2), _witness(2 * tol)
        with mpmath.workdps(caller_digits):
            assert wc.verdict_rule(self.SHAPE, inside, None) is not MechanismVerdict.NOT_PRIVATE
            assert wc.verdict_rule(self.SHAPE, outside, None) is MechanismVerdict.NOT_PRIVATE

    def test_decide_reconfirms_only_a_violation(self, monkeypatch):
        """`_decide` re-confirms at VIOLATION_DIGITS only a witness the rule calls a violation (30-digit witnesses)."""
        calls = []
        monkeypatch.setattr(wc, "confirm", lambda *a, **k: calls.append(a) or _witness(mpmath.mpf(1), 50))
        tol = mpmath.mpf(10) ** -25  # 10^-(30-5)
        for above, reconfirmed in ((tol / 2, False), (2 * tol, True)):
            calls.clear()
            wc._decide(self.SHAPE, False, 1, _witness(above, 30), {1: 0.1}, [])
            assert bool(calls) is reconfirmed, (above, calls)


class TestVariantFlagsKills5:
    """`--noise F` with `--variant`: both noises of the preset become family F (their scales kept); a preset's
    missing noise stays missing."""

    @pytest.mark.parametrize("family", ["exponential", "gaussian"])
    def test_noise_changes_both_families_of_a_preset(self, family):
        args = build_parser().parse_args(["ratio", "--queries", "0", "--neighbour-queries", "1", "--variant", "lyu-1",
                                          "--noise", family])
        m = variant_from_args(args)
        base = preset("lyu-1")
        assert m.threshold_noise.family == family and m.query_noise.family == family
        assert (m.threshold_noise.scale, m.query_noise.scale) == (base.threshold_noise.scale, base.query_noise.scale)

    def test_noise_keeps_a_missing_noise_missing(self):
        args = build_parser().parse_args(["ratio", "--queries", "0", "--neighbour-queries", "1", "--variant", "lyu-5",
                                          "--noise", "exponential"])
        m = variant_from_args(args)
        assert m.query_noise.is_none and m.threshold_noise.family == "exponential"


# --- the survivors of the fifth sample (seed 2205) ------------------------------------------------------------------
def _variant(z, x, release="none", cutoff=1):
    from verify.mechanism import SparseVector
    from verify.noise.spec import NoiseSpec

    return SparseVector(Fraction(1, 10), Fraction(1), Fraction(0), NoiseSpec(z[0], absolute=Fraction(z[1])),
                        NoiseSpec(x[0], absolute=Fraction(x[1])), cutoff=cutoff, release=release)


class TestRdpKills5:
    """Zhu & Wang (NeurIPS 2020) Thm 8, cutoff 1: ε(α) = log k/(α-1) + αΔ²/σ₁² + 2αΔ²/σ₂², written out here with a
    fractional σ₂ (the other tests' σ₂ were integers, where x/1 = x·1)."""

    def test_fractional_query_sigma(self):
        from verify.family.rdp import GaussianSVTRdp

        s1, s2, d, k = Fraction(2), Fraction(5, 2), Fraction(1), 3
        for a in (mpmath.mpf(2), mpmath.mpf("3.5")):
            want = mpmath.log(k) / (a - 1) + a * mpmath.mpf(1) / 4 + 2 * a / (mpmath.mpf(25) / 4)
            assert abs(GaussianSVTRdp(s1, s2, d, k).rdp(a) - want) < mpmath.mpf(10) ** -12


class TestSeedBoundKills5:
    """`_seed_bound` (the seed's Mechanism Two case): a bound only when both noises are piecewise exponential and
    present; with no query noise it gives none and says why (the certified conditional ratio covers Laplace and
    exponential threshold and query noise only)."""

    def test_no_query_noise_gets_no_seed_bound(self):
        from verify.family.bounds import _seed_bound

        bound, why = _seed_bound(_variant(("exponential", 30), ("none", 0)))
        assert bound is None and "Laplace and exponential threshold and query noise only" in why


class TestReleaseRuleKills5:
    """A released value's density is the query noise's for the query and gap releases: without query noise such a
    variant is refused in one line; the fresh release (its own noise) and no release are accepted."""

    @pytest.mark.parametrize("release", ["query", "gap"])
    def test_released_density_needs_query_noise(self, release):
        from verify.errors import InputError

        with pytest.raises(InputError, match="has no density"):
            _variant(("laplace", 30), ("none", 0), release=release)

    def test_no_release_needs_no_query_noise(self):
        assert _variant(("laplace", 30), ("none", 0)).query_noise.is_none


class TestDeltaGridKills5:
    """`search_pair`'s starting axis: grid points -8s + j·16s/(grid - 1), j = 0..grid-1, for any grid > 1 (grid = 2:
    the two ends -8s and 8s); grid = 1 is the single point 0."""

    @pytest.mark.parametrize("grid,axis", [(2, [-8, 8]), (3, [-8, 0, 8]), (1, [0])])
    def test_axis_of_a_small_grid(self, monkeypatch, grid, axis):
        from verify.family import delta_search as ds

        batches: list = []

        class Recorded(Exception):
            pass

        class Recording(ds._Scorer):
            def __call__(self, points):
                batches.append(list(points))
                raise Recorded

        monkeypatch.setattr(ds, "_Scorer", Recording)
        with pytest.raises(Recorded):
            ds.worst_delta(_variant(("laplace", 30), ("laplace", 30)), Fraction(1, 10), max_queries=2, grid=grid)
        hand = {(30 * u, 30 * v) for u, v in ds.HAND_PICKED}
        got = {(u, v) for pat, u, v in batches[0] if pat.uses_u and pat.uses_v} - hand
        want = {(Fraction(30 * a), Fraction(30 * b)) for a in axis for b in axis} - hand
        assert got == want


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


class TestNoneNoiseScaleKills6:
    """A scale for a noise the preset does not have (and no family for it) is refused in one line, whatever the
    scale but 0 (no noise has scale 0)."""

    @pytest.mark.parametrize("scale", ["1", "2", "1/2"])
    def test_scale_of_an_absent_noise_is_refused(self, scale):
        from verify.errors import InputError

        args = build_parser().parse_args(["ratio", "--queries", "0", "--neighbour-queries", "1", "--variant", "lyu-5",
                                          "--query-scale", scale])
        with pytest.raises(InputError, match="the query noise of .* is none"):
            variant_from_args(args)

    def test_scale_zero_of_an_absent_noise_is_no_noise(self):
        args = build_parser().parse_args(["ratio", "--queries", "0", "--neighbour-queries", "1", "--variant", "lyu-5",
                                          "--query-scale", "0"])
        assert variant_from_args(args).query_noise.is_none
