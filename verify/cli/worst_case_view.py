"""One view of a worst-case result for the ``worst-case`` command: the same JSON keys and the same printer for
every variant.

The search runs on one engine (`verify.family.worstcase.family_worst_case`); for the seed's AboveThreshold named
without family flags, `verify.worstcase.worst_case` returns that result in the seed's terms (a
`WorstCaseResult`: outputs s_i and ⊤^k, a confirmed loss for s_k and ⊤^k at every k, the push study), otherwise
it is a `FamilyWorstCase`.  `view` reads either into a `WorstCaseView`; `json_of` gives every key of both
(null or empty where a result has no such value: `COMMON_KEYS`) and `print_view` is the one printer.  Numbers are
the results' own; outcomes are written as the outcome string with the seed's alias
(`verify.mechanism.output_name`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import mpmath

from verify.exact import fmt
from verify.family.result import FamilyWorstCase
from verify.mechanism import output_name
from verify.worstcase import WorstCaseResult

#: The top-level JSON keys of ``svt-verify worst-case --json``, whatever the variant.
COMMON_KEYS = (
    "mechanism", "variant", "epsilon", "monotone", "max_queries", "verdict", "loss", "loss_over_epsilon",
    "upper_bound", "upper_bound_exact", "upper_bound_formula", "upper_bound_source", "no_bound_reason",
    "unbounded", "unbounded_evidence", "tightness", "tightness_evidence", "witness", "search_domain",
    "loss_by_k", "loss_by_k_float64_search", "push_family", "loss_by_push", "notes", "seconds",
)


@dataclass(frozen=True)
class WorstCaseView:
    """What the printer shows and the JSON holds, read from either result type."""

    json: dict[str, Any]
    loss_text: str
    witness_text: str


def view(res: FamilyWorstCase | WorstCaseResult, mech, max_queries: int) -> WorstCaseView:
    """The common view of ``res`` (found for ``mech`` with ``max_queries``)."""
    j = res.to_json()
    ub = res.upper_bound
    if isinstance(res, WorstCaseResult):
        w = res.witness
        extra = {"variant": mech.describe(), "monotone": False, "max_queries": max_queries,
                 "upper_bound_formula": None if ub is None else ub.formula, "no_bound_reason": None,
                 "loss_by_k_float64_search": {}, "search_domain": None}
        with mpmath.workdps(40):
            loss = f"{mpmath.nstr(res.loss, 20)} nats = {mpmath.nstr(res.loss_over_epsilon, 12)}·ε"
        pair = (f"q(D) = ({', '.join(fmt(x) for x in w.queries)}), q(D') = ({', '.join(fmt(x) for x in w.neighbour_queries)}), "
                f"output {output_name(w.output, len(w.queries))}")
    else:
        extra = {"mechanism": mech.to_json(), "upper_bound_exact": j["upper_bound"], "loss_by_k": [],
                 "push_family": res.push_family,
                 "loss_by_push": [{"k": k, "push": fmt(p), "loss": mpmath.nstr(v, 30)} for k, p, v in res.push]}
        loss = f"{j['loss']} nats = {j['loss_over_epsilon']}·ε"
        pair = res.witness.describe()
    j = {**j, **extra}
    j = {k: j[k] for k in COMMON_KEYS} | {k: v for k, v in j.items() if k not in COMMON_KEYS}
    return WorstCaseView(j, loss, f"{pair}, log ratio ({j['witness']['digits']} digits) {j['witness']['log_ratio']}")


def json_of(v: WorstCaseView) -> dict[str, Any]:
    """The JSON object (`COMMON_KEYS`, in that order)."""
    return v.json


def print_view(v: WorstCaseView) -> None:
    """The one text report of ``worst-case``."""
    j = v.json
    print(j["variant"])
    print(f"verdict: {j['verdict']}")
    print(f"loss found: {v.loss_text}")
    print(f"  witness: {v.witness_text}")
    if j["upper_bound_exact"] is None:
        print("proven upper bound: none" + (f" ({j['no_bound_reason']})" if j["no_bound_reason"] else ""))
    else:
        print(f"proven upper bound: {j['upper_bound_exact']} nats ({j['upper_bound_formula']}; {j['upper_bound_source']})")
    print(f"unbounded: {'yes: ' + j['unbounded_evidence'] if j['unbounded'] else 'no evidence'}")
    if j["search_domain"] is not None:
        print(f"searched: {j['search_domain']}")
    if j["loss_by_k"]:
        print("loss by k (s_k, ⊤^k): " + "; ".join(f"{r['k']}: {_short(r['loss_s_k'])}, {_short(r['loss_top_k'])}"
                                                    for r in j["loss_by_k"]))
    if j["loss_by_k_float64_search"]:
        print("loss by k (float64 search): " + "; ".join(f"{k}: {_short(x)}" for k, x in j["loss_by_k_float64_search"].items()))
    if j["tightness"]:
        print(f"tightness: {j['tightness']}: {j['tightness_evidence']}")
    for note in j["notes"]:
        print(f"note: {note}")


def _short(x) -> str:
    return x if isinstance(x, str) else f"{x:.6g}"
