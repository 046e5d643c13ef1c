"""Tests written for the survivors of the family targets' samples (fourth round: structured, delta, decision, densities).

Each test states the rule it guards; the expected values are derived here (closed forms, the exact oracle, an
independent re-run of a documented procedure), never by calling the function under test for the answer.  One class
per mutation target (`benchmarks/mutation_score.py`); `tests/test_family_mutation_kills.py`, `..._kills2.py` and
`..._kills3.py` hold the earlier rounds.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from test_family_mutation_kills2 import variant  # the same variant builder (absolute scales)

from verify.oracles.family import output_probability


# --- family-delta: the compass search of `search_pair` ---------------------------------------------------------------
def _compass(starts, f, s, reach, floor, margin, n_starts=4):
    """The delta_search module docstring's step 2, written out independently: from the ``n_starts`` best starts, each
    state (pattern, u, v, score, h) moves to the best of u ± h (patterns with B's), v ± h (patterns with A's) within
    |u|, |v| <= reach, if that raises its score by more than ``margin(score)``, else halves h; states with h < floor
    are done.  Returns (the batches of points scored, as sets; the best final state)."""
    states = [[p, u, v, f(p, u, v), s] for p, u, v in sorted(starts, key=lambda x: -f(*x))[:n_starts]]
    batches = []
    while any(st[4] >= floor for st in states):
        batch, best = set(), {}
        for j, (p, u, v, _, h) in enumerate(states):
            if h < floor:
                continue
            steps = ([(h, 0), (-h, 0)] if "B" in p.letters else []) + ([(0, h), (0, -h)] if "A" in p.letters else [])
            for du, dv in steps:
                if abs(u + du) <= reach and abs(v + dv) <= reach:
                    batch.add((p, u + du, v + dv))
                    val = f(p, u + du, v + dv)
                    if j not in best or val > best[j][0]:
                        best[j] = (val, u + du, v + dv)
        if not batch:
            break
        batches.append(batch)
        for j, st in enumerate(states):
            if st[4] < floor:
                continue
            if j in best and best[j][0] > st[3] + margin(st[3]):
                st[1], st[2], st[3] = best[j][1], best[j][2], best[j][0]
            else:
                st[4] = st[4] / 2
    return batches, max(states, key=lambda st: st[3])


class TestDeltaCompassKills4:
    """The compass search of `search_pair` (delta_search module docstring, step 2) on synthetic scores."""

    def _run(self, monkeypatch, score_of):
        """Run `search_pair` with the scorer replaced by ``score_of(pattern, u, v)`` (exact Fractions in), recording
        every batch it scores; Laplace Z and X of scale s = 30, cutoff 1, up to 3 queries, the default grid of 13."""
        from verify.family import delta_search as ds

        batches: list[list] = []

        class Synthetic:
            def __init__(self, shape, score):
                pass

            def __call__(self, points):
                assert len(batches) < 500, "the compass search does not end"  # the expected runs take about 40 steps
                batches.append(list(points))
                return np.array([score_of(p, u, v) for p, u, v in points])

        monkeypatch.setattr(ds, "_Scorer", Synthetic)
        shape = variant(z=("laplace", 30), x=("laplace", 30), cutoff=1)
        q, qn, val = ds.search_pair(shape, None, 3, 13)
        return shape, batches, q, qn, val

    @staticmethod
    def _pair(shape, p, u, v):
        """The documented pair: every B query at t + u, every A query at t + v; D' moves B's by sign·Δ, A's by -sign·Δ."""
        t, d = shape.threshold, shape.sensitivity
        q = tuple(t + (u if c == "B" else v) for c in p.letters)
        qn = tuple(x + (p.sign * d if c == "B" else -p.sign * d) for x, c in zip(q, p.letters))
        return q, qn

    def test_compass_walks_to_the_reach_and_halves_down_to_s_over_256(self, monkeypatch):
        """Rule (step 2, `REACH`, `STEP_HALVINGS`): with a score increasing in u and in v (u/s + v/(πs), plus a distinct
        offset per pattern so that no two points tie), the four best starts are the patterns with both letters at
        (8s, 8s); each compass step takes the best of u ± h, v ± h, so u climbs to the reach 16s by steps of s, then v,
        and the queries stay within 16 scales of t, the edge |u| = 16s included ("within"); then h halves down to
        s/2^8.  Every batch scored is the set the documented procedure scores, and the pair returned sits at
        (t + 16s, t + 16s): queries exactly 16 scales from the threshold."""
        s = Fraction(30)
        offsets: dict = {}

        def f(p, u, v):
            key = (p.letters, p.sign)
            if key not in offsets:  # a distinct offset per pattern, in the order first seen
                offsets[key] = 1e-3 * len(offsets)
            return float(u / s) + float(v / s) / math.pi + offsets[key]

        shape, batches, q, qn, val = self._run(monkeypatch, f)
        from verify.family.delta_search import _margin

        want, top = _compass(batches[0], f, s, 16 * s, s / 256, lambda x: float(_margin(np.array([x]))[0]))
        assert [set(b) for b in batches[1:]] == want
        assert (top[1], top[2]) == (16 * s, 16 * s) and "B" in top[0].letters and "A" in top[0].letters
        assert (q, qn) == self._pair(shape, top[0], 16 * s, 16 * s) and val == top[3]
        assert max(abs(x) for b in batches[1:] for _, u, v in b for x in (u, v)) == 16 * s

    def test_a_move_counts_only_when_it_beats_the_score_by_more_than_the_margin(self, monkeypatch):
        """Rule (step 2, `_margin`): a state moves only where the best neighbour raises its score by *more* than the
        float64 error of a score, m(S) = `_margin(S)`.  Scores: a peak at (0, 0) for each pattern with both letters
        (offsets 0.1·i, so the four best starts are four such patterns at (0, 0)), lower elsewhere, with three
        neighbours of the starts set by hand: one exactly S + m(S) (no move: not more than the margin), one S + 2m(S)
        (a move), one S - m(S)/2 (no move: lower).  The batches and the result are those of the documented procedure."""
        from verify.family.delta_search import _margin

        s = Fraction(30)
        margin = lambda x: float(_margin(np.array([x]))[0])  # noqa: E731
        both = ["BBA+", "BBA-", "BA+", "BA-"]  # the four starts, best first

        def base(p):
            key = p.letters + ("+" if p.sign > 0 else "-")
            return 0.1 * (len(both) - both.index(key)) if key in both else -10.0

        special = {("BBA+", s, 0): lambda b: b + margin(b), ("BBA-", s, 0): lambda b: b + 2 * margin(b),
                   ("BA+", -s, 0): lambda b: b - margin(b) / 2}

        def f(p, u, v):
            key = p.letters + ("+" if p.sign > 0 else "-")
            b = base(p)
            if (key, u, v) in special:
                return special[(key, u, v)](b)
            x, y = float(u / s), float(v / s)  # a strict maximum at (0, 0); no two neighbours of a point tie
            return b - x * x * (1 if x > 0 else 2) - y * y * (3 if y > 0 else 4)

        shape, batches, q, qn, val = self._run(monkeypatch, f)
        want, top = _compass(batches[0], f, s, 16 * s, s / 256, margin)
        assert [set(b) for b in batches[1:]] == want
        firsts = {(p.letters + ("+" if p.sign > 0 else "-"), u, v) for p, u, v in batches[1]}
        assert set(special) <= firsts  # the three hand-set neighbours are scored in the first compass step
        moved = {p.letters + ("+" if p.sign > 0 else "-"): (u, v) for p, u, v in batches[2] if (u, v) == (2 * s, 0)}
        assert set(moved) == {"BBA-"}  # only the move by 2m was taken: the next step starts from (s, 0)
        assert (q, qn) == self._pair(shape, top[0], top[1], top[2]) and val == top[3]


