"""The audit's statistics, laws and adapters, each against an independent reference."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats

from verify.audit import laws
from verify.audit.adapters import from_stream, from_vector, load, normalize
from verify.audit.discrete_laws import prefix_products
from verify.audit.fit import candidates
from verify.audit.gof import chi2_sf, g_test, pooled_cells, total_variation
from verify.audit.laws import Candidate, Law, _density, grid_letter_laws, letter_laws, release_cells, release_edges, reused_cdf
from verify.audit.loss import clopper_pearson, empirical_loss, log_ratio_interval
from verify.audit.pairs import PairKind, select_pairs
from verify.audit.power import chi2_isf, detectable_tv, noncentrality, samples_for_tv
from verify.errors import InputError
from verify.family.fast_api import fast_log_probability
from verify.family.presets import preset


# --- power -------------------------------------------------------------------------------------------
def test_noncentrality_one_degree_is_the_normal_formula():
    # χ²₁ with noncentrality λ is (Z + √λ)²: power 0.9 at level α needs √λ = z_{α/2} + z_{0.1} (up to the far tail)
    for alpha in (0.05, 1e-3, 1e-5):
        ref = (stats.norm.isf(alpha / 2) + stats.norm.isf(0.1)) ** 2
        assert noncentrality(1, alpha) == pytest.approx(ref, rel=1e-4)


def test_samples_and_detectable_tv_are_inverse():
    for df, alpha, tv in ((1, 0.01, 0.1), (6, 1e-4, 0.02), (14, 5e-5, 0.05)):
        n = samples_for_tv(tv, df, alpha)
        assert detectable_tv(n, df, alpha) <= tv < detectable_tv(n - 1, df, alpha) + 1e-15


def test_power_rule_holds_by_simulation():
    """A law at total variation δ = detectable_tv(N) from the claim is rejected in >= ~90% of seeded trials."""
    rng = np.random.default_rng(7)
    p = np.array([0.4, 0.3, 0.2, 0.1])
    alpha, n = 0.01, 2000
    delta = detectable_tv(n, 3, alpha)
    q = p + np.array([delta, -delta, 0, 0])  # TV exactly δ
    law = {s: float(x) for s, x in zip("abcd", p)}
    rejections = sum(g_test(dict(zip("abcd", rng.multinomial(n, q).tolist())), law).p_value < alpha for _ in range(400))
    # χ² = δ²(1/0.4 + 1/0.3) > 4δ²: the power exceeds 0.9; 400 trials: 0.9 - 3 sd = 0.855
    assert rejections / 400 >= 0.855


def test_distributions_are_scipy_stats():
    """The audit calls scipy.special, not scipy.stats (start-up time): the same floats as scipy.stats' χ² tail and
    quantile and beta quantiles; λ* (through 1 - ncx2 CDF) equal to the root of scipy.stats' ncx2.sf to 1e-10."""
    from scipy import optimize

    for df in (1, 2, 3, 7, 20, 63):
        for x in (-1e-12, 0.0, 1e-3, 0.5, 3.0, 11.0, 40.0, 150.0, math.inf):
            assert chi2_sf(x, df) == stats.chi2.sf(x, df)
        for alpha in (0.3, 0.05, 1e-3, 1e-5, 3e-7):
            assert chi2_isf(alpha, df) == stats.chi2.isf(alpha, df)
            crit = stats.chi2.isf(alpha, df)
            ref = optimize.brentq(lambda lam, c=crit, d=df: stats.ncx2.sf(c, d, lam) - 0.9, 1e-9, 1e4, xtol=1e-12, rtol=1e-14)
            assert noncentrality(df, alpha) == pytest.approx(ref, rel=1e-10)
    for k, n in ((1, 10), (3, 50), (17, 1339), (600, 1339), (1338, 1339), (5, 450_000)):
        lo, hi = clopper_pearson(k, n, 0.95)
        half = (1 - 0.95) / 2
        assert (lo, hi) == (stats.beta.ppf(half, k, n - k + 1), stats.beta.isf(half, k + 1, n - k))


def test_power_rejects_bad_arguments():
    with pytest.raises(InputError):
        samples_for_tv(0, 3, 0.01)
    with pytest.raises(InputError):
        noncentrality(0, 0.01)


