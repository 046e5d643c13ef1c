"""Tests written for the survivors of the family targets' seeded mutation samples (second round).

Each test states the rule it guards; the expected values are derived here (formulas, enumeration, the exact
oracle `output_probability`), never by calling the function under test for the answer.  The classes group them
by mutation target (`benchmarks/mutation_score.py`); `tests/test_family_mutation_kills.py` holds the first round.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from verify.family.bounds import Growth, growth, growth_witness
from verify.family.worstcase import family_worst_case
from verify.mechanism import SparseVector
from verify.noise import NoiseSpec
from verify.oracles.family import output_probability
from verify.verdicts import MechanismVerdict


def variant(eps=Fraction(1, 10), delta=Fraction(1), t=Fraction(0), z=("laplace", 30), x=("laplace", 30), cutoff=1,
            policy="shared", release="none", y=None) -> SparseVector:
    """A variant with absolute noise scales (``z``, ``x``, ``y``: (family, scale))."""
    return SparseVector(Fraction(eps), Fraction(delta), Fraction(t), NoiseSpec(z[0], absolute=Fraction(z[1])),
                        NoiseSpec(x[0], absolute=Fraction(x[1])), cutoff=cutoff, threshold_policy=policy, release=release,
                        release_spec=None if y is None else NoiseSpec(y[0], absolute=Fraction(y[1])))


class TestBoundKills2:
    """The growth families' instantiated members."""

    @pytest.mark.parametrize("loss", [Fraction(1, 10), Fraction(7, 20)])
    def test_growth_witness_of_no_threshold_noise_exceeds_the_loss_by_the_oracle(self, loss):
        """Rule (`growth_witness`, no threshold noise, Laplace X with scale b): m = floor(loss·b/Δ) + 1 belows at t and an
        above at t, neighbour t + Δ on the belows; each below's factor is F(0)/F(-Δ) = e^{Δ/b}, the above's cancels, so
        the member's exact loss is mΔ/b > loss.  Checked with the exact oracle at 30 digits, at Δ = 2 and t = 1/3."""
        d, b, t = Fraction(2), Fraction(30), Fraction(1, 3)
        s = variant(eps=Fraction(1, 10), delta=d, t=t, z=("none", 1), x=("laplace", b))
        g = growth(s)
        member = growth_witness(s, g, loss)
        assert member is not None
        q, qn, outcome, released = member
        m = math.floor(loss * b / d) + 1
        assert outcome == "B" * m + "A" and q == (t,) * (m + 1) and qn == (t + d,) * m + (t,) and released == ()
        with mpmath.workdps(30):
            lr = mpmath.log(output_probability(s, q, outcome) / output_probability(s, qn, outcome))
            assert abs(lr - m * mpmath.mpf(d.numerator) / mpmath.mpf(b.numerator)) < mpmath.mpf(10) ** -20
            assert lr > mpmath.mpf(loss.numerator) / loss.denominator

    def test_growth_witness_is_built_for_the_m_family_only(self):
        """Rule: the growth families of parameter L (Gaussian tail) have no instantiated member (None, whatever their
        slope; the m, i and k families have one: tests/test_verdict_every_variant.py)."""
        for s in (variant(z=("gaussian", 30), x=("gaussian", 30)),):
            g = growth(s)
            assert g is not None and g.parameter != "m" and g.slope > 0
            assert growth_witness(s, g, Fraction(1, 10)) is None
        s = variant(z=("none", 1), x=("laplace", 30))
        g = growth(s)
        assert growth_witness(s, Growth(g.statement, g.parameter, Fraction(0)), Fraction(1, 10)) is None
        assert growth_witness(s, Growth(g.statement, "L", g.slope), Fraction(1, 10)) is None


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


def _expected_patterns(lay, monotone: bool, moves: bool) -> set[tuple[int, int]]:
    """The shift directions (σ_B, σ_A) of `_patterns`' docstring: B up and A down; monotone neighbours move one way
    ((+1, 0), (+1, +1), (0, -1)); a moving fresh release also tries the A query up; a letter that does not occur
    has no shift (the remaining distinct non-zero directions, or the default one)."""
    pats = {(1, 0), (1, 1), (0, -1)} if monotone else ({(1, -1), (1, 1)} if moves else {(1, -1)})
    if lay.n_b == 0:
        pats = {(0, a) for _, a in pats if a != 0} or {(0, -1)}
    if lay.n_a == 0:
        pats = {(b, 0) for b, _ in pats if b != 0} or {(1, 0)}
    return pats


