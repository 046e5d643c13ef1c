"""Worst-case privacy loss of the seed's AboveThreshold, with a verdict.

The loss of a pair of neighbouring query vectors and an output s is
|log Pr[A(D)=s] - log Pr[A(D')=s]| (seed, "Privacy Guarantee"); the variant is
ε-DP for the outputs s_1.., ⊤^k exactly when its supremum over k, queries,
neighbours and outputs is <= ε.

The search, the decision rule, the guard and the tightness study are the
family's (`verify.family.worstcase`), which serves every variant; the proven
bounds are `verify.family.bounds` (`proven_upper_bound` here is its seed-named view).
Modules: `decision` (`worst_case`: the family's result in the seed's terms) and
`results` (frozen results and their JSON).
"""

from verify.family.bounds import ProvenBound
from verify.worstcase.decision import proven_upper_bound, worst_case
from verify.worstcase.results import DEFAULT_DIGITS, VIOLATION_DIGITS, KRow, LossWitness, WorstCaseResult

__all__ = [
    "DEFAULT_DIGITS", "VIOLATION_DIGITS", "KRow", "LossWitness", "ProvenBound", "WorstCaseResult", "proven_upper_bound",
    "worst_case",
]
