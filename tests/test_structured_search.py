"""The structured search's layouts and float64 objective, checked against enumeration and the exact oracle.

* `layouts` covers every letter-count class of complete outputs (by enumeration of the complete outcome
  strings, `verify.family.delta.complete_outputs`) for each policy and cutoff, and nothing else;
* `family_log_probability` of a layout at (u, v, r) equals the exact oracle's log probability (or log
  density) of the layout's outcome string with B queries at t + u, A queries at t + v and the released
  value r (gap) or t + r (query, fresh), to 1e-9 relative (float64 quadrature), for every release kind
  and policy, Laplace and exponential noise; `family_log_ratio` is the difference of the two sides.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest

from verify.family.delta import complete_outputs
from verify.family.structured import family_log_probability, family_log_ratio, layouts
from verify.mechanism import SparseVector
from verify.noise import NoiseSpec
from verify.oracles.family import output_probability

T = Fraction(1, 2)


def shape(policy="shared", release="none", cutoff=2, z="laplace", x="laplace", y=None) -> SparseVector:
    return SparseVector(Fraction(1, 2), Fraction(1), T, NoiseSpec(z, absolute=Fraction(2)), NoiseSpec(x, absolute=Fraction(3)),
                        cutoff=cutoff, threshold_policy=policy, release=release,
                        release_spec=None if y is None else NoiseSpec(y, absolute=Fraction(5, 2)))


@pytest.mark.parametrize("policy", ["shared", "resample"])
@pytest.mark.parametrize("cutoff", [1, 2, 3, None])
def test_layouts_are_the_letter_count_classes_of_complete_outputs(policy, cutoff):
    s = shape(policy=policy, cutoff=cutoff)
    K = 4
    got = {(lay.n_b, lay.n_a) for lay in layouts(s, K)}
    for lay in layouts(s, K):
        out = lay.string(s)
        assert len(out) == lay.k <= K and (out.count("B"), out.count("A")) == (lay.n_b, lay.n_a)
        if policy == "resample":
            assert out == ("B" * lay.seg_b + "A") * lay.n_a + "B" * lay.tail_b
    # the classes of the complete outputs with exactly K queries, or halted earlier at the c-th A
    want = set()
    for k in range(1, K + 1):
        for o in complete_outputs(s, k):
            if len(o) == K or (cutoff is not None and o.count("A") == cutoff):
                want.add((o.count("B"), o.count("A")))
    if policy == "shared":
        assert got == want
    else:  # resample: one representative per (segment length, trailing B's); same letter counts
        assert got <= want and {n_a for _, n_a in got} == {n_a for _, n_a in want}


CASES = [("shared", "none", None), ("resample", "none", None), ("shared", "gap", None), ("resample", "gap", None),
         ("shared", "fresh", "laplace"), ("shared", "fresh", "exponential"), ("shared", "query", None), ("resample", "fresh", "laplace")]


@pytest.mark.parametrize("policy,release,y", CASES)
@pytest.mark.parametrize("z,x", [("laplace", "laplace"), ("exponential", "laplace"), ("laplace", "exponential")])
def test_float64_objective_equals_the_exact_oracle(policy, release, y, z, x):
    s = shape(policy=policy, release=release, z=z, x=x, y=y, cutoff=2)
    rng = np.random.default_rng(3)
    for lay in layouts(s, 3):
        out = lay.string(s)
        for _ in range(2):
            u, v = (Fraction(float(a)).limit_denominator(8) for a in rng.uniform(-6, 6, 2))
            r = Fraction(float(rng.uniform(0.1, 4) if release == "gap" else rng.uniform(-2, 6))).limit_denominator(8)
            q = tuple(T + (u if ch == "B" else v) for ch in out)
            rel = () if release == "none" else ((r if release == "gap" else T + r),) * out.count("A")
            with mpmath.workdps(30):
                exact = output_probability(s, q, out, rel, 20)
                f = float(family_log_probability(s, lay, float(u), float(v), float(r))[0])
                if exact == 0:
                    assert f == -np.inf, (out, u, v, r)
                    continue
                assert abs(f - float(mpmath.log(exact))) <= 1e-9 * max(1.0, abs(f)), (out, u, v, r, f, exact)
            lr = float(family_log_ratio(s, lay, float(u), float(v), float(r), 1.0, -1.0)[0])
            fn = float(family_log_probability(s, lay, float(u) + 1, float(v) - 1, float(r))[0])
            if np.isfinite(fn):
                assert lr == pytest.approx(f - fn, abs=1e-12)
