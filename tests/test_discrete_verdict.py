"""Verdicts of discrete variants: the proven bound, the searches, negative controls, the tie rule.

The verdict is the one of every variant (`verify.family.worstcase.family_worst_case`); the bound is
`verify.family.bounds.proven_upper_bound`, derived for ℤ in `verify.discrete.bound`."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from verify.discrete.probability import mp_probability
from verify.discrete.search import search_worst_case
from verify.discrete.ties import tie_rule_study
from verify.errors import InputError
from verify.family.bounds import proven_upper_bound
from verify.family.presets import preset
from verify.family.worstcase import family_worst_case
from verify.mechanism import SparseVector
from verify.noise import NoiseSpec
from verify.verdicts import MechanismVerdict


def _dl(m):
    return NoiseSpec("discrete-laplace", multiplier=Fraction(m))


@pytest.mark.parametrize(("mech", "bound"), [
    (preset("sampcert-above-threshold", epsilon=Fraction(1, 2)), Fraction(1, 2)),
    (preset("dlap-seed-m1", epsilon=2, sensitivity=3), Fraction(2)),
    (preset("dlap-lyu-1", cutoff=3), Fraction(1)),
    (SparseVector(1, 1, 0, _dl(4), _dl(8), cutoff=2, threshold_policy="resample"), Fraction(1)),  # lyu-2 shape, c = 2
    (SparseVector(1, 1, 0, _dl(3), _dl(1), cutoff=1), Fraction(7, 3)),
])
def test_proven_bound_values(mech, bound):
    assert proven_upper_bound(mech).value == bound
    assert proven_upper_bound(mech.with_changes(compare="gt")).value == bound  # the comparison does not enter


def test_no_bound_where_the_derivation_does_not_apply():
    assert proven_upper_bound(preset("dgauss-above-threshold")) is None
    assert proven_upper_bound(SparseVector(1, 1, 0, _dl(2), NoiseSpec("none"), cutoff=1)) is None
    assert proven_upper_bound(SparseVector(1, 1, 0, _dl(2), _dl(2), cutoff=None)) is None


@pytest.mark.parametrize("compare", ["ge", "gt"])
@pytest.mark.parametrize("name", ["sampcert-above-threshold", "dlap-seed-m1"])
def test_private_presets_search_stays_below_the_bound(name, compare):
    """Verdict private (proof); the search's 50-digit loss is below the bound and above 0.4 of it."""
    mech = preset(name, compare=compare)
    v = family_worst_case(mech, max_queries=2)
    assert v.verdict is MechanismVerdict.PRIVATE and v.upper_bound.value == 1
    assert mpmath.mpf(0.4) < v.loss < 1
    assert v.to_json()["verdict"] == "private"


@pytest.mark.slow
def test_negative_controls_are_not_private_with_confirmed_witnesses():
    """Too little query noise (bound 7/3), and no query noise at all (Lyu et al. Alg. 5 shape)."""
    thin = SparseVector(1, 1, 0, _dl(3), _dl(1), cutoff=1, name="thin-query-noise")
    v = family_worst_case(thin, max_queries=2)
    assert v.verdict is MechanismVerdict.NOT_PRIVATE
    w = v.witness
    with mpmath.workdps(60):
        again = mpmath.log(mp_probability(thin, list(w.queries), w.outcome, digits=50, method="direct")
                           / mp_probability(thin, list(w.neighbour), w.outcome, digits=50, method="direct"))
        assert abs(abs(again) - v.loss) < mpmath.mpf(10) ** -40 and abs(again) > 1
    bare = SparseVector(1, 1, 0, _dl(2), NoiseSpec("none"), cutoff=None, name="no-query-noise")
    assert family_worst_case(bare, max_queries=2).verdict is MechanismVerdict.NOT_PRIVATE


def test_discrete_gaussian_has_no_pure_bound_and_a_witness():
    v = family_worst_case(preset("dgauss-above-threshold"), max_queries=2)
    assert v.upper_bound is None and v.verdict is MechanismVerdict.NOT_PRIVATE and v.loss > 1


def test_search_box_is_limited():
    with pytest.raises(InputError, match="exceed"):
        search_worst_case(preset("dlap-seed-m1"), max_queries=4, width=8)


