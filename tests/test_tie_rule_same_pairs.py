"""The tie-rule study compares the same pairs under ``ge`` and ``gt`` (issue 32, item 7).

``Pr_gt[s | q; t - 1] = Pr_ge[s | q; t]`` at every integer q (`verify.discrete.ties`), so ``gt`` at t - 1 searched
on ``ge``'s own box (centred on t) must give the same largest loss and the same witness pair, at any number of
queries; a box centred on ``gt``'s threshold t - 1 would be ``ge``'s shifted by one (at 3 queries the maxima then
differ, 0.73429 vs 0.72963 for SampCert at W = 6)."""

from __future__ import annotations

import mpmath
import pytest

from verify.discrete.search import search_worst_case
from verify.discrete.ties import tie_rule_study
from verify.errors import InputError
from verify.family import preset


@pytest.mark.slow
@pytest.mark.parametrize("name", ["sampcert-above-threshold", "dlap-seed-m1"])
def test_the_study_compares_the_same_pairs_at_three_queries(name):
    st = tie_rule_study(preset(name, threshold=2), max_queries=3, width=3)
    assert st.pair_ge == st.pair_gt
    assert abs(st.loss_ge - st.loss_gt) < mpmath.mpf(10) ** -40
    assert all(abs(q - 2) <= 3 for q in st.pair_ge[0])  # inside the one box q - t in [-3, 3]^3, t = 2


def test_the_box_is_centred_where_asked():
    m = preset("sampcert-above-threshold")
    found = search_worst_case(m, 1, 2, centre=5)
    assert all(3 <= q <= 7 for q in found.queries) and "q - 5 in [-2, 2]^k" in found.domain
    with pytest.raises(InputError, match="centre"):
        search_worst_case(m, 1, 2, centre=0.5)
