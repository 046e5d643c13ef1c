"""The variant flags: presets, noise and scale overrides, refusals (`verify.cli.variant`).

Re-homed from the mutation rounds' files (`test_family_mutation_kills.py`, `test_family_mutation_kills2.py`, `test_family_mutation_kills5.py`, `test_family_mutation_kills6_bounds.py`); each class or test keeps its name, so
docs/mutation.md and `benchmarks/mutation_score.py` still find it.
"""

from __future__ import annotations

import argparse
import json
from fractions import Fraction

import pytest

from verify.cli.main import build_parser, main
from verify.cli.variant import seed_output, variant_from_args
from verify.errors import InputError
from verify.family.presets import preset
from verify.mechanism import NO_HALT, SparseVector


# --- the variant flags ---------------------------------------------------------------------------------------------------
def parse(*flags: str):
    """The `prob` command's namespace for ``flags`` (plus one query)."""
    from verify.cli.main import build_parser

    return build_parser().parse_args(["prob", "--queries", "0", *flags])

#: The seed's Mechanism One scales both noises as 3Δ/ε (seed document, Algorithm 1, steps 1 and 3).
SEED_MULTIPLIER = "3"


def _flag_variant(*flags: str) -> SparseVector:
    """The family member that ``svt-verify ratio`` builds from ``flags`` (queries irrelevant to the mechanism)."""
    args = build_parser().parse_args(["ratio", "--queries", "0", "--neighbour-queries", "1", *flags])
    return variant_from_args(args)


def _refusal(*flags: str) -> str:
    """The one-line message with which ``flags`` are refused (fails if they are accepted)."""
    with pytest.raises(InputError) as exc:
        _flag_variant(*flags)
    msg = str(exc.value)
    assert "\n" not in msg.strip(), msg
    return msg


