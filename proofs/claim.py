"""Claims and verdicts: one step of the seed's proofs and how it was checked.

A `Claim` is one statement of the seed (``../shared/seed/above-threshold.txt``):
its stable ID, the seed's own text (verbatim fragments of the seed's LaTeX,
``seed_fragments``), the statement in LaTeX (for an explicit claim the seed's
fragments joined by the relation the seed writes; for an inference the text
leaves implicit, the project's formalisation, marked ``explicit=False``), its
hypotheses and quantifiers, the sympy expressions of its two sides where it
has them (declared with the claim), and a named justification.

A claim's checker returns an `Outcome` (verdict, method, evidence); the claim
adds its ID and ``check(**params)`` returns the `Verdict`.  The verdict words
and the `Counterexample` / `Evidence` types are the project's one vocabulary,
`verify.verdicts` (re-exported here); ``docs/verdicts.md`` defines each word.
An engine that fails (`proofs.engines.EngineFailure`: the certifier, sympy,
the checker's sweeps) makes the claim ``undecided`` with the reason.
"""

from __future__ import annotations

import html
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from proofs.engines import EngineFailure
from verify.verdicts import CLAIM_VERDICT_ORDER, ClaimVerdict, Counterexample, Evidence, claim_verdict, weakest

__all__ = [
    "CLAIM_VERDICT_ORDER",
    "CONFIRM_DIGITS",
    "Claim",
    "ClaimVerdict",
    "Counterexample",
    "Evidence",
    "Outcome",
    "Verdict",
    "clear_verdict_cache",
    "remember_verdicts",
    "weakest",
]

#: Digits at which a counterexample must be confirmed.
CONFIRM_DIGITS = 30


@dataclass(frozen=True)
class Outcome:
    """What a checker found: a verdict, the method behind it, and the evidence.

    The claim that ran the checker adds its ID (`Verdict`).  A ``refuted``
    outcome carries its counterexample.
    """

    verdict: ClaimVerdict
    method: str
    evidence: Evidence = field(default_factory=Evidence)

    def __post_init__(self) -> None:
        object.__setattr__(self, "verdict", claim_verdict(self.verdict))
        if self.verdict is ClaimVerdict.REFUTED and self.evidence.counterexample is None:
            raise ValueError("a refuted verdict needs a counterexample")
        if not self.method:
            raise ValueError("a verdict needs a method")
        if self.evidence.by_hand and self.verdict.strength > ClaimVerdict.CONSISTENT.strength:
            raise ValueError(f"a {self.verdict} verdict resting on steps applied by hand ({'; '.join(self.evidence.by_hand)}): "
                             "at most consistent (docs/verdicts.md)")

    @property
    def holds(self) -> bool:
        return self.verdict.holds


@dataclass(frozen=True)
class Verdict:
    """The outcome of checking one claim: the claim's ID and its checker's `Outcome`."""

    claim_id: str
    outcome: Outcome

    @property
    def verdict(self) -> ClaimVerdict:
        return self.outcome.verdict

    @property
    def method(self) -> str:
        return self.outcome.method

    @property
    def evidence(self) -> Evidence:
        return self.outcome.evidence

    @property
    def holds(self) -> bool:
        return self.outcome.holds

    def _repr_markdown_(self) -> str:
        from verify.notebook import claim_verdict_markdown

        return claim_verdict_markdown(self)

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.claim_id, "verdict": str(self.verdict), "method": self.method, "evidence": self.evidence.as_dict()}


Checker = Callable[..., Outcome]

_CACHE: dict[str, Verdict] = {}
_LOCK = threading.RLock()


def clear_verdict_cache() -> None:
    """Forget every cached default verdict."""
    with _LOCK:
        _CACHE.clear()


def remember_verdicts(verdicts: dict[str, Verdict]) -> None:
    """Take default verdicts computed elsewhere into the cache (the test suite computes the claims once per
    run and shares them between its worker processes, tests/run_cache.py)."""
    with _LOCK:
        _CACHE.update(verdicts)


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
    checker: the function behind ``check``; it returns an `Outcome`.
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
        if (self.lhs is None) != (self.rhs is None):
            raise ValueError(f"{self.id}: give both sides (lhs and rhs) or neither")

    def check(self, **params: Any) -> Verdict:
        """Check the claim: with no arguments over its default grid (cached per
        process), with parameter values at that point only."""
        known = {name for name, _ in self.parameters}
        unknown = sorted(set(params) - known)
        if unknown:
            raise ValueError(
                f"{self.id}: unknown parameter(s) {', '.join(unknown)}; accepted: {', '.join(sorted(known)) or 'none'}"
            )
        if params:
            return self._run(params)
        with _LOCK:
            if self.id not in _CACHE:
                _CACHE[self.id] = self._run({})
            return _CACHE[self.id]

    def _run(self, params: dict[str, Any]) -> Verdict:
        try:
            out = self.checker(**params)
        except EngineFailure as exc:
            out = Outcome(ClaimVerdict.UNDECIDED, f"an engine failed, so nothing is concluded: {exc}", Evidence(notes=(str(exc),)))
        if not isinstance(out, Outcome):
            raise TypeError(f"{self.id}: the checker returned {type(out).__name__}, not an Outcome")
        return Verdict(self.id, out)

    # --- display ---------------------------------------------------------------------------
    def _repr_latex_(self) -> str:
        v = self.check()
        ident = self.id.replace("_", "\\_")
        return f"$\\textbf{{{ident}}}\\ (\\text{{{v.verdict}}}):\\quad {self.latex}$"

    def _repr_html_(self) -> str:
        v = self.check()
        colour = _COLOURS[v.verdict]
        cx = v.evidence.counterexample
        cx_html = ""
        if cx is not None:
            cx_html = (
                f"<div>counterexample {html.escape(', '.join(f'{k} = {val}' for k, val in cx.params))}: "
                f"lhs = {html.escape(str(cx.lhs))}, rhs = {html.escape(str(cx.rhs))} (confirmed to {cx.digits} digits: {cx.confirmed})</div>"
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


_COLOURS = {
    ClaimVerdict.PROVED: "#1a7f37",
    ClaimVerdict.CERTIFIED: "#1a7f37",
    ClaimVerdict.CONSISTENT: "#2f6f9f",
    ClaimVerdict.UNDECIDED: "#9a6700",
    ClaimVerdict.REFUTED: "#cf222e",
}
