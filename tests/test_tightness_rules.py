"""The tightness study: attained / approached / loose / exceeded, the push and its grid.

Re-homed from the mutation rounds' files (`test_family_mutation_kills.py`, `test_family_mutation_kills2.py`, `test_family_mutation_kills3.py`, `test_family_mutation_kills4_search.py`, `test_family_mutation_kills7_decision.py`, `test_mutation_kills.py`); each class or test keeps its name, so
docs/mutation.md and `benchmarks/mutation_score.py` still find it.
"""

from __future__ import annotations

from fractions import Fraction
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest
from family_variants import fixed, lay_of, mp, tightness, variant

from verify.family import search_tuning as tune
from verify.family import worstcase as wc
from verify.family.bounds import ProvenBound, proven_upper_bound
from verify.family.structured import layouts
from verify.family.witness import FamilyWitness
from verify.family.worstcase import family_worst_case
from verify.mechanism import AboveThreshold
from verify.oracles.family import output_probability
from verify.verdicts import MechanismVerdict, Tightness
from verify.worstcase import worst_case


def mp65(x) -> mpmath.mpf:
    with mpmath.workdps(65):
        return mpmath.mpf(x.numerator) / x.denominator if isinstance(x, Fraction) else mpmath.mpf(x)


class TestTightnessKills:
    """The push table of the tightness study."""

    @pytest.mark.parametrize("name", ["m1", "numeric-svt"])
    def test_push_table_doubles_L_from_the_unit_and_stays_below_the_bound(self, name):
        """Rule: the push table has 8 rows L = unit·2^j (j = 0..7, unit the larger noise scale), each a confirmed loss
        at most the bound; row j is the loss of the family the table names: B's at t ± L, A's at t ± L (a fresh
        released value at its A query), the neighbour shifted as stated (recomputed here from the exact oracle)."""
        from verify.family import preset

        if name == "m1":
            s, unit = variant(z=("laplace", 30), x=("laplace", 30), t=Fraction(5)), Fraction(30)
        else:  # NumericalSVT (b_Z = 3Δ/ε, b_X = 6cΔ/ε, b_Y = 3cΔ/ε): the larger scale is 60
            s, unit = preset("numeric-svt", Fraction(1, 10), Fraction(1), Fraction(5), cutoff=1), Fraction(60)
        r = family_worst_case(s, max_queries=2, push_table=True)
        assert r.verdict is MechanismVerdict.PRIVATE
        assert [L for _, L, _ in r.push] == [unit * 2**j for j in range(8)]
        losses = [loss for _, _, loss in r.push]
        assert all(loss <= mp(Fraction(1, 10)) for loss in losses)
        if name == "m1":  # pushed out along the best point's signs, Mechanism One's loss grows towards its bound
            assert all(a < b for a, b in zip(losses, losses[1:])), losses
        assert r.tightness in (Tightness.APPROACHED, Tightness.LOOSE)
        fam = r.push_family
        out = fam.split(":")[0]
        sign_b = 1 if "B queries at t + L" in fam else -1
        sign_a = 1 if "A queries at t + L" in fam else -1
        shift_b = Fraction(fam.split("shifted by ")[1].split(" (B)")[0])
        shift_a = Fraction(fam.split(" and ")[-1].split(" (A)")[0])
        for j in (0, 3):
            L = unit * 2**j
            q = tuple(s.threshold + (sign_b if ch == "B" else sign_a) * L for ch in out)
            qn = tuple(x + (shift_b if ch == "B" else shift_a) for x, ch in zip(q, out))
            rel = (s.threshold + sign_a * L,) * out.count("A") if s.releases_values else ()
            with mpmath.workdps(60):
                want = abs(mpmath.log(output_probability(s, q, out, rel, 50)) - mpmath.log(output_probability(s, qn, out, rel, 50)))
                assert abs(r.push[j][2] - want) < mpmath.mpf(10) ** -40, (j, r.push[j][2], want)

    def test_approached_evidence_measures_the_push_from_the_threshold(self, monkeypatch):
        """Rule: `approached` says how far the witness's queries are pushed from t, max |q - t| in noise scales (t = 5
        here, so a distance measured from 0 differs); the confirmation is stubbed at bound·(1 - 0.9e-6)."""
        import verify.family.worstcase as fw

        s = variant(z=("laplace", 30), x=("laplace", 30), t=Fraction(5))

        def confirm_stub(shape, q, qn, outcome, released=(), digits=50):
            with mpmath.workdps(120):
                p = mpmath.mpf(1) / 4
                return FamilyWitness(tuple(q), tuple(qn), outcome, tuple(released), p,
                                     p * mpmath.exp(-mp(Fraction(1, 10)) * (1 - mpmath.mpf("0.9e-6"))), digits)

        monkeypatch.setattr(fw, "confirm", confirm_stub)
        r = family_worst_case(s, max_queries=2)
        assert r.tightness is Tightness.APPROACHED
        far = max(abs(x - s.threshold) for x in r.witness.queries) / 30
        assert f"pushed {float(far):.3g} noise scales from t" in r.tightness_evidence