class TestFlagKills:
    """The variant flags, parsed and applied field by field (verify/cli/variant.py)."""

    def test_noise_applies_to_every_noise_and_is_refused_when_it_would_change_nothing(self):
        """Rule: --noise F sets both noises' family (the seed's scales kept); with both per-variable families given,
        or when no noise has family F after the other flags, it is refused."""
        from verify.cli.variant import variant_from_args

        m = variant_from_args(parse("--noise", "exponential"))
        assert (m.threshold_spec.family, m.query_spec.family) == ("exponential", "exponential")
        assert m.threshold_spec.multiplier == m.query_spec.multiplier == 3
        m = variant_from_args(parse("--noise", "exponential", "--threshold-noise", "laplace"))
        assert (m.threshold_spec.family, m.query_spec.family) == ("laplace", "exponential")
        with pytest.raises(InputError, match="--noise"):
            variant_from_args(parse("--noise", "exponential", "--threshold-noise", "laplace", "--query-noise", "laplace"))
        with pytest.raises(InputError, match="--noise"):
            variant_from_args(parse("--noise", "exponential", "--threshold-scale", "0", "--query-noise", "laplace"))

    def test_scales_relative_absolute_and_none(self):
        """Rule: one scale per variable (relative C·Δ/ε or absolute B, not both); `none` takes no scale but 0; a family
        over a missing noise needs a scale, except over the seed's `--noise none` (the seed's 3Δ/ε)."""
        from verify.cli.variant import variant_from_args

        m = variant_from_args(parse("--threshold-scale", "5", "--query-absolute-scale", "7/2"))
        assert (m.threshold_spec.multiplier, m.query_spec.absolute) == (5, Fraction(7, 2))
        with pytest.raises(InputError, match="--query-scale and --query-absolute-scale"):
            variant_from_args(parse("--query-scale", "1", "--query-absolute-scale", "1"))
        assert variant_from_args(parse("--threshold-noise", "none", "--threshold-scale", "0")).threshold_spec.is_none
        with pytest.raises(InputError, match="no noise has no scale"):
            variant_from_args(parse("--threshold-noise", "none", "--threshold-absolute-scale", "2"))
        m = variant_from_args(parse("--noise", "none", "--threshold-noise", "laplace"))
        assert m.threshold_spec.family == "laplace" and m.threshold_spec.multiplier == 3 and m.query_spec.is_none
        with pytest.raises(InputError, match="is none"):
            variant_from_args(parse("--noise", "none", "--query-scale", "2", "--threshold-noise", "laplace"))
        with pytest.raises(InputError, match="scale is 0"):
            variant_from_args(parse("--threshold-noise", "laplace", "--threshold-scale", "0"))

    def test_preset_overrides_are_named_and_a_missing_noise_needs_a_scale(self):
        """Rule: a preset changed by a flag is named "NAME, modified by --flag" (--cutoff too when the preset's scales do
        not follow the cutoff); a cutoff that the preset's scales follow rebuilds the preset (no "modified")."""
        from verify.cli.variant import variant_from_args

        m = variant_from_args(parse("--variant", "lyu-5", "--cutoff", "3", "--threshold-scale", "4"))
        assert m.name == "lyu-5, modified by --cutoff --threshold-scale" and m.cutoff == 3
        m = variant_from_args(parse("--variant", "lyu-1", "--cutoff", "2"))
        assert m.name == "lyu-1" and m.cutoff == 2 and m.query_spec.multiplier == 8  # Lyu Alg. 1: b_X = 4cΔ/ε
        with pytest.raises(InputError, match="grow with the cutoff"):
            variant_from_args(parse("--variant", "lyu-1", "--cutoff", "unlimited"))
        m = variant_from_args(parse("--variant", "lyu-5", "--cutoff", "unlimited"))
        assert m.cutoff is None and m.name == "lyu-5, modified by --cutoff"
        assert variant_from_args(parse("--cutoff", "unlimited")).cutoff is None
        assert variant_from_args(parse()).name == "above-threshold"
        assert variant_from_args(parse("--cutoff", "1")).name != "above-threshold"  # a family flag was given
        m = variant_from_args(parse("--threshold-policy", "resample", "--cutoff", "2"))
        assert str(m.threshold_policy) == "resample"

    def test_release_flags(self):
        """Rule: the release noise flags only with --release fresh; fresh needs a family and one scale (or the preset's)."""
        from verify.cli.variant import variant_from_args

        m = variant_from_args(parse("--release", "fresh", "--release-noise", "laplace", "--release-scale", "6"))
        assert str(m.release) == "fresh" and m.release_spec.family == "laplace" and m.release_spec.multiplier == 6
        m = variant_from_args(parse("--release", "fresh", "--release-noise", "exponential", "--release-absolute-scale", "2"))
        assert m.release_spec.absolute == 2 and m.release_spec.family == "exponential"
        m = variant_from_args(parse("--variant", "numeric-svt"))
        assert str(m.release) == "fresh" and m.release_spec is not None
        m2 = variant_from_args(parse("--variant", "numeric-svt", "--release-noise", "exponential"))
        assert m2.release_spec.family == "exponential" and m2.release_spec.multiplier == m.release_spec.multiplier
        assert variant_from_args(parse("--release", "gap")).release_spec is None
        for bad in (("--release", "gap", "--release-noise", "laplace"), ("--release-scale", "2"),
                    ("--release", "fresh"), ("--release", "fresh", "--release-noise", "laplace"),
                    ("--release", "fresh", "--release-noise", "laplace", "--release-scale", "1", "--release-absolute-scale", "1")):
            with pytest.raises(InputError):
                variant_from_args(parse(*bad))

    def test_seed_commands_label_and_refuse_family_members(self):
        """Rule: a seed-only command prints "NAME: " for a preset and nothing without; it refuses a variant that is not
        AboveThreshold and a resampled threshold, and accepts --threshold-policy shared."""
        from verify.cli.variant import family_requested, seed_label, seed_mechanism, variant_from_args

        assert seed_label(parse("--variant", "seed-m2")) == "seed-m2: " and seed_label(parse()) == ""
        assert seed_mechanism(parse("--threshold-policy", "shared"), "sweep").is_above_threshold
        for bad in (("--variant", "lyu-1", "--cutoff", "2"), ("--threshold-policy", "resample")):
            with pytest.raises(InputError, match="sweep"):
                seed_mechanism(parse(*bad), "sweep")
        assert not family_requested(parse(), variant_from_args(parse()))
        assert family_requested(parse("--cutoff", "1"), variant_from_args(parse()))
        assert family_requested(parse(), variant_from_args(parse("--noise", "gaussian")))

    def test_outputs_in_every_notation(self):
        """Rule: --output i / s_i is B^{i-1}A for 1 <= i <= k, none is B^k, letters are checked by the variant; 'all' only
        where allowed; --output and --outcomes not both; the seed's outputs are s_i (i <= k) and ⊤^k only."""
        from verify.cli.variant import outcome_from_args, seed_output, variant_from_args
        from verify.mechanism import NO_HALT

        m = variant_from_args(parse("--cutoff", "2"))
        assert outcome_from_args(parse("--output", "3"), m, 3) == "BBA"
        assert outcome_from_args(parse("--output", "1"), m, 3) == "A"
        assert outcome_from_args(parse("--output", "none"), m, 3) == "BBB"
        assert outcome_from_args(parse("--outcomes", "ABA"), m, 3) == "ABA"
        assert outcome_from_args(parse(), m, 3, allow_all=True) == "all"
        assert outcome_from_args(parse("--output", "all"), m, 3, allow_all=True) == "all"
        for bad, kw in ((("--output", "4"), {}), (("--output", "0"), {}), (("--output", "all"), {}), ((), {}),
                        (("--output", "1", "--outcomes", "A"), {}), (("--outcomes", "AAA"), {})):
            with pytest.raises(InputError):
                outcome_from_args(parse(*bad), m, 3, **kw)
        assert seed_output(parse("--output", "3"), 3) == 3 and seed_output(parse("--outcomes", "BBA"), 3) == 3
        assert seed_output(parse("--outcomes", "A"), 3) == 1
        assert seed_output(parse("--outcomes", "BBB"), 3) == NO_HALT == seed_output(parse("--output", "none"), 3)
        assert seed_output(parse(), 3, allow_all=True) is None and seed_output(parse("--output", "all"), 3, allow_all=True) is None
        for bad in (("--outcomes", "BBBA"), ("--outcomes", "ABA"), ("--outcomes", "BB"), ("--output", "4"), ("--output", "0"),
                    ("--output", "all"), ()):
            with pytest.raises(InputError):
                seed_output(parse(*bad), 3)