# --- G-test -------------------------------------------------------------------------------------------
def test_pooling_keeps_large_cells_and_pools_small_ones():
    assert pooled_cells(np.array([50.0, 1.0, 2.0, 40.0, 3.0])) == [[0], [3], [1, 2, 4]]
    # a pooled cell still below 5 joins the smallest large cell
    assert pooled_cells(np.array([50.0, 1.0, 2.0, 40.0])) == [[0], [3, 1, 2]]


def test_g_test_false_alarm_rate_by_simulation():
    """Under the exact law the rejection rate at α = 0.05 is 0.05 within binomial noise (seeded, 1000 trials)."""
    rng = np.random.default_rng(3)
    p = np.array([0.5, 0.25, 0.15, 0.07, 0.02, 0.01])
    law = {s: float(x) for s, x in zip("abcdef", p)}
    rej = sum(g_test(dict(zip("abcdef", rng.multinomial(300, p).tolist())), law).p_value < 0.05 for _ in range(1000))
    assert 0.05 * 1000 - 3 * math.sqrt(1000 * 0.05 * 0.95) <= rej <= 0.05 * 1000 + 3 * math.sqrt(1000 * 0.05 * 0.95)


def test_g_test_statistic_by_hand_and_impossible_outcomes():
    res = g_test({"A": 30, "B": 70}, {"A": 0.5, "B": 0.5})
    g = 2 * (30 * math.log(30 / 50) + 70 * math.log(70 / 50))
    assert res.statistic == pytest.approx(g, rel=1e-12) and res.df == 1
    assert res.p_value == pytest.approx(stats.chi2.sf(g, 1), rel=1e-12)
    assert res.top[0].outcome in ("A", "B") and abs(res.top[0].residual) == pytest.approx(20 / math.sqrt(50))
    bad = g_test({"A": 30, "B": 69, "AB": 1}, {"A": 0.5, "B": 0.5})
    assert bad.p_value == 0 and bad.impossible == ("AB",)


