"""Mutation testing of svt-verify's decision and numerical core.

    python benchmarks/mutation_score.py --json                 # every target, every mutant
    python benchmarks/mutation_score.py --targets sampler,sweep --limit 40 --seed 1 --jobs 2

A small AST-based runner (mutmut and cosmic-ray are not installable here, and
both want to own the layout).  For each *target* (a module and the names of the
functions in it, resolved at run time, so a target survives a module being
split into a package) it enumerates one-token mutants of those functions:

* comparison swaps: ``<`` ↔ ``<=``, ``>`` ↔ ``>=``, ``==`` ↔ ``!=``, ``is`` ↔ ``is not``, ``in`` ↔ ``not in``;
* arithmetic swaps: ``+`` ↔ ``-``, ``*`` ↔ ``/``, ``**`` -> ``*``; unary ``-x`` -> ``x``;
* ``and`` ↔ ``or``; ``not x`` -> ``x``;
* constants: an int n -> n + 1, a float x -> 2x (0.0 -> 1.0), ``True`` ↔ ``False``;
* return values: ``return <bool expr>`` -> ``return not (<bool expr>)``.

Each mutant is written into a private copy of the tree (the working tree is
never touched: one copy per job under a temporary directory), and the target's
chosen fast tests run against it with ``pytest -x`` and a timeout, in a child
forked from a server process that has imported the third-party libraries once
(``--no-fork``: a fresh ``python -m pytest`` each time).  A mutant is
*killed* if the tests fail, error or time out, *survived* if they pass.  The
tests are first run unmutated; if they fail there, the run stops.

Mutants that cannot change any observable behaviour are listed, with the
argument, in ``EQUIVALENT`` (matched by file, function and change, not by line).

Output (``--json``): ``mutants`` (the total enumerated), ``tested`` (how many
were run; fewer when ``--limit`` samples them, which ``sample`` then says),
``killed`` and ``survived`` (lists of {file, line, change, target, function,
status}, ``equivalent``: the reason, for a mutant of the table), ``timeouts``,
``score`` = killed / tested (raw), ``equivalent`` (surviving equivalent
mutants), ``score_non_equivalent`` = killed / (tested - equivalent),
``confidence_95`` / ``confidence_95_non_equivalent`` (Wilson intervals, for a
sample), ``equivalent_but_killed``, ``seconds``; ``complete`` is false when
``--max-seconds`` stopped the run early (the mutants run are then a uniform
random subset of the sample).  Not run in CI.
"""

from __future__ import annotations

import argparse
import ast
import concurrent.futures as cf
import importlib.util
import itertools
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import asdict, dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass(frozen=True)
class Target:
    """Modules and some of their functions (or ``*`` for all), with the tests that guard them.

    Several modules and names may be given for one concept (the layout before and after a refactoring,
    e.g. ``verify.sweep`` / ``verify.screen``); modules and names that do not exist are skipped and
    reported under ``unresolved``.
    """

    name: str
    modules: tuple[str, ...]
    functions: tuple[str, ...]
    tests: tuple[str, ...]


def _ids(path: str, *names: str) -> tuple[str, ...]:
    return tuple(f"{path}::{n}" for n in names)


#: Where each rule test of the mutation rounds lives (class or test name -> concept file: tests filed by
#: what they defend, not by round; docs/mutation.md keeps the rounds' history and names the same classes).
RULE_FILES: dict[str, str] = {
    **dict.fromkeys(('TestBoundKills', 'TestBoundKills2', 'TestSeedBoundKills5', 'TestNoCutoffGrowthKills6', 'TestBoundKills6', 'TestGrowthWitnessKills7', 'test_additive_family_supplies_a_witness_beyond_max_queries', 'test_proven_bound_scales_with_epsilon',), "tests/test_bound_rules.py"),
    **dict.fromkeys(('test_equality_check_refutes_only_a_confirmed_discrepancy', 'test_equality_check_reports_the_failing_point_and_needs_lemmas_to_prove', 'test_pointwise_check_at_a_given_point_uses_the_distance_to_the_nearer_bound', 'test_equality_check_needs_a_nonzero_discrepancy_at_the_confirmation_precisions', 'test_pointwise_check_margin_of_exactly_minus_1e30_is_not_a_violation', 'test_confirm_pointwise_needs_more_than_1e30_beyond_a_bound', 'test_pointwise_check_sweep_reports_the_mpmath_margin_at_the_worst_point',), "tests/test_claim_check_rules.py"),
    **dict.fromkeys(('TestDeltaKills', 'TestDeltaKills2', 'TestDeltaDefaultsKills', 'TestDeltaKills3', 'TestDeltaStartsKills3', 'TestDeltaCompassKills4', 'TestDeltaWrapperKills4', 'TestDeltaGridKills5', 'TestDeltaKills6',), "tests/test_delta_rules.py"),
    **dict.fromkeys(('TestClosedFormPointKills3', 'test_fast_conditional_measures_the_cutoff_from_the_threshold', 'test_linear_safe_rows_follow_the_stated_bound', 'test_fast_events_in_blocks_equal_one_pass', 'test_fast_error_estimate_is_the_stated_multiple_of_the_condition_number', 'test_fast_result_is_immutable',), "tests/test_engine_rules.py"),
    **dict.fromkeys(('TestFlagKills', 'TestFlagKills2', 'TestVariantFlagsKills5', 'TestNoneNoiseScaleKills6', 'TestFlagKills6',), "tests/test_flag_rules.py"),
    **dict.fromkeys(('test_interval_sums_with_infinite_endpoints_follow_the_extended_reals', 'test_interval_boundedness_and_zero_times_infinity', 'test_interval_of_a_non_finite_ball_is_everything', 'test_interval_prints_ten_digits', 'test_interval_reciprocal_through_zero_is_everything', 'test_interval_is_zero_only_for_the_exact_point_zero', 'test_interval_log_is_minus_infinity_only_at_an_endpoint_zero', 'test_interval_expm1_is_at_least_minus_one', 'test_signed_log_terms_sum_and_the_empty_sum',), "tests/test_interval_rules.py"),
    **dict.fromkeys(('test_log_ratio_conventions_and_probability_one', 'test_ratio_of_an_output_impossible_on_one_side', 'test_ratio_resolution_scales_with_epsilon_above_one',), "tests/test_ratio_rules.py"),
    **dict.fromkeys(('TestRdpKills2', 'TestRdpKills5', 'TestRdpKills6',), "tests/test_rdp_rules.py"),
    **dict.fromkeys(('TestReleaseDensityKills3', 'TestReleaseDensityKills4', 'TestReleaseDensityKills6',), "tests/test_release_density_rules.py"),
    **dict.fromkeys(('TestReleaseKills', 'TestReleaseRuleKills3', 'TestReleaseRuleKills5', 'TestReleaseRuleKills6',), "tests/test_release_rule_edges.py"),
    **dict.fromkeys(('test_classify_places_against_a_fractional_epsilon', 'test_float_margin_and_confirm_tolerance_follow_their_formulas', 'test_classify_edges_are_inclusive_for_at_bound', 'test_classify_works_at_the_precision_of_the_digits', 'test_screen_orders_candidates_and_counts_nan_as_violating', 'test_first_violation_confirms_at_most_limit_candidates_in_order', 'test_sweep_decide_counts_every_kind_of_point',), "tests/test_screen_rules.py"),
    **dict.fromkeys(('TestSearchKills', 'TestSearchKills2', 'TestGapRefinementKills', 'TestSearchKills3', 'TestReleaseMovesKills3', 'TestRefinementKills4', 'TestGridKills4', 'TestReleaseMovesKills4', 'TestWitnessDigitsKills4', 'TestSearchStartsKills7', 'TestTieRulesKills7',), "tests/test_search_rules.py"),
    **dict.fromkeys(('TestStructuredKills', 'TestStructuredKills3', 'TestStructuredKills4', 'TestQuadratureKills4', 'TestLayoutsKills4', 'TestStructuredKills6',), "tests/test_structured_rules.py"),
    **dict.fromkeys(('TestRowsKills3',), "tests/test_table_rows.py"),
    **dict.fromkeys(('TestTightnessKills', 'TestTightnessKills2', 'TestTightnessRunsKills', 'TestTightnessKills3', 'TestTightnessGridKills3', 'TestTightnessKills4', 'TestSeedTightnessKills7', 'test_attained_means_equal_to_the_bound_at_fifty_digits',), "tests/test_tightness_rules.py"),
    **dict.fromkeys(('TestDecisionKills', 'TestDecisionKills2', 'TestProgressKills', 'TestDecisionKills3', 'TestDecisionKills4', 'TestOnBestKills4', 'TestVerdictRuleKills5', 'TestGuardNearKills7', 'TestDecideKills7', 'TestExactRuleKills7', 'test_worst_case_reports_its_run_time_and_refuses_a_bad_seed', 'test_an_infinite_loss_is_unbounded_with_a_zero_side',), "tests/test_verdict_rules.py"),
    **dict.fromkeys(('TestWitnessKills', 'TestWitnessKills2', 'TestWitnessKills3', 'TestBestSoFarKills4',), "tests/test_witness_rules.py"),
}


def _rule(name: str) -> str:
    """The pytest id of a rounds' test by its class (or function) name, ``Class::test`` allowed."""
    return f"{RULE_FILES[name.split('::')[0]]}::{name}"


def _rules(*names: str) -> tuple[str, ...]:
    return tuple(_rule(n) for n in names)


DEC = "tests/test_decisions.py"
ORA = "tests/test_oracles.py"
PRB = "tests/test_probabilities.py"

