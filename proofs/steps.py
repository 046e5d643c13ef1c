"""Generic checks of proof steps: equalities of values and pointwise inequalities.

* `equality_check`: both sides evaluated with mpmath at 40 digits over a grid
  of parameter points and seeded random points (`proofs.numerics.conditional_points`);
  ``refuted`` with a counterexample confirmed at two precisions when they
  disagree (whatever the lemmas say); otherwise ``proved`` only when the named
  sympy lemmas hold for every parameter value *and* together they are the
  whole derivation (no ``gap``: a step of the derivation that is not
  machine-checked, e.g. Fubini); ``consistent`` when the numbers agree but a
  lemma was not shown or the derivation has a gap (the gap is named in the
  method).
* `pointwise_check`: a float64 sweep of a log ratio against its bounds
  (`proofs.sweeps.pointwise_sweep`), the worst point and any violation
  re-evaluated with mpmath; ``consistent`` (sampling never proves), or
  ``refuted`` with a confirmed counterexample.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from proofs.build import on_certificate, refuted_or_undecided
from proofs.claim import ClaimVerdict, Evidence, Outcome
from proofs.engines import certification
from proofs.numerics import DIGITS, Point, compare_values, conditional_points, confirm, fstr, nstr, point_from_params
from proofs.sweeps import fmt_margin, pointwise_sweep

#: Grid sizes of the equality checks (structured points + seeded random points).
RANDOM_POINTS = 5
GRID_SEED = 7


def default_points(neighbours: bool) -> list[Point]:
    return conditional_points(GRID_SEED, RANDOM_POINTS, neighbours)


def equality_check(
    lhs: Callable[[Point], mpmath.mpf],
    rhs: Callable[[Point], mpmath.mpf],
    lemmas: Sequence[tuple[str, bool]],
    *,
    neighbours: bool = False,
    points: Sequence[Point] | None = None,
    params: dict[str, Any] | None = None,
    digits: int = DIGITS,
    what: str = "",
    extra_notes: Sequence[str] = (),
    gap: str = "",
) -> Outcome:
    """Check ``lhs(pt) == rhs(pt)`` numerically; ``lemmas`` are (description, sympy result), ``gap``
    names the step of the derivation that the lemmas do not cover ("" if they are the whole derivation)."""
    if params:
        pts = [point_from_params(params)]
        grid = "the point given"
    else:
        pts = list(points) if points is not None else default_points(neighbours)
        grid = (
            "17 structured points (ε ∈ {1, 1/2, 3}, Δ ∈ {1, 2/3}, t ∈ {0, 1/2, -1}, (M - t)/Δ ∈ {-∞, -2, 0, 1/3, 3}, "
            "(q_i - t)/Δ ∈ {-1, 0, 1/2, 4, 1/3} in a Latin square, two ties M = q_i) "
            f"+ {RANDOM_POINTS} seeded random points (ε ∈ [0.05, 5], Δ ∈ [0.1, 3], gaps in [-8Δ, 8Δ])"
            if points is None
            else f"{len(pts)} points"
        )
    rep = compare_values(pts, lhs, rhs, digits)
    notes = [f"{d}: {'shown' if ok else 'NOT shown'} (sympy)" for d, ok in lemmas]
    notes += list(extra_notes)
    ev = dict(points=rep.points, grid=grid, digits=digits, max_discrepancy=nstr(rep.max_discrepancy, 5), notes=tuple(notes))
    if rep.failures:
        pt = rep.failures[0][0]

        def evaluate(p: Point) -> tuple[mpmath.mpf, mpmath.mpf]:
            return lhs(p), rhs(p)

        cx = confirm(
            evaluate,
            pt,
            pt.as_params(),
            "=",
            lambda a, b: abs(a - b) > max(abs(a), abs(b)) * mpmath.mpf(10) ** -30,
            detail=what,
        )
        return refuted_or_undecided(f"mpmath quadrature at {digits} digits against the exact value", cx, ev)
    shown = bool(lemmas) and all(ok for _, ok in lemmas)
    if shown and not gap:
        return Outcome(
            ClaimVerdict.PROVED,
            "sympy: " + "; ".join(d for d, _ in lemmas) + f" (every parameter value); mpmath at {digits} digits agrees at every point",
            Evidence(**ev),
        )
    if gap:
        ev["by_hand"] = (gap,)
    method = f"mpmath at {digits} digits (quadrature with the kinks as breakpoints) agrees at every point"
    if shown:
        method += "; sympy shows the ingredients (" + "; ".join(d for d, _ in lemmas) + f") but not the step: {gap}"
    elif gap:
        method += f"; not machine-checked: {gap}"
    return Outcome(ClaimVerdict.CONSISTENT, method, Evidence(**ev))


def pointwise_check(
    log_ratio: Callable[[dict[str, np.ndarray]], np.ndarray],
    sample: Callable[[np.random.Generator], dict[str, np.ndarray]],
    upper: Callable[[dict[str, np.ndarray]], np.ndarray],
    lower: Callable[[dict[str, np.ndarray]], np.ndarray] | None,
    mp_sides: Callable[[dict[str, Any]], tuple[mpmath.mpf, mpmath.mpf, mpmath.mpf | None]],
    grid: str,
    relation: str,
    *,
    params: dict[str, Any] | None = None,
    notes: Sequence[str] = (),
    certify: tuple[str, str] | None = None,
) -> Outcome:
    """Sweep a pointwise bound ``lower <= log_ratio <= upper``.

    ``mp_sides(point)`` returns (log ratio, upper bound, lower bound or None)
    with mpmath at the current precision, for confirmation.
    """
    if params:
        exact = exact_point(params)
        with mpmath.workdps(DIGITS):
            lr, up, lo = mp_sides(exact)
            margin = up - lr if lo is None else min(up - lr, lr - lo)
        ev = dict(points=1, grid="the point given", digits=DIGITS, min_margin=fmt_margin(margin), margin_unit="nats")
        if margin < -VIOLATION:
            cx = _confirm_pointwise(mp_sides, exact, relation)
            return refuted_or_undecided("mpmath at the point", cx, ev)
        return Outcome(ClaimVerdict.CONSISTENT, f"mpmath at the point ({DIGITS} digits)", Evidence(**ev))
    sw = pointwise_sweep(log_ratio, sample, upper, lower)
    with mpmath.workdps(DIGITS):
        lr, up, lo = mp_sides(sw.worst)
        mp_margin = up - lr if lo is None else min(up - lr, lr - lo)
    ev = dict(
        points=sw.points,
        grid=grid,
        digits=DIGITS,
        min_margin=fmt_margin(mp_margin if mpmath.isfinite(mp_margin) else sw.min_margin),
        margin_unit="nats: distance of the log ratio to the nearest bound (mpmath at the worst point)",
        notes=tuple(notes) + (f"worst point: {_fmt_point(sw.worst)}",),
    )
    if sw.violations:
        for v in sw.violations[:5]:
            cx = _confirm_float_point(mp_sides, {k: val for k, val in v.items() if not k.startswith("_")}, relation)
            if cx.confirmed:
                return refuted_or_undecided("float64 sweep, violation confirmed with mpmath at two precisions", cx, ev)
        return Outcome(ClaimVerdict.UNDECIDED, "float64 sweep found candidate violations that mpmath did not confirm", Evidence(**ev))
    if mp_margin < -VIOLATION:
        cx = _confirm_float_point(mp_sides, sw.worst, relation)
        return refuted_or_undecided("float64 sweep, worst point beyond the bound at mpmath precision", cx, ev)
    method = "float64 sweep of the log ratio (seeded random and structured points); worst point by mpmath at 40 digits"
    if certify is not None:
        eng = certification(*certify)
        ev["notes"] = ev["notes"] + (eng.note,)
        if eng.certified:
            return on_certificate(eng.by_hand, "rigorous enclosures of the factor bounds (verify.certify); " + method, ev)
        if eng.refuted:
            return Outcome(ClaimVerdict.UNDECIDED, "certification refuted a factor bound the sweep did not violate", Evidence(**ev))
    return Outcome(ClaimVerdict.CONSISTENT, method, Evidence(**ev))


#: A margin below -VIOLATION (nats) at 40 digits is a violation to confirm; above it, rounding.
VIOLATION = mpmath.mpf(10) ** -30


def exact_point(params: dict[str, Any]) -> dict[str, Fraction]:
    """The parameters as exact Fractions (decimal strings, "p/q", ints, floats exactly)."""
    from verify.validate import parse_number, to_number

    return {k: parse_number(v, k) if isinstance(v, str) else to_number(v, k) for k, v in params.items()}


def _confirm_float_point(mp_sides: Callable, pt: dict[str, float], relation: str):
    """Confirm a violation found in float64: first at a short rational near the point, else at the float's exact value."""
    short = {k: Fraction(v).limit_denominator(10**6) for k, v in pt.items()}
    cx = _confirm_pointwise(mp_sides, short, relation)
    return cx if cx.confirmed else _confirm_pointwise(mp_sides, {k: Fraction(v) for k, v in pt.items()}, relation)


def _confirm_pointwise(mp_sides: Callable, pt: dict[str, Fraction], relation: str):
    """Confirm a pointwise violation at an exact point: lhs = the log ratio, rhs = the bound it crosses.

    The counterexample's parameters are the exact values (``p/q``), so that they parse back to the point checked."""
    params = tuple((k, fstr(v)) for k, v in pt.items())
    with mpmath.workdps(DIGITS):
        lr, up, lo = mp_sides(pt)
    above = bool(lr > up)
    if above:
        return confirm(lambda p: mp_sides(p)[:2], pt, params, relation + " (upper bound)", lambda a, b: a > b + VIOLATION,
                       detail="lhs: the log ratio; rhs: the upper bound")
    return confirm(lambda p: (mp_sides(p)[0], mp_sides(p)[2]), pt, params, relation + " (lower bound)", lambda a, b: a < b - VIOLATION,
                   detail="lhs: the log ratio; rhs: the lower bound")


def _fmt_point(pt: dict[str, float]) -> str:
    return ", ".join(f"{k} = {v:.6g}" for k, v in pt.items())
