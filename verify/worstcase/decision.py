"""The worst-case search over k and its verdict (seed, "Privacy Guarantee").

The loss of a pair of neighbouring query vectors and an output s is
|log Pr[A(D)=s] - log Pr[A(D')=s]|; the variant is ε-DP for the outputs
s_1.., ⊤^k exactly when its supremum over k, queries, neighbours and outputs
is <= ε.  Verdicts (`verify.verdicts.MechanismVerdict`): ``not_private`` (a
witness confirmed at 50 digits with loss > ε + tol, tol from
`verify.screen.confirm_tolerance`), ``private`` (a proven upper bound <= ε,
`verify.certify.bounds.proven_upper_bound`), else ``undecided``.

Unboundedness is claimed only with evidence: a witness whose probability is
exactly 0 on one side (confirmed by the mpmath path, where zeros are decided
structurally), or, without threshold noise, the family whose probability is a
product Π_{j<i} F(t - q_j) · S(t - q_i) (seed, the example under Mechanism One),
so that its loss is additive, (i-1)·c + c_1, and grows without bound when c > 0.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from fractions import Fraction

import mpmath
import numpy as np

from verify.certify.bounds import proven_upper_bound
from verify.errors import InputError
from verify.exact import fmt
from verify.mechanism import AboveThreshold
from verify.screen import confirm_tolerance
from verify.verdicts import MechanismVerdict
from verify.worstcase.results import DEFAULT_DIGITS, VIOLATION_DIGITS, KRow, WorstCaseResult, epsilon_mpf
from verify.worstcase.search import Best, confirm, full_dimensional, nice, search_family, search_scale, witness_from_best
from verify.worstcase.tightness import TightnessStudy, exceeded_study, study_tightness


def worst_case(mech: AboveThreshold, max_queries: int = 10, seed: int = 0, grid: int = 21, starts: int = 2,
               full_dimensional_up_to: int = 4, push_study: bool = True, digits: int = DEFAULT_DIGITS,
               progress: Callable[[int], None] | None = None) -> WorstCaseResult:
    """Search for sup |log ratio| of ``mech``'s variant for k = 1..``max_queries`` and decide.

    Verdicts: ``not_private`` (a confirmed witness with loss > ε at 50 digits),
    ``private`` (a proven upper bound <= ε, `proven_upper_bound`), else
    ``undecided``.  Raises RuntimeError if a confirmed loss exceeds a proven
    bound (that would be a bug in the bound or in the numerics).  ``progress``,
    if given, is called with k after the search at k queries is done.

    >>> r = worst_case(AboveThreshold.with_noise("laplace", 1, threshold_multiplier=0), max_queries=4, push_study=False)
    >>> str(r.verdict), r.unbounded
    ('not_private', True)
    """
    if isinstance(max_queries, bool) or not isinstance(max_queries, int) or not 1 <= max_queries <= 64:
        raise InputError(f"--max-queries: {max_queries!r} must be an integer from 1 to 64")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InputError(f"seed: {seed!r} must be an integer >= 0")
    # all comparisons of confirmed values at high precision (mpf arithmetic rounds to the working precision)
    with mpmath.workdps(VIOLATION_DIGITS + 10):
        return _worst_case(mech, max_queries, seed, grid, starts, full_dimensional_up_to, push_study, digits, progress)


def _worst_case(mech: AboveThreshold, max_queries: int, seed: int, grid: int, starts: int, full_dimensional_up_to: int,
                push_study: bool, digits: int, progress: Callable[[int], None] | None = None) -> WorstCaseResult:
    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    eps = epsilon_mpf(mech)
    tol = confirm_tolerance(mech.epsilon, digits)
    scale = search_scale(mech)
    box = 40.0 * scale
    unit = Fraction(scale).limit_denominator(1000)
    notes: list[str] = []
    rows: list[KRow] = []
    families: dict[tuple[int, bool], Best] = {}
    for k in range(1, max_queries + 1):
        bh = search_family(mech, k - 1, True, box, grid, starts)
        bn = search_family(mech, k, False, box, grid, starts)
        families[(k, True)], families[(k, False)] = bh, bn
        wh = witness_from_best(mech, k - 1, True, bh, unit, digits)
        wn = witness_from_best(mech, k, False, bn, unit, digits)
        if k <= full_dimensional_up_to and not mpmath.isinf(wh.loss):
            val, x, xn = full_dimensional(mech, k, wh.queries, wh.neighbour_queries, box, starts, rng)
            if val > float(wh.loss) + 1e-9:  # an improvement beyond float64 noise of the objective
                q = tuple(nice(float(v), unit) for v in x)
                qn = tuple(a + nice(float(b - a), mech.sensitivity) for a, b in zip(q, xn))
                qn = tuple(a + max(-mech.sensitivity, min(mech.sensitivity, b - a)) for a, b in zip(q, qn))
                cand = confirm(mech, q, qn, k, digits)
                if cand.loss > wh.loss:
                    wh = cand
                    notes.append(f"k={k}: the full-dimensional search beat the structured family")
        rows.append(KRow(k, wh, wn))
        if progress is not None:
            progress(k)
        if mpmath.isinf(wh.loss) and k >= 2 and mpmath.isinf(rows[-2].halt.loss):
            break  # infinite loss: nothing larger to find
    cands = [w for r in rows for w in (r.halt, r.no_halt)]
    witness = max(cands, key=lambda w: (w.loss, -len(w.queries)))
    bound = proven_upper_bound(mech)
    if witness.loss > eps + tol:
        witness = confirm(mech, witness.queries, witness.neighbour_queries, witness.output, VIOLATION_DIGITS)
    exceeded = witness.loss > eps + tol
    if bound is not None and witness.loss > mpmath.mpf(bound.value.numerator) / bound.value.denominator + tol:
        raise RuntimeError(f"confirmed loss {mpmath.nstr(witness.loss, 20)} exceeds the proven bound {fmt(bound.value)}: "
                           f"bug in the bound or the numerics ({mech.describe()})")
    if exceeded:
        verdict = MechanismVerdict.NOT_PRIVATE
    elif bound is not None and bound.value <= mech.epsilon:
        verdict = MechanismVerdict.PRIVATE
    else:
        verdict = MechanismVerdict.UNDECIDED

    unbounded, evidence = False, None
    inf_w = next((w for w in cands if mpmath.isinf(w.loss)), None)
    if inf_w is not None:
        zero_side = "D" if inf_w.probability == 0 else "D'"
        unbounded = True
        evidence = (f"probability exactly 0 on one side ({zero_side}) for output {inf_w.output}: "
                    f"q(D) = ({', '.join(fmt(x) for x in inf_w.queries)}), q(D') = ({', '.join(fmt(x) for x in inf_w.neighbour_queries)})")
    elif mech.threshold_noise.is_none and len(rows) >= 3:
        growth = additive_growth(mech, rows, digits)
        if growth is not None:
            unbounded, evidence = True, growth[0]
            if verdict != MechanismVerdict.NOT_PRIVATE:
                # the additive family exceeds ε at some k: build that witness and confirm it
                _, q0, qn0, ql, qnl, c, c1 = growth
                k_needed = int(mpmath.floor((eps - c1) / c)) + 2
                w = confirm(mech, (q0,) * (k_needed - 1) + (ql,), (qn0,) * (k_needed - 1) + (qnl,), k_needed, VIOLATION_DIGITS)
                if w.loss > eps + tol:
                    witness, verdict = w, MechanismVerdict.NOT_PRIVATE
                    notes.append(f"witness from the additive family at k = {k_needed} (beyond --max-queries)")

    study: TightnessStudy | None = None
    if unbounded:
        study = exceeded_study(witness, "the loss is unbounded")
    elif push_study:
        study = study_tightness(mech, verdict, witness, tuple(rows), families, unit, digits)
    if study is None:
        return WorstCaseResult(mech, verdict, witness, bound, unbounded, evidence, tuple(rows), notes=tuple(notes),
                               seconds=time.perf_counter() - t0)
    return WorstCaseResult(mech, verdict, study.witness, bound, unbounded, evidence, tuple(rows), study.push, study.push_family,
                           study.tightness, study.evidence, tuple(notes), time.perf_counter() - t0)


def additive_growth(mech: AboveThreshold, rows: list[KRow], digits: int) -> tuple | None:
    """Without threshold noise, Pr[s_i] = Π_{j<i} F(t-q_j)·S(t-q_i) exactly, so for the
    family with equal earlier queries the loss is (i-1)·c + c_1: check it at high
    precision on the best s_K witness's family and report c."""
    last = rows[-1].halt
    k = len(last.queries)
    if k < 3:
        return None
    q0, qn0 = last.queries[0], last.neighbour_queries[0]
    losses = []
    for i in range(1, k + 1):
        q = (q0,) * (i - 1) + (last.queries[-1],)
        qn = (qn0,) * (i - 1) + (last.neighbour_queries[-1],)
        losses.append(confirm(mech, q, qn, i, digits).log_ratio)
    diffs = [b - a for a, b in zip(losses, losses[1:])]
    c = diffs[-1]
    if c == 0 or any(abs(x - c) > mpmath.mpf(10) ** (-(digits - 8)) for x in diffs):
        return None
    with mpmath.workdps(digits):
        text = (f"no threshold noise: Pr[s_i] is the product of per-query factors, so the loss of the family "
                f"q_j(D) = {fmt(q0)}, q_j(D') = {fmt(qn0)} (j < i) is exactly additive: each earlier query adds "
                f"c = {mpmath.nstr(abs(c), 15)} nats (checked for i = 1..{k} at {digits} digits): loss(k) = "
                f"{mpmath.nstr(abs(losses[0]), 10)} + (k-1)·{mpmath.nstr(abs(c), 10)} grows without bound")
        return text, q0, qn0, last.queries[-1], last.neighbour_queries[-1], abs(c), abs(losses[0])

