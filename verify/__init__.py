"""svt-verify: exact numerical verification of AboveThreshold's privacy proofs.

Layers, each depending only on those before it:
noise -> mechanism -> probabilities -> ratio -> checker -> CLI.

The public names below are loaded on first use (PEP 562 module ``__getattr__``): ``import verify``
itself takes milliseconds, so the command line can answer Ctrl-C (exit 130) and ``--version``
before numpy, sympy and mpmath are loaded.
"""

from __future__ import annotations

import importlib
from typing import Any

#: Each public name and the module that defines it.
_EXPORTS = {
    "InputError": "verify.errors",
    "NO_HALT": "verify.mechanism",
    "AboveThreshold": "verify.mechanism",
    "Noise": "verify.noise",
    "NoiseSpec": "verify.noise",
    "arb_distribution": "verify.probabilities",
    "distribution": "verify.probabilities",
    "fast_log_distribution": "verify.probabilities",
    "mp_conditional": "verify.probabilities",
    "mp_distribution": "verify.probabilities",
    "probability": "verify.probabilities",
    "symbolic_conditional": "verify.probabilities",
    "symbolic_distribution": "verify.probabilities",
    "privacy_ratio": "verify.ratio",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'verify' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
