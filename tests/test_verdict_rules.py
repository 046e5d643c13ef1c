"""The verdict: the decision rule, its exact comparison, the guard, the evidence, progress and `on_best` (`verify.family.worstcase`, `verify.worstcase`).

Re-homed from the mutation rounds' files (`test_family_mutation_kills.py`, `test_family_mutation_kills2.py`, `test_family_mutation_kills3.py`, `test_family_mutation_kills4_core.py`, `test_family_mutation_kills4_search.py`, `test_family_mutation_kills5.py`, `test_family_mutation_kills7_decision.py`, `test_mutation_kills.py`); each class or test keeps its name, so
docs/mutation.md and `benchmarks/mutation_score.py` still find it.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest
from family_variants import _p, _w, mp, variant

from verify.errors import InputError
from verify.exact import exceeds, mpf_fraction
from verify.family import worstcase as wc
from verify.family.bounds import why_no_bound
from verify.family.presets import preset
from verify.family.structured import Layout
from verify.family.witness import BestSoFar, FamilyWitness
from verify.family.worstcase import family_worst_case
from verify.mechanism import AboveThreshold
from verify.verdicts import MechanismVerdict


def _witness(above: mpmath.mpf, digits: int = 50) -> FamilyWitness:
    """A witness whose confirmed loss is 1/10 + ``above``: Pr = e^loss·Pr' with Pr' = 1/4 (at 40 more digits)."""
    with mpmath.workdps(digits + 40):
        pn = mpmath.mpf(1) / 4
        return FamilyWitness((Fraction(0),), (Fraction(1),), "A", (), pn * mpmath.exp(mpmath.mpf(1) / 10 + above), pn, digits)


# --- the decision and the seed's view -----------------------------------------------------------------------------------
class TestDecisionKills:
    """The seed's worst case as a view of the family search, and the decision's inputs."""

    def test_seed_rows_map_outcome_strings_to_the_seeds_outputs(self):
        """Rule: B^{k-1}A is the seed's output s_k and B^k is ⊤^k; each row k has both, with k queries."""
        from verify.mechanism import NO_HALT, AboveThreshold
        from verify.worstcase import worst_case

        r = worst_case(AboveThreshold.mechanism_one(Fraction(1, 10)), max_queries=3, push_study=False)
        assert [row.k for row in r.by_k] == [1, 2, 3]
        for row in r.by_k:
            halt, top = row.halt, row.no_halt
            assert halt.output == row.k and len(halt.queries) == row.k, halt
            assert top.output == NO_HALT and len(top.queries) == row.k, top
            assert halt.loss <= mp(Fraction(1, 10)) and top.loss <= mp(Fraction(1, 10))
        assert str(r.verdict) == "private"

    def test_seed_view_refuses_a_seed_and_digits_out_of_range(self):
        """Rule: the structured search is deterministic (seed 0 only); digits from 15 to 50, inclusive."""
        from verify.mechanism import AboveThreshold
        from verify.worstcase import worst_case

        m = AboveThreshold.mechanism_one(Fraction(1, 10))
        for bad in ({"seed": 1}, {"digits": 14}, {"digits": 51}, {"seed": True}):
            with pytest.raises(InputError):
                worst_case(m, max_queries=1, push_study=False, **bad)
        assert worst_case(m, max_queries=1, push_study=False, digits=15).by_k[0].k == 1

    def test_max_queries_and_starts_are_validated_at_their_edges(self):
        """Rule: max_queries from 1 to 64, starts >= 1 (booleans refused)."""
        s = variant()
        for kw in ({"max_queries": 0}, {"max_queries": 65}, {"max_queries": True}, {"starts": 0}, {"starts": True}):
            with pytest.raises(InputError):
                family_worst_case(s, tightness_study=False, **kw)
        assert family_worst_case(s, max_queries=1, starts=1, tightness_study=False).max_queries == 1


