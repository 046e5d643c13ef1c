"""The variant builder the rule tests share: a `SparseVector` with absolute noise scales."""

from __future__ import annotations

from fractions import Fraction

from verify.mechanism import SparseVector
from verify.noise import NoiseSpec


def variant(eps=Fraction(1, 10), delta=Fraction(1), t=Fraction(0), z=("laplace", 30), x=("laplace", 30), cutoff=1,
            policy="shared", release="none", y=None) -> SparseVector:
    """A variant with absolute noise scales (``z``, ``x``, ``y``: (family, scale))."""
    return SparseVector(Fraction(eps), Fraction(delta), Fraction(t), NoiseSpec(z[0], absolute=Fraction(z[1])),
                        NoiseSpec(x[0], absolute=Fraction(x[1])), cutoff=cutoff, threshold_policy=policy, release=release,
                        release_spec=None if y is None else NoiseSpec(y[0], absolute=Fraction(y[1])))
