"""Claims and verdicts: one step of the seed's proofs and how it was checked.

A `Claim` is one statement of the seed (``../shared/seed/above-threshold.txt``):
its stable ID, the seed's own text (verbatim fragments of the seed's LaTeX,
``seed_fragments``), the statement in LaTeX (for an explicit claim the seed's
fragments joined by the relation the seed writes; for an inference the text
leaves implicit, the project's formalisation, marked ``explicit=False``), its
hypotheses and quantifiers, the sympy expressions of its sides where it has
them, and a named justification.  ``check(**params)`` returns a `Verdict`.

Verdicts, strongest first (STYLE: "a verifier says how it knows"):

* ``proved``: sympy shows it for every value its hypotheses allow;
* ``certified``: rigorous interval enclosures (the certification engine);
* ``consistent``: floating-point checks at a stated precision over stated
  points found no violation;
* ``undecided``: could not decide (never a pass);
* ``refuted``: a counterexample, both sides confirmed at >= 30 digits.
"""

from __future__ import annotations

import html
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

VERDICTS: tuple[str, ...] = ("proved", "certified", "consistent", "undecided", "refuted")
#: Verdicts under which a claim holds as far as the project can tell.
HOLDS: frozenset[str] = frozenset({"proved", "certified", "consistent"})
#: Digits at which a counterexample must be confirmed.
CONFIRM_DIGITS = 30

_STRENGTH = {"proved": 4, "certified": 3, "consistent": 2, "undecided": 1, "refuted": 0}


def weakest(verdicts: list[str] | tuple[str, ...]) -> str:
    """The weakest of several verdicts (a chain is as strong as its weakest link)."""
    if not verdicts:
        raise ValueError("weakest(): no verdicts given")
    for v in verdicts:
        if v not in _STRENGTH:
            raise ValueError(f"verdict: {v!r} is not one of {', '.join(VERDICTS)}")
    return min(verdicts, key=_STRENGTH.__getitem__)


@dataclass(frozen=True)
class Counterexample:
    """A point where a claim fails, with both sides at high precision.

    ``params`` are the parameter values (exact strings), ``lhs``/``rhs`` the two
    sides as decimal strings, ``relation`` the relation the claim asserts
    between them (``=``, ``<=``, ``>=``, ``in``), ``digits`` the precision at
    which the sides were confirmed (two evaluations at different working
    precisions agreeing to that many significant digits), ``confirmed``
    whether that confirmation succeeded.
    """

    params: tuple[tuple[str, str], ...]
    lhs: str
    rhs: str
    relation: str
    digits: int
    confirmed: bool
    detail: str = ""

    def __post_init__(self) -> None:
        if self.digits < 1:
            raise ValueError(f"counterexample digits: {self.digits} must be >= 1")

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
    ``max_discrepancy`` the largest |lhs - rhs| seen for an equality.
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

    def as_dict(self) -> dict[str, Any]:
        return {
            "points": self.points,
            "grid": self.grid,
            "digits": self.digits,
            "min_margin": self.min_margin,
            "margin_unit": self.margin_unit,
            "max_discrepancy": self.max_discrepancy,
            "counterexample": None if self.counterexample is None else self.counterexample.as_dict(),
            "links": [{"id": i, "verdict": v} for i, v in self.links],
            "notes": list(self.notes),
        }


@dataclass(frozen=True)
class Verdict:
    """The outcome of checking one claim."""

    claim_id: str
    verdict: str
    method: str
    evidence: Evidence = field(default_factory=Evidence)

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict: {self.verdict!r} is not one of {', '.join(VERDICTS)}")
        if self.verdict == "refuted":
            cx = self.evidence.counterexample
            if cx is None:
                raise ValueError(f"{self.claim_id}: a refuted verdict needs a counterexample")
        if not self.method:
            raise ValueError(f"{self.claim_id}: a verdict needs a method")

    @property
    def holds(self) -> bool:
        return self.verdict in HOLDS

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.claim_id, "verdict": self.verdict, "method": self.method, "evidence": self.evidence.as_dict()}


Checker = Callable[..., Verdict]