class TestDecisionKills2:
    """The search's restriction for Gaussian noise."""

    # slow: the one k = 1 search with mixed Laplace/Gaussian noise takes about 25 s (its 20-digit Gaussian
    # confirmations); the only test of this rule, so the quick subset does not check it
    @pytest.mark.slow
    def test_mixed_laplace_gaussian_noise_is_searched_at_one_query(self):
        """Rule (`family_worst_case`): when either noise is Gaussian (here Laplace threshold noise, Gaussian query
        noise), with a shared threshold and nothing released, the search stops at k = 1 and says so in its notes:
        pure DP already fails at one query.  The witness therefore has exactly one query."""
        s = variant(z=("laplace", 30), x=("gaussian", 30))
        r = family_worst_case(s, max_queries=2, tightness_study=False)
        assert len(r.witness.queries) == 1
        assert any(n.startswith("Gaussian noise: searched k = 1, not up to 2") for n in r.notes), r.notes


class TestProgressKills:
    """The search's progress callback."""

    @pytest.mark.parametrize("max_queries", [1, 3])
    def test_progress_reports_every_k_once_in_order(self, max_queries):
        """Rule (`family_worst_case`'s ``progress(k)``): called once for every k = 1..max_queries, in increasing order
        (the layouts with k queries are searched in that order), whatever the number of layouts per k."""
        seen = []
        family_worst_case(variant(cutoff=2), max_queries=max_queries, tightness_study=False, progress=seen.append)
        assert seen == list(range(1, max_queries + 1))


class TestDecisionKills3:
    """The Gaussian restriction's note."""

    def test_gaussian_search_at_one_query_has_no_restriction_note(self):
        """Rule (`family_worst_case`): Gaussian noise with a shared threshold is searched at k = 1 only, and the note
        saying so ("searched k = 1, not up to n") is written only when more than one query was asked for: at
        max_queries = 1 nothing was restricted, so no note; at max_queries = 3 the note names 3."""
        s = variant(z=("gaussian", 30), x=("gaussian", 30))
        one = family_worst_case(s, max_queries=1, tightness_study=False)
        assert not any("not up to" in n for n in one.notes), one.notes
        three = family_worst_case(s, max_queries=3, tightness_study=False)
        assert any("searched k = 1, not up to 3" in n for n in three.notes), three.notes


