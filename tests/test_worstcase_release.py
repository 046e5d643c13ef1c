"""The search moves released values and the above query (`verify.family.worstcase`): every fresh release noise.

NumericalSVT's shape (Lyu et al. 2017, Alg. 7) at ε = 1/10, t = 1: Z ~ Lap(3Δ/ε), X ~ Lap(6Δ/ε), cutoff 1, a
fresh released value r = q + Y per above.  With exponential Y the density p_Y(r - q) vanishes for r < q, so
moving the above query up past its released value makes D' impossible: loss inf (q = 1, q' = 2, output A,
r = 1 is the reference point, checked here by the exact oracle, independent of the search).  Gaussian Y: the
release factor's ratio grows without bound (`verify.family.bounds.fresh_release_growth`).  Laplace Y: the
proven bound Δ/b_Z + 2Δ/b_X + Δ/b_Y = ε holds and the search stays below it.
"""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import pytest

from verify.family.worstcase import family_worst_case
from verify.mechanism import SparseVector
from verify.noise import NoiseSpec
from verify.oracles.family import log_ratio
from verify.verdicts import MechanismVerdict


def _numerical_svt(release_family: str) -> SparseVector:
    return SparseVector(F(1, 10), 1, 1, NoiseSpec("laplace", absolute=F(30)), NoiseSpec("laplace", absolute=F(60)), cutoff=1,
                        release="fresh", release_spec=NoiseSpec(release_family, absolute=F(30)))


def test_reference_point_of_the_exponential_release_is_infinite():
    assert mpmath.isinf(log_ratio(_numerical_svt("exponential"), (F(1),), (F(2),), "A", (F(1),), 30))


@pytest.mark.parametrize("family, verdict, unbounded", [
    ("exponential", MechanismVerdict.NOT_PRIVATE, True),
    ("gaussian", MechanismVerdict.NOT_PRIVATE, True),
    ("laplace", MechanismVerdict.PRIVATE, False),
])
def test_every_release_noise_family(family, verdict, unbounded):
    shape = _numerical_svt(family)
    r = family_worst_case(shape, max_queries=1, tightness_study=False)
    assert r.verdict is verdict and r.unbounded is unbounded
    with mpmath.workdps(60):
        if family == "exponential":
            # found by moving the above query up past its released value: D' has density exactly 0
            assert mpmath.isinf(r.loss) and r.witness.neighbour_probability == 0
            assert r.witness.released[0] < r.witness.neighbour[0]
        elif family == "gaussian":
            assert r.loss > mpmath.mpf(1) / 10 and "fresh_release_growth" in r.unbounded_evidence
        else:
            assert r.upper_bound.value == F(1, 10) and r.loss <= mpmath.mpf(1) / 10
