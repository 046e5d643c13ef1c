"""Result objects of the certification engine (small frozen dataclasses).

A verdict is one of ``certified`` (every box settled by a rigorous
enclosure or an exact computation), ``refuted`` (a counterexample confirmed
at high precision) or ``undecided`` (some boxes could not be settled; they
are listed).  Margins are exact rationals (nats) that are *lower bounds* of
the true gap between the quantity and its bound.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from verify.errors import InputError
from verify.exact import fmt
from verify.mechanism import AboveThreshold, SparseVector
from verify.noise import NoiseSpec
from verify.validate import to_number
from verify.verdicts import CertificateVerdict, Counterexample, StepStatus

VERDICTS: tuple[CertificateVerdict, ...] = tuple(CertificateVerdict)
#: The issue's default range of ε.
DEFAULT_EPSILON_RANGE = (Fraction(1, 100), Fraction(10))


def frac_json(x: Fraction | None) -> str | None:
    if x is None:
        return None
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


@dataclass(frozen=True)
class CertifySpec:
    """The noises of a mechanism and its sensitivity: what a certificate depends on.

    ``threshold`` and ``query`` are `verify.noise.NoiseSpec` (family and scale
    as a multiple of Δ/ε or as an absolute value).
    """

    threshold: NoiseSpec
    query: NoiseSpec
    sensitivity: Fraction = Fraction(1)

    def __post_init__(self) -> None:
        for name in ("threshold", "query"):
            if not isinstance(getattr(self, name), NoiseSpec):
                raise InputError(f"certify: {name} noise {getattr(self, name)!r} is not a NoiseSpec")
        delta = to_number(self.sensitivity, "sensitivity")
        if delta <= 0:
            raise InputError(f"sensitivity: {fmt(delta)} must be > 0")
        object.__setattr__(self, "sensitivity", delta)

    @classmethod
    def of(cls, mech_or_spec: Any) -> CertifySpec:
        if isinstance(mech_or_spec, CertifySpec):
            return mech_or_spec
        if isinstance(mech_or_spec, SparseVector) and mech_or_spec.is_above_threshold:
            return cls(mech_or_spec.threshold_spec, mech_or_spec.query_spec, mech_or_spec.sensitivity)
        raise InputError(f"certify: {mech_or_spec!r} is neither the seed's AboveThreshold (cutoff 1, no release) nor a CertifySpec")

    def mechanism(self, epsilon: Fraction) -> SparseVector:
        """The concrete mechanism at one ε (threshold t = 0; the ratio does not depend on t)."""
        return AboveThreshold(epsilon=epsilon, sensitivity=self.sensitivity, threshold=0,
                              threshold_spec=self.threshold, query_spec=self.query)

    def describe(self) -> str:
        return f"threshold {self.threshold.describe()}, queries {self.query.describe()}, Δ={fmt(self.sensitivity)}"


def check_epsilon_range(epsilon_range: Any) -> tuple[Fraction, Fraction]:
    try:
        lo, hi = epsilon_range
    except (TypeError, ValueError):
        raise InputError(f"epsilon range: {epsilon_range!r} is not a pair (lo, hi)") from None
    lo, hi = to_number(lo, "epsilon range lower end"), to_number(hi, "epsilon range upper end")
    if lo <= 0:
        raise InputError(f"epsilon range: lower end {fmt(lo)} must be > 0")
    if hi < lo:
        raise InputError(f"epsilon range: upper end {fmt(hi)} is below the lower end {fmt(lo)}")
    return lo, hi


@dataclass(frozen=True)
class ProofStep:
    """One step of a certificate: what it states, why it holds, and how it was checked."""

    name: str
    statement: str
    justification: str
    status: StepStatus

    def __post_init__(self) -> None:
        object.__setattr__(self, "status", StepStatus(self.status))

    def to_json(self) -> dict[str, str]:
        return {"name": self.name, "statement": self.statement, "justification": self.justification, "status": self.status}


def counterexample_json(cx: Counterexample) -> dict[str, Any]:
    """A certificate's counterexample as JSON: ``description``, ``digits`` and its named values (exact
    rationals as `verify.exact.fmt` prints them, high-precision values to ``digits`` digits)."""
    return {"description": cx.detail, "digits": cx.digits, **cx.values}


@dataclass(frozen=True)
class SearchSummary:
    """A one-dimensional branch and bound run (`verify.certify.search.certify_sup`)."""

    name: str
    function: str
    bound: Fraction
    verdict: CertificateVerdict
    boxes: int
    min_margin: Fraction | None
    attained: bool
    undecided: tuple[str, ...] = ()
    box_list: tuple = field(default=(), repr=False, compare=False)

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "function": self.function, "bound": frac_json(self.bound), "verdict": self.verdict,
                "boxes": self.boxes, "min_margin": frac_json(self.min_margin), "bound_attained": self.attained,
                "undecided_boxes": list(self.undecided)}


@dataclass(frozen=True)
class Certificate:
    """The result of certifying one claim for a mechanism over a range of ε.

    ``min_margin``: the smallest gap (nats) between the quantity and its bound
    over the whole domain and the ε range, exact; None unless certified.
    ``sup_log_ratio_per_epsilon``: where the supremum scales with ε (scales
    given as multiples of Δ/ε), sup |log ratio| / ε, exact.
    """

    claim: str
    spec: CertifySpec
    epsilon_range: tuple[Fraction, Fraction]
    verdict: CertificateVerdict
    method: str
    boxes: int
    min_margin: Fraction | None
    counterexample: Counterexample | None
    steps: tuple[ProofStep, ...]
    seconds: float
    searches: tuple[SearchSummary, ...] = ()
    undecided_boxes: tuple[str, ...] = ()
    sup_log_ratio_per_epsilon: Fraction | None = None
    sup_log_ratio: Fraction | None = None
    every_epsilon: bool = False

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"certificate verdict: {self.verdict!r} is not one of {', '.join(VERDICTS)}")
        object.__setattr__(self, "verdict", CertificateVerdict(self.verdict))
        if self.verdict == CertificateVerdict.REFUTED and self.counterexample is None:
            raise ValueError("certificate: a refuted claim needs a counterexample")
        if self.verdict != CertificateVerdict.CERTIFIED and self.min_margin is not None:
            raise ValueError("certificate: only a certified claim has a margin")

    @property
    def certified(self) -> bool:
        return self.verdict == CertificateVerdict.CERTIFIED

    @property
    def by_hand_steps(self) -> tuple[str, ...]:
        """The steps applied by hand (`StepStatus.BY_HAND`): a claim resting on them is at most consistent."""
        return tuple(f"{s.name}: {s.statement} ({s.justification})" for s in self.steps if s.status is StepStatus.BY_HAND)

    def to_json(self) -> dict[str, Any]:
        return {
            "claim": self.claim,
            "verdict": self.verdict,
            "method": self.method,
            "boxes": self.boxes,
            "seconds": round(self.seconds, 4),
            "min_margin": None if self.min_margin is None else float(self.min_margin),
            "min_margin_exact": frac_json(self.min_margin),
            "counterexample": None if self.counterexample is None else counterexample_json(self.counterexample),
            "epsilon_range": [frac_json(self.epsilon_range[0]), frac_json(self.epsilon_range[1])],
            "holds_for_every_epsilon": self.every_epsilon,
            "sup_log_ratio_per_epsilon": frac_json(self.sup_log_ratio_per_epsilon),
            "sup_log_ratio": frac_json(self.sup_log_ratio),
            "undecided_boxes": list(self.undecided_boxes),
            "searches": [s.to_json() for s in self.searches],
            "steps": [s.to_json() for s in self.steps],
        }
