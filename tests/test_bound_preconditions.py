"""Every case of the proven-bound derivation (`verify.family.bounds`) at the edge of its precondition.

For each case a configuration just inside gets the bound, whose value is written here from the
derivation (never by calling the bound function), and one just outside gets none and a reason that
names the failed precondition.  The whole grid noise family × role (threshold Z, query X, release Y)
× threshold policy × release kind × cutoff × monotone neighbours that the model admits is compared
with the same derivation, and the growth proofs (lower bounds behind ``unbounded``) are checked at the
edges of their preconditions too.

The derivation (the seed's Proof 2 change of variables z -> z ± Δ, extended as in Lyu, Su, Li, PVLDB
2017, proof of Thm 2):

* Laplace Lap(b) has a log-Lipschitz density and survival, constant 1/b; exponential Exp(b) only a
  log-Lipschitz survival, 1/b (its density is 0 below 0, so z and z + Δ can fall on different sides
  of the support: seed, Mechanism Two); Gaussian and ``none`` neither.
* The threshold's density moves once per drawn threshold: Δ/b_Z (shared), c·Δ/b_Z (resampled, one
  per above-terminated segment, and a trailing below-run costs one more without an above, so c in all).
* Each above moves the query noise's survival (no release, fresh release) or density (gap release)
  by h ∈ [0, 2Δ]: 2Δ/b_X per above; monotone neighbours (all shifts of one sign) have h ∈ [0, Δ]:
  Δ/b_X per above.
* A fresh release adds the density of Y moved by |q_i - q_i'| <= Δ: Δ/b_Y per above.
* A query release and an unlimited cutoff give no bound.
* The seed's own AboveThreshold (cutoff 1, shared, no release, not monotone) with a threshold noise
  that is not Laplace falls back on the seed's certified bound (`verify.certify`): for the seed's
  families Laplace/exponential/none only.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import mpmath
import pytest

from verify.family.bounds import (
    gaussian_tail_growth,
    growth,
    no_cutoff_growth,
    proven_upper_bound,
    query_release_growth,
    upper_bound_at,
    why_no_bound,
)
from verify.family.delta import exact_delta
from verify.family.delta_search import worst_delta
from verify.mechanism import SparseVector
from verify.noise import Noise, NoiseSpec
from verify.oracles.family import output_probability

# Δ != 1 and distinct absolute scales per role, so that a bound that drops Δ, or takes one role's scale
# for another's, gives a different number.
EPS, DELTA, T = Fraction(1, 10), Fraction(3, 2), Fraction(1)
B_Z, B_X, B_Y = Fraction(2), Fraction(5), Fraction(7)
FAMILIES = ("laplace", "exponential", "gaussian", "none")


def mp(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def law(family: str, scale: Fraction) -> Noise:
    return Noise(family, Fraction(0) if family == "none" else scale)


def spec(family: str, scale: Fraction) -> NoiseSpec:
    """The variable's noise at an absolute scale (none: no noise)."""
    return NoiseSpec("none") if family == "none" else NoiseSpec(family, absolute=scale)


def shape(z="laplace", x="laplace", y=None, cutoff=2, policy="shared", release="none", delta=DELTA,
          bz=B_Z, bx=B_X, by=B_Y) -> SparseVector:
    return SparseVector(EPS, delta, T, spec(z, bz), spec(x, bx), cutoff=cutoff, threshold_policy=policy, release=release,
                        release_spec=None if y is None else spec(y, by))


# --------------------------------------------------------------------------------------------------
# the independent derivation (module docstring)
# --------------------------------------------------------------------------------------------------
def lipschitz_density(family: str, b: Fraction) -> Fraction | None:
    # |log p(u) - log p(u+h)| <= |h|/b for Lap(b): p(u) = e^{-|u|/b}/(2b) and ||u| - |u+h|| <= |h|.
    return 1 / b if family == "laplace" else None


def lipschitz_survival(family: str, b: Fraction) -> Fraction | None:
    # Lap(b): log S is -u/b - log 2 for u >= 0 and log(1 - e^{u/b}/2) for u < 0 (slope in (-1/b, 0]);
    # Exp(b): log S(u) = -max(0, u)/b.  Gaussian: slope -u/σ² unbounded; none: S jumps from 1 to 0.
    return 1 / b if family in ("laplace", "exponential") else None


