"""A confirmed witness of privacy loss for an SVT variant: exact neighbours, output, and the loss at 50 digits."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath

from verify.discrete.probability import mp_probability as discrete_probability
from verify.exact import fmt
from verify.mechanism import SparseVector
from verify.oracles.family import output_probability
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
    p = output_probability(shape, q, outcome, rel, digits)
    pn = output_probability(shape, qn, outcome, rel, digits)
    return FamilyWitness(q, qn, outcome, rel, p, pn, digits)


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
