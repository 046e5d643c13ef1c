"""Ball confirmation of a sweep's near-bound points: python-flint arb first, the mpmath closed form behind it.

A point that the float64 screen cannot place (|log r| within the margin of ε, `verify.sweep.decision`)
is confirmed at ``digits`` digits.  Its two probabilities are integrals of the one closed form
(`verify.engine.piecewise.ClosedForm`; the outputs s_i, ⊤^k of the seed's AboveThreshold and the
proofs' conditional form, seed, Proof 1); here each is evaluated in ball arithmetic
(`verify.engine.backends.ArbBackend` at `ball_bits`(digits) bits), so its ball contains the exact
probability, and the ball L = log p - log p' contains the exact log ratio.

`settled`(L, ε, digits) accepts L when it alone fixes everything the decision reads from a confirmed
value, for every number within ``2W`` of the ball, W = 2^-floor((digits-1)·log2 10) >= 10^-(digits-1)
(the mpmath path's value is within about 2·10^-digits of the exact log ratio: each probability correct to
``digits`` significant digits):

* its radius is at most 10^-(digits+5), so its midpoint is a log ratio correct to ``digits`` digits;
* the widened ball [mid - rad - 2W, mid + rad + 2W] (exact dyadic ends) keeps one sign,
  `verify.screen.classify` places its two ends alike and float(|·|), the decision's record of the point, is
  the same at both ends (each is a monotone function of the value, so every number between is placed and
  recorded alike).  The placing is read from exact margins around ε ± tol (`_regions`), or from classify
  itself at the two ends where those margins do not tell.

It then returns the midpoint (an mpf); else None, and the caller confirms with the mpmath closed form
(`verify.probabilities.mp_probability`, `mp_conditional`) exactly as before.  A settled point is therefore
placed by the ball rigorously, and the mpmath path would have placed and recorded it the same way: the ball
path changes no result, only the time (ball arithmetic in C, no precision loop; the ties at exactly e^ε,
which the seed's mechanisms reach at many grid points, settle with a radius near 2^-bits).  The output
sweep asks for a chunk's balls at once (`output_balls`): outputs whose pieces have the same kinks are
integrated in one pass of the closed form, as `verify.engine.piecewise.mp_closed_form` integrates a
vector's outputs together.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from fractions import Fraction
from functools import lru_cache
from typing import Any

import flint
import mpmath
from mpmath.libmp import from_man_exp

from verify.engine.backends import ArbBackend
from verify.engine.integrand import Piece, build
from verify.engine.piecewise import ClosedForm
from verify.mechanism import SparseVector, column_output, output_column
from verify.precision import MPMATH_LOCK
from verify.probabilities import require_closed_form
from verify.screen import Position, classify, confirm_tolerance

#: Guard digits of the balls beyond the confirmation's ``digits`` (cancellation and exponents spend some).
GUARD_DIGITS = 25


def ball_bits(digits: int) -> int:
    """Working precision of the balls: (digits + `GUARD_DIGITS`)·log2(10) bits, rounded up."""
    return math.ceil((digits + GUARD_DIGITS) * math.log2(10))


def _integrals(mech: SparseVector, requests: Sequence[tuple[Sequence[Fraction], str]], floor: Fraction | None,
               digits: int) -> list[Any | None]:
    """The closed form of each requested outcome (queries, outcome string) of one uncapped piece as an arb
    ball (None: exactly 0, or not of that shape: the mpmath path then decides, or refuses, as it always
    did).  Pieces with the same kinks are integrated together, in one pass of `ClosedForm.integrals` over
    their common segments (a trie of their terms: the engine's joint integration of a vector's outputs)."""
    bits = ball_bits(digits)
    form = _form(mech, bits)  # first: the mpmath path's refusals, in its order
    results: list[Any | None] = [None] * len(requests)
    groups: dict[frozenset[Fraction], list[tuple[int, Piece]]] = {}
    for i, (queries, outcome) in enumerate(requests):
        integ = build(mech, queries, outcome)
        if len(integ.pieces) == 1 and not integ.constants and integ.pieces[0].cap is None:
            groups.setdefault(frozenset(integ.pieces[0].kinks), []).append((i, integ.pieces[0]))
    with MPMATH_LOCK, flint.ctx.workprec(bits):  # flint's precision is global to the process, as mpmath's is
        for members in groups.values():
            for (i, _), r in zip(members, form.integrals([p for _, p in members], floor)):
                results[i] = None if r.zero else r.value
    return results


@lru_cache(maxsize=64)
def _form(mech: SparseVector, bits: int) -> ClosedForm:
    """The closed form of ``mech`` on balls of ``bits`` bits (its constants are balls computed at that
    precision; the caller sets flint's precision to ``bits`` around every use); refuses what the mpmath
    closed form refuses (`verify.probabilities.require_closed_form`)."""
    require_closed_form(mech)
    with MPMATH_LOCK, flint.ctx.workprec(bits):
        return ClosedForm.of(mech, ArbBackend())


#: Output balls remembered in this process, by (mech, numerators, column, den, digits); emptied when full.
_OUTPUT_BALLS: dict[tuple, Any] = {}
OUTPUT_BALLS_KEPT = 1 << 15


def clear_output_balls() -> None:
    """Forget the remembered output balls."""
    _OUTPUT_BALLS.clear()


def output_balls(mech: SparseVector, wanted: Iterable[tuple[tuple[int, ...], int]], den: int, digits: int) -> dict[tuple[tuple[int, ...], int], Any | None]:
    """Pr[output ``column``] of the queries numerators/den as a ball, for every (numerators, column) of
    ``wanted`` (`verify.sweep.outputs.exact_output`'s integrals; callers pass
    `verify.sweep.outputs.confirming_queries`); each is computed once per process, those not yet computed
    together (`_integrals`)."""
    out: dict[tuple[tuple[int, ...], int], Any | None] = {}
    missing: list[tuple[tuple[int, ...], int]] = []
    for a, c in wanted:
        key = (mech, a, c, den, digits)
        if key in _OUTPUT_BALLS:
            out[a, c] = _OUTPUT_BALLS[key]
        else:
            missing.append((a, c))
    if missing:
        requests = [([Fraction(x, den) for x in a], mech.outputs(len(a))[output_column(column_output(c, len(a)), len(a))])
                    for a, c in missing]
        if len(_OUTPUT_BALLS) + len(missing) > OUTPUT_BALLS_KEPT:
            _OUTPUT_BALLS.clear()
        for (a, c), ball in zip(missing, _integrals(mech, requests, None, digits)):
            out[a, c] = _OUTPUT_BALLS[mech, a, c, den, digits] = ball
    return out


def output_ball(mech: SparseVector, numerators: tuple[int, ...], column: int, den: int, digits: int) -> Any | None:
    """`output_balls` of one (numerators, column)."""
    return output_balls(mech, [(numerators, column)], den, digits)[numerators, column]


@lru_cache(maxsize=1 << 13)
def conditional_ball(mech: SparseVector, gap_max: Fraction | None, gap_query: Fraction, digits: int) -> Any | None:
    """cond(m, d) = Pr[A(D) = s_i | X_<i = x] with m = ``gap_max`` (None: i = 1) and d = ``gap_query`` as a
    ball (`verify.probabilities.mp_conditional`'s integral: ∫_{z > m} p_Z(z) S(z - d) dz)."""
    return _integrals(mech, [([gap_query + mech.threshold], "A")], gap_max, digits)[0]


def log_ratio_ball(p: Any | None, pn: Any | None, digits: int) -> Any | None:
    """log p - log pn as a ball (None unless both balls are certainly positive)."""
    if p is None or pn is None or not (p > 0 and pn > 0):
        return None
    with MPMATH_LOCK, flint.ctx.workprec(ball_bits(digits)):
        return p.log() - pn.log()


def _dyadic(man: int, exp: int) -> mpmath.mpf:
    """man·2^exp as an mpf, exactly (mpmath's exact normalisation, no rounding)."""
    return mpmath.mp.make_mpf(from_man_exp(man, exp))


@lru_cache(maxsize=64)
def _limits(digits: int) -> tuple[int, int]:
    """(r, w): 2^-r <= 10^-(digits+5), the largest radius accepted, and 2^-w >= 10^-(digits-1), so that
    2·2^-w bounds twice the mpmath path's error (the widening ``2W``, dyadic so that the ends stay exact)."""
    return math.ceil((digits + 5) * math.log2(10)), math.floor((digits - 1) * math.log2(10))


@lru_cache(maxsize=256)
def _regions(epsilon: Fraction, digits: int) -> tuple[Fraction, Fraction, Fraction, Fraction]:
    """(ε - tol - δ, ε - tol + δ, ε + tol - δ, ε + tol + δ), exact: a |log ratio| below the first is placed
    inside by `verify.screen.classify`, one between the second and the third at the bound, one above the
    fourth beyond it.  tol is `verify.screen.confirm_tolerance` (read from it, to within 10^-(digits+25));
    δ = 10^-(digits+7)·max(1, ε) exceeds classify's own rounding at digits + 10 digits (a few units of
    10^-(digits+10)·max(1, ε) near the bound) and that reading, so every number on the same side of a
    margin is placed alike by classify."""
    with mpmath.workdps(digits + 40):
        t = confirm_tolerance(epsilon, digits)
        tol = Fraction(int(t.man)) * Fraction(2) ** int(t.exp)
    delta = Fraction(1, 10 ** (digits + 7)) * max(1, epsilon)
    return epsilon - tol - delta, epsilon - tol + delta, epsilon + tol - delta, epsilon + tol + delta


def _place(lo: tuple[int, int], hi: tuple[int, int], epsilon: object, digits: int) -> Position | None:
    """Where `verify.screen.classify` places every number of [lo, hi] (0 < lo <= hi, each (n, e) = n·2^e with
    e <= 0), or None if the margins of `_regions` do not tell (the caller then asks classify itself)."""
    if not isinstance(epsilon, Fraction):
        return None
    below, low, high, above = _regions(epsilon, digits)

    def le(x: tuple[int, int], b: Fraction) -> bool:
        return x[0] * b.denominator <= b.numerator << -x[1]

    if le(hi, below):
        return Position.INSIDE
    if not le(lo, low) and le(hi, high):
        return Position.AT_BOUND
    if not le(lo, above):
        return Position.VIOLATION
    return None


def _record(n: int, e: int) -> float | None:
    """float(|n·2^e|) as the decision records it at mpmath's default 53 bits (round to nearest, ties to even:
    Python's int-to-float conversion is correctly rounded, and ldexp exact in range), None at another precision."""
    if mpmath.mp.prec != 53:
        return None
    try:
        return math.ldexp(float(abs(n)), e)
    except OverflowError:
        return None


def settled(lr: Any | None, epsilon: Fraction, digits: int) -> mpmath.mpf | None:
    """The ball ``lr``'s midpoint if it settles the point (module docstring), else None.  The ends of the
    widened ball are exact dyadic numbers (integer arithmetic on the ball's midpoint and radius)."""
    if lr is None or not lr.is_finite():
        return None
    man, exp = (int(x) for x in lr.mid().man_exp())
    rman, rexp = (int(x) for x in lr.rad().man_exp())
    r_bits, w_bits = _limits(digits)
    if rman and rman.bit_length() + rexp > -r_bits:  # rad < 2^(bit_length + rexp) <= 2^-r_bits is required
        return None
    e = min(exp, rexp, -w_bits - 1)
    m, half = man << (exp - e), (rman << (rexp - e)) + (1 << (-w_bits + 1 - e))  # mid and rad + 2W at 2^e
    lo, hi = m - half, m + half
    if not (lo > 0 or hi < 0):
        return None
    small, large = (lo, hi) if lo > 0 else (-hi, -lo)  # |·| of the ends, in order
    place = _place((small, e), (large, e), epsilon, digits)
    if place is None:
        a, b = _dyadic(small, e), _dyadic(large, e)
        if classify(a, epsilon, digits) is not classify(b, epsilon, digits):
            return None
    record_small, record_large = _record(small, e), _record(large, e)
    if record_small is None:
        with MPMATH_LOCK:  # the decision's record, float(|value|), at the caller's precision
            record_small, record_large = float(abs(_dyadic(small, e))), float(abs(_dyadic(large, e)))
    if record_small != record_large:
        return None
    return _dyadic(man, exp)