def test_one_cell_left_by_pooling_is_tested_exactly():
    """Pooling that leaves one cell (a large cell and a remainder of expected count < 5, or every cell small)
    leaves the G-test nothing to compare; the remainder's count is then tested exactly, two-sided (doubled
    binomial tail).  Runs all in an outcome of expected count ~0 reject; the reference is scipy.stats.binom."""
    law = {"A": 1 - 3e-7, "B": 1e-7, "C": 2e-7}
    assert len(pooled_cells(2000 * np.array(list(law.values())))) == 1
    every_run_rare = g_test({"C": 2000}, law)
    assert every_run_rare.cells == 1 and every_run_rare.p_value < 1e-300
    n, p = 1000, 0.004  # expected remainder 4 < 5: one cell
    near = {"A": 1 - p, "B": p / 2, "C": p / 2}
    for x in (0, 1, 4, 5, 9, 10, 12, 40):
        res = g_test({"A": n - x, "B": x - x // 2, "C": x // 2}, near)
        assert res.cells == 1
        ref = min(1.0, 2 * min(stats.binom.sf(x - 1, n, p), stats.binom.cdf(x, n, p)))
        assert res.p_value == pytest.approx(ref, rel=1e-9, abs=1e-300), x
    assert g_test({"A": n - 9, "B": 9}, near).p_value < 0.05 < g_test({"A": n - 8, "B": 8}, near).p_value  # 0.042, 0.102
    tiny = g_test({"a": 2, "b": 1, "c": 0, "d": 1}, {"a": 0.4, "b": 0.3, "c": 0.2, "d": 0.1})  # every cell small
    assert tiny.cells == 1 and tiny.p_value == pytest.approx(1.0)
    assert g_test({"a": 0, "b": 1, "c": 0, "d": 3}, {"a": 0.97, "b": 0.01, "c": 0.01, "d": 0.01}).p_value < 1e-4


def test_one_cell_exact_test_false_alarm_rate_by_simulation():
    """Under the exact law, with pooling leaving one cell, the rejection rate at α = 0.05 is at most α (the
    doubled tail is conservative): 2000 seeded trials, at most 0.05 + 3σ (a false alarm of this check about
    0.15 %)."""
    rng = np.random.default_rng(17)
    p = np.array([0.996, 0.002, 0.0015, 0.0005])
    law = {s: float(x) for s, x in zip("abcd", p)}
    trials = 2000
    rej = sum(g_test(dict(zip("abcd", rng.multinomial(1000, p).tolist())), law).p_value < 0.05 for _ in range(trials))
    assert rej <= 0.05 * trials + 3 * math.sqrt(trials * 0.05 * 0.95)


# --- Clopper–Pearson and the loss ---------------------------------------------------------------------
def test_clopper_pearson_reference_values():
    # reference: the Beta quantiles, scipy; and the closed forms at k = 0 and k = n: 1 - (α/2)^(1/n)
    lo, hi = clopper_pearson(0, 20, 0.95)
    assert lo == 0 and hi == pytest.approx(1 - 0.025 ** (1 / 20), rel=1e-12)
    lo, hi = clopper_pearson(20, 20, 0.95)
    assert hi == 1 and lo == pytest.approx(0.025 ** (1 / 20), rel=1e-12)
    lo, hi = clopper_pearson(7, 50, 0.9)
    assert lo < 7 / 50 < hi


def test_clopper_pearson_coverage_by_simulation():
    rng = np.random.default_rng(11)
    p, n = 0.03, 200
    covered = sum(lo <= p <= hi for lo, hi in (clopper_pearson(int(k), n, 0.95) for k in rng.binomial(n, p, 2000)))
    assert covered / 2000 >= 0.95 - 3 * math.sqrt(0.95 * 0.05 / 2000)


def test_loss_interval_contains_estimate_and_picks_the_estimable_outcome():
    est, lo, hi = log_ratio_interval(300, 1000, 200, 1000, 0.95)
    assert lo < est < hi and est == pytest.approx(math.log(1.5))
    # C has the largest exact loss (log 100) but about one expected run: A (log 1.5) is reported
    law, nlaw = {"A": 0.6, "B": 0.399, "C": 0.001}, {"A": 0.4, "B": 0.5, "C": 0.1}
    res = empirical_loss(law, nlaw, {"A": 600, "B": 399, "C": 1}, {"A": 400, "B": 500, "C": 100}, 0.95)
    assert res.outcome == "A" and res.estimable and res.exact == pytest.approx(math.log(1.5))


# --- laws ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("a,b", [(2.0, 8.0), (3.0, 3.0), (2.0, 0.0)])
def test_reused_noise_cdf_against_quadrature(a, b):
    """F_W of W = Z - X against scipy quad of the Laplace convolution (independent reference)."""
    def lap_cdf(x, s):
        return (0.5 * math.exp(x / s) if x < 0 else 1 - 0.5 * math.exp(-x / s)) if s else float(x >= 0)

    for w in (-7.0, -1.0, 0.0, 0.5, 4.0):
        if b == 0:
            ref = lap_cdf(w, a)
        else:  # Pr[Z - X <= w] = ∫ f_X(x) F_Z(w + x) dx
            ref = integrate.quad(lambda x, w=w: math.exp(-abs(x) / b) / (2 * b) * lap_cdf(w + x, a), -60 * b, 60 * b,
                                 points=[0.0, -w], limit=200, epsabs=1e-13)[0]
        assert reused_cdf(w, a, b) == pytest.approx(ref, abs=1e-10)


def test_reused_law_against_simulation():
    mech = preset("lyu-1", cutoff=2)
    law = letter_laws(Candidate("r", mech, Law.REUSED), [(0.0, 3.0, -2.0)])[0]
    assert sum(law.values()) == pytest.approx(1, abs=1e-12)
    rng = np.random.default_rng(5)
    n = 200_000
    w = rng.laplace(0, 2, n) - rng.laplace(0, 8, n)
    # (0, 3, -2): A at query i iff W <= q_i; W in (0, 3] gives B A B; W <= 0 gives A A (halt at c = 2)
    assert np.mean((w > 0) & (w <= 3)) == pytest.approx(law["BAB"], abs=4 * math.sqrt(law["BAB"] / n))
    assert np.mean(w <= 0) == pytest.approx(law["AA"], abs=4 * math.sqrt(law["AA"] / n))
    assert law["ABA"] == law["ABB"] == 0  # A at q = 0 means W <= 0 <= 3: the second query is above too


@pytest.mark.parametrize("name", ["lyu-1", "lyu-2", "seed-m1", "seed-m2", "gaussian-svt"])
def test_grid_letter_laws_against_the_fast_path(name):
    mech = preset(name, cutoff=2) if name not in ("seed-m1", "seed-m2") else preset(name)
    rows = [(0.0, 0.0, 0.0), (-3.0, 1.5, 2.0), (5.0, -5.0, 1.0)]
    grid = grid_letter_laws(Candidate("c", mech), rows)
    fast = letter_laws(Candidate("c", mech), rows)
    for g, f in zip(grid, fast):
        assert set(g) == set(f)
        for s in f:
            assert g[s] == pytest.approx(f[s], rel=5e-4, abs=1e-12)


@pytest.mark.parametrize("resample", [False, True])
def test_prefix_products_are_the_letter_by_letter_products(resample):
    """Sharing the running product of a common prefix gives the very floats of the product letter by letter, in
    the outputs' depth-first order and in any other order."""
    rng = np.random.default_rng(3)
    mech = preset("lyu-2", cutoff=3)
    for k in (1, 3, 8):
        below, w = rng.random((k, 301)), rng.random(301)
        above = 1.0 - below
        ref = {}
        for s in mech.outputs(k):
            prob, seg = 1.0, np.ones(301)
            for i, ch in enumerate(s):
                seg = seg * (above[i] if ch == "A" else below[i])
                if ch == "A" and resample:
                    prob *= float(np.dot(w, seg))
                    seg = np.ones(301)
            ref[s] = prob * float(np.dot(w, seg)) if not (resample and s.endswith("A")) else prob
        assert prefix_products(mech.outputs(k), below, above, w, resample) == ref
        shuffled = [mech.outputs(k)[j] for j in rng.permutation(len(ref))]
        assert prefix_products(shuffled, below, above, w, resample) == ref


def test_grid_laws_are_remembered_as_copies():
    cand, rows = Candidate("c", preset("lyu-1", cutoff=2)), [(0.0, 1.0, -1.0)]
    first = grid_letter_laws(cand, rows)
    first[0]["AA"] = -1.0  # a caller's change does not reach the remembered law
    again = grid_letter_laws(cand, rows)
    assert again[0]["AA"] > 0 and again[0] == grid_letter_laws(Candidate("other label", cand.mech), rows)[0]


@pytest.mark.parametrize("name,tol", [("lyu-3", 1e-12), ("numeric-svt", 1e-12), ("gap-svt", 1e-4)])
def test_release_density_against_the_fast_path(name, tol):
    mech = preset(name, cutoff=2)
    for q in (0.0, -1.0, 2.5):
        v, dens = _density(mech, q)
        idx = np.linspace(0, len(v) - 1, 9).astype(int)[1:-1]
        idx = idx[dens[idx] > 1e-8]
        lv, _ = fast_log_probability(mech, np.full((len(idx), 1), q), "A", v[idx][:, None])
        assert np.max(np.abs(dens[idx] / np.exp(lv) - 1)) < tol


def test_release_cells_are_equal_masses_under_the_claim():
    mech = preset("lyu-3", cutoff=2)
    cand = Candidate("c", mech)
    edges = release_edges(cand, 0.0, 10)
    cells, err = release_cells(cand, 0.0, edges)
    assert cells.sum() == pytest.approx(1, abs=1e-12) and err < 1e-5
    assert np.allclose(cells[1:], cells[1:].mean(), rtol=1e-4)
    point, _ = release_cells(Candidate("u", mech, Law.UNNOISED), 0.0, edges)
    assert np.count_nonzero(point[1:]) == 1 and point[1:].sum() == pytest.approx(cells[1:].sum())


def test_released_value_laws_are_remembered_read_only_and_bounded(monkeypatch):
    """The value law at one (mechanism, q) is computed once: the bins' edges and the cells asked again get the very
    same arrays, read-only, and the same floats as computing the density afresh; the cache holds at most
    `VALUE_LAW_CACHE` entries."""
    mech = preset("lyu-3", cutoff=2)
    q = 0.123456789  # a query no other test asks about
    computed = []
    monkeypatch.setattr(laws, "_density", lambda m, x: computed.append((m, x)) or _density(m, x))
    v, cum = laws.value_law(mech, q)
    again = laws.value_law(mech, q)
    assert computed == [(mech, q)] and again[0] is v and again[1] is cum
    assert not v.flags.writeable and not cum.flags.writeable
    edges = release_edges(Candidate("c", mech), q, 10)
    cells, _ = release_cells(Candidate("other label", mech), q, edges)
    assert computed == [(mech, q)]
    v0, dens = _density(mech, q)
    cum0 = laws._cumulative(v0, dens)
    assert np.array_equal(v, v0) and np.array_equal(cum, cum0)
    assert np.array_equal(edges, np.interp(cum0[-1] * np.arange(1, 10) / 10, cum0, v0))
    assert laws.value_law.cache_info().maxsize == laws.VALUE_LAW_CACHE <= 64


def test_candidates_are_merged_by_law():
    cands = candidates(preset("lyu-1", cutoff=2))
    keys = [c.key() for c, _ in cands]
    assert len(keys) == len(set(keys))
    labels = {lab for _, labs in cands for lab in labs}
    assert {"threshold shared (not resampled)", "cutoff 3 with the scales of cutoff 2"} & labels
    halved = next(labs for c, labs in cands if "query noise Lap(4Δ/ε) (the claim's scale halved)" in labs)
    assert "preset dwork-roth (cutoff 2)" in halved  # the same law under two names


def test_pairs_are_neighbours():
    mech = preset("lyu-3", cutoff=2)
    pairs = select_pairs(mech, 3, 4, seed=0)
    assert [p.kind for p in pairs].count(PairKind.RANDOM) == 4 and pairs[0].kind is PairKind.WORST
    assert pairs[-1].kind is PairKind.RELEASE and len(pairs[-1].queries) == 1
    for p in pairs:
        assert max(abs(a - b) for a, b in zip(p.queries, p.neighbour)) <= 1 + 1e-12
    assert select_pairs(mech, 3, 4, seed=0) == pairs != select_pairs(mech, 3, 4, seed=1)


# --- adapters -----------------------------------------------------------------------------------------
def test_stream_and_vector_adapters():
    def make(rng):
        left = [2]

        def ask(q):
            if left[0] == 0:
                raise StopIteration
            if q > 0:
                left[0] -= 1
                return True, q + 0.5
            return False

        return ask

    q = np.array([1.0, -1.0, 2.0, 3.0])
    assert from_stream(make)(q, np.random.default_rng(0)) == ("ABA", (1.5, 2.5))
    assert from_vector(lambda qs, rng: [x > 0 for x in qs])(q, None) == ("ABAA", ())
    assert from_vector(lambda qs, rng: [0, 2], indices=True, cutoff=2)(q, None) == ("ABA", ())
    assert from_vector(lambda qs, rng: [2], indices=True, cutoff=2)(q, None) == ("BBAB", ())
    with pytest.raises(InputError, match="distinct indices"):
        from_vector(lambda qs, rng: [7], indices=True)(q, None)


def test_normalize_and_load_refuse_bad_input():
    assert normalize(("AB", [1])) == ("AB", (1.0,))
    for bad in ("", "AC", 3, ("A", ["x"])):
        with pytest.raises(InputError):
            normalize(bad)
    assert load("verify.audit.examples:lyu1").__name__ == "lyu1"
    for spec, rule in (("os.system('x'):f", "MODULE:CALLABLE"), ("no_such_module_xyz:f", "cannot import"),
                       ("verify.audit.examples:nope", "no attribute"), ("verify.audit.examples:FIXTURES", "not callable")):
        with pytest.raises(InputError, match=rule):
            load(spec)


def test_total_variation_is_the_correctly_rounded_sum_whatever_the_order_of_the_outcomes():
    """½ Σ |frequency − probability| over a set of outcomes, whose order for strings changes with Python's string
    hashing from run to run (the fit's reported distance moved in its last digit between runs).  Integer keys give
    a fixed set order (ascending) with a large term first, where a plain sum absorbs the 30 small ones: the result
    must be half the exact sum of the terms, rounded once."""
    from fractions import Fraction

    law = {0: 0.75, **{i: 1e-17 for i in range(1, 31)}}
    counts = {0: 1, 31: 3}  # frequencies 1/4 and 3/4 over four runs
    exact = sum(Fraction(abs(counts.get(o, 0) / 4 - law.get(o, 0.0))) for o in set(law) | set(counts)) / 2
    assert total_variation(counts, law) == float(exact) == 0.6250000000000001
    assert total_variation({"A": 3, "B": 1}, {"A": 0.5, "B": 0.5}) == 0.25