class TestTightnessKills2:
    """The push table's directions."""

    @pytest.mark.parametrize("su,sv", [(1, -1), (-1, 1), (1, 1), (-1, -1)])
    def test_push_follows_the_signs_of_the_best_point_in_every_quadrant(self, su, sv):
        """Rule (`_push`): row j of the push table is the confirmed loss with the B queries at t + sign(u)·L and the A
        queries at t + sign(v)·L, L = unit·2^j (sign(0) = +1), the neighbour shifted by the best point's shifts:
        recomputed here from the exact oracle for a best point in each quadrant (Mechanism One, t = 5, layout BA)."""
        from verify.family import worstcase as wc

        s = variant(z=("laplace", 30), x=("laplace", 30), t=Fraction(5))
        r = family_worst_case(s, max_queries=2, tightness_study=False)
        assert r.verdict is MechanismVerdict.PRIVATE
        lay = next(lay for lay in layouts(s, 2) if lay.string(s) == "BA")
        unit = Fraction(30)
        u = 0.0 if su > 0 and sv > 0 else su * 7.0  # u = 0 counts as +
        best = wc._Point(0.0, lay, u, sv * 3.0, 0.0, 1.0, -1.0)
        table, fam = wc._push(s, r, best, unit, None)
        assert [L for _, L, _ in table] == [unit * 2**j for j in range(8)]
        for j in (0, 2):
            L = unit * 2**j
            q = (s.threshold + su * L, s.threshold + sv * L)
            qn = (q[0] + 1, q[1] - 1)
            with mpmath.workdps(60):
                want = abs(mpmath.log(output_probability(s, q, "BA", (), 50)) - mpmath.log(output_probability(s, qn, "BA", (), 50)))
                assert abs(table[j][2] - want) < mpmath.mpf(10) ** -40, (j, table[j][2], want)
        assert f"B queries at t {'+' if su > 0 else '-'} L, A queries at t {'+' if sv > 0 else '-'} L" in fam


class TestTightnessRunsKills:
    """When the tightness study runs."""

    def test_tightness_is_studied_for_private_variants_only(self):
        """Rule (`family_worst_case`, ``tightness_study``): a private variant gets a tightness word from the study
        (Mechanism Two: its bound ε is attained, loss = ε at 45 digits); a not-private one is `exceeded` (no study)."""
        from verify.verdicts import Tightness

        r = family_worst_case(variant(z=("exponential", 30), x=("exponential", 30)), max_queries=2)
        assert r.verdict is MechanismVerdict.PRIVATE and r.tightness is Tightness.ATTAINED
        r = family_worst_case(variant(eps=Fraction(1, 100), z=("laplace", 30), x=("laplace", 30)), max_queries=1)
        assert r.verdict is MechanismVerdict.NOT_PRIVATE and r.tightness is Tightness.EXCEEDED


class TestTightnessKills3:
    """The push table's sign at v = 0."""

    def test_push_counts_v_zero_as_plus(self):
        """Rule (`_push`): sign(0) = +1 for the A queries too: a best point with v = 0 exactly pushes its A queries to
        t + L; row j = 0 recomputed with the exact oracle (Mechanism One, t = 5, layout BA, B's at t - L)."""
        from verify.family import worstcase as wc

        s = variant(t=Fraction(5))
        r = family_worst_case(s, max_queries=2, tightness_study=False)
        assert r.verdict is MechanismVerdict.PRIVATE
        lay = next(lay for lay in layouts(s, 2) if lay.string(s) == "BA")
        unit = Fraction(30)
        table, fam = wc._push(s, r, wc._Point(0.0, lay, -7.0, 0.0, 0.0, 1.0, -1.0), unit, None)
        assert "B queries at t - L, A queries at t + L" in fam
        q = (s.threshold - unit, s.threshold + unit)
        qn = (q[0] + 1, q[1] - 1)
        with mpmath.workdps(60):
            want = abs(mpmath.log(output_probability(s, q, "BA", (), 50)) - mpmath.log(output_probability(s, qn, "BA", (), 50)))
            assert abs(table[0][2] - want) < mpmath.mpf(10) ** -40