def _brute(mech, q, outcome, reach=45):
    """Pr[outcome] by literal enumeration of Z and X_1, X_2 (|values| <= reach) with the literal comparison:
    independent of the plan's offsets u_i = t - q_i + [gt]. Truncation < 1e-30 for scale 1 (discrete Laplace).

    The run (cutoff 1) stops at its first A, so the outcome's i-th letter is query i's comparison and the draws after
    the outcome's last letter are unused; given Z = z the draws are independent, so the sum over every tuple
    (X_1, X_2) of the enumeration factorises (distributivity, the same finite set of tuples): for each z, the
    product over the outcome's letters of the mass of the x whose literal comparison gives that letter, times the
    enumerated mass of each unused draw."""
    z_law, x_law = mech.threshold_noise, mech.query_noise
    bz, bx = (mpmath.mpf(n.scale.numerator) / n.scale.denominator for n in (z_law, x_law))
    t = int(mech.threshold)
    assert mech.cutoff == 1 and "A" not in outcome[:-1] and len(outcome) <= len(q)
    assert outcome.endswith("A") or len(outcome) == len(q)  # a complete outcome
    xs = range(-reach, reach + 1)
    px = {x: x_law.law.mp_pdf(mpmath.mpf(x), bx) for x in xs}
    unused = mpmath.fsum(px.values()) ** (len(q) - len(outcome))
    total = mpmath.mpf(0)
    for z in xs:
        p = z_law.law.mp_pdf(mpmath.mpf(z), bz) * unused
        for qi, letter in zip(q, outcome):
            above = [qi + x > t + z if mech.compare.value == "gt" else qi + x >= t + z for x in xs]
            p *= mpmath.fsum(px[x] for x, a in zip(xs, above) if a == (letter == "A"))
        total += p
    return total


def test_tie_identity_by_literal_enumeration():
    """Pr_gt[s | q; t] = Pr_ge[s | q - 1; t]: the gt side by brute enumeration with '>', the ge side by the closed form."""
    gt = SparseVector(Fraction(3, 1), 1, 2, _dl(3), _dl(3), cutoff=1, compare="gt")  # scales 1
    ge = gt.with_changes(compare="ge")
    with mpmath.workdps(40):
        for q in ([2, 3], [0, 5]):
            for s in ("A", "BA"):
                brute = _brute(gt, q, s, reach=35)
                exact = mp_probability(ge, [v - 1 for v in q], s, digits=35)
                assert abs(brute - exact) < mpmath.mpf(10) ** -12 * exact  # enumeration truncated at |x| <= 35
                assert abs(brute - mp_probability(ge, q, s, digits=35)) > mpmath.mpf(10) ** -3  # the law itself moves


def test_tie_rule_study_same_loss_different_law():
    st = tie_rule_study(preset("dlap-seed-m1"), max_queries=2, width=4)
    assert st.loss_ge == st.loss_gt
    assert st.law_ge["A"] - st.law_gt["A"] > mpmath.mpf("0.05")  # the tie's mass moved from A to B
    assert abs(sum(st.law_gt.values()) - 1) < mpmath.mpf(10) ** -25


def test_halting_pass_matches_the_fast_path_row_by_row():
    import numpy as np

    from verify.engine.discrete_fast import fast_log_probability
    from verify.engine.discrete_halting import halting_logs

    for mech in (preset("dlap-seed-m1"), preset("dgauss-above-threshold", compare="gt")):
        q = np.array([[0, 3, -2], [10, -10, 0], [-40, 40, 5]])
        logs, err = halting_logs(mech, q)
        assert err.max() < 1e-11
        for r in range(3):
            for j, s in enumerate(mech.outputs(3)):
                assert abs(fast_log_probability(mech, list(q[r]), s).log_value - logs[r, j]) < 1e-12


@pytest.mark.slow
def test_structured_search_agrees_with_exhaustive_and_nearly_attains_the_bound():
    """At k = 2 on the same box the structured search finds the exhaustive maximum; at k = 5 (W = 10) the
    50-digit loss of dlap-seed-m1 is within 1e-3 of the proven bound ε = 1 and below it: the bound is tight."""
    from verify.discrete.search import structured_search

    mech = preset("dlap-seed-m1")
    assert structured_search(mech, 2, 6).loss_confirmed == search_worst_case(mech, 2, 6).loss_confirmed
    v = family_worst_case(mech, max_queries=5)  # cutoff 1: the structured search, W = 10
    assert v.verdict is MechanismVerdict.PRIVATE
    assert 1 - mpmath.mpf("1e-3") < v.loss < 1
    assert v.witness.outcome == "BBBBA"