class TestSearchKills2:
    """The search's first phase: the documented grid, its shifts, and the released value's placement."""

    @pytest.mark.parametrize("release,y", [("none", None), ("gap", None), ("query", None), ("fresh", ("laplace", 20))])
    def test_grid_is_the_documented_product_and_its_shifts(self, monkeypatch, release, y):
        """Rule (phase 1, `_grid_layout`): u (if the layout has B's) and v (if it has A's) run over ±GRID_STEPS·scale
        (11 values each; scale = the larger noise scale or Δ), r over GAP_STEPS·scale for a gap release with A's,
        over v + RELEASE_OFFSETS·Δ when a fresh release's value moves, else r = v for a value released at its query
        and r = 0 without release; D's side is evaluated once, D′'s once per shift pattern (σ_B, σ_A), at
        u + σ_BΔ, v + σ_AΔ.  Checked by recording every evaluation, for every layout up to k = 2, Δ = 2."""
        from verify.family import worstcase as wc
        from verify.family.structured import layouts

        d = Fraction(2)
        s = variant(delta=d, z=("laplace", 3), x=("laplace", 5), cutoff=2, release=release, y=y)
        scale = 5.0  # max(3, 5, Δ = 2)
        calls = []
        real = wc.family_log_probability

        def spy(shape, lay, u, v, r):
            calls.append((np.array(u, float), np.array(v, float), np.array(r, float)))
            return real(shape, lay, u, v, r)

        monkeypatch.setattr(wc, "family_log_probability", spy)
        steps = sorted({m * g * scale for g in (0.0, 1.0, 2.0, 4.0, 8.0, 16.0) for m in (-1, 1)})
        assert len(steps) == 11
        for lay in layouts(s, 2, every_k=True):
            for monotone in (False, True):
                for moves in ((False, True) if release == "fresh" else (False,)):
                    calls.clear()
                    pts = wc._grid_layout(s, lay, monotone, scale, moves=moves)
                    pats = _expected_patterns(lay, monotone, moves)
                    assert len(calls) == 1 + len(pats) and len(pts) == len(pats)
                    u, v, r = calls[0]
                    n_u = 11 if lay.n_b else 1
                    n_v = 11 if lay.n_a else 1
                    if release == "gap" and lay.n_a:
                        r_set = {g * scale for g in (0.0, 0.25, 0.5, 1.0, 2.0, 4.0)}
                    elif moves and lay.n_a:
                        r_set = {o * float(d) for o in (-1.0, 0.0, 1.0)}
                    else:
                        r_set = {0.0}
                    assert u.size == n_u * n_v * len(r_set), (release, lay, monotone, moves, u.size)
                    assert set(u) == (set(steps) if lay.n_b else {0.0})
                    assert set(v) == (set(steps) if lay.n_a else {0.0})
                    held = r - v if release in ("query", "fresh") else r
                    assert set(np.round(held, 12)) == r_set, (release, lay, moves, set(held))
                    got = set()
                    for (u2, v2, r2), p in zip(calls[1:], pts):
                        sb, sa = (u2 - u)[0] / float(d), (v2 - v)[0] / float(d)
                        assert np.all(u2 - u == sb * float(d)) and np.all(v2 - v == sa * float(d)) and np.all(r2 == r)
                        assert (p.s_b, p.s_a) == (sb * float(d), sa * float(d))
                        got.add((round(sb), round(sa)))
                    assert got == pats, (lay, monotone, moves, got)


