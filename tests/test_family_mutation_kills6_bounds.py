"""Tests for the survivors of the full enumerations of `family-bounds` and `variant-flags` (sixth round).

One class per target.  Each test states the rule it guards; its expected values are derived independently (the
bound's formula written out here from the module docstring of `verify.family.bounds` and the seed document, a
symmetry argument, or the documented flag rule: every flag is applied or refused in one line, never ignored).
Each was checked by applying its mutant by hand and watching the test fail.
"""

from __future__ import annotations

import argparse
import json
import math
from fractions import Fraction

import mpmath
import pytest

from verify.cli.main import build_parser, main
from verify.cli.variant import seed_output, variant_from_args
from verify.errors import InputError
from verify.family.bounds import no_cutoff_push, proven_upper_bound, upper_bound_at, why_no_bound
from verify.family.presets import preset
from verify.mechanism import NO_HALT, SparseVector
from verify.noise import NoiseSpec
from verify.oracles.family import output_probability

#: The seed's Mechanism One scales both noises as 3Δ/ε (seed document, Algorithm 1, steps 1 and 3).
SEED_MULTIPLIER = "3"


def _variant(*flags: str) -> SparseVector:
    """The family member that ``svt-verify ratio`` builds from ``flags`` (queries irrelevant to the mechanism)."""
    args = build_parser().parse_args(["ratio", "--queries", "0", "--neighbour-queries", "1", *flags])
    return variant_from_args(args)


def _refusal(*flags: str) -> str:
    """The one-line message with which ``flags`` are refused (fails if they are accepted)."""
    with pytest.raises(InputError) as exc:
        _variant(*flags)
    msg = str(exc.value)
    assert "\n" not in msg.strip(), msg
    return msg


def _lap(b: Fraction | int) -> NoiseSpec:
    """Laplace noise of absolute scale ``b`` (log-Lipschitz constant 1/b for density and survival)."""
    return NoiseSpec("laplace", absolute=Fraction(b))


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


class TestFlagKills6:
    """`verify.cli.variant`: every flag given is applied or refused with one line naming it, never ignored."""

    def test_noise_with_one_per_variable_family_sets_the_other_variable(self):
        """--noise F with only --query-noise G: the threshold noise takes F (the query noise G); --noise is applied,
        so it is not refused as "changing nothing" (that refusal needs both per-variable families)."""
        m = _variant("--noise", "exponential", "--query-noise", "laplace")
        assert (m.threshold_spec.family, m.query_spec.family) == ("exponential", "laplace")
        m = _variant("--noise", "exponential", "--threshold-noise", "laplace")
        assert (m.threshold_spec.family, m.query_spec.family) == ("laplace", "exponential")

    def test_noise_with_both_per_variable_families_is_refused_even_if_it_names_one(self):
        """--noise F with both --threshold-noise and --query-noise changes nothing, even when F equals one of the two
        families: refused in one line naming --noise and its value (not silently accepted)."""
        msg = _refusal("--noise", "laplace", "--threshold-noise", "laplace", "--query-noise", "exponential")
        assert msg.startswith("--noise laplace:") and "both given" in msg

    def test_family_for_a_preset_noise_that_is_absent_needs_a_scale(self):
        """lyu-5 has no query noise: --query-noise F alone has no scale to keep, refused in one line; with a scale
        it is applied at that scale (not at the seed's default 3Δ/ε)."""
        msg = _refusal("--variant", "lyu-5", "--query-noise", "laplace")
        assert msg.startswith("--query-noise laplace:") and "no scale to keep" in msg
        m = _variant("--variant", "lyu-5", "--query-noise", "laplace", "--query-scale", "2")
        assert m.query_spec.family == "laplace" and m.query_spec.multiplier == 2 and m.query_spec.absolute is None

    def test_family_over_no_noise_of_the_seed_path_takes_the_seed_scale(self):
        """Without a preset, --noise none --threshold-noise F gives F at the seed's scale 3Δ/ε (seed document)."""
        m = _variant("--noise", "none", "--threshold-noise", "laplace")
        assert m.threshold_spec.family == "laplace" and m.threshold_spec.multiplier == Fraction(SEED_MULTIPLIER)
        assert m.query_spec.is_none

    @pytest.mark.parametrize("flag", ["--query-scale", "--query-absolute-scale"])
    def test_scale_for_an_absent_noise_names_the_flag_given(self, flag):
        """A scale for a noise that is none (lyu-5's query noise) is refused naming the scale flag actually given."""
        msg = _refusal("--variant", "lyu-5", flag, "2")
        assert msg.startswith(flag + ":"), msg

    @pytest.mark.parametrize("flag", ["--threshold-scale", "--threshold-absolute-scale"])
    def test_scale_under_noise_none_names_the_flag_given(self, flag):
        """--noise none with a threshold scale: refused naming the scale flag given (the seed path, no preset)."""
        msg = _refusal("--noise", "none", flag, "2")
        assert msg.startswith(flag + ":"), msg

    @pytest.mark.parametrize("k", [1, 2, 5])
    def test_seed_output_index_range_is_one_to_k(self, k):
        """The seed's s_i exist for i = 1..k exactly: 1 and k are outputs, 0 and k + 1 are refused naming s_i."""
        def ns(out: int) -> argparse.Namespace:
            return argparse.Namespace(output=out, outcomes=None)

        assert seed_output(ns(1), k) == 1 and seed_output(ns(k), k) == k
        for bad in (0, k + 1):
            with pytest.raises(InputError, match=f"s_{bad} is outside 1..{k}"):
                seed_output(ns(bad), k)
        assert seed_output(argparse.Namespace(output="none", outcomes=None), k) is NO_HALT

    def test_prob_output_one_is_the_first_above(self, capsys):
        """``prob --output 1`` is s_1: with q_1 = t = 0 and X, Z i.i.d. continuous, Pr[X >= Z] = 1/2 by symmetry."""
        capsys.readouterr()
        assert main(["prob", "--queries", "0,1", "--output", "1", "--digits", "15", "--json"]) == 0
        j = json.loads(capsys.readouterr().out)
        assert j["output"] == 1 and abs(Fraction(j["probability"]) - Fraction(1, 2)) < Fraction(1, 10**12)

    def test_help_advertises_all_only_where_it_is_accepted(self, capsys):
        """``--output all`` is refused by prob and accepted by ratio: only ratio's help names ``all``."""
        capsys.readouterr()
        assert main(["prob", "--help"]) == 0
        prob_help = capsys.readouterr().out
        assert "{i|s_i|none|STRING}" in prob_help and "|all" not in prob_help and "(default all)" not in prob_help
        assert main(["ratio", "--help"]) == 0
        ratio_help = capsys.readouterr().out
        assert "{i|s_i|none|STRING|all}" in ratio_help and "(default all)" in ratio_help