class TestTightnessGridKills3:
    """The tightness study's moderate grid."""

    def test_moderate_grid_is_t_plus_j_half_units(self, monkeypatch):
        """Rule (`_tightness`, docs/mutation.md "Tuning parameters"): the moderate grid is t + j·unit/2, j = -4..4
        (|q - t| <= 2 scales), on both axes of a layout with B's and A's: the 81 points (u, v) that the study evaluates
        are recorded and compared with that product (Laplace Z, exponential X with scale 30: unit = 30; the best layout has B's and A's)."""
        from verify.family import search_tuning as tune
        from verify.family import worstcase as wc

        seen: list[tuple[np.ndarray, np.ndarray]] = []
        real_tightness, real_ratio = wc._tightness, wc.family_log_ratio
        inside = []

        def tightness(*a, **k):
            inside.append(True)
            try:
                return real_tightness(*a, **k)
            finally:
                inside.pop()

        def ratio(shape, lay, uu, vv, rr, sb, sa):
            if inside:
                seen.append((np.array(uu, dtype=float), np.array(vv, dtype=float)))
            return real_ratio(shape, lay, uu, vv, rr, sb, sa)

        monkeypatch.setattr(wc, "_tightness", tightness)
        monkeypatch.setattr(wc, "family_log_ratio", ratio)
        r = family_worst_case(variant(z=("laplace", 30), x=("exponential", 30)), max_queries=2)
        assert r.verdict is MechanismVerdict.PRIVATE and seen
        uu, vv = seen[0]
        steps = [15.0 * j for j in range(-4, 5)]
        assert tuple(tune.MODERATE_STEPS) == tuple(j / 2 for j in range(-4, 5))
        assert sorted(zip(uu.tolist(), vv.tolist())) == sorted((a, b) for a in steps for b in steps)