@dataclass(frozen=True)
class Claim:
    """One claim of the seed.

    Parameters
    ----------
    id: stable ID (``P1.chain.3``; links ``.1``, ``.2``; ``.M1``/``.M2`` for the
        mechanism; ``.corrected`` for the project's corrected statement).
    title: a short name.
    section: the seed's section ("Proof 1", "Utility Guarantee", ...).
    latex: the statement in LaTeX.
    seed_fragments: verbatim substrings of the seed that make up (or, for an
        implicit claim, imply) the statement; tests check that each occurs in
        the seed.
    explicit: True if ``latex`` is the seed's own statement (fragments joined by
        the seed's relation), False if it formalises an inference the text leaves
        implicit, or is not in the seed at all.
    hypotheses, quantifiers: what the claim assumes and what its variables range over.
    justification: the named reason the seed gives or relies on.
    lhs, rhs, relation: sympy expressions of the sides where the claim has them.
    links: IDs of the claims a conclusion is chained from.
    mechanism: "M1", "M2" or "" (both / neither).
    parameters: names accepted by ``check(**params)`` with their meaning.
    checker: the function behind ``check``.
    """

    id: str
    title: str
    section: str
    latex: str
    seed_fragments: tuple[str, ...]
    explicit: bool
    hypotheses: tuple[str, ...]
    quantifiers: tuple[str, ...]
    justification: str
    checker: Checker = field(compare=False, repr=False)
    lhs: Any = None
    rhs: Any = None
    relation: str = ""
    links: tuple[str, ...] = ()
    mechanism: str = ""
    parameters: tuple[tuple[str, str], ...] = ()
    corrects: str = ""

    def __post_init__(self) -> None:
        if not self.id or " " in self.id:
            raise ValueError(f"claim id: {self.id!r} must be a non-empty string without spaces")
        if self.mechanism not in ("", "M1", "M2"):
            raise ValueError(f"{self.id}: mechanism {self.mechanism!r} is not '', 'M1' or 'M2'")
        if self.explicit and not self.seed_fragments:
            raise ValueError(f"{self.id}: an explicit claim needs the seed's fragments")
        if not self.justification:
            raise ValueError(f"{self.id}: a claim needs a named justification")

    def check(self, **params: Any) -> Verdict:
        """Check the claim: with no arguments over its default grid (cached per
        process), with parameter values at that point only."""
        known = {name for name, _ in self.parameters}
        unknown = sorted(set(params) - known)
        if unknown:
            raise ValueError(
                f"{self.id}: unknown parameter(s) {', '.join(unknown)}; accepted: {', '.join(sorted(known)) or 'none'}"
            )
        if not params:
            from proofs.registry import cached_check

            return cached_check(self)
        verdict = self.checker(**params)
        if verdict.claim_id != self.id:
            raise RuntimeError(f"{self.id}: checker returned a verdict for {verdict.claim_id}")
        return verdict

    # --- display ---------------------------------------------------------------------------
    def _repr_latex_(self) -> str:
        v = self.check()
        ident = self.id.replace("_", "\\_")
        return f"$\\textbf{{{ident}}}\\ (\\text{{{v.verdict}}}):\\quad {self.latex}$"

    def _repr_html_(self) -> str:
        v = self.check()
        colour = {"proved": "#1a7f37", "certified": "#1a7f37", "consistent": "#2f6f9f", "undecided": "#9a6700", "refuted": "#cf222e"}[v.verdict]
        cx = v.evidence.counterexample
        cx_html = ""
        if cx is not None:
            cx_html = (
                f"<div>counterexample {html.escape(', '.join(f'{k} = {val}' for k, val in cx.params))}: "
                f"lhs = {html.escape(cx.lhs)}, rhs = {html.escape(cx.rhs)} (confirmed to {cx.digits} digits: {cx.confirmed})</div>"
            )
        return (
            f"<div><b>{html.escape(self.id)}</b> {html.escape(self.title)} "
            f"<span style='color:{colour};font-weight:bold'>{v.verdict}</span>"
            f"<div>$${html.escape(self.latex)}$$</div>"
            f"<div><i>justification:</i> {html.escape(self.justification)}</div>"
            f"<div><i>method:</i> {html.escape(v.method)}</div>{cx_html}</div>"
        )

    def describe(self) -> str:
        """Plain-text summary (statement, hypotheses, justification)."""
        lines = [f"{self.id}: {self.title} [{self.section}]", f"  statement: {self.latex}"]
        if not self.explicit:
            lines.append("  (the seed leaves this implicit; formalised by the project)")
        for h in self.hypotheses:
            lines.append(f"  hypothesis: {h}")
        for q in self.quantifiers:
            lines.append(f"  for: {q}")
        lines.append(f"  justification: {self.justification}")
        return "\n".join(lines)
