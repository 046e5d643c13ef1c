"""The two front doors' contract (`verify.doors`, docs/architecture.md "The two front doors").

* every preset variant, continuous and discrete, gets from the exact door the number of its older
  view (the seed's `mp_distribution`, the family's `mp_probability` / `mp_distribution`, the
  discrete `mp_probability`) and of the engine the door declares it picks, computed directly;
* ``supports`` refuses at its edge, and a mechanism no engine takes is refused in one line naming it;
* the float64 door gives its older views' arrays and is within its stated error of the exact door.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

import verify.probabilities as seed
from verify.adaptive.presets import adaptive_preset
from verify.discrete import probability as discrete
from verify.doors import exact, fast
from verify.doors.contract import Declared
from verify.engine import integrand
from verify.engine.piecewise import mp_closed_form
from verify.engine.quadrature import mp_quad
from verify.errors import InputError
from verify.family import fast_api
from verify.family import probability as family
from verify.family.presets import PRESETS, preset
from verify.mechanism import AboveThreshold
from verify.precision import FAST_TOLERANCE
from verify.selection.presets import selection_preset
from verify.selection.probability import SelectionOutcome, mp_index_probabilities

DIGITS = 20
QUERIES = [Fraction(0), Fraction(1)]  # integers: the discrete variants take them too


def _presets() -> list:
    """Every preset; the Gaussian one (quadrature at 50 digits, 0.4-1.3 s of CPU) marked slow: the quick subset runs
    the tests of 0.2 s of CPU or less (docs/DEVNOTES.md)."""
    return [pytest.param(n, marks=pytest.mark.slow) if n == "gaussian-svt" else n for n in PRESETS]


def _case(name: str):
    """(mechanism, two-query outcomes with their released values) of a preset."""
    mech = preset(name)
    outs = mech.outputs(2) if not mech.releases_values else ["A", "BA"]
    return mech, [(s, [Fraction(1, 2)] * s.count("A") if mech.releases_values else None) for s in outs]


def _expected_engine(mech) -> str:
    if mech.is_discrete:
        return "direct sum" if mech.threshold_noise.family == "discrete-gaussian" else "closed form (geometric series)"
    return "closed form" if exact.closed_form_applies(mech) else "quadrature"


def _engine_value(mech, outcome: str, released) -> mpmath.mpf:
    """The declared engine's value computed without the door."""
    name = _expected_engine(mech)
    if name == "closed form":
        return mp_closed_form(mech, [integrand.build(mech, QUERIES, outcome, released)], DIGITS)[0]
    if name == "quadrature":
        return mp_quad(mech, integrand.build(mech, QUERIES, outcome, released), DIGITS)[0]
    plan = discrete.build_plan(mech, QUERIES, outcome)
    return exact.mp_geometric(mech, plan, DIGITS) if name.startswith("closed") else exact.mp_direct(plan, DIGITS)[0]


@pytest.mark.parametrize("name", _presets())
def test_every_preset_gets_the_same_number_from_the_exact_door_its_views_and_its_engine(name):
    mech, cases = _case(name)
    for outcome, released in cases:
        ev = exact.exact_evaluation(mech, QUERIES, outcome, released, DIGITS)
        assert ev.method == _expected_engine(mech)
        assert ev.value == _engine_value(mech, outcome, released)
        assert family.mp_probability(mech, QUERIES, outcome, released, DIGITS) == ev.value
        assert family.evaluate(mech, QUERIES, outcome, released, DIGITS).value == ev.value
        if mech.is_discrete:
            assert discrete.mp_probability(mech, QUERIES, outcome, DIGITS) == ev.value
    if mech.releases_values:
        return
    dist = exact.exact_distribution(mech, QUERIES, DIGITS)
    assert list(dist) == mech.outputs(2)
    assert family.mp_distribution(mech, QUERIES, DIGITS) == dist
    assert abs(sum(dist.values()) - 1) < mpmath.mpf(10) ** (2 - DIGITS)
    if mech.is_above_threshold:
        assert seed.mp_distribution(mech, QUERIES, DIGITS) == list(dist.values())


