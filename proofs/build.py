"""Helpers shared by the claim modules: building claims and verdicts."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from fractions import Fraction
from typing import Any

import mpmath

from proofs.claim import Claim, ClaimVerdict, Counterexample, Evidence, Outcome, weakest
from proofs.registry import get_claim, link_verdicts, register

#: Parameters of the conditional-probability claims (see `proofs.numerics.Point`).
COND_PARAMS: tuple[tuple[str, str], ...] = (
    ("eps", "ε > 0"),
    ("delta", "Δ > 0"),
    ("t", "threshold t"),
    ("M", "M(D, x_{i-1}) (omit or '-inf' for i = 1)"),
    ("q", "q_i(D)"),
    ("Mp", "M(D', x_{i-1}) (default M)"),
    ("qp", "q_i(D') (default q)"),
)
COND_QUANTIFIERS: tuple[str, ...] = (
    "ε > 0, Δ > 0, t ∈ ℝ",
    "i ∈ ℕ⁺ and x_{i-1} ∈ ℝ^{i-1}, entering only through M(D, x_{i-1}) ∈ ℝ ∪ {-∞} (-∞ for i = 1)",
    "q_i(D) ∈ ℝ",
)
NEIGHBOUR_QUANTIFIERS: tuple[str, ...] = (
    *COND_QUANTIFIERS,
    "D ∼ D': |q_j(D) - q_j(D')| <= Δ for every j, hence |M(D,x) - M(D',x)| <= Δ and |q_i(D) - q_i(D')| <= Δ",
)


def claim(
    id: str,
    title: str,
    section: str,
    latex: str,
    fragments: tuple[str, ...],
    justification: str,
    checker: Callable[..., Outcome],
    *,
    explicit: bool = True,
    hypotheses: tuple[str, ...] = (),
    quantifiers: tuple[str, ...] = (),
    sides: tuple[Any, Any] | None = None,
    relation: str = "",
    links: tuple[str, ...] = (),
    mechanism: str = "",
    parameters: tuple[tuple[str, str], ...] = (),
    corrects: str = "",
) -> Claim:
    """Create and register a claim; ``sides`` are the sympy expressions (lhs, rhs) of its two sides."""
    lhs, rhs = sides if sides is not None else (None, None)
    return register(
        Claim(
            id=id,
            title=title,
            section=section,
            latex=latex,
            seed_fragments=fragments,
            explicit=explicit,
            hypotheses=hypotheses,
            quantifiers=quantifiers,
            justification=justification,
            checker=checker,
            lhs=lhs,
            rhs=rhs,
            relation=relation,
            links=links,
            mechanism=mechanism,
            parameters=parameters,
            corrects=corrects,
        )
    )


def link(a: str, rel: str, b: str) -> str:
    """The LaTeX of one link ``a rel b`` of a chained display."""
    return f"{a.rstrip(',. ')} {rel} {b.rstrip(',. ')}"


def refuted_or_undecided(method: str, cx: Counterexample, evidence: dict[str, Any]) -> Outcome:
    """``refuted`` if the counterexample is confirmed, else ``undecided`` (never a pass)."""
    if cx.confirmed:
        return Outcome(ClaimVerdict.REFUTED, method, Evidence(counterexample=cx, **evidence))
    notes = tuple(evidence.pop("notes", ())) + ("a candidate counterexample was found but not confirmed at 30 digits",)
    return Outcome(ClaimVerdict.UNDECIDED, method, Evidence(counterexample=cx, notes=notes, **evidence))


def case_outcome(analysis: Any, evidence: Evidence, *, contradicted: str, proved: str, fallback: str) -> Outcome:
    """A claim resting on a case analysis (`proofs.case_analysis.CaseAnalysis`): ``undecided`` if the
    corroborating points contradict it (``contradicted`` says how; "" if they agree), ``proved`` only if every
    case is certified, else ``consistent`` on the corroboration alone, naming the cases not certified."""
    if contradicted:
        return Outcome(ClaimVerdict.UNDECIDED, contradicted, evidence)
    if analysis.proved:
        return Outcome(ClaimVerdict.PROVED, proved, evidence)
    return Outcome(ClaimVerdict.CONSISTENT, f"{fallback} (cases {', '.join(analysis.failed)} not certified)", evidence)


def on_certificate(by_hand: tuple[str, ...], method: str, evidence: dict[str, Any]) -> Outcome:
    """A claim whose machine-checked part is a certified enclosure: ``certified`` only when no step of the
    argument was applied by hand; otherwise ``consistent``, the steps by hand named in the method and
    recorded in ``evidence.by_hand`` (docs/verdicts.md, "One rule")."""
    if not by_hand:
        return Outcome(ClaimVerdict.CERTIFIED, method, Evidence(**evidence))
    names = "; ".join(h.split(":", 1)[0] if ":" in h[:40] else h[:60] for h in by_hand)
    return Outcome(ClaimVerdict.CONSISTENT, f"{method}; not machine-checked, applied by hand: {names}",
                   Evidence(**{**evidence, "by_hand": tuple(evidence.get("by_hand", ())) + tuple(by_hand)}))


def with_notes(out: Outcome, *notes: str) -> Outcome:
    """The same outcome with notes appended to its evidence."""
    return Outcome(out.verdict, out.method, replace(out.evidence, notes=out.evidence.notes + notes))


def conclusion(links: tuple[str, ...], own: Outcome | None) -> Outcome:
    """A chained claim's outcome: the weakest of its steps (docs/verdicts.md, "One rule").

    ``own`` is a direct check of the whole statement (or None).  If it fails
    (refuted/undecided) that is the verdict.  When every link holds, the
    verdict is the weakest of the links' and the direct check's (a conclusion
    is never stronger than a step it rests on).  When a link fails (the seed's
    chain is broken there), only the direct check speaks, and with no direct
    check the conclusion is undecided.  The link verdicts go into the evidence.
    """
    lv = link_verdicts(links)
    link_v = [v for _, v in lv]
    chain_v = weakest(link_v) if link_v and all(v.holds for v in link_v) else None
    evidence = replace(own.evidence if own is not None else Evidence(), links=lv)
    if own is not None and not own.verdict.holds:
        return Outcome(own.verdict, own.method, evidence)
    if own is None:
        if chain_v is None:
            return Outcome(ClaimVerdict.UNDECIDED, "a link does not hold and there is no direct check", evidence)
        return Outcome(chain_v, f"chain of its links (weakest: {chain_v})", evidence)
    if chain_v is not None and chain_v.strength < own.verdict.strength:
        return Outcome(chain_v, f"chain of its links (weakest: {chain_v}), weaker than the direct check ({own.method})", evidence)
    return Outcome(own.verdict, own.method, evidence)


def theorem_conclusion(theorem_id: str, links: tuple[str, ...], note: str, params: dict[str, Any]) -> Outcome:
    """A proof's final claim: the theorem's own check (``theorem_id``) as its
    direct evidence, combined with the chain of ``links`` (`conclusion`);
    at a user's point (``params``) only the direct check."""
    thm = get_claim(theorem_id).check(**params)
    own = Outcome(thm.verdict, f"the theorem's own check ({theorem_id}): {thm.method}",
                  replace(thm.evidence, max_discrepancy=None, links=(), notes=thm.evidence.notes + (note,)))
    return own if params else conclusion(links, own)


def frac(x: Any) -> Fraction:
    from verify.exact import to_fraction

    return to_fraction(x)


def mp_exp(x: Any) -> mpmath.mpf:
    return mpmath.exp(x)
