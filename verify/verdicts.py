"""The project's one vocabulary of verdicts, and the evidence behind them.

Every verdict svt-verify prints is a member of one of the enums below; no other
module writes a verdict as a bare string.  The enums are ``StrEnum`` so that a
verdict serialises to (and compares equal with) its documented word, e.g.
``ClaimVerdict.PROVED == "proved"`` and ``json.dumps`` gives ``"proved"``.

What each word means is defined in ``docs/verdicts.md``; in short (STYLE: "a
verifier says how it knows"):

* a **claim** (a step of the seed's proofs) is ``proved`` (every step symbolic,
  or an exhaustive case analysis over a finite, stated set of cases that
  provably covers all inputs), ``certified`` (rigorous interval enclosures),
  ``consistent`` (numerical checks at stated precision and points, nothing
  violated), ``undecided`` (could not decide; never a pass) or ``refuted`` (a
  counterexample confirmed at high precision);
* a **mechanism** is ``private`` (a proven upper bound <= ε), ``not_private``
  (a witness confirmed at high precision exceeds ε) or ``undecided``;
* a **sweep** over a grid is ``consistent`` (nothing violated at the grid's
  points), ``refuted`` (a violation confirmed at high precision) or
  ``refuted_float64`` (float64 screening flagged a violation that the
  high-precision confirmation was not asked to, or could not, confirm: a lead,
  not a refutation);
* a **certificate** of `verify.certify` is ``certified``, ``refuted`` or
  ``undecided``; each of its steps has a `StepStatus`;
* the **tightness** of a worst-case bound is ``attained``, ``approached``,
  ``loose`` or ``exceeded``;
* an **audit** of an implementation ``matches`` its claimed law, ``deviates``
  (a rejection confirmed on fresh seeds) or is ``undecided``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class ClaimVerdict(StrEnum):
    """The verdict on one claim of the seed (`proofs.claim.Claim.check`)."""

    PROVED = "proved"
    CERTIFIED = "certified"
    CONSISTENT = "consistent"
    UNDECIDED = "undecided"
    REFUTED = "refuted"

    @property
    def strength(self) -> int:
        """Strongest first: proved 4, certified 3, consistent 2, undecided 1, refuted 0."""
        return _CLAIM_STRENGTH[self]

    @property
    def holds(self) -> bool:
        """Whether the claim holds as far as the project can tell (proved, certified or consistent)."""
        return self.strength >= 2


_CLAIM_STRENGTH = {
    ClaimVerdict.PROVED: 4,
    ClaimVerdict.CERTIFIED: 3,
    ClaimVerdict.CONSISTENT: 2,
    ClaimVerdict.UNDECIDED: 1,
    ClaimVerdict.REFUTED: 0,
}

#: Claim verdicts in the order reports list them (strongest first).
CLAIM_VERDICT_ORDER: tuple[ClaimVerdict, ...] = tuple(sorted(ClaimVerdict, key=lambda v: -v.strength))


def claim_verdict(value: str) -> ClaimVerdict:
    """The `ClaimVerdict` named ``value``; ``ValueError`` naming the allowed words otherwise.

    >>> claim_verdict("proved")
    <ClaimVerdict.PROVED: 'proved'>
    """
    try:
        return ClaimVerdict(value)
    except ValueError:
        raise ValueError(f"verdict: {value!r} is not one of {', '.join(ClaimVerdict)}") from None


def weakest(verdicts: Iterable[str]) -> ClaimVerdict:
    """The weakest of several claim verdicts: a chain is as strong as its weakest link.

    >>> weakest(["proved", "consistent", "certified"])
    <ClaimVerdict.CONSISTENT: 'consistent'>
    """
    vs = [claim_verdict(v) for v in verdicts]
    if not vs:
        raise ValueError("weakest(): no verdicts given")
    return min(vs, key=lambda v: v.strength)


class MechanismVerdict(StrEnum):
    """Whether a mechanism is ε-differentially private (`verify.worstcase`)."""

    PRIVATE = "private"
    NOT_PRIVATE = "not_private"
    UNDECIDED = "undecided"


class SweepVerdict(StrEnum):
    """The outcome of a grid sweep (`verify.sweep`); a grid is never a proof."""

    CONSISTENT = "consistent"
    REFUTED = "refuted"
    REFUTED_FLOAT64 = "refuted_float64"


class CertificateVerdict(StrEnum):
    """The outcome of a rigorous certification (`verify.certify`)."""

    CERTIFIED = "certified"
    REFUTED = "refuted"
    UNDECIDED = "undecided"


class StepStatus(StrEnum):
    """How one step of a certificate was settled.

    ``by_hand``: a pen-and-paper derivation (written out in the docs, e.g. a derivative's sign, a change of
    variables, the mean value theorem) that no engine checked; a claim resting on such a step is at most
    ``consistent`` (docs/verdicts.md, "One rule")."""

    EXACT = "exact"
    BY_HAND = "by_hand"
    SYMBOLIC = "symbolic"
    CERTIFIED = "certified"
    REFUTED = "refuted"
    UNDECIDED = "undecided"


class AuditVerdict(StrEnum):
    """Whether an implementation samples the law it claims (`verify.audit`; docs/audit.md)."""

    MATCHES = "matches"
    DEVIATES = "deviates"
    UNDECIDED = "undecided"


class Tightness(StrEnum):
    """How a worst-case loss relates to ε: reached, approached in a limit, far from it, or above it."""

    ATTAINED = "attained"
    APPROACHED = "approached"
    LOOSE = "loose"
    EXCEEDED = "exceeded"


@dataclass(frozen=True)
class Counterexample:
    """A point where a statement fails, with its values at high precision.

    One type for `proofs/` (a claim's two sides) and `verify/` (a certificate's
    witness).  ``params`` are the parameter values as exact strings that parse
    back to the checked values (``verify.exact.parse_number``); ``lhs``/``rhs``
    the two sides as decimal strings and ``relation`` the relation asserted
    between them (``=``, ``<=``, ``>=``, ``in``) where the statement has two
    sides; ``digits`` the precision at which the values were confirmed;
    ``confirmed`` whether that confirmation succeeded; ``detail`` a sentence
    saying what fails.
    """

    params: tuple[tuple[str, str], ...]
    digits: int
    confirmed: bool = True
    lhs: str | None = None
    rhs: str | None = None
    relation: str | None = None
    detail: str = ""

    def __post_init__(self) -> None:
        if self.digits < 1:
            raise ValueError(f"counterexample digits: {self.digits} must be >= 1")

    @property
    def values(self) -> dict[str, str]:
        """The parameters as a dict (name -> exact string)."""
        return dict(self.params)

    def as_dict(self) -> dict[str, Any]:
        return {
            "params": dict(self.params),
            "lhs": self.lhs,
            "rhs": self.rhs,
            "relation": self.relation,
            "digits": self.digits,
            "confirmed": self.confirmed,
            "detail": self.detail,
        }


@dataclass(frozen=True)
class Evidence:
    """What was checked: points, precision, margins, counterexample, notes.

    ``min_margin`` is the smallest margin seen for an inequality (how far the
    worst point stayed from a violation, in the units named in ``margin_unit``);
    ``max_discrepancy`` the largest |lhs - rhs| seen for an equality; ``links``
    the (claim ID, verdict) pairs a chain rests on; ``by_hand`` the steps of the derivation applied by
    hand (no engine checked them), which make the verdict at most ``consistent``.
    """

    points: int = 0
    grid: str = ""
    digits: int | None = None
    min_margin: str | None = None
    margin_unit: str = ""
    max_discrepancy: str | None = None
    counterexample: Counterexample | None = None
    links: tuple[tuple[str, str], ...] = ()
    notes: tuple[str, ...] = ()
    by_hand: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "points": self.points,
            "grid": self.grid,
            "digits": self.digits,
            "min_margin": self.min_margin,
            "margin_unit": self.margin_unit,
            "max_discrepancy": self.max_discrepancy,
            "counterexample": None if self.counterexample is None else self.counterexample.as_dict(),
            "links": [{"id": i, "verdict": str(v)} for i, v in self.links],
            "notes": list(self.notes),
            "by_hand": list(self.by_hand),
        }
