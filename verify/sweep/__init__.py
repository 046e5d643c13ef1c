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
without a high-precision check; the rule and its margins are `verify.screen`'s):

* |log r| <= ε - margin, margin = 1e-9·max(1, ε): inside, decided by float64.
  The fast path promises relative error <= 1e-11 per probability (it falls back
  to mpmath otherwise), so its log ratio is within ~2e-11 of the truth; the
  margin is 50 times that.
* ε - margin < |log r| <= ε + margin (or NaN): too close for float64; re-evaluated
  at ``digits`` (>= 30) significant digits by the mpmath path and classified
  there: violation if |log r| > ε + tol, at the bound if ||log r| - ε| <= tol,
  inside otherwise, tol = 10^-(digits-5)·max(1, ε) (each probability is correct
  to ``digits`` digits, so the log ratio to about 10^-(digits-1)).  Each integral
  is computed once per process: the output sweep confirms output c of q as the
  one output c of `outputs.confirming_queries` (the same integral: s_{c+1} reads
  q_1..q_{c+1} and is symmetric in the queries below), the conditional sweep
  each (m, d) once; rows with the same two integrals share one log ratio.
* |log r| > ε + margin: a violation by float64 with the margin above; the first
  ``max_listed_violations`` (in grid order) are re-evaluated by
  `verify.ratio.privacy_ratio` at ``digits`` digits and listed with their
  witness; the count includes the rest.  A listed point that the high-precision
  value puts inside is not a violation and is counted in
  ``fast_path_disagreements`` (never seen so far; it would be a fast-path bug).

The largest |log ratio| of each chunk is re-evaluated by `privacy_ratio` (or
`mp_conditional`), and chunks are compared by that value; the reported maximum
is within float64 error (~1e-11) of the largest on the grid.

Modules: `specs` (the grids), `decode` (grid order, index -> exact point),
`decision` (the rule above), `results` (frozen results, JSON, CSV), `driver`
(chunks, executors, folding), `outputs` and `conditional` (the two sweeps).

Chunks are fixed ranges of the grid's index (grid order: ε, then q(D) in
lexicographic order, then the shift, then the output), independent of the
number of workers, and results are folded in chunk order: serial, process-pool
and Dask runs give identical results.  Memory stays bounded by the chunk size.
"""

from verify.screen import FLOAT_MARGIN, confirm_tolerance, float_margin
from verify.sweep.conditional import conditional_sweep
from verify.sweep.outputs import sweep
from verify.sweep.results import EpsilonSummary, SweepResult, Tally, Witness, WitnessKind
from verify.sweep.specs import DEFAULT_CHUNK, MAX_K, ConditionalGridSpec, GridSpec, shift_values

__all__ = [
    "DEFAULT_CHUNK", "FLOAT_MARGIN", "MAX_K", "ConditionalGridSpec", "EpsilonSummary", "GridSpec", "SweepResult", "Tally",
    "Witness", "WitnessKind", "conditional_sweep", "confirm_tolerance", "float_margin", "shift_values", "sweep",
]