def expected_bound(s: SparseVector, monotone: bool) -> Fraction | None:
    """The module docstring's derivation, for the variants outside the seed's fallback."""
    if s.cutoff is None or s.release == "query":
        return None
    lz = lipschitz_density(s.threshold_noise.family, s.threshold_noise.scale)
    if s.release == "gap":
        lx = lipschitz_density(s.query_noise.family, s.query_noise.scale)
    else:
        lx = lipschitz_survival(s.query_noise.family, s.query_noise.scale)
    ly = Fraction(0)
    if s.release == "fresh":
        ly = lipschitz_density(s.release_noise.family, s.release_noise.scale)
    if lz is None or lx is None or ly is None:
        return None
    c, d = s.cutoff, s.sensitivity
    h = 1 if monotone else 2  # the worst move of an above query's argument, in units of Δ
    if s.threshold_policy == "shared":
        return d * lz + h * c * d * lx + c * d * ly
    return c * (d * lz + h * d * lx) + c * d * ly


def seed_fallback(s: SparseVector, monotone: bool) -> bool:
    return (s.cutoff == 1 and s.threshold_policy == "shared" and s.release == "none" and not monotone
            and s.threshold_noise.family != "laplace")


def admitted(z: str, x: str, y: str | None, release: str) -> bool:
    """What the family model accepts: a released value needs a query noise (query, gap) or a noise Y (fresh)."""
    if release in ("query", "gap") and x == "none":
        return False
    return (release == "fresh") == (y is not None) and y != "none"


GRID = [(z, x, y, pol, rel, c, mono)
        for z, x in itertools.product(FAMILIES, FAMILIES)
        for rel in ("none", "query", "gap", "fresh")
        for y in ((None,) if rel != "fresh" else ("laplace", "exponential", "gaussian"))
        for pol in ("shared", "resample") for c in (1, 3, None) for mono in (False, True)
        if admitted(z, x, y, rel)]


@pytest.mark.parametrize("z,x,y,policy,release,cutoff,monotone", [g for g in GRID if not seed_fallback(shape(g[0], g[1], g[2], g[5], g[3], g[4]), g[6])])
def test_every_admitted_variant_gets_the_derived_bound_or_a_reason(z, x, y, policy, release, cutoff, monotone):
    s = shape(z, x, y, cutoff, policy, release)
    want = expected_bound(s, monotone)
    got = proven_upper_bound(s, monotone)
    if want is None:
        assert got is None
        reason = why_no_bound(s, monotone)
        assert reason  # says why
    else:
        assert got is not None and got.value == want, (s.describe(), monotone, got)
        assert why_no_bound(s, monotone) is None


# --------------------------------------------------------------------------------------------------
# each precondition: just inside and just outside
# --------------------------------------------------------------------------------------------------
def test_case1_shared_laplace_inside_and_non_laplace_threshold_outside():
    # inside: Lap Z, Lap X, c = 3: Δ/b_Z + 2cΔ/b_X = 3/4 + 2·3·3/10 = 3/4 + 9/5
    inside = proven_upper_bound(shape(cutoff=3))
    assert inside.value == Fraction(3, 4) + Fraction(9, 5)
    # outside: the threshold noise exponential (density not log-Lipschitz across the support's edge)
    for z in ("exponential", "gaussian", "none"):
        assert proven_upper_bound(shape(z=z, cutoff=3)) is None
        assert "threshold noise" in why_no_bound(shape(z=z, cutoff=3))


def test_case1_lyu_algorithm_one_is_exactly_epsilon_for_every_cutoff():
    # Lyu Alg. 1: b_Z = 2Δ/ε, b_X = 4cΔ/ε: Δ/b_Z + 2cΔ/b_X = ε/2 + ε/2 = ε
    for c in (1, 2, 5):
        s = shape(cutoff=c, bz=2 * DELTA / EPS, bx=4 * c * DELTA / EPS)
        assert proven_upper_bound(s).value == EPS


def test_query_noise_survival_inside_for_laplace_and_exponential_outside_for_gaussian_and_none():
    # survival constant 1/b_X for Laplace and exponential X: Δ/b_Z + 2cΔ/b_X with c = 2
    for x in ("laplace", "exponential"):
        assert proven_upper_bound(shape(x=x, cutoff=2)).value == DELTA / B_Z + 4 * DELTA / B_X
    # Gaussian survival: log Q(u) has slope -> -∞, no constant
    for x in ("gaussian", "none"):
        s = shape(x=x, cutoff=2)
        assert proven_upper_bound(s) is None
        assert "query noise" in why_no_bound(s) and "survival" in why_no_bound(s)


