"""The SVT family model (verify.mechanism, verify.family.presets) and the Gaussian noise kernel."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from verify.errors import InputError
from verify.exact import fmt
from verify.family import NAMES, Release, ThresholdPolicy, preset
from verify.mechanism import AboveThreshold
from verify.noise import Noise, NoiseSpec


def _brute_outputs(k: int, c: int | None) -> set[str]:
    """Every A/B string of length <= k that a run can print, by simulating the halting rule."""
    out = set()
    for n in range(1, k + 1):
        for bits in range(2**n):
            s = "".join("A" if bits >> (n - 1 - j) & 1 else "B" for j in range(n))
            ups = [j for j, ch in enumerate(s) if ch == "A"]
            halted_at = ups[c - 1] + 1 if c is not None and len(ups) >= c else None
            if halted_at is not None and halted_at == n or halted_at is None and n == k:
                out.add(s)
    return out


@settings(max_examples=60, deadline=None, derandomize=True)
@given(k=st.integers(1, 8), c=st.one_of(st.none(), st.integers(1, 9)))
def test_outputs_are_exactly_the_complete_runs(k, c):
    m = preset("lyu-6").with_changes(cutoff=c)
    outs = m.outputs(k)
    assert len(outs) == len(set(outs)) == m.output_count(k)
    assert set(outs) == _brute_outputs(k, c)
    for s in outs:
        assert m.check_outcome(s, k) == s


def test_cutoff_one_order_is_the_seeds_column_order():
    m = preset("seed-m1")
    assert m.outputs(4) == ["A", "BA", "BBA", "BBBA", "BBBB"]


def test_issue_example_abba_is_complete_for_c2_k5():
    m = preset("lyu-1", cutoff=2)
    assert m.check_outcome("ABBA", 5) == "ABBA"
    assert "ABBA" in m.outputs(5)


@pytest.mark.parametrize(
    "outcome, k, rule",
    [("", 3, "non-empty"), ("ABX", 3, "letters"), ("AAB", 3, "continues after the 2nd A"),
     ("AB", 3, "halts at the 2nd A"), ("BBBB", 3, "more than the k = 3"), (7, 3, "not a string")],
)
def test_bad_outcomes_are_one_line_errors(outcome, k, rule):
    m = preset("lyu-1", cutoff=2)
    with pytest.raises(InputError, match=rule) as info:
        m.check_outcome(outcome, k)
    assert "\n" not in str(info.value)


def test_enumeration_is_refused_above_2_to_20():
    m = preset("lyu-6")
    assert m.output_count(21) == 2**21
    with pytest.raises(InputError, match="2\\^20"):
        m.outputs(21)


def test_seed_presets_are_the_seed_mechanisms():
    """The seed's constructors and the seed presets are one mechanism, up to its name."""
    seed = AboveThreshold.mechanism_one(2, 3, 1)
    assert preset("seed-m1", epsilon=2, sensitivity=3, threshold=1).with_changes(name=seed.name) == seed
    seed2 = AboveThreshold.mechanism_two(Fraction(1, 2))
    assert preset("seed-m2", epsilon=Fraction(1, 2)).with_changes(name=seed2.name) == seed2


def test_seed_paths_refuse_other_variants():
    """The seed-era closed form and oracle serve cutoff 1, no release, piecewise noise only."""
    from verify.oracles.seed import oracle_probability
    from verify.probabilities import mp_distribution

    for name, opts in [("lyu-1", {"cutoff": 2}), ("gap-svt", {}), ("gaussian-svt", {})]:
        m = preset(name, **opts)
        assert not m.is_above_threshold
        with pytest.raises(InputError):
            mp_distribution(m, [0, 1])
        with pytest.raises(InputError):
            oracle_probability(m, [0, 1], 1)


