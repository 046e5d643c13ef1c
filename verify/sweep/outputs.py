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

import mpmath
import numpy as np

from verify.mechanism import AboveThreshold, Output, SparseVector, column_output  # noqa: F401  (AboveThreshold: doctests)
from verify.probabilities import fast_log_distribution, mp_distribution
from verify.ratio import log_ratio, log_ratio_from_logs, privacy_ratio
from verify.serialize import mp_str
from verify.sweep.decision import decide
from verify.sweep.decode import query_numerators, shift_numerators
from verify.sweep.driver import ChunkResult, Task, drive, mechanisms_for
from verify.sweep.results import Candidate, SweepResult, Witness, WitnessKind
from verify.sweep.specs import GridSpec


def output_witness(mech: SparseVector, q: tuple, qn: tuple, output: Output, digits: int, kind: WitnessKind) -> Witness:
    """The point (q, q', s) with its ratio by `verify.ratio.privacy_ratio` at ``digits`` digits."""
    rep = privacy_ratio(mech, q, qn, outputs=[output], digits=digits)
    o = rep.outputs[0]
    return Witness(mech.epsilon, mp_str(o.log_ratio, digits), mp_str(o.ratio, digits), mp_str(o.probability, digits),
                   mp_str(o.neighbour_probability, digits), digits, queries=q, neighbour_queries=qn, output=output, kind=kind)


@lru_cache(maxsize=1 << 13)
def exact_distribution(mech: SparseVector, numerators: tuple[int, ...], den: int, digits: int) -> tuple[mpmath.mpf, ...]:
    """`verify.probabilities.mp_distribution` of the queries numerators/den, remembered in this process:
    a query vector of a grid is the first vector of some pairs and the neighbour of others, in several
    chunks, and its near-bound outputs are confirmed once (a pure function of its arguments)."""
    return tuple(mp_distribution(mech, [Fraction(x, den) for x in numerators], digits))


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
    uniq, inv = np.unique(np.concatenate([qn, pn]), axis=0, return_inverse=True)
    inv = inv.reshape(-1)
    logp, refined = fast_log_distribution(mech, uniq / den)
    lr = log_ratio_from_logs(logp[inv[:n]], logp[inv[n:]])
    def dist(u: int) -> tuple[mpmath.mpf, ...]:
        return exact_distribution(mech, tuple(int(x) for x in uniq[u]), int(den), spec.digits)

    def exact_lr(r: int, c: int) -> mpmath.mpf:
        with mpmath.workdps(spec.digits + 10):
            return log_ratio(dist(int(inv[r]))[c], dist(int(inv[n + r]))[c])

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