class TestTightnessKills4:
    """The tightness study's moderate grid, its choice of point, its replacement rule, and its three edges."""

    def test_released_value_of_the_moderate_grid(self, monkeypatch):
        """Rule (`_tightness`): on the moderate grid a value released at its A query sits there (fresh release:
        r = v), a gap release's gap is 0, and without release r = 0."""
        for s, at_query in ((variant(release="fresh", y=("laplace", 20)), True), (variant(release="gap"), False), (variant(), False)):
            _, grid, _ = tightness(monkeypatch, s, lay_of(s, True, True), Fraction(1), lambda uu, vv, rr: 0 * uu, mp65(0), fixed((0, 0), mp65(0), "BA"))
            uu, vv, rr = grid[0]
            assert np.array_equal(rr, vv if at_query else np.zeros_like(uu)), s.release

    @pytest.mark.parametrize("has_b", [True, False])
    def test_the_close_point_nearest_t_is_confirmed_with_an_absent_letter_at_t(self, monkeypatch, has_b):
        """Rule (`_tightness`): of the moderate points within CLOSE_RTOL·bound of the bound, the one nearest t (least
        max |q - t|) is confirmed; a letter the layout lacks sits at t and does not count.  Unit 1 (Laplace scales 1,
        Δ = 1): the grid is t + j/2, j = -4..4; every point is close: the confirmed one is q = t, and it is the witness."""
        s = variant(eps=3, z=("laplace", 1), x=("laplace", 1))
        b = proven_upper_bound(s).value
        lay = lay_of(s, has_b, not has_b, 1)
        res, grid, confirmed = tightness(monkeypatch, s, lay, b, lambda uu, vv, rr: 0 * uu + float(b), mp65(b),
                                         fixed((30,), mp65(b) - mpmath.mpf("1e-3")), unit=Fraction(1))
        uu, vv, _ = grid[0]
        assert np.all((vv if has_b else uu) == 0) and len(uu) == 9
        assert [(p.u, p.v) for p in confirmed] == [(0.0, 0.0)]
        assert res.tightness is Tightness.ATTAINED and res.witness.queries == (s.threshold,)

    def test_an_equally_good_moderate_witness_replaces_the_search_witness(self, monkeypatch):
        """Rule (`_tightness`): when attained, the moderate witness is reported unless the search's loss L is larger by
        more than tol = 10^-45·max(1, ε): it replaces it at w.loss = L, and at w.loss = L - tol exactly (L = b + tol/2,
        both computed at the working precision of the comparison), but not at w.loss = b - tol/2 < L - tol
        (L = b + 0.9·tol)."""
        s = variant()
        b = proven_upper_bound(s).value

        def B():
            return mpmath.mpf(b.numerator) / b.denominator

        def tol():
            return wc._tol(s, 50)

        lay = lay_of(s, True, True)
        far = (300, 300)
        cases = ((B, B, True), (lambda: B() + tol() / 2, lambda: (B() + tol() / 2) - tol(), True),
                 (lambda: B() + tol() * mpmath.mpf("0.9"), lambda: B() - tol() / 2, False))
        for search_loss, moderate, replaced in cases:
            search = fixed(far, search_loss, "BA")
            res, _, confirmed = tightness(monkeypatch, s, lay, b, lambda uu, vv, rr: 0 * uu + float(b), moderate, search)
            assert res.tightness is Tightness.ATTAINED and len(confirmed) == 1
            assert (res.witness is not search) is replaced, (search_loss, moderate)

    def test_attained_includes_a_difference_of_exactly_ten_to_minus_45(self, monkeypatch):
        """Rule (`_tightness`): attained when |bound - loss| <= 10^-45 (inclusive).  Crafted: bound 10^-45 (exactly
        10^-45 at 65 digits too), a moderate loss 0: attained; bound 2·10^-45: not (then loose: the search's loss is 0)."""
        s = variant()
        lay = lay_of(s, True, True)
        for bound, word in ((Fraction(1, 10**45), Tightness.ATTAINED), (Fraction(2, 10**45), Tightness.LOOSE)):
            with mpmath.workdps(65):
                assert (mp65(bound) - 0 == mpmath.mpf(10) ** -45) is (word is Tightness.ATTAINED)
            res, _, confirmed = tightness(monkeypatch, s, lay, bound, lambda uu, vv, rr, fb=float(bound): 0 * uu + fb, mp65(0),
                                          fixed((0, 0), mp65(0), "BA"))
            assert confirmed and res.tightness is word, (bound, res.tightness)

    def test_approached_includes_a_gap_of_exactly_a_millionth_of_the_bound(self, monkeypatch):
        """Rule (`_tightness`): approached when bound - loss <= 10^-6·bound (inclusive).  Crafted: at the edge, bound 0
        and the search's loss 0 (the gap 0 equals 10^-6·0 at any precision): approached; either side, bound 10^6 and
        loss 10^6 - 1/2 (gap below 1): approached, loss 10^6 - 3/2: loose.  No moderate point is close (their float64
        loss is 1, the bound 0 or 10^6)."""
        s = variant()
        lay = lay_of(s, True, True)
        for bound, loss, word in ((Fraction(0), Fraction(0), Tightness.APPROACHED),
                                  (Fraction(10**6), Fraction(2 * 10**6 - 1, 2), Tightness.APPROACHED),
                                  (Fraction(10**6), Fraction(2 * 10**6 - 3, 2), Tightness.LOOSE)):
            res, _, confirmed = tightness(monkeypatch, s, lay, bound, lambda uu, vv, rr: 0 * uu + 1.0, mp65(0),
                                          fixed((0, 0), mp65(loss), "BA"))
            assert not confirmed and res.tightness is word, (loss, res.tightness)

    def test_a_point_exactly_close_rtol_from_the_bound_is_confirmed(self, monkeypatch):
        """Rule (`_tightness`, CLOSE_RTOL = 1e-9: points "within this relative distance of the bound" are confirmed,
        inclusive).  Crafted: bound 10^9, so CLOSE_RTOL·bound = 1 exactly in float64; one moderate point at float64
        loss 10^9 - 1 (exactly that distance) is confirmed, one at 10^9 - 2 is not."""
        s = variant()
        lay = lay_of(s, True, True)
        assert tune.CLOSE_RTOL * 1e9 == 1.0
        for lr, n in ((1e9 - 1, 1), (1e9 - 2, 0)):
            def f(uu, vv, rr, lr=lr):
                out = 0 * uu
                out[np.flatnonzero((uu == 30.0) & (vv == -30.0))] = lr
                return out
            _, _, confirmed = tightness(monkeypatch, s, lay, Fraction(10**9), f, mp65(0), fixed((0, 0), mp65(0), "BA"))
            assert [(p.u, p.v) for p in confirmed] == [(30.0, -30.0)] * n, lr

    def test_push_releases_the_value_at_the_pushed_above_query(self):
        """Rule (`_push`: "released value at the A query"): a fresh release's pushed point has its A query at
        t + sign(v)·L and its released value there too.  Row j is recomputed with the exact oracle: q(D) = (t - L, t + L)
        for output BA, released t + L, q(D') shifted by (+Δ, -Δ); L = unit·2^j, j = 0, 1 (Laplace Z, X, Y, scales 30)."""
        from verify.oracles.family import output_probability

        s = variant(release="fresh", y=("laplace", 30))
        bound = proven_upper_bound(s)
        lay = lay_of(s, True, True)
        res = wc.FamilyWorstCase(s, False, 2, MechanismVerdict.PRIVATE, fixed((0, 0), mp65(0), "BA"), bound, None, False, None,
                                 Tightness.LOOSE, "")
        unit = Fraction(30)
        table, _ = wc._push(s, res, wc._Point(0.0, lay, -7.0, 3.0, 3.0, 1.0, -1.0), unit, None)
        for j in (0, 1):
            L = unit * 2**j
            q, qn, rel = (-L, L), (-L + 1, L - 1), (L,)
            with mpmath.workdps(60):
                want = abs(mpmath.log(output_probability(s, q, "BA", rel, 50)) - mpmath.log(output_probability(s, qn, "BA", rel, 50)))
                assert abs(table[j][2] - want) < mpmath.mpf(10) ** -40, (j, table[j][2], want)