#: The decision and numerical core, each with a fast subset of tests (pytest node ids).
TARGETS: tuple[Target, ...] = (
    Target("worstcase-decision", ("verify.worstcase", "verify.family.worstcase"),
           ("worst_case", "family_worst_case", "_decide", "verdict_rule", "guard", "_guard_all", "_tol"),
           _ids("tests/test_worstcase_guard.py", "test_search_witness_above_the_bound_raises", "test_per_k_row_above_its_bound_raises",
                "test_tightness_witness_above_the_bound_raises", "test_pushed_point_above_the_bound_raises",
                "test_seed_path_has_a_bound_for_every_k_and_a_wrong_certificate_is_caught", "test_verdict_rule_edges")
           + _ids(DEC, "test_worst_case_input_edges_and_frozen_intervals", "test_private_needs_a_proven_bound_at_most_epsilon",
                "test_private_at_a_bound_equal_to_epsilon", "test_a_loss_equal_to_epsilon_is_not_a_violation_but_above_is")
           + _rules("test_worst_case_reports_its_run_time_and_refuses_a_bad_seed",
                  "test_additive_family_supplies_a_witness_beyond_max_queries", "test_proven_bound_scales_with_epsilon",
                  "test_an_infinite_loss_is_unbounded_with_a_zero_side")
           + _ids("tests/test_worstcase.py", "test_negative_controls_not_private_with_confirmed_witness",
                  "test_no_threshold_noise_grows_linearly_with_k", "test_no_query_noise_has_probability_zero_on_one_side",
                  "test_scale_too_small_reaches_its_proof_bound")),
    Target("worstcase-tightness", ("verify.family.worstcase",), ("_tightness", "_push"),
           _ids(DEC, "test_tightness_is_measured_against_the_proven_bound_not_epsilon",
                "test_push_table_has_eight_doubling_pushes_below_the_bound")
           + _rules("test_attained_means_equal_to_the_bound_at_fifty_digits")
           + _ids("tests/test_worstcase_guard.py", "test_tightness_witness_above_the_bound_raises", "test_pushed_point_above_the_bound_raises")
           + _ids("tests/test_worstcase.py", "test_seed_mechanisms_never_not_private", "test_mechanism_one_gap_shrinks_with_push")),
    Target("sweep-decision", ("verify.sweep", "verify.screen"),
           ("_classify", "_decide", "verdict", "float_margin", "mp_tolerance", "classify", "decide", "screen", "confirm_tolerance",
            "first_violation"),
           _rules("test_classify_places_against_a_fractional_epsilon", "test_classify_edges_are_inclusive_for_at_bound", "test_float_margin_and_confirm_tolerance_follow_their_formulas",
                "test_classify_works_at_the_precision_of_the_digits", "test_screen_orders_candidates_and_counts_nan_as_violating",
                "test_first_violation_confirms_at_most_limit_candidates_in_order", "test_sweep_decide_counts_every_kind_of_point")
           + _ids(DEC, "test_near_epsilon_mechanisms_are_where_the_docstring_says", "test_sweep_confirms_a_violation_below_the_float_margin",
                "test_sweep_just_inside_is_neither_violation_nor_at_bound", "test_sweep_exact_bound_is_at_bound_not_violation",
                "test_sweep_unconfirmed_violations_read_refuted_float64")),
    Target("ratio-decision", ("verify.ratio", "verify.logratio"), ("_ratio_report", "log_ratio"),
           _rules("test_log_ratio_conventions_and_probability_one", "test_ratio_of_an_output_impossible_on_one_side",
                "test_ratio_resolution_scales_with_epsilon_above_one")
           + _ids(DEC, "test_near_epsilon_mechanisms_are_where_the_docstring_says", "test_ratio_within_bounds_at_the_resolution_of_the_digits")),
    Target("certify-interval", ("verify.certify.interval",), ("*",),
           _rules("test_interval_sums_with_infinite_endpoints_follow_the_extended_reals", "test_interval_prints_ten_digits",
                "test_interval_reciprocal_through_zero_is_everything", "test_interval_boundedness_and_zero_times_infinity",
                "test_interval_of_a_non_finite_ball_is_everything", "test_interval_is_zero_only_for_the_exact_point_zero",
                "test_interval_log_is_minus_infinity_only_at_an_endpoint_zero", "test_interval_expm1_is_at_least_minus_one")
           + _ids(DEC, "test_worst_case_input_edges_and_frozen_intervals", "test_outward_rounding_example_one_third", "test_interval_predicates_are_conservative", "test_interval_infinite_endpoints_follow_the_extended_reals",
                "test_certify_sup_constant_pieces_at_the_edge", "test_every_interval_endpoint_rounds_outward",
                "test_certify_at_and_just_above_the_bound")
           + _ids("tests/test_certify.py", "test_interval_keeps_exact_tangency", "test_search_refutes_and_does_not_certify_an_interior_tangency",
                  "test_interval_evaluation_encloses_exact_values")),
    Target("claim-steps", ("proofs.steps",), ("equality_check", "pointwise_check", "_confirm_pointwise"),
           _rules("test_equality_check_refutes_only_a_confirmed_discrepancy",
                "test_pointwise_check_at_a_given_point_uses_the_distance_to_the_nearer_bound",
                "test_equality_check_reports_the_failing_point_and_needs_lemmas_to_prove",
                "test_equality_check_needs_a_nonzero_discrepancy_at_the_confirmation_precisions",
                "test_pointwise_check_margin_of_exactly_minus_1e30_is_not_a_violation",
                "test_confirm_pointwise_needs_more_than_1e30_beyond_a_bound",
                "test_pointwise_check_sweep_reports_the_mpmath_margin_at_the_worst_point")
           + _ids("tests/test_proofs.py", "test_pointwise_check_refutes_a_too_tight_bound", "test_equality_check_refutes_a_wrong_integral",
                "test_point_checks", "test_claim[P1.chain.3]", "test_claim[P1.compare.density]", "test_claim[M2.compare.integrand]")),
    Target("sampler", ("verify.mechanism",), ("sample", "sample_counts"),
           _ids(DEC, "test_sampler_halts_on_ties_without_noise", "test_sampler_runs_and_rejects_bad_run_counts",
                "test_sampler_matches_exact_distribution")
           + _ids(PRB, "test_sampler_matches_exact_probabilities")),
    Target("noise-cdfs", ("verify.noise",), ("log_cdf", "log_sf", "log_pdf", "cdf_below", "pdf", "sample"),
           _ids(ORA, "test_noise_kernel_matches_its_definition_in_both_tails", "test_noise_kernel_none_is_the_indicator_of_the_seeds_rule",
                "test_gaussian_noise_kernel_matches_its_definition_in_both_tails", "test_noise_sampler_has_the_stated_distribution")
           + _ids(DEC, "test_sampler_halts_on_ties_without_noise", "test_sampler_matches_exact_distribution")),
    Target("fast-path", ("verify.engine.fast_closed_form",), ("*",),
           _rules("test_fast_conditional_measures_the_cutoff_from_the_threshold", "test_linear_safe_rows_follow_the_stated_bound",
                "test_fast_events_in_blocks_equal_one_pass", "test_fast_error_estimate_is_the_stated_multiple_of_the_condition_number",
                "test_fast_result_is_immutable", "test_signed_log_terms_sum_and_the_empty_sum")
           + _ids(PRB, "test_symbolic_mpmath_fast_agree", "test_fast_matches_mpmath_k20_and_tails", "test_fast_linear_and_log_space_agree",
                "test_extended_precision_resolves_most_ill_conditioned_rows", "test_sums_to_one_k50_and_tiny_probabilities",
                "test_conditional_three_paths_and_quad")
           + _ids(ORA, "test_fast_path_without_threshold_noise_matches_the_oracle", "test_oracle_matches_the_three_library_paths_with_ties",
                  "test_far_tails_agree_in_relative_terms")),
)

# --- the SVT family's decision and numerical core (the family targets) ---------------------------------------------
# Each target is a list of modules (files) and function names: to re-point a target after a move, edit its module
# list only (a module that no longer exists is skipped and reported under `unresolved`).  The tests are chosen to
# exercise behaviour through public functions, so they survive such moves.
BND, VW, REL = "tests/test_bound_preconditions.py", "tests/test_verdict_words.py", "tests/test_release_densities.py"
FV, STR, FLG = "tests/test_family_verdicts.py", "tests/test_structured_search.py", "tests/test_variant_flags.py"
GRD = "tests/test_worstcase_guard.py"
#: The family's search and decision (`verify.worstcase.decision` restates the result in the seed's terms).
_FAMILY_SEARCH = ("verify.family.worstcase",)
_SEED_VIEW = ("verify.worstcase.decision",)
#: Where the release densities live: the exact oracle's release switch, the closed form's density factors, the
#: integrand's release terms and the mpmath forms of the noise families a release may use.
_RELEASE = ("verify.oracles.family", "verify.engine.piecewise", "verify.engine.integrand",
            "verify.noise.laplace", "verify.noise.exponential", "verify.noise.gaussian")

