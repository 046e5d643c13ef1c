"""The float64 evaluator's shortcuts (`verify.family.structured`) give the same bits as the plain evaluation:
repeated points computed once, remembered values, both sides of a ratio in one pass, small chunks."""

from __future__ import annotations

import numpy as np
import pytest

from verify.family import structured as S
from verify.family.presets import preset
from verify.family.structured import Layout, family_log_probability, family_log_ratio, family_log_ratio_at, layouts


def _bits(a: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(a, dtype=float).view(np.int64)


def _points(seed: int, n: int = 60):
    """Seeded points with repeats, 0.0 and -0.0 both present."""
    rng = np.random.default_rng(seed)
    u = np.round(rng.uniform(-30, 30, n), 1)
    v = np.round(rng.uniform(-30, 30, n), 1)
    u[:3], v[:3] = (0.0, -0.0, 0.0), (-0.0, 0.0, 0.0)
    idx = rng.integers(0, n, 3 * n)
    return u[idx], v[idx], np.round(rng.uniform(-5, 5, 3 * n), 2)


@pytest.mark.parametrize("name", ["numeric-svt", "seed-m1", "lyu-6", "gap-svt", "lyu-3"])
@pytest.mark.parametrize("n_b, n_a", [(0, 1), (3, 1), (2, 0)])
def test_repeated_and_remembered_points_give_the_plain_values(name, n_b, n_a):
    shape = preset(name).with_changes(cutoff=1)
    u, v, r = _points(7)
    if S._r_free(shape):
        r = np.zeros_like(u) if name != "numeric-svt" else r  # the fresh release: r does not enter
    plain = S._segment_points(shape, n_b, n_a, u, v, r)
    S.clear_memo()
    first = S._segment_log(shape, n_b, n_a, u, v, r)
    again = S._segment_log(shape, n_b, n_a, u, v, r)  # remembered (r-free shapes)
    assert np.array_equal(_bits(first), _bits(plain)) and np.array_equal(_bits(again), _bits(plain))
    again[:] = 0.0  # the caller owns what it gets: the remembered values are not changed
    assert np.array_equal(_bits(S._segment_log(shape, n_b, n_a, u, v, r)), _bits(plain))
    one = S._segment_points(shape, n_b, n_a, u[:1], v[:1], r[:1])  # a single point (no repeats): the same
    for _ in range(2):
        got = S._segment_log(shape, n_b, n_a, u[:1], v[:1], r[:1])
        assert _bits(got)[0] == _bits(one)[0]
        got[:] = 0.0


def test_the_fresh_release_ignores_r_in_the_integral():
    shape = preset("numeric-svt", cutoff=1)
    assert S._r_free(shape)
    u, v, r = _points(3)
    a = S._segment_points(shape, 2, 1, u, v, r)
    b = S._segment_points(shape, 2, 1, u, v, r + 1.5)
    assert np.array_equal(_bits(a), _bits(b))


@pytest.mark.parametrize("name", ["numeric-svt", "gap-svt", "lyu-3", "seed-m2"])
def test_groups_are_separate_calls(name):
    shape = preset(name).with_changes(cutoff=1)
    u, v, r = _points(11, 20)
    n = 25
    wide = u.copy()
    wide[n:] = wide[n:] * 8  # the second group is wider: more sub-panels than the first
    one = S._segment_points(shape, 3, 1, wide[:n], v[:n], r[:n])
    two = S._segment_points(shape, 3, 1, wide[n:], v[n:], r[n:])
    both = S._segment_points(shape, 3, 1, wide, v, r, groups=((0, n), (n, len(u))))
    assert np.array_equal(_bits(both), _bits(np.concatenate([one, two])))
    whole = S._segment_points(shape, 3, 1, wide, v, r)
    assert not np.array_equal(_bits(whole[:n]), _bits(one))  # one group: the first part gets the wider panels


@pytest.mark.parametrize("name", ["numeric-svt", "gap-svt", "seed-m1"])
def test_log_ratio_equals_the_two_sides_computed_apart(name):
    shape = preset(name).with_changes(cutoff=1)
    lay = Layout(3, 1)
    for u, v, r in [(0.5, -2.0, 1.0), (40.0, -17.0, 0.25), (-3.0, 3.0, 0.0)]:
        S.clear_memo()
        p = family_log_probability(shape, lay, u, v, r)
        pn = family_log_probability(shape, lay, u + 1.0, v - 1.0, r)
        got = family_log_ratio(shape, lay, u, v, r, 1.0, -1.0)
        assert _bits(got)[0] == _bits(p - pn)[0]


@pytest.mark.parametrize("name, cutoff", [("numeric-svt", 2), ("gap-svt", 1), ("seed-m1", 1), ("lyu-2", 2), ("lyu-3", 2),
                                          ("seed-m2", 1), ("gaussian-svt", 1)])
def test_the_one_point_ratio_is_the_array_ratio_bit_for_bit(name, cutoff):
    """`family_log_ratio_at` (the refinement's objective) is `family_log_ratio` at one point: the same bits on every
    layout with up to 3 queries, at points near the kinks, far out (a side impossible or both: ±inf, 0, nan), with a
    gap below 0, shared and resampled thresholds, compiled (Laplace, exponential) and numpy's (Gaussian) loops."""
    shape = preset(name).with_changes(cutoff=cutoff)
    points = [(0.5, -2.0, 1.0), (40.0, -17.0, 0.25), (-3.0, 3.0, -0.5), (0.0, -0.0, 0.0), (1e4, -1e4, 2.0), (-1e4, 1e4, -2.0)]
    for lay in layouts(shape, 3, every_k=True):
        for u, v, r in points:
            for s_b, s_a in ((1.0, -1.0), (1.0, 1.0), (0.0, -1.0)):
                S.clear_memo()
                want = family_log_ratio(shape, lay, u, v, r, s_b, s_a)[0]
                got = family_log_ratio_at(shape, lay, u, v, r, s_b, s_a)  # cold, then remembered
                again = family_log_ratio_at(shape, lay, u, v, r, s_b, s_a)
                assert isinstance(got, float)
                assert _bits(np.array([got]))[0] == _bits(np.array([want]))[0] == _bits(np.array([again]))[0], (lay, u, v, r)


def test_chunk_size_never_changes_a_value(monkeypatch):
    shape = preset("gap-svt").with_changes(cutoff=1)
    u, v, r = _points(5)
    r = np.abs(r)
    big = S._segment_points(shape, 4, 1, u, v, r)
    monkeypatch.setattr(S, "CHUNK_NODES", 1)  # one point per chunk
    small = S._segment_points(shape, 4, 1, u, v, r)
    assert np.array_equal(_bits(big), _bits(small))


# --- the memo across variants: keyed by what the integrand reads (`integrand_key`), nothing else ---------------
def _fresh(shape, n_b, n_a, u, v, r, groups=None):
    """The plain evaluation (no memo)."""
    return S._segment_points(shape, n_b, n_a, u, v, r, groups)


def test_variants_with_one_integrand_share_values_and_the_plain_bits():
    """dwork-roth and lyu-1 at c = 1 differ only in t (and their names): the second one's evaluation is a memo hit
    (no new `_segment_points` call) and equals its own plain evaluation bit for bit."""
    a, b = preset("dwork-roth", cutoff=1), preset("lyu-1", threshold="1/2", cutoff=1)
    assert a.threshold != b.threshold and S.integrand_key(a) == S.integrand_key(b)
    u, v, r = _points(13)
    S.clear_memo()
    S._segment_log(a, 3, 1, u, v, r)
    size = len(S._MEMO)
    got = S._segment_log(b, 3, 1, u, v, r)
    assert len(S._MEMO) == size
    assert np.array_equal(_bits(got), _bits(_fresh(b, 3, 1, u, v, r)))
    S.clear_memo()


def _shape_pairs():
    """Pairs of variants whose integrands differ in exactly one thing the key must hold."""
    from family_variants import variant

    base = dict(z=("laplace", 20), x=("laplace", 40))
    return {
        "query scale": (variant(**base), variant(z=("laplace", 20), x=("laplace", 30))),
        "threshold scale": (variant(**base), variant(z=("laplace", 25), x=("laplace", 40))),
        "threshold family": (variant(**base), variant(z=("exponential", 20), x=("laplace", 40))),
        "query family": (variant(**base), variant(z=("laplace", 20), x=("gaussian", 40))),
        "above term (gap: the density of X)": (variant(**base), variant(**base, release="gap")),
        "cap (query release: z <= r)": (variant(**base), variant(**base, release="query")),
    }


@pytest.mark.parametrize("what", sorted(_shape_pairs()))
def test_the_memo_never_gives_one_integrands_values_to_another(what):
    """A memo keyed too coarsely would hand the first variant's values to the second: each variant's values must
    be its own plain ones, in either order (and the two must differ, or the test would prove nothing)."""
    first, second = _shape_pairs()[what]
    u, v, r = _points(17, 30)
    r = np.abs(r)  # a gap is >= 0; the query release's cap r is any real
    for x, y in ((first, second), (second, first)):
        S.clear_memo()
        S._segment_log(x, 2, 1, u, v, r)
        got = S._segment_log(y, 2, 1, u, v, r)
        plain_x, plain_y = _fresh(x, 2, 1, u, v, r), _fresh(y, 2, 1, u, v, r)
        assert not np.array_equal(_bits(plain_x), _bits(plain_y))
        assert np.array_equal(_bits(got), _bits(plain_y))
    S.clear_memo()


def test_the_memo_keeps_counts_groups_and_r_apart():
    """The same points with other counts, with groups (each group's own panels) or, where r enters (the gap
    release), another r: each call gets its own plain values."""
    shape = preset("gap-svt", cutoff=1)
    assert not S._r_free(shape)
    u, v, r = _points(19, 20)
    r = np.abs(r)
    n = len(u) // 2
    wide = u.copy()
    wide[n:] *= 8
    S.clear_memo()
    calls = [((3, 1, wide, v, r, None), None), ((2, 1, wide, v, r, None), None), ((3, 0, wide, v, r, None), None),
             ((3, 1, wide, v, r, ((0, n), (n, len(u)))), None), ((3, 1, wide, v, r + 0.5, None), None)]
    seen = []
    for (n_b, n_a, uu, vv, rr, groups), _ in calls:
        got = S._segment_log(shape, n_b, n_a, uu, vv, rr, groups)
        assert np.array_equal(_bits(got), _bits(_fresh(shape, n_b, n_a, uu, vv, rr, groups)))
        seen.append(_bits(got))
    assert all(not np.array_equal(seen[0], other) for other in seen[1:])  # each call really differs from the first
    S.clear_memo()
