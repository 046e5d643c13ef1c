"""svt-verify: exact numerical verification of AboveThreshold's privacy proofs.

Layers, each depending only on those before it:
noise -> mechanism -> probabilities -> ratio -> checker -> CLI.
"""

from verify.errors import InputError
from verify.mechanism import NO_HALT, AboveThreshold
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
]
