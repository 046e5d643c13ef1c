"""The comparison field and the integer rules of discrete variants (`verify.mechanism`, `verify.integer_rules`)."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from verify.comparison import Comparison
from verify.errors import InputError
from verify.family.presets import NAMES, preset
from verify.family.probability import mp_probability as continuous_mp
from verify.mechanism import SparseVector
from verify.noise import FAMILY_TYPES, NoiseSpec
from verify.noise.registry import CONTINUOUS_FAMILIES

DL = NoiseSpec("discrete-laplace", multiplier=Fraction(3))


def test_compare_defaults_to_ge_and_leaves_existing_outputs_unchanged():
    for name in NAMES:
        m = preset(name)
        assert m.compare is Comparison.GE
        assert "compare" not in m.to_json() and "compare" not in m.describe()
    m = preset("seed-m1").with_changes(compare="gt")
    assert m.compare is Comparison.GT and m.to_json()["compare"] == "gt" and m.describe().endswith(", compare gt)")
    assert m != preset("seed-m1")


def test_compare_refuses_other_words():
    with pytest.raises(InputError, match="compare: '>=' is not one of ge, gt"):
        preset("seed-m1").with_changes(compare=">=")


@pytest.mark.parametrize(("field", "value", "rule"), [
    ("sensitivity", Fraction(1, 2), "sensitivity: 1/2 is not an integer"),
    ("threshold", Fraction(5, 2), "threshold: 5/2 is not an integer"),
])
def test_discrete_variants_need_integer_threshold_and_sensitivity(field, value, rule):
    kw = {"epsilon": 1, "sensitivity": 1, "threshold": 0, field: value}
    with pytest.raises(InputError, match=rule):
        SparseVector(kw["epsilon"], kw["sensitivity"], kw["threshold"], DL, DL)


def test_discrete_variants_refuse_mixing_and_releases():
    with pytest.raises(InputError, match="query noise: Lap\\(3Δ/ε\\) is continuous"):
        SparseVector(1, 1, 0, DL, NoiseSpec("laplace", multiplier=3))
    with pytest.raises(InputError, match="threshold noise: N\\(2Δ/ε\\) is continuous"):
        SparseVector(1, 1, 0, NoiseSpec("gaussian", multiplier=2), DL)
    with pytest.raises(InputError, match="release: 'query' with discrete noise is not supported"):
        SparseVector(1, 1, 0, DL, DL, release="query")
    with pytest.raises(InputError, match="release: 'fresh' with discrete noise"):
        SparseVector(1, 1, 0, NoiseSpec("laplace", multiplier=3), NoiseSpec("laplace", multiplier=3),
                     release="fresh", release_spec=DL)
    # non-integer ε and scales are fine: only the compared quantities must be integers
    assert SparseVector(Fraction(1, 3), 2, -4, DL, NoiseSpec("none")).is_discrete


@pytest.mark.parametrize("name", CONTINUOUS_FAMILIES)
def test_for_continuous_noise_a_tie_has_probability_zero(name):
    """Pr[X = y] = S(y) - Pr[X > y] = 0 for a continuous family: S is continuous from the right at
    50 digits (S(y) - S(y + 10^-45) < 10^-40), so '>' and '>=' give the same factors."""
    fam = FAMILY_TYPES[name]
    with mpmath.workdps(50):
        for y in ("-3", "0", "0.5", "7"):
            y0, b = mpmath.mpf(y), mpmath.mpf("1.5")
            assert 0 <= fam.mp_sf(y0, b) - fam.mp_sf(y0 + mpmath.mpf(10) ** -45, b) < mpmath.mpf(10) ** -40


def test_for_continuous_noise_gt_gives_the_same_probabilities_exactly():
    """The continuous engines' outputs do not depend on the comparison (ties have probability 0)."""
    for name in ("seed-m1", "lyu-1", "seed-m2"):
        m = preset(name)
        g = m.with_changes(compare="gt")
        for s in m.outputs(3):
            assert continuous_mp(m, [0, 1, -1], s, digits=30) == continuous_mp(g, [0, 1, -1], s, digits=30)


def test_the_family_front_doors_route_discrete_variants_to_the_sums():
    """`verify.family.probability` and the fast front door give the discrete engine's values (sums over ℤ),
    never an integral of the mass function as a density; the integrand builder itself refuses."""
    import mpmath

    from verify.discrete.probability import mp_probability as discrete_mp
    from verify.engine import integrand
    from verify.family.fast_api import fast_log_probability

    m = SparseVector(1, 1, 0, DL, DL)
    with mpmath.workdps(40):
        assert abs(continuous_mp(m, [0, 1], "BA", digits=30) - discrete_mp(m, [0, 1], "BA", digits=30)) < mpmath.mpf(10) ** -28
        exact = discrete_mp(m, [0, 1], "BA", digits=30)
        logv, _ = fast_log_probability(m, [[0.0, 1.0]], "BA")
        assert abs(mpmath.exp(logv[0]) / exact - 1) < 1e-12
    with pytest.raises(InputError, match="has noise on the integers"):
        integrand.build(m, [0], "A", None)


def test_cli_compare_flag_is_applied_and_changes_nothing_for_continuous_noise(capsys):
    import json

    from verify.cli.main import main

    out = {}
    for word in ("ge", "gt"):
        main(["prob", "--variant", "seed-m1", "--queries", "0,1", "--outcomes", "BA", "--json", "--compare", word])
        out[word] = json.loads(capsys.readouterr().out)
    assert out["ge"]["probability"] == out["gt"]["probability"]
    assert "compare gt" in json.dumps(out["gt"]) and "compare gt" not in json.dumps(out["ge"])
    try:
        code = main(["prob", "--variant", "seed-m1", "--queries", "0", "--outcomes", "A", "--compare", "lt"])
    except SystemExit as exc:
        code = exc.code
    assert code == 2 and "invalid choice: 'lt'" in capsys.readouterr().err


def test_family_worst_case_refuses_the_float_search_options_for_discrete_variants():
    """The one entry point takes discrete variants (integer searches); an option of the float search only is refused."""
    from verify.family.worstcase import family_worst_case

    with pytest.raises(InputError, match="monotone: the discrete search"):
        family_worst_case(SparseVector(1, 1, 0, DL, DL), max_queries=1, monotone=True)
