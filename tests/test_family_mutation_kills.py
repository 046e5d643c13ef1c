"""Tests written for the survivors of the mutation runner on the family's decision and numerical core.

Each test states the rule it guards; expected values are derived here (formulas, enumeration, identities
between probabilities), never by calling the function under test for the answer.  The tests go through public
functions (`family_worst_case`, `worst_case`, `output_probability`, `family_log_probability`, `exact_delta`,
`GaussianSVTRdp`, the noise families' mpmath forms, the CLI), so they survive the code moving between modules.
The classes group them by mutation target (`benchmarks/mutation_score.py`).
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import pytest
from scipy import integrate

from verify.errors import InputError
from verify.family.delta import complete_outputs, exact_delta
from verify.family.rdp import GaussianSVTRdp
from verify.family.structured import Layout, family_log_probability, layouts
from verify.family.witness import FamilyWitness, confirm
from verify.family.worstcase import family_worst_case
from verify.mechanism import SparseVector
from verify.noise import NoiseSpec
from verify.oracles.family import output_probability
from verify.verdicts import MechanismVerdict, Tightness


def mp(x) -> mpmath.mpf:
    x = Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


def variant(eps=Fraction(1, 10), delta=Fraction(1), t=Fraction(0), z=("laplace", 30), x=("laplace", 30), cutoff=1,
            policy="shared", release="none", y=None) -> SparseVector:
    """A variant with absolute noise scales (``z``, ``x``, ``y``: (family, scale))."""
    return SparseVector(Fraction(eps), Fraction(delta), Fraction(t), NoiseSpec(z[0], absolute=Fraction(z[1])),
                        NoiseSpec(x[0], absolute=Fraction(x[1])), cutoff=cutoff, threshold_policy=policy, release=release,
                        release_spec=None if y is None else NoiseSpec(y[0], absolute=Fraction(y[1])))


# --- the noise families' mpmath forms, as the release densities use them --------------------------------------------
def laplace_pdf(y, b):
    return mpmath.exp(-abs(y) / b) / (2 * b)


def laplace_cdf(y, b):  # Pr[X < y]
    return mpmath.exp(y / b) / 2 if y < 0 else 1 - mpmath.exp(-y / b) / 2


def exp_pdf(y, b):
    return mpmath.exp(-y / b) / b if y >= 0 else mpmath.mpf(0)


def exp_cdf(y, b):
    return 1 - mpmath.exp(-y / b) if y > 0 else mpmath.mpf(0)


def gauss_pdf(y, s):
    return mpmath.exp(-y * y / (2 * s * s)) / (s * mpmath.sqrt(2 * mpmath.pi))


def gauss_cdf(y, s):
    return mpmath.erfc(-y / (s * mpmath.sqrt(2))) / 2


class TestReleaseKills:
    """The densities a released value carries, and the distribution functions of the noise families."""

    POINTS = ("-7/2", "-1", "-1/1000", "0", "1/1000", "1", "5/2", "9")

    @pytest.mark.parametrize("family,pdf,cdf", [("laplace", laplace_pdf, laplace_cdf), ("exponential", exp_pdf, exp_cdf),
                                                ("gaussian", gauss_pdf, gauss_cdf)])
    @pytest.mark.parametrize("scale", ["1/3", "2", "7"])
    def test_mpmath_forms_are_the_textbook_pdf_cdf_and_survival(self, family, pdf, cdf, scale):
        """Rule: p, F(y) = Pr[X < y] and S(y) = Pr[X >= y] of Lap(b), Exp(b) (on [0, ∞)) and N(0, σ²), at 40 digits,
        on both sides of 0 and at 0 (S = 1 - F for these continuous laws)."""
        law = NoiseSpec(family, absolute=Fraction(scale)).resolve(Fraction(1), Fraction(1)).law
        with mpmath.workdps(40):
            b = mp(Fraction(scale))
            for y in map(lambda s: mp(Fraction(s)), self.POINTS):
                want_p, want_f = pdf(y, b), cdf(y, b)
                assert abs(law.mp_pdf(y, b) - want_p) <= mpmath.mpf(10) ** -35 * max(1, want_p), (y, "pdf")
                assert abs(law.mp_cdf(y, b) - want_f) <= mpmath.mpf(10) ** -35, (y, "cdf")
                assert abs(law.mp_sf(y, b) - (1 - want_f)) <= mpmath.mpf(10) ** -35, (y, "sf")

    @pytest.mark.parametrize("y", [("laplace", "2"), ("exponential", "3/2"), ("gaussian", "2")])
    def test_fresh_release_multiplies_by_the_release_density(self, y):
        """Rule (fresh release, NumericalSVT): the density of B A with the A's released value v is
        p_Y(v - q_2) · Pr[B A] of the same variant without release; for a Gaussian Y too."""
        fam, by = y
        base = variant(z=("laplace", 2), x=("laplace", 3), cutoff=1)
        fresh = variant(z=("laplace", 2), x=("laplace", 3), cutoff=1, release="fresh", y=(fam, by))
        q = (Fraction(-1), Fraction(1, 4))
        pdf = {"laplace": laplace_pdf, "exponential": exp_pdf, "gaussian": gauss_pdf}[fam]
        with mpmath.workdps(30):
            pr = output_probability(base, q, "BA", (), 25)
            for v in (Fraction(1), Fraction(3, 4), Fraction(-1, 2)):
                got = output_probability(fresh, q, "BA", (v,), 25)
                want = pdf(mp(v - q[1]), mp(Fraction(by))) * pr
                assert abs(got - want) <= mpmath.mpf(10) ** -22 * max(want, mpmath.mpf(10) ** -30), (v, got, want)

    @pytest.mark.parametrize("z,x", [("laplace", "laplace"), ("exponential", "laplace"), ("laplace", "exponential")])
    def test_query_release_caps_the_threshold_at_the_smallest_released_value(self, z, x):
        """Rule (query release, Lyu Alg. 3, cutoff 2, outcome A A): v_i = q_i + X_i >= t + Z for both, so the density is
        p_X(v_1 - q_1) p_X(v_2 - q_2) Pr[Z <= min(v_1, v_2) - t] (a product of closed forms, Z's CDF at the cap);
        0 when a released value lies below the support of its query's noise."""
        s = variant(z=(z, 2), x=(x, 3), cutoff=2, t=Fraction(1, 2), release="query")
        pdf = {"laplace": laplace_pdf, "exponential": exp_pdf}
        cdf_z = {"laplace": laplace_cdf, "exponential": exp_cdf}[z]  # continuous: Pr[Z <= y] = Pr[Z < y]
        q = (Fraction(-1), Fraction(1, 4))
        with mpmath.workdps(30):
            for v in ((Fraction(2), Fraction(3, 4)), (Fraction(-1, 2), Fraction(5)), (Fraction(3), Fraction(1, 2))):
                want = pdf[x](mp(v[0] - q[0]), 3) * pdf[x](mp(v[1] - q[1]), 3) * cdf_z(mp(min(v) - s.threshold), 2)
                got = output_probability(s, q, "AA", v, 25)
                assert abs(got - want) <= mpmath.mpf(10) ** -22 * max(want, mpmath.mpf(10) ** -40), (v, got, want)


    def test_gaussian_noise_fresh_release_multiplies_by_the_release_density(self):
        """Rule (fresh release, quadrature path for Gaussian Z and X): the density of A with released v is
        p_Y(v - q) · Pr[A] without release, and Pr[A] = erfc((t - q)/(σ√2))/2 with σ² = σ_Z² + σ_X² (X - Z is normal)."""
        base = variant(z=("gaussian", 2), x=("gaussian", 3))
        fresh = variant(z=("gaussian", 2), x=("gaussian", 3), release="fresh", y=("laplace", 2))
        q, v = Fraction(1, 4), Fraction(1)
        with mpmath.workdps(30):
            pr = mpmath.erfc(-mp(q) / mpmath.sqrt(2 * 13)) / 2
            assert abs(output_probability(base, (q,), "A", (), 20) / pr - 1) < mpmath.mpf(10) ** -18
            got = output_probability(fresh, (q,), "A", (v,), 10)
            assert abs(got / (laplace_pdf(mp(v - q), 2) * pr) - 1) < mpmath.mpf(10) ** -9

    @pytest.mark.parametrize("z", ["laplace", "exponential"])
    def test_no_query_noise_is_an_interval_of_the_threshold_noise(self, z):
        """Rule (query noise none): B at q_1 and A at q_2 happen iff q_1 < t + Z <= q_2, so Pr[BA] = Pr[q_1 - t < Z <=
        q_2 - t] = F_Z(q_2 - t) - F_Z(q_1 - t) (continuous Z), and 0 when q_2 <= q_1."""
        s = variant(z=(z, 2), x=("none", 0), cutoff=1, t=Fraction(1, 2))
        cdf = {"laplace": laplace_cdf, "exponential": exp_cdf}[z]
        with mpmath.workdps(30):
            for q in ((Fraction(-1), Fraction(3)), (Fraction(1), Fraction(2)), (Fraction(1, 2), Fraction(1, 2) + Fraction(1, 8)),
                      (Fraction(3), Fraction(1))):
                want = max(mpmath.mpf(0), cdf(mp(q[1] - s.threshold), 2) - cdf(mp(q[0] - s.threshold), 2))
                got = output_probability(s, q, "BA", (), 25)
                assert abs(got - want) <= mpmath.mpf(10) ** -22, (q, got, want)


# --- the structured search's float64 objective -----------------------------------------------------------------------
class TestStructuredKills:
    """`family_log_probability` and `layouts` against identities of the model."""

    @pytest.mark.parametrize("z,x", [("laplace", "laplace"), ("exponential", "laplace"), ("laplace", "exponential"),
                                     ("exponential", "exponential"), ("gaussian", "gaussian"), ("none", "laplace"),
                                     ("laplace", "gaussian"), ("gaussian", "laplace")])
    @pytest.mark.parametrize("cutoff", [1, 2])
    def test_probabilities_of_all_complete_outputs_sum_to_one(self, z, x, cutoff):
        """Rule: with every query at t + w, each complete output of K queries has the probability of its letter counts'
        layout (order does not matter under one threshold draw), and these probabilities sum to 1 over all outputs."""
        s = variant(z=(z, 2), x=(x, 3), cutoff=cutoff)
        K = 3
        for w in (-5.0, -0.5, 0.0, 1.5, 7.0):
            total = 0.0
            for o in complete_outputs(s, K):
                lp = family_log_probability(s, Layout(o.count("B"), o.count("A")), w, w, 0.0)[0]
                total += math.exp(lp)
            assert abs(total - 1) < 1e-9, (w, total)

    @pytest.mark.parametrize("release,y", [("fresh", ("laplace", 5 / 2)), ("fresh", ("exponential", 2.0)),
                                           ("query", None), ("gap", None)])
    def test_release_density_integrates_to_the_probability_without_release(self, release, y):
        """Rule: ∫ exp(family_log_probability) over the released value (r: the gap, or the value relative to t)
        equals the probability of the same layout without a release (one A, so one released value)."""
        base = variant(z=("laplace", 2), x=("laplace", 3), cutoff=1)
        rel = variant(z=("laplace", 2), x=("laplace", 3), cutoff=1, release=release,
                      y=None if y is None else (y[0], Fraction(y[1]).limit_denominator(100)))
        lay = Layout(2, 1)
        for u, v in ((-1.0, 0.5), (2.0, -3.0)):
            pr = math.exp(family_log_probability(base, lay, u, v, 0.0)[0])
            lo = 0.0 if release == "gap" else -math.inf
            pts = sorted({p for p in (0.0, u, v, v - 1, v + 1) if p > lo})
            f = lambda r, u=u, v=v: math.exp(family_log_probability(rel, lay, u, v, r)[0])  # noqa: E731
            edges = [lo, *pts, math.inf]
            total = sum(integrate.quad(f, a, b, epsabs=1e-13, epsrel=1e-10, limit=200)[0] for a, b in zip(edges, edges[1:]))
            assert abs(total / pr - 1) < 1e-7, (u, v, total, pr)

    @pytest.mark.parametrize("K", [1, 3, 4])
    def test_resampling_with_cutoff_one_has_the_shared_layouts(self, K):
        """Rule: with cutoff 1 the run halts at the first A, before any resampling, so the resampled threshold's layouts
        give the same outcome strings as the shared threshold's (B^{j}A for every j < K, and B^K)."""
        shared, resample = variant(cutoff=1), variant(cutoff=1, policy="resample")
        want = {"B" * j + "A" for j in range(K)} | {"B" * K}
        assert {lay.string(shared) for lay in layouts(shared, K)} == want
        assert {lay.string(resample) for lay in layouts(resample, K)} == want

    @pytest.mark.parametrize("policy", ["shared", "resample"])
    def test_layout_strings_are_complete_outputs_with_their_counts(self, policy):
        """Rule: every layout's string is a complete output of its k queries (halting at the c-th A), with n_B B's and
        n_A A's; k = n_B + n_A."""
        for cutoff in (1, 2, 3, None):
            s = variant(cutoff=cutoff, policy=policy)
            for lay in layouts(s, 4, every_k=True):
                o = lay.string(s)
                assert lay.k == lay.n_b + lay.n_a == len(o)
                assert o in complete_outputs(s, lay.k), (cutoff, o)


# --- the search ---------------------------------------------------------------------------------------------------------
class TestSearchKills:
    """The search's witnesses: neighbours within Δ, directions, short rationals, and the suprema it must reach."""

    @pytest.mark.parametrize("delta", [Fraction(2), Fraction(1, 2)])
    def test_witness_neighbour_moves_by_exactly_delta(self, delta):
        """Rule: the witness's neighbour differs from q(D) by ±Δ in the moved letters (B up, A down), whatever Δ is
        (the seed's Mechanism One at scales 3Δ/ε: its bound ε holds at every Δ)."""
        eps = Fraction(1, 10)
        s = variant(eps=eps, delta=delta, z=("laplace", 3 * delta / eps), x=("laplace", 3 * delta / eps))
        r = family_worst_case(s, max_queries=2, tightness_study=False, rows=True)
        assert {"A", "BA", "BB"} <= set(r.rows)
        for w in [r.witness, *r.rows.values()]:
            moves = [b - a for a, b in zip(w.queries, w.neighbour)]
            assert all(abs(m) == delta for m in moves), moves
            assert all((m > 0) == (ch == "B") for m, ch in zip(moves, w.outcome)), (moves, w.outcome)
        assert r.verdict is MechanismVerdict.PRIVATE and r.loss <= mp(eps)

    def test_monotone_search_moves_every_query_one_way_by_at_most_delta(self):
        """Rule (monotone neighbours, Lyu §4): every witness pair moves all queries in one direction, by at most Δ,
        and its loss stays below the monotone bound Δ/b_Z + cΔ/b_X."""
        s = variant(eps=Fraction(1, 10), z=("laplace", 20), x=("laplace", 40), cutoff=2)
        r = family_worst_case(s, max_queries=3, monotone=True, tightness_study=False, rows=True)
        for w in [r.witness, *r.rows.values()]:
            moves = [b - a for a, b in zip(w.queries, w.neighbour)]
            assert all(abs(m) <= 1 for m in moves) and (all(m >= 0 for m in moves) or all(m <= 0 for m in moves)), moves
        assert r.loss <= mp(Fraction(1, 20) + Fraction(2, 40))

    def test_witness_queries_are_short_rationals(self):
        """Rule: the confirmed witness is rounded to short rationals: multiples of (scale as p/q)/1000 from t."""
        s = variant(eps=Fraction(1, 3), t=Fraction(1, 7), z=("laplace", 7), x=("laplace", Fraction(13, 2)))
        r = family_worst_case(s, max_queries=2, tightness_study=False)
        step = Fraction(7) / 1000
        for q in r.witness.queries:
            assert ((q - s.threshold) / step).denominator == 1, q

    def test_no_threshold_noise_infinite_loss_is_found(self):
        """Rule: without threshold noise and with Laplace queries the loss is unbounded (exactly 0 probability is not
        reached, so the growth proof decides); the search must still return a loss above ε."""
        s = variant(z=("none", 1), x=("laplace", 30))
        r = family_worst_case(s, max_queries=3, tightness_study=False)
        assert r.verdict is MechanismVerdict.NOT_PRIVATE and r.unbounded

    def test_mechanism_two_attains_its_bound(self):
        """Rule: the seed's Mechanism Two (Exp(3Δ/ε) on both) attains ε at moderate queries: the search and the
        tightness study find loss = ε to 45 digits."""
        s = variant(z=("exponential", 30), x=("exponential", 30))
        r = family_worst_case(s, max_queries=2)
        assert r.verdict is MechanismVerdict.PRIVATE and r.tightness is Tightness.ATTAINED
        with mpmath.workdps(60):
            assert abs(r.loss - mp(Fraction(1, 10))) <= mpmath.mpf(10) ** -45

    def test_fresh_exponential_release_blind_spot_is_unbounded(self):
        """Rule: NumericalSVT with an exponential fresh release has infinite loss (the release density's support ends):
        the search moves the released value and the above query and reports not_private, unbounded."""
        s = SparseVector(Fraction(1, 10), Fraction(1), Fraction(1), NoiseSpec("laplace", multiplier=Fraction(3)),
                         NoiseSpec("laplace", multiplier=Fraction(6)), cutoff=1, release="fresh",
                         release_spec=NoiseSpec("exponential", multiplier=Fraction(3)))
        r = family_worst_case(s, max_queries=2, tightness_study=False)
        assert r.verdict is MechanismVerdict.NOT_PRIVATE and r.unbounded and mpmath.isinf(r.loss)


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


# --- δ and the Rényi bound -----------------------------------------------------------------------------------------------
class TestDeltaKills:
    """δ(ε') of a pair, complete outputs, and the Rényi bound of Gaussian AboveThreshold."""

    @pytest.mark.parametrize("cutoff", [1, 2, 3, None])
    @pytest.mark.parametrize("k", [1, 2, 4])
    def test_complete_outputs_by_enumeration(self, cutoff, k):
        """Rule: the complete outputs of k queries are the strings that stop at the c-th A, or have k letters
        with fewer than c A's (enumerated here over all strings of length <= k)."""
        s = variant(cutoff=cutoff)
        want = set()
        for n in range(1, k + 1):
            for o in map("".join, itertools.product("AB", repeat=n)):
                c = cutoff
                a = o.count("A")
                if c is not None and a == c and o[-1] == "A" or (n == k and (c is None or a < c)):
                    want.add(o)
        got = complete_outputs(s, k)
        assert len(got) == len(set(got)) and set(got) == want

    def test_exact_delta_is_the_sum_of_positive_parts(self):
        """Rule: δ(ε') = Σ_s max(0, Pr[D](s) - e^{ε'} Pr[D'](s)) over complete outputs (recomputed here from the
        output probabilities); δ(0) is the total variation distance; ε' = 0 is accepted, ε' < 0 refused."""
        s = variant(eps=Fraction(1), z=("laplace", 2), x=("laplace", 3), cutoff=1)
        q, qn = (Fraction(0), Fraction(1)), (Fraction(1), Fraction(0))
        with mpmath.workdps(30):
            ps = {o: output_probability(s, q, o, (), 20) for o in complete_outputs(s, 2)}
            pn = {o: output_probability(s, qn, o, (), 20) for o in complete_outputs(s, 2)}
            for ep in (Fraction(0), Fraction(1, 10), Fraction(1, 2)):
                want = sum(max(mpmath.mpf(0), ps[o] - mpmath.exp(mp(ep)) * pn[o]) for o in ps)
                got = exact_delta(s, q, qn, ep, 20)
                assert abs(got.delta - want) <= mpmath.mpf(10) ** -18, (ep, got.delta, want)
                top = max(ps, key=lambda o: ps[o] - mpmath.exp(mp(ep)) * pn[o])
                assert got.top_output == top
            tv = sum(abs(ps[o] - pn[o]) for o in ps) / 2
            assert abs(exact_delta(s, q, qn, 0, 20).delta - tv) <= mpmath.mpf(10) ** -18
        with pytest.raises(InputError):
            exact_delta(s, q, qn, Fraction(-1, 10**6), 20)

    def test_exact_delta_checks_the_pair(self):
        """Rule: the pair has equal lengths >= 1 and differs by at most Δ per query (equality allowed)."""
        s = variant(delta=Fraction(1, 2), z=("laplace", 2), x=("laplace", 3))
        assert exact_delta(s, (0,), (Fraction(1, 2),), 0, 15).delta >= 0
        for q, qn in (((0,), (Fraction(1, 2) + Fraction(1, 10**9),)), ((0, 0), (0,)), ((), ())):
            with pytest.raises(InputError):
                exact_delta(s, q, qn, 0, 15)

    def test_worst_delta_validates_max_queries_at_its_edges(self):
        """Rule: worst_delta's max_queries is an integer from 1 to 10 (booleans refused); releases are refused."""
        from verify.family.delta import worst_delta

        s = variant(z=("laplace", 2), x=("laplace", 3))
        for bad in (0, 11, True, 2.0):
            with pytest.raises(InputError):
                worst_delta(s, Fraction(1, 4), max_queries=bad, grid=3, digits=15)
        assert worst_delta(s, Fraction(1, 4), max_queries=1, grid=3, digits=15).delta >= 0
        with pytest.raises(InputError):
            worst_delta(variant(release="gap"), Fraction(1, 4), max_queries=1, grid=3, digits=15)

    def test_renyi_bound_is_reported_only_for_gaussian_threshold_and_queries_at_cutoff_one(self):
        """Rule (Zhu & Wang 2020, Thm 8: c = 1, shared threshold, Gaussian Z and X): the Rényi δ is given beside the exact
        δ of a pair there and nowhere else (cutoff 2, unlimited, a resampled threshold, no threshold noise)."""
        def rd(**kw):
            return exact_delta(variant(**{"z": ("gaussian", 2), "x": ("gaussian", 3), **kw}), (0,), (1,), 1, 15).rdp_delta

        inside = rd()
        assert inside is not None and 0 < inside <= 1
        assert rd(cutoff=2) is None and rd(cutoff=None) is None and rd(cutoff=2, policy="resample") is None
        assert rd(z=("none", 0)) is None

    def test_renyi_curve_and_its_validation(self):
        """Rule: ε(α) = log(k)/(α - 1) + αΔ²/σ₁² + 2αΔ²/σ₂² (Zhu & Wang 2020, Thm 8), defined for α > 1; σ₁, σ₂, Δ > 0
        and k >= 1 an integer."""
        # σ₁ = 5/2, σ₂ = 3 (σ² differs from 2σ for both), Δ = 1/2
        r = GaussianSVTRdp(Fraction(5, 2), Fraction(3), Fraction(1, 2), 5)
        with mpmath.workdps(30):
            for a in (mpmath.mpf("1.5"), mpmath.mpf(2), mpmath.mpf(40)):
                want = mpmath.log(5) / (a - 1) + a * (mpmath.mpf(1) / 4) / (mpmath.mpf(25) / 4) + 2 * a * (mpmath.mpf(1) / 4) / 9
                assert abs(r.rdp(a) - want) < mpmath.mpf(10) ** -25
            with pytest.raises(InputError):
                r.rdp(mpmath.mpf(1))
        assert GaussianSVTRdp(Fraction(2), Fraction(3), Fraction(1, 2), 1).rdp(2) > 0
        for bad in ((0, 3, 1, 5), (2, 0, 1, 5), (2, 3, 0, 5), (2, 3, 1, 0), (2, 3, 1, True)):
            with pytest.raises(InputError):
                GaussianSVTRdp(*bad)

    @pytest.mark.parametrize("conversion", ["bbghs", "mironov"])
    def test_renyi_delta_is_the_minimum_over_orders(self, conversion):
        """Rule: δ(ε') = min over α > 1 of δ_α, δ_α = exp((α-1)(ε(α) - ε'))·[(1 - 1/α)^(α-1)/α for BBGHS]; the value
        returned is at most δ_α at every α of a dense independent grid (to 1e-9 relative) and equals δ_α at the α it
        reports; at most 1."""
        r = GaussianSVTRdp(Fraction(3), Fraction(4), Fraction(1), 10)
        with mpmath.workdps(30):
            def delta_at(a):
                a = mpmath.mpf(a)
                ld = (a - 1) * (r.rdp(a) - 2)
                if conversion == "bbghs":
                    ld += (a - 1) * mpmath.log(1 - 1 / a) - mpmath.log(a)
                return mpmath.exp(ld)

            got, alpha = r.delta(2, conversion)
            dense = min(delta_at(1 + mpmath.mpf(10) ** (mpmath.mpf(j) / 400 - 2)) for j in range(0, 1601))
            assert got <= dense * (1 + mpmath.mpf(10) ** -9), (got, dense)
            assert got >= dense * (1 - mpmath.mpf(10) ** -3)
            assert abs(delta_at(alpha) / got - 1) < mpmath.mpf(10) ** -20
            assert r.delta(0, conversion)[0] <= 1
        with pytest.raises(InputError):
            r.delta(-1, conversion)
        with pytest.raises(InputError):
            r.delta(1, "other")


# --- the variant flags ---------------------------------------------------------------------------------------------------
def parse(*flags: str):
    """The `prob` command's namespace for ``flags`` (plus one query)."""
    from verify.cli.main import build_parser

    return build_parser().parse_args(["prob", "--queries", "0", *flags])


class TestFlagKills:
    """The variant flags, parsed and applied field by field (verify/cli/variant.py)."""

    def test_noise_applies_to_every_noise_and_is_refused_when_it_would_change_nothing(self):
        """Rule: --noise F sets both noises' family (the seed's scales kept); with both per-variable families given,
        or when no noise has family F after the other flags, it is refused."""
        from verify.cli.variant import variant_from_args

        m = variant_from_args(parse("--noise", "exponential"))
        assert (m.threshold_spec.family, m.query_spec.family) == ("exponential", "exponential")
        assert m.threshold_spec.multiplier == m.query_spec.multiplier == 3
        m = variant_from_args(parse("--noise", "exponential", "--threshold-noise", "laplace"))
        assert (m.threshold_spec.family, m.query_spec.family) == ("laplace", "exponential")
        with pytest.raises(InputError, match="--noise"):
            variant_from_args(parse("--noise", "exponential", "--threshold-noise", "laplace", "--query-noise", "laplace"))
        with pytest.raises(InputError, match="--noise"):
            variant_from_args(parse("--noise", "exponential", "--threshold-scale", "0", "--query-noise", "laplace"))

    def test_scales_relative_absolute_and_none(self):
        """Rule: one scale per variable (relative C·Δ/ε or absolute B, not both); `none` takes no scale but 0; a family
        over a missing noise needs a scale, except over the seed's `--noise none` (the seed's 3Δ/ε)."""
        from verify.cli.variant import variant_from_args

        m = variant_from_args(parse("--threshold-scale", "5", "--query-absolute-scale", "7/2"))
        assert (m.threshold_spec.multiplier, m.query_spec.absolute) == (5, Fraction(7, 2))
        with pytest.raises(InputError, match="--query-scale and --query-absolute-scale"):
            variant_from_args(parse("--query-scale", "1", "--query-absolute-scale", "1"))
        assert variant_from_args(parse("--threshold-noise", "none", "--threshold-scale", "0")).threshold_spec.is_none
        with pytest.raises(InputError, match="no noise has no scale"):
            variant_from_args(parse("--threshold-noise", "none", "--threshold-absolute-scale", "2"))
        m = variant_from_args(parse("--noise", "none", "--threshold-noise", "laplace"))
        assert m.threshold_spec.family == "laplace" and m.threshold_spec.multiplier == 3 and m.query_spec.is_none
        with pytest.raises(InputError, match="is none"):
            variant_from_args(parse("--noise", "none", "--query-scale", "2", "--threshold-noise", "laplace"))
        with pytest.raises(InputError, match="scale is 0"):
            variant_from_args(parse("--threshold-noise", "laplace", "--threshold-scale", "0"))

    def test_preset_overrides_are_named_and_a_missing_noise_needs_a_scale(self):
        """Rule: a preset changed by a flag is named "NAME, modified by --flag" (--cutoff too when the preset's scales do
        not follow the cutoff); a cutoff that the preset's scales follow rebuilds the preset (no "modified")."""
        from verify.cli.variant import variant_from_args

        m = variant_from_args(parse("--variant", "lyu-5", "--cutoff", "3", "--threshold-scale", "4"))
        assert m.name == "lyu-5, modified by --cutoff --threshold-scale" and m.cutoff == 3
        m = variant_from_args(parse("--variant", "lyu-1", "--cutoff", "2"))
        assert m.name == "lyu-1" and m.cutoff == 2 and m.query_spec.multiplier == 8  # Lyu Alg. 1: b_X = 4cΔ/ε
        with pytest.raises(InputError, match="grow with the cutoff"):
            variant_from_args(parse("--variant", "lyu-1", "--cutoff", "unlimited"))
        m = variant_from_args(parse("--variant", "lyu-5", "--cutoff", "unlimited"))
        assert m.cutoff is None and m.name == "lyu-5, modified by --cutoff"
        assert variant_from_args(parse("--cutoff", "unlimited")).cutoff is None
        assert variant_from_args(parse()).name == "above-threshold"
        assert variant_from_args(parse("--cutoff", "1")).name != "above-threshold"  # a family flag was given
        m = variant_from_args(parse("--threshold-policy", "resample", "--cutoff", "2"))
        assert str(m.threshold_policy) == "resample"

    def test_release_flags(self):
        """Rule: the release noise flags only with --release fresh; fresh needs a family and one scale (or the preset's)."""
        from verify.cli.variant import variant_from_args

        m = variant_from_args(parse("--release", "fresh", "--release-noise", "laplace", "--release-scale", "6"))
        assert str(m.release) == "fresh" and m.release_spec.family == "laplace" and m.release_spec.multiplier == 6
        m = variant_from_args(parse("--release", "fresh", "--release-noise", "exponential", "--release-absolute-scale", "2"))
        assert m.release_spec.absolute == 2 and m.release_spec.family == "exponential"
        m = variant_from_args(parse("--variant", "numeric-svt"))
        assert str(m.release) == "fresh" and m.release_spec is not None
        m2 = variant_from_args(parse("--variant", "numeric-svt", "--release-noise", "exponential"))
        assert m2.release_spec.family == "exponential" and m2.release_spec.multiplier == m.release_spec.multiplier
        assert variant_from_args(parse("--release", "gap")).release_spec is None
        for bad in (("--release", "gap", "--release-noise", "laplace"), ("--release-scale", "2"),
                    ("--release", "fresh"), ("--release", "fresh", "--release-noise", "laplace"),
                    ("--release", "fresh", "--release-noise", "laplace", "--release-scale", "1", "--release-absolute-scale", "1")):
            with pytest.raises(InputError):
                variant_from_args(parse(*bad))

    def test_seed_commands_label_and_refuse_family_members(self):
        """Rule: a seed-only command prints "NAME: " for a preset and nothing without; it refuses a variant that is not
        AboveThreshold and a resampled threshold, and accepts --threshold-policy shared."""
        from verify.cli.variant import family_requested, seed_label, seed_mechanism, variant_from_args

        assert seed_label(parse("--variant", "seed-m2")) == "seed-m2: " and seed_label(parse()) == ""
        assert seed_mechanism(parse("--threshold-policy", "shared"), "sweep").is_above_threshold
        for bad in (("--variant", "lyu-1", "--cutoff", "2"), ("--threshold-policy", "resample")):
            with pytest.raises(InputError, match="sweep"):
                seed_mechanism(parse(*bad), "sweep")
        assert not family_requested(parse(), variant_from_args(parse()))
        assert family_requested(parse("--cutoff", "1"), variant_from_args(parse()))
        assert family_requested(parse(), variant_from_args(parse("--noise", "gaussian")))

    def test_outputs_in_every_notation(self):
        """Rule: --output i / s_i is B^{i-1}A for 1 <= i <= k, none is B^k, letters are checked by the variant; 'all' only
        where allowed; --output and --outcomes not both; the seed's outputs are s_i (i <= k) and ⊤^k only."""
        from verify.cli.variant import outcome_from_args, seed_output, variant_from_args
        from verify.mechanism import NO_HALT

        m = variant_from_args(parse("--cutoff", "2"))
        assert outcome_from_args(parse("--output", "3"), m, 3) == "BBA"
        assert outcome_from_args(parse("--output", "1"), m, 3) == "A"
        assert outcome_from_args(parse("--output", "none"), m, 3) == "BBB"
        assert outcome_from_args(parse("--outcomes", "ABA"), m, 3) == "ABA"
        assert outcome_from_args(parse(), m, 3, allow_all=True) == "all"
        assert outcome_from_args(parse("--output", "all"), m, 3, allow_all=True) == "all"
        for bad, kw in ((("--output", "4"), {}), (("--output", "0"), {}), (("--output", "all"), {}), ((), {}),
                        (("--output", "1", "--outcomes", "A"), {}), (("--outcomes", "AAA"), {})):
            with pytest.raises(InputError):
                outcome_from_args(parse(*bad), m, 3, **kw)
        assert seed_output(parse("--output", "3"), 3) == 3 and seed_output(parse("--outcomes", "BBA"), 3) == 3
        assert seed_output(parse("--outcomes", "A"), 3) == 1
        assert seed_output(parse("--outcomes", "BBB"), 3) == NO_HALT == seed_output(parse("--output", "none"), 3)
        assert seed_output(parse(), 3, allow_all=True) is None and seed_output(parse("--output", "all"), 3, allow_all=True) is None
        for bad in (("--outcomes", "BBBA"), ("--outcomes", "ABA"), ("--outcomes", "BB"), ("--output", "4"), ("--output", "0"),
                    ("--output", "all"), ()):
            with pytest.raises(InputError):
                seed_output(parse(*bad), 3)


class TestBoundKills:
    """`ProvenBound.exceeded_by` and the bound of a seed constructor."""

    def test_exceeded_by_is_strict_beyond_the_tolerance(self):
        """Rule: a loss exceeds a bound B only when loss > B + tol (equality with B + tol is not a violation)."""
        from verify.family.bounds import ProvenBound

        b = ProvenBound(Fraction(1, 8), "x", "y")  # decided exactly: an edge that is a binary rational
        with mpmath.workdps(60):
            tol = Fraction(1, 2**150)
            at = mpmath.mpf(1) / 8 + mpmath.mpf(2) ** -150  # exactly 1/8 + tol
            assert not b.exceeded_by(at, tol)
            assert b.exceeded_by(at + mpmath.mpf(2) ** -160, tol)
            assert not b.exceeded_by(mpmath.mpf(1) / 8, Fraction(0))
            assert b.exceeded_by(mpmath.inf, tol) and not b.exceeded_by(-mpmath.inf, tol)

    def test_bound_of_the_seed_constructors(self):
        """Rule: the seed's Mechanism One (Lap(3Δ/ε) on both) has the proven bound Δ/b_Z + 2Δ/b_X = ε/3 + 2ε/3 = ε,
        and with monotone neighbours Δ/b_Z + Δ/b_X = 2ε/3."""
        from verify.family.bounds import proven_upper_bound_of
        from verify.mechanism import AboveThreshold

        m = AboveThreshold.mechanism_one(Fraction(1, 2))
        assert proven_upper_bound_of(m).value == Fraction(1, 2)
        assert proven_upper_bound_of(m, monotone=True).value == Fraction(1, 3)

    def test_no_cutoff_push_is_the_threshold_scale_times_m_plus_two_ln_two_rounded_up(self):
        """Rule (`no_cutoff_growth`, Laplace Z): the push for 2m queries is L = b_Z (m + 2) ln 2, rounded up to a multiple
        of 1/1000 (never below the value, at most 2/1000 above); b_Z is the threshold noise's scale."""
        from verify.family.bounds import no_cutoff_push

        for bz in (Fraction(30), Fraction(1, 4)):
            s = variant(z=("laplace", bz), cutoff=None)
            for m in (1, 4):
                exact = float(bz) * (m + 2) * math.log(2)
                got = no_cutoff_push(s, m)
                assert got.denominator in (1, 2, 4, 5, 8, 10, 20, 25, 40, 50, 100, 125, 200, 250, 500, 1000)
                assert exact <= float(got) <= exact + 2e-3, (bz, m, got, exact)
