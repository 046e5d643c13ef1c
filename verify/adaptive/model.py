"""Adaptive Sparse Vector with Gap: the model (docs/adaptive.md).

Ding, Wang, Zhang and Kifer, "Free Gap Information from the Differentially Private Sparse Vector and
Noisy Max Mechanisms", PVLDB 13(3) 2019, "Adaptive Sparse Vector with Gap", as CheckDP transcribes it
(cmla-psu/checkdp ``examples/adaptivesparsevector.c`` at commit 01e31ae, lines 7-38):

    T̂ = t + Z,  Z ~ Lap(b_Z);  cost = c₀
    for each query q_i:
        ξ_i ~ Lap(b_top)                              (the larger noise)
        if q_i + ξ_i − T̂ >= σ:  release TOP with q_i + ξ_i − T̂ (the gap);  cost += c_top
        else:
            η_i ~ Lap(b_mid)
            if q_i + η_i − T̂ >= 0:  release MIDDLE with q_i + η_i − T̂;  cost += c_mid
            else:  release BELOW
        if cost > B: halt

``top_release = value`` is ``badadaptivesparsevector.c`` (line 20, "INCORRECT: outputting noisy
query"): TOP releases q_i + ξ_i instead of the gap.  Scales are multiples of Δ/ε, costs and the
budget B multiples of ε, σ absolute (times √2 when ``sigma_sqrt2``: the paper's σ is irrational).

Neighbours: every query moves by at most Δ, in any direction (CheckDP's ``ALL_DIFFER``, line 4).

CheckDP stores T̂ and the cost in ``int`` variables (lines 9 and 11); the model does not truncate
(CheckDP reasons over reals), as `verify.selection.presets` does not for ``badnoisymax.c``.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import StrEnum
from fractions import Fraction
from typing import Any

from verify.errors import InputError
from verify.exact import fmt, non_negative, positive, to_fraction
from verify.noise.laplace import Laplace
from verify.noise.protocol import NoiseFamily
from verify.noise.registry import family_type


class Branch(StrEnum):
    """Where one query ended: the higher bar σ (top), the threshold (middle) or below."""

    TOP = "top"
    MIDDLE = "middle"
    BELOW = "below"


class TopRelease(StrEnum):
    """What a TOP answer releases: the gap q_i + ξ_i − T̂ (the paper) or q_i + ξ_i (the bad variant)."""

    GAP = "gap"
    VALUE = "value"


@dataclass(frozen=True)
class Answer:
    """One query's output: its branch and, for TOP and MIDDLE, the released number."""

    branch: Branch
    value: Fraction | None = None

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "branch", Branch(self.branch))
        except ValueError:
            raise InputError(f"branch: {self.branch!r} is not one of {', '.join(Branch)}") from None
        if self.branch is Branch.BELOW:
            if self.value is not None:
                raise InputError("answer: a BELOW answer releases no value")
        else:
            if self.value is None:
                raise InputError(f"answer: a {self.branch.value.upper()} answer releases a value; none given")
            object.__setattr__(self, "value", to_fraction(self.value, f"{self.branch.value} value"))

    def describe(self) -> str:
        return "⊥" if self.branch is Branch.BELOW else f"{self.branch.value}({fmt(self.value)})"

    def to_json(self) -> dict[str, Any]:
        return {"branch": self.branch.value, "value": None if self.value is None else fmt(self.value)}


def below() -> Answer:
    return Answer(Branch.BELOW)


def top(value: object) -> Answer:
    return Answer(Branch.TOP, to_fraction(value, "top value"))


def middle(value: object) -> Answer:
    return Answer(Branch.MIDDLE, to_fraction(value, "middle value"))