def test_case2_resampled_threshold_pays_the_threshold_once_per_above():
    # resample, c = 3: c(Δ/b_Z + 2Δ/b_X) = 3(3/4 + 3/5) = 81/20; shared would give 3/4 + 9/5 = 51/20
    res = proven_upper_bound(shape(cutoff=3, policy="resample"))
    assert res.value == 3 * (DELTA / B_Z + 2 * DELTA / B_X) == Fraction(81, 20)
    assert proven_upper_bound(shape(cutoff=3)).value == Fraction(51, 20)
    # c = 1: one segment, the two policies agree
    assert proven_upper_bound(shape(cutoff=1, policy="resample")).value == DELTA / B_Z + 2 * DELTA / B_X
    assert proven_upper_bound(shape(z="exponential", cutoff=3, policy="resample")) is None


def test_case3_gap_release_needs_the_density_of_the_query_noise():
    # inside: Lap X, density constant 1/b_X, same value as case 1
    assert proven_upper_bound(shape(release="gap", cutoff=2)).value == DELTA / B_Z + 4 * DELTA / B_X
    assert proven_upper_bound(shape(release="gap", cutoff=2, policy="resample")).value == 2 * (DELTA / B_Z + 2 * DELTA / B_X)
    # outside: exponential X has a log-Lipschitz survival but not density (the gap's density jumps at 0)
    for x in ("exponential", "gaussian"):
        s = shape(x=x, release="gap", cutoff=2)
        assert proven_upper_bound(s) is None
        assert "density" in why_no_bound(s) and "query noise" in why_no_bound(s)


def test_case4_fresh_release_adds_the_release_density():
    # inside: Lap Y: + cΔ/b_Y
    s = shape(y="laplace", release="fresh", cutoff=2)
    assert proven_upper_bound(s).value == DELTA / B_Z + 4 * DELTA / B_X + 2 * DELTA / B_Y
    # NumericalSVT: b_Z = 3Δ/ε, b_X = 6cΔ/ε, b_Y = 3cΔ/ε gives ε/3 + ε/3 + ε/3 = ε
    c = 2
    ns = shape(y="laplace", release="fresh", cutoff=c, bz=3 * DELTA / EPS, bx=6 * c * DELTA / EPS, by=3 * c * DELTA / EPS)
    assert proven_upper_bound(ns).value == EPS
    # the survival of X is what counts for the above factor: exponential X still inside
    assert proven_upper_bound(shape(x="exponential", y="laplace", release="fresh", cutoff=2)).value == \
        DELTA / B_Z + 4 * DELTA / B_X + 2 * DELTA / B_Y
    # outside: exponential (or Gaussian) Y has no log-Lipschitz density
    for y in ("exponential", "gaussian"):
        s = shape(y=y, release="fresh", cutoff=2)
        assert proven_upper_bound(s) is None
        assert "release noise" in why_no_bound(s)


def test_case5_query_release_has_no_bound_but_growth():
    s = shape(release="query", cutoff=2)
    assert proven_upper_bound(s) is None and "query release" in why_no_bound(s)
    # its growth: loss of the i-th output exactly iΔ/b_X, slope Δ/b_X
    g = query_release_growth(s)
    assert g is not None and g.slope == DELTA / B_X
    assert query_release_growth(shape(release="gap", cutoff=2)) is None
    assert query_release_growth(shape(x="exponential", release="query", cutoff=2)) is None


def test_case6_monotone_neighbours_halve_the_query_term_only():
    # shared c = 3: Δ/b_Z + cΔ/b_X; resample: c(Δ/b_Z + Δ/b_X); fresh: + cΔ/b_Y unchanged
    assert proven_upper_bound(shape(cutoff=3), monotone=True).value == DELTA / B_Z + 3 * DELTA / B_X
    assert proven_upper_bound(shape(cutoff=3, policy="resample"), monotone=True).value == 3 * (DELTA / B_Z + DELTA / B_X)
    assert proven_upper_bound(shape(y="laplace", release="fresh", cutoff=3), monotone=True).value == \
        DELTA / B_Z + 3 * DELTA / B_X + 3 * DELTA / B_Y
    # monotone does not open the seed's fallback: exponential Z at cutoff 1 has no monotone bound
    assert proven_upper_bound(shape(z="exponential", cutoff=1), monotone=True) is None


