"""Report Noisy Max: the model's validation and the presets as their sources write them."""

from fractions import Fraction

import pytest

from verify.errors import InputError
from verify.selection.model import Optimize, ReportNoisyMax, SelectionOutput
from verify.selection.presets import SELECTION_NAMES, selection_preset


def test_validation_names_the_value():
    with pytest.raises(InputError, match="noise family: 'gaussian'"):
        ReportNoisyMax(1, 1, "gaussian", 2)
    with pytest.raises(InputError, match="epsilon"):
        ReportNoisyMax(0, 1, "laplace", 2)
    with pytest.raises(InputError, match="output: 'argmax'"):
        ReportNoisyMax(1, 1, "laplace", 2, output="argmax")
    with pytest.raises(InputError, match="monotone"):
        ReportNoisyMax(1, 1, "laplace", 2, monotone="yes")
    with pytest.raises(InputError, match="at least one score"):
        ReportNoisyMax(1, 1, "laplace", 2).check_queries([])


# (family, scale multiple of Δ/ε, output, monotone, optimize) read from each source (presets.py docstring)
EXPECTED = {
    "dpsniper-rnm1": ("laplace", 2, "index", False, "max"),
    "dpsniper-rnm2": ("exponential", 2, "index", False, "max"),
    "dpsniper-rnm3": ("laplace", 2, "value", False, "max"),
    "dpsniper-rnm4": ("exponential", 2, "value", False, "max"),
    "statdp-noisy-max-v1a": ("laplace", 2, "index", False, "max"),
    "statdp-noisy-max-v1b": ("laplace", 2, "value", False, "max"),
    "statdp-noisy-max-v2a": ("exponential", 2, "index", False, "max"),
    "statdp-noisy-max-v2b": ("exponential", 2, "value", False, "max"),
    "checkdp-noisymax": ("laplace", 2, "index", False, "max"),
    "checkdp-badnoisymax": ("laplace", 2, "value", False, "max"),
    "opendp-noisy-max-pure": ("exponential", 2, "index", False, "max"),
    "opendp-noisy-max-pure-monotone": ("exponential", 1, "index", True, "max"),
    "opendp-noisy-max-zcdp": ("gumbel", 2, "index", False, "max"),
    "opendp-noisy-max-zcdp-monotone": ("gumbel", 1, "index", True, "max"),
    "opendp-noisy-min-pure": ("exponential", 2, "index", False, "min"),
}


@pytest.mark.parametrize("name", SELECTION_NAMES)
def test_presets_match_their_sources(name):
    m = selection_preset(name, Fraction(1, 2), 3)
    family, scale, output, monotone, optimize = EXPECTED[name]
    assert (m.family, m.scale, m.output, m.monotone, m.optimize) == (family, scale, SelectionOutput(output), monotone,
                                                                      Optimize(optimize))
    assert m.b == scale * 3 / Fraction(1, 2)
    assert m.source and name in m.describe()


def test_every_preset_is_listed_and_zcdp_claims_rho():
    assert set(EXPECTED) == set(SELECTION_NAMES)
    assert selection_preset("opendp-noisy-max-zcdp", 2).claimed_rho == Fraction(1, 2)  # ρ = ε²/8 at scale d/ε
    assert selection_preset("opendp-noisy-max-pure", 2).claimed_rho is None
    with pytest.raises(InputError, match="not a Report Noisy Max preset"):
        selection_preset("rnm9")


def test_min_negates_the_scores():
    m = selection_preset("opendp-noisy-min-pure")
    assert m.effective_scores((Fraction(1), Fraction(-2))) == (-1, 2)
