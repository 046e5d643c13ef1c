"""Tests for the survivors of the fourth round's fresh sample (seed 2204), one class per target.

Each states its rule and was checked by applying its mutant by hand and watching it fail.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from verify.cli.main import build_parser
from verify.cli.variant import variant_from_args
from verify.family import worstcase as wc
from verify.family.presets import preset
from verify.family.witness import FamilyWitness
from verify.verdicts import MechanismVerdict


def _witness(above: mpmath.mpf, digits: int = 50) -> FamilyWitness:
    """A witness whose confirmed loss is 1/10 + ``above``: Pr = e^loss·Pr' with Pr' = 1/4 (at 40 more digits)."""
    with mpmath.workdps(digits + 40):
        pn = mpmath.mpf(1) / 4
        return FamilyWitness((Fraction(0),), (Fraction(1),), "A", (), pn * mpmath.exp(mpmath.mpf(1) / 10 + above), pn, digits)


class TestVerdictRuleKills5:
    """`verdict_rule`: not_private iff the confirmed loss exceeds ε + 10^-(digits-5)·max(1, ε), strictly, decided at
    the witness's own precision (digits + 15), whatever precision the caller works at."""

    SHAPE = preset("seed-m1", epsilon=Fraction(1, 10))

    def test_equal_to_epsilon_plus_tol_is_not_a_violation(self, monkeypatch):
        w = _witness(mpmath.mpf(10) ** -45)
        with mpmath.workdps(w.digits + 15):
            eps = mpmath.mpf(1) / 10
            tol = w.loss - eps  # exact (Sterbenz: eps/2 <= loss <= 2 eps), so eps + tol == loss exactly
            assert eps + tol == w.loss
        monkeypatch.setattr(wc, "_tol", lambda shape, digits: tol)
        assert wc.verdict_rule(self.SHAPE, w, None) is not MechanismVerdict.NOT_PRIVATE
        monkeypatch.setattr(wc, "_tol", lambda shape, digits: tol / 2)
        assert wc.verdict_rule(self.SHAPE, w, None) is MechanismVerdict.NOT_PRIVATE

    @pytest.mark.parametrize("caller_digits", [15, 20, 35, 65, 120])
    def test_the_rule_does_not_depend_on_the_callers_precision(self, caller_digits):
        tol = mpmath.mpf(10) ** -45  # 10^-(50-5)·max(1, 1/10)
        inside, outside = _witness(tol / 2), _witness(2 * tol)
        with mpmath.workdps(caller_digits):
            assert wc.verdict_rule(self.SHAPE, inside, None) is not MechanismVerdict.NOT_PRIVATE
            assert wc.verdict_rule(self.SHAPE, outside, None) is MechanismVerdict.NOT_PRIVATE

    def test_decide_reconfirms_only_a_violation(self, monkeypatch):
        """`_decide` re-confirms at VIOLATION_DIGITS only a witness the rule calls a violation (30-digit witnesses)."""
        calls = []
        monkeypatch.setattr(wc, "confirm", lambda *a, **k: calls.append(a) or _witness(mpmath.mpf(1), 50))
        tol = mpmath.mpf(10) ** -25  # 10^-(30-5)
        for above, reconfirmed in ((tol / 2, False), (2 * tol, True)):
            calls.clear()
            wc._decide(self.SHAPE, False, 1, _witness(above, 30), {1: 0.1}, [])
            assert bool(calls) is reconfirmed, (above, calls)


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
