"""The builders of the discrete members of the SVT family, each with its source.

They are registered in the one preset registry, `verify.family.presets.PRESETS` (so
``verify.family.preset("sampcert-above-threshold")``, ``--variant`` and ``family --rows`` name them).

==========================  =================  =====================  ======  =======
preset                      threshold noise Z  query noise X_i        cutoff  compare
==========================  =================  =====================  ======  =======
sampcert-above-threshold    DLap(2Δ/ε)         DLap(4Δ/ε)             1       ge
dlap-seed-m1                DLap(3Δ/ε)         DLap(3Δ/ε)             1       ge
dlap-lyu-1                  DLap(2Δ/ε)         DLap(4cΔ/ε)            c       ge
dgauss-above-threshold      DN(σ_Z)            DN(σ_X)                1       ge
==========================  =================  =====================  ======  =======

SampCert (leanprover/SampCert, ``SampCert/DifferentialPrivacy/Queries/AboveThresh/Code.lean``;
the issue names it ``.../AboveThresh/Code.lean``): ``privNoiseThresh ε₁ ε₂ =
privNoiseZero ε₁ (2 * sens_cov_τ * ε₂)`` with ``sens_cov_τ = 1`` and
``privNoiseGuess ε₁ ε₂ = privNoiseZero ε₁ (2 * sens_cov_vk * ε₂)`` with
``sens_cov_vk = sens_cov_τ + 1 = 2``; in the pure-DP system the noise is
``DiscreteLaplaceGenSamplePMF (Δ * ε₂) ε₁`` (``Pure/Mechanism/Code.lean``,
``privNoisedQueryPure``, here with Δ = 1), the discrete Laplace law of scale
``Δ·ε₂/ε₁``.  With ``ε = ε₁/ε₂`` that is Z ~ DLap(2/ε), X_i ~ DLap(4/ε); the loop
continues while ``qs i l + v_i < τ + T`` and stops at the first ``>=`` (the
comparison ``ge``), returning the index: cutoff 1.  Its queries are integer
valued with sensitivity 1.

Each builder takes ``compare=`` (``ge`` or ``gt``) so that a tie-rule variant is
one argument away.
"""

from __future__ import annotations

from fractions import Fraction

from verify.errors import InputError
from verify.exact import to_fraction
from verify.mechanism import SparseVector, check_cutoff
from verify.noise import NoiseSpec

SAMPCERT = ("leanprover/SampCert, SampCert/DifferentialPrivacy/Queries/AboveThresh/Code.lean (privNoiseThresh, "
            "privNoiseGuess, the test qs i l + v_i < τ + T) with Pure/Mechanism/Code.lean (DiscreteLaplaceGenSamplePMF)")
CKS = "Canonne, Kamath, Steinke, The Discrete Gaussian for Differential Privacy, NeurIPS 2020"


def _dlap(m: Fraction | int) -> NoiseSpec:
    return NoiseSpec("discrete-laplace", multiplier=Fraction(m))


def sampcert_above_threshold(epsilon: object = 1, sensitivity: object = 1, threshold: object = 0, cutoff: int | None = 1,
                             compare: str = "ge") -> SparseVector:
    """SampCert's AboveThreshold (module docstring): Z ~ DLap(2Δ/ε), X_i ~ DLap(4Δ/ε), ``>=``, cutoff 1."""
    return SparseVector(epsilon, sensitivity, threshold, _dlap(2), _dlap(4), cutoff=cutoff, compare=compare,
                        name="sampcert-above-threshold", source=SAMPCERT)


def dlap_seed_m1(epsilon: object = 1, sensitivity: object = 1, threshold: object = 0, cutoff: int | None = 1,
                 compare: str = "ge") -> SparseVector:
    """The seed's Mechanism One with discrete Laplace noise: Z, X_i ~ DLap(3Δ/ε)."""
    return SparseVector(epsilon, sensitivity, threshold, _dlap(3), _dlap(3), cutoff=cutoff, compare=compare,
                        name="dlap-seed-m1", source=f"seed, 'Mechanism One', with the two-sided geometric law ({CKS})")


def dlap_lyu_1(epsilon: object = 1, sensitivity: object = 1, threshold: object = 0, cutoff: int = 1,
               compare: str = "ge") -> SparseVector:
    """Lyu, Su, Li 2017, Algorithm 1 with discrete Laplace noise: Z ~ DLap(2Δ/ε), X_i ~ DLap(4cΔ/ε)."""
    c = check_cutoff(cutoff)
    if c is None:
        raise InputError("cutoff: dlap-lyu-1's noise scales grow with the cutoff c; give an integer c >= 1, not unlimited")
    return SparseVector(epsilon, sensitivity, threshold, _dlap(2), _dlap(4 * c), cutoff=c, compare=compare, name="dlap-lyu-1",
                        source="Lyu, Su, Li, PVLDB 10(6) 2017, Algorithm 1, with the two-sided geometric law")


def dgauss_above_threshold(epsilon: object = 1, sensitivity: object = 1, threshold: object = 0, cutoff: int | None = 1,
                           compare: str = "ge", threshold_sigma: object = 2, query_sigma: object = 4) -> SparseVector:
    """AboveThreshold with discrete Gaussian noise (Canonne, Kamath, Steinke 2020): Z ~ DN(σ_Z Δ/ε),
    X_i ~ DN(σ_X Δ/ε); σ multiples default to 2 and 4 (dwork-roth's Laplace scales, not a calibration:
    no pure ε holds for Gaussian noise)."""
    z = NoiseSpec("discrete-gaussian", multiplier=to_fraction(threshold_sigma, "threshold σ"))
    x = NoiseSpec("discrete-gaussian", multiplier=to_fraction(query_sigma, "query σ"))
    return SparseVector(epsilon, sensitivity, threshold, z, x, cutoff=cutoff, compare=compare,
                        name="dgauss-above-threshold", source=f"{CKS} (discrete Gaussian) in Algorithm A")
