"""The output sweep (seed, "Privacy Guarantee": e^{-ε} <= Pr[A(D)=s]/Pr[A(D')=s] <= e^{ε}).

For every ε of the grid, every query vector q(D) of the grid, every neighbour
shift q(D') - q(D) and every output s_1..s_k, ⊤^k, the log ratio
log Pr[A(D)=s] - log Pr[A(D')=s] by the vectorised fast path
(`verify.probabilities.fast_log_distribution`), decided by
`verify.sweep.decision.decide` against |·| <= ε.
"""

from __future__ import annotations

from concurrent.futures import Executor
from fractions import Fraction
from functools import lru_cache
from typing import Any

import mpmath
import numpy as np

from verify.mechanism import AboveThreshold, Output, SparseVector, column_output  # noqa: F401  (AboveThreshold: doctests)
from verify.probabilities import fast_log_distribution, mp_probability
from verify.ratio import log_ratio, log_ratio_from_logs, privacy_ratio
from verify.serialize import mp_str
from verify.sweep.balls import log_ratio_ball, output_ball, output_balls, settled
from verify.sweep.decision import decide, near_bound
from verify.sweep.decode import query_numerators, shift_numerators, unique_rows
from verify.sweep.driver import ChunkResult, Task, drive, mechanisms_for
from verify.sweep.results import Candidate, SweepResult, Witness, WitnessKind
from verify.sweep.specs import GridSpec


def output_witness(mech: SparseVector, q: tuple, qn: tuple, output: Output, digits: int, kind: WitnessKind) -> Witness:
    """The point (q, q', s) with its ratio by `verify.ratio.privacy_ratio` at ``digits`` digits."""
    rep = privacy_ratio(mech, q, qn, outputs=[output], digits=digits)
    o = rep.outputs[0]
    return Witness(mech.epsilon, mp_str(o.log_ratio, digits), mp_str(o.ratio, digits), mp_str(o.probability, digits),
                   mp_str(o.neighbour_probability, digits), digits, queries=q, neighbour_queries=qn, output=output, kind=kind)


@lru_cache(maxsize=1 << 14)
def exact_output(mech: SparseVector, numerators: tuple[int, ...], column: int, den: int, digits: int) -> mpmath.mpf:
    """Pr[output ``column``] (s_{c+1}, or ⊤^k for c = k) of the queries numerators/den at ``digits`` digits
    (`verify.probabilities.mp_probability`), remembered in this process: a query vector of a grid is the
    first vector of some pairs and the neighbour of others, in several chunks, and each of its near-bound
    outputs is confirmed once (a pure function of its arguments).  Callers pass `confirming_queries`."""
    k = len(numerators)
    return mp_probability(mech, [Fraction(x, den) for x in numerators], column_output(column, k), digits)


def confirming_queries(numerators: tuple[int, ...], column: int) -> tuple[int, ...]:
    """The query vector whose output ``column`` is the integral of output ``column`` of ``numerators``,
    written canonically, so that the rows that share that integral are confirmed once.

    The exact path takes the seed's AboveThreshold only (`SparseVector.require_halting`: cutoff 1,
    nothing released), whose outputs are one integral each (`verify.probabilities`, seed, Proof 1):
    s_{c+1} = ⊤^c⊥ (column c < k) is ∫ p_Z(z) Π_{j<=c} F(t + z - q_j) · (1 - F(t + z - q_{c+1})) dz and
    ⊤^k is ∫ p_Z(z) Π_{j<=k} F(t + z - q_j) dz (`verify.engine.integrand` builds exactly these terms).
    So s_{c+1} reads q_1..q_{c+1} only (the mechanism has halted before q_{c+2}) and is output s_{c+1},
    column c, of the vector q_1..q_{c+1}; and the product has one factor F per query below, the same
    function of each, so sorting q_1..q_c (all k queries for ⊤^k) leaves the integral unchanged.  The
    query above, q_{c+1}, is never moved.  Returns (sorted q_1..q_c, q_{c+1}) for c < k, sorted q for c = k.

    >>> confirming_queries((3, -1, 2), 1), confirming_queries((3, -1, 2), 2), confirming_queries((3, -1, 2), 3)
    ((3, -1), (-1, 3, 2), (-1, 2, 3))
    """
    if column >= len(numerators):
        return tuple(sorted(numerators))
    return (*sorted(numerators[:column]), numerators[column])


