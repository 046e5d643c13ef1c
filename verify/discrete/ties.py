"""The tie rule: does ``>`` instead of ``>=`` (or a threshold off by one) change the privacy of discrete SVT?

Finding: **no variant of the family can fail (or pass) because of it.**  With
integer queries and threshold, for integer noise,

    q_i + X_i > t + Z   ⇔   q_i + X_i >= (t + 1) + Z   ⇔   (q_i - 1) + X_i >= t + Z,

so for every outcome s (any cutoff, threshold policy, noise family)

    Pr_gt[s | q; t] = Pr_ge[s | q; t + 1] = Pr_ge[s | q - 1; t]        (1 = (1, ..., 1)).

The map ``q -> q - 1`` is a bijection of ℤ^k that keeps ``|q_i - q'_i|`` unchanged, so
it maps neighbouring pairs onto neighbouring pairs, and the privacy loss
``sup_{q ~ q'} |log Pr[s|q] / Pr[s|q']|`` is the same number for ``gt`` as for ``ge``,
and for threshold ``t`` as for ``t ± 1`` (indeed for any per-query offsets
fixed in advance).  The output *law* does change — a tie's mass moves from A
to B — and a seeded simulation sees it at a tie-heavy point; the *loss* does
not.  The argument needs the adversary's queries to range over all of ℤ^k:
on a bounded query domain (say counts in [0, n]) the shift leaves the domain,
and the two rules may differ at its edge.

`tie_rule_study` checks this numerically on the same pairs: the exhaustive search of
`verify.discrete.search` for ``ge`` at threshold t and for ``gt`` at threshold t - 1, both
on the one box of query vectors ``q - t ∈ [-W, W]^k`` (the ``gt`` box centred on t, not on
its own threshold), gives the same largest loss and the same witness pair, since
``Pr_gt[s | q; t - 1] = Pr_ge[s | q; t]`` at every q of the box; while the outcome
probabilities at a tie point differ (``ge`` and ``gt`` at the same threshold t).  Reproduce with
``python -m verify.discrete.ties``.  (Searching ``gt`` on a box centred on its own threshold
t - 1 would cover ``ge``'s box shifted by one: at 2 queries the maxima still agree, by a
reflection symmetry, but at 3 they do not, e.g. 0.73429 vs 0.72963 for SampCert, W = 6.)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import mpmath

from verify.discrete.probability import mp_probability
from verify.discrete.search import search_worst_case
from verify.family.presets import preset


@dataclass(frozen=True)
class TieStudy:
    """Largest searched loss under ``ge`` and ``gt`` (50 digits) on the same pairs, the pairs that attain them,
    and the law's change at a tie point."""

    mechanism: str
    loss_ge: mpmath.mpf
    loss_gt: mpmath.mpf
    pair_ge: tuple[tuple[int, ...], tuple[int, ...], str]
    pair_gt: tuple[tuple[int, ...], tuple[int, ...], str]
    tie_point: tuple[int, ...]
    law_ge: dict[str, mpmath.mpf]
    law_gt: dict[str, mpmath.mpf]

    def lines(self) -> list[str]:
        out = [f"{self.mechanism}: largest loss found  ge {mpmath.nstr(self.loss_ge, 25)}  gt {mpmath.nstr(self.loss_gt, 25)}"]
        for s in self.law_ge:
            out.append(f"    Pr[{s} | q = {list(self.tie_point)}]  ge {mpmath.nstr(self.law_ge[s], 12)}  gt {mpmath.nstr(self.law_gt[s], 12)}")
        return out


def tie_rule_study(mech: Any, max_queries: int = 2, width: int = 6) -> TieStudy:
    """The two searches of the module docstring, on the same box of pairs, and the law at ``q = (t, ..., t)``
    (every query tied)."""
    t = mech.threshold.numerator
    ge = mech.with_changes(compare="ge")
    gt = mech.with_changes(compare="gt", threshold=mech.threshold - 1)  # Pr_gt[s | q; t - 1] = Pr_ge[s | q; t]
    found_ge = search_worst_case(ge, max_queries, width, centre=t)
    found_gt = search_worst_case(gt, max_queries, width, centre=t)  # the same box as ge's, not centred on t - 1
    loss_ge, loss_gt = found_ge.loss_confirmed, found_gt.loss_confirmed
    pair_ge, pair_gt = ((f.queries, f.neighbour, f.outcome) for f in (found_ge, found_gt))
    point = (t,) * max_queries
    law_ge = {s: mp_probability(ge, list(point), s, digits=30) for s in ge.outputs(max_queries)}
    gt_here = mech.with_changes(compare="gt")
    law_gt = {s: mp_probability(gt_here, list(point), s, digits=30) for s in gt_here.outputs(max_queries)}
    return TieStudy(mech.name, loss_ge, loss_gt, pair_ge, pair_gt, point, law_ge, law_gt)


def main() -> None:  # pragma: no cover - the reproduction command
    for name in ("sampcert-above-threshold", "dlap-seed-m1", "dgauss-above-threshold"):
        for line in tie_rule_study(preset(name)).lines():
            print(line)


if __name__ == "__main__":  # pragma: no cover
    main()