class TestDeltaWrapperKills4:
    """`verify.family.delta`'s re-export of the pair search."""

    def test_the_delta_modules_worst_delta_has_the_searchs_defaults_and_passes_them(self, monkeypatch):
        """Rule (`verify.family.delta.worst_delta`: "the largest exact δ(ε') the search finds
        (`verify.family.delta_search.worst_delta`)"): the same function under a second name, so the same defaults
        (max_queries, grid, digits), and every argument passed through unchanged (recorded from the search's side)."""
        import inspect

        from verify.family import delta, delta_search

        def defaults(fn):
            return {k: p.default for k, p in inspect.signature(fn).parameters.items()}

        assert defaults(delta.worst_delta) == defaults(delta_search.worst_delta)
        s = variant()
        want = defaults(delta_search.worst_delta) | {"mech": s, "epsilon_prime": Fraction(1, 10)}
        seen: list = []
        monkeypatch.setattr(delta_search, "worst_delta", lambda *a, **k: seen.append((a, k)) or "result")
        assert delta.worst_delta(s, Fraction(1, 10)) == "result"
        (args, kw), = seen
        assert dict(zip(("mech", "epsilon_prime"), args)) | kw == want


    def test_complete_outputs_up_to_the_limit_of_1024(self):
        """Rule (`complete_outputs`, MAX_OUTPUTS = 2^10: "at most this many outputs are summed exactly"): without a cutoff
        every one of the 2^k strings over {A, B} is a complete output; k = 10 gives exactly 1024 (allowed, each string
        once), k = 11 gives 2048 (refused with a one-line InputError naming the count)."""
        from itertools import product

        from verify.errors import InputError
        from verify.family.delta import complete_outputs

        s = variant(cutoff=None)
        ten = complete_outputs(s, 10)
        assert sorted(ten) == sorted("".join(w) for w in product("AB", repeat=10))
        with pytest.raises(InputError, match="2048 outputs"):
            complete_outputs(s, 11)


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
        layout whose float64 value comes within 1e-6 (relative) of the printed bound, and no other.  The seed's
        Mechanism Two at two queries (bound ε = 1/10, attained on BA; A and BB well below): the guarded layouts are
        recomputed from the best points the search hands over."""
        from verify.family import worstcase as wc

        real_all, real_guard = wc._guard_all, wc.guard
        handed: list = []
        checked: list[str] = []
        monkeypatch.setattr(wc, "_guard_all", lambda res, best_of, unit: handed.append((res, dict(best_of)))
                            or real_all(res, best_of, unit))
        monkeypatch.setattr(wc, "guard", lambda res, w, what: checked.append(what) or real_guard(res, w, what))
        wc.family_worst_case(variant(z=("exponential", 30), x=("exponential", 30)), max_queries=2, tightness_study=False)
        (res, best_of), = handed
        near = float(res.upper_bound.value) * (1 - 1e-6)
        want = {f"best {lay.string(res.shape)} point" for lay, p in best_of.items() if p.value > near}
        assert want and len(want) < len(best_of) and not res.rows
        assert checked[0] == "witness" and sorted(checked[1:]) == sorted(want)


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


# --- family-structured: the float64 objective ---------------------------------------------------------------------------
class TestStructuredKills4:
    """The query release's cap in the float64 objective."""

    def test_query_release_without_threshold_noise_allows_a_released_value_equal_to_t(self):
        """Rule (`_segment_points`' cap z <= r, the query release; `verify.release.query`): given Z = z, a released value
        t + r is possible exactly when t + r >= t + z, i.e. z <= r, a closed condition.  Without threshold noise z = 0:
        a released value equal to t (r = 0) has density p_X(r - v) > 0, below t (r < 0) density 0.  Laplace X, b = 2,
        the A query at t + 1: log p_X(-1) = -1/2 - log 4; the exact oracle agrees at r = 0 and is 0 at r = -1/10^9."""
        from verify.family.structured import family_log_probability, layouts

        s = variant(z=("none", 1), x=("laplace", 2), release="query")
        lay = next(lay for lay in layouts(s, 1) if lay.n_a == 1)
        got = family_log_probability(s, lay, [0.0, 0.0], [1.0, 1.0], [0.0, -1e-9])
        assert abs(got[0] - (-0.5 - math.log(4))) < 1e-12 and got[1] == -np.inf
        with mpmath.workdps(30):
            t = s.threshold
            at_t = output_probability(s, (t + 1,), "A", (t,), 30)
            assert abs(mpmath.log(at_t) - (-mpmath.mpf(1) / 2 - mpmath.log(4))) < mpmath.mpf(10) ** -25
            assert output_probability(s, (t + 1,), "A", (t - Fraction(1, 10**9),), 30) == 0

    def test_panel_rules_are_read_only(self):
        """Rule (`_panel_rule`: "nodes t in (0, 1) and log weights ... (read-only)"): the rules are cached and shared by
        every later call, so a caller cannot write into them; the nodes lie in (0, 1) and the weights sum to 1 (a rule
        on [0, 1]: Gauss-Legendre's weights sum to the interval's length)."""
        from verify.family import structured as S

        for sub in (4, 7):
            t, log_wq = S._panel_rule(sub)
            assert t.size == 16 * sub and 0 < t.min() and t.max() < 1
            assert abs(np.exp(log_wq).sum() - 1) < 1e-14
            for a in (t, log_wq):
                with pytest.raises(ValueError):
                    a[0] = 0.5

    def test_the_memo_keeps_the_values_of_the_last_memo_size_calls(self, monkeypatch):
        """Rule (`MEMO_SIZE`, `_segment_log`: "the values of the last `MEMO_SIZE` calls are kept"): with MEMO_SIZE = 3,
        after the calls a, b, c, a (a remembered: no new evaluation), d, the last three calls are c, a, d: those
        three are remembered, b is evaluated again.  Evaluations counted at `_segment_points` (the fresh release,
        whose r enters neither the integrand nor its kinks, so it is remembered)."""
        from verify.family import structured as S

        shape = variant(release="fresh", y=("laplace", 30))
        assert S._r_free(shape)
        monkeypatch.setattr(S, "MEMO_SIZE", 3)
        real = S._segment_points
        runs: list[float] = []

        def counted(shape, n_b, n_a, u, v, r, groups=None):
            runs.append(float(u[0]))
            return real(shape, n_b, n_a, u, v, r, groups)

        monkeypatch.setattr(S, "_segment_points", counted)
        S.clear_memo()
        one = np.zeros(1)

        def call(x):
            return S._segment_log(shape, 2, 1, np.array([x]), one, one)

        values = {x: call(x)[0] for x in (1.0, 2.0, 3.0)}
        assert call(1.0)[0] == values[1.0] and runs == [1.0, 2.0, 3.0]
        call(4.0)
        assert len(S._MEMO) == 3 and runs == [1.0, 2.0, 3.0, 4.0]
        for x in (3.0, 1.0, 4.0):  # remembered
            call(x)
        assert runs == [1.0, 2.0, 3.0, 4.0]
        assert call(2.0)[0] == values[2.0] and runs == [1.0, 2.0, 3.0, 4.0, 2.0]  # forgotten: evaluated again
        S.clear_memo()

    def test_logsumexp_of_rows_and_its_scratch_mode(self):
        """Rule (`_logsumexp`): log Σ exp(x) along an axis, -inf for a row of zeros (all -inf); ``overwrite=False`` (the
        default) leaves x as it was, ``overwrite=True`` may use it as scratch and gives the same values.  Expected values
        from math.fsum of the exponentials (rows shifted so that no exp underflows: 1000 + log(1 + e^-1 + e^-2), etc.)."""
        from verify.family.structured import _logsumexp

        x = np.array([[1000.0, 999.0, 998.0], [-np.inf, -np.inf, -np.inf], [0.0, -np.inf, math.log(3.0)]])
        want = [1000.0 + math.log(math.fsum([1.0, math.exp(-1.0), math.exp(-2.0)])), -np.inf, math.log(4.0)]
        keep = x.copy()
        got = _logsumexp(x, axis=1)
        assert np.array_equal(x, keep)  # not used as scratch by default
        assert got[1] == -np.inf and abs(got[0] - want[0]) < 1e-12 and abs(got[2] - want[2]) < 1e-15
        scratch = _logsumexp(x.copy(), axis=1, overwrite=True)
        assert scratch[1] == -np.inf and np.allclose(scratch[[0, 2]], got[[0, 2]], rtol=0, atol=1e-15)
        cols = _logsumexp(x.T.copy(), axis=0)  # along the other axis: the same sums
        assert cols[1] == -np.inf and np.allclose(cols[[0, 2]], got[[0, 2]], rtol=0, atol=1e-15)

    def test_a_probability_zero_on_every_node_is_log_zero(self):
        """Rule (`family_log_probability`: log Pr): exponential threshold noise (Z >= 0) and the query release capping it
        at the released value, z <= r: with r = -1 no z is possible, Pr = 0 exactly, log = -inf (the exact oracle: 0);
        at r = 1 (t = 0, the A query at v = 2, b_X = b_Z = 2) Pr > 0: the density p_X(r - v) times Pr[Z <= r] = 1 - e^{-1/2}."""
        from verify.family.structured import family_log_probability, layouts

        s = variant(z=("exponential", 2), x=("laplace", 2), release="query")
        lay = next(lay for lay in layouts(s, 1) if lay.n_a == 1)
        got = family_log_probability(s, lay, [0.0, 0.0], [2.0, 2.0], [-1.0, 1.0])
        assert got[0] == -np.inf
        want = math.log(math.exp(-0.5) / 4) + math.log(-math.expm1(-0.5))
        assert abs(got[1] - want) < 1e-9
        assert output_probability(s, (Fraction(2),), "A", (Fraction(-1),), 30) == 0