def outputs_chunk(task: Task) -> ChunkResult:
    """Decide the pairs [task.lo, task.hi) of an output grid (every output of each pair)."""
    spec: GridSpec = task.spec
    mech = task.mechanism
    k, den = spec.k, spec.denominator
    pairs = np.arange(task.lo, task.hi, dtype=np.int64)
    qidx, sidx = np.divmod(pairs, spec.n_shifts)
    qn = query_numerators(spec, qidx)
    pn = qn + shift_numerators(spec, sidx)
    n = len(pairs)
    uniq, inv = unique_rows(np.concatenate([qn, pn]))
    logp, refined = fast_log_distribution(mech, uniq / den)
    lr = log_ratio_from_logs(logp[inv[:n]], logp[inv[n:]])
    keys: dict[tuple[int, int], tuple[int, ...]] = {}
    ratios: dict[tuple[tuple[int, ...], tuple[int, ...], int], mpmath.mpf] = {}
    balls: dict[tuple[tuple[int, ...], int], Any] = {}

    def key(u: int, c: int) -> tuple[int, ...]:
        if (u, c) not in keys:
            keys[u, c] = confirming_queries(tuple(uniq[u].tolist()), c)
        return keys[u, c]

    def ball(a: tuple[int, ...], c: int):
        if (a, c) not in balls:
            balls[a, c] = output_ball(mech, a, c, int(den), spec.digits)
        return balls[a, c]

    # the integrals decide will confirm, integrated together (those with the same kinks in one pass)
    rows, cols = np.nonzero(near_bound(lr, mech.epsilon))
    wanted = dict.fromkeys((key(int(inv[s + r]), c), c) for r, c in zip(rows.tolist(), cols.tolist()) for s in (0, n))
    balls.update(output_balls(mech, wanted, int(den), spec.digits))

    def exact_lr(r: int, c: int) -> mpmath.mpf:
        # rows whose two confirming vectors agree have the same two integrals, hence the same log ratio;
        # a ball that settles the point (`verify.sweep.balls`) is taken, else the mpmath closed form
        a, b = key(int(inv[r]), c), key(int(inv[n + r]), c)
        if (a, b, c) not in ratios:
            value = settled(log_ratio_ball(ball(a, c), ball(b, c), spec.digits), mech.epsilon, spec.digits)
            if value is None:
                with mpmath.workdps(spec.digits + 10):
                    value = log_ratio(exact_output(mech, a, c, int(den), spec.digits),
                                      exact_output(mech, b, c, int(den), spec.digits))
            ratios[a, b, c] = value
        return ratios[a, b, c]

    def make_witness(r: int, c: int, kind: WitnessKind) -> Witness:
        q = tuple(Fraction(int(x), den) for x in qn[r])
        qq = tuple(Fraction(int(x), den) for x in pn[r])
        return output_witness(mech, q, qq, column_output(c, k), spec.digits, kind)

    def candidate(r: int, c: int) -> Candidate:
        q = tuple(Fraction(int(x), den) for x in qn[r])
        qq = tuple(Fraction(int(x), den) for x in pn[r])
        return Candidate(output_witness, (mech, q, qq, column_output(c, k), spec.digits))

    return ChunkResult(task.eps_index, decide(lr, mech.epsilon, spec.digits, spec.max_listed_violations, exact_lr, make_witness,
                                              n * (k + 1), int(refined), candidate))


def sweep(mechanism: SparseVector, spec: GridSpec | None = None, executor: Executor | None = None, workers: int | None = None,
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
    mechs = mechanisms_for(mechanism, spec.epsilons, spec.sensitivity, spec.threshold)
    return drive("outputs", outputs_chunk, spec, mechs, executor, workers, scheduler, progress)
