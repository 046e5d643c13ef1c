"""Grid specifications of the sweeps: which points (ε, q(D), q(D'), output) are checked.

`GridSpec`: the output sweep's grid (seed, "Privacy Guarantee": every ε, query
vector q(D), neighbour q(D') = q(D) + shift and output s_1..s_k, ⊤^k).
`ConditionalGridSpec`: the grid over the proofs' conditional integrals
(m, κ, d, δ; seed, Proof 1 and the proof of Mechanism Two).  Both validate in
``__post_init__`` and raise `verify.errors.InputError` naming the value.
Grid order and index decoding: `verify.sweep.decode`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from verify.errors import InputError
from verify.exact import fmt, positive
from verify.probabilities import check_digits
from verify.validate import sequence, to_number

MAX_K = 64
MAX_INDEX = 2**62
DEFAULT_CHUNK = 20_000
#: Grid points are exact integers over a common denominator, computed in int64 and float64:
#: the denominator stays below 2^40 and every |numerator| (values and neighbours) below 2^52.
MAX_DENOMINATOR = 2**40
MAX_NUMERATOR = 2**52

def _fractions(values: Sequence[object], name: str) -> tuple[Fraction, ...]:
    return tuple(to_number(v, f"{name}[{j}]") for j, v in enumerate(sequence(values, name), start=1))


def _check_exact_grid(name: str, den: int, largest: Fraction) -> None:
    """The grid's values fit the int64/float64 arithmetic of the chunks (see `MAX_NUMERATOR`)."""
    if den >= MAX_DENOMINATOR:
        raise InputError(f"{name}: the common denominator of the grid is {den if den < 10**15 else 'above 1e15'}; "
                         f"it must be below 2^40 for exact float64 grid arithmetic")
    if largest * den >= MAX_NUMERATOR:
        raise InputError(f"{name}: |value| up to {fmt(largest) if largest < 10**15 else 'above 1e15'} with common denominator "
                         f"{den} exceeds 2^52 units: too large for exact float64 grid arithmetic")


