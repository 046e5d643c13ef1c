"""Grid sweeps of the privacy ratio (seed, "Privacy Guarantee": e^{-ε} <= Pr[A(D)=s]/Pr[A(D')=s] <= e^{ε}).

Two sweeps:

* `sweep` (outputs): for every ε of the grid, every query vector q(D) of the
  grid (a product grid, or seeded random samples), every neighbour shift
  q(D') - q(D) (the corners {-Δ, 0, +Δ}^k by default, or a product grid in
  [-Δ, Δ]^k) and every output s_1..s_k, ⊤^k, the log ratio
  log Pr[A(D)=s] - log Pr[A(D')=s] by the vectorised fast path
  (`verify.probabilities.fast_log_distribution`), checked against |·| <= ε.
* `conditional_sweep`: the proofs' conditional integrals directly (seed, Proof 1
  and the proof of Mechanism Two): with m = M(D,x) - t, κ = M(D,x) - M(D',x),
  d = q_i(D) - t and δ = q_i(D') - q_i(D), the ratio
  Pr[A(D)=s_i | X_<i = x] / Pr[A(D')=s_i | X_<i = x] = cond(m, d) / cond(m - κ, d + δ)
  (`verify.probabilities.fast_log_conditional`), m = -∞ (with κ = 0) for i = 1.

How a point is decided (a float64 value is never reported as a violation
without a high-precision check):

* |log r| <= ε - margin, margin = 1e-9·max(1, ε): inside, decided by float64.
  The fast path promises relative error <= 1e-11 per probability (it falls back
  to mpmath otherwise), so its log ratio is within ~2e-11 of the truth; the
  margin is 50 times that.
* ε - margin < |log r| <= ε + margin (or NaN): too close for float64; re-evaluated
  at ``digits`` (>= 30) significant digits by the mpmath path and classified
  there: violation if |log r| > ε + tol, at the bound if ||log r| - ε| <= tol,
  inside otherwise, tol = 10^-(digits-5)·max(1, ε) (each probability is correct
  to ``digits`` digits, so the log ratio to about 10^-(digits-1)).
* |log r| > ε + margin: a violation by float64 with the margin above; the first
  ``max_listed_violations`` (in grid order) are re-evaluated by
  `verify.ratio.privacy_ratio` at ``digits`` digits and listed with their
  witness; the count includes the rest.  A listed point that the high-precision
  value puts inside is not a violation and is counted in
  ``fast_path_disagreements`` (never seen so far; it would be a fast-path bug).

The largest |log ratio| of each chunk is re-evaluated by `privacy_ratio` (or
`mp_conditional`), and chunks are compared by that value; the reported maximum
is within float64 error (~1e-11) of the largest on the grid.

Chunks are fixed ranges of the grid's index (grid order: ε, then q(D) in
lexicographic order, then the shift, then the output), independent of the
number of workers, and results are folded in chunk order: serial, process-pool
and Dask runs give identical results.  Memory stays bounded by the chunk size.
"""

from __future__ import annotations

import csv
import dataclasses
import math
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Executor
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from verify.errors import InputError
from verify.exact import fmt, positive, to_fraction
from verify.mechanism import NO_HALT, AboveThreshold, Output, column_output
from verify.parallel import executor_for, ordered_results
from verify.precision import MPMATH_LOCK
from verify.probabilities import check_digits, fast_log_conditional, fast_log_distribution, mp_conditional, mp_distribution
from verify.ratio import log_ratio, privacy_ratio

#: Relative float64 margin below ε above which a point is re-evaluated.
FLOAT_MARGIN = 1e-9
MAX_K = 64
MAX_INDEX = 2**62
RANDOM_BLOCK = 1024
DEFAULT_CHUNK = 20_000


def float_margin(epsilon: float) -> float:
    return FLOAT_MARGIN * max(1.0, epsilon)


def mp_tolerance(epsilon: float, digits: int) -> float:
    return 10.0 ** (-(digits - 5)) * max(1.0, epsilon)


def _fractions(values: Sequence[object], name: str) -> tuple[Fraction, ...]:
    return tuple(to_fraction(v, f"{name}[{j}]") for j, v in enumerate(values, start=1))


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