def _documented_panels(bz, bx, z_gauss, x_gauss, n_b, n_a, kinks, a_factor=True):
    """The float64 quadrature's panel count for one point, from the constants' documentation (`verify.family.structured`):
    beyond the outermost kink the integrand decays at least at the threshold's rate 1/b_Z plus, when both noises are
    Laplace/exponential, the query factors' n/b_X (B's on the left, A's with a factor on the right); TAIL_EFOLDS = 40
    e-folds are cut there, or GAUSSIAN_TAIL_SCALES = 12 σ_Z for Gaussian threshold noise; one panel per PANEL_EFOLDS = 10
    e-folds of the widest segment at the rate 1/b_Z + (n_B + n_A)/b_X (GAUSSIAN_RATE_FACTOR = 8 times finer when
    either noise is Gaussian), clipped to [MIN_PANELS, MAX_PANELS] = [4, 400]."""
    piece = not (z_gauss or x_gauss)
    left = 1 / bz + (n_b / bx if piece else 0)
    right = 1 / bz + (n_a / bx if piece and a_factor else 0)
    k = sorted(kinks)
    edges = [k[0] - (12 * bz if z_gauss else 40 / left)] + k + [k[-1] + (12 * bz if z_gauss else 40 / right)]
    widest = max(b - a for a, b in zip(edges, edges[1:]))
    rate = (1 / bz + (n_b + n_a) / bx) * (1 if piece else 8)
    return min(400, max(4, math.ceil(rate * widest / 10)))


