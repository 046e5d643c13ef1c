"""Helpers shared by the claim modules: building claims and verdicts."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

import mpmath

from proofs.claim import _STRENGTH, HOLDS, Claim, Counterexample, Evidence, Verdict, weakest
from proofs.registry import link_verdicts, register

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
    checker: Callable[..., Verdict],
    *,
    explicit: bool = True,
    hypotheses: tuple[str, ...] = (),
    quantifiers: tuple[str, ...] = (),
    lhs: Any = None,
    rhs: Any = None,
    relation: str = "",
    links: tuple[str, ...] = (),
    mechanism: str = "",
    parameters: tuple[tuple[str, str], ...] = (),
    corrects: str = "",
) -> Claim:
    """Create and register a claim (sides default to `proofs.sides.SIDES`)."""
    if lhs is None and rhs is None:
        from proofs.sides import SIDES

        lhs, rhs = SIDES.get(id, (None, None))
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


def refuted_or_undecided(claim_id: str, method: str, cx: Counterexample, evidence: dict[str, Any]) -> Verdict:
    """``refuted`` if the counterexample is confirmed, else ``undecided`` (never a pass)."""
    if cx.confirmed:
        return Verdict(claim_id, "refuted", method, Evidence(counterexample=cx, **evidence))
    notes = tuple(evidence.pop("notes", ())) + ("a candidate counterexample was found but not confirmed at 30 digits",)
    return Verdict(claim_id, "undecided", method, Evidence(counterexample=cx, notes=notes, **evidence))


def conclusion(claim_id: str, links: tuple[str, ...], own: Verdict | None) -> Verdict:
    """A chained claim's verdict.

    ``own`` is a direct check of the whole statement (or None).  If it fails
    (refuted/undecided) that is the verdict.  Otherwise, when every link holds,
    the chain gives the weakest link's verdict, and the result is the stronger
    of the chain's and the direct check's; when a link fails, only the direct
    check speaks.  The link verdicts go into the evidence.
    """
    lv = link_verdicts(links)
    link_v = [v for _, v in lv]
    chain_v = weakest(link_v) if link_v and all(v in HOLDS for v in link_v) else None
    ev = own.evidence if own is not None else Evidence()
    evidence = Evidence(
        points=ev.points,
        grid=ev.grid,
        digits=ev.digits,
        min_margin=ev.min_margin,
        margin_unit=ev.margin_unit,
        max_discrepancy=ev.max_discrepancy,
        counterexample=ev.counterexample,
        links=lv,
        notes=ev.notes,
    )
    if own is not None and own.verdict in ("refuted", "undecided"):
        return Verdict(claim_id, own.verdict, own.method, evidence)
    if own is None:
        if chain_v is None:
            return Verdict(claim_id, "undecided", "a link does not hold and there is no direct check", evidence)
        return Verdict(claim_id, chain_v, f"chain of its links (weakest: {chain_v})", evidence)
    if chain_v is not None and _STRENGTH[chain_v] > _STRENGTH[own.verdict]:
        return Verdict(claim_id, chain_v, f"chain of its links (weakest: {chain_v}); directly: {own.method}", evidence)
    return Verdict(claim_id, own.verdict, own.method, evidence)

def theorem_conclusion(claim_id: str, theorem_id: str, links: tuple[str, ...], note: str, params: dict[str, Any]) -> Verdict:
    """A proof's final claim: the theorem's own check (``theorem_id``) as its
    direct evidence, combined with the chain of ``links`` (`conclusion`);
    at a user's point (``params``) only the direct check."""
    from proofs.registry import get_claim

    thm = get_claim(theorem_id).check(**params) if params else get_claim(theorem_id).check()
    ev = thm.evidence
    own = Verdict(claim_id, thm.verdict, f"the theorem's own check ({theorem_id}): {thm.method}", Evidence(
        points=ev.points, grid=ev.grid, digits=ev.digits, min_margin=ev.min_margin,
        margin_unit=ev.margin_unit, counterexample=ev.counterexample, notes=ev.notes + (note,),
    ))
    return own if params else conclusion(claim_id, links, own)


def frac(x: Any) -> Fraction:
    from verify.exact import to_fraction

    return to_fraction(x)


def mp_exp(x: Any) -> mpmath.mpf:
    return mpmath.exp(x)
