"""Seed, "Utility Guarantee": U.*, for both mechanisms (suffixes .M1, .M2).

The seed does not say which mechanism its utility section is about, so each
claim is checked for Mechanism One (Lap(3Δ/ε)) and Mechanism Two (Exp(3Δ/ε)).
With b = 3Δ/ε and L = ln((k+1)/β):

* the theorem: Pr[max empirical error > 6Δ/ε·L = 2bL] <= β;
* the tails: the seed claims Pr[|Z| >= 2Δ/ε·L] <= exp(2L) = β/(k+1); in fact
  Pr[|Z| >= c] = exp(-c/b) for both families, so Pr[|Z| >= 2Δ/ε·L] =
  (β/(k+1))^{2/3} > β/(k+1), and exp(2L) = ((k+1)/β)^2;
* the union bound: Pr[|Z| + max_i |X_i| >= 6Δ/ε·L] <= β holds, with the
  split at 3Δ/ε·L each (the corrected tails);
* the implicit step: the maximum empirical error is at most |Z| + max_i |X_i|.

Probabilities of the utility theorem are exact sums of output probabilities:
with the queries fixed, the empirical error of a run is a function of its
output (s_i: max{0, q_j - t} for j < i and max{0, t - q_i}; ⊤^k: max{0, q_j - t}).
"""

from __future__ import annotations

import sympy as sp

from proofs import expressions as E
from proofs import seed as S
from proofs.build import claim, conclusion, link
from proofs.claim import ClaimVerdict, Outcome
from proofs.registry import get_claim
from proofs.utility_checks import (
    BETA,
    K,
    check_error_bound,
    check_tail,
    check_tail_1,
    check_tail_2,
    check_tail_corrected,
    check_theorem,
    check_union,
    check_union_corrected,
)

SECTION = "Utility Guarantee"
FAMILIES = {"M1": "laplace", "M2": "exponential"}
DISTRIBUTION = {"laplace": "Laplace", "exponential": "exponential"}
UT_HYP = ("β ∈ (0, 1]", "k ∈ ℕ⁺ queries q_1, ..., q_k fixed in advance", "ε > 0, Δ > 0, t ∈ ℝ")
UT_QUANT = ("every k >= 1, β ∈ (0, 1], ε > 0, Δ > 0, t and queries",)


TAIL_PARAMS = (("k", "number of queries"), ("beta", "β"), ("eps", "ε (Δ = 1)"))

for tag, fam in FAMILIES.items():
    for var, frag in (("Z", S.U_TAIL_Z), ("X", S.U_TAIL_X)):
        base = f"U.tail_{var}.{tag}"
        lhs_name = "|Z|" if var == "Z" else "|X_i|"
        claim(
            f"{base}.1",
            f"tail of {lhs_name}, link 1",
            SECTION,
            link(frag, r"\le", S.U_EXP2),
            (frag, S.U_EXP2),
            f"tail of the {DISTRIBUTION[fam]} distribution",
            (lambda f, v: (lambda **p: check_tail_1(f, v, **p)))(fam, lhs_name),
            hypotheses=UT_HYP,
            quantifiers=UT_QUANT,
            sides=E.tail_sides(var, 2, sp.exp(2 * E.L)),
            relation="<=",
            mechanism=tag,
        )
        claim(
            f"{base}.2",
            f"tail of {lhs_name}, link 2",
            SECTION,
            link(S.U_EXP2, "=", S.U_BETA),
            (S.U_EXP2, S.U_BETA),
            "exp(2 ln x) evaluated",
            check_tail_2,
            hypotheses=UT_HYP,
            quantifiers=UT_QUANT,
            sides=(sp.exp(2 * E.L), BETA / (K + 1)),
            relation="=",
            mechanism=tag,
            parameters=(("k", "k"), ("beta", "β")),
        )
        claim(
            base,
            f"Pr[{lhs_name} >= 2Δ/ε·ln((k+1)/β)] <= β/(k+1)",
            SECTION,
            link(frag, r"\le", S.U_BETA),
            (frag, S.U_BETA),
            f"the links {base}.1-2",
            (lambda f, v, lk: (lambda **p: check_tail(f, v, **p) if p else conclusion(lk, check_tail(f, v))))(fam, var, (f"{base}.1", f"{base}.2")),
            hypotheses=UT_HYP,
            quantifiers=UT_QUANT,
            sides=E.tail_sides(var, 2, BETA / (K + 1)),
            relation="<=",
            links=(f"{base}.1", f"{base}.2"),
            mechanism=tag,
            parameters=TAIL_PARAMS,
        )
        claim(
            f"{base}.corrected",
            f"Pr[{lhs_name} >= 3Δ/ε·ln((k+1)/β)] = β/(k+1)",
            SECTION,
            (r"\Pr \left[ |Z| \ge \frac{3 \cdot \Delta}{\epsilon}\ln \frac{k + 1}{\beta} \right]" if var == "Z"
             else r"\Pr \left[ |X_i| \ge \frac{3 \cdot \Delta}{\epsilon}\ln \frac{k + 1}{\beta} \right]")
            + r" = \exp \left( - \ln \frac{k + 1}{\beta} \right) = \frac{\beta}{k + 1}",
            (frag,),
            "Pr[|X| >= c] = exp(-εc/3Δ) for Lap(3Δ/ε) and for Exp(3Δ/ε)",
            (lambda f: (lambda **p: check_tail_corrected(f, **p)))(fam),
            explicit=False,
            hypotheses=UT_HYP,
            quantifiers=UT_QUANT,
            sides=E.tail_sides(var, 3, BETA / (K + 1)),
            relation="=",
            mechanism=tag,
            corrects=base,
        )