class TestQuadratureKills4:
    """The float64 objective's panels follow their documented rule."""

    @pytest.mark.parametrize("z, x, release, n_b, n_a, point", [
        (("laplace", 2), ("laplace", 3), "none", 2, 1, (0.0, 0.0, 0.0)),  # the tails are the widest segments
        (("laplace", 2), ("laplace", 3), "none", 0, 1, (0.0, 5.0, 0.0)),
        (("laplace", 2), ("laplace", 3), "none", 3, 0, (-4.0, 0.0, 0.0)),
        (("laplace", 2), ("laplace", 3), "none", 1, 2, (200.0, -150.0, 0.0)),  # an inner segment is the widest
        (("exponential", 5), ("laplace", 1), "none", 4, 1, (1.0, -2.0, 0.0)),
        (("laplace", 2), ("laplace", 3), "gap", 1, 1, (30.0, 0.0, 100.0)),  # the gap's kink v - r is the outermost
        (("laplace", 2), ("laplace", 3), "query", 1, 1, (1.0, 2.0, 100.0)),  # the cap r; the A's carry no factor
        (("gaussian", 2), ("gaussian", 3), "none", 2, 1, (0.0, 1.0, 0.0)),
        (("gaussian", 2), ("laplace", 3), "none", 1, 1, (30.0, -1.0, 0.0)),
        (("laplace", 2), ("gaussian", 3), "none", 2, 2, (0.0, 1.0, 0.0)),
        (("laplace", 0.01), ("laplace", 3), "none", 1, 1, (0.0, 100.0, 0.0)),  # clipped to 400
        (("laplace", 200), ("laplace", 300), "none", 0, 1, (0.0, 0.0, 0.0)),  # few panels
    ])
    def test_panel_count_is_the_documented_one(self, monkeypatch, z, x, release, n_b, n_a, point):
        """Rule (`_segment_points`; the quadrature's constants): the number of Gauss-Legendre sub-panels per segment is
        `_documented_panels` for the point, recomputed here from the documentation (kinks 0, u, v; v - r for the gap;
        r for the query release's cap); the panel rule asked for is recorded."""
        from verify.family import structured as S

        asked: list[int] = []
        real = S._panel_rule
        monkeypatch.setattr(S, "_panel_rule", lambda sub: asked.append(sub) or real(sub))
        zs, xs = Fraction(z[1]).limit_denominator(100), Fraction(x[1]).limit_denominator(100)
        s = variant(z=(z[0], zs), x=(x[0], xs), release=release)
        u, v, r = point
        kinks = [0.0, u, v] + ([v - r] if release == "gap" else []) + ([r] if release == "query" else [])
        want = _documented_panels(float(zs), float(xs), z[0] == "gaussian", x[0] == "gaussian", n_b, n_a, kinks,
                                  a_factor=release != "query")
        S._segment_points(s, n_b, n_a, np.array([u]), np.array([v]), np.array([r]))
        assert asked == [want]

    def test_the_widest_point_of_a_group_sets_its_panels(self, monkeypatch):
        """Rule (`_segment_points`: "the number of sub-panels is set by the widest point of each group"): two groups of
        two points; each group's count is the larger of its points' documented counts (Laplace b_Z = 2, b_X = 3,
        layout BBA)."""
        from verify.family import structured as S

        asked: list[int] = []
        real = S._panel_rule
        monkeypatch.setattr(S, "_panel_rule", lambda sub: asked.append(sub) or real(sub))
        s = variant(z=("laplace", 2), x=("laplace", 3))
        u, v = np.array([0.0, 60.0, 0.0, 300.0]), np.array([0.0, -10.0, 1.0, 0.0])
        each = [_documented_panels(2.0, 3.0, False, False, 2, 1, [0.0, a, b]) for a, b in zip(u, v)]
        S._segment_points(s, 2, 1, u, v, np.zeros(4), groups=((0, 2), (2, 4)))
        assert sorted(set(asked)) == sorted({max(each[:2]), max(each[2:])}) and len(set(each)) > 2


