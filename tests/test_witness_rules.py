"""Witnesses: confirmation at 50 digits, the best-so-far record (`verify.family.witness`).

Re-homed from the mutation rounds' files (`test_family_mutation_kills.py`, `test_family_mutation_kills2.py`, `test_family_mutation_kills3.py`, `test_family_mutation_kills4_search.py`); each class or test keeps its name, so
docs/mutation.md and `benchmarks/mutation_score.py` still find it.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from family_variants import variant

from verify.family.witness import BestSoFar, FamilyWitness, confirm
from verify.family.worstcase import family_worst_case
from verify.oracles.family import output_probability


# --- the witness ---------------------------------------------------------------------------------------------------------
class TestWitnessKills:
    """`confirm` and the witness's reporting."""

    def test_a_witness_is_a_frozen_value(self):
        """Rule (mathematical objects are frozen dataclasses): a confirmed witness cannot be changed after the fact."""
        import dataclasses

        w = FamilyWitness((Fraction(0),), (Fraction(1),), "A", (), mpmath.mpf(1) / 4, mpmath.mpf(1) / 2, 30)
        with pytest.raises(dataclasses.FrozenInstanceError):
            w.probability = mpmath.mpf(1)  # type: ignore[misc]

    def test_confirm_accepts_neighbours_at_delta_and_refuses_beyond(self):
        """Rule: neighbouring query vectors differ by at most Δ in every query (equality allowed)."""
        s = variant(delta=Fraction(1, 2), z=("laplace", 2), x=("laplace", 3))
        w = confirm(s, (Fraction(0), Fraction(1)), (Fraction(1, 2), Fraction(1, 2)), "BA", (), 20)
        want = output_probability(s, (0, 1), "BA", (), 20)
        assert abs(w.probability - want) <= mpmath.mpf(10) ** -18 * want
        with pytest.raises(ValueError):
            confirm(s, (Fraction(0), Fraction(1)), (Fraction(1, 2) + Fraction(1, 10**9), Fraction(1)), "BA", (), 20)

    def test_loss_is_the_absolute_log_ratio_and_infinite_on_a_zero_side(self):
        """Rule: loss = |log p - log p'|, inf when exactly one side is 0; kind says probability or density."""
        with mpmath.workdps(30):
            w = FamilyWitness((Fraction(0),), (Fraction(1),), "A", (), mpmath.mpf(1) / 4, mpmath.mpf(1) / 2, 30)
            assert abs(w.loss - mpmath.log(2)) < mpmath.mpf(10) ** -28 and w.log_ratio < 0 and w.kind == "probability"
            z = FamilyWitness((Fraction(0),), (Fraction(1),), "A", (Fraction(1),), mpmath.mpf(0), mpmath.mpf(1) / 2, 30)
            assert mpmath.isinf(z.loss) and z.kind == "density" and z.to_json()["log_ratio"] == "-inf"
        with mpmath.workdps(80):  # printed at the witness's 30 digits, every one of them right
            assert w.to_json()["log_ratio"] == mpmath.nstr(-mpmath.log(2), 30)
            assert w.to_json()["probability"] == "0.25" and z.to_json()["neighbour_probability"] == "0.5"
        cmd = z.ratio_command("--variant lyu-1")
        assert "--queries=0 " in cmd and "--neighbour-queries=1 " in cmd and "--released=1" in cmd and "--digits 30" in cmd


class TestWitnessKills2:
    """The witness module's constants and values."""

    def test_best_so_far_is_a_frozen_value(self):
        """Rule: `BestSoFar` (the partial result a caller interrupted by Ctrl-C shows) is an immutable value."""
        import dataclasses

        from verify.family.witness import BestSoFar

        b = BestSoFar(0.5, (Fraction(0),), (Fraction(1),), "A", (), "grid at k = 1")
        with pytest.raises(dataclasses.FrozenInstanceError):
            b.loss = 1.0  # type: ignore[misc]
        assert not b.confirmed

    @pytest.mark.parametrize("release", ["none", "gap", "query"])
    def test_structured_pair_places_every_letter_and_shifts_the_neighbour(self, release):
        """Rule (`structured_pair`): every B query at t + u, every A query at t + v, u, v, r rounded to multiples of
        unit/1000; the neighbour adds σ_B (B's) and σ_A (A's), rounded to multiples of Δ; the released value is the gap r
        itself (gap release) or t + r (a value released at its query), once per A.  Expected values written out here
        for t = 1/3, Δ = 2, unit = 3, a point (u, v, r) = (1.2344, -0.5, 0.75) and shifts (+2, -2)."""
        from verify.family.witness import structured_pair

        t, d = Fraction(1, 3), Fraction(2)
        s = variant(t=t, delta=d, release=release)
        q, qn, out, rel = structured_pair(s, "BAB", (1.2344, -0.5, 0.75), (2.0, -2.0), Fraction(3))
        # the nearest multiples of 3/1000: 1.2344/0.003 = 411.47 -> 411, -0.5/0.003 = -166.67 -> -167, 0.75/0.003 = 250
        u, v, r = Fraction(1233, 1000), Fraction(-501, 1000), Fraction(3, 4)
        assert q == (t + u, t + v, t + u) and out == "BAB"
        assert qn == (t + u + 2, t + v - 2, t + u + 2)
        assert rel == {"none": (), "gap": (r,), "query": (t + r,)}[release]

    def test_confirmed_witnesses_are_computed_at_fifty_digits(self):
        """Rule (module docstrings: "confirmed by the exact mpmath path at 50 digits"): the search's confirmed witness
        of a Laplace variant carries digits = 50."""
        r = family_worst_case(variant(), max_queries=1, tightness_study=False)
        assert r.witness.digits == 50


class TestWitnessKills3:
    """The search's last best pair in JSON."""

    def test_best_so_far_json_writes_inf_only_for_an_infinite_loss(self):
        """Rule (`BestSoFar.to_json`): the loss is the string "inf" when infinite (JSON has no infinity), the float itself
        otherwise."""
        q, qn = (Fraction(1),), (Fraction(2),)
        finite = BestSoFar(0.25, q, qn, "A", (), "refined").to_json()
        assert finite["loss"] == 0.25 and finite["queries"] == ["1"] and finite["neighbour_queries"] == ["2"]
        assert BestSoFar(float("inf"), q, qn, "A", (), "refined").to_json()["loss"] == "inf"


class TestBestSoFarKills4:
    def test_of_witness_is_confirmed(self):
        """Rule (`BestSoFar.of_witness`): the confirmed witness as the last best pair is marked confirmed (stage
        "confirmed"), its loss the witness's loss; it describes itself as confirmed by the exact path."""
        s = variant()
        w = confirm(s, (Fraction(0),), (Fraction(1),), "A")
        b = BestSoFar.of_witness(w)
        assert b.confirmed is True and b.stage == "confirmed" and b.loss == float(w.loss)
        assert "confirmed by the exact path" in b.describe() and b.to_json()["confirmed"] is True
