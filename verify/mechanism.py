"""The mechanism: `SparseVector`, the one model of every SVT variant, the seed's included.

    1. t̂ ← t + Z                                  (Z: threshold noise)
    2. count ← 0
    3. for i = 1, 2, ..., k:
    4.     if q_i + X_i >= t̂:                      (X_i: a fresh query noise)
    5.         output A (above) and, by the release rule, a value:
                   none:  nothing;
                   query: the noisy query q_i + X_i     (Lyu, Su, Li 2017, Algorithm 3);
                   gap:   q_i + X_i - t̂                 (GapSVT, Ding et al. 2019);
                   fresh: q_i + Y_i, Y_i a fresh noise  (NumericalSVT, Wang et al. 2019);
    6.         count ← count + 1; halt if count = c
    7.         resample: t̂ ← t + Z' with a fresh Z'     (Lyu, Su, Li 2017, Algorithm 2)
    8.     else output B (below)

This is the seed's rule ("if q̂_i(D) >= t̂: output ⊥ and halt", seed, Algorithm A,
where ⊥ is written A here) with a cutoff ``c`` (``None``: never halt early)
and the choices listed.  An *outcome string* is one letter per query
answered: it ends at the c-th ``A`` or after the k-th query, so with c = 2 and
k = 5 both ``ABBA`` and ``BBABB`` are complete outputs.

The seed's AboveThreshold ("Mechanism One": Z, X_i ~ Lap(3Δ/ε); "Mechanism Two":
Exp(3Δ/ε)) is the member with c = 1 and no release (`SparseVector.is_above_threshold`);
`AboveThreshold` holds its named constructors.  For a query vector of length k its
outputs are s_i = ⊤^{i-1}⊥ = ``B^{i-1}A`` (halt at query i) and ⊤^k = ``B^k``; the
seed-era paths write them as the integer ``i`` and the string ``"none"``, and in
arrays of length k+1 column ``i-1`` is s_i and column ``k`` is ⊤^k.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from fractions import Fraction
from functools import cached_property
from typing import Any, Literal, Union

import numpy as np

from verify.comparison import Comparison, check_comparison
from verify.errors import InputError
from verify.exact import check_neighbours, fmt, positive
from verify.integer_rules import check_discrete_model, is_discrete
from verify.noise import Noise, NoiseSpec
from verify.release import Release, ReleaseRule, release_rule
from verify.validate import MAX_LIST, sequence, to_number

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


def output_name(output: Output, k: int) -> str:
    """The one printed spelling of a seed output among k queries: the outcome string, the seed's label as an alias,
    e.g. ``BBA (s_3)``, ``BB (⊤^k)``."""
    string = "B" * k if output == NO_HALT else "B" * (int(output) - 1) + "A"
    return f"{string} ({output_label(output)})"


def parse_queries(values: Sequence[object], name: str = "queries") -> tuple[Fraction, ...]:
    """A query vector: a list, tuple, range or 1-d array of exact numbers (never a string, dict or set)."""
    values = sequence(values, name, MAX_LIST)
    if len(values) == 0:
        raise InputError(f"{name}: the list is empty (give at least one query value)")
    return tuple(to_number(v, f"{name}[{j}]") for j, v in enumerate(values, start=1))


#: The name of the seed's mechanism built by `AboveThreshold` (its description keeps the seed's wording).
SEED_NAME = "above-threshold"
SEED_SOURCE = "seed, Algorithm A (AboveThreshold)"

ABOVE, BELOW = "A", "B"
#: `outputs` refuses to enumerate more outcome strings than this.
MAX_ENUMERATED = 2**20


class ThresholdPolicy(StrEnum):
    """When the threshold noise is drawn."""

    SHARED = "shared"  # once per run (Dwork and Roth 2014, Algorithm 1; Lyu et al. Algorithm 1)
    RESAMPLE = "resample"  # again after every A (Lyu et al. 2017, Algorithm 2)


def _enum(kind: type, value: object, name: str) -> Any:
    try:
        return kind(value)
    except ValueError:
        choices = ", ".join(m.value for m in kind)
        raise InputError(f"{name}: {value!r} is not one of {choices}") from None


def check_cutoff(cutoff: object) -> int | None:
    """``c`` >= 1 (an int) or None for unlimited."""
    if cutoff is None:
        return None
    if isinstance(cutoff, bool) or not isinstance(cutoff, int) or cutoff < 1:
        raise InputError(f"cutoff: {cutoff!r} must be an integer >= 1 or None (unlimited)")
    return int(cutoff)


@dataclass(frozen=True)
class SparseVector:
    """One member of the SVT family (module docstring for the algorithm).

    >>> from verify.family.presets import preset
    >>> m = preset("lyu-1", epsilon=1, cutoff=2)
    >>> m.describe()
    'lyu-1: SparseVector(ε=1, Δ=1, t=0, threshold Lap(2Δ/ε), queries Lap(8Δ/ε), cutoff 2, threshold shared, release none)'
    >>> m.outputs(3)
    ['AA', 'ABA', 'ABB', 'BAA', 'BAB', 'BBA', 'BBB']
    """

    epsilon: Fraction
    sensitivity: Fraction
    threshold: Fraction
    threshold_spec: NoiseSpec
    query_spec: NoiseSpec
    cutoff: int | None = 1
    threshold_policy: ThresholdPolicy = ThresholdPolicy.SHARED
    release: Release = Release.NONE
    release_spec: NoiseSpec | None = None
    name: str = "custom"
    source: str = field(default="", compare=False)
    #: The test ``q_i + X_i >= t̂`` (``ge``, the seed's) or ``>`` (``gt``); it matters only for discrete noise.
    compare: Comparison = Comparison.GE

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", positive(self.epsilon, "epsilon"))
        object.__setattr__(self, "sensitivity", positive(self.sensitivity, "sensitivity"))
        object.__setattr__(self, "threshold", to_number(self.threshold, "threshold"))
        for name in ("threshold_spec", "query_spec"):
            if not isinstance(getattr(self, name), NoiseSpec):
                raise InputError(f"{name}: {getattr(self, name)!r} is not a NoiseSpec")
        object.__setattr__(self, "cutoff", check_cutoff(self.cutoff))
        object.__setattr__(self, "threshold_policy", _enum(ThresholdPolicy, self.threshold_policy, "threshold policy"))
        object.__setattr__(self, "release", _enum(Release, self.release, "release"))
        rule = self.release_rule
        if rule.needs_release_noise:
            if not isinstance(self.release_spec, NoiseSpec):
                raise InputError(f"release noise: {self.release_spec!r} is not a NoiseSpec (release {self.release.value!r} needs one)")
            if self.release_spec.is_none:
                raise InputError(f"release noise: 'none' releases q_i exactly; release {self.release.value!r} needs a continuous noise")
        elif self.release_spec is not None:
            wants = ", ".join(repr(r.value) for r in Release if release_rule(r).needs_release_noise)
            raise InputError(f"release noise: {self.release_spec.describe()} is given but the release is {self.release.value!r}, not {wants}")
        if rule.needs_query_density and self.query_spec.is_none:
            raise InputError(f"release {self.release.value!r}: the query noise is 'none', so the released value has no density")
        if not isinstance(self.name, str) or not self.name:
            raise InputError(f"name: {self.name!r} must be a non-empty string")
        object.__setattr__(self, "compare", check_comparison(self.compare))
        if self.is_discrete:
            check_discrete_model(self.epsilon, self.sensitivity, self.threshold, self.threshold_spec, self.query_spec,
                                 self.release.value, self.release_spec)

    # --- resolved noises ------------------------------------------------------------
    @cached_property
    def threshold_noise(self) -> Noise:
        """Z (and every resampled Z') with its concrete scale."""
        return self.threshold_spec.resolve(self.epsilon, self.sensitivity)

    @cached_property
    def query_noise(self) -> Noise:
        """X_i with its concrete scale."""
        return self.query_spec.resolve(self.epsilon, self.sensitivity)

    @cached_property
    def release_noise(self) -> Noise | None:
        """Y_i of a fresh release, or None."""
        return None if self.release_spec is None else self.release_spec.resolve(self.epsilon, self.sensitivity)

    @property
    def is_discrete(self) -> bool:
        """A noise on the integers: ties have mass, probabilities come from `verify.discrete`."""
        return is_discrete(self)

    @property
    def release_rule(self) -> ReleaseRule:
        """The rule object of `release` (`verify.release`): what every path asks, instead of the name."""
        return release_rule(self.release)

    @property
    def releases_values(self) -> bool:
        return self.release_rule.releases_values

    @property
    def is_piecewise(self) -> bool:
        """Every noise is Laplace, exponential or none: the closed forms apply."""
        noises = [self.threshold_noise, self.query_noise]
        if self.release_noise is not None:
            noises.append(self.release_noise)
        return all(n.is_piecewise for n in noises)

    def describe(self) -> str:
        """One line; the seed's constructors (`AboveThreshold`) keep the seed's own wording."""
        if self.name == SEED_NAME and self.is_above_threshold and self.threshold_policy is ThresholdPolicy.SHARED:
            return (f"AboveThreshold(ε={fmt(self.epsilon)}, Δ={fmt(self.sensitivity)}, t={fmt(self.threshold)}, "
                    f"threshold {self.threshold_spec.describe()}, queries {self.query_spec.describe()})")
        cut = "unlimited" if self.cutoff is None else str(self.cutoff)
        text = (
            f"SparseVector(ε={fmt(self.epsilon)}, Δ={fmt(self.sensitivity)}, t={fmt(self.threshold)}, "
            f"threshold {self.threshold_spec.describe()}, queries {self.query_spec.describe()}, cutoff {cut}, "
            f"threshold {self.threshold_policy.value}, release {self.release.value}"
        )
        if self.release_spec is not None:
            text += f" {self.release_spec.describe()}"
        if self.compare is not Comparison.GE:
            text += f", compare {self.compare.value}"
        return f"{self.name}: {text})"

    def to_json(self) -> dict[str, Any]:
        out = {
            "name": self.name,
            "source": self.source,
            "epsilon": _frac(self.epsilon),
            "sensitivity": _frac(self.sensitivity),
            "threshold": _frac(self.threshold),
            "threshold_noise": self.threshold_spec.to_json(),
            "query_noise": self.query_spec.to_json(),
            "cutoff": "unlimited" if self.cutoff is None else self.cutoff,
            "threshold_policy": self.threshold_policy.value,
            "release": self.release.value,
            "release_noise": None if self.release_spec is None else self.release_spec.to_json(),
            "description": self.describe(),
        }
        if self.compare is not Comparison.GE:
            out["compare"] = self.compare.value
        return out

    # --- outputs --------------------------------------------------------------------------
    def output_count(self, k: int) -> int:
        """Number of complete outcome strings for k queries (without enumerating them):
        Σ_{j<c} C(k, j) strings of length k with fewer than c A's, plus
        Σ_{L=c}^{k} C(L-1, c-1) strings whose c-th A is the L-th letter."""
        k = _check_k(k)
        c = self.cutoff
        if c is None or c > k:
            return 2**k
        if c == 1:
            return k + 1
        return sum(math.comb(k, j) for j in range(c)) + sum(math.comb(n - 1, c - 1) for n in range(c, k + 1))

    def outputs(self, k: int) -> list[str]:
        """Every complete outcome string for k queries, A before B at every letter
        (for c = 1: s_1 = 'A', s_2 = 'BA', ..., ⊤^k = 'B'*k, the seed's column order)."""
        n = self.output_count(k)
        if n > MAX_ENUMERATED:
            raise InputError(f"outputs: {n} outcome strings for k = {k} exceed the limit 2^20 = {MAX_ENUMERATED}")
        if self.cutoff == 1:  # the halting outputs, in the order the search below gives them
            return [BELOW * i + ABOVE for i in range(k)] + [BELOW * k]
        out: list[str] = []
        stack = [("", 0)]  # depth-first, A before B, without recursion (k may be 1000)
        while stack:
            prefix, above = stack.pop()
            if self.cutoff is not None and above == self.cutoff or len(prefix) == k:
                out.append(prefix)
                continue
            stack.append((prefix + BELOW, above))
            stack.append((prefix + ABOVE, above + 1))
        return out

    def check_outcome(self, outcome: object, k: int | None = None) -> str:
        """Validate a complete outcome string (A/B letters) for k queries; returns it.

        Rules: only the letters A and B; at least one letter; at most c A's and, at
        the c-th A, the run has halted (it is the last letter); a string shorter
        than k must end at the c-th A; no longer than k."""
        if not isinstance(outcome, str):
            raise InputError(f"outcome: {outcome!r} is not a string of A (above) and B (below)")
        if not outcome or set(outcome) - {ABOVE, BELOW}:
            raise InputError(f"outcome: {outcome!r} must be a non-empty string of the letters A (above) and B (below)")
        c = self.cutoff
        if c is not None:
            ups = [i for i, ch in enumerate(outcome) if ch == ABOVE]
            if len(ups) >= c and ups[c - 1] != len(outcome) - 1:
                raise InputError(f"outcome: {outcome!r} continues after the {_ordinal(c)} A, where the run halts (cutoff {c})")
        if k is not None:
            k = _check_k(k)
            if len(outcome) > k:
                raise InputError(f"outcome: {outcome!r} has {len(outcome)} letters, more than the k = {k} queries")
            complete = c is not None and outcome.count(ABOVE) == c
            if len(outcome) < k and not complete:
                rule = "the run only halts at the " + (f"{_ordinal(c)} A (cutoff {c})" if c is not None else "last query (cutoff unlimited)")
                raise InputError(f"outcome: {outcome!r} has {len(outcome)} letters but k = {k} queries and {rule}")
        return outcome

    def check_released(self, outcome: str, released: tuple | list | None) -> tuple[Fraction, ...]:
        """Released values: one per A when the variant releases values, none otherwise."""
        n = outcome.count(ABOVE)
        values = () if released is None else tuple(released)
        if not self.releases_values:
            if values:
                raise InputError(f"released: the variant releases nothing (release 'none') but {len(values)} values were given")
            return ()
        if len(values) != n:
            raise InputError(f"released: {len(values)} values given, the outcome {outcome!r} has {n} A's (one value per A)")
        return tuple(to_number(v, f"released[{j}]") for j, v in enumerate(values, start=1))

    # --- the seed's AboveThreshold ------------------------------------------------------------
    @property
    def is_above_threshold(self) -> bool:
        """Cutoff 1, no release, closed-form noises: the seed's AboveThreshold, which every
        seed-era path (`verify.probabilities`, `verify.oracles.seed`, `verify.engine.fast_closed_form`) evaluates.  The
        threshold policy is then irrelevant: the run halts at the first A, before any resampling."""
        return self.cutoff == 1 and not self.releases_values and self.is_piecewise

    def require_halting(self, what: str) -> None:
        """Refuse a variant whose outputs are not the seed's s_1..s_k, ⊤^k (cutoff 1, no release)."""
        if self.cutoff != 1 or self.releases_values:
            cut = "unlimited" if self.cutoff is None else self.cutoff
            raise InputError(f"{what}: {self.name} has cutoff {cut} and release {self.release.value}; this path is "
                             "the seed's AboveThreshold (cutoff 1, release none): use verify.family.probability")

    # --- neighbouring inputs ------------------------------------------------------------------
    def check_neighbours(self, queries: Sequence[Fraction], neighbour: Sequence[Fraction]) -> None:
        """Reject query vectors that are not neighbouring: same length and
        |q_j(D) - q_j(D')| <= Δ for every j (seed, Definition of sensitivity)."""
        check_neighbours(queries, neighbour, self.sensitivity)

    # --- the seed's algorithm, run ------------------------------------------------------------------
    def sample(self, queries: Sequence[object], runs: int, seed: int | np.random.SeedSequence) -> np.ndarray:
        """Run the halting algorithm (cutoff 1, no release) ``runs`` times, exactly as the seed writes it.

        Returns an int array of column indices (0..k-1 for s_1..s_k, k for ⊤^k).
        One noisy threshold per run; a fresh noise per query; halt at the first
        noisy query >= the noisy threshold.  Other variants: `verify.family.sampler`.
        """
        self.require_halting("sample")
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

    def with_changes(self, **changes: Any) -> SparseVector:
        """A copy with some fields replaced (validated again)."""
        return replace(self, **changes)


def as_variant(mech: object) -> SparseVector:
    """``mech`` itself when it is a `SparseVector` (the one mechanism type), else a one-line `InputError`."""
    if not isinstance(mech, SparseVector):
        raise InputError(f"variant: {mech!r} is not an SVT variant (build one with verify.family.preset or SparseVector)")
    return mech


def _check_k(k: object) -> int:
    if isinstance(k, bool) or not isinstance(k, int) or k < 1:
        raise InputError(f"k: {k!r} must be an integer >= 1 (the number of queries)")
    return k


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _frac(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


class AboveThreshold:
    """The seed's AboveThreshold as named constructors of `SparseVector` (cutoff 1, shared
    threshold, no release, named ``above-threshold``); there is no separate type.

    ``AboveThreshold(epsilon, sensitivity, threshold, threshold_spec, query_spec)`` returns that
    `SparseVector`, as do the named constructors:

    >>> m = AboveThreshold.mechanism_one(epsilon=1, sensitivity=1)
    >>> m.describe()
    'AboveThreshold(ε=1, Δ=1, t=0, threshold Lap(3Δ/ε), queries Lap(3Δ/ε))'
    >>> type(m).__name__, m.cutoff, m.is_above_threshold
    ('SparseVector', 1, True)
    """

    def __new__(cls, epsilon: object, sensitivity: object, threshold: object, threshold_spec: NoiseSpec,
                query_spec: NoiseSpec) -> SparseVector:  # type: ignore[misc]
        return SparseVector(epsilon, sensitivity, threshold, threshold_spec, query_spec, cutoff=1,
                            threshold_policy=ThresholdPolicy.SHARED, release=Release.NONE, name=SEED_NAME, source=SEED_SOURCE)

    @staticmethod
    def mechanism_one(epsilon: object, sensitivity: object = 1, threshold: object = 0) -> SparseVector:
        """Seed, Mechanism One: Z, X_i ~ Lap(3Δ/ε)."""
        return AboveThreshold.with_noise("laplace", epsilon, sensitivity, threshold)

    @staticmethod
    def mechanism_two(epsilon: object, sensitivity: object = 1, threshold: object = 0) -> SparseVector:
        """Seed, Mechanism Two: Z, X_i ~ Exp(3Δ/ε)."""
        return AboveThreshold.with_noise("exponential", epsilon, sensitivity, threshold)

    @staticmethod
    def with_noise(
        family: str,
        epsilon: object,
        sensitivity: object = 1,
        threshold: object = 0,
        threshold_multiplier: object = SEED_MULTIPLIER,
        query_multiplier: object = SEED_MULTIPLIER,
        threshold_family: str | None = None,
        query_family: str | None = None,
    ) -> SparseVector:
        """Both noises given as multiples of Δ/ε (0 = no noise)."""
        return AboveThreshold(
            epsilon=epsilon,
            sensitivity=sensitivity,
            threshold=threshold,
            threshold_spec=NoiseSpec(threshold_family or family, multiplier=to_number(threshold_multiplier, "threshold scale")),
            query_spec=NoiseSpec(query_family or family, multiplier=to_number(query_multiplier, "query scale")),
        )
