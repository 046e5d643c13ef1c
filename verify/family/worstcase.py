"""Worst-case privacy loss of an SVT variant (issue 11), with a verdict that says how it knows.

Search (`family_worst_case`): over the structured families of
`verify.family.structured` (letter counts instead of 2^k strings, the
neighbour's direction fixed by the letter, equal queries per letter, one
released value), for every output class with at most ``max_queries`` queries:
a geometric grid over (u, v, r) reaching 32 noise scales out (the pushed
families), then Nelder-Mead from the two best grid points.  The best point is
rounded to short rationals and confirmed by the exact mpmath path
(`verify.family.oracle`) at 50 digits: every loss reported as a fact is that
confirmed number; per-k values are the float64 search values, labelled so.

Verdicts (`verify.verdicts.MechanismVerdict`):

* ``not_private``: the confirmed witness's loss exceeds ε at 50 digits;
* ``private``: a proven upper bound (`verify.family.bounds.proven_upper_bound`)
  is <= ε;
* ``undecided`` otherwise.

``unbounded`` is set only with evidence: a confirmed witness with probability
exactly 0 on one side, or a proven growth family (`verify.family.bounds.growth`).
A confirmed loss above a proven bound raises RuntimeError (a bug in a bound or
in the numerics).  Tightness (`verify.verdicts.Tightness`): ``exceeded``
(not private), ``attained`` (loss = bound to 45 digits), ``approached`` (the
bound minus the loss falls towards 0 as the best family is pushed out, below
1e-6·bound), ``loose`` otherwise.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
from scipy import optimize

from verify.discrete.rules import refuse_discrete
from verify.errors import InputError
from verify.exact import fmt
from verify.family.bounds import ProvenBound, growth, proven_upper_bound, upper_bound_at, why_no_bound
from verify.family.shape import VariantShape, shape_of
from verify.family.structured import Layout, family_log_ratio, layouts
from verify.family.witness import VIOLATION_DIGITS, FamilyWitness, confirm
from verify.precision import MPMATH_LOCK
from verify.verdicts import MechanismVerdict, Tightness

GRID_STEPS = (0.0, 1.0, 2.0, 4.0, 8.0, 16.0)
GAP_STEPS = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0)


@dataclass
class FamilyWorstCase:
    """The result of `family_worst_case` (see the module docstring)."""

    shape: VariantShape
    monotone: bool
    max_queries: int
    verdict: MechanismVerdict
    witness: FamilyWitness
    upper_bound: ProvenBound | None
    no_bound_reason: str | None
    unbounded: bool
    unbounded_evidence: str | None
    tightness: Tightness
    tightness_evidence: str
    loss_by_k: dict[int, float] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def loss(self) -> mpmath.mpf:
        return self.witness.loss

    @property
    def loss_over_epsilon(self) -> mpmath.mpf:
        with MPMATH_LOCK, mpmath.workdps(VIOLATION_DIGITS + 15):
            e = self.shape.epsilon
            return self.loss / (mpmath.mpf(e.numerator) / e.denominator)

    def to_json(self) -> dict[str, Any]:
        with MPMATH_LOCK, mpmath.workdps(VIOLATION_DIGITS + 15):
            loss = self.loss
            return {
                "variant": self.shape.describe(),
                "epsilon": fmt(self.shape.epsilon),
                "monotone": self.monotone,
                "max_queries": self.max_queries,
                "verdict": str(self.verdict),
                "loss": "inf" if mpmath.isinf(loss) else mpmath.nstr(loss, 30),
                "loss_over_epsilon": "inf" if mpmath.isinf(loss) else mpmath.nstr(self.loss_over_epsilon, 15),
                "upper_bound": None if self.upper_bound is None else fmt(self.upper_bound.value),
                "upper_bound_formula": None if self.upper_bound is None else self.upper_bound.formula,
                "upper_bound_source": None if self.upper_bound is None else self.upper_bound.source,
                "no_bound_reason": self.no_bound_reason,
                "unbounded": self.unbounded,
                "unbounded_evidence": self.unbounded_evidence,
                "tightness": str(self.tightness),
                "tightness_evidence": self.tightness_evidence,
                "witness": self.witness.to_json(),
                "loss_by_k_float64_search": {str(k): (v if math.isfinite(v) else "inf") for k, v in sorted(self.loss_by_k.items())},
                "notes": self.notes,
                "seconds": round(self.seconds, 3),
            }


@dataclass(frozen=True)
class _Point:
    value: float
    lay: Layout
    u: float
    v: float
    r: float
    s_b: float
    s_a: float


def _patterns(shape: VariantShape, lay: Layout, monotone: bool) -> list[tuple[int, int]]:
    """Shift directions (σ_B, σ_A) in units of Δ that can maximise Pr[D]/Pr[D'] (structured.py docstring).

    Without monotonicity the letter fixes the direction: B up, A down (for the gap and fresh releases
    the change of variables' worst case h = 2Δ is the same direction; for the query release σ_A does
    not enter the integral and either sign gives the release factor's e^{Δ/b_X}, with r = v)."""
    pats = [(1, 0), (1, 1), (0, -1)] if monotone else [(1, -1)]
    if lay.n_b == 0:
        pats = [(0, a) for a in sorted({a for _, a in pats}) if a != 0] or [(0, -1)]
    if lay.n_a == 0:
        pats = [(b, 0) for b in sorted({b for b, _ in pats}) if b != 0] or [(1, 0)]
    return pats


def _scale(shape: VariantShape) -> float:
    vals = [float(n.scale) for n in (shape.threshold_noise, shape.query_noise) if not n.is_none]
    return max(vals + [float(shape.sensitivity)])


def _grid_layout(shape: VariantShape, lay: Layout, monotone: bool, scale: float) -> list[_Point]:
    """Phase 1: the geometric grid over (u, v, r) for every shift pattern; the best grid point per pattern."""
    d = float(shape.sensitivity)
    steps = np.array(sorted({s * m for s in GRID_STEPS for m in (-1, 1)})) * scale
    u_ax = steps if lay.n_b else np.array([0.0])
    v_ax = steps if lay.n_a else np.array([0.0])
    r_ax = np.array(GAP_STEPS) * scale if (shape.release == "gap" and lay.n_a) else np.array([0.0])
    uu, vv, rr = (a.reshape(-1) for a in np.meshgrid(u_ax, v_ax, r_ax, indexing="ij"))
    if shape.release in ("fresh", "query"):
        rr = vv.copy()  # the released value at the A query: the release factor gains its full Δ/b (docstring)
    out = []
    for pb, pa in _patterns(shape, lay, monotone):
        lr = family_log_ratio(shape, lay, uu, vv, rr, pb * d, pa * d)
        lr = np.where(np.isnan(lr), -np.inf, lr)
        i = int(np.argmax(lr))
        out.append(_Point(float(lr[i]), lay, float(uu[i]), float(vv[i]), float(rr[i]), pb * d, pa * d))
    return out


def _refine(shape: VariantShape, p: _Point, scale: float) -> _Point:
    """Phase 2: Nelder-Mead from a grid point (queries clipped to 40 scales)."""
    lay = p.lay
    if math.isinf(p.value):
        return p
    uses_r = shape.release == "gap" and lay.n_a > 0
    x0 = [a for a, used in ((p.u, lay.n_b), (p.v, lay.n_a), (p.r, uses_r)) if used]
    if not x0:
        return p
    box = 40.0 * scale

    def unpack(x):
        it = iter(np.clip(x, -box, box))
        u = float(next(it)) if lay.n_b else 0.0
        v = float(next(it)) if lay.n_a else 0.0
        r = float(next(it)) if uses_r else (v if shape.release in ("fresh", "query") else 0.0)
        return u, v, (abs(r) if shape.release == "gap" else r)

    def obj(x):
        val = family_log_ratio(shape, lay, *unpack(x), p.s_b, p.s_a)[0]
        return -min(val, 1e300) if np.isfinite(val) or val > 0 else 1e300

    res = optimize.minimize(obj, x0, method="Nelder-Mead",
                            options={"xatol": 1e-4 * scale, "fatol": 1e-13, "maxiter": 80 * len(x0)})
    if -float(res.fun) > p.value:
        return _Point(-float(res.fun), lay, *unpack(res.x), p.s_b, p.s_a)
    return p


def _nice(x: float, unit: Fraction) -> Fraction:
    step = unit / 1000
    return round(Fraction(x) / step) * step


#: Gaussian noise has no closed form: its witnesses are confirmed by quadrature at this many digits
#: (two panel layouts must agree), and `not_private` also rests on `bounds.gaussian_tail_growth`.
GAUSSIAN_DIGITS = 20


def _witness(shape: VariantShape, p: _Point, unit: Fraction, digits: int | None = None) -> FamilyWitness:
    if digits is None:
        gauss = "gaussian" in (shape.threshold_noise.family, shape.query_noise.family) and len(p.lay.string(shape)) > 1
        digits = GAUSSIAN_DIGITS if gauss else VIOLATION_DIGITS
    t, d = shape.threshold, shape.sensitivity
    u, v, r = _nice(p.u, unit), _nice(p.v, unit), _nice(p.r, unit)
    sb, sa = round(p.s_b / float(d)) * d, round(p.s_a / float(d)) * d
    out = p.lay.string(shape)
    q = tuple(t + (u if ch == "B" else v) for ch in out)
    qn = tuple(t + (u + sb if ch == "B" else v + sa) for ch in out)
    n_a = out.count("A")
    rel: tuple[Fraction, ...] = ()
    if shape.releases_values:
        rel = (r if shape.release == "gap" else t + r,) * n_a
    return confirm(shape, q, qn, out, rel, digits)


def family_worst_case(mech: Any, max_queries: int = 10, monotone: bool = False, starts: int = 4,
                      tightness_study: bool = True) -> FamilyWorstCase:
    """Search, confirm and decide (module docstring).  ``mech``: a family model object, a seed
    `AboveThreshold` or a `VariantShape`."""
    if isinstance(max_queries, bool) or not isinstance(max_queries, int) or not 1 <= max_queries <= 64:
        raise InputError(f"--max-queries: {max_queries!r} must be an integer from 1 to 64")
    if getattr(mech, "is_discrete", False):
        refuse_discrete(mech, "family worst case")
    t0 = time.perf_counter()
    shape = shape_of(mech)
    notes: list[str] = []
    gaussian = "gaussian" in (shape.threshold_noise.family, shape.query_noise.family)
    if gaussian and shape.policy == "shared" and not shape.releases_values and max_queries > 1:
        notes.append(f"Gaussian noise: searched k = 1, not up to {max_queries}: pure DP already fails there "
                     "(bounds.gaussian_tail_growth), and one query has the exact form erfc((t-q)/(σ√2))/2 "
                     "(no quadrature) for the 50-digit confirmation")
        max_queries = 1
    scale = _scale(shape)
    unit = Fraction(scale).limit_denominator(1000)
    by_k: dict[int, float] = {}
    cands: list[_Point] = []
    for lay in layouts(shape, max_queries):
        pts = _grid_layout(shape, lay, monotone, scale)
        cands += pts
        if any(math.isinf(p.value) for p in pts):
            break
    cands.sort(key=lambda p: -p.value)
    refined = [_refine(shape, p, scale) for p in cands[:starts]]
    for p in cands[starts:] + refined:
        by_k[p.lay.k] = max(by_k.get(p.lay.k, -math.inf), p.value)
    best = max(refined, key=lambda p: p.value)
    witness = _witness(shape, best, unit)
    with MPMATH_LOCK, mpmath.workdps(VIOLATION_DIGITS + 15):
        res = _decide(shape, monotone, max_queries, witness, by_k, notes)
    if tightness_study and res.verdict is MechanismVerdict.PRIVATE:
        _tightness(shape, res, best, unit)
    res.seconds = time.perf_counter() - t0
    return res


def _decide(shape, monotone, max_queries, witness, by_k, notes) -> FamilyWorstCase:
    eps = mpmath.mpf(shape.epsilon.numerator) / shape.epsilon.denominator
    tol = mpmath.mpf(10) ** (-(witness.digits - 5)) * max(1, eps)
    loss = witness.loss
    bound = proven_upper_bound(shape, monotone)
    k_bound = upper_bound_at(shape, len(witness.queries), monotone)
    if k_bound is not None and loss > mpmath.mpf(k_bound.value.numerator) / k_bound.value.denominator + tol:
        raise RuntimeError(f"confirmed loss {mpmath.nstr(loss, 20)} exceeds the proven bound {fmt(k_bound.value)} "
                           f"for {len(witness.queries)} queries: bug in a bound or the numerics ({shape.describe()})")
    if loss > eps + tol:
        verdict = MechanismVerdict.NOT_PRIVATE
    elif bound is not None and bound.value <= shape.epsilon:
        verdict = MechanismVerdict.PRIVATE
    else:
        verdict = MechanismVerdict.UNDECIDED
    unbounded, evidence = False, None
    if mpmath.isinf(loss):
        side = "D" if witness.probability == 0 else "D'"
        unbounded, evidence = True, f"probability exactly 0 on one side ({side}): {witness.describe()}"
    else:
        g = growth(shape, monotone)
        if g is not None:
            unbounded, evidence = True, str(g)
    if verdict is MechanismVerdict.NOT_PRIVATE:
        tight, tight_ev = Tightness.EXCEEDED, f"confirmed loss {mpmath.nstr(loss, 12)} > ε = {fmt(shape.epsilon)}"
    else:
        tight, tight_ev = Tightness.LOOSE, "no tightness study"
    return FamilyWorstCase(shape, monotone, max_queries, verdict, witness, bound,
                           None if bound is not None else why_no_bound(shape, monotone),
                           unbounded, evidence, tight, tight_ev, by_k, notes)


def _tightness(shape: VariantShape, res: FamilyWorstCase, best: _Point, unit: Fraction) -> None:
    """attained / approached / loose for a private variant (module docstring).

    attained: a witness at moderate queries (|q - t| <= 2 scales, the best layout's grid) whose
    50-digit loss equals the bound to 45 digits; approached: the confirmed gap bound - loss of the
    (pushed) search witness is below 1e-6·bound; loose otherwise."""
    bound = res.upper_bound.value
    scale = float(unit)
    lay = best.lay
    grid = np.array([j * scale / 2 for j in range(-4, 5)])
    uu, vv = (a.reshape(-1) for a in np.meshgrid(grid if lay.n_b else [0.0], grid if lay.n_a else [0.0], indexing="ij"))
    rr = vv.copy() if shape.release in ("fresh", "query") else np.zeros_like(uu)
    lr = family_log_ratio(shape, lay, uu, vv, rr, best.s_b, best.s_a)
    close = np.flatnonzero(np.abs(lr - float(bound)) <= 1e-9 * float(bound))
    with MPMATH_LOCK, mpmath.workdps(VIOLATION_DIGITS + 15):
        b = mpmath.mpf(bound.numerator) / bound.denominator
        if close.size:
            i = close[np.argmin(np.maximum(np.abs(uu[close]), np.abs(vv[close])))]
            w = _witness(shape, _Point(float(lr[i]), lay, float(uu[i]), float(vv[i]), float(rr[i]), best.s_b, best.s_a), unit)
            if abs(b - w.loss) <= mpmath.mpf(10) ** (-(VIOLATION_DIGITS - 5)):
                res.tightness = Tightness.ATTAINED
                res.tightness_evidence = f"loss = proven bound {fmt(bound)} to 45 digits at moderate queries: {w.describe()}"
                if w.loss >= res.witness.loss:
                    res.witness = w
                return
        gap = b - res.loss
        far = max(abs(x - shape.threshold) for x in res.witness.queries) / Fraction(unit)
        if gap <= mpmath.mpf("1e-6") * b:
            res.tightness = Tightness.APPROACHED
            res.tightness_evidence = (f"not attained at moderate queries; bound - loss = {mpmath.nstr(gap, 3)} (50 digits) at the "
                                      f"search witness, whose queries are pushed {float(far):.3g} noise scales from t "
                                      f"(pushed family {lay.string(shape)})")
        else:
            res.tightness = Tightness.LOOSE
            res.tightness_evidence = (f"largest loss found {mpmath.nstr(res.loss, 10)} = {mpmath.nstr(res.loss / b, 6)}·bound; "
                                      f"bound - loss = {mpmath.nstr(gap, 3)}")
