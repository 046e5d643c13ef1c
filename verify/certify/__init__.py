"""Rigorous certification (ball arithmetic, python-flint ``arb``) of the seed proofs' key inequalities.

Public API (see docs/certify.md and the DEVNOTES section "Certification"):

* `certify_conditional_ratio(mech_or_spec, epsilon_range) -> Certificate`: the
  conditional inequality e^{-ε} <= Pr[A(D)=s_i | x] / Pr[A(D')=s_i | x] <= e^{ε}
  that both proofs reduce to, for every real input, every neighbour and every ε
  in the range.
* `certify_factor_bounds(mech_or_spec, epsilon_range) -> FactorBounds`: the
  density, survival and CDF ratio bounds the proofs compare pointwise.

Results are frozen dataclasses with a verdict (certified / refuted /
undecided), the method, the number of boxes, the minimum margin (nats) and a
counterexample confirmed at 50 digits when refuted.
"""

from verify.certify import conditional, factors
from verify.certify.conditional import certify_conditional_ratio
from verify.certify.factors import FactorBounds, NoiseFactors, certify_factor_bounds
from verify.certify.results import (
    DEFAULT_EPSILON_RANGE,
    Certificate,
    CertifySpec,
    ProofStep,
    SearchSummary,
    counterexample_json,
)
from verify.verdicts import Counterexample


def clear_caches() -> None:
    """Forget the cached 1-D searches (benchmarks time a cold run)."""
    conditional.clear_caches()
    factors.clear_caches()


__all__ = [
    "DEFAULT_EPSILON_RANGE",
    "Certificate",
    "CertifySpec",
    "Counterexample",
    "FactorBounds",
    "NoiseFactors",
    "ProofStep",
    "SearchSummary",
    "certify_conditional_ratio",
    "certify_factor_bounds",
    "counterexample_json",
    "clear_caches",
]
