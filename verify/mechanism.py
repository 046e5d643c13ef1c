"""AboveThreshold (seed, "Mechanism One" and "Mechanism Two", Algorithm A).

    1. t̂ ← t + Z                       (Z: threshold noise)
    2. for i = 1, 2, ...:
    3.     q̂_i(D) ← q_i(D) + X_i       (X_i: a fresh query noise)
    4.     if q̂_i(D) >= t̂: output ⊥ and halt
    5.     else output ⊤

For a query vector of length k the possible outputs are s_i = ⊤^{i-1}⊥
(halt at query i, i = 1..k) and ⊤^k (no halt within k queries).  Outputs are
written as the integer ``i`` for s_i and the string ``"none"`` for ⊤^k; in
arrays of length k+1, column ``i-1`` is s_i and column ``k`` is ⊤^k.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal, Union

import numpy as np

from verify.errors import InputError
from verify.exact import fmt, positive, to_fraction
from verify.noise import Noise, NoiseSpec
from verify.validate import MAX_LIST, sequence

Output = Union[int, Literal["none"]]
NO_HALT: Literal["none"] = "none"

#: The seed's noise multiplier: both mechanisms use scale 3Δ/ε.
SEED_MULTIPLIER = Fraction(3)


def output_column(output: Output, k: int) -> int:
    """Column of an output in a length-(k+1) probability array."""
    if output == NO_HALT:
        return k
    if isinstance(output, bool) or not isinstance(output, (int, np.integer)):
        raise InputError(f"output: {output!r} is neither an index 1..{k} nor 'none'")
    if not 1 <= int(output) <= k:
        raise InputError(f"output: {output} is outside 1..{k} (k = {k} queries)")
    return int(output) - 1


def column_output(column: int, k: int) -> Output:
    """Inverse of `output_column`."""
    return NO_HALT if column == k else column + 1


def all_outputs(k: int) -> list[Output]:
    """s_1, ..., s_k and ⊤^k, in column order."""
    return [*range(1, k + 1), NO_HALT]


def output_label(output: Output) -> str:
    """``⊤^{i-1}⊥`` style label, e.g. ``s_3 = ⊤⊤⊥``."""
    if output == NO_HALT:
        return "⊤^k"
    return f"s_{output}"


def parse_queries(values: Sequence[object], name: str = "queries") -> tuple[Fraction, ...]:
    """A query vector: a list, tuple, range or 1-d array of exact numbers (never a string, dict or set)."""
    values = sequence(values, name, MAX_LIST)
    if len(values) == 0:
        raise InputError(f"{name}: the list is empty (give at least one query value)")
    return tuple(to_fraction(v, f"{name}[{j}]") for j, v in enumerate(values, start=1))


@dataclass(frozen=True)
class AboveThreshold:
    """AboveThreshold with threshold ``t``, privacy parameter ``ε``, sensitivity
    ``Δ`` and independent noises on the threshold and on every query.

    >>> m = AboveThreshold.mechanism_one(epsilon=1, sensitivity=1)
    >>> m.describe()
    'AboveThreshold(ε=1, Δ=1, t=0, threshold Lap(3Δ/ε), queries Lap(3Δ/ε))'
    """

    epsilon: Fraction
    sensitivity: Fraction
    threshold: Fraction
    threshold_spec: NoiseSpec
    query_spec: NoiseSpec

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", positive(self.epsilon, "epsilon"))
        object.__setattr__(self, "sensitivity", positive(self.sensitivity, "sensitivity"))
        object.__setattr__(self, "threshold", to_fraction(self.threshold, "threshold"))
        for name in ("threshold_spec", "query_spec"):
            if not isinstance(getattr(self, name), NoiseSpec):
                raise InputError(f"{name}: {getattr(self, name)!r} is not a NoiseSpec")

    # --- named constructors ---------------------------------------------------
    @classmethod
    def mechanism_one(cls, epsilon: object, sensitivity: object = 1, threshold: object = 0) -> AboveThreshold:
        """Seed, Mechanism One: Z, X_i ~ Lap(3Δ/ε)."""
        return cls.with_noise("laplace", epsilon, sensitivity, threshold)

    @classmethod
    def mechanism_two(cls, epsilon: object, sensitivity: object = 1, threshold: object = 0) -> AboveThreshold:
        """Seed, Mechanism Two: Z, X_i ~ Exp(3Δ/ε)."""
        return cls.with_noise("exponential", epsilon, sensitivity, threshold)

    @classmethod
    def with_noise(
        cls,
        family: str,
        epsilon: object,
        sensitivity: object = 1,
        threshold: object = 0,
        threshold_multiplier: object = SEED_MULTIPLIER,
        query_multiplier: object = SEED_MULTIPLIER,
        threshold_family: str | None = None,
        query_family: str | None = None,
    ) -> AboveThreshold:
        """Both noises given as multiples of Δ/ε (0 = no noise)."""
        return cls(
            epsilon=epsilon,
            sensitivity=sensitivity,
            threshold=threshold,
            threshold_spec=NoiseSpec(threshold_family or family, multiplier=to_fraction(threshold_multiplier, "threshold scale")),
            query_spec=NoiseSpec(query_family or family, multiplier=to_fraction(query_multiplier, "query scale")),
        )

    # --- resolved noises --------------------------------------------------------
    @property
    def threshold_noise(self) -> Noise:
        return self.threshold_spec.resolve(self.epsilon, self.sensitivity)

    @property
    def query_noise(self) -> Noise:
        return self.query_spec.resolve(self.epsilon, self.sensitivity)

    def describe(self) -> str:
        return (
            f"AboveThreshold(ε={fmt(self.epsilon)}, Δ={fmt(self.sensitivity)}, t={fmt(self.threshold)}, "
            f"threshold {self.threshold_spec.describe()}, queries {self.query_spec.describe()})"
        )

    # --- neighbouring inputs ------------------------------------------------------
    def check_neighbours(self, queries: Sequence[Fraction], neighbour: Sequence[Fraction]) -> None:
        """Reject query vectors that are not neighbouring: same length and
        |q_j(D) - q_j(D')| <= Δ for every j (seed, Definition of sensitivity)."""
        if len(queries) != len(neighbour):
            raise InputError(
                f"neighbour queries: length {len(neighbour)} differs from the {len(queries)} queries of D"
            )
        for j, (a, b) in enumerate(zip(queries, neighbour), start=1):
            if abs(a - b) > self.sensitivity:
                raise InputError(
                    f"neighbour queries: |q_{j}(D) - q_{j}(D')| = {fmt(abs(a - b))} exceeds the sensitivity Δ = {fmt(self.sensitivity)}"
                )

    # --- the algorithm itself ---------------------------------------------------------
    def sample(self, queries: Sequence[object], runs: int, seed: int | np.random.SeedSequence) -> np.ndarray:
        """Run the algorithm ``runs`` times, exactly as the seed writes it.

        Returns an int array of column indices (0..k-1 for s_1..s_k, k for ⊤^k).
        One noisy threshold per run; a fresh noise per query; halt at the first
        noisy query >= the noisy threshold.
        """
        q = np.array([float(x) for x in parse_queries(queries)])
        if runs < 1:
            raise InputError(f"runs: {runs} must be >= 1")
        rng = np.random.default_rng(seed)
        k = len(q)
        t_hat = float(self.threshold) + self.threshold_noise.sample(rng, runs)
        x = self.query_noise.sample(rng, (runs, k))
        above = (q[None, :] + x) >= t_hat[:, None]
        halted = above.any(axis=1)
        return np.where(halted, above.argmax(axis=1), k)

    def sample_counts(self, queries: Sequence[object], runs: int, seed: int) -> np.ndarray:
        """Counts of each output (length k+1, column order) over ``runs`` runs."""
        k = len(queries)
        return np.bincount(self.sample(queries, runs, seed), minlength=k + 1)