def test_preset_scales_follow_the_sources():
    # Lyu et al. 2017 Algorithms 1-6 (eps1 = eps/2, Algorithm 4: eps/4), NumericalSVT, GapSVT; Δ = 2, ε = 1/2.
    eps, delta = Fraction(1, 2), Fraction(2)
    u = delta / eps
    expect = {
        "dwork-roth": (2 * u, 4 * u), "lyu-1": (2 * u, 12 * u), "lyu-2": (6 * u, 12 * u), "lyu-3": (2 * u, 6 * u),
        "lyu-4": (4 * u, Fraction(4, 3) * u), "lyu-5": (2 * u, 0), "lyu-6": (2 * u, 2 * u),
        "numeric-svt": (3 * u, 18 * u), "gap-svt": (2 * u, 12 * u), "seed-m1": (3 * u, 3 * u),
    }
    for name, (bz, bx) in expect.items():
        opts = {} if name in ("dwork-roth", "lyu-5", "lyu-6", "seed-m1") else {"cutoff": 3}
        m = preset(name, epsilon=eps, sensitivity=delta, **opts)
        assert (m.threshold_noise.scale, m.query_noise.scale) == (bz, bx), name
    assert preset("numeric-svt", cutoff=3).release_noise == Noise("laplace", Fraction(9))
    assert preset("lyu-2").threshold_policy is ThresholdPolicy.RESAMPLE
    assert preset("lyu-5").cutoff is None and preset("lyu-6").cutoff is None
    assert preset("gap-svt").release is Release.GAP and preset("lyu-3").release is Release.QUERY


def test_every_preset_builds_describes_and_serialises():
    for name in NAMES:
        m = preset(name)
        assert m.name == name and m.source
        assert name in m.describe()
        j = m.to_json()
        assert j["name"] == name and j["description"] == m.describe()


@pytest.mark.parametrize(
    "changes, rule",
    [({"cutoff": 0}, "cutoff"), ({"cutoff": True}, "cutoff"), ({"threshold_policy": "sometimes"}, "threshold policy"),
     ({"release": "all"}, "release"), ({"release": Release.FRESH}, "release noise"),
     ({"release_spec": NoiseSpec("laplace", multiplier=Fraction(1))}, "not 'fresh'"),
     ({"release": Release.QUERY, "query_spec": NoiseSpec("none")}, "no density"),
     ({"epsilon": 0}, "epsilon")],
)
def test_invalid_variants_are_rejected(changes, rule):
    with pytest.raises(InputError, match=rule):
        preset("lyu-1").with_changes(**changes)


def test_lyu_scaled_presets_need_a_finite_cutoff():
    with pytest.raises(InputError, match="grow with the cutoff"):
        preset("lyu-1", cutoff=None)


def test_released_values_one_per_above():
    m = preset("gap-svt", cutoff=2)
    assert m.check_released("ABA", ["1/2", "3"]) == (Fraction(1, 2), Fraction(3))
    with pytest.raises(InputError, match="one value per A"):
        m.check_released("ABA", ["1"])
    with pytest.raises(InputError, match="releases nothing"):
        preset("lyu-1").check_released("A", ["1"])


# --- the Gaussian noise kernel ------------------------------------------------------------------------
@settings(max_examples=40, deadline=None, derandomize=True)
@given(x=st.floats(-40, 40), sigma=st.sampled_from([Fraction(1, 3), Fraction(1), Fraction(7, 2)]))
def test_gaussian_kernel_matches_scipy(x, sigma):
    n = Noise("gaussian", sigma)
    s = float(sigma)
    assert n.describe() == f"N({fmt(sigma)})"
    assert math.isclose(float(n.log_cdf(x)), stats.norm.logcdf(x, scale=s), rel_tol=1e-12, abs_tol=1e-300)
    assert math.isclose(float(n.log_sf(x)), stats.norm.logsf(x, scale=s), rel_tol=1e-12, abs_tol=1e-300)
    assert math.isclose(float(n.log_pdf(x)), stats.norm.logpdf(x, scale=s), rel_tol=1e-12, abs_tol=1e-12)
    assert math.isclose(float(n.pdf(x)), stats.norm.pdf(x, scale=s), rel_tol=1e-12, abs_tol=1e-300)
    assert math.isclose(float(n.cdf_below(x)), stats.norm.cdf(x, scale=s), rel_tol=1e-12, abs_tol=1e-300)


def test_gaussian_sampling_is_seeded_and_has_the_right_spread():
    n = Noise("gaussian", Fraction(2))
    a = n.sample(np.random.default_rng(5), 200_000)
    assert np.array_equal(a, n.sample(np.random.default_rng(5), 200_000))
    # standard error of the sample sd is about 2/sqrt(2*200000) = 0.0032: 6 standard errors, false alarm < 1e-8
    assert abs(a.std() - 2) < 0.02
    assert NoiseSpec("gaussian", multiplier=Fraction(2)).describe() == "N(2Δ/ε)"