def _int(value: object, name: str, lo: int, hi: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise InputError(f"{name}: {value!r} must be an integer")
    v = int(value)
    if v < lo or (hi is not None and v > hi):
        rule = f">= {lo}" if hi is None else f"from {lo} to {hi}"
        raise InputError(f"{name}: {v} must be an integer {rule}")
    return v


def _lcm_denominator(values: Sequence[Fraction]) -> int:
    den = 1
    for v in values:
        den = den * v.denominator // math.gcd(den, v.denominator)
    return den


def shift_values(sensitivity: Fraction, steps: int) -> tuple[Fraction, ...]:
    """Corners {-Δ, 0, Δ} (steps 0) or ``steps`` equally spaced values in [-Δ, Δ]."""
    if steps == 0:
        return (-sensitivity, Fraction(0), sensitivity)
    return tuple(-sensitivity + 2 * sensitivity * Fraction(j, steps - 1) for j in range(steps))



@dataclass(frozen=True)
class GridSpec:
    """A grid of (ε, q(D), q(D'), output) points.

    ``query_values``: the values every coordinate of q(D) takes (product grid);
    default t + jΔ, j = -6..6.  With ``random_samples`` > 0, q(D) is instead
    that many seeded random vectors with coordinates uniform on the multiples of
    ``random_resolution`` (default Δ/64) in ``random_range`` (default
    [t - 6Δ, t + 6Δ]).  ``shift_steps`` 0 gives the corners {-Δ, 0, +Δ}^k,
    n >= 2 a product grid of n values in [-Δ, Δ]^k.  Empty ``epsilons`` means
    the mechanism's own ε.

    >>> GridSpec(k=2).points_per_epsilon
    4563
    """

    epsilons: tuple[Fraction, ...] = ()
    sensitivity: Fraction = Fraction(1)
    threshold: Fraction = Fraction(0)
    k: int = 3
    query_values: tuple[Fraction, ...] | None = None
    random_samples: int = 0
    random_range: tuple[Fraction, Fraction] | None = None
    random_resolution: Fraction | None = None
    seed: int = 0
    shift_steps: int = 0
    chunk_size: int = DEFAULT_CHUNK
    max_listed_violations: int = 20
    digits: int = 30

    def __post_init__(self) -> None:
        s = object.__setattr__
        s(self, "epsilons", tuple(positive(e, "epsilon") for e in sequence(self.epsilons, "epsilons")))
        s(self, "sensitivity", positive(self.sensitivity, "sensitivity"))
        s(self, "threshold", to_number(self.threshold, "threshold"))
        s(self, "k", _int(self.k, "k (number of queries)", 1, MAX_K))
        s(self, "random_samples", _int(self.random_samples, "random samples", 0))
        s(self, "seed", _int(self.seed, "seed", 0))
        s(self, "shift_steps", _int(self.shift_steps, "shift steps", 0, 1001))
        if self.shift_steps == 1:
            raise InputError("shift steps: 1 is not a grid in [-Δ, Δ]; give 0 (corners) or at least 2")
        s(self, "chunk_size", _int(self.chunk_size, "chunk size", 1, 10_000_000))
        s(self, "max_listed_violations", _int(self.max_listed_violations, "max listed violations", 0, 100_000))
        try:
            check_digits(self.digits)
        except InputError:
            raise InputError(f"digits: {self.digits!r} must be an integer from 30 to 1000") from None
        if self.digits < 30:
            raise InputError(f"digits: {self.digits} must be an integer from 30 to 1000")
        delta, t = self.sensitivity, self.threshold
        if self.random_samples:
            if self.query_values is not None:
                raise InputError("queries: give either a grid of query values or random samples, not both")
            rng_ = sequence(self.random_range, "random range") if self.random_range is not None else (t - 6 * delta, t + 6 * delta)
            if len(rng_) != 2:
                raise InputError(f"random range: {len(rng_)} values given; give two, (LO, HI)")
            lo, hi = (to_number(x, "random range") for x in rng_)
            if not lo < hi:
                raise InputError(f"random range: {fmt(lo)} must be below {fmt(hi)}")
            res = positive(self.random_resolution if self.random_resolution is not None else delta / 64, "random resolution")
            if res > hi - lo:
                raise InputError(f"random resolution: {fmt(res)} is larger than the range [{fmt(lo)}, {fmt(hi)}]")
            s(self, "random_range", (lo, hi))
            s(self, "random_resolution", res)
        else:
            vals = self.query_values if self.query_values is not None else tuple(t + j * delta for j in range(-6, 7))
            vals = tuple(sorted(set(_fractions(vals, "query values"))))
            if not vals:
                raise InputError("query values: the grid is empty")
            s(self, "query_values", vals)
        if self.n_query_vectors * self.n_shifts * (self.k + 1) * max(1, len(self.epsilons)) >= MAX_INDEX:
            vectors = f"{self.random_samples} random query vectors" if self.random_samples else f"{self.n_values}^{self.k} query vectors"
            raise InputError(f"grid: {vectors} x {len(self.shifts)}^{self.k} shifts is too large to index")
        _check_exact_grid("random range and resolution" if self.random_samples else "query values", self.denominator,
                          Fraction(self.max_abs_numerator, self.denominator))

    # --- derived -------------------------------------------------------------------------------
    @property
    def shifts(self) -> tuple[Fraction, ...]:
        return shift_values(self.sensitivity, self.shift_steps)

    @property
    def n_values(self) -> int:
        if self.random_samples:
            lo, hi = self.random_range
            return int((hi - lo) // self.random_resolution) + 1
        return len(self.query_values)

    @property
    def n_query_vectors(self) -> int:
        return self.random_samples if self.random_samples else self.n_values**self.k

    @property
    def n_shifts(self) -> int:
        return len(self.shifts) ** self.k

    @property
    def n_pairs(self) -> int:
        return self.n_query_vectors * self.n_shifts

    @property
    def points_per_epsilon(self) -> int:
        return self.n_pairs * (self.k + 1)

    @property
    def denominator(self) -> int:
        base = [*self.shifts]
        if self.random_samples:
            base += [self.random_range[0], self.random_resolution]
        else:
            base += list(self.query_values)
        return _lcm_denominator(base)

    @property
    def max_abs_numerator(self) -> int:
        if self.random_samples:
            lo, hi = self.random_range
            top = max(abs(lo), abs(hi)) + self.sensitivity
        else:
            top = max(abs(v) for v in self.query_values) + self.sensitivity
        return int(top * self.denominator) + 1

    def describe(self) -> str:
        if self.random_samples:
            lo, hi = self.random_range
            q = f"{self.random_samples} random vectors (seed {self.seed}) on multiples of {fmt(self.random_resolution)} in [{fmt(lo)}, {fmt(hi)}]^{self.k}"
        else:
            v = self.query_values
            q = f"grid of {len(v)} values in [{fmt(v[0])}, {fmt(v[-1])}] per coordinate, k = {self.k}"
        sh = "corners {-Δ,0,Δ}^k" if self.shift_steps == 0 else f"{self.shift_steps} shifts per coordinate in [-Δ,Δ]"
        return f"{q}; shifts {sh}; outputs s_1..s_{self.k}, ⊤^k"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "epsilons": [fmt(e) for e in self.epsilons],
            "sensitivity": fmt(self.sensitivity),
            "threshold": fmt(self.threshold),
            "k": self.k,
            "shifts": "corners" if self.shift_steps == 0 else f"grid of {self.shift_steps}",
            "chunk_size": self.chunk_size,
            "digits": self.digits,
        }
        if self.random_samples:
            out.update(random_samples=self.random_samples, seed=self.seed, random_range=[fmt(x) for x in self.random_range],
                       random_resolution=fmt(self.random_resolution))
        else:
            out["query_values"] = [fmt(v) for v in self.query_values]
        return out


@dataclass(frozen=True)
class ConditionalGridSpec:
    """A grid over the proofs' conditional integrals (units: the queries').

    ``gap_max``: values of m = M(D,x) - t (m = -∞, the case i = 1, is added
    when ``include_first``); ``kappas``: κ = M(D,x) - M(D',x) (default 9 values
    in [-Δ, Δ]); ``gap_query``: d = q_i(D) - t; ``deltas``: δ = q_i(D') - q_i(D)
    (default 9 values in [-Δ, Δ]).  Defaults for m and d: jΔ/2, j = -12..12.

    >>> ConditionalGridSpec().points_per_epsilon
    50850
    """

    epsilons: tuple[Fraction, ...] = ()
    sensitivity: Fraction = Fraction(1)
    gap_max: tuple[Fraction, ...] | None = None
    kappas: tuple[Fraction, ...] | None = None
    gap_query: tuple[Fraction, ...] | None = None
    deltas: tuple[Fraction, ...] | None = None
    include_first: bool = True
    chunk_size: int = DEFAULT_CHUNK
    max_listed_violations: int = 20
    digits: int = 30

    def __post_init__(self) -> None:
        s = object.__setattr__
        s(self, "epsilons", tuple(positive(e, "epsilon") for e in sequence(self.epsilons, "epsilons")))
        delta = positive(self.sensitivity, "sensitivity")
        s(self, "sensitivity", delta)
        half = tuple(j * delta / 2 for j in range(-12, 13))
        for name, default in (("gap_max", half), ("gap_query", half), ("kappas", shift_values(delta, 9)), ("deltas", shift_values(delta, 9))):
            vals = getattr(self, name)
            vals = tuple(sorted(set(_fractions(default if vals is None else vals, name))))
            if not vals:
                raise InputError(f"{name}: the grid is empty")
            s(self, name, vals)
        for name in ("kappas", "deltas"):
            bad = [v for v in getattr(self, name) if abs(v) > delta]
            if bad:
                raise InputError(f"{name}: {fmt(bad[0])} is outside [-Δ, Δ] = [{fmt(-delta)}, {fmt(delta)}]")
        s(self, "chunk_size", _int(self.chunk_size, "chunk size", 1, 10_000_000))
        s(self, "max_listed_violations", _int(self.max_listed_violations, "max listed violations", 0, 100_000))
        if isinstance(self.digits, bool) or not isinstance(self.digits, int) or not 30 <= self.digits <= 1000:
            raise InputError(f"digits: {self.digits!r} must be an integer from 30 to 1000")
        largest = max(abs(v) for v in (*self.gap_max, *self.gap_query)) + delta
        _check_exact_grid("conditional grid (gap max, gap query, κ, δ)", self.denominator, largest)

    @property
    def denominator(self) -> int:
        return _lcm_denominator([*self.gap_max, *self.kappas, *self.gap_query, *self.deltas])

    @property
    def n_first(self) -> int:
        """Points with m = -∞ (κ = 0 there: M(D') = M(D) = -∞)."""
        return len(self.gap_query) * len(self.deltas) if self.include_first else 0

    @property
    def n_pairs(self) -> int:
        return self.n_first + len(self.gap_max) * len(self.kappas) * len(self.gap_query) * len(self.deltas)

    @property
    def points_per_epsilon(self) -> int:
        return self.n_pairs

    def describe(self) -> str:
        def rng(v):
            return f"{len(v)} values in [{fmt(v[0])}, {fmt(v[-1])}]"

        first = " and -∞ (i = 1)" if self.include_first else ""
        return (f"m = M(D,x)-t: {rng(self.gap_max)}{first}; κ: {rng(self.kappas)}; "
                f"d = q_i(D)-t: {rng(self.gap_query)}; δ: {rng(self.deltas)}")

    def to_json(self) -> dict[str, Any]:
        return {
            "epsilons": [fmt(e) for e in self.epsilons],
            "sensitivity": fmt(self.sensitivity),
            "gap_max": [fmt(v) for v in self.gap_max] + (["-inf"] if self.include_first else []),
            "kappas": [fmt(v) for v in self.kappas],
            "gap_query": [fmt(v) for v in self.gap_query],
            "deltas": [fmt(v) for v in self.deltas],
            "chunk_size": self.chunk_size,
            "digits": self.digits,
        }
