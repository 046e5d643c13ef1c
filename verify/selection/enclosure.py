"""A rigorous ball enclosure of Report Noisy Max's index probability, in python-flint's arb (docs/selection.md).

With effective scores s (q, or −q for ``min``: `ReportNoisyMax.effective_scores`), noise of scale b and
unit-scale density p and F(x) = Pr[X < x], the index probability of `verify.selection.probability`,
in the variable t = z/b (the winner's noisy score over b; dz = b·dt, and b·p_b(z) = p(t)):

    Pr[i] = ∫ p(t − σ_i) Π_{j≠i} F(t − σ_j) dt,   σ_j = (s_j − max s) / b (exact rationals; the
    common shift changes nothing and keeps the arguments near 0).

A tie has probability 0 (continuous noise), so < and ≤ give the same value.  The line is cut at

* every σ_j (Laplace: p and F change branch there; exponential: the integrand is 0 below max σ, and
  every branch above it is the upper one), none for Gumbel (entire);
* a lower cut T_lo (exponential: max σ, exactly, nothing below) and an upper cut T_hi.

On each finite piece every factor is one analytic formula (Laplace ½e^{−|y|} as ½e^{∓y}, F as ½e^{y}
or 1 − ½e^{−y}; exponential e^{−y} and −expm1(−y); Gumbel e^{−y}·exp(−e^{−y}) and exp(−e^{−y})), each
entire, so ``flint.acb.integral`` (Petras' Gauss–Legendre with rigorous error bounds, arb's
``acb_calc_integrate``) returns a ball containing that piece's integral.  The tails, as [0, B] with B
computed in ball arithmetic (every F <= 1 and F increasing):

* above T_hi: ∫_{T_hi}^∞ p(t − σ_i) Π F dt <= S(T_hi − σ_i) (Laplace ½e^{−y}, exponential e^{−y},
  Gumbel 1 − exp(−e^{−y}) <= e^{−y}, y = T_hi − σ_i >= 0);
* below T_lo: ∫_{−∞}^{T_lo} p(t − σ_i) Π_{j≠i} F(t − σ_j) dt <= Π_{j≠i} F(T_lo − σ_j) · F(T_lo − σ_i)
  = Π_j F(T_lo − σ_j) (Laplace, T_lo <= min σ: 2^{−k}·e^{k·T_lo − Σσ}; Gumbel exp(−e^{−T_lo}·Σ e^{σ_j})).

The cuts only decide how tight the ball is, never whether it holds: they start M = (prec + 20)·ln 2 +
ln k e-folds beyond the scores and move out (M grows by the missing e-folds) while the tails exceed
2^{−prec−5} of the value.  The quadrature's absolute tolerance is 2^{−prec−10} of the largest integrand
value seen at the pieces' ends and midpoints over k·e (the integrand's log-slope is at most k for
Laplace and exponential noise, so the value is at least that much), likewise a matter of tightness only.

Closed forms that check it (tests/test_rnm_enclosure.py): k = 2, exponential noise of scale b, gap
d = s_1 − s_2 >= 0: Pr[index 1] = 1 − e^{−d/b}/2 (module `exponential_pair_closed_form`); Gumbel
noise: Pr[i] = e^{σ_i} / Σ_j e^{σ_j} (the Gumbel-max trick, `verify.noise.gumbel`).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from typing import Any

import flint

from verify.errors import InputError
from verify.noise import Exponential, Laplace, NoiseFamily
from verify.precision import MPMATH_LOCK
from verify.selection.model import ReportNoisyMax, SelectionOutput

#: The families this module encloses (continuous; discrete Laplace is an exact sum in `verify.selection.discrete`).
ENCLOSED_FAMILIES = ("laplace", "exponential", "gumbel")
#: Rounds of moving the cuts out before the ball is returned as it is.
_ROUNDS = 6


def _arb(x: Fraction) -> Any:
    return flint.arb(flint.fmpq(x.numerator, x.denominator))


def _check(mech: ReportNoisyMax, queries: Sequence[object], index: object) -> tuple[list[Fraction], int]:
    if mech.output is not SelectionOutput.INDEX:
        raise InputError(f"output: {mech.output.value} is not enclosed in arb (the index probability is)")
    if mech.family not in ENCLOSED_FAMILIES:
        raise InputError(f"noise family: {mech.family!r} is not enclosed in arb ({', '.join(ENCLOSED_FAMILIES)})")
    qs = mech.check_queries(queries)
    if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(qs):
        raise InputError(f"index: {index!r} must be an integer from 0 to {len(qs) - 1} (0-based) for {len(qs)} scores")
    b, s = mech.b, mech.effective_scores(qs)
    top = max(s)  # Pr[i] is invariant under a common shift; scores near 0 keep the balls' absolute errors small
    return [(x - top) / b for x in s], index


# --- the unit-scale factors, one analytic formula per branch (acb or arb arguments) -----------------------
def _pdf(law: NoiseFamily, y: Any, upper: bool) -> Any:
    if isinstance(law, Laplace):
        return (-y).exp() / 2 if upper else y.exp() / 2
    if isinstance(law, Exponential):
        return (-y).exp()
    return (-y - (-y).exp()).exp()  # gumbel


def _cdf(law: NoiseFamily, y: Any, upper: bool) -> Any:
    if isinstance(law, Laplace):
        return 1 - (-y).exp() / 2 if upper else y.exp() / 2
    if isinstance(law, Exponential):
        return -((-y).expm1())
    return (-((-y).exp())).exp()  # gumbel


def _integrand(law: NoiseFamily, sigma: list[Any], i: int, upper: list[bool]) -> Callable[[Any, bool], Any]:
    """p(t − σ_i) Π_{j≠i} F(t − σ_j) with the branches ``upper`` (entire: the analytic flag is not needed)."""
    def f(t: Any, _analytic: bool) -> Any:
        v = _pdf(law, t - sigma[i], upper[i])
        for j, sj in enumerate(sigma):
            if j != i:
                v = v * _cdf(law, t - sj, upper[j])
        return v
    return f


def _cuts(law: NoiseFamily, sig: list[Fraction], margin: float) -> tuple[Fraction, Fraction]:
    """(T_lo, T_hi): rational cut points ``margin`` e-folds beyond the scores (module docstring)."""
    lo, hi = min(sig), max(sig)
    if isinstance(law, Exponential):
        return hi, hi + Fraction(margin)
    if isinstance(law, Laplace):
        return lo - Fraction(margin), hi + Fraction(margin)
    log_total = float(hi) + math.log(math.fsum(math.exp(float(x - hi)) for x in sig))  # log Σ e^{σ_j}
    return Fraction(log_total - math.log(max(margin, 1.0))), Fraction(log_total + margin)


def _tail_bounds(law: NoiseFamily, sig: list[Fraction], i: int, t_lo: Fraction, t_hi: Fraction) -> tuple[Any, Any]:
    """(bound below T_lo, bound above T_hi) as arb balls (module docstring)."""
    y = _arb(t_hi - sig[i])
    above = (-y).exp() / 2 if isinstance(law, Laplace) else (-y).exp()
    if isinstance(law, Exponential):
        return flint.arb(0), above
    below = flint.arb(1)
    for sj in sig:
        below = below * _cdf(law, _arb(t_lo - sj), False if isinstance(law, Laplace) else True)
    return below, above


def _pieces(law: NoiseFamily, sig: list[Fraction], t_lo: Fraction, t_hi: Fraction) -> list[tuple[Fraction, Fraction]]:
    inner = sorted({x for x in sig if t_lo < x < t_hi}) if isinstance(law, Laplace) else []
    ends = [t_lo, *inner, t_hi]
    return list(zip(ends, ends[1:]))


def _zero_to(bound: Any) -> Any:
    """A ball containing [0, bound]."""
    return flint.arb(0).union(bound)


def arb_index_probability(mech: ReportNoisyMax, queries: Sequence[object], index: int, prec: int = 128,
                          margin: float | None = None) -> Any:
    """An arb ball that contains Pr[the reported index is ``index``] (0-based), at ``prec`` bits.

    ``margin``: the cuts' distance in e-folds, fixed (the tails' bounds then widen the ball as much as they
    must); None moves them out until the tails are below 2^{−prec−5} of the value (module docstring).
    Refuses (`InputError`) a released value or gap and discrete noise.  ``monotone`` does not enter: it
    describes the neighbours, not one probability."""
    if margin is not None and not (isinstance(margin, (int, float)) and margin > 0 and math.isfinite(margin)):
        raise InputError(f"margin: {margin!r} must be a positive finite number of e-folds")
    sig, i = _check(mech, queries, index)
    if len(sig) == 1:
        return flint.arb(1)
    law, k = mech.law, len(sig)
    with MPMATH_LOCK:
        old = flint.ctx.prec
        flint.ctx.prec = prec
        try:
            fixed = margin is not None
            margin = float(margin) if fixed else (prec + 20) * math.log(2) + math.log(k)
            for _ in range(1 if fixed else _ROUNDS):
                ball = _enclose(law, sig, i, margin, prec)
                finite, tails = ball
                total = finite + _zero_to(tails)
                # tight enough when the tails are below 2^-(prec+5) of the value; else move the cuts out
                if finite > 0 and tails < finite * flint.arb(2) ** -(prec + 5):
                    return total
                if not finite > 0 or not tails > 0:
                    margin *= 2
                else:
                    need = float((tails / finite).log()) + (prec + 6) * math.log(2)
                    margin += max(need, 1.0)
            return total
        finally:
            flint.ctx.prec = old


def _enclose(law: NoiseFamily, sig: list[Fraction], i: int, margin: float, prec: int) -> tuple[Any, Any]:
    """(the pieces' integral, the tails' bound) for cuts ``margin`` e-folds out."""
    t_lo, t_hi = _cuts(law, sig, margin)
    pieces = _pieces(law, sig, t_lo, t_hi)
    sigma = [_arb(x) for x in sig]
    # each σ_j is a cut (or below the lower one), so a piece lies on one side of it: its left end says which
    fns = [_integrand(law, sigma, i, [a >= sj for sj in sig]) for a, _ in pieces]
    peak = flint.arb(0)
    for (a, c), f in zip(pieces, fns):
        for x in (a, (a + c) / 2, c):
            v = f(flint.acb(_arb(x)), False).real
            if v > peak:
                peak = v
    tol = (peak * flint.arb(2) ** -(prec + 10) / (len(sig) * flint.arb(1).exp())).mid()
    tol = tol if tol > 0 else flint.arb(2) ** -(prec + 10)
    finite = flint.acb(0)
    for (a, c), f in zip(pieces, fns):
        finite += flint.acb.integral(f, _arb(a), _arb(c), abs_tol=tol, rel_tol=flint.arb(2) ** -(prec + 5))
    below, above = _tail_bounds(law, sig, i, t_lo, t_hi)
    return finite.real, below + above


def arb_log_ratio(mech: ReportNoisyMax, queries: Sequence[object], neighbour: Sequence[object], index: int,
                  epsilon: Fraction, prec: int = 128) -> tuple[str, int]:
    """|log Pr[index | queries] − log Pr[index | neighbour]| as an arb ball (its text, 25 digits), and where
    the whole ball lies against ``epsilon``, decided in ball arithmetic: 1 above (a rigorous lower bound of the
    loss > ε), −1 below, 0 neither."""
    a = arb_index_probability(mech, queries, index, prec)
    c = arb_index_probability(mech, neighbour, index, prec)
    with MPMATH_LOCK:
        old = flint.ctx.prec
        flint.ctx.prec = prec
        try:
            d = a.log() - c.log()
            if d < 0:
                d = -d
            eps = _arb(Fraction(epsilon))
            return d.str(25), 1 if d > eps else (-1 if d < eps else 0)
        finally:
            flint.ctx.prec = old


def exponential_pair_closed_form(gap: Fraction, b: Fraction) -> Any:
    """Pr[X_1 + s_1 > X_2 + s_2] for X_1, X_2 i.i.d. Exp(b) and d = s_1 − s_2 >= 0, as an arb ball:

    Pr = Pr[X_2 < X_1 + d] = ∫_0^∞ (1/b)e^{−x/b}·(1 − e^{−(x+d)/b}) dx = 1 − e^{−d/b}·(1/b)∫_0^∞ e^{−2x/b} dx
       = 1 − e^{−d/b}/2."""
    if gap < 0:
        raise InputError(f"gap: {gap} must be >= 0 (s_1 >= s_2)")
    return 1 - (-_arb(gap / b)).exp() / 2
