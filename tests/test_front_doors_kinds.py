"""The front doors' engines for the mechanisms that are not Sparse Vector variants (`verify.doors`,
docs/architecture.md "The two front doors"): Report Noisy Max on the float64 door (`SelectionFast`, over
`verify.selection.fast`) and Adaptive SVT on the exact door (`AdaptiveEngine`, over
`verify.adaptive.probability`).

* the float64 door's Report Noisy Max values are within its stated error of the exact door, for every preset
  (index and released value);
* its contract is honoured: a row whose float64 estimate is above the tolerance (or not finite) is redone on
  the exact door, and counted;
* the exact door's Adaptive SVT value is the adapter's function's, computed directly;
* ``supports`` and the one-line refusals at the edges (gap on the float64 door, distributions of densities,
  mechanisms of another kind).
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from verify.adaptive.model import Answer, Branch
from verify.adaptive.presets import ADAPTIVE_NAMES, adaptive_preset
from verify.adaptive.probability import outcome_density
from verify.doors import exact, fast
from verify.errors import InputError
from verify.family.presets import preset
from verify.precision import FAST_TOLERANCE
from verify.selection import fast as selection_fast
from verify.selection.model import SelectionOutput
from verify.selection.presets import SELECTION_NAMES, selection_preset
from verify.selection.probability import SelectionOutcome

DIGITS = 25
#: spread, tied, a near-tie and one score far above the others (an e^-40 probability)
ROWS = np.array([[0.0, 1.0, 2.5], [3.0, -1.0, 0.25], [0.0, 0.0, 0.0], [0.0, 1e-9, -1.0], [0.0, 40.0, 80.0]])


def _exact_log(mech, row, outcome) -> float:
    p = exact.exact_probability(mech, [Fraction(float(x)) for x in row], outcome, digits=DIGITS)
    with mpmath.workdps(DIGITS):
        return float(mpmath.log(p)) if p > 0 else -math.inf


def _within(log_fast: float, log_exact: float) -> None:
    """The door's stated error (relative, on the probability) with a factor 10 (estimates are estimates), plus
    the rounding of the log itself."""
    if math.isinf(log_exact):
        assert log_fast == log_exact
        return
    assert abs(log_fast - log_exact) <= 10 * FAST_TOLERANCE + 4 * 2.0 ** -53 * abs(log_exact), (log_fast, log_exact)


@pytest.mark.slow
@pytest.mark.parametrize("name", SELECTION_NAMES)
def test_report_noisy_max_on_the_float64_door_is_within_its_error_of_the_exact_door(name):
    mech = selection_preset(name)
    if mech.output is SelectionOutput.INDEX:
        res = fast.fast_log_distribution(mech, ROWS)
        assert res.engine == "float64 (Report Noisy Max)" and res.log_values.shape == ROWS.shape
        assert res.outcomes == tuple(SelectionOutcome(SelectionOutput.INDEX, i) for i in range(3))
        for r, row in enumerate(ROWS):
            for c, o in enumerate(res.outcomes):
                _within(res.log_values[r, c], _exact_log(mech, row, o))
        one = fast.fast_log_probability(mech, ROWS, res.outcomes[2])
        assert np.array_equal(one.log_values, res.log_values[:, 2]) and one.outcomes == (res.outcomes[2],)
    elif mech.output is SelectionOutput.VALUE:
        for v in (Fraction(3, 2), Fraction(-2)):
            o = SelectionOutcome(SelectionOutput.VALUE, None, v)
            res = fast.fast_log_probability(mech, ROWS, o)
            for r, row in enumerate(ROWS):
                _within(res.log_values[r], _exact_log(mech, row, o))
    else:
        with pytest.raises(InputError, match="the gap's density is an integral with no float64 path"):
            fast.fast_log_probability(mech, ROWS, SelectionOutcome(SelectionOutput.GAP, 0, Fraction(1)))


@pytest.mark.slow
def test_rows_above_the_tolerance_are_redone_on_the_exact_door():
    """The door reads each row's float64 estimate: above ``tolerance`` the row comes from the exact door (the
    count is ``refined``), at or below it the float64 row is kept."""
    mech = selection_preset("dpsniper-rnm1")
    tol = 3e-16  # the estimates here are 2.2e-16 to 4.4e-16 (one to two ulps): some rows above, some not
    estimates = [selection_fast.fast_index_log_probabilities(mech, list(row))[1] for row in ROWS]
    above = [r for r, e in enumerate(estimates) if not e <= tol]
    assert 0 < len(above) < len(ROWS)  # the tolerance splits the rows: both branches are exercised
    res = fast.fast_log_distribution(mech, ROWS, tolerance=tol)
    assert res.refined == len(above) and res.tolerance == tol
    plain = fast.fast_log_distribution(mech, ROWS)
    assert plain.refined == 0
    for r, row in enumerate(ROWS):
        exact_logs = [_exact_log(mech, row, o) for o in res.outcomes]
        if r in above:  # the exact door's values, to the rounding of the log
            assert np.allclose(res.log_values[r], exact_logs, rtol=4e-16, atol=0)
        else:
            assert np.array_equal(res.log_values[r], plain.log_values[r])


def test_an_underflowed_float64_row_is_redone_exactly():
    """Exponential noise with scores 1000 apart: e^(-500) underflows in the float64 path, whose estimate is then
    not finite; the door recomputes the row and returns the true (finite) logs."""
    mech = selection_preset("dpsniper-rnm2")
    row = np.array([[0.0, 1000.0, 2000.0]])
    with np.errstate(divide="ignore", invalid="ignore"):
        logs, err = selection_fast.fast_index_log_probabilities(mech, [0, 1000, 2000])
    assert not np.isfinite(logs).all() and not err <= FAST_TOLERANCE
    res = fast.fast_log_distribution(mech, row)
    assert res.refined == 1 and np.isfinite(res.log_values).all()
    for c, o in enumerate(res.outcomes):
        _within(res.log_values[0, c], _exact_log(mech, row[0], o))
    assert res.log_values[0, 0] < -900


def test_the_report_noisy_max_float64_engine_at_its_edges():
    engine = fast.SelectionFast()
    rnm, lap = selection_preset("dpsniper-rnm1"), preset("lyu-1")
    assert engine.supports(rnm) and not engine.supports(lap) and engine.refusal(lap) == "a SparseVector, not Report Noisy Max"
    assert not fast.GenericFast().supports(rnm) and "not an SVT variant" in fast.GenericFast().refusal(rnm)
    assert fast.fast_log_distribution(lap, [[0.0]]).engine == "closed form float64"  # the SVT engines come first
    with pytest.raises(InputError, match=r"^distribution: dpsniper-rnm3 releases a value; its outputs have densities"):
        fast.fast_log_distribution(selection_preset("dpsniper-rnm3"), ROWS)
    for bad, says in (("A", "is not an outcome of dpsniper-rnm1"),
                      (SelectionOutcome(SelectionOutput.VALUE, None, Fraction(1)), "is not an outcome of dpsniper-rnm1"),
                      (SelectionOutcome(SelectionOutput.INDEX, 3), r"index 4 is outside 1\.\.3")):
        with pytest.raises(InputError, match=says):
            fast.fast_log_probability(rnm, ROWS, bad)
    with pytest.raises(InputError, match="carries its value"):
        fast.fast_log_probability(rnm, ROWS, SelectionOutcome(SelectionOutput.INDEX, 0), released=[1.0])
    with pytest.raises(InputError, match=r"float64 door: engine 'float64 \(Report Noisy Max\)' does not take lyu-1"):
        fast.fast_log_distribution(lap, [[0.0]], engine="float64 (Report Noisy Max)")


ADAPTIVE_CASES = [
    ([0, 1], (Answer(Branch.BELOW), Answer(Branch.BELOW)), "probability"),
    ([0, 1], (Answer(Branch.BELOW), Answer(Branch.MIDDLE, Fraction(1, 2))), "density"),
    ([0, 2], (Answer(Branch.TOP, Fraction(20)),), "density"),
]


@pytest.mark.slow
@pytest.mark.parametrize("name", ADAPTIVE_NAMES)
def test_adaptive_svt_on_the_exact_door_is_its_quadrature(name):
    mech = adaptive_preset(name, 1, 1, 0, 1)
    for queries, answers, kind in ADAPTIVE_CASES:
        ev = exact.exact_evaluation(mech, queries, answers, digits=20)
        assert ev.method == "quadrature (Adaptive SVT)" and ev.kind.value == kind and ev.error_estimate is None
        assert ev.value == outcome_density(mech, queries, answers, 20)
        assert exact.exact_probability(mech, queries, list(answers), digits=20) == ev.value
    # below, below at (0, 1): a probability in (0, 1), and the branch probabilities of one query sum to 1
    assert 0 < exact.exact_probability(mech, [0, 1], ADAPTIVE_CASES[0][1], digits=20) < 1


def test_the_adaptive_svt_exact_engine_at_its_edges():
    engine = exact.AdaptiveEngine()
    ada, lap, rnm = adaptive_preset("checkdp-adaptive-svt", 1, 1, 0, 1), preset("lyu-1"), selection_preset("dpsniper-rnm1")
    assert engine.supports(ada) and not engine.supports(lap) and not engine.supports(rnm)
    assert engine.refusal(rnm) == "a ReportNoisyMax, not Adaptive SVT"
    assert exact.engine_for(ada).name == "quadrature (Adaptive SVT)" and exact.engine_for(lap).name == "closed form"
    assert exact.engine_for(rnm).name == "quadrature (Report Noisy Max)"
    for other in (exact.ClosedFormEngine(), exact.QuadratureEngine(), exact.SelectionEngine()):
        assert not other.supports(ada)
    below = (Answer(Branch.BELOW),)
    with pytest.raises(InputError, match="^outcome: a sequence of Answer"):
        exact.exact_probability(ada, [0], "A")
    with pytest.raises(InputError, match="^outcome: 2 answers for 1 queries"):
        exact.exact_probability(ada, [0], below * 2)
    with pytest.raises(InputError, match="carries its values in its answers"):
        exact.exact_probability(ada, [0], below, released=[1])
    with pytest.raises(InputError, match="^distribution: checkdp-adaptive-svt's middle and top answers release real values"):
        exact.exact_distribution(ada, [0])
    # no float64 engine takes Adaptive SVT yet: one line naming it and each engine's reason
    with pytest.raises(InputError, match=r"^float64 door: no engine takes checkdp-adaptive-svt \(.*not Report Noisy Max\)$"):
        fast.fast_log_distribution(ada, [[0.0]])