FAMILY_TARGETS: tuple[Target, ...] = (
    Target("family-bounds", ("verify.family.bounds",),
           ("_lip_density", "_lip_survival", "why_no_bound", "proven_upper_bound", "upper_bound_at", "_bound", "_seed_bound",
            "no_cutoff_growth", "query_release_growth", "gaussian_tail_growth", "growth", "no_cutoff_push",
            "no_threshold_noise_growth", "growth_witness", "exceeded_by", "proven_upper_bound_of"),
           _ids(BND, "test_case1_shared_laplace_inside_and_non_laplace_threshold_outside",
                "test_case1_lyu_algorithm_one_is_exactly_epsilon_for_every_cutoff",
                "test_query_noise_survival_inside_for_laplace_and_exponential_outside_for_gaussian_and_none",
                "test_case2_resampled_threshold_pays_the_threshold_once_per_above", "test_case3_gap_release_needs_the_density_of_the_query_noise",
                "test_case4_fresh_release_adds_the_release_density", "test_case5_query_release_has_no_bound_but_growth",
                "test_case6_monotone_neighbours_halve_the_query_term_only",
                "test_case7_unlimited_cutoff_no_bound_but_a_bound_for_k_queries",
                "test_seed_fallback_inside_for_mechanism_two_and_outside_when_any_precondition_fails", "test_bounds_scale_with_delta",
                "test_no_cutoff_growth_needs_unlimited_cutoff_laplace_queries_and_a_shared_threshold",
                "test_growth_is_not_used_for_monotone_neighbours_when_its_family_is_not_monotone",
                "test_gaussian_tail_growth_needs_gaussian_queries_and_a_gaussian_or_absent_threshold_noise",
                "test_gaussian_tail_growth_is_a_true_lower_bound_at_its_edge")
           + _ids(FV, "test_query_release_growth_is_exact", "test_no_cutoff_growth_lower_bound_holds",
                  "test_gaussian_tail_growth_lower_bound_holds")
           + (_rule("TestBoundKills"), _rule("TestBoundKills2"), _rule("TestSeedBoundKills5"), _rule("TestNoCutoffGrowthKills6"), _rule("TestBoundKills6"))),
    Target("family-decision", _FAMILY_SEARCH + _SEED_VIEW,
           ("_decide", "family_worst_case", "_best_per_layout", "_largest_confirmed", "verdict_rule", "guard", "_guard_all", "_tol",
            "worst_case", "_output", "_seed_witness"),
           _ids(VW, "test_not_private_just_above_epsilon_plus_tol_and_not_just_below",
                "test_not_private_tolerance_scales_with_epsilon_above_one", "test_private_at_a_bound_equal_to_epsilon_and_not_just_above",
                "test_unbounded_needs_an_infinite_loss_or_a_growth_proof", "test_guard_a_loss_above_the_bound_by_more_than_tol_is_a_bug")
           + _ids(GRD, "test_search_witness_above_the_bound_raises", "test_per_k_row_above_its_bound_raises",
                  "test_verdict_rule_edges")
           + (_rule("TestDecisionKills"), _rule("TestDecisionKills2"), _rule("TestProgressKills"), _rule("TestTightnessRunsKills"), _rule("TestDecisionKills3"),
              _rule("TestRowsKills3"), _rule("TestOnBestKills4"), _rule("TestDecisionKills4"), _rule("TestVerdictRuleKills5"),
              *_rules("TestSearchStartsKills7", "TestTieRulesKills7", "TestGrowthWitnessKills7", "TestSeedTightnessKills7", "TestGuardNearKills7", "TestDecideKills7", "TestExactRuleKills7"))),
    Target("family-tightness", _FAMILY_SEARCH, ("_tightness", "_push"),
           _ids(VW, "test_attained_at_fifty_digits_and_not_one_digit_short", "test_approached_below_a_millionth_of_the_bound_and_loose_above")
           + _ids(GRD, "test_tightness_witness_above_the_bound_raises", "test_pushed_point_above_the_bound_raises")
           + (_rule("TestTightnessKills"), _rule("TestSearchKills::test_mechanism_two_attains_its_bound"), _rule("TestTightnessKills2"), _rule("TestTightnessKills3"),
              _rule("TestTightnessGridKills3"), _rule("TestTightnessKills4"))),
    Target("family-structured", ("verify.family.structured",),
           ("layouts", "_segment_log", "_segment_points", "_panel_rule", "_r_free", "family_log_probability", "family_log_ratio",
            "_logsumexp", "string", "k"),
           (STR, _rule("TestStructuredKills"), _rule("TestStructuredKills3"), "tests/test_structured_evaluator.py",
            _rule("TestStructuredKills4"), _rule("TestQuadratureKills4"), _rule("TestLayoutsKills4"), _rule("TestStructuredKills6")) + _ids(FV, "test_lyu4_loss_is_the_change_of_variables_bound")),
    Target("family-search", _FAMILY_SEARCH,
           ("_patterns", "_grid_layout", "_refine", "_refine_once", "_witness", "_scale", "_release_moves"),
           (_rule("TestSearchKills"), _rule("TestSearchKills2"), _rule("TestGapRefinementKills"), _rule("TestSearchKills3"), _rule("TestReleaseMovesKills3"), _rule("TestRefinementKills4"),
            _rule("TestGridKills4"), _rule("TestReleaseMovesKills4"), _rule("TestWitnessDigitsKills4"))
           + _ids(FV, "test_lyu4_loss_is_the_change_of_variables_bound")),
    Target("family-witness", ("verify.family.witness",), ("*",),
           _ids(VW, "test_not_private_just_above_epsilon_plus_tol_and_not_just_below", "test_unbounded_needs_an_infinite_loss_or_a_growth_proof")
           + _ids(FV, "test_witness_reproducible_with_ratio") + (_rule("TestWitnessKills"), _rule("TestWitnessKills2"), _rule("TestWitnessKills3"), _rule("TestBestSoFarKills4"))),
    Target("family-delta", ("verify.family.delta", "verify.family.delta_search"),
           ("complete_outputs", "exact_delta", "rdp_delta", "worst_delta", "delta_at", "delta_at_infinity", "epsilon_for", "search_pair",
            "epsilon_for_delta", "pair_profile"),
           _ids(BND, "test_worst_delta_returns_the_best_pair_of_its_own_grid_with_the_right_neighbour",
                "test_worst_delta_moves_the_earlier_queries_against_the_last_one")
           + _ids(FV, "test_delta_identities") + (_rule("TestDeltaKills"), _rule("TestDeltaKills2"), _rule("TestDeltaDefaultsKills"), _rule("TestDeltaKills3"), _rule("TestDeltaStartsKills3"), "tests/test_delta_search.py",
                                                     _rule("TestDeltaCompassKills4"), _rule("TestDeltaWrapperKills4"), _rule("TestDeltaGridKills5"),
                                                     _rule("TestDeltaKills6"))),
    Target("family-rdp", ("verify.family.rdp",), ("rdp", "delta", "__post_init__"),
           _ids(FV, "test_rdp_transcription_and_conversions")
           + _rules("TestDeltaKills::test_renyi_curve_and_its_validation", "TestDeltaKills::test_renyi_delta_is_the_minimum_over_orders",
                  "TestDeltaKills::test_renyi_bound_is_reported_only_for_gaussian_threshold_and_queries_at_cutoff_one")
           + (_rule("TestRdpKills2"), _rule("TestRdpKills5"), _rule("TestRdpKills6"))),
    Target("release-densities", _RELEASE,
           ("_cdf_below", "_sf", "_pdf", "_factor_terms", "_segment", "factor_density", "point", "constant", "build",
            "mp_pdf", "mp_cdf", "mp_sf"),
           (REL, _rule("TestReleaseKills"), _rule("TestReleaseDensityKills3"), _rule("TestClosedFormPointKills3"),
            _rule("TestReleaseDensityKills4"), "tests/test_oracle_support.py", "tests/test_oracle_gauss_legendre.py",
            _rule("TestReleaseDensityKills6"))),
    Target("variant-flags", ("verify.cli.variant",), ("*",), (FLG, "tests/test_family_cli.py", _rule("TestFlagKills"), _rule("TestFlagKills2"),
                                                                    _rule("TestVariantFlagsKills5"), _rule("TestNoneNoiseScaleKills6"), _rule("TestFlagKills6"))),
    Target("release-rules", tuple(f"verify.release.{m}" for m in ("protocol", "registry", "none", "query", "gap", "fresh")), ("*",),
           ("tests/test_release_rules.py", REL, _rule("TestReleaseKills"), _rule("TestReleaseRuleKills3"), _rule("TestReleaseRuleKills5"),
            _rule("TestReleaseRuleKills6"))),
)
#: The audit's decision: Bonferroni's divisor, the confirming re-run, the verdict and its power (issue 32, item 8).
AUDIT_TARGETS: tuple[Target, ...] = (
    Target("audit-decision", ("verify.audit.decision",), ("*",), ("tests/test_audit_decision.py",)),
)
TARGETS = TARGETS + FAMILY_TARGETS + AUDIT_TARGETS

#: Tuning parameters: module-level constants that set a search's effort (how many points are tried, how far a local
#: optimiser goes), not what a found point means.  The runner mutates only the target functions' bodies, so these are
#: not mutated; they are listed here (and in docs/mutation.md) so that the exclusion is stated, not hidden.  Soundness
#: does not rest on them: a loss is reported only as a witness confirmed at 50 digits by the exact oracle, and
#: `private` only from a proven bound; a change can make the search find a different (better or worse) point, never
#: turn a wrong statement into a reported one.
TUNING_PARAMETERS: tuple[tuple[str, str], ...] = (
    ("verify.family.search_tuning", "GRID_STEPS, GAP_STEPS, RELEASE_OFFSETS: the first phase's grid"),
    ("verify.family.search_tuning", "REFINE_BUDGET, ROW_BUDGET: Nelder-Mead iterations per coordinate (a start, a per-k row)"),
    ("verify.family.search_tuning", "REFINE_BOX, REFINE_XATOL, REFINE_FATOL: the refinement's clip box and stopping tolerances"),
    ("verify.family.search_tuning", "MOVE_RTOL: the relative improvement a fresh release's moved point needs to count"),
    ("verify.family.search_tuning", "MODERATE_STEPS, CLOSE_RTOL: the tightness study's moderate grid and its float64 filter"),
    ("verify.family.search_tuning", "UNIT_DENOMINATOR: the largest denominator of the unit a witness's coordinates are rounded in"),
    ("verify.family.structured", "TAIL_EFOLDS, GAUSSIAN_TAIL_SCALES, GAUSSIAN_RATE_FACTOR, PANEL_EFOLDS, MIN_PANELS, MAX_PANELS, "
                                 "CHUNK_NODES: the float64 objective's quadrature (range, panels, chunking)"),
)


