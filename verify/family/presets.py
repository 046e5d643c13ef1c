"""Named members of the SVT family, each with its source.

Scales are multiples of Δ/ε (Δ the sensitivity), exactly as the sources write
them; ``c`` is the cutoff (the number of A's after which the run halts).

========================  =================  =====================  ========  ==========  ===========
preset                    threshold noise Z  query noise X_i        cutoff    threshold   release
========================  =================  =====================  ========  ==========  ===========
seed-m1                   Lap(3Δ/ε)          Lap(3Δ/ε)              1         shared      none
seed-m2                   Exp(3Δ/ε)          Exp(3Δ/ε)              1         shared      none
dwork-roth                Lap(2Δ/ε)          Lap(4Δ/ε)              1         shared      none
lyu-1                     Lap(2Δ/ε)          Lap(4cΔ/ε)             c         shared      none
lyu-2                     Lap(2cΔ/ε)         Lap(4cΔ/ε)             c         resample    none
lyu-3                     Lap(2Δ/ε)          Lap(2cΔ/ε)             c         shared      q_i + X_i
lyu-4                     Lap(4Δ/ε)          Lap(4Δ/(3ε))           c         shared      none
lyu-5                     Lap(2Δ/ε)          none                   unlimited shared      none
lyu-6                     Lap(2Δ/ε)          Lap(2Δ/ε)              unlimited shared      none
numeric-svt               Lap(3Δ/ε)          Lap(6cΔ/ε)             c         shared      q_i + Lap(3cΔ/ε)
gap-svt                   Lap(2Δ/ε)          Lap(4cΔ/ε)             c         shared      q_i + X_i - t̂
gaussian-svt              N(σ_Z)             N(σ_X)                 c         shared      none
sampcert-above-threshold  DLap(2Δ/ε)         DLap(4Δ/ε)             1         shared      none
dlap-seed-m1              DLap(3Δ/ε)         DLap(3Δ/ε)             1         shared      none
dlap-lyu-1                DLap(2Δ/ε)         DLap(4cΔ/ε)            c         shared      none
dgauss-above-threshold    DN(σ_Z)            DN(σ_X)                1         shared      none
========================  =================  =====================  ========  ==========  ===========

The last four have noise on the integers (builders and sources in `verify.discrete.presets`; each takes
``compare=`` too, ``ge`` by default): this is the one registry, so ``--variant``, ``family --rows`` and
`preset` name them as they name the others.

Lyu, Su and Li write ε₁ for the threshold's share and ε₂ = ε - ε₁ for the
queries'; the table resolves them (Algorithms 1-3, 5, 6: ε₁ = ε/2; Algorithm 4:
ε₁ = ε/4).  DP-Sniper's transcription (eth-sri/dp-sniper,
``dpsniper/mechanisms/sparse_vector_technique.py``) uses the same scales with Δ = 1.
Lyu et al. (Section 4) find Algorithms 1 and 2 ε-DP, Algorithm 4 only
((1 + 6c)/4)ε-DP, and Algorithms 3, 5 and 6 not ε-DP: those are kept as
negative controls (the verdicts are the worst-case search's, not asserted here).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

from verify.discrete.presets import dgauss_above_threshold, dlap_lyu_1, dlap_seed_m1, sampcert_above_threshold
from verify.errors import InputError
from verify.mechanism import Release, SparseVector, ThresholdPolicy, check_cutoff
from verify.noise import NoiseSpec
from verify.validate import shown, to_number

SEED = "seed, 'Mechanism One' and 'Mechanism Two', Algorithm A"
LYU = "Lyu, Su, Li, 'Understanding the Sparse Vector Technique for Differential Privacy', PVLDB 10(6) 2017, arXiv:1603.01699"


def _lap(m: Fraction | int) -> NoiseSpec:
    return NoiseSpec("laplace", multiplier=Fraction(m))


@dataclass(frozen=True)
class Preset:
    """A named variant: ``build(epsilon, sensitivity, threshold, cutoff)``."""

    name: str
    summary: str
    source: str
    build: Callable[..., SparseVector]
    #: True if the scales depend on the cutoff c (else an explicit cutoff only overrides the run length).
    scales_with_cutoff: bool


def _make(name: str, source: str, z: NoiseSpec, x: NoiseSpec, cutoff: int | None, eps, delta, t,
          policy: ThresholdPolicy = ThresholdPolicy.SHARED, release: Release = Release.NONE,
          release_spec: NoiseSpec | None = None) -> SparseVector:
    return SparseVector(eps, delta, t, z, x, cutoff=cutoff, threshold_policy=policy, release=release,
                        release_spec=release_spec, name=name, source=source)


def seed_m1(epsilon: object = 1, sensitivity: object = 1, threshold: object = 0, cutoff: int | None = 1) -> SparseVector:
    """Seed, Mechanism One: Z, X_i ~ Lap(3Δ/ε), halt at the first A (AboveThreshold)."""
    return _make("seed-m1", f"{SEED} (Mechanism One)", _lap(3), _lap(3), cutoff, epsilon, sensitivity, threshold)


def seed_m2(epsilon: object = 1, sensitivity: object = 1, threshold: object = 0, cutoff: int | None = 1) -> SparseVector:
    """Seed, Mechanism Two: Z, X_i ~ Exp(3Δ/ε) (one-sided), halt at the first A."""
    exp3 = NoiseSpec("exponential", multiplier=Fraction(3))
    return _make("seed-m2", f"{SEED} (Mechanism Two)", exp3, exp3, cutoff, epsilon, sensitivity, threshold)


def dwork_roth(epsilon: object = 1, sensitivity: object = 1, threshold: object = 0, cutoff: int | None = 1) -> SparseVector:
    """AboveThreshold of Dwork and Roth, 'The Algorithmic Foundations of Differential
    Privacy' (2014), Algorithm 1, Theorem 3.23: T̂ = T + Lap(2Δ/ε), ν_i = Lap(4Δ/ε), halt at
    the first above.  The scales do not grow with c: a cutoff c > 1 is *not* the book's
    Sparse algorithm (that one is lyu-2's shape with ε split over c)."""
    return _make("dwork-roth", "Dwork, Roth, The Algorithmic Foundations of Differential Privacy (2014), Algorithm 1 (AboveThreshold), Theorem 3.23",
                 _lap(2), _lap(4), cutoff, epsilon, sensitivity, threshold)


def lyu_1(epsilon: object = 1, sensitivity: object = 1, threshold: object = 0, cutoff: int = 1) -> SparseVector:
    """Lyu, Su, Li 2017, Algorithm 1 (their recommended SVT): ε₁ = ε/2, ρ = Lap(Δ/ε₁) = Lap(2Δ/ε),
    ν_i = Lap(2cΔ/ε₂) = Lap(4cΔ/ε), abort after the c-th ⊤ (proved ε-DP, their Theorem 2)."""
    c = _need_cutoff(cutoff, "lyu-1")
    return _make("lyu-1", f"{LYU}, Algorithm 1", _lap(2), _lap(4 * c), c, epsilon, sensitivity, threshold)


def lyu_2(epsilon: object = 1, sensitivity: object = 1, threshold: object = 0, cutoff: int = 1) -> SparseVector:
    """Lyu, Su, Li 2017, Algorithm 2 (Dwork and Roth's 2014 Sparse as they transcribe it): ε₁ = ε/2,
    ρ = Lap(cΔ/ε₁) = Lap(2cΔ/ε), ν_i = Lap(2cΔ/ε₁) = Lap(4cΔ/ε), and after every ⊤ a fresh
    ρ = Lap(cΔ/ε₂) = Lap(2cΔ/ε) (the threshold is resampled); abort after the c-th ⊤."""
    c = _need_cutoff(cutoff, "lyu-2")
    return _make("lyu-2", f"{LYU}, Algorithm 2", _lap(2 * c), _lap(4 * c), c, epsilon, sensitivity, threshold,
                 policy=ThresholdPolicy.RESAMPLE)


def lyu_3(epsilon: object = 1, sensitivity: object = 1, threshold: object = 0, cutoff: int = 1) -> SparseVector:
    """Lyu, Su, Li 2017, Algorithm 3 (Roth's 2011 lecture notes): ε₁ = ε/2, ρ = Lap(2Δ/ε),
    ν_i = Lap(cΔ/ε₂) = Lap(2cΔ/ε), and a ⊤ releases the noisy query q_i + ν_i; abort after the
    c-th ⊤.  Not ε-DP (Lyu et al., Section 4)."""
    c = _need_cutoff(cutoff, "lyu-3")
    return _make("lyu-3", f"{LYU}, Algorithm 3", _lap(2), _lap(2 * c), c, epsilon, sensitivity, threshold,
                 release=Release.QUERY)


def lyu_4(epsilon: object = 1, sensitivity: object = 1, threshold: object = 0, cutoff: int = 1) -> SparseVector:
    """Lyu, Su, Li 2017, Algorithm 4 (Lee and Clifton 2014): ε₁ = ε/4, ρ = Lap(Δ/ε₁) = Lap(4Δ/ε),
    ν_i = Lap(Δ/ε₂) = Lap(4Δ/(3ε)) (not scaled with c); abort after the c-th ⊤.  Only
    ((1 + 6c)/4)ε-DP (Lyu et al., Section 4)."""
    c = _need_cutoff(cutoff, "lyu-4")
    return _make("lyu-4", f"{LYU}, Algorithm 4", _lap(4), _lap(Fraction(4, 3)), c, epsilon, sensitivity, threshold)


def lyu_5(epsilon: object = 1, sensitivity: object = 1, threshold: object = 0, cutoff: int | None = None) -> SparseVector:
    """Lyu, Su, Li 2017, Algorithm 5 (Stoddard et al. 2014): ρ = Lap(Δ/ε₁) = Lap(2Δ/ε), no query
    noise, every query answered (no cutoff).  Not ε-DP (Lyu et al., Section 4)."""
    return _make("lyu-5", f"{LYU}, Algorithm 5", _lap(2), NoiseSpec("none"), cutoff, epsilon, sensitivity, threshold)


def lyu_6(epsilon: object = 1, sensitivity: object = 1, threshold: object = 0, cutoff: int | None = None) -> SparseVector:
    """Lyu, Su, Li 2017, Algorithm 6 (Chen et al. 2015): ρ = Lap(2Δ/ε), ν_i = Lap(Δ/ε₂) = Lap(2Δ/ε),
    every query answered (no cutoff).  Not ε-DP (Lyu et al., Section 4)."""
    return _make("lyu-6", f"{LYU}, Algorithm 6", _lap(2), _lap(2), cutoff, epsilon, sensitivity, threshold)


def numeric_svt(epsilon: object = 1, sensitivity: object = 1, threshold: object = 0, cutoff: int = 1) -> SparseVector:
    """NumericalSVT of Wang, Ding, Wang, Kifer, Zhang, 'Proving Differential Privacy with Shadow
    Execution', PLDI 2019: η₁ = Lap(3Δ/ε) on the threshold, η₂ = Lap(6cΔ/ε) for the comparison,
    and a ⊤ releases q_i + η₃ with a fresh η₃ = Lap(3cΔ/ε); halt after the c-th ⊤ (scales as
    in DP-Sniper's transcription, class NumericalSVT)."""
    c = _need_cutoff(cutoff, "numeric-svt")
    return _make("numeric-svt", "Wang, Ding, Wang, Kifer, Zhang, Proving Differential Privacy with Shadow Execution, PLDI 2019 (NumericalSVT)",
                 _lap(3), _lap(6 * c), c, epsilon, sensitivity, threshold, release=Release.FRESH, release_spec=_lap(3 * c))


def gap_svt(epsilon: object = 1, sensitivity: object = 1, threshold: object = 0, cutoff: int = 1) -> SparseVector:
    """Sparse Vector with Gap of Ding, Wang, Zhang, Kifer, 'Free Gap Information from the
    Differentially Private Sparse Vector and Noisy Max Mechanisms', PVLDB 13(3) 2019, with the
    budget split evenly (θ = 1/2): η = Lap(Δ/ε₀) = Lap(2Δ/ε) on the threshold, η_i = Lap(2cΔ/ε*)
    = Lap(4cΔ/ε) on the queries, and a ⊤ releases the gap q_i + η_i - (T + η); halt after
    the c-th ⊤ (the scales of the GapSparseVector benchmark of ShadowDP/CheckDP)."""
    c = _need_cutoff(cutoff, "gap-svt")
    return _make("gap-svt", "Ding, Wang, Zhang, Kifer, Free Gap Information from the Differentially Private Sparse Vector and Noisy Max Mechanisms, PVLDB 13(3) 2019 (Sparse-Vector-with-Gap, θ = 1/2)",
                 _lap(2), _lap(4 * c), c, epsilon, sensitivity, threshold, release=Release.GAP)


def gaussian_svt(epsilon: object = 1, sensitivity: object = 1, threshold: object = 0, cutoff: int = 1,
                 threshold_sigma: object = 2, query_sigma: object = 4) -> SparseVector:
    """The Gaussian Sparse Vector Technique of Zhu and Wang, 'Improving Sparse Vector Technique
    with Rényi Differential Privacy', NeurIPS 2020: Z ~ N(σ_Z), X_i ~ N(σ_X) (standard
    deviations), halt after the c-th above.  σ_Z and σ_X are given (multiples of Δ/ε; defaults
    2 and 4, the Laplace scales of dwork-roth, not a calibration from the paper, which
    calibrates to Rényi DP and so (ε, δ)-DP: no pure ε holds for Gaussian noise)."""
    c = _need_cutoff(cutoff, "gaussian-svt")
    z = NoiseSpec("gaussian", multiplier=to_number(threshold_sigma, "threshold σ"))
    x = NoiseSpec("gaussian", multiplier=to_number(query_sigma, "query σ"))
    return _make("gaussian-svt", "Zhu, Wang, Improving Sparse Vector Technique with Rényi Differential Privacy, NeurIPS 2020 (SVT with Gaussian noise)",
                 z, x, c, epsilon, sensitivity, threshold)


def _need_cutoff(cutoff: object, name: str) -> int:
    c = check_cutoff(cutoff)
    if c is None:
        raise InputError(f"cutoff: {name}'s noise scales grow with the cutoff c; give an integer c >= 1, not unlimited")
    return c


def _preset(fn: Callable[..., SparseVector], summary: str, scales_with_cutoff: bool) -> Preset:
    probe = fn()
    return Preset(probe.name, summary, probe.source, fn, scales_with_cutoff)


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        _preset(seed_m1, "the seed's Mechanism One (Laplace)", False),
        _preset(seed_m2, "the seed's Mechanism Two (one-sided exponential)", False),
        _preset(dwork_roth, "AboveThreshold of Dwork and Roth 2014", False),
        _preset(lyu_1, "Lyu et al. Alg. 1, the correct SVT with cutoff c", True),
        _preset(lyu_2, "Lyu et al. Alg. 2, threshold resampled after each above", True),
        _preset(lyu_3, "Lyu et al. Alg. 3, releases the noisy query", True),
        _preset(lyu_4, "Lyu et al. Alg. 4, query noise not scaled with c", True),
        _preset(lyu_5, "Lyu et al. Alg. 5, no query noise, no cutoff", False),
        _preset(lyu_6, "Lyu et al. Alg. 6, no cutoff", False),
        _preset(numeric_svt, "NumericalSVT, releases q_i + fresh noise", True),
        _preset(gap_svt, "GapSVT, releases the gap", True),
        _preset(gaussian_svt, "SVT with Gaussian noise (σ_Z, σ_X given)", True),
        _preset(sampcert_above_threshold, "SampCert's AboveThreshold (discrete Laplace, proved in Lean)", False),
        _preset(dlap_seed_m1, "the seed's Mechanism One with discrete Laplace noise", False),
        _preset(dlap_lyu_1, "Lyu et al. Alg. 1 with discrete Laplace noise", True),
        _preset(dgauss_above_threshold, "AboveThreshold with discrete Gaussian noise", False),
    )
}
NAMES: tuple[str, ...] = tuple(PRESETS)
#: The presets with noise on the integers (ties have mass; ``compare=`` matters).
DISCRETE_NAMES: tuple[str, ...] = tuple(n for n, p in PRESETS.items() if p.build().is_discrete)


def preset(name: str, epsilon: object = 1, sensitivity: object = 1, threshold: object = 0, **options: object) -> SparseVector:
    """The preset ``name`` with ε, Δ, t (and ``cutoff=``; ``threshold_sigma=``/``query_sigma=`` for
    gaussian-svt and dgauss-above-threshold; ``compare=`` for the discrete presets).  Where the scales do not depend on c, ``cutoff`` only changes the run length.

    >>> preset("lyu-2", cutoff=3).describe()
    'lyu-2: SparseVector(ε=1, Δ=1, t=0, threshold Lap(6Δ/ε), queries Lap(12Δ/ε), cutoff 3, threshold resample, release none)'
    >>> preset("sampcert-above-threshold").describe()
    'sampcert-above-threshold: SparseVector(ε=1, Δ=1, t=0, threshold DLap(2Δ/ε), queries DLap(4Δ/ε), cutoff 1, threshold shared, release none)'
    """
    if not isinstance(name, str) or name not in PRESETS:
        raise InputError(f"variant: {shown(name)} is not one of {', '.join(NAMES)}")
    return PRESETS[name].build(epsilon, sensitivity, threshold, **options)