def _within(log_fast: float, p: mpmath.mpf) -> None:
    """The float64 door's value against the exact one: -inf exactly where p = 0, else within 10 times the
    tolerance plus the rounding of the log (4·2^-53·|log p|)."""
    if p == 0:
        assert log_fast == -math.inf
        return
    lp = float(mpmath.log(p))
    assert abs(log_fast - lp) <= 10 * FAST_TOLERANCE + 4 * 2.0 ** -53 * abs(lp), (log_fast, lp)


@pytest.mark.parametrize("name", _presets())
def test_the_float64_door_gives_its_views_arrays_within_its_stated_error(name):
    """Each value's estimated relative error is at most the tolerance (the door's contract); estimates are
    estimates, so the check allows 10 times it plus the rounding of the log itself."""
    mech, cases = _case(name)
    q = np.array([[0.0, 1.0], [1.0, 0.0]])
    for outcome, released in cases:
        rel = None if released is None else [float(v) for v in released]
        res = fast.fast_log_probability(mech, q, outcome, rel)
        assert res.log_values.shape == (2,) and res.outcomes == (outcome,) and res.tolerance == FAST_TOLERANCE
        logv, refined = fast_api.fast_log_probability(mech, q, outcome, rel)
        assert np.array_equal(logv, res.log_values) and refined == res.refined
        p = exact.exact_probability(mech, QUERIES, outcome, released, DIGITS)
        _within(res.log_values[0], p)
    if mech.releases_values:
        return
    res = fast.fast_log_distribution(mech, q)
    logp, outs, refined = fast_api.fast_log_distribution(mech, q)
    assert np.array_equal(logp, res.log_values) and outs == list(res.outcomes) == mech.outputs(2)
    if mech.is_above_threshold:
        assert res.engine == "closed form float64"
        assert np.array_equal(seed.fast_log_distribution(mech, q)[0], res.log_values)
    for s, p in exact.exact_distribution(mech, QUERIES, DIGITS).items():
        _within(res.log_values[0, outs.index(s)], p)


def test_supports_at_its_edges():
    """Each engine's declaration at the edge of what it serves, with its one-line reason."""
    cf, quad, geo, direct = (exact.ClosedFormEngine(), exact.QuadratureEngine(), exact.GeometricEngine(), exact.DirectSumEngine())
    lap, gauss = preset("lyu-1"), preset("gaussian-svt")
    dlap, dgauss = preset("dlap-seed-m1"), preset("dgauss-above-threshold")
    assert cf.supports(lap) and not cf.supports(gauss) and "gaussian threshold noise has no closed form" in cf.refusal(gauss)
    assert quad.supports(gauss) and quad.supports(lap) and not quad.supports(dlap)
    assert geo.supports(dlap) and not geo.supports(dgauss) and "discrete Laplace noise only" in geo.refusal(dgauss)
    assert direct.supports(dgauss) and not direct.supports(lap)
    halting = fast.ClosedFormFast()
    assert halting.supports(preset("lyu-2", cutoff=1)) and not halting.supports(preset("lyu-2", cutoff=2))
    assert "cutoff 2" in halting.refusal(preset("lyu-2", cutoff=2))
    # the closed form suits strings up to CLOSED_FORM_MAX_LETTERS letters; quadrature takes longer ones (auto only)
    n = exact.CLOSED_FORM_MAX_LETTERS
    assert exact.engine_for(lap, outcome="B" * n).name == "closed form"
    assert exact.engine_for(lap, outcome="B" * (n + 1)).name == "quadrature"
    assert exact.engine_for(lap, "closed form", outcome="B" * (n + 1)).name == "closed form"


RNM = "dpsniper-rnm1"  # Report Noisy Max: both doors take it (tests/test_front_doors_kinds.py)
ADAPTIVE = "checkdp-adaptive-svt"  # Adaptive SVT: the exact door takes it, no float64 engine does (yet)