class TestDeltaKills2:
    """δ(ε')'s largest term and the pair search's refinement."""

    @pytest.mark.parametrize("sz,sx,ep", [(3, 4, Fraction(1, 2)), (2, 2, Fraction(1, 3))])
    def test_worst_delta_reaches_the_supremum_over_one_query_pairs(self, sz, sx, ep):
        """Rule (`worst_delta`: grid, then the compass refinement).  One query, Gaussian Z and X: Pr[A] = Φ((q - t)/s),
        s = √(σ_Z² + σ_X²), Pr[B] = 1 - Pr[A], so over the pairs (q, q ± Δ) δ(ε') = Σ_o max(0, P_o(q) - e^{ε'}P_o(q'))
        is a function of one variable; its supremum is computed here (dense grid over ±20s, then a bounded scalar
        minimisation).  The search's exact δ at its pair must reach it to 1e-4 relative (the grid alone is 2-50 %
        short) and cannot exceed it."""
        from scipy import optimize, special

        from verify.family.delta_search import worst_delta

        r = worst_delta(variant(z=("gaussian", sz), x=("gaussian", sx)), ep, max_queries=1)
        sd, e = math.hypot(sz, sx), math.exp(float(ep))

        def delta(q, sign):
            pa, pa2 = special.ndtr(q / sd), special.ndtr((q + sign) / sd)
            return max(0.0, pa - e * pa2) + max(0.0, (1 - pa) - e * (1 - pa2))

        sup = 0.0
        qs = np.linspace(-20 * sd, 20 * sd, 8001)
        for sign in (1, -1):
            i = int(np.argmax([delta(q, sign) for q in qs]))
            res = optimize.minimize_scalar(lambda q, sign=sign: -delta(q, sign), bounds=(qs[max(i - 1, 0)], qs[min(i + 1, len(qs) - 1)]),
                                           method="bounded", options={"xatol": 1e-12})
            sup = max(sup, -res.fun)
        assert float(r.delta) <= sup * (1 + 1e-9)
        assert float(r.delta) >= sup * (1 - 1e-4), (float(r.delta), sup)

    def test_largest_term_output_is_the_argmax_even_when_every_term_is_below_minus_one(self):
        """Rule (`delta_at`): the reported output is the one with the largest term P_s - e^{ε'}P'_s, whatever its sign
        or size; at large ε' every term is below -1 (here ε' = 5/2 and 3) and the argmax is still reported.  The
        terms are recomputed from the exact oracle's output probabilities."""
        from verify.family.delta import complete_outputs, exact_delta

        s = variant(eps=Fraction(1), z=("laplace", 2), x=("laplace", 3), cutoff=1)
        q, qn = (Fraction(0), Fraction(1)), (Fraction(1), Fraction(0))
        with mpmath.workdps(30):
            ps = {o: output_probability(s, q, o, (), 20) for o in complete_outputs(s, 2)}
            pn = {o: output_probability(s, qn, o, (), 20) for o in complete_outputs(s, 2)}
            for ep in (Fraction(5, 2), Fraction(3)):
                terms = {o: ps[o] - mpmath.exp(mpmath.mpf(ep.numerator) / ep.denominator) * pn[o] for o in ps}
                assert max(terms.values()) < -1
                got = exact_delta(s, q, qn, ep, 20)
                assert got.top_output == max(terms, key=terms.get) and got.delta == 0


class TestTightnessKills2:
    """The push table's directions."""

    @pytest.mark.parametrize("su,sv", [(1, -1), (-1, 1), (1, 1), (-1, -1)])
    def test_push_follows_the_signs_of_the_best_point_in_every_quadrant(self, su, sv):
        """Rule (`_push`): row j of the push table is the confirmed loss with the B queries at t + sign(u)·L and the A
        queries at t + sign(v)·L, L = unit·2^j (sign(0) = +1), the neighbour shifted by the best point's shifts:
        recomputed here from the exact oracle for a best point in each quadrant (Mechanism One, t = 5, layout BA)."""
        from verify.family import worstcase as wc
        from verify.family.structured import layouts

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


class TestGapRefinementKills:
    """The refinement's free coordinate of a gap release."""

    def test_one_query_gap_row_is_refined_to_the_corner_of_the_clip_box(self):
        """Rule (`_refine`: a gap release's gap γ is a free coordinate of the refinement).  One query q, output A with gap
        γ, Laplace Z and X of equal scale b: the density is that of X - Z at c = γ + t - q, g(c) = (b + |c|)e^{-|c|/b}/(4b²),
        and the neighbour q - Δ gives loss log(g(c)/g(c + Δ)) = Δ/b - log((b + c + Δ)/(b + c)) for c >= 0, increasing in c.
        So the refined row sits where c is largest inside the clip box (|q - t|, γ <= REFINE_BOX·scale): q = t - box,
        γ = box, and its confirmed loss is that closed form at c = 2·box (b = 30, Δ = 1, t = 0)."""

        s = variant(release="gap")
        r = family_worst_case(s, max_queries=1, tightness_study=False, rows=True)
        w = r.rows["A"]
        from verify.family import search_tuning

        box = Fraction(30) * Fraction(search_tuning.REFINE_BOX)
        assert w.queries == (-box,) and w.released == (box,), (w.queries, w.released)
        with mpmath.workdps(40):
            b, c = mpmath.mpf(30), 2 * mpmath.mpf(box.numerator) / box.denominator
            want = 1 / b - mpmath.log((b + c + 1) / (b + c))
            assert abs(w.loss - want) < mpmath.mpf(10) ** -30, (w.loss, want)


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


