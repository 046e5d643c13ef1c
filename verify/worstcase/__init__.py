"""Worst-case privacy loss of an AboveThreshold variant, with a verdict.

The loss of a pair of neighbouring query vectors and an output s is
|log Pr[A(D)=s] - log Pr[A(D')=s]| (seed, "Privacy Guarantee"); the variant is
ε-DP for the outputs s_1.., ⊤^k exactly when its supremum over k, queries,
neighbours and outputs is <= ε.

Modules: `family` (the structured family's probabilities by log-space
quadrature on the noise kernel `verify.noise.Noise.log_pdf/log_cdf/log_sf`: the
search objective), `search` (candidate families, optimisers, exact
confirmation), `decision` (`worst_case`: the search over k, the verdict,
unboundedness), `tightness` (attained / approached / loose), `results` (frozen
results and their JSON).  The proven upper bounds behind the verdict
``private`` live with the certification engine, `verify.certify.bounds`.
"""

from verify.certify.bounds import ProvenBound, proven_upper_bound
from verify.worstcase.decision import worst_case
from verify.worstcase.family import family_log_probability, family_log_ratio
from verify.worstcase.results import DEFAULT_DIGITS, VIOLATION_DIGITS, KRow, LossWitness, WorstCaseResult
from verify.worstcase.search import SHIFT_PATTERNS

__all__ = [
    "DEFAULT_DIGITS", "SHIFT_PATTERNS", "VIOLATION_DIGITS", "KRow", "LossWitness", "ProvenBound", "WorstCaseResult",
    "family_log_probability", "family_log_ratio", "proven_upper_bound", "worst_case",
]
