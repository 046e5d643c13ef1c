"""Worst-case privacy loss of an SVT variant, with a verdict that says how it knows.

Search (`family_worst_case`): over the structured families of
`verify.family.structured` (letter counts instead of 2^k strings, the
neighbour's direction fixed by the letter, equal queries per letter, one
released value), for every output class with at most ``max_queries`` queries:
a geometric grid over (u, v, r) reaching 32 noise scales out (the pushed
families), then Nelder-Mead from the two best grid points.  The best point is
rounded to short rationals and confirmed by the exact mpmath path
(`verify.oracles.family`) at 50 digits: every loss reported as a fact is that
confirmed number; per-k values are the float64 search values, labelled so.

Verdicts (`verify.verdicts.MechanismVerdict`):

* ``not_private``: the confirmed witness's loss exceeds ε at 50 digits;
* ``private``: a proven upper bound (`verify.family.bounds.proven_upper_bound`)
  is <= ε;
* ``undecided`` otherwise.

``unbounded`` is set only with evidence: a confirmed witness with probability
exactly 0 on one side, or a proven growth family (`verify.family.bounds.growth`);
when a growth family can be instantiated (`verify.family.bounds.growth_witness`)
and the search did not exceed ε, its member beyond ``max_queries`` whose loss
exceeds ε is confirmed and becomes the witness.

The guard: every confirmed witness the result carries (the search witness, the
tightness study's witness, the per-layout rows, the pushed points, and the best
point of every k whose float64 value comes near the bound) is checked against
the proven bound for its number of queries (`verify.family.bounds.upper_bound_at`)
and against the printed bound; a confirmed loss above either raises
RuntimeError (a bug in a bound or in the numerics).

Tightness (`verify.verdicts.Tightness`): ``exceeded`` (not private, or the loss
is unbounded), ``attained`` (loss = bound to 45 digits at moderate queries),
``approached`` (bound - loss at the confirmed, pushed search witness below
1e-6·bound; the push table along the best layout is its evidence), ``loose``
otherwise.

This engine serves every variant, the seed's `AboveThreshold` included
(`verify.worstcase.worst_case` is a view of its result in the seed's terms), and
discrete noise: a variant on ℤ takes the integer searches of
`verify.discrete.search.search_for` in place of the float grid (`_discrete_worst_case`),
then the same confirmation, verdict rule, growth witness, guard and tightness
(``attained`` there means loss = bound to 45 digits at the search witness).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from verify.discrete.search import search_for
from verify.errors import InputError
from verify.exact import confirmation_tolerance, exceeds, fmt
from verify.family import search_tuning as tune
from verify.family.bounds import ProvenBound, growth, growth_witness, proven_upper_bound, upper_bound_at, why_no_bound
from verify.family.result import FamilyWorstCase
from verify.family.structured import Layout, family_log_probability, family_log_ratio, family_log_ratio_at, layouts
from verify.family.witness import VIOLATION_DIGITS, BestSoFar, FamilyWitness, confirm, structured_pair
from verify.mechanism import SparseVector, as_variant
from verify.precision import MPMATH_LOCK
from verify.ratio import log_ratio_from_logs
from verify.release.protocol import Placement
from verify.verdicts import MechanismVerdict, Tightness


@dataclass(frozen=True)
class _Point:
    value: float
    lay: Layout
    u: float
    v: float
    r: float
    s_b: float
    s_a: float

    def pair(self, shape: SparseVector, unit: Fraction) -> tuple:
        """q(D), q(D'), the outcome and the released values of this point, rounded to short rationals."""
        return structured_pair(shape, self.lay.string(shape), (self.u, self.v, self.r), (self.s_b, self.s_a), unit)


def _patterns(shape: SparseVector, lay: Layout, monotone: bool, moves: bool = False) -> list[tuple[int, int]]:
    """Shift directions (σ_B, σ_A) in units of Δ that can maximise Pr[D]/Pr[D'] (structured.py docstring).

    Without monotonicity the letter fixes the direction: B up, A down (for the gap and fresh releases
    the change of variables' worst case h = 2Δ is the same direction; for the query release σ_A does
    not enter the integral and either sign gives the release factor's e^{Δ/b_X}, with r = v).  With a
    fresh release the factor p_Y(r - q) is a density of any family, not monotone in σ_A, and its support
    may end (exponential Y): the above query also moves up, (σ_B, σ_A) = (+Δ, +Δ)."""
    pats = [(1, 0), (1, 1), (0, -1)] if monotone else [(1, -1)]
    if moves and not monotone:
        pats = [(1, -1), (1, 1)]
    if lay.n_b == 0:
        pats = [(0, a) for a in sorted({a for _, a in pats}) if a != 0] or [(0, -1)]
    if lay.n_a == 0:
        pats = [(b, 0) for b in sorted({b for b, _ in pats}) if b != 0] or [(1, 0)]
    return pats


def _scale(shape: SparseVector) -> float:
    vals = [float(n.scale) for n in (shape.threshold_noise, shape.query_noise) if not n.is_none]
    return max(vals + [float(shape.sensitivity)])


def _grid_layout(shape: SparseVector, lay: Layout, monotone: bool, scale: float, moves: bool = False) -> list[_Point]:
    """Phase 1: the geometric grid over (u, v, r) for every shift pattern; the best grid point per pattern.
    ``moves`` (fresh release): the released value also moves off its A query (offsets `search_tuning.RELEASE_OFFSETS`),
    and the A query may move up (`_patterns`)."""
    d = float(shape.sensitivity)
    steps = np.array(sorted({s * m for s in tune.GRID_STEPS for m in (-1, 1)})) * scale
    u_ax = steps if lay.n_b else np.array([0.0])
    v_ax = steps if lay.n_a else np.array([0.0])
    r_ax = np.array([0.0])
    placement = shape.release_rule.placement  # where the rule puts its released value (`verify.release.protocol`)
    if placement is Placement.FREE and lay.n_a:
        r_ax = np.array(tune.GAP_STEPS) * scale
    elif moves and lay.n_a:
        r_ax = np.array(tune.RELEASE_OFFSETS) * d  # the released value moves around the A query (its offset r - v)
    uu, vv, rr = (a.reshape(-1) for a in np.meshgrid(u_ax, v_ax, r_ax, indexing="ij"))
    if placement is Placement.AT_QUERY:
        rr = vv + rr  # the released value at the A query (offset 0, or moving): the release factor gains its full Δ/b
    out = []
    p_d = family_log_probability(shape, lay, uu, vv, rr)  # D's side is the same for every shift pattern
    for pb, pa in _patterns(shape, lay, monotone, moves):
        lr = log_ratio_from_logs(p_d, family_log_probability(shape, lay, uu + pb * d, vv + pa * d, rr))
        lr = np.where(np.isnan(lr), -np.inf, lr)
        i = int(np.argmax(lr))
        out.append(_Point(float(lr[i]), lay, float(uu[i]), float(vv[i]), float(rr[i]), pb * d, pa * d))
    return out


def _refine(shape: SparseVector, p: _Point, scale: float, moves: bool = False, budget: int = tune.REFINE_BUDGET) -> _Point:
    """Phase 2: Nelder-Mead from a grid point (its first evaluation; queries clipped to 40 scales, at most ``budget``
    iterations per coordinate).  Coordinates: u if the layout has B's, v if it has A's and, for a layout with A's, a
    gap release's gap or (``moves``) a fresh released value's offset from its A query (a value released at its A
    query otherwise keeps its offset).  Returns the start itself unless a strictly larger value is found (an
    infinite loss, clamped inside Nelder-Mead, is returned as inf)."""
    return _refine_once(shape, p, scale, shape.release_rule.placement is Placement.FREE or moves, budget)


def _refine_once(shape: SparseVector, p: _Point, scale: float, free_release: bool, budget: int) -> _Point:
    lay = p.lay
    if math.isinf(p.value):
        return p
    uses_r = free_release and lay.n_a > 0
    at_query, free_gap = (shape.release_rule.placement is pl for pl in (Placement.AT_QUERY, Placement.FREE))
    r_held = p.r - p.v if at_query else 0.0
    r0 = r_held if at_query else p.r  # at the query: the offset of the released value from the A query
    x0 = [a for a, used in ((p.u, lay.n_b), (p.v, lay.n_a), (r0, uses_r)) if used]
    if not x0:
        return p
    box = tune.REFINE_BOX * scale

    def unpack(x):
        it = iter(np.clip(x, -box, box))
        u = float(next(it)) if lay.n_b else 0.0
        v = float(next(it)) if lay.n_a else 0.0
        r = float(next(it)) if uses_r else r_held
        if at_query:
            r = v + r
        return u, v, (abs(r) if free_gap else r)

    def obj(x):
        val = family_log_ratio_at(shape, lay, *unpack(x), p.s_b, p.s_a)
        return -min(val, 1e300) if np.isfinite(val) or val > 0 else 1e300

    from scipy.optimize import minimize  # lazy: 0.8 s of CPU to import, not in `family`'s parent before the fork
    res = minimize(obj, x0, method="Nelder-Mead",
                   options={"xatol": tune.REFINE_XATOL * scale, "fatol": tune.REFINE_FATOL, "maxiter": budget * len(x0)})
    found = -float(res.fun) if -float(res.fun) < 1e300 else math.inf  # obj's clamp of an infinite loss: inf
    if found > p.value:
        return _Point(found, lay, *unpack(res.x), p.s_b, p.s_a)
    return p


#: Gaussian noise has no closed form: its witnesses are confirmed by quadrature at this many digits
#: (two panel layouts must agree), and `not_private` also rests on `bounds.gaussian_tail_growth`.
GAUSSIAN_DIGITS = 20
#: Nelder-Mead starts of the float search (the best grid points refined); the discrete search takes no
#: ``starts`` other than this default (it searches every integer pair).
DEFAULT_STARTS = 4


def _digits(shape: SparseVector, p: _Point, digits: int | None) -> int:  # ``digits``, else 50 (Gaussian quadrature: 20)
    gauss = not (shape.threshold_noise.law.piecewise and shape.query_noise.law.piecewise) and len(p.lay.string(shape)) > 1
    return digits if digits is not None else GAUSSIAN_DIGITS if gauss else VIOLATION_DIGITS


def _witness(shape: SparseVector, p: _Point, unit: Fraction, digits: int | None = None) -> FamilyWitness:
    return confirm(shape, *p.pair(shape, unit), _digits(shape, p, digits))


def family_worst_case(mech: Any, max_queries: int = 10, monotone: bool = False, starts: int = DEFAULT_STARTS,
                      tightness_study: bool = True, digits: int | None = None, rows: bool = False,
                      push_table: bool = False, progress: Callable[[int], None] | None = None,
                      on_best: Callable[[BestSoFar], None] | None = None) -> FamilyWorstCase:
    """Search, confirm and decide (module docstring).  ``mech``: a seed `AboveThreshold` or a `SparseVector`.

    ``digits``: of the confirmed witnesses (default 50, 20 for Gaussian quadrature); a witness whose loss
    exceeds ε is re-confirmed at 50.  ``rows``: search every layout for every k <= ``max_queries`` (not
    only the dominating ones) and confirm the best point of each.  ``push_table``: the tightness study
    also tabulates the confirmed loss along the best layout pushed out.  ``progress(k)``: called when
    the layouts with k queries are searched.  ``on_best(BestSoFar)``: called whenever the search's best pair
    improves, and with the confirmed witness (what a caller interrupted by Ctrl-C can show)."""
    if isinstance(max_queries, bool) or not isinstance(max_queries, int) or not 1 <= max_queries <= 64:
        raise InputError(f"--max-queries: {max_queries!r} must be an integer from 1 to 64")
    if isinstance(starts, bool) or not isinstance(starts, int) or starts < 1:
        raise InputError(f"starts: {starts!r} must be an integer >= 1")
    if not isinstance(monotone, bool):
        raise InputError(f"monotone: {monotone!r} must be True or False")
    t0 = time.perf_counter()
    shape = as_variant(mech)
    if shape.is_discrete:
        asked = {"monotone": monotone, "starts": starts != DEFAULT_STARTS, "digits": digits is not None, "rows": rows, "push_table": push_table}
        for name, given in asked.items():
            if given:
                raise InputError(f"{name}: the discrete search (integer pairs, every neighbour, 50 digits) has no such option")
        res = _discrete_worst_case(shape, max_queries, tightness_study, progress)
        if on_best is not None:
            on_best(BestSoFar.of_witness(res.witness))
        res.seconds = time.perf_counter() - t0
        return res
    notes: list[str] = []
    asked = max_queries
    gaussian = not (shape.threshold_noise.law.piecewise and shape.query_noise.law.piecewise)
    if gaussian and shape.threshold_policy == "shared" and not shape.releases_values and max_queries > 1:
        notes.append(f"Gaussian noise: searched k = 1, not up to {max_queries}: pure DP already fails there "
                     "(bounds.gaussian_tail_growth), and one query has the exact form erfc((t-q)/(σ√2))/2 "
                     "(no quadrature) for the 50-digit confirmation")
        max_queries = 1
    scale = _scale(shape)
    unit = Fraction(scale).limit_denominator(tune.UNIT_DENOMINATOR)
    by_k: dict[int, float] = {}
    cands: list[_Point] = []
    done, top = 0, -math.inf

    def tell(points: list[_Point], stage: str) -> None:
        nonlocal top
        p = max(points, key=lambda q: q.value)
        if on_best is not None and p.value > top:
            top = p.value
            on_best(BestSoFar(p.value, *p.pair(shape, unit), stage))
    for lay in layouts(shape, max_queries, every_k=rows):
        if progress is not None and shape.threshold_policy == "shared":
            while done < lay.k - 1:
                done += 1
                progress(done)
        pts = _grid_layout(shape, lay, monotone, scale)
        cands += pts
        tell(pts, f"grid at k = {lay.k}")
        if any(math.isinf(p.value) for p in pts):
            notes.append(f"infinite loss at {lay.string(shape)}: the search stopped there")
            break
    cands.sort(key=lambda p: -p.value)
    refined = [_refine(shape, p, scale) for p in cands[:starts]]
    tell(refined, "refined")
    best_of = _best_per_layout(cands[starts:] + refined, by_k)
    if rows:  # every reported row is a refined point, not a grid point
        for lay, p in list(best_of.items()):
            if not any(p is r for r in refined):
                best_of[lay] = _refine(shape, p, scale, budget=tune.ROW_BUDGET)
                by_k[lay.k] = max(by_k[lay.k], best_of[lay].value)
    if shape.release_rule.search_moves:
        refined += _release_moves(shape, monotone, scale, starts, [lay for lay in best_of], by_k, best_of, notes)
    if progress is not None:
        for k in range(done + 1, asked + 1):
            progress(k)
    best = max(refined, key=lambda p: p.value)
    witness = _witness(shape, best, unit, digits)
    with MPMATH_LOCK:  # every confirmation below sets its own precision; the decisions are exact
        confirmed = {lay.string(shape): (p, _witness(shape, p, unit, digits)) for lay, p in best_of.items()} if rows else {}
        best, witness = _largest_confirmed((best, witness), list(confirmed.values()))
        res = _decide(shape, monotone, max_queries, witness, by_k, notes)
        if on_best is not None:
            on_best(BestSoFar.of_witness(res.witness))
        res.rows = {out: w for out, (_, w) in confirmed.items()}
        _guard_all(res, best_of, unit)
    if tightness_study and res.verdict is MechanismVerdict.PRIVATE:
        _tightness(shape, res, best, unit, push_table, digits)
        _guard_all(res, {}, unit)  # the tightness study's witness too (each guard is decided exactly)
    res.seconds = time.perf_counter() - t0
    return res


def _discrete_worst_case(shape: SparseVector, max_queries: int, tightness_study: bool,
                         progress: Callable[[int], None] | None) -> FamilyWorstCase:
    """A variant with noise on ℤ: the integer searches of `verify.discrete.search.search_for` in place of the
    float grid, then the same witness confirmation, verdict rule, growth witness, guard and tightness."""
    found = search_for(shape, max_queries, VIOLATION_DIGITS)
    by_k: dict[int, float] = {}
    for f in found:
        for k, v in f.by_k.items():
            by_k[k] = max(by_k.get(k, -math.inf), v)
    top = max(found, key=lambda f: f.loss_confirmed)  # the confirmed numbers rank the searches; the first on a tie
    with MPMATH_LOCK:
        witness = confirm(shape, top.queries, top.neighbour, top.outcome, (), VIOLATION_DIGITS)
        res = _decide(shape, False, max_queries, witness, by_k, [])
        res.search_domain = "; ".join(f.domain for f in found)
        _guard_all(res, {}, Fraction(1))
    if progress is not None:
        for k in range(1, max_queries + 1):
            progress(k)
    if tightness_study and res.verdict is MechanismVerdict.PRIVATE:
        with MPMATH_LOCK, mpmath.workdps(VIOLATION_DIGITS + 15):
            _tightness_of_gap(res, attained=True)
    return res


def _best_per_layout(points: list[_Point], by_k: dict[int, float]) -> dict[Layout, _Point]:
    """The largest float64 value of each layout (on a tie, the first of ``points`` is kept), and the largest of
    each number of queries k recorded into ``by_k`` (a k already in ``by_k`` keeps its larger value)."""
    best_of: dict[Layout, _Point] = {}
    for p in points:
        by_k[p.lay.k] = max(by_k.get(p.lay.k, -math.inf), p.value)
        if p.lay not in best_of or p.value > best_of[p.lay].value:
            best_of[p.lay] = p
    return best_of


def _largest_confirmed(search: tuple[_Point, FamilyWitness],
                       rows: list[tuple[_Point, FamilyWitness]]) -> tuple[_Point, FamilyWitness]:
    """The reported witness: the search's own unless a confirmed row's loss is strictly larger (float64 cannot rank
    losses that agree to 1e-16; the confirmed numbers can).  Among rows of exactly equal loss, the one with the fewest
    queries; among those, the first of ``rows``."""
    if not rows:
        return search
    top = max(rows, key=lambda pw: (pw[1].loss, -len(pw[1].queries)))
    return top if top[1].loss > search[1].loss else search


def _release_moves(shape: SparseVector, monotone: bool, scale: float, starts: int, lays: list[Layout],
                   by_k: dict[int, float], best_of: dict[Layout, _Point], notes: list[str]) -> list[_Point]:
    """The second phase for a fresh release: the released value moves off its A query and the A query may
    move up (`_grid_layout` with ``moves``).  A point counts only where it beats the first phase's best of
    its layout by more than float64 noise (1e-9 relative); those points are returned (and recorded)."""
    cands = sorted((p for lay in lays if lay.n_a for p in _grid_layout(shape, lay, monotone, scale, moves=True)),
                   key=lambda p: -p.value)
    out = []
    for p in [_refine(shape, c, scale, moves=True) for c in cands[:starts]] + cands[starts:]:
        old = best_of[p.lay].value
        if p.value > old + tune.MOVE_RTOL * max(1.0, abs(old)):
            best_of[p.lay] = p
            by_k[p.lay.k] = max(by_k[p.lay.k], p.value)
            out.append(p)
    if out:
        top = max(out, key=lambda p: p.value)
        notes.append(f"the released value moved off its above query (offset {top.r - top.v:.6g}) and the above query "
                     f"moved by {top.s_a / float(shape.sensitivity):+.0f}Δ: loss {top.value:.6g} at {top.lay.string(shape)}")
    return out


def _tol(shape: SparseVector, digits: int) -> Fraction:
    """The tolerance of a loss confirmed at ``digits`` (`verify.exact.confirmation_tolerance`)."""
    return confirmation_tolerance(digits, shape.epsilon)


def guard(res: FamilyWorstCase, w: FamilyWitness, what: str) -> None:
    """Raise RuntimeError if the confirmed loss of ``w`` exceeds the proven bound for its number of queries
    or the bound the result prints (a bug in a bound or in the numerics)."""
    over = [b for b in (upper_bound_at(res.shape, len(w.queries), res.monotone), res.upper_bound)
            if b is not None and b.exceeded_by(w.loss, _tol(res.shape, w.digits))]  # exact: no working precision
    for b in over:
        raise RuntimeError(f"confirmed loss {mpmath.nstr(w.loss, 20)} of the {what} exceeds the proven bound "
                           f"{fmt(b.value)} for {len(w.queries)} queries: bug in a bound or the numerics "
                           f"({res.shape.describe()}; {w.describe()})")


def _guard_all(res: FamilyWorstCase, best_of: dict[Layout, _Point], unit: Fraction) -> None:
    """The guard on every witness ``res`` carries, and on the best point of every layout whose float64 search value comes
    within 1e-6 (relative) of the bound (confirmed first: floats are not facts; not twice: a pair guarded as a witness)."""
    guard(res, res.witness, "witness")
    for out, w in res.rows.items():
        guard(res, w, f"best {out} point")
    done = {(w.queries, w.neighbour, w.outcome, w.released, w.digits) for w in (res.witness, *res.rows.values())}
    near = math.inf if res.upper_bound is None else float(res.upper_bound.value) * (1 - 1e-6)
    for lay, p in best_of.items():
        if p.value > near and lay.string(res.shape) not in res.rows and (*p.pair(res.shape, unit), _digits(res.shape, p, None)) not in done:
            guard(res, _witness(res.shape, p, unit), f"best {lay.string(res.shape)} point")


def _decide(shape, monotone, max_queries, witness, by_k, notes) -> FamilyWorstCase:
    bound = proven_upper_bound(shape, monotone)
    if verdict_rule(shape, witness, None) is MechanismVerdict.NOT_PRIVATE and witness.digits < VIOLATION_DIGITS:
        witness = confirm(shape, witness.queries, witness.neighbour, witness.outcome, witness.released, VIOLATION_DIGITS)
    verdict = verdict_rule(shape, witness, bound)
    unbounded, evidence = False, None
    if mpmath.isinf(witness.loss):
        side = "D" if witness.probability == 0 else "D'"
        unbounded, evidence = True, f"probability exactly 0 on one side ({side}): {witness.describe()}"
    else:
        g = growth(shape, monotone)
        if g is not None:
            unbounded, evidence = True, str(g)
            member = growth_witness(shape, g, shape.epsilon) if verdict is not MechanismVerdict.NOT_PRIVATE else None
            if member is not None:
                w = confirm(shape, *member, VIOLATION_DIGITS)
                if verdict_rule(shape, w, bound) is MechanismVerdict.NOT_PRIVATE:
                    witness, verdict = w, MechanismVerdict.NOT_PRIVATE
                    notes.append(f"witness from the growth family with {len(w.queries)} queries (beyond --max-queries)")
    if verdict is MechanismVerdict.NOT_PRIVATE:
        tight, tight_ev = Tightness.EXCEEDED, f"confirmed loss {mpmath.nstr(witness.loss, 12)} > ε = {fmt(shape.epsilon)}"
    elif unbounded:
        tight, tight_ev = Tightness.EXCEEDED, "the loss is unbounded"
    else:
        tight, tight_ev = Tightness.LOOSE, "no tightness study"
    return FamilyWorstCase(shape, monotone, max_queries, verdict, witness, bound,
                           None if bound is not None else why_no_bound(shape, monotone),
                           unbounded, evidence, tight, tight_ev, by_k, notes)


def verdict_rule(shape: SparseVector, witness: FamilyWitness, bound: ProvenBound | None) -> MechanismVerdict:
    """The one decision rule: not_private if the confirmed loss exceeds ε by more than 10^-(digits-5)·max(1, ε),
    private if a proven bound is <= ε, undecided otherwise."""
    if exceeds(witness.loss, shape.epsilon + _tol(shape, witness.digits)):  # exact: no working precision
        return MechanismVerdict.NOT_PRIVATE
    if bound is not None and bound.value <= shape.epsilon:
        return MechanismVerdict.PRIVATE
    return MechanismVerdict.UNDECIDED


def _tightness(shape: SparseVector, res: FamilyWorstCase, best: _Point, unit: Fraction, push_table: bool,
               digits: int | None) -> None:
    """attained / approached / loose for a private variant (module docstring).  attained: of the moderate grid (|q - t| <=
    2 scales, the best layout; an absent letter at t, a value released at its A query, a gap 0) the points whose float64
    loss is within CLOSE_RTOL·bound of the bound, the one nearest t (least max |q - t|) confirmed at 50 digits, equal to
    the bound within 10^-45 (inclusive; it is the witness unless the search's is larger by more than tol); approached:
    bound - loss <= 1e-6·bound at the (pushed) search witness; loose otherwise."""
    bound = res.upper_bound.value
    scale = float(unit)
    lay = best.lay
    grid = np.array([j * scale for j in tune.MODERATE_STEPS])
    uu, vv = (a.reshape(-1) for a in np.meshgrid(grid if lay.n_b else [0.0], grid if lay.n_a else [0.0], indexing="ij"))
    rr = vv.copy() if shape.release_rule.placement is Placement.AT_QUERY else np.zeros_like(uu)
    lr = family_log_ratio(shape, lay, uu, vv, rr, best.s_b, best.s_a)
    close = np.flatnonzero(np.abs(lr - float(bound)) <= tune.CLOSE_RTOL * float(bound))
    with MPMATH_LOCK, mpmath.workdps(VIOLATION_DIGITS + 15):
        b = mpmath.mpf(bound.numerator) / bound.denominator
        if close.size:
            i = close[np.argmin(np.maximum(np.abs(uu[close]), np.abs(vv[close])))]
            w = _witness(shape, _Point(float(lr[i]), lay, float(uu[i]), float(vv[i]), float(rr[i]), best.s_b, best.s_a),
                         unit, VIOLATION_DIGITS)
            guard(res, w, "tightness witness")
            if abs(b - w.loss) <= mpmath.mpf(10) ** (-(VIOLATION_DIGITS - 5)):
                res.tightness = Tightness.ATTAINED
                res.tightness_evidence = f"loss = proven bound {fmt(bound)} to 45 digits at moderate queries: {w.describe()}"
                if w.loss >= res.witness.loss - _tol(shape, res.witness.digits):  # equal to the digits: report the moderate one
                    res.witness = w
                return
        if push_table:
            res.push, res.push_family = _push(shape, res, best, unit, digits)
        far = max(abs(x - shape.threshold) for x in res.witness.queries) / Fraction(unit)
        _tightness_of_gap(res, (f"not attained at moderate queries; bound - loss = {{gap}} (50 digits) at the search witness, "
                                f"whose queries are pushed {float(far):.3g} noise scales from t (pushed family {lay.string(shape)})"))


def _tightness_of_gap(res: FamilyWorstCase, approached: str = "bound - loss = {gap} (50 digits) at the search witness",
                      attained: bool = False) -> None:
    """approached (bound - loss <= 1e-6·bound at the confirmed witness; ``approached`` is its evidence, with
    ``{gap}``), or loose; with ``attained`` (the discrete search, which has no moderate-grid study) first
    attained when bound - loss <= 10^-45 at the witness."""
    b = mpmath.mpf(res.upper_bound.value.numerator) / res.upper_bound.value.denominator
    gap = b - res.loss
    if attained and gap <= mpmath.mpf(10) ** (-(VIOLATION_DIGITS - 5)):
        res.tightness, res.tightness_evidence = Tightness.ATTAINED, f"loss = proven bound to 45 digits: {res.witness.describe()}"
    elif gap <= mpmath.mpf("1e-6") * b:
        res.tightness, res.tightness_evidence = Tightness.APPROACHED, approached.format(gap=mpmath.nstr(gap, 3))
    else:
        res.tightness = Tightness.LOOSE
        res.tightness_evidence = (f"largest loss found {mpmath.nstr(res.loss, 10)} = {mpmath.nstr(res.loss / b, 6)}·bound; "
                                  f"bound - loss = {mpmath.nstr(gap, 3)}")


#: The push table's pushes: L = unit·2^j for these j (unit: the larger noise scale, as a short rational).
PUSH_STEPS = tuple(range(8))


def _push(shape: SparseVector, res: FamilyWorstCase, best: _Point, unit: Fraction,
          digits: int | None) -> tuple[list[tuple[int, Fraction, mpmath.mpf]], str]:
    """The confirmed loss along the best layout with its queries pushed out along their signs, every
    point guarded: B's at t + sign(u)·L, A's at t + sign(v)·L (released value at the A query), L = unit·2^j."""
    su, sv = (1 if best.u >= 0 else -1), (1 if best.v >= 0 else -1)
    out = best.lay.string(shape)
    table = []
    for j in PUSH_STEPS:
        L = float(unit * 2**j)
        r = sv * L if shape.release_rule.placement is Placement.AT_QUERY else best.r
        w = _witness(shape, _Point(0.0, best.lay, su * L, sv * L, r, best.s_b, best.s_a), unit, digits)
        guard(res, w, f"pushed point L = {fmt(unit * 2**j)}")
        table.append((best.lay.k, unit * 2**j, w.loss))
    d = shape.sensitivity
    fam = (f"{out}: B queries at t {'+' if su > 0 else '-'} L, A queries at t {'+' if sv > 0 else '-'} L, "
           f"q(D') shifted by {fmt(Fraction(round(best.s_b / float(d))) * d)} (B) and {fmt(Fraction(round(best.s_a / float(d))) * d)} (A)")
    return table, fam