@dataclass(frozen=True)
class Equivalent:
    """A mutant that no test can kill: no observable behaviour changes (the reason says why).

    Matched without line numbers: the file, the innermost function, the change (original text and
    replacement) and, where the same change occurs more than once in the function, ``context`` (equal to
    the source of the changed node's parent expression or statement) and ``within`` (a substring of the
    source of the innermost statement around the change); sources whitespace-normalised.
    """

    file: str
    function: str
    original: str
    replacement: str
    reason: str
    context: str = ""
    within: str = ""

    def matches(self, m: Mutant) -> bool:
        return ((m.file, m.function, m.original, m.replacement) == (self.file, self.function, self.original, self.replacement)
                and (not self.context or self.context == m.context) and self.within in m.statement)


#: Equivalent mutants, each with the argument.  Keep it short and strict: a tolerance that changes which rows
#: are re-checked, or a heuristic that changes the witness found, is testable and does not belong here.
_FAST, _NOISE, _IV = "verify/engine/fast_closed_form.py", "verify/noise.py", "verify/certify/interval.py"
_WC = "verify/family/worstcase.py"
_MASKED = ("a placeholder inside np.where(c, x, placeholder) that keeps log/division quiet where c is false; "
           "an enclosing np.where on the same condition replaces every such element, so no result changes")
_INF_ONLY = ("the comparison is evaluated only on an endpoint already known to be ±inf (_is_inf), where "
             "x > 0, x >= 0 and x > 1 (or x < 0, x <= 0, x < 1) all agree")
_SIGN = ("_sign's value is only compared with 0 or multiplied by another sign and compared with 0, so "
         "returning 2 for 1 (or -2 for -1) changes nothing")
_BRANCH_POINT = "at y = 0 both branches give the same float64, bit for bit (checked: log(1/2), 1/2)"
_SWEEP_CLEAR = ("`clear` is used only in `flagged = ambiguous | clear`; the points the change adds or removes "
                "(eps - margin < a <= eps + margin) are in `ambiguous` already, so `flagged` is the same set")


def _eq(file: str, function: str, change: str, reason: str, context: str = "", within: str = "") -> Equivalent:
    original, replacement = change.split("  ->  ")
    return Equivalent(file, function, original, replacement, reason, context, within)