# --- family-decision: `on_best` ----------------------------------------------------------------------------------------
class TestDecisionKills4:
    """The partial results shown to a caller interrupted by Ctrl-C."""

    def test_on_best_is_called_only_when_the_best_improves_then_with_the_witness(self):
        """Rule (`family_worst_case`, ``on_best``): called whenever the search's best pair *improves* (strictly), and
        once more with the confirmed witness.  Lyu Alg. 5 (no query noise, shared threshold) at two queries: the grid
        at k = 2 finds an infinite loss (AB impossible on one side), the search stops there and the refinement keeps
        that point (an infinite value is not refined): no improvement, so no "refined" call; the float64 values of
        the unconfirmed calls increase strictly and end at +inf, and the last call is the confirmed witness."""
        from verify.family.presets import preset
        from verify.family.worstcase import family_worst_case

        seen: list = []
        r = family_worst_case(preset("lyu-5"), max_queries=2, tightness_study=False, on_best=seen.append)
        assert any(n.startswith("infinite loss at") for n in r.notes), r.notes
        unconfirmed = [b for b in seen if not b.confirmed]
        assert seen[-1].confirmed and len(unconfirmed) == len(seen) - 1
        assert all(a.loss < b.loss for a, b in zip(unconfirmed, unconfirmed[1:])), [(b.loss, b.stage) for b in seen]
        assert unconfirmed[-1].loss == math.inf and all(b.stage.startswith("grid at k = ") for b in unconfirmed)


    def test_push_table_only_when_asked(self):
        """Rule (`family_worst_case(..., push_table=False)`): the push table is tabulated only when asked for; by default
        a private variant's result has no push rows and no push family.  Asked for, the same variant (the seed's
        Mechanism Two at one query, private by its bound) gets the documented eight rows L = unit·2^j, j = 0..7."""
        from verify.family.worstcase import family_worst_case
        from verify.verdicts import MechanismVerdict

        s = variant(z=("exponential", 30), x=("exponential", 30))
        plain = family_worst_case(s, max_queries=1)
        assert plain.verdict is MechanismVerdict.PRIVATE and plain.push == [] and plain.push_family is None
        asked = family_worst_case(s, max_queries=1, push_table=True)
        assert [L for _, L, _ in asked.push] == [Fraction(30) * 2**j for j in range(8)] and asked.push_family

    def test_progress_k_is_reported_once_every_layout_of_k_queries_is_searched(self, monkeypatch):
        """Rule (`family_worst_case`'s ``progress(k)``): called when the layouts with k queries are searched, i.e. after
        the grid of every layout with k queries and before any layout with more (the caller shows progress as it
        happens).  The grid calls are recorded (cutoff 1, up to 3 queries: layouts A; BA; BBB, BBA): at progress(1) the
        searched layouts have k = 1 only, at progress(2) k <= 2, at progress(3) all of them."""
        from verify.family import worstcase as wc

        real = wc._grid_layout
        searched: list[int] = []

        def grid(shape, lay, *a, **k):
            searched.append(lay.k)
            return real(shape, lay, *a, **k)

        monkeypatch.setattr(wc, "_grid_layout", grid)
        at: dict[int, list[int]] = {}
        wc.family_worst_case(variant(cutoff=1), max_queries=3, tightness_study=False,
                             progress=lambda k: at.setdefault(k, sorted(searched)))
        assert sorted(searched) == [1, 2, 3, 3]
        assert at == {1: [1], 2: [1, 2], 3: [1, 2, 3, 3]}

    def test_a_witness_is_reconfirmed_at_fifty_digits_only_when_it_exceeds_epsilon(self):
        """Rule (`family_worst_case`'s ``digits``; `_decide`): the witnesses are confirmed at the digits asked, and a
        witness whose loss exceeds ε (+ tol) is re-confirmed at 50 before `not_private` is said.  At digits = 20: the
        seed's Mechanism Two (loss below ε = 1/10) keeps its 20-digit witness; Laplace b = 30 with ε = 1/100 (one
        query: loss up to 1/30 > ε) is re-confirmed, its witness at 50 digits."""
        from verify.family.worstcase import family_worst_case
        from verify.verdicts import MechanismVerdict

        private = family_worst_case(variant(z=("exponential", 30), x=("exponential", 30)), max_queries=1, digits=20,
                                    tightness_study=False)
        assert private.verdict is MechanismVerdict.PRIVATE and private.loss <= mpmath.mpf(1) / 10
        assert private.witness.digits == 20
        leaky = family_worst_case(variant(eps=Fraction(1, 100)), max_queries=1, digits=20, tightness_study=False)
        assert leaky.verdict is MechanismVerdict.NOT_PRIVATE and leaky.witness.digits == 50


    @pytest.mark.parametrize("mech", [object(), "lyu-1", 3])
    def test_a_non_variant_is_refused_in_one_line(self, mech):
        """Rule (`family_worst_case`: ``mech`` is a seed `AboveThreshold` or a `SparseVector`; `as_variant`): anything
        else is refused with the one-line `InputError` naming it ("is not an SVT variant"), not a traceback from deeper
        in (only a variant can be asked whether its noise is discrete)."""
        from verify.errors import InputError
        from verify.family.worstcase import family_worst_case

        with pytest.raises(InputError, match="is not an SVT variant"):
            family_worst_case(mech, max_queries=1)


    def test_the_defaults_of_both_entry_points(self, monkeypatch):
        """Rule (the signatures): `family_worst_case` searches up to 10 queries from 4 refined starts, not monotone, with
        a tightness study and no rows or push table by default; the seed's `worst_case` asks it for 10 queries, 4 starts,
        rows (its per-k table) and the push study, at `DEFAULT_DIGITS`.  Recorded where each passes them on (the first
        `layouts` call; the `family_worst_case` call), the run then stopped."""
        import inspect

        from verify.family import worstcase as wc
        from verify.mechanism import AboveThreshold
        from verify.worstcase import decision
        from verify.worstcase.results import DEFAULT_DIGITS

        class Stop(Exception):
            pass

        def stop(*a, **k):
            seen.append((a, k))
            raise Stop

        seen: list = []
        want = {"max_queries": 10, "monotone": False, "starts": 4, "tightness_study": True, "digits": None, "rows": False,
                "push_table": False, "progress": None, "on_best": None}
        got = {k: p.default for k, p in inspect.signature(wc.family_worst_case).parameters.items() if k != "mech"}
        assert got == want
        monkeypatch.setattr(wc, "layouts", stop)
        with pytest.raises(Stop):
            wc.family_worst_case(variant())
        assert seen[-1][0][1:] == (10,) and seen[-1][1] == {"every_k": False}
        monkeypatch.setattr(decision, "family_worst_case", stop)
        with pytest.raises(Stop):
            decision.worst_case(AboveThreshold.mechanism_one(Fraction(1, 10)))
        (mech,), kw = seen[-1]
        assert kw == {"max_queries": 10, "starts": 4, "tightness_study": True, "digits": DEFAULT_DIGITS, "rows": True,
                      "push_table": True, "progress": None, "on_best": None}

    def test_seconds_is_the_time_the_search_took(self):
        """Rule (`FamilyWorstCase.seconds`): the wall time of the call, between 0 and the time measured around it."""
        import time

        from verify.family.worstcase import family_worst_case

        t0 = time.perf_counter()
        r = family_worst_case(variant(), max_queries=1, tightness_study=False)
        assert 0 < r.seconds <= time.perf_counter() - t0

    def test_the_guard_checks_every_layout_within_a_millionth_of_the_bound(self, monkeypatch):
        """Rule (`_guard_all`): besides the witness and the rows, the guard confirms and checks the best point of every
        layout whose float64 value comes within 1e-6 (relative) of the printed bound, and no other; a point whose
        exact pair is the witness's (guarded first, at the same digits) is not confirmed twice.  The seed's
        Mechanism Two at two queries (bound ε = 1/10, attained on BA; A and BB well below): the guarded layouts are
        recomputed from the best points the search hands over."""
        from verify.family import worstcase as wc

        real_all, real_guard = wc._guard_all, wc.guard
        handed: list = []
        checked: list[str] = []
        monkeypatch.setattr(wc, "_guard_all", lambda res, best_of, unit: handed.append((res, dict(best_of), unit))
                            or real_all(res, best_of, unit))
        monkeypatch.setattr(wc, "guard", lambda res, w, what: checked.append(what) or real_guard(res, w, what))
        wc.family_worst_case(variant(z=("exponential", 30), x=("exponential", 30)), max_queries=2, tightness_study=False)
        (res, best_of, unit), = handed
        near = float(res.upper_bound.value) * (1 - 1e-6)
        w = res.witness
        near_pts = {f"best {lay.string(res.shape)} point": p.pair(res.shape, unit) for lay, p in best_of.items() if p.value > near}
        as_witness = {what for what, pair in near_pts.items() if pair == (w.queries, w.neighbour, w.outcome, w.released)}
        assert near_pts and len(near_pts) < len(best_of) and not res.rows
        assert checked[0] == "witness" and sorted(checked[1:]) == sorted(set(near_pts) - as_witness)


    def test_unbounded_evidence_names_the_side_whose_probability_is_zero(self):
        """Rule (`_decide`: an infinite confirmed loss is unbounded, with the evidence "probability exactly 0 on one side
        (D)" or "(D')"): the side named is the one whose probability is exactly 0.  Without any noise the output is
        certain: the witness's output has probability 1 on D and 0 on D', so the evidence names D'."""
        from verify.family.worstcase import family_worst_case

        r = family_worst_case(variant(z=("none", 1), x=("none", 1)), max_queries=1, tightness_study=False)
        w = r.witness
        assert r.unbounded and mpmath.isinf(w.loss) and w.probability == 1 and w.neighbour_probability == 0
        assert r.unbounded_evidence.startswith("probability exactly 0 on one side (D'):")


    def test_seed_rows_keep_a_k_whose_one_layout_was_reached(self):
        """Rule (`verify.worstcase.decision.worst_case`: a row for every k the search reached; a layout it did not reach
        is the zero witness "no loss found (0, at no queries)"; the rows end where neither layout of k was reached).
        No threshold noise, exponential query noise (scale 30) and Δ = 30: the first layout searched, ⊤ (one B), has an
        infinite loss at q = t - 30 (Pr = F_X(30) = 1 - e^{-1} on D, F_X(0) = 0 on D'), so the search stops there:
        one row, k = 1, whose ⊤ witness is infinite and whose s_1 witness is the zero witness."""
        from verify.worstcase import worst_case

        s = variant(z=("none", 1), x=("exponential", 30), delta=Fraction(30))
        r = worst_case(s, max_queries=2, push_study=False)
        assert [row.k for row in r.by_k] == [1]
        row = r.by_k[0]
        assert mpmath.isinf(row.no_halt.log_ratio) and row.no_halt.neighbour_probability == 0
        with mpmath.workdps(40):
            assert abs(row.no_halt.probability - (1 - mpmath.exp(-1))) < mpmath.mpf(10) ** -25
        assert row.halt.queries == () and row.halt.log_ratio == 0 and row.halt.probability == 0