def union_verdict(seed_links: tuple[str, ...], split_id: str, own: Outcome) -> Outcome:
    """The seed's union bound: its own links (the seed's tails) are refuted, so the verdict comes from the direct
    check, upgraded to proved when the project's derivation (`split_id`) is proved."""
    v = conclusion(seed_links, own)
    split = get_claim(split_id).check()
    if v.holds and split.verdict is ClaimVerdict.PROVED:
        return Outcome(ClaimVerdict.PROVED, f"proved by the project's derivation {split_id} (the seed's own tail bounds are refuted); "
                       f"directly: {v.method}", v.evidence)
    return v


for tag, fam in FAMILIES.items():
    claim(
        f"U.union.{tag}",
        "with probability at most β, |Z| + max|X_i| >= 6Δ/ε·ln((k+1)/β)",
        SECTION,
        r"\Pr \left[ " + S.U_UNION.rstrip(".") + r" \right] \le \beta",
        (S.U_UNION_INTRO, S.U_UNION),
        "union bound over the k + 1 tails",
        (lambda f, lk, sp_: (lambda **p: check_union(f, **p) if p else union_verdict(lk, sp_, check_union(f))))(
            fam, (f"U.tail_Z.{tag}", f"U.tail_X.{tag}"), f"U.union.{tag}.split"),
        explicit=False,
        hypotheses=UT_HYP,
        quantifiers=UT_QUANT,
        relation="<=",
        links=(f"U.tail_Z.{tag}", f"U.tail_X.{tag}"),
        mechanism=tag,
        parameters=(("k", "k"), ("beta", "β")),
    )
    claim(
        f"U.union.{tag}.split",
        "the union bound with the split at 3Δ/ε·ln((k+1)/β) (a valid derivation)",
        SECTION,
        r"\Pr \left[ |Z| + \max_{i \in [k]} |X_i| \ge \frac{6 \Delta}{\epsilon}\ln \frac{k + 1}{\beta} \right] \le "
        r"\Pr \left[ |Z| \ge \frac{3 \Delta}{\epsilon}\ln \frac{k + 1}{\beta} \right] + \sum_{i=1}^{k} \Pr \left[ |X_i| \ge \frac{3 \Delta}{\epsilon}\ln \frac{k + 1}{\beta} \right] = \beta",
        (S.U_UNION_INTRO, S.U_UNION),
        "union bound with the corrected tails U.tail_Z.*.corrected, U.tail_X.*.corrected",
        (lambda f: (lambda **p: check_union_corrected(f, **p)))(fam),
        explicit=False,
        hypotheses=UT_HYP,
        quantifiers=UT_QUANT,
        relation="<=",
        mechanism=tag,
        parameters=(("k", "k"), ("beta", "β")),
    )


for tag, fam in FAMILIES.items():
    claim(
        f"U.error_bound.{tag}",
        "the maximum empirical error is at most |Z| + max_i |X_i|",
        SECTION,
        r"\max\text{ empirical error} \le |Z| + \max_{i \in [k]} |X_i|",
        (S.ERROR_DEF, S.U_UNION),
        "the halting rule: each ⊤ and the ⊥ bound the query's distance to t by the two noises",
        (lambda f: (lambda **p: check_error_bound(f, **p)))(fam),
        explicit=False,
        hypotheses=("the run stops at the first ⊥ or after k queries",),
        quantifiers=("every run (every value of Z, X_1, ..., X_k)", "every t, q_1..q_k"),
        relation="<=",
        mechanism=tag,
    )


for tag, fam in FAMILIES.items():
    lk = (f"U.error_bound.{tag}", f"U.union.{tag}")
    claim(
        f"U.theorem.{tag}",
        f"utility of Mechanism {'One' if tag == 'M1' else 'Two'}",
        SECTION,
        r"\Pr\left[ \text{maximum empirical error} > " + S.U_BOUND.rstrip(".") + r" \right] \le \beta",
        (S.ERROR_DEF, S.U_THEOREM, S.U_BOUND),
        "U.error_bound and U.union",
        (lambda f, links: (lambda **p: conclusion(links, check_theorem(f, **p))))(fam, lk),
        explicit=False,
        hypotheses=UT_HYP,
        quantifiers=UT_QUANT,
        relation="<=",
        links=lk,
        mechanism=tag,
    )