EQUIVALENT: tuple[Equivalent, ...] = (
    # verify/engine/fast_closed_form.py: placeholders masked by an enclosing np.where on the same condition
    _eq(_FAST, "_log_exprel", "1.0  ->  2.0", _MASKED, within="safe = np.where(y == 0, 1.0, y)"),
    _eq(_FAST, "_log_exprel", "0  ->  1", "y == 1 gets safe = 1.0 = y; y == 0 keeps safe = 0, whose nan the "
        "return's np.where(y == 0, 0.0, ...) replaces", context="y == 0", within="safe = np.where(y == 0, 1.0, y)"),
    _eq(_FAST, "_exprel_times_length", "1.0  ->  2.0", _MASKED, within="safe = np.where(x == 0, 1.0, x)"),
    _eq(_FAST, "_exprel_times_length", "0  ->  1", "x == 1 gets safe = 1.0 = x; x == 0 keeps safe = 0, whose nan the "
        "return's np.where(x == 0, length, ...) replaces", context="x == 0", within="safe = np.where(x == 0, 1.0, x)"),
    _eq(_FAST, "total", "1.0  ->  2.0", _MASKED, context="np.where(val > 0, val, 1.0)"),
    _eq(_FAST, "total", "val > 0  ->  val >= 0", _MASKED + " (val = 0 only changes the masked placeholder)",
        context="np.where(val > 0, val, 1.0)"),
    _eq(_FAST, "total", "1.0  ->  2.0", _MASKED, context="np.where(self.value > 0, self.value, 1.0)"),
    _eq(_FAST, "total", "self.value > 0  ->  self.value >= 0", _MASKED + " (value = 0 only changes the masked placeholder)",
        context="np.where(self.value > 0, self.value, 1.0)"),
    _eq(_FAST, "_point_events", "-np.inf  ->  np.inf", "the initial fill of `out`: every column 0..k is assigned "
        "afterwards", within="out = np.full((n, k + 1), -np.inf)"),
    *(_eq(_FAST, fn, "0  ->  1", "a clamp that is inactive where its value is used: segments lie between consecutive kinks "
          "and x is a kink, so where not `below` (hi > x) the segment starts at r = lo >= x (x - r <= 0), and where "
          "`below` (hi <= x) it has r <= x (r - x <= 0); min(., 1) = min(., 0) there", context=ctx)
      for fn, ctx in (("_below", "np.minimum(x - r, 0)"), ("_reach", "np.minimum(r - x, 0)"))),
    # verify/noise.py: the exponential kernel at its branch point y = 0 and Laplace's continuity at 0
    _eq(_NOISE, "log_cdf", "y > 0  ->  y >= 0", "at y = 0 the first branch is log(-expm1(-0)) = log(0) = -inf, "
        "the second branch's value", within="np.where(y > 0, np.log(-np.expm1(-np.maximum(y, 0))), -np.inf)"),
    _eq(_NOISE, "log_sf", "y > 0  ->  y >= 0", "at y = 0 the first branch is -max(0, 0) = -0.0 == 0.0, the "
        "second branch's value", within="np.where(y > 0, -np.maximum(y, 0), 0.0)"),
    _eq(_NOISE, "cdf_below", "y > 0  ->  y >= 0", "at y = 0 the first branch is -expm1(-0) = 0.0, the second "
        "branch's value", within="np.where(y > 0, -np.expm1(-np.maximum(y, 0)), 0.0)"),
    _eq(_NOISE, "log_cdf", "y < 0  ->  y <= 0", _BRANCH_POINT, within="_LOG_HALF + np.minimum(y, 0)"),
    _eq(_NOISE, "log_sf", "y < 0  ->  y <= 0", _BRANCH_POINT, within="_LOG_HALF - np.maximum(y, 0)"),
    _eq(_NOISE, "cdf_below", "y < 0  ->  y <= 0", _BRANCH_POINT, within="0.5 * np.exp(np.minimum(y, 0))"),
    *(_eq(_NOISE, fn, "0  ->  1", "np.minimum(y, 0) -> np.minimum(y, 1) inside the y < 0 branch of np.where: there "
          "min(y, 1) = y = min(y, 0); the clamp only keeps exp() of the discarded branch small", context="np.minimum(y, 0)")
      for fn in ("log_cdf", "log_sf", "cdf_below")),
    # verify/certify/interval.py: comparisons of an endpoint known to be infinite, and _sign's magnitude
    *(_eq(_IV, fn, ch, _INF_ONLY, context=ctx) for fn, ch, ctx in (
        ("_lt", "a < 0  ->  a <= 0", ""), ("_lt", "0  ->  1", "a < 0"),
        ("_lt", "b > 0  ->  b >= 0", ""), ("_lt", "0  ->  1", "b > 0"),
        ("_sign", "x > 0  ->  x >= 0", "1 if x > 0 else -1"),
        ("_mono_lo", "x < 0  ->  x <= 0", ""), ("_mono_lo", "0  ->  1", "x < 0"),
        ("_mono_hi", "x < 0  ->  x <= 0", ""), ("_mono_hi", "0  ->  1", "x < 0"),
        ("_point_pow", "x > 0  ->  x >= 0", ""), ("_point_pow", "0  ->  1", "x > 0"),
        ("_add_lo", "a > 0  ->  a >= 0", ""), ("_add_lo", "b > 0  ->  b >= 0", ""),
        ("_add_lo", "a < 0  ->  a <= 0", ""), ("_add_lo", "b < 0  ->  b <= 0", ""),
        ("_add_lo", "0  ->  1", "a > 0"), ("_add_lo", "0  ->  1", "b > 0"),
        ("_add_lo", "0  ->  1", "a < 0"), ("_add_lo", "0  ->  1", "b < 0"),
        ("_add_hi", "a > 0  ->  a >= 0", ""), ("_add_hi", "b > 0  ->  b >= 0", ""),
        ("_add_hi", "a < 0  ->  a <= 0", ""), ("_add_hi", "b < 0  ->  b <= 0", ""),
        ("_add_hi", "0  ->  1", "a > 0"), ("_add_hi", "0  ->  1", "b > 0"),
        ("_add_hi", "0  ->  1", "a < 0"), ("_add_hi", "0  ->  1", "b < 0"),
    )),
    _eq(_IV, "_sign", "0  ->  1", _INF_ONLY, context="x > 0", within="return 1 if x > 0 else -1"),
    *(_eq(_IV, fn, f"_is_inf({x}) and {x} {op} 0  ->  _is_inf({x}) or {x} {op} 0", "the outer test of the branch where one "
          f"endpoint is infinite: a finite {x} {op} 0 now enters it, but then the other endpoint is the infinite one and "
          "the branch returns what the other branch would (the opposite infinity, or the undefined case)",
          context=f"(_is_inf(a) and a {op} 0) or (_is_inf(b) and b {op} 0)")
      for fn, op in (("_add_lo", ">"), ("_add_hi", "<")) for x in ("a", "b")),
    _eq(_IV, "_sign", "1  ->  2", _SIGN, context="return 1"),
    _eq(_IV, "_sign", "1  ->  2", _SIGN, context="-1"),
    _eq(_IV, "_sign", "1  ->  2", _SIGN, context="1 if x > 0 else -1"),
    _eq(_IV, "_mul", "sa * sb > 0  ->  sa * sb >= 0", "sa, sb are ±1 here (a zero sign returned None above), so "
        "sa·sb is ±1, never 0"),
    _eq(_IV, "_mul", "sa * sb  ->  sa / sb", "sa, sb are ±1 here, and sa/sb has the sign of sa·sb"),
    _eq(_IV, "power", "n < 0  ->  n <= 0", "n = 0 then returns power(0).reciprocal() = [1, 1].reciprocal() = [1, 1] "
        "(1/1 is exact in arb), the same as the n == 0 branch"),
    _eq(_IV, "power", "0  ->  1", "n < 1 is n <= 0 for an int: as n < 0 -> n <= 0", context="n < 0"),
    _eq(_IV, "power", "0  ->  1", "_sign(lo) >= 1 drops only lo = 0 exactly (even n), whose branch then gives "
        "[0, max(lo^n.hi, hi^n.hi)] = [0, hi^n.hi], the same interval as [lo^n.lo, hi^n.hi] with lo^n = 0 exact",
        context="_sign(self.lo) >= 0"),
    _eq(_IV, "power", "_sign(self.hi) <= 0  ->  _sign(self.hi) < 0", "for even n and hi = 0 exactly, hi^n is the exact "
        "point 0, so the branch taken instead, [0, max(lo^n.hi, hi^n.hi)], is [0, lo^n.hi], the same interval"),
    # verify/sweep/decision.py
    _eq("verify/sweep/decision.py", "decide", "a > eps + margin  ->  a >= eps + margin", _SWEEP_CLEAR),
    _eq("verify/sweep/decision.py", "decide", "eps + margin  ->  eps - margin", _SWEEP_CLEAR,
        within="clear = (a > eps + margin) & ~nan"),
    _eq("verify/sweep/decision.py", "decide", "-np.inf  ->  np.inf", "`decided` at a NaN point: NaN points are always "
        "ambiguous, so re-evaluated, and decided[r, c] is overwritten with the high-precision value",
        within="decided = np.where(nan, -np.inf, a)"),
    # verify/ratio.py
    _eq("verify/ratio.py", "_ratio_report", "lr > 0  ->  lr >= 0", "evaluated only for an infinite lr (the ratio of "
        "a finite lr is exp(lr)), where lr > 0 and lr >= 0 agree", within="mpmath.inf if lr > 0 else"),
    _eq("verify/ratio.py", "_ratio_report", "0  ->  1", "evaluated only for an infinite lr, where lr > 0 and lr > 1 agree",
        context="lr > 0"),
    _eq("verify/ratio.py", "_ratio_report", "10  ->  11", "one more guard digit of the working precision (digits + 10 -> + 11)"),
    # guard digits of a working precision (values are compared at `digits` digits; more guard digits change no decision)
    _eq("verify/screen.py", "classify", "10  ->  11", "one more guard digit of the working precision (digits + 10 -> + 11)"),
    _eq("verify/screen.py", "first_violation", "10  ->  11", "one more guard digit of the working precision (digits + 10 -> + 11)"),
    _eq("verify/family/witness.py", "to_json", "lr > 0  ->  lr >= 0", "evaluated only for an infinite lr (`mpmath.isinf(lr) "
        "and lr > 0`), where lr > 0 and lr >= 0 agree", within='"inf" if mpmath.isinf(lr) and lr > 0'),
    _eq("verify/family/witness.py", "to_json", "0  ->  1", "evaluated only for an infinite lr, where lr > 0 and lr > 1 agree",
        context="lr > 0", within='"inf" if mpmath.isinf(lr) and lr > 0'),
    _eq("verify/family/worstcase.py", "_tightness", "1  ->  2", "a.reshape(-1) -> a.reshape(-2): numpy takes any negative "
        "size as the one unknown dimension (checked: np.arange(4).reshape(-2) is [0 1 2 3])", context="-1",
        within="a.reshape(-1)"),
    # fourth round (family-search): the first phase's grid and the refinement's clamp of an infinite loss
    _eq(_WC, "_grid_layout", "1  ->  2", "a.reshape(-1) -> a.reshape(-2): numpy takes any negative size as the one unknown "
        "dimension", context="-1", within="a.reshape(-1)"),
    _eq(_WC, "_grid_layout", "s * m  ->  s / m", "m runs over (-1, 1): s / 1 == s * 1 and s / -1 == s * -1 exactly in IEEE "
        "float64 (a sign change), so the set of steps is the same"),
    _eq(_WC, "_patterns", "[(b, 0) for b in sorted({b for b, _ in pats}) if b != 0] or [(1, 0)]  ->  "
        "[(b, 0) for b in sorted({b for b, _ in pats}) if b != 0] and [(1, 0)]", "reached only for a layout without A's, "
        "which has B's (a layout has a letter), so the patterns before it are (1, -1), (1, 1), (1, 0), (0, -1) or a "
        "subset with at least one σ_B = 1, and every σ_B is 0 or 1: the comprehension is exactly [(1, 0)], as non-empty "
        "`L or X` (L) and `L and X` (X) both give"),
    *(_eq(_WC, "obj", "1e300  ->  2e+300", "a clamp for Nelder-Mead, which uses the objective's values only in "
          "comparisons (sorting the simplex, accepting a step) and in the stop test |f0 - fi| <= fatol: every finite "
          "value has |val| < 10^6 (log-probabilities of queries clipped to 40 scales), so 1e300 -> 2e300 keeps every "
          "comparison and every stop test (a difference involving a clamp is >= ~1e300 > fatol either way), hence the same "
          "path and res.x; res.fun differs only where the best vertex is clamped: -(±1e300) and -(±2e300) give inf "
          "(found >= 1e300) or a value below every finite start (the start is returned) alike", context=ctx)
      for ctx in ("min(val, 1e300)", "-min(val, 1e300) if np.isfinite(val) or val > 0 else 1e300")),
    _eq("verify/family/structured.py", "_segment_log", "1  ->  2", "(...).reshape(-1) -> .reshape(-2): numpy takes any negative "
        "size as the one unknown dimension (checked: np.arange(6).reshape(2, 3).reshape(-2) is [0 1 2 3 4 5])", context="-1",
        within="reshape(-1)"),
    _eq("verify/family/structured.py", "_segment_points", "1  ->  2", "f.reshape(rows, -1) -> f.reshape(rows, -2): numpy takes "
        "any negative size as the one unknown dimension", context="-1", within="reshape(f.shape[0], -1)"),
    _eq("verify/family/structured.py", "_panel_rule", "64  ->  65", "the size of lru_cache's memory of panel rules: a cache "
        "returns the values it would compute (only the time changes)", context="maxsize=64"),
    _eq("verify/family/structured.py", "_panel_rule", "1  ->  2", "(...).reshape(-1) -> .reshape(-2): numpy takes any negative "
        "size as the one unknown dimension", context="-1", within="reshape(-1)"),
    # the noise families' mpmath forms at their branch point y = 0 (both branches give the same mpf, exactly)
    *(_eq(f"verify/noise/{fam}.py", fn, ch, f"at y = 0 both branches give the same value exactly ({why})", within=w)
      for fam, fn, ch, why, w in (
          ("laplace", "mp_cdf", "y < 0  ->  y <= 0", "exp(0)/2 = 1 - exp(-0)/2 = 1/2", "mpmath.exp(y / b) / 2 if y < 0"),
          ("laplace", "mp_sf", "y < 0  ->  y <= 0", "1 - exp(0)/2 = exp(-0)/2 = 1/2", "1 - mpmath.exp(y / b) / 2 if y < 0"),
          ("exponential", "mp_cdf", "y > 0  ->  y >= 0", "-expm1(-0) = 0", "-mpmath.expm1(-y / b) if y > 0"),
          ("exponential", "mp_sf", "y > 0  ->  y >= 0", "exp(-0) = 1", "mpmath.exp(-y / b) if y > 0"),
      )),
    _eq("verify/family/witness.py", "to_json", "self.digits + 15  ->  self.digits - 15", "to_json only reads stored values "
        "(the log ratio sets its own precision) and formats them with mpmath.nstr, which does not depend on the working "
        "precision", within="workdps(self.digits + 15)"),
    # epsilon_for_delta's working precision frames only `delta_at`, which sets its own (`self.digits + 15`), and an
    # exact 0: no arithmetic happens at the outer precision, so any change of it is inert
    *(_eq("verify/family/delta.py", "epsilon_for_delta", ch, "the working precision around `prof.delta_at(ep)` (which "
          "sets its own, digits + 15) and an exact mpf(0): nothing is computed at the outer precision",
          within="workdps(digits + 15)") for ch in ("digits + 15  ->  digits - 15", "15  ->  16")),
    # pair_profile's working precision frames only the calls to `output_probability`, which sets its own in every path
    # (the two-precision loop, the final `workdps(digits + 15)`, `_gaussian_single`'s): no arithmetic at the outer one
    *(_eq("verify/family/delta.py", "pair_profile", ch, "the working precision around `output_probability` (which sets "
          "its own: workdps(digits + guard), workdps(digits + 15), `_gaussian_single`'s workdps(digits + 15)): nothing "
          "is computed at the outer precision", within="workdps(digits + 15)") for ch in ("digits + 15  ->  digits - 15",
                                                                                       "15  ->  16")),
    _eq("verify/family/delta.py", "delta_at", "term > 0  ->  term >= 0", "adds the terms equal to 0 as well: mpmath adds an "
        "exact 0 without changing the sum", within="if term > 0:"),
    _eq("verify/family/delta.py", "epsilon_for", "a > 0  ->  a >= 0", "also keeps the outputs with P = 0: with P' = 0 too "
        "they add nothing; with P' > 0 their loss key 0 is below every kept row's (a/b > 0), so they come last, where "
        "they leave A_j unchanged and raise B_j: their candidates log((A_j - D)/B_j) are below the previous row's, and a "
        "B_j = 0 return would have happened at that row already"),
    *(_eq("verify/family/worstcase.py", "obj", ch, "`val > 0` is evaluated only when `np.isfinite(val)` is false "
          "(val = +inf, -inf or nan), where val > 0, val >= 0 and val > 1 agree", within="np.isfinite(val) or val > 0")
      for ch in ("0  ->  1", "val > 0  ->  val >= 0")),
    # `_patterns`' fallbacks are dead code: every pattern list built before them has a nonzero σ_A and a nonzero σ_B,
    # and a layout has at least one letter, so `... or [(0, -1)]` and `... or [(1, 0)]` never take their right side
    *(_eq("verify/family/worstcase.py", "_patterns", ch, "a fallback never evaluated: every pattern list has a nonzero "
          "sigma_A and sigma_B, and a layout has at least one letter", context=c, within=w)
      for ch, c, w in (("0  ->  1", "(0, -1)", "or [(0, -1)]"), ("-1  ->  1", "(0, -1)", "or [(0, -1)]"),
                       ("1  ->  2", "-1", "or [(0, -1)]"), ("1  ->  2", "(1, 0)", "or [(1, 0)]"),
                       ("0  ->  1", "(1, 0)", "or [(1, 0)]"))),
    _eq("verify/family/structured.py", "_segment_log", "len(u) > 1  ->  len(u) >= 1", "at len(u) == 1 the dedup block "
        "finds the one point distinct: pick = [0], len(pick) == len(u), so back = None and u, v, r are unchanged, as "
        "in the else branch", within="if len(u) > 1:"),
    _eq("verify/family/structured.py", "layouts", "1  ->  2", "the resampled layouts' j loop up to max_queries + 1: the "
        "extra j = max_queries + 1 is always skipped (n_a >= 1: used = n_a(j + 1) > max_queries; n_a = 0: j > 0), so the "
        "same layouts", context="max_queries + 1", within="for j in range(0, max_queries + 1)"),
    _eq("verify/family/structured.py", "_logsumexp", "0.0  ->  1.0", _MASKED + " (np.isfinite(top): a row whose largest "
        "term is not finite is -inf whatever its placeholder shift)", context="np.where(np.isfinite(top), top, 0.0)"),
    _eq("verify/family/structured.py", "_segment_log", "False  ->  True", "the read-only flag of a remembered array: "
        "nothing writes into `_MEMO`'s arrays (a caller gets `out.copy()` or `out[back]`, a fancy index: both new "
        "arrays), so the flag is never consulted", within="out.flags.writeable = False"),
    _eq("verify/family/structured.py", "_segment_log", "len(first) < len(u)  ->  len(first) <= len(u)", "with every point "
        "distinct (len(first) == len(u)) the dedup block is the identity: `first` is a permutation, order = argsort(first) "
        "gives pick = first[order] = 0..n-1, and back = rank[inverse] = 0..n-1 (the first occurrence of point i is i), so "
        "u, v, r keep their values and bits (the memo key is the same bytes) and out[back] has out's values"),
    _eq("verify/family/structured.py", "family_log_ratio", "2  ->  3", "the second group (n, 2n) -> (n, 3n) of 2n points: "
        "numpy clamps a slice at the array's end, so subs[n:3n] and widths[n:3n] are subs[n:2n] and widths[n:2n]",
        context="2 * n"),
    _eq("verify/family/structured.py", "_segment_log", "1  ->  2", "dedup from three points on (`len(u) > 2`): two points "
        "are then computed as given; each value is still `_segment_points`' for the whole array (rows are independent and "
        "a repeated point does not change the widest, so the panel count is the same), and the memo key holds the two "
        "points, looked up only by a call with the same two points", context="len(u) > 1", within="if len(u) > 1:"),
    _eq("verify/family/structured.py", "log_integrand", "1  ->  2", "the cap's factor counted twice: its log is 0.0 or -inf, "
        "and 2 * 0.0 = 0.0, 2 * -inf = -inf, so every sum is the same", context="(1, np.where(z <= rr, 0.0, -np.inf))"),
    _eq("verify/family/structured.py", "layouts", "max_queries > used  ->  max_queries >= used", "the tail list is reached "
        "only with used <= max_queries (used > max_queries `continue`s first); the two differ only at used == max_queries, "
        "where [max_queries - used] is [0], the else branch's list", within="[max_queries - used] if max_queries > used else [0]"),
    _eq("verify/family/structured.py", "_segment_points", "1  ->  2", "rows per chunk at least 2 instead of 1: reached only "
        "by rows of more than CHUNK_NODES / 2 nodes (at most 5 segments of 16·MAX_PANELS = 6400 nodes), and the chunk only "
        "groups rows, each computed elementwise and reduced along its own row (same bits: checked with CHUNK_NODES = 1 and 10^9)",
        context="max(1, CHUNK_NODES // (widths.shape[1] * t.size))"),
    _eq("verify/family/structured.py", "_segment_points", "-np.inf  ->  np.inf", "the NaN guard never changes a value: with "
        "finite edges every kernel argument (z, z - u, z - v, r + z - v; u, v and a used r are kinks) is non-NaN and every "
        "continuous family's log_cdf/log_sf/log_pdf (the search refuses discrete noise) is in [-inf, finite] there, so f has no NaN; with a non-finite edge the outermost "
        "segment's width is inf or NaN, its log weight makes the row's top inf or NaN, and _logsumexp returns -inf either way",
        within="np.copyto(f, -np.inf, where=np.isnan(f))"),
    _eq("verify/family/structured.py", "_segment_points", "True  ->  False", "`_logsumexp` without scratch: the same ufuncs "
        "(subtract, exp) elementwise into a new array instead of into f, then the same max and sum; f is not read again "
        "(the next chunk builds its own)", context="overwrite=True"),
    # the branch tests at a panel's exact midpoint: every c passed is a kink (q_i - t, q_i - t - v_i, or 0 for the
    # threshold's density), and `_closed_form` passes a Fraction strictly inside a panel between distinct sorted
    # kinks (or 1 beyond the last / before the first), so mid != c and y = mid - c != 0: strict and non-strict agree
    *(_eq("verify/oracles/family.py", "_factor_terms", ch, "the branch test at the panel's exact midpoint, which is "
          "never a kink (mid - c != 0, see `_closed_form`): the two comparisons agree", within=w)
      for ch, w in (("mid < c  ->  mid <= c", "below = mid < c"), ("y > 0  ->  y >= 0", "(y > 0) if kind"),
                    ("y <= 0  ->  y < 0", "(y > 0) if kind"))),
    _eq("verify/worstcase/decision.py", "worst_case", "1  ->  2", "one more k after max_queries: the search's layouts "
        "have at most max_queries queries (`structured.layouts`), so that k finds neither row and the loop breaks",
        context="fam.max_queries + 1", within="range(1, fam.max_queries + 1)"),
    _eq("verify/oracles/family.py", "_factor_terms", "0  ->  1", "the rate key of the zero factor {0: 0} -> {1: 0}: a term "
        "with coefficient 0 is dropped whatever its rate (`_times` skips ca == 0 and cb == 0, the panel sum skips coef == 0), "
        "and both dicts are non-empty (truthy)", context="Fraction(0)", within="zero = {Fraction(0): mpmath.mpf(0)}"),
    _eq("verify/family/worstcase.py", "_push", "0.0  ->  1.0", "the float64 value field of the pushed point: `_witness` "
        "reads only the point's layout, coordinates and shifts, never its value", within="_Point(0.0, best.lay"),
    # the family's guard digits: every decision compares values at tolerances of 10^-(digits-5) or coarser, and the
    # confirmed probabilities are computed at their own precision inside the oracle
    *(_eq(f, fn, ch, f"one more guard digit of the working precision ({ch.split('  ->  ')[0]} -> {ch.split('  ->  ')[1]} guard "
          "digits around values computed and compared at `digits`)", context=w.split("(", 1)[1].rstrip(")"), within=w)
      for f, fn, ch, w in (
          ("verify/family/worstcase.py", "_tightness", "15  ->  16", "workdps(VIOLATION_DIGITS + 15)"),
          ("verify/family/witness.py", "log_ratio", "15  ->  16", "workdps(self.digits + 15)"),
          ("verify/family/witness.py", "loss", "15  ->  16", "workdps(self.digits + 15)"),
          ("verify/family/witness.py", "to_json", "15  ->  16", "workdps(self.digits + 15)"),
          ("verify/family/delta.py", "to_json", "10  ->  11", "workdps(self.digits + 10)"),
          ("verify/family/delta.py", "exact_delta", "15  ->  16", "workdps(digits + 15)"),
          ("verify/family/delta.py", "delta_at", "15  ->  16", "workdps(self.digits + 15)"),
          ("verify/family/delta.py", "delta_at_infinity", "15  ->  16", "workdps(self.digits + 15)"),
          ("verify/family/delta.py", "epsilon_for", "15  ->  16", "workdps(self.digits + 15)"),
      )),
    _eq("verify/family/bounds.py", "_seed_bound", "cert.sup_log_ratio_per_epsilon * mech.epsilon  ->  "
        "cert.sup_log_ratio_per_epsilon / mech.epsilon", "a dead branch: `_seed_bound` certifies an AboveThreshold built "
        "with absolute scales only, so `rates` gives units 'absolute' and the certificate's sup_log_ratio is never None"),
)