class TestOnBestKills4:
    """`family_worst_case`'s ``on_best``: only a strict improvement is reported."""

    def test_on_best_is_called_only_when_the_best_pair_strictly_improves(self, monkeypatch):
        """Rule (`family_worst_case`: ``on_best`` is "called whenever the search's best pair improves, and with the
        confirmed witness").  With the refinement replaced by the identity, the refined best equals the grid's best:
        no call for the refinement; the search's calls have strictly increasing losses, then one confirmed call."""
        monkeypatch.setattr(wc, "_refine", lambda shape, p, scale, moves=False, budget=80: p)
        calls: list[BestSoFar] = []
        wc.family_worst_case(variant(), max_queries=2, tightness_study=False, on_best=calls.append)
        assert calls and calls[-1].confirmed and not any(c.confirmed for c in calls[:-1])
        assert [c.stage for c in calls[:-1]] and all(c.stage.startswith("grid") for c in calls[:-1]), [c.stage for c in calls]
        assert all(a.loss < b.loss for a, b in zip(calls[:-1], calls[1:-1]))


class TestVerdictRuleKills5:
    """`verdict_rule`: not_private iff the confirmed loss exceeds ε + 10^-(digits-5)·max(1, ε), strictly, decided
    exactly (rational arithmetic on the confirmed mpf), whatever precision the caller works at."""

    SHAPE = preset("seed-m1", epsilon=Fraction(1, 10))

    def test_equal_to_epsilon_plus_tol_is_not_a_violation(self, monkeypatch):
        """Decided exactly: a loss equal to ε + tol as rationals is not a violation; with half that tol it is."""
        w = _witness(mpmath.mpf(10) ** -45)
        tol = mpf_fraction(w.loss) - Fraction(1, 10)  # the confirmed loss is a binary rational: ε + tol == loss exactly
        monkeypatch.setattr(wc, "_tol", lambda shape, digits: tol)
        assert wc.verdict_rule(self.SHAPE, w, None) is not MechanismVerdict.NOT_PRIVATE
        monkeypatch.setattr(wc, "_tol", lambda shape, digits: tol / 2)
        assert wc.verdict_rule(self.SHAPE, w, None) is MechanismVerdict.NOT_PRIVATE
        monkeypatch.setattr(wc, "_tol", lambda shape, digits: tol + Fraction(1, 10**80))
        assert wc.verdict_rule(self.SHAPE, w, None) is not MechanismVerdict.NOT_PRIVATE

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