class TestSeedTightnessKills7:
    """`verify.worstcase.worst_case`: the tightness is reported with a study (push_study) or, without one, when the
    loss is unbounded (`exceeded`); a private mechanism without a study reports none."""

    def test_unbounded_without_a_study_is_exceeded(self):
        mech = AboveThreshold.with_noise("laplace", 1, threshold_multiplier=0)
        res = worst_case(mech, max_queries=2, push_study=False)
        assert res.unbounded and res.tightness is Tightness.EXCEEDED

    def test_a_study_reports_the_tightness_of_a_bounded_mechanism(self):
        res = worst_case(AboveThreshold.with_noise("laplace", 1), max_queries=2, push_study=True)
        assert not res.unbounded and res.tightness is not None
        res = worst_case(AboveThreshold.with_noise("laplace", 1), max_queries=2, push_study=False)
        assert res.tightness is None


def test_attained_means_equal_to_the_bound_at_fifty_digits(monkeypatch):
    """Tightness `attained`: a witness at moderate queries whose loss, confirmed at 50 digits, equals the proven
    bound to 10^-45 (`verify.family.worstcase._tightness`).  Exponential noise c_Z = 3, c_X = 3(1 + δ) has sup
    loss (1/3 + 2/(3(1+δ)))·ε ≈ ε(1 - 2δ/3) at q(D) = (t, t), q(D') = (t+Δ, t-Δ), s_2; with the bound taken as
    ε (a valid bound, stubbed): δ = 7.5e-46 (gap 5e-46) is attained, δ = 7.5e-45 (gap 5e-45) is not."""
    import verify.family.worstcase as W
    from verify.verdicts import Tightness
    from verify.worstcase import worst_case

    eps_bound = ProvenBound(F(1), "1", "stub: ε")
    monkeypatch.setattr(W, "proven_upper_bound", lambda shape, monotone=False: eps_bound)
    monkeypatch.setattr(W, "upper_bound_at", lambda shape, k, monotone=False: eps_bound)
    kw = dict(max_queries=2, starts=1)
    tiny = F(3, 4) * F(1, 10**45)
    at = worst_case(AboveThreshold.with_noise("exponential", 1, threshold_multiplier=3, query_multiplier=3 * (1 + tiny)), **kw)
    assert at.tightness == Tightness.ATTAINED
    # the attaining witness at moderate queries is the one reported (its loss equals the search's best to tol)
    assert (at.witness.queries, at.witness.neighbour_queries, at.witness.output) == ((0, 0), (1, -1), 2)
    off = worst_case(AboveThreshold.with_noise("exponential", 1, threshold_multiplier=3, query_multiplier=3 * (1 + 10 * tiny)), **kw)
    assert off.tightness != Tightness.ATTAINED