def equivalence(m: Mutant) -> str | None:
    """The reason ``m`` is equivalent, or None."""
    return next((e.reason for e in EQUIVALENT if e.matches(m)), None)


def _target_score(name: str, results: list) -> dict:
    """killed / tested, the surviving equivalent mutants and the score over non-equivalent mutants of one target."""
    mine = [(m, s) for m, s, _ in results if m.target == name]
    killed = sum(1 for _, s in mine if s != "pass")
    eq = sum(1 for m, s in mine if s == "pass" and equivalence(m) is not None)
    n = len(mine) - eq
    return {"tested": len(mine), "killed": killed, "equivalent": eq, "non_equivalent": n,
            "score_non_equivalent": round(killed / n, 4) if n else None, "confidence_95_non_equivalent": wilson(killed, n)}


def wilson(successes: int, n: int, z: float = 1.959964) -> tuple[float, float] | None:
    """The Wilson score interval (95 % for the default z) for a binomial proportion successes/n."""
    if n == 0:
        return None
    phat = successes / n
    centre = (phat + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * (phat * (1 - phat) / n + z * z / (4 * n * n)) ** 0.5
    return round(max(0.0, centre - half), 4), round(min(1.0, centre + half), 4)


SWAPS: dict[type, type] = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq, ast.NotEq: ast.Eq,
    ast.Is: ast.IsNot, ast.IsNot: ast.Is, ast.In: ast.NotIn, ast.NotIn: ast.In,
    ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult, ast.Pow: ast.Mult,
    ast.And: ast.Or, ast.Or: ast.And,
}


