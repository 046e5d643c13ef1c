"""Every registered release rule, through every path that reads it.

The rules are taken from `verify.release.RELEASE_RULES`, so a new rule is
tested here without a new test: its density integrates to the letters'
probability (the released value is one more coordinate of the same event), the
oracle, the model's engine, the fast path and the search's evaluator give the
same number, and the sampler draws values from that density.  Noise: Laplace
Z ~ Lap(2), X ~ Lap(3), and Y ~ Lap(5/2) where the rule needs a release noise;
ε = 1/2, Δ = 1, t = 1.
"""

from __future__ import annotations

import functools
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from released_density import log_density
from scipy import stats

from verify.engine.fast_generic import log_probability
from verify.family.probability import mp_probability
from verify.family.sampler import sample
from verify.family.structured import Layout, family_log_probability
from verify.mechanism import SparseVector
from verify.noise import NoiseSpec
from verify.oracles.family import output_probability
from verify.release import RELEASE_RULES, Release, release_rule

T = Fraction(1)
RULES = list(RELEASE_RULES)
VALUED = [r for r in RULES if RELEASE_RULES[r].releases_values]
#: False-alarm rate of the one statistical test (KS, per rule).
ALPHA = 1e-4


@functools.cache
def released_after_a(release: Release) -> np.ndarray:
    """The released values of the runs ending in 'A' among 40,000 seeded runs at q = 0.5 (shared by the KS test
    and its negative control)."""
    s = sample(mech(release), [0.5], 40_000, seed=20261202)
    return s.released[s.outcomes == "A", 0]


@functools.cache
def density_cdf(release: Release, lo: float) -> tuple[np.ndarray, np.ndarray]:
    """(grid, CDF): the fast path's density of 'A' at q = 0.5 on 4001 points of [lo, 80], integrated by the
    trapezoid rule and normalised."""
    grid = np.linspace(lo, 80.0, 4001)
    dens = np.exp(log_density(mech(release), 0.5, "A", grid))
    cdf = np.concatenate([[0.0], np.cumsum((dens[1:] + dens[:-1]) / 2 * np.diff(grid))])
    return grid, cdf / cdf[-1]


def mech(release: Release, cutoff: int = 1) -> SparseVector:
    rule = release_rule(release)
    spec = NoiseSpec("laplace", absolute=Fraction(5, 2)) if rule.needs_release_noise else None
    return SparseVector(Fraction(1, 2), 1, T, NoiseSpec("laplace", absolute=2), NoiseSpec("laplace", absolute=3),
                        cutoff=cutoff, release=release, release_spec=spec, name=f"rule-{release.value}")


def test_every_release_member_has_one_rule_object():
    assert set(RELEASE_RULES) == set(Release)
    for member, rule in RELEASE_RULES.items():
        assert rule.name == member.value
        assert release_rule(member.value) is rule
        assert mech(member).release_rule is rule
        assert mech(member).releases_values is rule.releases_values
    with pytest.raises(ValueError):
        release_rule("gapp")


@pytest.mark.slow
@pytest.mark.parametrize("release", VALUED, ids=str)
def test_the_density_integrates_to_the_letters_probability(release):
    """∫ Pr[A, v] dv over the released value = Pr[A] of the same variant without a release (mpmath, 20
    digits).  The integral: Gauss-Legendre, 16 nodes on each of 40 panels of every segment between the
    kinks of any rule (q, t, 0, q - t), on the fast path's density; cut at ±120, where every density here
    is below e^-40 of its peak.  Each piece is smooth (exponential), so the rule is exact far below the
    1e-9 asked."""
    m, q = mech(release), Fraction(1, 2)
    letters = float(output_probability(mech(Release.NONE), [q], "A", (), 20))
    lo = 0.0 if release_rule(release).nonnegative else -120.0
    edges = [lo] + sorted(p for p in {float(q), float(T), 0.0, float(q - T)} if p > lo) + [120.0]
    x, w = np.polynomial.legendre.leggauss(16)
    cuts = np.concatenate([np.linspace(a, b, 41)[:-1] for a, b in zip(edges, edges[1:])] + [[edges[-1]]])
    half = np.diff(cuts)[:, None] / 2
    nodes = (cuts[:-1, None] + half * (x[None, :] + 1)).ravel()
    dens = np.exp(log_density(m, float(q), "A", nodes))
    total = float(np.sum(dens.reshape(half.shape[0], -1) * (half * w[None, :])))
    assert abs(total / letters - 1) < 1e-9


@pytest.mark.parametrize("release", RULES, ids=str)
@pytest.mark.parametrize("u, v, r", [(0.5, -0.25, 0.75), (2.0, 1.5, 0.0), (-1.0, 3.0, 2.5)])
def test_oracle_engine_fast_path_and_search_agree(release, u, v, r):
    """Outcome 'BA' with B at t + u, A at t + v and the search's value coordinate r: the released value
    is the rule's `search_value(t, r)`; four paths agree to 1e-9 (float64 paths) and 1e-20 (mpmath)."""
    m, rule = mech(release), release_rule(release)
    q = [T + Fraction(u), T + Fraction(v)]
    rel = (rule.search_value(T, Fraction(r)),) if rule.releases_values else ()
    exact = output_probability(m, q, "BA", rel, 30)
    engine = mp_probability(m, q, "BA", list(rel) or None, 30)
    assert abs(engine / exact - 1) < mpmath.mpf(10) ** -20
    fast = log_probability(m, np.array([[float(x) for x in q]]), "BA",
                           np.array([[float(x) for x in rel]]) if rel else None).log_value[0]
    search = family_log_probability(m, Layout(1, 1), u, v, r)[0]
    log_exact = float(mpmath.log(exact))
    assert abs(fast - log_exact) < 1e-9 * max(1.0, abs(log_exact))
    assert abs(search - log_exact) < 1e-9 * max(1.0, abs(log_exact))


@pytest.mark.slow
@pytest.mark.parametrize("release", VALUED, ids=str)
def test_the_sampler_draws_the_rule_density(release):
    """Runs ending in 'A' (k = 1, 40,000 seeded runs): their released values against the CDF of the fast
    path's density on a 4001-point grid (trapezoid rule; grid error far below the KS resolution);
    false-alarm rate ALPHA."""
    grid, cdf = density_cdf(release, 0.0 if release_rule(release).nonnegative else -80.0)
    assert stats.kstest(released_after_a(release), lambda x: np.interp(x, grid, cdf)).pvalue >= ALPHA


@pytest.mark.slow
def test_the_sampler_test_has_power_negative_control():
    """The gap rule's samples tested against the query rule's density must be rejected."""
    grid, cdf = density_cdf(Release.QUERY, -80.0)
    assert stats.kstest(released_after_a(Release.GAP), lambda x: np.interp(x, grid, cdf)).pvalue < ALPHA


@pytest.mark.parametrize("release", VALUED, ids=str)
def test_the_noiseless_value_is_what_the_sampler_releases_without_noise(release):
    """With every noise 0 (scales -> 'none' is refused for a released density, so the draw is called
    directly) the rule's draw at q = t equals `noiseless_value(t, t)`."""
    rule = release_rule(release)
    rng = np.random.default_rng(0)

    class Zero:
        @staticmethod
        def sample(rng, runs):
            return np.zeros(runs)

    drawn = rule.draw(np.array([float(T)]), np.array([float(T)]), float(T), Zero(), rng, 1)
    assert drawn[0] == float(rule.noiseless_value(T, T))