class TestGuardNearKills7:
    """`_guard_all`: besides the witnesses it carries, the best point of every layout whose float64 value is strictly
    above bound·(1 - 1e-6) (and that is not already a confirmed row) is confirmed and guarded; no other."""

    def test_only_points_strictly_within_a_millionth_of_the_bound(self, monkeypatch):
        res = wc.family_worst_case(preset("seed-m1", epsilon=Fraction(1, 2)), max_queries=1, tightness_study=False)
        b = float(res.upper_bound.value)
        near = b * (1 - 1e-6)
        inside, at, outside = Layout(0, 1), Layout(1, 1), Layout(2, 1)
        best_of = {inside: _p(math.nextafter(near, math.inf), inside), at: _p(near, at), outside: _p(b * (1 - 1.5e-6), outside)}
        guarded: list[str] = []
        monkeypatch.setattr(wc, "guard", lambda r, w, what: guarded.append(what))
        monkeypatch.setattr(wc, "_witness", lambda shape, p, unit, digits=None: res.witness)
        res.rows = {}
        wc._guard_all(res, best_of, Fraction(1))
        assert guarded == ["witness", f"best {inside.string(res.shape)} point"]


class TestDecideKills7:
    """`_decide`: the verdict's evidence fields."""

    SHAPE = preset("seed-m1", epsilon=Fraction(1, 10))

    def test_a_fifty_digit_violation_is_not_confirmed_again(self, monkeypatch):
        calls = []
        monkeypatch.setattr(wc, "confirm", lambda *a, **k: calls.append(a) or _w(1))
        res = wc._decide(self.SHAPE, False, 1, _w(1), {1: 1.0}, [])
        assert res.verdict is MechanismVerdict.NOT_PRIVATE and calls == []

    def test_the_reason_for_no_bound_is_given_exactly_when_there_is_no_bound(self):
        res = wc._decide(self.SHAPE, False, 1, _w(Fraction(1, 20)), {1: 0.05}, [])
        assert res.upper_bound is not None and res.no_bound_reason is None
        gauss = preset("gaussian-svt", epsilon=Fraction(1, 10))  # Gaussian noise: no pure-DP bound
        res = wc._decide(gauss, False, 1, _w(Fraction(1, 20)), {1: 0.05}, [])
        assert res.upper_bound is None and res.no_bound_reason == why_no_bound(gauss)
        assert isinstance(res.no_bound_reason, str) and res.no_bound_reason


