"""Report Noisy Max: the model (docs/selection.md).

Given scores q_1..q_k (each of sensitivity Δ), draw X_1..X_k i.i.d. from a noise family of scale
b = c·Δ/ε and release, for ``optimize = max``,

* ``index``: the index i = argmax_j (q_j + X_j) (Dwork and Roth 2014, Claim 3.9);
* ``value``: the noisy maximum max_j (q_j + X_j) (Ding et al., CCS 2018, Alg. 7 and 8: not private);
* ``gap``: the index and the gap (q_i + X_i) − max_{j≠i} (q_j + X_j) to the runner-up (Ding, Wang,
  Zhang and Kifer, PVLDB 2019, "Noisy Max with Gap").

``optimize = min`` is OpenDP's ``negate``: the argmax of −q_j + X_j (``noisy_top_k`` in
opendp/opendp ``rust/src/measurements/noisy_top_k/mod.rs``: "each y_i = −x_i if negate"); for a
symmetric family this is the argmin of q_j + X_j in law.  Every computation reads the scores −q
(`effective_scores`).

Neighbours: every score moves by at most Δ (``|q_j − q'_j| <= Δ``, CheckDP's and StatDP's
``ALL_DIFFER``, OpenDP's ``LInfDistance``); with ``monotone`` all scores move in the same direction
(OpenDP's ``LInfDistance(monotonic=True)``).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import StrEnum
from fractions import Fraction
from typing import Any

from verify.errors import InputError
from verify.exact import fmt, positive, to_fraction
from verify.noise.gumbel import Gumbel
from verify.noise.protocol import NoiseFamily
from verify.noise.registry import family_type


class SelectionOutput(StrEnum):
    """What Report Noisy Max releases."""

    INDEX = "index"
    VALUE = "value"
    GAP = "gap"


class TieRule(StrEnum):
    """Who wins a tie of noisy scores (discrete noise only; a tie has probability 0 otherwise)."""

    FIRST = "first"  # numpy's argmax; CheckDP noisymax.c's strict ">" (verify.selection.discrete)
    LAST = "last"


class Optimize(StrEnum):
    """Report the noisy maximum (``max``) or the noisy minimum (``min``: OpenDP's ``negate``)."""

    MAX = "max"
    MIN = "min"


#: The noise families Report Noisy Max takes (continuous: a tie has probability 0; discrete Laplace: ties by `TieRule`).
SELECTION_FAMILIES: dict[str, NoiseFamily] = {
    "laplace": family_type("laplace"),
    "exponential": family_type("exponential"),
    "gumbel": Gumbel(),
    "discrete-laplace": family_type("discrete-laplace"),
}


@dataclass(frozen=True)
class ReportNoisyMax:
    """Report Noisy Max over scores of sensitivity Δ with noise ``family`` of scale ``scale``·Δ/ε.

    ``claimed``: the privacy its source claims, as a short text (shown beside the verdict, never
    used to decide it); ``claimed_rho``: a zero-concentrated ρ the source's map gives, if any.
    """

    epsilon: Fraction
    sensitivity: Fraction
    family: str
    scale: Fraction
    output: SelectionOutput = SelectionOutput.INDEX
    monotone: bool = False
    optimize: Optimize = Optimize.MAX
    name: str = "custom"
    source: str = ""
    claimed: str = ""
    claimed_rho: Fraction | None = field(default=None)
    ties: TieRule = TieRule.FIRST

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", positive(self.epsilon, "epsilon"))
        object.__setattr__(self, "sensitivity", positive(self.sensitivity, "sensitivity"))
        object.__setattr__(self, "scale", positive(self.scale, "scale (a multiple of Δ/ε)"))
        if self.family not in SELECTION_FAMILIES:
            raise InputError(f"noise family: {self.family!r} is not one Report Noisy Max takes "
                             f"({', '.join(SELECTION_FAMILIES)})")
        try:
            object.__setattr__(self, "output", SelectionOutput(self.output))
        except ValueError:
            raise InputError(f"output: {self.output!r} is not one of {', '.join(SelectionOutput)}") from None
        try:
            object.__setattr__(self, "optimize", Optimize(self.optimize))
        except ValueError:
            raise InputError(f"optimize: {self.optimize!r} is not one of {', '.join(Optimize)}") from None
        if not isinstance(self.monotone, bool):
            raise InputError(f"monotone: {self.monotone!r} must be True or False")
        if self.claimed_rho is not None:
            object.__setattr__(self, "claimed_rho", positive(self.claimed_rho, "claimed_rho"))
        try:
            object.__setattr__(self, "ties", TieRule(self.ties))
        except ValueError:
            raise InputError(f"ties: {self.ties!r} is not one of {', '.join(TieRule)}") from None
        if self.law.discrete:
            if self.output is not SelectionOutput.INDEX:
                raise InputError(f"output: {self.output.value} with discrete noise is not modelled (the index is: "
                                 "docs/selection.md)")
            if self.sensitivity.denominator != 1:
                raise InputError(f"sensitivity: {fmt(self.sensitivity)} must be an integer with discrete noise "
                                 "(scores on ℤ)")

    # --- derived --------------------------------------------------------------------------
    @property
    def law(self) -> NoiseFamily:
        """The noise family object every computation asks."""
        return SELECTION_FAMILIES[self.family]

    @property
    def b(self) -> Fraction:
        """The absolute noise scale b = scale·Δ/ε."""
        return self.scale * self.sensitivity / self.epsilon

    def effective_scores(self, queries: tuple[Fraction, ...]) -> tuple[Fraction, ...]:
        """The scores whose noisy argmax is reported: q, or −q for ``optimize = min``."""
        return tuple(queries) if self.optimize is Optimize.MAX else tuple(-q for q in queries)

    def check_queries(self, queries: Any, name: str = "queries") -> tuple[Fraction, ...]:
        """A non-empty tuple of exact scores."""
        qs = tuple(to_fraction(q, name) for q in queries)
        if not qs:
            raise InputError(f"{name}: Report Noisy Max needs at least one score")
        if self.law.discrete and any(q.denominator != 1 for q in qs):
            bad = next(q for q in qs if q.denominator != 1)
            raise InputError(f"{name}: {fmt(bad)} is not an integer; discrete noise takes integer scores")
        return qs

    def with_changes(self, **changes: Any) -> ReportNoisyMax:
        return replace(self, **changes)

    def describe(self) -> str:
        out = {SelectionOutput.INDEX: "the index", SelectionOutput.VALUE: "the noisy value",
               SelectionOutput.GAP: "the index and the gap to the runner-up"}[self.output]
        mono = "monotone" if self.monotone else "any direction"
        return (f"{self.name}: Report Noisy {self.optimize.value.capitalize()} releasing {out}, "
                f"{self.law.symbol}({fmt(self.scale)}·Δ/ε) noise, ε = {fmt(self.epsilon)}, Δ = {fmt(self.sensitivity)} "
                f"(neighbours: every score moves by <= Δ, {mono})")

    def to_json(self) -> dict[str, Any]:
        return {"model": "report-noisy-max", "name": self.name, "source": self.source, "epsilon": fmt(self.epsilon),
                "sensitivity": fmt(self.sensitivity), "family": self.family, "scale": fmt(self.scale), "b": fmt(self.b),
                "output": self.output.value, "monotone": self.monotone, "optimize": self.optimize.value,
                "claimed": self.claimed, "claimed_rho": None if self.claimed_rho is None else fmt(self.claimed_rho),
                "ties": self.ties.value}
