"""The features of an SVT variant that the verdicts depend on, in one normalised frozen object.

`VariantShape` is what `verify.family.bounds`, `verify.family.worstcase` and
`verify.family.delta` read: ε, Δ, t, the three noise laws (threshold Z, query
X, fresh release Y) as (family, scale), the cutoff c (None = unlimited), the
threshold policy (``shared``: Z drawn once; ``resample``: a fresh Z after each
above, Lyu et al. 2017 Alg. 2) and what an above releases (``none``; ``query``
= q_i + X_i, Lyu Alg. 3; ``gap`` = q_i + X_i - (t + Z), Ding et al. 2019;
``fresh`` = q_i + Y_i, NumericalSVT).  The rule is the seed's: query i is
above iff q_i + X_i >= t + Z.

`shape_of` accepts a `VariantShape`, the seed's `verify.mechanism.AboveThreshold`
(cutoff 1, shared, release none) or any object with the attributes of the
family model (``epsilon``, ``sensitivity``, ``threshold``, ``cutoff``,
``threshold_policy``, ``release`` and the noises), so that this package does
not depend on how the model is built.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from verify.errors import InputError
from verify.exact import fmt, to_fraction
from verify.noise import Noise

POLICIES = ("shared", "resample")
RELEASES = ("none", "query", "gap", "fresh")


#: A noise law is `verify.noise.Noise` (family laplace / exponential / gaussian / none, scale b or σ).
Law = Noise


@dataclass(frozen=True)
class VariantShape:
    """ε, Δ, t, noises, cutoff, policy and release of one SVT variant (see the module docstring)."""

    epsilon: Fraction
    sensitivity: Fraction
    threshold: Fraction
    threshold_noise: Law
    query_noise: Law
    cutoff: int | None = 1
    policy: str = "shared"
    release: str = "none"
    release_noise: Law | None = None
    name: str = ""

    def __post_init__(self) -> None:
        for attr in ("epsilon", "sensitivity", "threshold"):
            object.__setattr__(self, attr, to_fraction(getattr(self, attr), attr))
        if self.epsilon <= 0 or self.sensitivity <= 0:
            raise InputError(f"epsilon {fmt(self.epsilon)} and sensitivity {fmt(self.sensitivity)} must be > 0")
        if self.cutoff is not None and (isinstance(self.cutoff, bool) or not isinstance(self.cutoff, int) or self.cutoff < 1):
            raise InputError(f"cutoff: {self.cutoff!r} must be an integer >= 1 or None (unlimited)")
        if self.policy not in POLICIES:
            raise InputError(f"threshold policy: {self.policy!r} is not one of {', '.join(POLICIES)}")
        if self.release not in RELEASES:
            raise InputError(f"release: {self.release!r} is not one of {', '.join(RELEASES)}")
        if (self.release == "fresh") != (self.release_noise is not None and not self.release_noise.is_none):
            raise InputError("release noise: give it exactly when the release is 'fresh' (and not 'none')")

    @property
    def releases_values(self) -> bool:
        return self.release != "none"

    def describe(self) -> str:
        c = "unlimited" if self.cutoff is None else str(self.cutoff)
        rel = self.release + (f" {self.release_noise.describe()}" if self.release == "fresh" else "")
        return (f"{self.name + ': ' if self.name else ''}Z ~ {self.threshold_noise.describe()}, X ~ {self.query_noise.describe()}, "
                f"c = {c}, {self.policy} threshold, release {rel}, ε = {fmt(self.epsilon)}, Δ = {fmt(self.sensitivity)}, "
                f"t = {fmt(self.threshold)}")


def _law(noise: Any) -> Law:
    if noise is None:
        return Law("none", Fraction(0))
    if isinstance(noise, Noise):
        return noise
    return Noise(str(noise.family), Fraction(noise.scale))


def shape_of(mech: Any) -> VariantShape:
    """The `VariantShape` of a shape, a seed `AboveThreshold` or a family-model object (duck-typed)."""
    if isinstance(mech, VariantShape):
        return mech
    from verify.mechanism import SEED_NAME, SparseVector

    if isinstance(mech, SparseVector) and mech.name == SEED_NAME and mech.is_above_threshold:  # the seed's constructors
        return VariantShape(mech.epsilon, mech.sensitivity, mech.threshold, _law(mech.threshold_noise), _law(mech.query_noise))
    try:
        release = str(getattr(mech, "release", "none"))
        rel_noise = getattr(mech, "release_noise", None) if release == "fresh" else None
        return VariantShape(
            mech.epsilon, mech.sensitivity, getattr(mech, "threshold", 0), _law(mech.threshold_noise), _law(mech.query_noise),
            cutoff=getattr(mech, "cutoff", 1), policy=str(getattr(mech, "threshold_policy", "shared")), release=release,
            release_noise=None if rel_noise is None else _law(rel_noise), name=str(getattr(mech, "name", "") or ""))
    except AttributeError as exc:
        raise InputError(f"variant: {mech!r} is not an SVT variant ({exc})") from None