@pytest.mark.parametrize("call, door, mech, shown", [
    (lambda m: exact.exact_probability(m, [0], "A"), "exact door", "lyu-1", "str 'lyu-1'"),
    (lambda m: exact.exact_distribution(m, [0]), "exact door", None, "NoneType 'None'"),
    (lambda m: fast.fast_log_probability(m, [[0.0, 1.0]], "A"), "float64 door", ADAPTIVE, ADAPTIVE),
    (lambda m: fast.fast_log_distribution(m, [[0.0, 1.0]]), "float64 door", ADAPTIVE, ADAPTIVE),
])
def test_a_mechanism_no_engine_takes_is_refused_in_one_line_naming_it(call, door, mech, shown):
    with pytest.raises(InputError) as info:
        call(adaptive_preset(mech, 1, 1, 0, 1) if mech == ADAPTIVE else mech)
    text = str(info.value)
    assert "\n" not in text and text.startswith(f"{door}: no engine takes {shown} (")


def test_a_named_engine_that_does_not_support_the_mechanism_is_refused():
    with pytest.raises(InputError, match=r"exact door: engine 'closed form' does not take gaussian-svt: gaussian threshold"):
        exact.exact_probability(preset("gaussian-svt"), [0], "A", engine="closed form")
    with pytest.raises(InputError, match=r"engine 'quadrature' does not take dlap-seed-m1: noise on the integers"):
        exact.exact_probability(preset("dlap-seed-m1"), [0], "A", engine="quadrature")
    with pytest.raises(InputError, match=r"engine: 'simpson' is not one of auto, "):
        exact.exact_probability(preset("lyu-1"), [0], "A", engine="simpson")
    # the seed's view keeps its own domain (s_1..s_k, ⊤^k of the halting, piecewise member)
    with pytest.raises(InputError, match="cutoff 2"):
        seed.mp_distribution(preset("lyu-1", cutoff=2), [0])


def test_report_noisy_max_through_the_exact_door():
    mech = selection_preset(RNM)
    probs = mp_index_probabilities(mech, [0, 1], 15)
    dist = exact.exact_distribution(mech, [0, 1], 15)
    assert list(dist.values()) == probs and [o.index for o in dist] == [0, 1]
    ev = exact.exact_evaluation(mech, [0, 1], SelectionOutcome(mech.output, 1), digits=15)
    assert ev.method == "quadrature (Report Noisy Max)" and ev.value == probs[1]
    with pytest.raises(InputError, match="not a SelectionOutcome"):
        exact.exact_probability(mech, [0, 1], "A")


def test_an_engine_is_registered_with_one_line(monkeypatch):
    monkeypatch.setattr(exact, "EXACT_ENGINES", list(exact.EXACT_ENGINES))

    class Half(Declared):
        name = "half"

        def refusal(self, mech):
            return None if mech == "coin" else "not a coin"

        def evaluation(self, mech, queries, outcome, released, digits):
            return exact.Evaluation(mpmath.mpf(1) / 2, integrand.Kind.PROBABILITY, self.name, digits, None)

    exact.register(Half())
    assert exact.exact_probability("coin", [0], "heads") == mpmath.mpf(1) / 2
    assert exact.exact_probability(preset("lyu-1"), [0], "A") == family.mp_probability(preset("lyu-1"), [0], "A")
    with pytest.raises(InputError, match="registered already"):
        exact.register(Half())
    with pytest.raises(InputError, match="does not declare"):
        exact.register(object())


def test_the_seed_names_stay_views_with_the_seed_shape():
    m = AboveThreshold.mechanism_one(1)
    p = seed.mp_distribution(m, [0], digits=DIGITS)
    assert isinstance(p, list) and [mpmath.nstr(x, 10) for x in p] == ["0.5", "0.5"]
    logp, refined = seed.fast_log_distribution(m, np.array([[0.0]]))
    assert refined == 0 and np.allclose(np.exp(logp), 0.5, rtol=1e-14, atol=0)
    assert math.isclose(seed.probability(m, [0], 1), 0.5)