def test_case7_unlimited_cutoff_no_bound_but_a_bound_for_k_queries():
    s = shape(cutoff=None)
    assert proven_upper_bound(s) is None and "unlimited cutoff" in why_no_bound(s)
    # k queries, at most k aboves: Δ/b_Z + 2kΔ/b_X
    assert upper_bound_at(s, 4).value == DELTA / B_Z + 8 * DELTA / B_X
    # a finite cutoff caps the aboves at min(c, k)
    assert upper_bound_at(shape(cutoff=2), 4).value == DELTA / B_Z + 4 * DELTA / B_X
    assert upper_bound_at(shape(cutoff=5), 3).value == DELTA / B_Z + 6 * DELTA / B_X


def test_seed_fallback_inside_for_mechanism_two_and_outside_when_any_precondition_fails():
    # inside: the seed's Mechanism Two (Exp(3Δ/ε) on threshold and queries, c = 1, shared, no release):
    # the seed's certified bound, ε (the conditional ratio's supremum (α + 2β)h with α = β = 1/3, h = ε)
    m2 = shape(z="exponential", x="exponential", cutoff=1, bz=3 * DELTA / EPS, bx=3 * DELTA / EPS)
    assert proven_upper_bound(m2).value == EPS
    # outside: each precondition of the fallback broken by one step
    for changed in (dict(cutoff=2), dict(policy="resample", cutoff=2), dict(release="gap", cutoff=1)):
        s = shape(**{**dict(z="exponential", x="exponential", cutoff=1, bz=3 * DELTA / EPS, bx=3 * DELTA / EPS), **changed})
        assert proven_upper_bound(s) is None and why_no_bound(s)
    assert proven_upper_bound(m2, monotone=True) is None
    # outside the seed's certified families: Gaussian threshold or query noise
    g = shape(z="gaussian", x="laplace", cutoff=1)
    assert proven_upper_bound(g) is None and "threshold" in why_no_bound(g)
    assert proven_upper_bound(shape(z="exponential", x="gaussian", cutoff=1)) is None
    # no threshold noise: the certification refutes the seed's conditional bound (support argument)
    nz = shape(z="none", x="laplace", cutoff=1)
    assert proven_upper_bound(nz) is None and why_no_bound(nz)


def test_bounds_scale_with_delta():
    # every term is linear in Δ at fixed absolute scales (rates are Δ/b, not 1/b)
    for kw in (dict(cutoff=2), dict(cutoff=2, policy="resample"), dict(y="laplace", release="fresh", cutoff=2),
               dict(release="gap", cutoff=3)):
        one = proven_upper_bound(shape(delta=Fraction(1), **kw)).value
        assert proven_upper_bound(shape(delta=DELTA, **kw)).value == DELTA * one
        assert upper_bound_at(shape(delta=Fraction(1, 3), **kw), 2).value == upper_bound_at(shape(delta=Fraction(1), **kw), 2).value / 3


# --------------------------------------------------------------------------------------------------
# growth proofs (the `unbounded` evidence) at the edges of their preconditions
# --------------------------------------------------------------------------------------------------
def test_no_cutoff_growth_needs_unlimited_cutoff_laplace_queries_and_a_shared_threshold():
    g = no_cutoff_growth(shape(cutoff=None))
    assert g is not None and g.slope == DELTA / B_X and not g.monotone_valid
    for kw in (dict(cutoff=5), dict(cutoff=None, x="exponential"), dict(cutoff=None, policy="resample")):
        assert no_cutoff_growth(shape(**kw)) is None


def test_growth_is_not_used_for_monotone_neighbours_when_its_family_is_not_monotone():
    # the no-cutoff family moves aboves by -Δ and belows by +Δ: not a monotone pair
    s = shape(cutoff=None)
    assert growth(s) is not None
    assert growth(s, monotone=True) is None
    # the query-release family moves every query by +Δ: valid for monotone neighbours
    qr = shape(release="query", cutoff=None)
    assert growth(qr, monotone=True) is not None and growth(qr, monotone=True).slope == DELTA / B_X


def test_gaussian_tail_growth_needs_gaussian_queries_and_a_gaussian_or_absent_threshold_noise():
    # inside: loss >= Δ(L - Δ)/σ², σ² = σ_Z² + σ_X²
    g = gaussian_tail_growth(shape(z="gaussian", x="gaussian", cutoff=1))
    assert g.slope == DELTA / (B_Z**2 + B_X**2)
    g0 = gaussian_tail_growth(shape(z="none", x="gaussian", cutoff=1))
    assert g0.slope == DELTA / B_X**2
    # outside: a Laplace (or exponential) threshold noise has a heavier tail; the argument does not apply
    for z in ("laplace", "exponential"):
        assert gaussian_tail_growth(shape(z=z, x="gaussian", cutoff=1)) is None
    assert gaussian_tail_growth(shape(z="gaussian", x="laplace", cutoff=1)) is None


