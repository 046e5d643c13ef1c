"""Adaptive SVT presets, each read from its source (docs/adaptive.md).

CheckDP (cmla-psu/checkdp at commit 01e31ae, ``examples/adaptivesparsevector.c``; Δ = 1 there, the
parameter ``NN`` is the k below):
  * ``eta_1 = Lap(2 / epsilon)`` (line 8): threshold Lap(2Δ/ε);
  * ``cost = epsilon * NN * 2`` (line 11): c₀ = 2kε;
  * ``eta_3 = Lap(8 * NN / epsilon)`` (line 15), top test ``>= 16`` (line 17; "here sqrt(2) is
    approximated to be 2", line 16), release ``q[i] + eta_3 - T_bar`` (line 19), ``cost + epsilon`` (line 20);
  * ``eta_2 = Lap(4 * NN / epsilon)`` (line 23), test ``>= 0`` (line 24), release the gap (line 25),
    ``cost + 2 * epsilon`` (line 26); below releases 0 (line 30);
  * halt ``if (cost > 4 * NN * epsilon - 2 * epsilon)`` (line 35): B = (4k − 2)ε.
``examples/badadaptivesparsevector.c`` is the same program with ``CHECKDP_OUTPUT(q[i] + eta_3)``
(line 20, "INCORRECT: outputting noisy query") and ``-100`` for below (line 31).

The paper's parameters (``adaptive-svt-gap``): with the budget split θ = 1/2 as in the authors' code
(cmla-psu/freegap ``freegap/adaptivesvt.py`` at commit 28b5344: ``epsilon_0 = allocate_x * epsilon``,
``epsilon_1 = allocate_y * epsilon / (2.0 * k)``, ``epsilon_2 = allocate_y * epsilon / k``, noises
``Lap(2/epsilon_1)`` for the top test and ``Lap(2/epsilon_2)`` for the middle one, costs ε₁ and ε₂, loop
``while cost <= epsilon - epsilon_2``): ε₀ = ε/2, ε₁ = ε/(4k), ε₂ = ε/(2k), so the same noises as CheckDP's
and CheckDP's costs divided by 4k (the same halting rule).  σ: CheckDP's comment says its 16 replaces √2
by 2, i.e. σ = 8√2 at ε = 1, k = 1: √2·(2/ε₁) = 8√2·kΔ/ε, one standard deviation of the top noise
(the authors' later code uses twice that, ``4 * np.sqrt(2) / epsilon_1``).  The PVLDB text itself was
not available to this project: the σ of this preset is CheckDP's reading, cited as such.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from verify.adaptive.model import AdaptiveSVT, TopRelease
from verify.errors import InputError
from verify.validate import integer_in

_CHECKDP = "cmla-psu/checkdp@01e31ae examples/"
_PAPER = ("Ding, Wang, Zhang, Kifer, Free Gap Information from the Differentially Private Sparse Vector and Noisy "
          "Max Mechanisms, PVLDB 13(3) 2019 (Adaptive Sparse Vector with Gap, θ = 1/2; σ = √2·2/ε₁ as CheckDP reads it)")
#: Largest k (CheckDP's NN) a preset takes.
MAX_K = 20


def _k(k: object) -> int:
    return integer_in(k, "k (CheckDP's NN: the number of above answers the budget is sized for)", 1, MAX_K)


def checkdp_adaptive(epsilon: object = 1, sensitivity: object = 1, threshold: object = 0, k: object = 1,
                     top_release: TopRelease = TopRelease.GAP) -> AdaptiveSVT:
    """CheckDP's ``adaptivesparsevector.c`` (σ = 16 absolute, as the program writes it)."""
    k = _k(k)
    bad = TopRelease(top_release) is TopRelease.VALUE
    name = "checkdp-bad-adaptive-svt" if bad else "checkdp-adaptive-svt"
    src = (f"{_CHECKDP}badadaptivesparsevector.c:8-36 (top releases q[i] + eta_3, line 20)" if bad
           else f"{_CHECKDP}adaptivesparsevector.c:8-35")
    return AdaptiveSVT(epsilon, sensitivity, threshold, Fraction(2), Fraction(8 * k), Fraction(4 * k), Fraction(16),
                       Fraction(2 * k), Fraction(1), Fraction(2), Fraction(4 * k - 2), top_release=top_release,
                       name=name, source=src,
                       claimed="ε-DP (CheckDP: counterexample)" if bad else "ε-DP (CheckDP: proved)")


def checkdp_bad_adaptive(epsilon: object = 1, sensitivity: object = 1, threshold: object = 0, k: object = 1) -> AdaptiveSVT:
    """CheckDP's ``badadaptivesparsevector.c``: TOP releases the noisy query q_i + ξ_i."""
    return checkdp_adaptive(epsilon, sensitivity, threshold, k, TopRelease.VALUE)


def paper_adaptive(epsilon: object = 1, sensitivity: object = 1, threshold: object = 0, k: object = 1) -> AdaptiveSVT:
    """The paper's parameters (θ = 1/2): ε₀ = ε/2, ε₁ = ε/(4k), ε₂ = ε/(2k), σ = 8√2·kΔ/ε."""
    k = _k(k)
    return AdaptiveSVT(epsilon, sensitivity, threshold, Fraction(2), Fraction(8 * k), Fraction(4 * k), Fraction(8 * k),
                       Fraction(1, 2), Fraction(1, 4 * k), Fraction(1, 2 * k), 1 - Fraction(1, 2 * k),
                       sigma_sqrt2=True, name="adaptive-svt-gap", source=_PAPER, claimed="ε-DP (the paper's theorem)")


@dataclass(frozen=True)
class AdaptivePreset:
    name: str
    summary: str
    build: Callable[..., AdaptiveSVT]


_LIST = (
    AdaptivePreset("checkdp-adaptive-svt", "CheckDP's adaptivesparsevector.c (σ = 16)", checkdp_adaptive),
    AdaptivePreset("checkdp-bad-adaptive-svt", "CheckDP's badadaptivesparsevector.c (top releases q_i + ξ_i)",
                   checkdp_bad_adaptive),
    AdaptivePreset("adaptive-svt-gap", "Ding et al. 2019's Adaptive SVT with Gap, θ = 1/2, σ = 8√2·kΔ/ε", paper_adaptive),
)
ADAPTIVE_PRESETS: dict[str, AdaptivePreset] = {p.name: p for p in _LIST}
ADAPTIVE_NAMES: tuple[str, ...] = tuple(ADAPTIVE_PRESETS)


def adaptive_preset(name: str, epsilon: object = 1, sensitivity: object = 1, threshold: object = 0,
                    k: object = 1) -> AdaptiveSVT:
    """The preset ``name`` at ε, Δ, t and k.

    >>> adaptive_preset("checkdp-adaptive-svt").budget
    Fraction(2, 1)
    """
    if name not in ADAPTIVE_PRESETS:
        raise InputError(f"variant: {name!r} is not an Adaptive SVT preset ({', '.join(ADAPTIVE_NAMES)})")
    return ADAPTIVE_PRESETS[name].build(epsilon, sensitivity, threshold, k)


def is_adaptive_preset(name: object) -> bool:
    return isinstance(name, str) and name in ADAPTIVE_PRESETS