@dataclass(frozen=True)
class Mutant:
    target: str
    file: str  # relative to the tree root
    line: int
    col: int
    end_line: int
    end_col: int
    original: str
    replacement: str
    function: str = "<module>"  # the innermost function (or method) around the change
    context: str = ""  # the source of the changed node's parent expression or statement, whitespace-normalised
    statement: str = ""  # the source of the innermost statement around the change, whitespace-normalised

    @property
    def change(self) -> str:
        return f"{self.original}  ->  {self.replacement}"


# --------------------------------------------------------------------------------------------------
# resolving targets and enumerating mutants
# --------------------------------------------------------------------------------------------------
def module_files(module: str) -> list[Path]:
    """The .py files of a module, or of every module of a package (so a split module is still found)."""
    sys.path.insert(0, str(ROOT))
    try:
        spec = importlib.util.find_spec(module)
    except ModuleNotFoundError:
        spec = None
    finally:
        sys.path.pop(0)
    if spec is None or spec.origin is None:
        return []
    origin = Path(spec.origin).resolve()
    if ROOT not in origin.parents:  # an editable install elsewhere can answer for a module this tree lacks
        return []
    if origin.name == "__init__.py":
        return sorted(origin.parent.rglob("*.py"))
    return [origin]


def _functions(tree: ast.AST, names: tuple[str, ...]) -> list[ast.AST]:
    """Function definitions (at any depth, methods included) with one of ``names``; ``*``: the whole module."""
    if names == ("*",):
        return [tree]
    found = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name in names:
            found.append(node)
    return found


def _docstring_nodes(tree: ast.AST) -> set[int]:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
    return ids


def _mutations(node: ast.AST) -> list[ast.AST]:
    """Mutated copies of one node (top-level change only)."""
    import copy

    out: list[ast.AST] = []
    if isinstance(node, ast.Compare) and len(node.ops) == 1 and type(node.ops[0]) in SWAPS:
        m = copy.deepcopy(node)
        m.ops = [SWAPS[type(node.ops[0])]()]
        out.append(m)
    elif isinstance(node, ast.BinOp) and type(node.op) in SWAPS:
        m = copy.deepcopy(node)
        m.op = SWAPS[type(node.op)]()
        out.append(m)
    elif isinstance(node, ast.BoolOp):
        m = copy.deepcopy(node)
        m.op = SWAPS[type(node.op)]()
        out.append(m)
    elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
        out.append(copy.deepcopy(node.operand))
    elif isinstance(node, ast.Constant) and not isinstance(node.value, str):
        v = node.value
        if isinstance(v, bool):
            out.append(ast.Constant(not v))
        elif isinstance(v, int):
            out.append(ast.Constant(v + 1))
        elif isinstance(v, float):
            out.append(ast.Constant(2 * v if v != 0 else 1.0))
    return out


def _is_boolean(expr: ast.AST) -> bool:
    return isinstance(expr, (ast.Compare, ast.BoolOp)) or (isinstance(expr, ast.UnaryOp) and isinstance(expr.op, ast.Not)) or (
        isinstance(expr, ast.Constant) and isinstance(expr.value, bool))


def resolve(target: Target) -> tuple[list[tuple[Path, ast.AST, ast.AST, str]], list[str]]:
    """(file, module tree, function node, source) for every function of the target found; and the names not found."""
    found: list[tuple[Path, ast.AST, ast.AST, str]] = []
    names: set[str] = set()
    for module in target.modules:
        for path in module_files(module):
            source = path.read_text()
            tree = ast.parse(source)
            for fn in _functions(tree, target.functions):
                found.append((path, tree, fn, source))
                names.add(getattr(fn, "name", "*"))
    missing = [n for n in target.functions if n != "*" and n not in names]
    if target.functions == ("*",) and not found:
        missing = ["*"]
    return found, missing


def _enclosing(node: ast.AST, root: ast.AST, parent: dict[int, ast.AST]) -> str:
    """The name of the innermost function definition around ``node`` (``root``'s name, or <module>)."""
    while id(node) in parent:
        node = parent[id(node)]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            return node.name
    return getattr(root, "name", "<module>")


def enumerate_mutants(target: Target) -> list[Mutant]:
    mutants: list[Mutant] = []
    seen: set[tuple] = set()
    docs_of: dict[int, set[int]] = {}
    for path, tree, fn, source in resolve(target)[0]:
        docs = docs_of.setdefault(id(tree), _docstring_nodes(tree))
        rel = str(path.relative_to(ROOT))
        parent: dict[int, ast.AST] = {id(c): n for n in ast.walk(fn) for c in ast.iter_child_nodes(n)}

        for node in ast.walk(fn):
            if id(node) in docs or not hasattr(node, "lineno"):
                continue
            if isinstance(node, ast.JoinedStr) or _inside_fstring(node, fn):
                continue
            original = ast.get_source_segment(source, node)
            if original is None:
                continue
            reps = [ast.unparse(m) for m in _mutations(node)]
            if isinstance(node, ast.Return) and node.value is not None and _is_boolean(node.value):
                reps.append(f"return not ({ast.unparse(node.value)})")
            for rep in reps:
                key = (rel, node.lineno, node.col_offset, node.end_lineno, node.end_col_offset, rep)
                if key in seen:
                    continue
                seen.add(key)
                up = parent.get(id(node))
                while up is not None and not hasattr(up, "lineno"):  # e.g. a default value's `arguments`
                    up = parent.get(id(up))
                context = ast.get_source_segment(source, up) if up is not None else None
                stmt: ast.AST | None = node
                while stmt is not None and not isinstance(stmt, ast.stmt):
                    stmt = parent.get(id(stmt))
                statement = ast.get_source_segment(source, stmt) if stmt is not None else None
                mutants.append(Mutant(target.name, rel, node.lineno, node.col_offset, node.end_lineno,
                                      node.end_col_offset, " ".join(original.split()), rep, _enclosing(node, fn, parent),
                                      " ".join((context or "").split()), " ".join((statement or "").split())))
    return mutants


_FSTRING_PARTS: dict[int, set[int]] = {}


def _inside_fstring(node: ast.AST, root: ast.AST) -> bool:
    key = id(root)
    if key not in _FSTRING_PARTS:
        ids: set[int] = set()
        for n in ast.walk(root):
            if isinstance(n, ast.JoinedStr):
                ids |= {id(x) for x in ast.walk(n)}
        _FSTRING_PARTS[key] = ids
    return id(node) in _FSTRING_PARTS[key]


def apply(source: str, m: Mutant) -> str:
    """The source with the node at m's position replaced (parenthesised) by the mutation."""
    lines = source.splitlines(keepends=True)
    offsets = [0]
    for ln in lines:
        offsets.append(offsets[-1] + len(ln))

    def pos(line: int, col: int) -> int:  # ast columns are UTF-8 byte offsets
        text = lines[line - 1].encode()[:col].decode()
        return offsets[line - 1] + len(text)

    start, end = pos(m.line, m.col), pos(m.end_line, m.end_col)
    rep = m.replacement if m.replacement.startswith("return ") else f"({m.replacement})"
    out = source[:start] + rep + source[end:]
    ast.parse(out)  # a mutant must still be valid Python
    return out


# --------------------------------------------------------------------------------------------------
# running
# --------------------------------------------------------------------------------------------------
def copy_tree(dest: Path) -> None:
    ignore = shutil.ignore_patterns(".git", "__pycache__", ".pytest_cache", ".hypothesis", ".ruff_cache", "*.egg-info", "build", "dist")
    shutil.copytree(ROOT, dest, ignore=ignore)


PYTEST_ARGS = ("-x", "-q", "-p", "no:cacheprovider", "--no-header")
ENV = dict(os.environ, MPLBACKEND="Agg", PYTHONDONTWRITEBYTECODE="1")


def run_tests(tree: Path, tests: tuple[str, ...], timeout: float) -> tuple[str, float]:
    """'pass', 'fail' or 'timeout' for the tests in ``tree`` (a fresh ``python -m pytest`` process)."""
    cmd = [sys.executable, "-m", "pytest", *PYTEST_ARGS, *tests]
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, cwd=tree, capture_output=True, timeout=timeout, env=ENV)
    except subprocess.TimeoutExpired:
        return "timeout", time.perf_counter() - t0
    return ("pass" if proc.returncode == 0 else "fail"), time.perf_counter() - t0


#: The fork server: a process started in a tree copy that imports the third-party libraries once (pytest,
#: hypothesis, sympy, mpmath, numpy, scipy, flint: ~3 s of the ~5 s a fresh pytest takes before its first test)
#: and then, for each request, forks a child that runs ``pytest.main`` in the copy.  It never imports the
#: project (``verify``, ``proofs``, ``tests``): each child imports the copy's (mutated) modules afresh, exactly
#: as a fresh ``python -m pytest`` would (the copy's root first on sys.path).  One JSON line in, one out.
_SERVER = r"""
import json, os, signal, sys, time
for name in ("pytest", "_pytest.python", "hypothesis", "hypothesis.strategies", "sympy", "mpmath", "numpy",
             "scipy.stats", "scipy.special", "scipy.integrate", "scipy.optimize", "flint"):
    try:
        __import__(name)
    except Exception:
        pass
tree = sys.argv[1]
assert not any(m.split(".")[0] in ("verify", "proofs", "tests", "conftest") for m in sys.modules)
for line in sys.stdin:
    req = json.loads(line)
    t0 = time.perf_counter()
    pid = os.fork()
    if pid == 0:  # the child: one pytest run, then exit without returning to the loop
        rc = 3
        try:
            os.setpgid(0, 0)
            os.chdir(tree)
            sys.path.insert(0, tree)
            out = os.open(req["log"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            os.dup2(out, 1)
            os.dup2(out, 2)
            import pytest
            rc = int(pytest.main(req["args"]))
        finally:
            os._exit(rc)
    status = None
    while status is None:
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            status = "pass" if os.waitstatus_to_exitcode(st) == 0 else "fail"
        elif time.perf_counter() - t0 > req["timeout"]:
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(pid, 0)
            status = "timeout"
        else:
            time.sleep(0.02)
    print(json.dumps({"status": status, "seconds": time.perf_counter() - t0}), flush=True)
"""


