"""One outcome of any variant in linear space (`verify.engine.piece_kernel` behind `fast_generic`).

The kernel multiplies each node's factors (F, S, densities) in linear space with exact power-of-two
rescaling and a window whose left-out mass is bounded.  Checked against the log-space sum of the same
rule on the same nodes (the path it replaced), against the family's closed form (an arb ball) on a long
outcome, and at the window's edge: a row whose window bound could matter is integrated again without it.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import verify.engine.fast_generic as fg
from verify.engine.fast_plan import logsumexp_weighted, panels, tail_edges
from verify.engine.integrand import TermKind
from verify.family import preset
from verify.family.fast_api import FAST_TOLERANCE
from verify.family.probability import arb_probability

KINDS = {"B": TermKind.BELOW, "A": TermKind.ABOVE, "D": TermKind.DENSITY}


def _nodes(mech, xs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    points = np.sort(np.concatenate([xs, np.zeros((xs.shape[0], 1))], axis=1), axis=1)
    edges = tail_edges(mech, points)
    z, w, _ = panels(edges, np.full((xs.shape[0], edges.shape[1] - 1), 6.0))
    return z, w


@pytest.mark.parametrize("name", ["seed-m1", "seed-m2", "gap-svt", "lyu-1"])
@pytest.mark.parametrize("letters", ["BBABDB", "DDDBBBAAA", "B" * 40 + "A"])
def test_linear_kernel_equals_the_log_space_sum_of_the_same_rule(name, letters):
    """Same nodes, same weights: Σ ω Π factors from the kernel (rescaled, windowed) and from the
    logs of the factors added (`_log_integrand`, `logsumexp_weighted`) agree to 1e-13 relative,
    for every factor kind on both sides of its kink (Laplace and exponential query noise)."""
    m = preset(name)
    rng = np.random.default_rng(len(letters))
    kinds = [KINDS[c] for c in letters]
    xs = np.round(rng.uniform(-4, 4, (3, len(letters))), 3)
    z, w = _nodes(m, xs)
    lin, rounding = fg._integrate(m.threshold_noise, m.query_noise, kinds, xs, z, w)
    ref = logsumexp_weighted(fg._log_integrand(m.threshold_noise, m.query_noise, kinds, xs, z), w)
    assert np.all(np.isfinite(lin))
    assert np.all(rounding < 1e-13)
    assert np.abs(np.expm1(lin - ref)).max() < 1e-13


def test_no_query_noise_kernel_is_the_indicator_rule():
    """Query noise none: F = [y > 0], S = [y <= 0]; the kernel gives ∫ p_Z over the allowed interval."""
    import dataclasses

    from verify.noise import NoiseSpec

    m = dataclasses.replace(preset("seed-m1"), query_spec=NoiseSpec("none"), name="no-query-noise")
    xs = np.array([[-1.0, 2.0]])  # B at -1 (z > -1), A at 2 (z <= 2)
    z, w = _nodes(m, xs)
    lin, _ = fg._integrate(m.threshold_noise, m.query_noise, [TermKind.BELOW, TermKind.ABOVE], xs, z, w)
    want = (1 - math.exp(-2 / 3) / 2) - math.exp(-1 / 3) / 2  # F_Z(2) - F_Z(-1), Z ~ Lap(3)
    assert abs(math.exp(lin[0]) / want - 1) < 1e-13


@pytest.mark.slow  # about 7 s CPU (the arb reference at k = 300); the only test of k = 300: the quick subset keeps k <= 41
def test_long_outcome_of_a_cutoff_2_variant_within_its_estimate_of_the_closed_form():
    """lyu-1 with cutoff 2, k = 300, one outcome with both A's late: the linear path's estimate is
    below the tolerance (the log-space sum's (k+2)·|log f|·2^-52 was not: 2e-10 at k = 100) and the
    value is within it of the family's closed form, every point of its arb ball at 256 bits
    (`arb_probability`: a rigorous enclosure, about 1e-15 relative wide here; it replaced the mpmath value at
    30 digits, which took three times the CPU and carried no error bound)."""
    import flint

    m = preset("lyu-1", cutoff=2)
    k = 300
    q = np.round(np.random.default_rng(300).uniform(-6, 6, (1, k)), 3)
    outcome = "B" * 150 + "A" + "B" * 148 + "A"
    res = fg.log_probability(m, q, outcome)
    assert res.error_estimate[0] <= FAST_TOLERANCE
    exact = arb_probability(m, [Fraction(str(x)) for x in q[0]], outcome, None, 256)
    with flint.ctx.workprec(256):
        assert exact > 0 and exact.rad() < exact.mid() * 1e-14, exact  # tight enough for a 1e-11-wide test
        rel = abs(flint.arb(res.log_value[0]).exp() / exact - 1)  # a ball holding |fast / p - 1| for every p in it
    assert rel.upper() <= res.error_estimate[0], (rel, res.error_estimate[0])


def test_a_window_that_cut_the_mass_is_redone_without_it(monkeypatch):
    """lyu-3 (released noisy queries cap z), a long run of B's: the B factors move the mass to the
    right end, where the window cut early.  Without the second pass the bound of what was left out
    makes the estimate huge (so the row would be recomputed); with it, the value equals the
    windowless one."""
    m = preset("lyu-3")
    k = 100
    q = np.random.default_rng(0).uniform(-6, 6, (1, k))
    outcome = "B" * (k - 1) + "A"
    released = np.ones(1)
    good = fg.log_probability(m, q, outcome, released)
    monkeypatch.setattr(fg, "WINDOW_REDO", math.inf)
    no_redo = fg.log_probability(m, q, outcome, released)
    monkeypatch.setattr(fg, "WINDOW", 0.0)
    windowless = fg.log_probability(m, q, outcome, released)
    assert no_redo.error_estimate[0] > 1.0
    assert good.error_estimate[0] <= FAST_TOLERANCE
    assert abs(good.log_value[0] - windowless.log_value[0]) < 1e-13