def _shift_values(sensitivity: Fraction, steps: int) -> tuple[Fraction, ...]:
    """Corners {-Δ, 0, Δ} (steps 0) or ``steps`` equally spaced values in [-Δ, Δ]."""
    if steps == 0:
        return (-sensitivity, Fraction(0), sensitivity)
    return tuple(-sensitivity + 2 * sensitivity * Fraction(j, steps - 1) for j in range(steps))


# --------------------------------------------------------------------------------------------------
# grid specifications
# --------------------------------------------------------------------------------------------------
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
        s(self, "epsilons", tuple(positive(e, "epsilon") for e in self.epsilons))
        s(self, "sensitivity", positive(self.sensitivity, "sensitivity"))
        s(self, "threshold", to_fraction(self.threshold, "threshold"))
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
            rng_ = self.random_range or (t - 6 * delta, t + 6 * delta)
            lo, hi = (to_fraction(x, "random range") for x in rng_)
            if not lo < hi:
                raise InputError(f"random range: {fmt(lo)} must be below {fmt(hi)}")
            res = positive(self.random_resolution if self.random_resolution is not None else delta / 64, "random resolution")
            s(self, "random_range", (lo, hi))
            s(self, "random_resolution", res)
        else:
            vals = self.query_values if self.query_values is not None else tuple(t + j * delta for j in range(-6, 7))
            vals = tuple(sorted(set(_fractions(vals, "query values"))))
            if not vals:
                raise InputError("query values: the grid is empty")
            s(self, "query_values", vals)
        if self.n_query_vectors * self.n_shifts * (self.k + 1) * max(1, len(self.epsilons)) >= MAX_INDEX:
            raise InputError(f"grid: {self.n_values}^{self.k} query vectors x {len(self.shifts)}^{self.k} shifts is too large to index")
        if self.denominator >= 2**40 or self.max_abs_numerator >= 2**52:
            raise InputError("query values: too many digits for exact float64 grid arithmetic (common denominator >= 2^40)")

    # --- derived -------------------------------------------------------------------------------
    @property
    def shifts(self) -> tuple[Fraction, ...]:
        return _shift_values(self.sensitivity, self.shift_steps)

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

    # --- decoding indices into exact numerators (units of 1/denominator) --------------------------
    def _digits(self, idx: np.ndarray, base: int) -> np.ndarray:
        pows = base ** np.arange(self.k - 1, -1, -1, dtype=np.int64)
        return (idx[:, None] // pows[None, :]) % base

    def query_numerators(self, qidx: np.ndarray) -> np.ndarray:
        den = self.denominator
        if not self.random_samples:
            table = np.array([int(v * den) for v in self.query_values], dtype=np.int64)
            return table[self._digits(qidx, len(self.query_values))]
        lo, _ = self.random_range
        step = int(self.random_resolution * den)
        base = int(lo * den)
        blocks = np.unique(qidx // RANDOM_BLOCK)
        out = np.empty((len(qidx), self.k), dtype=np.int64)
        for b in blocks:
            rng = np.random.default_rng([self.seed, int(b)])
            rows = rng.integers(0, self.n_values, size=(RANDOM_BLOCK, self.k), dtype=np.int64)
            sel = (qidx // RANDOM_BLOCK) == b
            out[sel] = base + step * rows[qidx[sel] % RANDOM_BLOCK]
        return out

    def shift_numerators(self, sidx: np.ndarray) -> np.ndarray:
        den = self.denominator
        table = np.array([int(v * den) for v in self.shifts], dtype=np.int64)
        return table[self._digits(sidx, len(self.shifts))]

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
        s(self, "epsilons", tuple(positive(e, "epsilon") for e in self.epsilons))
        delta = positive(self.sensitivity, "sensitivity")
        s(self, "sensitivity", delta)
        half = tuple(j * delta / 2 for j in range(-12, 13))
        for name, default in (("gap_max", half), ("gap_query", half), ("kappas", _shift_values(delta, 9)), ("deltas", _shift_values(delta, 9))):
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
        if self.denominator >= 2**40:
            raise InputError("conditional grid: too many digits for exact float64 grid arithmetic")

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

    def decode(self, idx: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(m numerators, κ, d, δ, is_first) for grid indices; m unused where is_first."""
        den = self.denominator

        def table(v):
            return np.array([int(x * den) for x in v], dtype=np.int64)

        tm, tk, td, tdl = table(self.gap_max), table(self.kappas), table(self.gap_query), table(self.deltas)
        first = idx < self.n_first
        rest = idx - self.n_first
        nd, ndl, nk = len(td), len(tdl), len(tk)
        m = np.where(first, 0, tm[np.clip(rest // (nk * nd * ndl), 0, len(tm) - 1)])
        kap = np.where(first, 0, tk[(np.maximum(rest, 0) // (nd * ndl)) % nk])
        j = np.where(first, idx, np.maximum(rest, 0))
        d = td[(j // ndl) % nd]
        dl = tdl[j % ndl]
        return m, kap, d, dl, first

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


# --------------------------------------------------------------------------------------------------
# results
# --------------------------------------------------------------------------------------------------
def _mp_text(x: mpmath.mpf, digits: int) -> str:
    from verify.cli.common import mp_str

    return mp_str(x, digits)


@dataclass(frozen=True)
class Witness:
    """One point with its high-precision ratio.

    Output sweep: ``queries`` (q(D)), ``neighbour_queries`` (q(D')), ``output``.
    Conditional sweep: ``gap_max`` (None = -∞, i = 1), ``kappa``, ``gap_query``, ``delta``.
    """

    epsilon: Fraction
    log_ratio: str
    ratio: str
    probability: str
    neighbour_probability: str
    digits: int
    queries: tuple[Fraction, ...] | None = None
    neighbour_queries: tuple[Fraction, ...] | None = None
    output: Output | None = None
    gap_max: Fraction | None = None
    kappa: Fraction | None = None
    gap_query: Fraction | None = None
    delta: Fraction | None = None
    kind: str = "witness"

    @property
    def abs_log_ratio(self) -> mpmath.mpf:
        with mpmath.workdps(self.digits + 5):
            return abs(mpmath.mpf(self.log_ratio))

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"epsilon": fmt(self.epsilon)}
        if self.queries is not None:
            out.update(queries=[fmt(x) for x in self.queries], neighbour_queries=[fmt(x) for x in self.neighbour_queries],
                       output=self.output if self.output == NO_HALT else int(self.output))
        else:
            out.update(gap_max="-inf" if self.gap_max is None else fmt(self.gap_max), kappa=fmt(self.kappa),
                       gap_query=fmt(self.gap_query), delta=fmt(self.delta))
        out.update(log_ratio=self.log_ratio, ratio=self.ratio, probability=self.probability,
                   neighbour_probability=self.neighbour_probability, digits=self.digits)
        return out


@dataclass(kw_only=True)
class _Tally:
    """Counts and witnesses of checked points: one chunk's, or one ε's folded total."""

    points: int = 0
    violation_count: int = 0
    violations: list[Witness] = field(default_factory=list)
    near_bound_reevaluated: int = 0
    at_bound: int = 0
    at_bound_example: Witness | None = None
    fast_path_disagreements: int = 0
    refined_by_mpmath: int = 0
    witness: Witness | None = None


@dataclass
class EpsilonSummary(_Tally):
    """Folded results for one ε."""

    epsilon: Fraction

    def to_json(self) -> dict[str, Any]:
        w = self.witness
        return {
            "epsilon": fmt(self.epsilon),
            "points": self.points,
            "violations": self.violation_count,
            "near_bound_reevaluated": self.near_bound_reevaluated,
            "at_bound": self.at_bound,
            "max_abs_log_ratio": None if w is None else _json_float(w.abs_log_ratio),
            "max_abs_log_ratio_over_epsilon": None if w is None else _json_float(w.abs_log_ratio / _mpf(self.epsilon)),
        }


def _mpf(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def _json_float(x: mpmath.mpf) -> float | str:
    if mpmath.isinf(x):
        return "inf" if x > 0 else "-inf"
    return float(x)


@dataclass
class SweepResult:
    """What a sweep found.  ``complete`` is False for an interrupted sweep (the
    figures then cover the chunks finished, in grid order)."""

    kind: str  # "outputs" or "conditional"
    mechanism: AboveThreshold
    spec: GridSpec | ConditionalGridSpec
    per_epsilon: list[EpsilonSummary]
    chunks_done: int
    chunks_total: int
    seconds: float
    runner: str

    @property
    def complete(self) -> bool:
        return self.chunks_done == self.chunks_total

    @property
    def points(self) -> int:
        return sum(e.points for e in self.per_epsilon)

    @property
    def violation_count(self) -> int:
        return sum(e.violation_count for e in self.per_epsilon)

    @property
    def violations(self) -> list[Witness]:
        return [v for e in self.per_epsilon for v in e.violations]

    @property
    def witness(self) -> Witness | None:
        """The point with the largest |log ratio|/ε (first in grid order on ties)."""
        best, best_val = None, None
        for e in self.per_epsilon:
            if e.witness is None:
                continue
            val = e.witness.abs_log_ratio / _mpf(e.epsilon)
            if best_val is None or val > best_val:
                best, best_val = e.witness, val
        return best

    @property
    def max_abs_log_ratio(self) -> mpmath.mpf | None:
        w = self.witness
        return None if w is None else w.abs_log_ratio

    @property
    def max_abs_log_ratio_over_epsilon(self) -> mpmath.mpf | None:
        w = self.witness
        return None if w is None else w.abs_log_ratio / _mpf(w.epsilon)

    @property
    def verdict(self) -> str:
        """``refuted`` (a violation confirmed at high precision) or ``consistent``
        (float64 checks over the stated grid, near-bound points at high precision,
        nothing violated); never ``proved``: a grid is not a proof."""
        if self.violation_count == 0:
            return "consistent"
        return "refuted" if self.violations else "refuted_float64"

    def to_json(self) -> dict[str, Any]:
        from verify.cli.common import mechanism_json

        w = self.witness
        return {
            "sweep": self.kind,
            "mechanism": mechanism_json(self.mechanism),
            "grid": self.spec.to_json(),
            "grid_description": self.spec.describe(),
            "complete": self.complete,
            "chunks_done": self.chunks_done,
            "chunks_total": self.chunks_total,
            "points": self.points,
            "violations": [v.to_json() for v in self.violations],
            "violation_count": self.violation_count,
            "max_abs_log_ratio": None if w is None else _json_float(self.max_abs_log_ratio),
            "max_abs_log_ratio_over_epsilon": None if w is None else _json_float(self.max_abs_log_ratio_over_epsilon),
            "witness": None if w is None else w.to_json(),
            "verdict": self.verdict,
            "near_bound_reevaluated": sum(e.near_bound_reevaluated for e in self.per_epsilon),
            "at_bound": sum(e.at_bound for e in self.per_epsilon),
            "at_bound_example": next((e.at_bound_example.to_json() for e in self.per_epsilon if e.at_bound_example), None),
            "fast_path_disagreements": sum(e.fast_path_disagreements for e in self.per_epsilon),
            "refined_by_mpmath": sum(e.refined_by_mpmath for e in self.per_epsilon),
            "per_epsilon": [e.to_json() for e in self.per_epsilon],
            "seconds": round(self.seconds, 3),
            "runner": self.runner,
        }

    def write_csv(self, path: str) -> int:
        """One row for the witness of each ε, each at-bound example and each listed
        violation; returns the number of rows written."""
        cols = ["kind", "epsilon", "output", "queries", "neighbour_queries", "gap_max", "kappa", "gap_query", "delta",
                "log_ratio", "ratio", "probability", "neighbour_probability", "digits"]
        rows = []
        for e in self.per_epsilon:
            items = ([e.witness] if e.witness else []) + ([e.at_bound_example] if e.at_bound_example else []) + e.violations
            for w in items:
                j = w.to_json()
                rows.append({
                    "kind": w.kind,
                    "epsilon": j["epsilon"],
                    "output": j.get("output", ""),
                    "queries": " ".join(j.get("queries", [])),
                    "neighbour_queries": " ".join(j.get("neighbour_queries", [])),
                    "gap_max": j.get("gap_max", ""),
                    "kappa": j.get("kappa", ""),
                    "gap_query": j.get("gap_query", ""),
                    "delta": j.get("delta", ""),
                    "log_ratio": w.log_ratio, "ratio": w.ratio, "probability": w.probability,
                    "neighbour_probability": w.neighbour_probability, "digits": w.digits,
                })
        try:
            with open(path, "w", newline="", encoding="utf-8") as fh:
                writer = csv.DictWriter(fh, fieldnames=cols)
                writer.writeheader()
                writer.writerows(rows)
        except OSError as exc:
            raise InputError(f"--csv: cannot write {path!r} ({exc.strerror})") from None
        return len(rows)


# --------------------------------------------------------------------------------------------------
# chunk work (module level: picklable for process pools and Dask)
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class _Task:
    kind: str
    mechanism: AboveThreshold
    spec: Any
    eps_index: int
    lo: int
    hi: int


@dataclass
class _ChunkResult(_Tally):
    eps_index: int


def _classify(lr: mpmath.mpf, eps: float, digits: int) -> str:
    tol = mp_tolerance(eps, digits)
    a = abs(lr)
    with mpmath.workdps(digits + 10):
        if a > mpmath.mpf(eps) + tol:
            return "violation"
        if abs(a - mpmath.mpf(eps)) <= tol:
            return "at_bound"
    return "inside"


def _eps_mpf(mech: AboveThreshold) -> float:
    return float(mech.epsilon)


def _output_witness(mech: AboveThreshold, q: tuple, qn: tuple, output: Output, digits: int, kind: str) -> Witness:
    rep = privacy_ratio(mech, q, qn, outputs=[output], digits=digits)
    o = rep.outputs[0]
    return Witness(mech.epsilon, _mp_text(o.log_ratio, digits), _mp_text(o.ratio, digits), _mp_text(o.probability, digits),
                   _mp_text(o.neighbour_probability, digits), digits, queries=q, neighbour_queries=qn, output=output, kind=kind)


def _conditional_witness(mech, m, kappa, d, delta, digits, kind) -> Witness:
    p = mp_conditional(mech, m, d, digits)
    pn = mp_conditional(mech, None if m is None else m - kappa, d + delta, digits)
    with mpmath.workdps(digits + 10):
        lr = log_ratio(p, pn)
        ratio = mpmath.exp(lr) if mpmath.isfinite(lr) else (mpmath.inf if lr > 0 else mpmath.mpf(0))
    return Witness(mech.epsilon, _mp_text(lr, digits), _mp_text(ratio, digits), _mp_text(p, digits), _mp_text(pn, digits), digits,
                   gap_max=m, kappa=kappa, gap_query=d, delta=delta, kind=kind)


def _run_task(task: _Task) -> _ChunkResult:
    # A chunk re-evaluates points with mpmath, whose precision is process-global:
    # chunks on a thread-based executor take turns (verify.precision).
    with MPMATH_LOCK:
        if task.kind == "outputs":
            return _outputs_chunk(task)
        return _conditional_chunk(task)


def _decide(res: _ChunkResult, lr: np.ndarray, eps: float, digits: int, cap: int,
            exact_lr: Callable[[int, int], mpmath.mpf], make_witness: Callable[[int, int, str], Witness]) -> None:
    """Shared decision logic on a (pairs, columns) array of float64 log ratios."""
    margin = float_margin(eps)
    a = np.abs(lr)
    nan = np.isnan(a)
    ambiguous = nan | ((a > eps - margin) & (a <= eps + margin))
    clear = (a > eps + margin) & ~nan
    decided = np.where(nan, -np.inf, a)
    listed = 0
    flagged = sorted(zip(*np.nonzero(ambiguous | clear)))
    for r, c in flagged:
        r, c = int(r), int(c)
        if ambiguous[r, c]:
            res.near_bound_reevaluated += 1
            exact = exact_lr(r, c)
            decided[r, c] = float(abs(exact))
            cls = _classify(exact, eps, digits)
            if cls == "at_bound":
                res.at_bound += 1
                if res.at_bound_example is None:
                    res.at_bound_example = make_witness(r, c, "at_bound")
                continue
            if cls == "inside":
                continue
        res.violation_count += 1
        if listed < cap:
            w = make_witness(r, c, "violation")
            listed += 1
            if _classify(mpmath.mpf(w.log_ratio) if w.log_ratio not in ("inf", "-inf") else mpmath.inf, eps, digits) != "violation":
                res.violation_count -= 1
                res.fast_path_disagreements += 1
                continue
            res.violations.append(w)
    if decided.size:
        r, c = np.unravel_index(int(np.argmax(decided)), decided.shape)
        res.witness = make_witness(int(r), int(c), "witness")


def _outputs_chunk(task: _Task) -> _ChunkResult:
    spec: GridSpec = task.spec
    mech = task.mechanism
    eps = _eps_mpf(mech)
    k, den = spec.k, spec.denominator
    pairs = np.arange(task.lo, task.hi, dtype=np.int64)
    qidx, sidx = np.divmod(pairs, spec.n_shifts)
    qn = spec.query_numerators(qidx)
    pn = qn + spec.shift_numerators(sidx)
    n = len(pairs)
    uniq, inv = np.unique(np.concatenate([qn, pn]), axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    logp, refined = fast_log_distribution(mech, uniq / den)
    a, b = logp[inv[:n]], logp[inv[n:]]
    with np.errstate(invalid="ignore"):
        lr = a - b
    lr = np.where(np.isneginf(a) & np.isneginf(b), 0.0, lr)
    res = _ChunkResult(task.eps_index, points=n * (k + 1), refined_by_mpmath=int(refined))
    cache: dict[int, list] = {}

    def dist(u: int) -> list:
        if u not in cache:
            cache[u] = mp_distribution(mech, [Fraction(int(x), den) for x in uniq[u]], spec.digits)
        return cache[u]

    def exact_lr(r: int, c: int) -> mpmath.mpf:
        with mpmath.workdps(spec.digits + 10):
            return log_ratio(dist(int(inv[r]))[c], dist(int(inv[n + r]))[c])

    def make_witness(r: int, c: int, kind: str) -> Witness:
        q = tuple(Fraction(int(x), den) for x in qn[r])
        qq = tuple(Fraction(int(x), den) for x in pn[r])
        return _output_witness(mech, q, qq, column_output(c, k), spec.digits, kind)

    _decide(res, lr, eps, spec.digits, spec.max_listed_violations, exact_lr, make_witness)
    return res


_NEG_INF_CODE = np.iinfo(np.int64).min


def _conditional_chunk(task: _Task) -> _ChunkResult:
    spec: ConditionalGridSpec = task.spec
    mech = task.mechanism
    eps = _eps_mpf(mech)
    den = spec.denominator
    idx = np.arange(task.lo, task.hi, dtype=np.int64)
    m, kap, d, dl, first = spec.decode(idx)
    n = len(idx)
    m_code = np.where(first, _NEG_INF_CODE, m)
    mn_code = np.where(first, _NEG_INF_CODE, m - kap)
    keys = np.stack([np.concatenate([m_code, mn_code]), np.concatenate([d, d + dl])], axis=1)
    uniq, inv = np.unique(keys, axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    um = np.where(uniq[:, 0] == _NEG_INF_CODE, -np.inf, uniq[:, 0] / den)
    logp = fast_log_conditional(mech, um, uniq[:, 1] / den)
    a, b = logp[inv[:n]], logp[inv[n:]]
    with np.errstate(invalid="ignore"):
        lr = a - b
    lr = np.where(np.isneginf(a) & np.isneginf(b), 0.0, lr)[:, None]
    res = _ChunkResult(task.eps_index, points=n)
    cache: dict[int, mpmath.mpf] = {}

    def frac(code: int) -> Fraction | None:
        return None if code == _NEG_INF_CODE else Fraction(int(code), den)

    def cond(u: int) -> mpmath.mpf:
        if u not in cache:
            cache[u] = mp_conditional(mech, frac(int(uniq[u, 0])), Fraction(int(uniq[u, 1]), den), spec.digits)
        return cache[u]

    def exact_lr(r: int, c: int) -> mpmath.mpf:
        with mpmath.workdps(spec.digits + 10):
            return log_ratio(cond(int(inv[r])), cond(int(inv[n + r])))

    def make_witness(r: int, c: int, kind: str) -> Witness:
        mm = None if first[r] else Fraction(int(m[r]), den)
        return _conditional_witness(mech, mm, Fraction(int(kap[r]), den), Fraction(int(d[r]), den), Fraction(int(dl[r]), den),
                                    spec.digits, kind)

    _decide(res, lr, eps, spec.digits, spec.max_listed_violations, exact_lr, make_witness)
    return res


# --------------------------------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------------------------------
def _mechanisms(template: AboveThreshold, epsilons: tuple[Fraction, ...], sensitivity: Fraction | None, threshold: Fraction | None):
    changes: dict[str, Any] = {}
    if sensitivity is not None:
        changes["sensitivity"] = sensitivity
    if threshold is not None:
        changes["threshold"] = threshold
    eps_list = epsilons or (template.epsilon,)
    return [dataclasses.replace(template, epsilon=e, **changes) for e in eps_list]


def _fold(summary: EpsilonSummary, r: _ChunkResult, cap: int) -> None:
    summary.points += r.points
    summary.violation_count += r.violation_count
    room = cap - len(summary.violations)
    if room > 0:
        summary.violations.extend(r.violations[:room])
    summary.near_bound_reevaluated += r.near_bound_reevaluated
    summary.at_bound += r.at_bound
    summary.fast_path_disagreements += r.fast_path_disagreements
    summary.refined_by_mpmath += r.refined_by_mpmath
    if summary.at_bound_example is None and r.at_bound_example is not None:
        summary.at_bound_example = r.at_bound_example
    if r.witness is not None and (summary.witness is None or r.witness.abs_log_ratio > summary.witness.abs_log_ratio):
        summary.witness = r.witness


def _drive(kind: str, mechanism: AboveThreshold, spec, mechs: list[AboveThreshold], executor: Executor | None,
           workers: int | None, scheduler: str | None, progress: bool | None) -> SweepResult:
    from tqdm import tqdm

    n = spec.n_pairs
    size = spec.chunk_size
    bounds = [(lo, min(lo + size, n)) for lo in range(0, n, size)]
    tasks = [_Task(kind, m, spec, e, lo, hi) for e, m in enumerate(mechs) for lo, hi in bounds]
    summaries = [EpsilonSummary(m.epsilon) for m in mechs]
    done = 0
    t0 = time.perf_counter()
    runner = "serial"
    show = progress if progress is not None else False
    bar = tqdm(total=len(tasks), unit="chunk", disable=not show, leave=False, desc=f"sweep ({kind})")
    try:
        with executor_for(executor, workers, scheduler) as (ex, runner):
            window = 4 * (workers or 2) + 2
            for r in ordered_results(_run_task, tasks, ex, window=window):
                _fold(summaries[r.eps_index], r, spec.max_listed_violations)
                done += 1
                bar.update(1)
    except KeyboardInterrupt:
        pass
    finally:
        bar.close()
    return SweepResult(kind, mechanism, spec, summaries, done, len(tasks), time.perf_counter() - t0, runner)


def sweep(mechanism: AboveThreshold, spec: GridSpec | None = None, executor: Executor | None = None, workers: int | None = None,
          scheduler: str | None = None, progress: bool | None = None) -> SweepResult:
    """Sweep the output ratios of ``mechanism``'s variant over ``spec``.

    The mechanism is a template: its noise families and scale rules are kept,
    and ε, Δ, t are taken from the grid (ε from the mechanism if the grid has
    none).  ``executor``: any `concurrent.futures.Executor`; ``scheduler``: a
    Dask scheduler address; else ``workers`` processes (default all cores,
    1 = serial).  Ctrl-C returns the partial result (``complete`` False).

    >>> r = sweep(AboveThreshold.mechanism_one(1), GridSpec(k=1, query_values=(0, 1)), workers=1)
    >>> r.points, r.violation_count
    (12, 0)
    """
    spec = spec or GridSpec()
    mechs = _mechanisms(mechanism, spec.epsilons, spec.sensitivity, spec.threshold)
    return _drive("outputs", mechs[0], spec, mechs, executor, workers, scheduler, progress)


def conditional_sweep(mechanism: AboveThreshold, spec: ConditionalGridSpec | None = None, executor: Executor | None = None,
                      workers: int | None = None, scheduler: str | None = None, progress: bool | None = None) -> SweepResult:
    """Sweep the proofs' conditional ratio cond(m, d) / cond(m - κ, d + δ) over ``spec``
    (see the module docstring); the threshold of the mechanism is irrelevant (m, d are relative to it).

    >>> r = conditional_sweep(AboveThreshold.mechanism_one(1), ConditionalGridSpec(gap_max=(0,), gap_query=(0,)), workers=1)
    >>> r.points, r.violation_count
    (90, 0)
    """
    spec = spec or ConditionalGridSpec()
    mechs = _mechanisms(mechanism, spec.epsilons, spec.sensitivity, None)
    return _drive("conditional", mechs[0], spec, mechs, executor, workers, scheduler, progress)