class ForkServer:
    """Runs the tests of one tree copy through a fork server (see ``_SERVER``); same verdicts as `run_tests`."""

    def __init__(self, tree: Path) -> None:
        self.log = tree.parent / f"{tree.name}.log"  # the last run's pytest output (outside the tree copy)
        self.proc = subprocess.Popen([sys.executable, "-c", _SERVER, str(tree)], cwd=tree, env=ENV, text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)

    def run(self, tests: tuple[str, ...], timeout: float) -> tuple[str, float]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps({"args": [*PYTEST_ARGS, *tests], "timeout": timeout, "log": str(self.log)}) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("mutation_score: the fork server died")
        r = json.loads(line)
        return r["status"], r["seconds"]

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", action="store_true", help="print the result as JSON")
    ap.add_argument("--targets", default="", help=f"comma-separated target names (default all: {', '.join(t.name for t in TARGETS)})")
    ap.add_argument("--limit", type=int, default=0, help="test a seeded random sample of this many mutants (0 = all)")
    ap.add_argument("--seed", type=int, default=0, help="seed of the sample")
    ap.add_argument("--jobs", type=int, default=1, help="parallel tree copies")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per mutant before it counts as killed (timeout)")
    ap.add_argument("--max-seconds", type=float, default=0.0,
                    help="start no new mutant after this many seconds (0 = no limit); the result says how many were run")
    ap.add_argument("--per-target", action="store_true",
                    help="with --limit: a seeded sample of --limit mutants from each target (a score per target), not from all")
    ap.add_argument("--rerun", default="", help="a previous --json result: test only its survivors (after adding tests)")
    ap.add_argument("--list", action="store_true", help="list the mutants and exit")
    ap.add_argument("--no-fork", action="store_true",
                    help="a fresh `python -m pytest` per mutant instead of the fork server (slower by ~3 s a mutant)")
    args = ap.parse_args(argv)

    chosen = [t for t in TARGETS if not args.targets or t.name in args.targets.split(",")]
    unknown = set(filter(None, args.targets.split(","))) - {t.name for t in TARGETS}
    if unknown:
        ap.error(f"unknown target(s): {', '.join(sorted(unknown))}")
    mutants = [m for t in chosen for m in enumerate_mutants(t)]
    if args.list:
        for m in mutants:
            print(f"{m.target}\t{m.file}:{m.line}\t{m.function}\t{m.change}\t| {m.context[:100]}"
                  + (f"\t[equivalent: {equivalence(m)}]" if equivalence(m) else ""))
        return 0
    tested = mutants
    if args.rerun:
        previous = json.loads(Path(args.rerun).read_text())
        wanted = {(r["target"], r["file"], r["line"], r["change"]) for r in previous["survived"]}
        tested = [m for m in mutants if (m.target, m.file, m.line, m.change) in wanted]
    elif args.limit and args.per_target:
        # one seeded sample per target, interleaved so that a run cut short by --max-seconds still has a uniform
        # sample of every target (a shorter one for the targets whose turn did not come)
        rng = random.Random(args.seed)
        per = [rng.sample(ms, min(args.limit, len(ms))) for ms in ([m for m in mutants if m.target == t.name] for t in chosen)]
        tested = [m for row in itertools.zip_longest(*per) for m in row if m is not None]
    elif args.limit and args.limit < len(mutants):
        # in the sample's random order, so that a run cut short by --max-seconds is still a uniform sample
        tested = random.Random(args.seed).sample(mutants, args.limit)
    by_target = {t.name: t for t in chosen}

    t0 = time.perf_counter()
    # SIGTERM (and SIGINT, ignored in a background job) end the run through the `finally` below: servers closed,
    # the temporary trees removed
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    tmp = Path(tempfile.mkdtemp(prefix="svt-mutants-"))
    pool: list[Path] = []
    servers: dict[Path, ForkServer] = {}

    def run_in(tree: Path, tests: tuple[str, ...]) -> tuple[str, float]:
        if args.no_fork:
            return run_tests(tree, tests, args.timeout)
        return servers[tree].run(tests, args.timeout)

    try:
        for j in range(max(1, args.jobs)):
            copy_tree(tmp / f"tree{j}")
            pool.append(tmp / f"tree{j}")
            if not args.no_fork:
                servers[tmp / f"tree{j}"] = ForkServer(tmp / f"tree{j}")
        baseline = {}
        for t in chosen:  # baseline: the tests must pass on the unmutated tree
            status, secs = run_in(pool[0], t.tests)
            baseline[t.name] = round(secs, 1)
            print(f"baseline {t.name}: {status} in {secs:.1f} s", file=sys.stderr, flush=True)
            if status != "pass":
                if not args.no_fork and servers[pool[0]].log.exists():
                    print(servers[pool[0]].log.read_text()[-4000:], file=sys.stderr)
                print(f"mutation_score: the tests of target {t.name} do not pass unmutated ({status}); stopping", file=sys.stderr)
                return 2
        free = list(pool)
        lock = threading.Lock()

        def one(m: Mutant) -> tuple[Mutant, str, float]:
            with lock:
                tree = free.pop()
            try:
                path = tree / m.file
                original = path.read_text()
                try:
                    path.write_text(apply(original, m))
                    status, secs = run_in(tree, by_target[m.target].tests)
                finally:
                    path.write_text(original)
                return m, status, secs
            finally:
                with lock:
                    free.append(tree)

        results: list[tuple[Mutant, str, float]] = []
        todo = list(tested)
        with cf.ThreadPoolExecutor(max_workers=len(pool)) as ex:
            running: set[cf.Future] = set()
            while todo or running:
                # keep every tree busy; stop starting new mutants once the time budget is spent
                while todo and len(running) < len(pool) and not (args.max_seconds and time.perf_counter() - t0 > args.max_seconds):
                    running.add(ex.submit(one, todo.pop(0)))
                if not running:
                    break
                done, running = cf.wait(running, return_when=cf.FIRST_COMPLETED)
                for fut in done:
                    r = fut.result()
                    results.append(r)
                    # progress: stdout in text mode, stderr with --json (stdout is the JSON document)
                    print(f"[{len(results)}/{len(tested)}] {r[1]:8s} {r[2]:6.1f}s  {r[0].file}:{r[0].line}  {r[0].change}",
                          file=sys.stderr if args.json else sys.stdout, flush=True)
    finally:
        for server in servers.values():
            server.close()
        shutil.rmtree(tmp, ignore_errors=True)

    def row(m: Mutant, status: str) -> dict:
        d = asdict(m)
        r = {"target": m.target, "file": m.file, "line": m.line, "change": m.change, "status": status,
             **{k: d[k] for k in ("col", "function")}}
        reason = equivalence(m)
        if reason is not None:
            r["equivalent"] = reason
        return r

    killed = [row(m, s) for m, s, _ in results if s != "pass"]
    survived = [row(m, s) for m, s, _ in results if s == "pass"]
    equivalent = [r for r in survived if "equivalent" in r]
    sampled = tested is not mutants
    n_noneq = len(results) - len(equivalent)
    out = {
        "mutants": len(mutants),
        "tested": len(results),
        "complete": len(results) == len(tested),
        "sample": None if not sampled else {"size": len(tested), "of": len(mutants), "seed": args.seed,
                                            "per_target": bool(args.per_target and args.limit),
                                            "rerun_of_survivors": args.rerun or None},
        "targets": [t.name for t in chosen],
        "unresolved": {t.name: resolve(t)[1] for t in chosen if resolve(t)[1]},
        "killed": killed,
        "survived": survived,
        "timeouts": sum(1 for _, s, _ in results if s == "timeout"),
        # raw: killed / tested; over non-equivalent mutants: killed / (tested - surviving equivalent mutants)
        "score": round(len(killed) / len(results), 4) if results else None,
        "equivalent": len(equivalent),
        "score_non_equivalent": round(len(killed) / n_noneq, 4) if n_noneq else None,
        # a sample's score is an estimate of the whole set's: its 95 % Wilson interval (null for the full set)
        "confidence_95": wilson(len(killed), len(results)) if sampled and not args.rerun else None,
        "confidence_95_non_equivalent": wilson(len(killed), n_noneq) if sampled and not args.rerun else None,
        # mutants listed as equivalent that the tests killed all the same: the table entry is wrong
        "equivalent_but_killed": [r for r in killed if "equivalent" in r],
        "seconds": round(time.perf_counter() - t0, 1),
        "baseline_seconds": baseline,
        "by_target": {t.name: _target_score(t.name, results) for t in chosen},
    }
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print(f"score {out['score']}: {len(killed)} killed, {len(survived)} survived of {len(results)} tested "
              f"({len(mutants)} enumerated) in {out['seconds']} s; {len(equivalent)} survivors are equivalent mutants: "
              f"score over non-equivalent mutants {out['score_non_equivalent']}"
              + (f"; 95 % Wilson interval of the sampled score {out['confidence_95']}" if out["confidence_95"] else ""))
        for r in survived:
            print(f"  survived  {r['file']}:{r['line']} ({r['function']})  {r['change']}"
                  + (f"  [equivalent: {r['equivalent']}]" if "equivalent" in r else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
