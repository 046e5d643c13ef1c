"""The family oracle's Gaussian quadrature: Gauss-Legendre panels (`verify.oracles.rule`) and arb's erfc
(`verify.noise.gaussian.half_erfc`), each against an evaluation written here from scratch at more digits.

* `half_erfc` against mpmath's own erfc at 30 more digits, seeded points of both signs out to 60σ.
* The rule's error model (`points_for`): the n-point rule integrates e^{3u} over [-1, 1] (the slope the
  model assumes) to 10^-(dps+5), and a Gaussian piece with that slope and more curvature than the oracle's panels have.
* Each Gauss-Legendre panel layout of `_segment` (the coarse one and the fine one whose agreement is the
  oracle's guard) against an independent integral: mpmath.quad (tanh-sinh) on panels σ_X wide with
  mpmath's ``ncdf`` and the Laplace density written out, at 10 more digits.
* The fallback: a rule too short to converge makes the layouts disagree, and tanh-sinh decides (the same value).
"""

from __future__ import annotations

import random
from fractions import Fraction as F

import mpmath
import pytest

from verify.family.presets import preset
from verify.noise.gaussian import half_erfc
from verify.noise.spec import NoiseSpec
from verify.oracles import family as oracle
from verify.oracles import rule as oracle_rule

DIGITS = 20


def test_half_erfc_matches_mpmath_erfc_at_more_digits():
    rng = random.Random(20261206)
    for dps in (15, 30, 60, 200):
        with mpmath.workdps(dps):
            for _ in range(60):
                b = mpmath.mpf(rng.choice([F(1, 2), 1, 3, 7]).__float__())
                y = mpmath.mpf(rng.uniform(-60, 60)) * b
                got, ulp = half_erfc(y, b), mpmath.mpf(2) ** (1 - mpmath.mp.prec)
                with mpmath.workdps(dps + 30):
                    want = mpmath.erfc(y / (b * mpmath.sqrt(2))) / 2
                    assert abs(got / want - 1) <= ulp, (dps, y, b)  # rounded once: half an ulp, and a margin


@pytest.mark.parametrize("dps", [15, 40, 60, 110])
def test_rule_size_meets_its_error_model(dps):
    n = oracle_rule.points_for(dps)
    with mpmath.workdps(dps + 10):
        exact = (mpmath.e ** 3 - mpmath.e ** -3) / 3  # ∫_{-1}^{1} e^{3u} du
        got = oracle_rule.integrate(lambda u: mpmath.exp(3 * u), [mpmath.mpf(-1), mpmath.mpf(1)], n)
        assert abs(got / exact - 1) <= mpmath.mpf(10) ** -(dps + 5)
        # a Gaussian integrand's panel: slope 3 and curvature κ = 0.1 in u (the oracle's panels: K/N² <= 0.05 with
        # K = digits·ln 10 + 30 nats over N = 2·digits + 20 panels); ∫ e^{-κ(u+15)²} = √(π/κ)/2·(erfc(14√κ) - erfc(16√κ))
        k = mpmath.mpf("0.1")
        exact = mpmath.sqrt(mpmath.pi / k) / 2 * (mpmath.erfc(14 * mpmath.sqrt(k)) - mpmath.erfc(16 * mpmath.sqrt(k)))
        got = oracle_rule.integrate(lambda u: mpmath.exp(-k * (u + 15) ** 2), [mpmath.mpf(-1), mpmath.mpf(1)], n)
        assert abs(got / exact - 1) <= mpmath.mpf(10) ** -(dps + 5)


def _mixed(cutoff: int):
    """The worst-case command's variant: ε = 1, t = 0, threshold Lap(3), queries N(3)."""
    return preset("gaussian-svt", epsilon=F(1), sensitivity=1, threshold=F(0), cutoff=cutoff).with_changes(
        threshold_spec=NoiseSpec("laplace", multiplier=F(3)), query_spec=NoiseSpec("gaussian", multiplier=F(3)))


CASES = [
    (_mixed(1), (F(228, 5),), "B"),  # the worst-case command's witness (q(D) = 45.6)
    (_mixed(2), (F(5), F(-10)), "AB"),
    (preset("gaussian-svt", epsilon=F(1, 2), sensitivity=1, threshold=F(1), cutoff=2), (F(5), F(-10)), "BA"),
]