def test_gaussian_tail_growth_is_a_true_lower_bound_at_its_edge():
    """One query, output A: Pr[A | q] = Q((t - q)/σ) exactly; at q = t - L the loss against q + Δ is at
    least Δ(L - Δ)/σ² (checked at 30 digits for several L, Gaussian Z and X)."""
    s = shape(z="gaussian", x="gaussian", cutoff=1)
    g = gaussian_tail_growth(s)
    with mpmath.workdps(30):
        sig = mpmath.sqrt(mp(B_Z**2 + B_X**2))
        for L in (Fraction(3), Fraction(20), Fraction(60)):
            q = T - L
            p = mpmath.erfc(mp(T - q) / (sig * mpmath.sqrt(2))) / 2
            pn = mpmath.erfc(mp(T - q - DELTA) / (sig * mpmath.sqrt(2))) / 2
            loss = mpmath.log(pn) - mpmath.log(p)
            assert loss >= mp(g.slope) * mp(L - DELTA)
            oracle = output_probability(s, (q,), "A", (), 30)
            assert abs(oracle / p - 1) < mpmath.mpf(10) ** -25


# --------------------------------------------------------------------------------------------------
# δ and the Rényi bound
# --------------------------------------------------------------------------------------------------
@pytest.mark.slow  # about 6 s CPU; tests/test_delta_rules.py checks the same rule quickly (no Laplace-threshold case)
def test_renyi_bound_only_for_gaussian_above_threshold_with_cutoff_one():
    # Zhu & Wang's Thm 8 is for c = 1, shared threshold, no release, Gaussian Z and X
    inside = exact_delta(shape(z="gaussian", x="gaussian", cutoff=1), (T,), (T + DELTA,), 1, digits=15)
    assert inside.rdp_delta is not None and 0 < inside.rdp_delta <= 1
    for kw in (dict(cutoff=2), dict(cutoff=None), dict(cutoff=2, policy="resample"), dict(z="laplace", cutoff=1)):
        out = exact_delta(shape(**{"z": "gaussian", "x": "gaussian", **kw}), (T,), (T + DELTA,), 1, digits=15)
        assert out.rdp_delta is None, kw


@pytest.mark.parametrize("family", ["laplace", "exponential"])
def test_worst_delta_returns_the_best_pair_of_its_own_grid_with_the_right_neighbour(family):
    """k = 1: the δ of the pair worst_delta returns is the largest exact δ over the same grid of queries
    t + v and both neighbours q ± Δ (computed here pair by pair).  For Laplace noise the best pairs are
    (t - 8, t - 9) and (t + 8, t + 9), whose mirrors q ∓ Δ have δ = 0: a neighbour moved the wrong way fails."""
    s = SparseVector(EPS, 1, T, NoiseSpec(family, absolute=Fraction(3)), NoiseSpec(family, absolute=Fraction(3)))
    ep = Fraction(1, 4)
    res = worst_delta(s, ep, max_queries=1, grid=7, digits=15)
    assert abs(res.queries[0] - res.neighbour[0]) == 1
    scale = 3.0
    best = mpmath.mpf(0)
    for j in range(7):
        v = Fraction(-8 * scale + j * 16 * scale / 6).limit_denominator(1000)
        for sgn in (1, -1):
            d = exact_delta(s, (T + v,), (T + v + sgn,), ep, digits=15).delta
            best = max(best, d)
    assert best > 0
    assert res.delta >= best * (1 - mpmath.mpf(10) ** -9)


def test_worst_delta_moves_the_earlier_queries_against_the_last_one():
    """The structured pairs of `worst_delta` (module docstring of `verify.family.delta`): earlier queries moved by
    +Δ and the last by -Δ, or the mirror; with two queries the best pair (here a two-query pair) has opposite shifts."""
    s = SparseVector(EPS, 1, T, NoiseSpec("laplace", absolute=Fraction(3)), NoiseSpec("laplace", absolute=Fraction(3)), cutoff=1)
    res = worst_delta(s, Fraction(1, 4), max_queries=2, grid=7, digits=15)
    assert len(res.queries) == 2
    shifts = [b - a for a, b in zip(res.queries, res.neighbour)]
    assert sorted(shifts) == [-1, 1], shifts
    one = worst_delta(s, Fraction(1, 4), max_queries=1, grid=7, digits=15)
    assert res.delta > one.delta