class TestFlagKills2:
    """A noise set to none with a scale: the error names the flag that was given."""

    @pytest.mark.parametrize("which", ["threshold", "query"])
    def test_none_noise_with_a_scale_names_the_scale_flag_given(self, which):
        """Rule (`_noise`): ``--W-noise none`` with a non-zero scale is refused, and the one-line error names the scale
        flag the user gave (``--W-absolute-scale`` or ``--W-scale``), with its value."""
        from verify.cli.main import build_parser
        from verify.cli.variant import variant_from_args
        from verify.errors import InputError

        def parse(*flags):
            return build_parser().parse_args(["prob", "--queries", "0", *flags])

        for flag in (f"--{which}-absolute-scale", f"--{which}-scale"):
            with pytest.raises(InputError) as e:
                variant_from_args(parse(f"--{which}-noise", "none", flag, "3"))
            assert f"--{which}-noise none and {flag} 3:" in str(e.value), str(e.value)


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


class TestFlagKills6:
    """`verify.cli.variant`: every flag given is applied or refused with one line naming it, never ignored."""

    def test_noise_with_one_per_variable_family_sets_the_other_variable(self):
        """--noise F with only --query-noise G: the threshold noise takes F (the query noise G); --noise is applied,
        so it is not refused as "changing nothing" (that refusal needs both per-variable families)."""
        m = _flag_variant("--noise", "exponential", "--query-noise", "laplace")
        assert (m.threshold_spec.family, m.query_spec.family) == ("exponential", "laplace")
        m = _flag_variant("--noise", "exponential", "--threshold-noise", "laplace")
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
        m = _flag_variant("--variant", "lyu-5", "--query-noise", "laplace", "--query-scale", "2")
        assert m.query_spec.family == "laplace" and m.query_spec.multiplier == 2 and m.query_spec.absolute is None

    def test_family_over_no_noise_of_the_seed_path_takes_the_seed_scale(self):
        """Without a preset, --noise none --threshold-noise F gives F at the seed's scale 3Δ/ε (seed document)."""
        m = _flag_variant("--noise", "none", "--threshold-noise", "laplace")
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