class TestProgressKills:
    """The search's progress callback."""

    @pytest.mark.parametrize("max_queries", [1, 3])
    def test_progress_reports_every_k_once_in_order(self, max_queries):
        """Rule (`family_worst_case`'s ``progress(k)``): called once for every k = 1..max_queries, in increasing order
        (the layouts with k queries are searched in that order), whatever the number of layouts per k."""
        seen = []
        family_worst_case(variant(cutoff=2), max_queries=max_queries, tightness_study=False, progress=seen.append)
        assert seen == list(range(1, max_queries + 1))


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


class TestRdpKills2:
    """The Rényi conversion's edges."""

    def test_delta_accepts_epsilon_prime_zero_and_caps_at_one(self):
        """Rule (`GaussianSVTRdp.delta`): ε' >= 0 is accepted (ε' = 0 included; ε' < 0 refused), and δ is a probability:
        min(1, exp(min over α of log δ_α)).  With σ₁ = σ₂ = Δ/10 the RDP curve is large (ε(α) >= 300α) and the bound
        is exactly 1; at ε' = 0 with σ = 100Δ it is strictly between 0 and 1."""
        from verify.errors import InputError
        from verify.family.rdp import GaussianSVTRdp

        loud = GaussianSVTRdp(Fraction(1, 10), Fraction(1, 10), Fraction(1), 3)
        assert loud.delta(Fraction(1, 2))[0] == 1
        quiet = GaussianSVTRdp(Fraction(100), Fraction(100), Fraction(1), 3)
        d0, _ = quiet.delta(0)
        assert 0 < d0 < 1
        with pytest.raises(InputError):
            quiet.delta(Fraction(-1, 10**6))


class TestDeltaDefaultsKills:
    """exact_delta's documented default precision."""

    def test_exact_delta_default_precision_is_thirty_digits(self):
        """Rule (`exact_delta(..., digits=30)`): without ``digits`` the result is computed and reported at 30 digits."""
        from verify.family.delta import exact_delta

        r = exact_delta(variant(z=("laplace", 2), x=("laplace", 3)), (Fraction(0),), (Fraction(1),), Fraction(1, 10))
        assert r.digits == 30


class TestSearchKills3:
    """The refinement's placement of a released value and the confirmation precision of the search's witness."""

    def test_query_release_rows_release_their_above_query(self):
        """Rule (`Placement.AT_QUERY` without moves: the offset of the released value from its A query is held at 0 in
        the grid and in the refinement): with the query release, every row's released values equal its A queries."""
        s = variant(release="query", z=("laplace", 20), x=("laplace", 40), cutoff=2)
        r = family_worst_case(s, max_queries=2, tightness_study=False, rows=True)
        assert any("A" in out for out in r.rows)
        for out, w in r.rows.items():
            assert w.released == tuple(q for q, ch in zip(w.queries, w.outcome) if ch == "A"), (out, w.queries, w.released)

    @pytest.mark.parametrize("z,x,k", [(("laplace", 30), ("laplace", 30), 2), (("gaussian", 3000), ("gaussian", 3000), 1)])
    def test_search_witness_is_confirmed_at_fifty_digits_unless_gaussian_quadrature(self, z, x, k):
        """Rule (`_witness`): the search's witness is confirmed at 50 digits, except a Gaussian witness of more than one
        query (quadrature, 20 digits): a two-query Laplace witness and a one-query Gaussian witness (exact erfc form)
        are both at 50.  The losses stay below ε (σ = 3000: the search's loss at one query is about 0.013), so no
        re-confirmation at 50 digits hides the first confirmation's precision."""
        r = family_worst_case(variant(z=z, x=x), max_queries=k, tightness_study=False)
        assert r.loss < mpmath.mpf(1) / 10
        assert len(r.witness.queries) == k and r.witness.digits == 50


class TestFlagKills2:
    """A noise set to none with a scale: the error names the flag that was given."""

    @pytest.mark.parametrize("which", ["threshold", "query"])
    def test_none_noise_with_a_scale_names_the_scale_flag_given(self, which):
        """Rule (`_noise`): ``--W-noise none`` with a non-zero scale is refused, and the one-line error names the scale
        flag the user gave (``--W-absolute-scale`` or ``--W-scale``), with its value."""
        from verify.cli.main import build_parser
        from verify.cli.variant import variant_from_args
        from verify.errors import InputError

        def parse(*flags):
            return build_parser().parse_args(["prob", "--queries", "0", *flags])

        for flag in (f"--{which}-absolute-scale", f"--{which}-scale"):
            with pytest.raises(InputError) as e:
                variant_from_args(parse(f"--{which}-noise", "none", flag, "3"))
            assert f"--{which}-noise none and {flag} 3:" in str(e.value), str(e.value)
