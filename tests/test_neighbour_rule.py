"""One rule for neighbouring query vectors (`verify.exact.check_neighbours`): the same length and
|q_j(D) − q_j(D′)| <= Δ for every j (seed, the definition of sensitivity).  Every model's entry point and
every command that takes a neighbour refuses through it, in one line naming the offending entry."""

from __future__ import annotations

from fractions import Fraction

import pytest

from verify.errors import InputError
from verify.exact import check_neighbours

F = Fraction


def test_a_difference_of_exactly_the_sensitivity_is_a_neighbour():
    check_neighbours([F(0), F(1, 3)], [F(1), F(-2, 3)], F(1))
    check_neighbours([F(0)], [F(1, 2)], F(1, 2))


def test_a_difference_just_above_the_sensitivity_is_refused_naming_the_entry():
    with pytest.raises(InputError) as err:
        check_neighbours([F(0), F(0)], [F(1), F(1) + F(1, 10**30)], F(1), "--neighbour-queries")
    text = str(err.value)
    assert text.startswith("--neighbour-queries: |q_2(D) - q_2(D')| = ")
    assert "exceeds the sensitivity Δ = 1" in text and "\n" not in text


def test_lengths_must_agree():
    with pytest.raises(InputError, match=r"^neighbour queries: length 1 differs from the 2 queries of D$"):
        check_neighbours([F(0), F(0)], [F(0)], F(1))


def _entry_points():
    """Each model's or command's own way in, called with q = (0, 0) and q' = (0, 2) at Δ = 1."""
    from verify.discrete.delta import check_pair
    from verify.family.delta import exact_delta
    from verify.family.presets import preset
    from verify.mechanism import AboveThreshold
    from verify.selection.delta import pair_delta
    from verify.selection.presets import selection_preset

    seed = AboveThreshold.mechanism_one(1)
    q, qn = [F(0), F(0)], [F(0), F(2)]
    return {
        "SparseVector.check_neighbours": lambda: seed.check_neighbours(q, qn),
        "family delta": lambda: exact_delta(seed, q, qn, 1),
        "discrete delta": lambda: check_pair(preset("sampcert-above-threshold"), [0, 0], [0, 2]),
        "Report Noisy Max delta": lambda: pair_delta(selection_preset("dpsniper-rnm1", F(1)), q, qn, 1),
    }


@pytest.mark.parametrize("name", sorted(_entry_points()))
def test_every_entry_point_refuses_through_the_one_rule(name):
    with pytest.raises(InputError, match=r"\|q_2\(D\) - q_2\(D'\)\| = 2 exceeds the sensitivity Δ = 1$"):
        _entry_points()[name]()