class TestExactRuleKills7:
    """`verify.exact.exceeds` / `mpf_fraction`: the verdict rule and the guard compare exactly, with no working
    precision: a confirmed mpf is the binary rational it stores."""

    def test_exact_and_strict(self):
        with mpmath.workdps(200):
            x = mpmath.mpf(1) / 3  # 1/3 rounded to 200 digits: not 1/3, and not its 53-bit rounding either
        d = mpf_fraction(x) - Fraction(1, 3)
        assert d != 0 and abs(d) < Fraction(1, 10**199)  # read at the default 53 bits: still all 200 digits
        assert not exceeds(x, mpf_fraction(x)) and exceeds(x, mpf_fraction(x) - Fraction(1, 10**300))
        assert exceeds(x, Fraction(1, 3) - Fraction(1, 10**150)) and exceeds(x, Fraction(1, 3)) is (d > 0)
        assert mpf_fraction(-mpmath.mpf(3) / 4) == Fraction(-3, 4) and mpf_fraction(mpmath.mpf(2) ** 70) == 2**70

    def test_infinities_and_nan(self):
        assert exceeds(mpmath.inf, Fraction(10**100)) and not exceeds(-mpmath.inf, Fraction(-(10**100)))
        with pytest.raises(ValueError):
            exceeds(mpmath.nan, Fraction(0))
        with pytest.raises(ValueError):
            mpf_fraction(mpmath.inf)


# --- worst case: inputs and the run time reported ----------------------------------------------------
def test_worst_case_reports_its_run_time_and_refuses_a_bad_seed():
    """`WorstCaseResult.seconds` is the search's own run time: >= 0 and at most the caller's wall time, on
    both return paths (no tightness study; a study, here `exceeded` for the unbounded no-threshold-noise
    variant); a negative, boolean or non-integer seed is refused."""
    import time

    from verify.errors import InputError
    from verify.worstcase import worst_case

    kw = dict(starts=1)
    for mech, extra in ((AboveThreshold.mechanism_one(1), dict(max_queries=1, push_study=False)),
                        (AboveThreshold.with_noise("laplace", 1, threshold_multiplier=0), dict(max_queries=3))):
        t0 = time.perf_counter()
        r = worst_case(mech, **kw, **extra)
        wall = time.perf_counter() - t0
        assert 0 <= r.seconds <= wall, (r.seconds, wall)
    assert r.unbounded and r.tightness is not None
    for bad in (-1, True, 1.5, 1):  # the search is deterministic: only seed 0
        with pytest.raises(InputError):
            worst_case(AboveThreshold.mechanism_one(1), max_queries=1, seed=bad)


def test_an_infinite_loss_is_unbounded_with_a_zero_side():
    """Exponential threshold noise without query noise: q_1 in [t, t + Δ) with the neighbour below t makes s_1
    impossible under D' only (loss +inf): not_private and unbounded, the witness's probability exactly 0 on
    one side (decided structurally by the mpmath path)."""
    from verify.verdicts import MechanismVerdict
    from verify.worstcase import worst_case

    mech = AboveThreshold.with_noise("exponential", 1, 1, 0, 3, 0, query_family="none")
    r = worst_case(mech, max_queries=5, starts=1, push_study=False)
    assert mpmath.isinf(r.loss) and 0 in (r.witness.probability, r.witness.neighbour_probability)
    assert r.verdict == MechanismVerdict.NOT_PRIVATE and r.unbounded and "exactly 0" in r.unbounded_evidence