class TestLayoutsKills4:
    """Each letter-count class once."""

    @pytest.mark.parametrize("cutoff", [None, 1, 2])
    def test_resampled_layouts_are_each_class_once(self, cutoff):
        """Rule (`layouts`: "every letter-count class of complete outputs ... (O(cK), not 2^K)"): each class once, so no
        two layouts share their outcome string; with a resampled threshold and K = 4 queries each string is a complete
        output: 4 letters, or ending at the c-th A."""
        from verify.family.structured import layouts

        s = variant(cutoff=cutoff, policy="resample")
        got = [lay.string(s) for lay in layouts(s, 4)]
        assert len(got) == len(set(got))
        assert all(len(x) == 4 or (x.count("A") == cutoff and x.endswith("A")) for x in got)


# --- release-densities: the exact oracle's release switch ---------------------------------------------------------------
class TestReleaseDensityKills4:
    """The gap release's support in the exact oracle."""

    def test_gap_density_is_the_density_of_x_minus_z_on_the_whole_half_line(self):
        """Rule (`_segment`, the gap release: ``nonnegative``): the released gap g = q + X - (t + Z) is >= 0 exactly when
        the query is above (q + X >= t + Z), so its density is that of X - Z at g - (q - t) for every g >= 0, the edge
        g = 0 and gaps below 1 included, and 0 for g < 0.  Laplace X and Z with b = 2, t = 0, q = 1: the density of
        W = X - Z is (1 + |w|/b)e^{-|w|/b}/(4b) (the convolution of two Laplace densities), at w = g - 1."""
        s = variant(z=("laplace", 2), x=("laplace", 2), release="gap")
        with mpmath.workdps(40):
            for g in (Fraction(0), Fraction(1, 2), Fraction(3, 2)):
                w = abs(mpmath.mpf(g.numerator) / g.denominator - 1) / 2
                want = (1 + w) * mpmath.exp(-w) / 8
                got = output_probability(s, (Fraction(1),), "A", (g,), 30)
                assert abs(got - want) < mpmath.mpf(10) ** -25 * want, g
            assert output_probability(s, (Fraction(1),), "A", (Fraction(-1, 2),), 30) == 0

    def test_without_any_noise_a_query_equal_to_the_threshold_is_above(self):
        """Rule (the seed's AboveThreshold: the i-th query is above when q_i + X_i >= t + Z, so a tie goes to A;
        `_cdf_below` and `_sf` of the absent noise: F(y) = Pr[0 < y], S(y) = Pr[0 >= y]): with no threshold and no query
        noise, a query at t is an A with probability 1 and a B with probability 0; a query 10^-9 below t is a B."""
        s = variant(z=("none", 1), x=("none", 1))
        t, tiny = s.threshold, Fraction(1, 10**9)
        assert output_probability(s, (t,), "A", (), 30) == 1 and output_probability(s, (t,), "B", (), 30) == 0
        assert output_probability(s, (t - tiny,), "B", (), 30) == 1 and output_probability(s, (t - tiny,), "A", (), 30) == 0
        assert output_probability(s, (t - tiny, t), "BA", (), 30) == 1

    def test_without_threshold_noise_every_factor_of_the_integrand_counts(self):
        """Rule (`_segment` without threshold noise: the probability is the integrand at z = 0, the product of every
        query's factor): Laplace X with b = 2, t = 0, queries (1, -1, 1) and outcome BBA at cutoff 1:
        F_X(-1) · F_X(1) · S_X(-1) = (e^{-1/2}/2) · (1 - e^{-1/2}/2) · (1 - e^{-1/2}/2) (textbook Laplace F and S),
        at 30 digits on the oracle's no-threshold-noise path."""
        s = variant(z=("none", 1), x=("laplace", 2))
        with mpmath.workdps(40):
            h = mpmath.exp(-mpmath.mpf(1) / 2) / 2
            want = h * (1 - h) * (1 - h)
            got = output_probability(s, (Fraction(1), Fraction(-1), Fraction(1)), "BBA", (), 30)
            assert abs(got - want) < mpmath.mpf(10) ** -25

    @pytest.mark.parametrize("law", ["laplace", "exponential"])
    def test_closed_form_gap_density_without_threshold_noise(self, law):
        """Rule (`verify.engine.piecewise` `point` for a density term, no threshold noise: z = 0): the released gap
        g = q + X - t has the density p_X(g - (q - t)); textbook densities with b = 2, t = 0, q = 1: Laplace
        e^{-|y|/2}/4, exponential e^{-y/2}/2 for y >= 0 (1/2 at y = 0) and 0 below; y = g - 1 for g in {0, 1/2, 1, 3/2, 3},
        on the closed-form path at 30 digits (and the exact oracle agrees)."""
        from verify.family.probability import evaluate

        s = variant(z=("none", 1), x=(law, 2), release="gap")
        with mpmath.workdps(40):
            for g in (Fraction(0), Fraction(1, 2), Fraction(1), Fraction(3, 2), Fraction(3)):
                y = mpmath.mpf(g.numerator) / g.denominator - 1
                if law == "laplace":
                    want = mpmath.exp(-abs(y) / 2) / 4
                else:
                    want = mpmath.exp(-y / 2) / 2 if y >= 0 else mpmath.mpf(0)
                got = evaluate(s, [1], "A", [g], method="closed")
                assert got.method == "closed form" and abs(got.value - want) < mpmath.mpf(10) ** -25, (law, g)
                assert abs(output_probability(s, (Fraction(1),), "A", (g,), 30) - want) < mpmath.mpf(10) ** -25, (law, g)