@dataclass(frozen=True)
class AdaptiveSVT:
    """Adaptive Sparse Vector (module docstring).  ``claimed``: what the source claims (shown, never used)."""

    epsilon: Fraction
    sensitivity: Fraction
    threshold: Fraction
    threshold_scale: Fraction
    top_scale: Fraction
    middle_scale: Fraction
    sigma: Fraction
    initial_cost: Fraction
    top_cost: Fraction
    middle_cost: Fraction
    budget: Fraction
    top_release: TopRelease = TopRelease.GAP
    sigma_sqrt2: bool = False
    family: str = "laplace"
    name: str = "custom"
    source: str = ""
    claimed: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "epsilon", positive(self.epsilon, "epsilon"))
        object.__setattr__(self, "sensitivity", positive(self.sensitivity, "sensitivity"))
        object.__setattr__(self, "threshold", to_fraction(self.threshold, "threshold"))
        for f in ("threshold_scale", "top_scale", "middle_scale"):
            object.__setattr__(self, f, positive(getattr(self, f), f"{f} (a multiple of Δ/ε)"))
        object.__setattr__(self, "sigma", non_negative(self.sigma, "sigma"))
        for f in ("initial_cost", "top_cost", "middle_cost"):
            object.__setattr__(self, f, non_negative(getattr(self, f), f"{f} (a multiple of ε)"))
        object.__setattr__(self, "budget", to_fraction(self.budget, "budget (a multiple of ε)"))
        try:
            object.__setattr__(self, "top_release", TopRelease(self.top_release))
        except ValueError:
            raise InputError(f"top_release: {self.top_release!r} is not one of {', '.join(TopRelease)}") from None
        if not isinstance(self.sigma_sqrt2, bool):
            raise InputError(f"sigma_sqrt2: {self.sigma_sqrt2!r} must be True or False")
        if not isinstance(family_type(self.family), Laplace):
            raise InputError(f"noise family: {self.family!r}: Adaptive SVT is modelled with Laplace noise only "
                             "(the paper's and CheckDP's)")

    # --- derived --------------------------------------------------------------------------
    @property
    def law(self) -> NoiseFamily:
        return family_type(self.family)

    def _abs(self, multiple: Fraction) -> Fraction:
        return multiple * self.sensitivity / self.epsilon

    @property
    def b_threshold(self) -> Fraction:
        return self._abs(self.threshold_scale)

    @property
    def b_top(self) -> Fraction:
        return self._abs(self.top_scale)

    @property
    def b_middle(self) -> Fraction:
        return self._abs(self.middle_scale)

    def sigma_value(self) -> float:
        """σ as a float (√2 applied)."""
        return float(self.sigma) * (2 ** 0.5 if self.sigma_sqrt2 else 1.0)

    def cost_of(self, branch: Branch) -> Fraction:
        """The cost of one answer, a multiple of ε."""
        return {Branch.TOP: self.top_cost, Branch.MIDDLE: self.middle_cost, Branch.BELOW: Fraction(0)}[Branch(branch)]

    def halts_after(self, answers: tuple[Answer, ...]) -> list[bool]:
        """For each answer, whether the run halts right after it (cost > B)."""
        cost, out = self.initial_cost, []
        for a in answers:
            cost += self.cost_of(a.branch)
            out.append(cost > self.budget)
        return out

    def check_queries(self, queries: Any, name: str = "queries") -> tuple[Fraction, ...]:
        qs = tuple(to_fraction(q, name) for q in queries)
        if not qs:
            raise InputError(f"{name}: Adaptive SVT needs at least one query")
        return qs

    def check_outcome(self, answers: Any, n_queries: int) -> tuple[Answer, ...]:
        """The answers as a tuple; `InputError` if there are more than queries or a value is out of range."""
        out = tuple(answers)
        if not all(isinstance(a, Answer) for a in out):
            raise InputError("outcome: a sequence of Answer (below(), top(v), middle(g))")
        if not 1 <= len(out) <= n_queries:
            raise InputError(f"outcome: {len(out)} answers for {n_queries} queries (1..{n_queries} allowed)")
        return out

    def is_possible(self, answers: tuple[Answer, ...], n_queries: int) -> bool:
        """Whether the branch sequence can occur with n queries: no halt before the last answer, and a
        run shorter than the queries halted after its last answer (the values are checked by the density)."""
        halts = self.halts_after(answers)
        if any(halts[:-1]):
            return False
        return len(answers) == n_queries or halts[-1]

    def with_changes(self, **changes: Any) -> AdaptiveSVT:
        return replace(self, **changes)

    def describe(self) -> str:
        s = f"{fmt(self.sigma)}{'√2' if self.sigma_sqrt2 else ''}"
        rel = "the gap q_i + ξ_i − T̂" if self.top_release is TopRelease.GAP else "the noisy query q_i + ξ_i"
        return (f"{self.name}: Adaptive SVT, T̂ = t + Lap({fmt(self.threshold_scale)}·Δ/ε), top ξ ~ Lap({fmt(self.top_scale)}·Δ/ε) "
                f"against σ = {s} (top releases {rel}), middle η ~ Lap({fmt(self.middle_scale)}·Δ/ε) against 0 (releases the gap); "
                f"cost {fmt(self.initial_cost)}ε + {fmt(self.top_cost)}ε per top + {fmt(self.middle_cost)}ε per middle, halt when "
                f"cost > {fmt(self.budget)}ε; ε = {fmt(self.epsilon)}, Δ = {fmt(self.sensitivity)}, t = {fmt(self.threshold)}")

    def to_json(self) -> dict[str, Any]:
        return {"model": "adaptive-svt", "name": self.name, "source": self.source, "epsilon": fmt(self.epsilon),
                "sensitivity": fmt(self.sensitivity), "threshold": fmt(self.threshold), "family": self.family,
                "threshold_scale": fmt(self.threshold_scale), "top_scale": fmt(self.top_scale),
                "middle_scale": fmt(self.middle_scale), "sigma": fmt(self.sigma) + ("·√2" if self.sigma_sqrt2 else ""),
                "initial_cost": fmt(self.initial_cost), "top_cost": fmt(self.top_cost), "middle_cost": fmt(self.middle_cost),
                "budget": fmt(self.budget), "top_release": self.top_release.value, "claimed": self.claimed}
