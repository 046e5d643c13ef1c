"""svt-verify: exact numerical verification of AboveThreshold's privacy proofs.

Layers, each depending only on those before it:
noise -> mechanism -> engine -> probabilities -> ratio -> checker -> CLI (checked on every import by
tests/test_architecture_layers.py; the table is in docs/architecture.md).

The public API, importable from ``verify`` (docs/api.md is generated from these docstrings):

- the seed's mechanism: `AboveThreshold` (`AboveThreshold.mechanism_one`, `AboveThreshold.mechanism_two`),
  `Noise`, `NoiseSpec`, `NO_HALT`; its exact output probabilities `distribution`, `mp_distribution`,
  `symbolic_distribution`, `arb_distribution`, `fast_log_distribution`, `probability`, the proofs'
  conditional probabilities `mp_conditional`, `symbolic_conditional`, and the privacy ratio `privacy_ratio`;
- the SVT family: `SparseVector` (one model for every variant: cutoff, threshold policy, release),
  `preset` / `PRESETS` / `PRESET_NAMES` (named variants with their sources), `ThresholdPolicy`, `Release`,
  `ABOVE`, `BELOW`; exact probabilities of an outcome string `mp_probability`, `symbolic_probability`,
  `arb_probability`, `family_fast_log_probability`, and the seeded sampler `sample`;
- worst case: `worst_case` (the seed's mechanism, `WorstCaseResult`) and `family_worst_case`
  (any variant, `FamilyWorstCase`), each with a verdict, a witness confirmed at 50 digits and, where
  one is proven, an upper bound;
- approximate DP: `exact_delta` (δ(ε′) of a pair of neighbours) and `worst_delta` (the largest over the
  search's pairs), results `DeltaResult`; `epsilon_for_delta` and `worst_epsilon_for_delta` (the smallest
  ε′ with δ(ε′) <= D), results `EpsilonResult`;
- auditing an implementation: `audit_implementation` (`verify.audit.audit`: samples a user's implementation at the pairs that matter and tests
  its frequencies against the exact law, `AuditResult`), `assert_implements` (one line for a test suite),
  and the adapters `from_stream`, `from_vector`;
- `InputError`, raised for every invalid value (one line naming the value and the rule).

Every name is imported on first use (PEP 562 module ``__getattr__``, below): ``import verify`` itself
takes milliseconds, so the command line answers ``--version`` and Ctrl-C (exit 130) before numpy,
sympy and mpmath are loaded.  A new public area
(for instance an audit of a user's mechanism) adds its names to `_LAZY` and a section to docs/api.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from verify.lazy import lazy_exports

if TYPE_CHECKING:  # the names of _LAZY, for type checkers and documentation tools
    from verify.audit import AuditResult, assert_implements, from_stream, from_vector
    from verify.audit import audit as audit_implementation
    from verify.errors import InputError
    from verify.family.delta import (
        DeltaResult,
        EpsilonResult,
        epsilon_for_delta,
        exact_delta,
        worst_delta,
        worst_epsilon_for_delta,
    )
    from verify.family.fast_api import fast_log_probability as family_fast_log_probability
    from verify.family.presets import NAMES as PRESET_NAMES
    from verify.family.presets import PRESETS, preset
    from verify.family.probability import arb_probability, mp_probability, symbolic_probability
    from verify.family.sampler import sample
    from verify.family.worstcase import FamilyWorstCase, family_worst_case
    from verify.mechanism import ABOVE, BELOW, NO_HALT, AboveThreshold, Release, SparseVector, ThresholdPolicy
    from verify.noise import Noise, NoiseSpec
    from verify.probabilities import (
        arb_distribution,
        distribution,
        fast_log_distribution,
        mp_conditional,
        mp_distribution,
        probability,
        symbolic_conditional,
        symbolic_distribution,
    )
    from verify.ratio import privacy_ratio
    from verify.worstcase import WorstCaseResult, worst_case

#: Public name -> (module, attribute), imported on first access.
_LAZY: dict[str, tuple[str, str]] = {
    # the seed's mechanism and its probabilities
    "InputError": ("verify.errors", "InputError"),
    "NO_HALT": ("verify.mechanism", "NO_HALT"),
    "AboveThreshold": ("verify.mechanism", "AboveThreshold"),
    "Noise": ("verify.noise", "Noise"),
    "NoiseSpec": ("verify.noise", "NoiseSpec"),
    "arb_distribution": ("verify.probabilities", "arb_distribution"),
    "distribution": ("verify.probabilities", "distribution"),
    "fast_log_distribution": ("verify.probabilities", "fast_log_distribution"),
    "mp_conditional": ("verify.probabilities", "mp_conditional"),
    "mp_distribution": ("verify.probabilities", "mp_distribution"),
    "probability": ("verify.probabilities", "probability"),
    "symbolic_conditional": ("verify.probabilities", "symbolic_conditional"),
    "symbolic_distribution": ("verify.probabilities", "symbolic_distribution"),
    "privacy_ratio": ("verify.ratio", "privacy_ratio"),
    # the SVT family
    "SparseVector": ("verify.mechanism", "SparseVector"),
    "ThresholdPolicy": ("verify.mechanism", "ThresholdPolicy"),
    "Release": ("verify.mechanism", "Release"),
    "ABOVE": ("verify.mechanism", "ABOVE"),
    "BELOW": ("verify.mechanism", "BELOW"),
    "preset": ("verify.family.presets", "preset"),
    "PRESETS": ("verify.family.presets", "PRESETS"),
    "PRESET_NAMES": ("verify.family.presets", "NAMES"),
    "mp_probability": ("verify.family.probability", "mp_probability"),
    "symbolic_probability": ("verify.family.probability", "symbolic_probability"),
    "arb_probability": ("verify.family.probability", "arb_probability"),
    "family_fast_log_probability": ("verify.family.fast_api", "fast_log_probability"),
    "sample": ("verify.family.sampler", "sample"),
    # worst case
    "worst_case": ("verify.worstcase", "worst_case"),
    "WorstCaseResult": ("verify.worstcase", "WorstCaseResult"),
    "family_worst_case": ("verify.family.worstcase", "family_worst_case"),
    "FamilyWorstCase": ("verify.family.worstcase", "FamilyWorstCase"),
    # approximate DP
    "exact_delta": ("verify.family.delta", "exact_delta"),
    "worst_delta": ("verify.family.delta_search", "worst_delta"),
    "DeltaResult": ("verify.family.delta", "DeltaResult"),
    "epsilon_for_delta": ("verify.family.delta", "epsilon_for_delta"),
    "worst_epsilon_for_delta": ("verify.family.delta_search", "worst_epsilon_for_delta"),
    "EpsilonResult": ("verify.family.delta", "EpsilonResult"),
    # auditing an implementation against the exact law
    "audit_implementation": ("verify.audit", "audit"),
    "assert_implements": ("verify.audit", "assert_implements"),
    "AuditResult": ("verify.audit", "AuditResult"),
    "from_stream": ("verify.audit", "from_stream"),
    "from_vector": ("verify.audit", "from_vector"),
}


__getattr__, __dir__ = lazy_exports(globals(), _LAZY)


#: Every public name: the eager ones above, then those of `_LAZY` (tests/test_docs_api.py checks the two agree).
__all__ = [
    "NO_HALT",
    "AboveThreshold",
    "arb_distribution",
    "InputError",
    "Noise",
    "NoiseSpec",
    "distribution",
    "fast_log_distribution",
    "mp_conditional",
    "mp_distribution",
    "privacy_ratio",
    "probability",
    "symbolic_conditional",
    "symbolic_distribution",
    # the SVT family
    "SparseVector",
    "ThresholdPolicy",
    "Release",
    "ABOVE",
    "BELOW",
    "preset",
    "PRESETS",
    "PRESET_NAMES",
    "mp_probability",
    "symbolic_probability",
    "arb_probability",
    "family_fast_log_probability",
    "sample",
    # worst case
    "worst_case",
    "WorstCaseResult",
    "family_worst_case",
    "FamilyWorstCase",
    # approximate DP
    "exact_delta",
    "worst_delta",
    "DeltaResult",
    "epsilon_for_delta",
    "worst_epsilon_for_delta",
    "EpsilonResult",
    # auditing an implementation (`verify.audit` is the package; its `audit` is exported under this name)
    "audit_implementation",
    "assert_implements",
    "AuditResult",
    "from_stream",
    "from_vector",
]
