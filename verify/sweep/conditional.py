"""The conditional sweep: the proofs' conditional integrals directly.

Seed, Proof 1 and the proof of Mechanism Two: with m = M(D,x) - t,
κ = M(D,x) - M(D',x), d = q_i(D) - t and δ = q_i(D') - q_i(D), the ratio
Pr[A(D)=s_i | X_<i = x] / Pr[A(D')=s_i | X_<i = x] = cond(m, d) / cond(m - κ, d + δ)
(`verify.probabilities.fast_log_conditional`), m = -∞ (with κ = 0) for i = 1;
decided by `verify.sweep.decision.decide` against |log ·| <= ε.
"""

from __future__ import annotations

from concurrent.futures import Executor
from fractions import Fraction
from functools import lru_cache
from typing import Any

import mpmath
import numpy as np

from verify.mechanism import AboveThreshold, SparseVector  # noqa: F401  (AboveThreshold: doctests)
from verify.probabilities import fast_log_conditional, mp_conditional
from verify.ratio import log_ratio, log_ratio_from_logs
from verify.serialize import mp_str
from verify.sweep.balls import conditional_ball, log_ratio_ball, settled
from verify.sweep.decision import decide
from verify.sweep.decode import conditional_point, unique_rows
from verify.sweep.driver import ChunkResult, Task, drive, mechanisms_for
from verify.sweep.results import Candidate, SweepResult, Witness, WitnessKind
from verify.sweep.specs import ConditionalGridSpec

#: int64 code of m = -∞ (the case i = 1) in the arrays of numerators.
NEG_INF_CODE = np.iinfo(np.int64).min


def conditional_witness(mech: SparseVector, m: Fraction | None, kappa: Fraction, d: Fraction, delta: Fraction, digits: int,
                        kind: WitnessKind) -> Witness:
    """The point (m, κ, d, δ) with cond(m, d) / cond(m - κ, d + δ) by `mp_conditional` at ``digits`` digits."""
    p = mp_conditional(mech, m, d, digits)
    pn = mp_conditional(mech, None if m is None else m - kappa, d + delta, digits)
    with mpmath.workdps(digits + 10):
        lr = log_ratio(p, pn)
        ratio = mpmath.exp(lr) if mpmath.isfinite(lr) else (mpmath.inf if lr > 0 else mpmath.mpf(0))
    return Witness(mech.epsilon, mp_str(lr, digits), mp_str(ratio, digits), mp_str(p, digits), mp_str(pn, digits), digits,
                   gap_max=m, kappa=kappa, gap_query=d, delta=delta, kind=kind)


@lru_cache(maxsize=1 << 13)
def exact_conditional(mech: SparseVector, m_code: int, d_numerator: int, den: int, digits: int) -> mpmath.mpf:
    """cond(m, d) by `mp_conditional` at ``digits`` digits, m = m_code/den (`NEG_INF_CODE`: m = -∞, i = 1),
    d = d_numerator/den, remembered in this process: a point (m, d) of a grid is the first point of
    some pairs and the neighbour of others, in several chunks, and is confirmed once (a pure function
    of its arguments)."""
    m = None if m_code == NEG_INF_CODE else Fraction(m_code, den)
    return mp_conditional(mech, m, Fraction(d_numerator, den), digits)


def conditional_chunk(task: Task) -> ChunkResult:
    """Decide the points [task.lo, task.hi) of a conditional grid."""
    spec: ConditionalGridSpec = task.spec
    mech = task.mechanism
    den = spec.denominator
    idx = np.arange(task.lo, task.hi, dtype=np.int64)
    m, kap, d, dl, first = conditional_point(spec, idx)
    n = len(idx)
    m_code = np.where(first, NEG_INF_CODE, m)
    mn_code = np.where(first, NEG_INF_CODE, m - kap)
    keys = np.stack([np.concatenate([m_code, mn_code]), np.concatenate([d, d + dl])], axis=1)
    uniq, inv = unique_rows(keys)
    um = np.where(uniq[:, 0] == NEG_INF_CODE, -np.inf, uniq[:, 0] / den)
    logp = fast_log_conditional(mech, um, uniq[:, 1] / den)
    lr = log_ratio_from_logs(logp[inv[:n]], logp[inv[n:]])[:, None]

    def cond(u: int) -> mpmath.mpf:
        return exact_conditional(mech, int(uniq[u, 0]), int(uniq[u, 1]), int(den), spec.digits)

    balls: dict[int, Any] = {}

    def ball(u: int):
        if u not in balls:
            code = int(uniq[u, 0])
            balls[u] = conditional_ball(mech, None if code == NEG_INF_CODE else Fraction(code, den),
                                        Fraction(int(uniq[u, 1]), den), spec.digits)
        return balls[u]

    def exact_lr(r: int, c: int) -> mpmath.mpf:
        # a ball that settles the point (`verify.sweep.balls`), else the mpmath closed form
        value = settled(log_ratio_ball(ball(int(inv[r])), ball(int(inv[n + r])), spec.digits), mech.epsilon, spec.digits)
        if value is not None:
            return value
        with mpmath.workdps(spec.digits + 10):
            return log_ratio(cond(int(inv[r])), cond(int(inv[n + r])))

    def make_witness(r: int, c: int, kind: WitnessKind) -> Witness:
        mm = None if first[r] else Fraction(int(m[r]), den)
        return conditional_witness(mech, mm, Fraction(int(kap[r]), den), Fraction(int(d[r]), den), Fraction(int(dl[r]), den),
                                   spec.digits, kind)

    def candidate(r: int, c: int) -> Candidate:
        mm = None if first[r] else Fraction(int(m[r]), den)
        return Candidate(conditional_witness, (mech, mm, Fraction(int(kap[r]), den), Fraction(int(d[r]), den),
                                               Fraction(int(dl[r]), den), spec.digits))

    return ChunkResult(task.eps_index, decide(lr, mech.epsilon, spec.digits, spec.max_listed_violations, exact_lr, make_witness, n,
                                              candidate=candidate))


def conditional_sweep(mechanism: SparseVector, spec: ConditionalGridSpec | None = None, executor: Executor | None = None,
                      workers: int | None = None, scheduler: str | None = None, progress: bool | None = None) -> SweepResult:
    """Sweep the proofs' conditional ratio cond(m, d) / cond(m - κ, d + δ) over ``spec``
    (see the module docstring); the threshold of the mechanism is irrelevant (m, d are relative to it).

    >>> r = conditional_sweep(AboveThreshold.mechanism_one(1), ConditionalGridSpec(gap_max=(0,), gap_query=(0,)), workers=1)
    >>> r.points, r.violation_count
    (90, 0)
    """
    spec = spec or ConditionalGridSpec()
    mechs = mechanisms_for(mechanism, spec.epsilons, spec.sensitivity, None)
    return drive("conditional", conditional_chunk, spec, mechs, executor, workers, scheduler, progress)
