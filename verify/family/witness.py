"""A confirmed witness of privacy loss for an SVT variant: exact neighbours, output, and the loss at 50 digits.

`confirm` computes both probabilities of a witness at ``digits`` digits.  For Laplace, exponential and no
noise it first takes them as python-flint balls of the one closed form (`verify.engine.piecewise.ClosedForm`
on `verify.engine.backends.ArbBackend`, as `verify.sweep.balls` does for the sweep): each ball contains the
exact probability, so the ball L = log p - log p' contains the exact log ratio.  The balls are used only
where they settle every number the witness prints (`_settled`): each radius at most 10^-(digits+15) of its
midpoint, and every number within 10^-(digits+10) (relative) of each ball rounds alike to the printed digits
(p and p' to ``digits``, L to ``digits``, |L| to 30, |L|/ε to 15); the stored values are the midpoints at
``digits`` + 15 digits, as precise as the mpmath path's.  Otherwise (a ball too wide, a probability exactly 0,
a rounding too close to call, Gaussian noise) the exact mpmath path decides as before (`verify.oracles.family`,
the verdicts' own oracle: two precisions that must agree).  The balls change no printed number, only the
time: ball arithmetic in C at one precision, no Fraction expansion in Python (measured: about 5x less CPU per
witness on the family table's witnesses).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import flint
import mpmath
from mpmath.libmp import from_man_exp

from verify.discrete.probability import mp_probability as discrete_probability
from verify.engine import integrand as integrand_mod
from verify.engine.backends import ArbBackend
from verify.engine.piecewise import ClosedForm
from verify.exact import fmt
from verify.mechanism import SparseVector
from verify.oracles.family import guard_digits, output_probability
from verify.precision import MPMATH_LOCK
from verify.ratio import log_ratio

VIOLATION_DIGITS = 50


@dataclass(frozen=True)
class FamilyWitness:
    """q(D), q(D'), the outcome string and released values (exact), with both probabilities at ``digits``.

    ``kind`` is ``probability`` or ``density`` (released values: the ratio of densities).
    The loss is |log Pr[A(D)=o] - log Pr[A(D')=o]|, inf when exactly one side is 0.
    """

    queries: tuple[Fraction, ...]
    neighbour: tuple[Fraction, ...]
    outcome: str
    released: tuple[Fraction, ...]
    probability: mpmath.mpf
    neighbour_probability: mpmath.mpf
    digits: int

    @property
    def kind(self) -> str:
        return "density" if self.released else "probability"

    @property
    def log_ratio(self) -> mpmath.mpf:
        with MPMATH_LOCK, mpmath.workdps(self.digits + 15):
            return log_ratio(self.probability, self.neighbour_probability)

    @property
    def loss(self) -> mpmath.mpf:
        with MPMATH_LOCK, mpmath.workdps(self.digits + 15):
            return abs(self.log_ratio)

    def describe(self) -> str:
        rel = f", released ({', '.join(fmt(x) for x in self.released)})" if self.released else ""
        return (f"q(D) = ({', '.join(fmt(x) for x in self.queries)}), q(D') = ({', '.join(fmt(x) for x in self.neighbour)}), "
                f"output {self.outcome}{rel}")

    def ratio_command(self, preset_flags: str) -> str:
        """The `svt-verify ratio` command line that recomputes this witness (the family flags)."""
        rel = f" --released={','.join(fmt(x) for x in self.released)}" if self.released else ""
        return (f"svt-verify ratio {preset_flags} --queries={','.join(fmt(x) for x in self.queries)} "
                f"--neighbour-queries={','.join(fmt(x) for x in self.neighbour)} --outcomes {self.outcome}{rel} --digits {self.digits}")

    def to_json(self) -> dict[str, Any]:
        with MPMATH_LOCK, mpmath.workdps(self.digits + 15):
            lr = self.log_ratio
            return {
                "queries": [fmt(x) for x in self.queries],
                "neighbour_queries": [fmt(x) for x in self.neighbour],
                "outcomes": self.outcome,
                "released": [fmt(x) for x in self.released],
                "kind": self.kind,
                "probability": mpmath.nstr(self.probability, self.digits),
                "neighbour_probability": mpmath.nstr(self.neighbour_probability, self.digits),
                "log_ratio": "inf" if mpmath.isinf(lr) and lr > 0 else "-inf" if mpmath.isinf(lr) else mpmath.nstr(lr, self.digits),
                "digits": self.digits,
            }


def confirm(shape: SparseVector, queries, neighbour, outcome: str, released=(), digits: int = VIOLATION_DIGITS) -> FamilyWitness:
    """Both probabilities by the exact mpmath path (`verify.oracles.family`) at ``digits``; for a discrete
    variant (noise on ℤ), the exact sum over ℤ (`verify.discrete.probability.mp_probability`: the closed form
    for discrete Laplace, the direct sum with a proven tail for the discrete Gaussian)."""
    q, qn, rel = tuple(Fraction(x) for x in queries), tuple(Fraction(x) for x in neighbour), tuple(released)
    for a, b in zip(q, qn):
        if abs(a - b) > shape.sensitivity:
            raise ValueError(f"witness: |{fmt(a)} - {fmt(b)}| exceeds Δ = {fmt(shape.sensitivity)}")
    if shape.is_discrete:
        p, pn = (discrete_probability(shape, list(x), outcome, digits=digits) for x in (q, qn))
        return FamilyWitness(q, qn, outcome, rel, p, pn, digits)
    balls = _ball_probabilities(shape, q, qn, outcome, rel, digits)
    if balls is not None:
        return FamilyWitness(q, qn, outcome, rel, *balls, digits)
    p = output_probability(shape, q, outcome, rel, digits)
    pn = output_probability(shape, qn, outcome, rel, digits)
    return FamilyWitness(q, qn, outcome, rel, p, pn, digits)


#: Digits of the balls beyond the ones printed: the 15 of the stored values, 25 that the closed form's
#: cancellation may spend, and (`_ball_bits`) as many as the mpmath oracle budgets for |q - t| in noise scales.
BALL_GUARD_DIGITS = 40


def _ball_bits(shape: SparseVector, queries: tuple[Fraction, ...], released: tuple[Fraction, ...], digits: int) -> int:
    """Working bits of the witness balls: ``digits`` + `BALL_GUARD_DIGITS` + the oracle's own estimate of the
    digits cancelled by terms e^{|q - t|/b} (`verify.oracles.family.output_probability`: |q - t| / (2.3 b))."""
    spread = max([abs(x - shape.threshold) for x in queries] + [abs(x) for x in released] + [Fraction(1)])
    small = min((n.scale for n in (shape.threshold_noise, shape.query_noise) if not n.is_none), default=Fraction(1))
    return math.ceil((digits + BALL_GUARD_DIGITS + len(queries) + float(spread / small) / 2.3) * math.log2(10))


def _dyadic(man: int, exp: int) -> mpmath.mpf:
    """man·2^exp as an mpf, exactly (no rounding)."""
    return mpmath.mp.make_mpf(from_man_exp(man, exp))


def _settled(ball: Any, shown: tuple[tuple[Any, int], ...], digits: int, absolute: bool = False) -> mpmath.mpf | None:
    """The midpoint of ``ball`` (exact) if its radius is at most 10^-(digits+15)·m and, for every (f, n) of
    ``shown``, f of both ends of the ball widened by 10^-(digits+10)·m prints alike at n digits (f monotone on
    a ball of one sign, so every number between prints alike too); else None.  m = |midpoint| (a probability:
    relative), or max(|midpoint|, 1) with ``absolute`` (a log ratio: the stored probabilities' rounding moves
    it by an absolute amount).  Runs at the caller's precision (digits + 20 digits)."""
    if not ball.is_finite():
        return None
    mid = _dyadic(*(int(x) for x in ball.mid().man_exp()))
    rad = _dyadic(*(int(x) for x in ball.rad().man_exp()))
    m = max(abs(mid), 1) if absolute else abs(mid)
    if mid == 0 or rad > m * mpmath.mpf(10) ** -(digits + 15):
        return None
    wide = rad + m * mpmath.mpf(10) ** -(digits + 10)
    lo, hi = mid - wide, mid + wide
    if (lo > 0) != (hi > 0):
        return None
    for f, n in shown:
        if mpmath.nstr(f(lo), n) != mpmath.nstr(f(hi), n):
            return None
    return mid


def _ball_probabilities(shape: SparseVector, q: tuple[Fraction, ...], qn: tuple[Fraction, ...], outcome: str,
                        released: tuple[Fraction, ...], digits: int) -> tuple[mpmath.mpf, mpmath.mpf] | None:
    """Pr[A(D) = o] and Pr[A(D') = o] from arb balls of the closed form, at ``digits`` + 15 digits, when the balls
    settle them and their log ratio (module docstring); None otherwise (the caller then takes the mpmath path)."""
    if not (shape.threshold_noise.is_piecewise and shape.query_noise.is_piecewise):
        return None  # Gaussian threshold or query noise: no closed form
    for x in (q, qn):
        guard_digits(shape, x, released)  # the oracle's limit on its input holds on this path too
    bits = _ball_bits(shape, q + qn, released, digits)
    with MPMATH_LOCK, flint.ctx.workprec(bits):  # flint's precision is global to the process, as mpmath's is
        form = ClosedForm.of(shape, ArbBackend())
        balls = []
        for x in (q, qn):
            value, pieces = form.evaluate(integrand_mod.build(shape, x, outcome, list(released) or None))
            if any(piece.zero for piece in pieces) or not value > 0:
                return None  # exactly 0 (or a ball reaching 0): the mpmath path decides
            balls.append(value)
        lr = balls[0].log() - balls[1].log()
    eps = shape.epsilon
    with MPMATH_LOCK, mpmath.workdps(digits + 20):
        ident = (lambda x: x, digits)
        p, pn = (_settled(b, (ident,), digits) for b in balls)
        ok = p is not None and pn is not None and _settled(
            lr, (ident, (abs, 30), (lambda x: abs(x) / (mpmath.mpf(eps.numerator) / eps.denominator), 15)), digits, absolute=True) is not None
        if not ok:
            return None
    with MPMATH_LOCK, mpmath.workdps(digits + 15):
        return +p, +pn


def structured_pair(shape: SparseVector, outcome: str, point: tuple[float, float, float], shifts: tuple[float, float],
                    unit: Fraction) -> tuple[tuple[Fraction, ...], tuple[Fraction, ...], str, tuple[Fraction, ...]]:
    """q(D), q(D'), ``outcome`` and the released values of a structured search point (u, v, r) with shifts
    (σ_B, σ_A) (`verify.family.structured`): every B query at t + u, every A query at t + v, the released
    value r (the gap itself, else t + r); u, v, r rounded to multiples of ``unit``/1000, shifts to multiples of Δ."""
    t, d = shape.threshold, shape.sensitivity
    step = unit / 1000
    u, v, r = (round(Fraction(x) / step) * step for x in point)
    sb, sa = (round(s / float(d)) * d for s in shifts)
    q = tuple(t + (u if ch == "B" else v) for ch in outcome)
    qn = tuple(t + (u + sb if ch == "B" else v + sa) for ch in outcome)
    rel: tuple[Fraction, ...] = ()
    if shape.releases_values:
        rel = (shape.release_rule.search_value(t, r),) * outcome.count("A")
    return q, qn, outcome, rel


@dataclass(frozen=True)
class BestSoFar:
    """The best pair a search has found so far: a partial result, not a verdict.

    ``loss`` is the float64 search value of |log Pr[A(D)=o] - log Pr[A(D')=o]| at the search point (an
    estimate; the pair is that point rounded to short rationals), unless ``confirmed`` (then the loss of
    the witness confirmed by the exact path).  ``stage`` names the search phase that found it."""

    loss: float
    queries: tuple[Fraction, ...]
    neighbour: tuple[Fraction, ...]
    outcome: str
    released: tuple[Fraction, ...]
    stage: str
    confirmed: bool = False

    @classmethod
    def of_witness(cls, w: FamilyWitness) -> BestSoFar:
        """The confirmed witness ``w`` as the search's last best pair."""
        return cls(float(w.loss), w.queries, w.neighbour, w.outcome, w.released, "confirmed", confirmed=True)

    def describe(self) -> str:
        rel = f", released ({', '.join(fmt(x) for x in self.released)})" if self.released else ""
        how = "confirmed by the exact path" if self.confirmed else f"float64 search estimate ({self.stage}), not confirmed"
        return (f"loss {self.loss:.12g} nats ({how}) at q(D) = ({', '.join(fmt(x) for x in self.queries)}), "
                f"q(D') = ({', '.join(fmt(x) for x in self.neighbour)}), output {self.outcome}{rel}")

    def to_json(self) -> dict[str, Any]:
        return {"loss": "inf" if self.loss == float("inf") else self.loss, "confirmed": self.confirmed, "stage": self.stage,
                "queries": [fmt(x) for x in self.queries], "neighbour_queries": [fmt(x) for x in self.neighbour],
                "outcomes": self.outcome, "released": [fmt(x) for x in self.released]}