def _reference(mech, queries, outcome: str, dps: int) -> mpmath.mpf:
    """∫ p_Z(z) Π_B Φ((t+z-q_i)/σ_X) Π_A Φ((q_i-t-z)/σ_X) dz (shared threshold, nothing released), from scratch:
    p_Z the Laplace density e^{-|z|/b}/(2b) or the Gaussian one (mpmath.npdf), Φ by mpmath.ncdf; tanh-sinh on
    panels σ_X wide over 40 scales either side of the kinks, the kinks (0 and q_i - t) among the nodes."""
    zs, xs = (mpmath.mpf(n.scale.numerator) / n.scale.denominator for n in (mech.threshold_noise, mech.query_noise))
    laplace = mech.threshold_noise.law.name == "laplace"
    with mpmath.workdps(dps):
        a = [mpmath.mpf((F(q) - mech.threshold).numerator) / (F(q) - mech.threshold).denominator for q in queries]

        def f(z):
            p = mpmath.exp(-abs(z) / zs) / (2 * zs) if laplace else mpmath.npdf(z, 0, zs)
            for ai, ch in zip(a, outcome):
                p *= mpmath.ncdf(z - ai, 0, xs) if ch == "B" else mpmath.ncdf(ai - z, 0, xs)
            return p

        lo, hi = min(a + [0]) - 40 * max(zs, xs), max(a + [0]) + 40 * max(zs, xs)
        nodes = sorted(set(mpmath.linspace(lo, hi, int((hi - lo) / xs) + 1)) | set(a) | {mpmath.mpf(0)})
        return mpmath.quad(f, [-mpmath.inf] + nodes + [mpmath.inf])


@pytest.mark.slow
@pytest.mark.parametrize(("mech", "queries", "outcome"), CASES)
def test_each_gauss_legendre_layout_matches_an_independent_integral(mech, queries, outcome, monkeypatch):
    """Each layout's value as `output_probability` computes it (its ``_segment`` calls recorded: one segment, a
    shared threshold, so each call's value is that layout's probability), then the value it returns."""
    ref = _reference(mech, queries, outcome, DIGITS + 10)
    (seg,) = oracle.segments(mech, outcome)
    layouts: list[tuple] = []
    segment = oracle._segment

    def record(*args):
        value = segment(*args)
        layouts.append((args[5], args[6], args[7], args[8], mpmath.mp.dps, value))  # seg, digits, panels, rule, dps
        return value

    monkeypatch.setattr(oracle, "_segment", record)
    got_all = oracle.output_probability(mech, queries, outcome, (), DIGITS)
    # the two layouts `output_probability` compares, at DIGITS + 10 working digits
    assert [x[:5] for x in layouts] == [(seg, DIGITS, 2 * DIGITS + 20, "gauss-legendre", DIGITS + 10),
                                        (seg, DIGITS, 4 * DIGITS + 40, "gauss-legendre", DIGITS + 10)]
    for *_, panels, _, _, got in layouts:
        with mpmath.workdps(DIGITS + 20):
            assert abs(got / ref - 1) <= mpmath.mpf(10) ** -DIGITS, (panels, got, ref)
    with mpmath.workdps(DIGITS + 20):
        assert abs(got_all / ref - 1) <= mpmath.mpf(10) ** -DIGITS


@pytest.mark.slow
def test_layouts_that_disagree_fall_back_to_tanh_sinh(monkeypatch):
    mech, queries, outcome = CASES[1]
    digits = 12  # tanh-sinh's layouts cost time: the fewest digits that still show the difference
    ref = oracle.output_probability(mech, queries, outcome, (), digits)  # Gauss-Legendre, checked above
    monkeypatch.setattr(oracle_rule, "points_for", lambda dps, slope=3.0: 2)  # 2 points: ~1e-6, not 1e-12
    rules: list[str] = []
    segment = oracle._segment
    monkeypatch.setattr(oracle, "_segment", lambda *a: rules.append(a[-1]) or segment(*a))
    got = oracle.output_probability(mech, queries, outcome, (), digits)
    assert rules == ["gauss-legendre"] * 2 + ["tanh-sinh"] * 2
    with mpmath.workdps(digits + 20):
        assert abs(got / ref - 1) <= mpmath.mpf(10) ** -digits