@pytest.mark.parametrize("name, compare", [("dlap-seed-m1", "ge"), ("sampcert-above-threshold", "gt"),
                                           ("dgauss-above-threshold", "ge")])
def test_structured_search_scans_its_pairs_as_one_pair_at_a_time(name, compare):
    """The structured search computes every pair's gaps in one array (`structured_search`): its best float64 loss,
    pair, outcome and per-k maxima are those of the pairs taken one at a time, in order, each its own
    `log_ratio_from_logs` and argmax, a strictly larger value replacing the best (the first pair wins a tie)."""
    import math

    import numpy as np

    from verify.discrete.search import structured_search
    from verify.engine.discrete_halting import halting_logs
    from verify.ratio import log_ratio_from_logs

    mech = preset(name, compare=compare)
    width, k_max = 5, 3
    got = structured_search(mech, k_max, width)
    t, d = mech.threshold.numerator, mech.sensitivity.numerator
    levels = range(t - width - d, t + width + d + 1)
    best, by_k = (-math.inf, (), (), ""), {}
    for k in range(1, k_max + 1):
        vectors = [((a,) * (k - 1) if a is not None else ()) + (c,) for a in ([None] if k == 1 else levels) for c in levels]
        index = {v: i for i, v in enumerate(vectors)}
        logs, _ = halting_logs(mech, np.array(vectors, dtype=float))
        for v in vectors:
            if abs(v[-1] - t) > width or (k > 1 and abs(v[0] - t) > width):
                continue
            for s, s2 in [(s, s2) for s in (-d, 0, d) for s2 in (-d, 0, d) if (s, s2) != (0, 0)]:
                if k == 1 and s != 0:
                    continue
                w = tuple(x + s for x in v[:-1]) + (v[-1] + s2,)
                gap = log_ratio_from_logs(logs[index[v]], logs[index[w]])
                j = int(np.argmax(gap))
                by_k[k] = max(by_k.get(k, -math.inf), float(gap[j]))
                if gap[j] > best[0]:
                    best = (float(gap[j]), v, w, mech.outputs(k)[j])
    assert (got.loss_float, got.queries, got.neighbour, got.outcome) == best
    assert got.by_k == by_k


@pytest.mark.slow
def test_pair_delta_of_the_discrete_gaussian():
    """δ at ε' = 0 is the total variation distance (both directions equal); δ decreases in ε'; at the
    structured witness of dgauss-above-threshold δ(1) > 0 (pure 1-DP fails there), while for
    dlap-seed-m1 at its own witness δ(1) = 0 (its loss there is below 1)."""
    from verify.discrete.delta import pair_delta

    g = preset("dgauss-above-threshold")
    q, q2 = [10, 10, 10, 10, -10], [11, 11, 11, 11, -11]
    d0, d1, d2 = (pair_delta(g, q, q2, e) for e in (0, 1, 2))
    from verify.discrete.probability import mp_distribution

    a, b = mp_distribution(g, q), mp_distribution(g, q2)
    with mpmath.workdps(40):
        tv = mpmath.fsum(abs(a[s] - b[s]) for s in a) / 2
        assert abs(d0 - tv) < mpmath.mpf(10) ** -25
    assert d0 > d1 > d2 >= 0 and d1 > 0
    assert pair_delta(preset("dlap-seed-m1"), q, q2, 1) == 0


@pytest.mark.slow
def test_discrete_table_rows():
    """The discrete rows: Laplace presets private by proof with the search below the bound; the discrete
    Gaussian not private with a confirmed witness; the rendering names every row."""
    from verify.discrete.table import discrete_table, render

    rows = discrete_table()
    for r in rows:
        v = r.result
        if r.name == "dgauss-above-threshold":
            assert v.verdict is MechanismVerdict.NOT_PRIVATE and v.loss > 1
        else:
            b = v.upper_bound.value
            assert v.verdict is MechanismVerdict.PRIVATE and 0 < v.loss < mpmath.mpf(b.numerator) / b.denominator
        assert r.to_json()["verdict"] == v.verdict.value
    text = render(rows)
    assert text.count("\n") == len(rows) + 1 and "sampcert-above-threshold" in text
