"""Short Markdown views of the results, for Jupyter (``_repr_markdown_``).

Each result type's ``_repr_markdown_`` calls one function here, so that a
notebook cell ending in a result shows its verdict, its main numbers and its
witness in a few lines instead of a dataclass dump.  The text is built only
from what the result holds (its fields and ``to_json()``); nothing is
recomputed.  `family_table_markdown` gives the same view for a list of family
rows (``IPython.display.Markdown(family_table_markdown(rows))``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import mpmath

from verify.exact import fmt
from verify.mechanism import output_name

#: Significant digits of the numbers shown (the results keep all of theirs).
SHOWN_DIGITS = 8


def cell(value: Any) -> str:
    """A table cell: Markdown's ``|`` escaped, line breaks removed.

    >>> cell("a|b\\nc")
    'a\\\\|b c'
    """
    return " ".join(str(value).split()).replace("|", "\\|")


def markdown_table(head: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A Markdown table (GitHub / Jupyter syntax).

    >>> print(markdown_table(["x", "y"], [[1, "a"]]))
    | x | y |
    |---|---|
    | 1 | a |
    """
    lines = ["| " + " | ".join(cell(h) for h in head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(cell(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def number(x: Any, digits: int = SHOWN_DIGITS) -> str:
    """An mpf, float, Fraction or numeric string at ``digits`` significant digits (``inf`` as ∞)."""
    if x is None:
        return "none"
    if isinstance(x, str):
        if x in ("inf", "+inf"):
            return "∞"
        try:
            x = mpmath.mpf(x)
        except (ValueError, TypeError):
            return x
    with mpmath.workdps(digits + 5):
        v = mpmath.mpf(x.numerator) / x.denominator if hasattr(x, "denominator") else mpmath.mpf(x)
        return "∞" if mpmath.isinf(v) and v > 0 else "-∞" if mpmath.isinf(v) else mpmath.nstr(v, digits)


def _pair(queries: Sequence[Any], neighbour: Sequence[Any]) -> str:
    return f"q(D) = ({', '.join(fmt(x) for x in queries)}), q(D') = ({', '.join(fmt(x) for x in neighbour)})"


def worst_case_markdown(res: Any) -> str:
    """`verify.worstcase.WorstCaseResult` or `verify.family.worstcase.FamilyWorstCase`: verdict, loss, bound, witness."""
    mech = getattr(res, "mechanism", None) or res.shape
    bound = res.upper_bound
    w = res.witness
    if hasattr(w, "describe"):
        where = w.describe()
    else:

        where = f"{_pair(w.queries, w.neighbour_queries)}, output {output_name(w.output, len(w.queries))}"
    row = [number(res.loss), number(res.loss_over_epsilon), "none" if bound is None else fmt(bound.value),
           "yes" if res.unbounded else "no", res.tightness or "not studied"]
    return (f"**Worst case** of `{cell(mech.describe())}`: **{res.verdict}**\n\n"
            + markdown_table(["loss found (nats)", "loss/ε", "proven bound", "unbounded", "tightness"], [row])
            + f"\n\nwitness: {cell(where)}")


def _family_cells(row: Any) -> list[str]:
    j = row.to_json()
    return [row.name, "∞" if row.cutoff is None else str(row.cutoff), j["verdict"], number(j["loss_over_epsilon"], 6),
            j["upper_bound_over_epsilon"] or "none", "yes" if j["unbounded"] else "no", j["tightness"]]


_FAMILY_HEAD = ["variant", "cutoff", "verdict", "loss/ε", "bound/ε", "unbounded", "tightness"]


def family_row_markdown(row: Any) -> str:
    """One `verify.family.table.FamilyRow`: its line of the family table and its witness."""
    return markdown_table(_FAMILY_HEAD, [_family_cells(row)]) + f"\n\nwitness: {cell(row.result.witness.describe())}"


def family_table_markdown(rows: Sequence[Any]) -> str:
    """A list of `verify.family.table.FamilyRow` (what `verify.family.table.family_table` returns) as one table."""
    return markdown_table(_FAMILY_HEAD, [_family_cells(r) for r in rows])


def delta_markdown(res: Any) -> str:
    """`verify.family.delta.DeltaResult`: δ(ε′) of the pair, a lower bound on the mechanism's δ, and the RDP bound."""
    j = res.to_json()
    text = (f"**δ(ε′ = {j['epsilon_prime']}) = {number(j['delta'])}** (exact for this pair: a lower bound on the "
            f"mechanism's δ) at {_pair(res.queries, res.neighbour)}; largest term: output {cell(j['largest_term_output'])}")
    if j["rdp_delta_upper_bound"] is not None:
        text += f"\n\nRényi-DP upper bound (Zhu & Wang 2020, Thm 8): δ ≤ {j['rdp_delta_upper_bound']} (α = {j['rdp_alpha']})"
    return text


def audit_markdown(res: Any) -> str:
    """`verify.audit.AuditResult`: verdict, the tests' size and power, each pair's test, the fitted law."""
    rows = [[f"{p.pair.label} ({p.pair.kind})", "rejected (confirmed)" if p.confirmed else
             "rejected" if p.rejected else "not rejected", number(min(t.p_value for t in p.tests), 3),
             number(p.exact_loss, 6)] for p in res.pairs]
    text = (f"**Audit** of `{cell(res.implementation)}` against `{cell(res.claimed.describe())}`: **{res.verdict}**"
            + (" (interrupted)" if res.interrupted else "")
            + f"\n\n{res.samples_per_side:,} runs per side, {res.tests} tests at false-alarm rate {res.false_alarm} "
            f"(Bonferroni), power {res.power:.2f} at total variation {res.detectable_tv:.3g}\n\n"
            + markdown_table(["pair", "test", "smallest p-value", "exact loss"], rows))
    if res.fit is not None:
        text += f"\n\nfit: {cell(res.fit.sentence(res.claimed))}"
    return text


def claim_verdict_markdown(v: Any) -> str:
    """`proofs.claim.Verdict`: the claim's ID, its verdict, the method and the evidence in one or two lines."""
    e = v.evidence
    facts = [f"{e.points} points" if e.points else "", f"min margin {e.min_margin}" if e.min_margin is not None else "",
             f"max discrepancy {e.max_discrepancy}" if e.max_discrepancy is not None else ""]
    text = f"**{cell(v.claim_id)}**: **{v.verdict}** by {cell(v.method)}"
    if any(facts):
        text += f" ({', '.join(f for f in facts if f)})"
    cx = e.counterexample
    if cx is not None:
        params = ", ".join(f"{k} = {val}" for k, val in cx.params)
        text += (f"\n\ncounterexample {cell(params)}: lhs {cell(cx.lhs)}, rhs {cell(cx.rhs)} "
                 f"({'confirmed' if cx.confirmed else 'NOT confirmed'} to {cx.digits} digits)")
    return text


def ratio_markdown(rep: Any) -> str:
    """`verify.ratio.RatioReport`: both probabilities of each output, the ratio's log and the bound ε."""

    rows = [[output_name(o.output, len(rep.queries)), number(o.probability), number(o.neighbour_probability), number(o.log_ratio),
             "= ε (at the bound)" if o.at_bound else "yes" if o.within_bounds else "**NO**"] for o in rep.outputs]
    return (f"**Privacy ratio** of `{cell(rep.mechanism.describe())}` at {_pair(rep.queries, rep.neighbour_queries)} "
            f"({rep.digits} digits; ε = {fmt(rep.mechanism.epsilon)})\n\n"
            + markdown_table(["output", "Pr[A(D) = s]", "Pr[A(D') = s]", "log ratio", "|log ratio| ≤ ε"], rows))
