"""Mechanism One's pointwise comparisons (Proof 1's "Comparing p(z) and p(z+κ), F(...) and F(...)", Proof 2's
integrand ratio): the log ratios in float64 (numpy, for the sweeps) and in mpmath (for the confirmation).

With b = 3Δ/ε (seed, Algorithm A lines 1 and 3), Δ = 1 and t = 0:
ln p_b(x) = -|x|/b - ln 2b, and ln F_b(y) = y/b - ln 2 for y < 0, ln(1 - e^{-y/b}/2) for y >= 0.
"""

from __future__ import annotations

from typing import Any

import mpmath
import numpy as np

from proofs.numerics import mpf
from proofs.sweeps import EPSILONS


def log_cdf_np(y: np.ndarray, b: np.ndarray) -> np.ndarray:
    u = y / b
    return np.where(u < 0, u - np.log(2.0), np.log1p(-0.5 * np.exp(-np.maximum(u, 0))))


def log_pdf_np(x: np.ndarray, b: np.ndarray) -> np.ndarray:
    return -np.abs(x) / b - np.log(2 * b)


def sample(rng: np.random.Generator, n: int = 40000) -> dict[str, np.ndarray]:
    """ε from the sweep list, Δ = 1, t = 0; z, d = q_i(D) - t in [-8b, 8b] plus the kinks; κ, δ = ±Δ or uniform."""
    eps = rng.choice([float(e) for e in EPSILONS], n)
    b = 3.0 / eps
    z = rng.uniform(-8, 8, n) * b
    kinks = rng.random(n) < 0.2
    z = np.where(kinks, rng.choice([-1.0, -0.5, 0.0, 0.5, 1.0], n), z)
    kap = np.where(rng.random(n) < 0.5, rng.choice([-1.0, 1.0], n), rng.uniform(-1, 1, n))
    dl = np.where(rng.random(n) < 0.5, rng.choice([-1.0, 1.0], n), rng.uniform(-1, 1, n))
    d = np.where(rng.random(n) < 0.3, z + rng.choice([-1.0, 0.0, 1.0, 2.0], n), rng.uniform(-8, 8, n) * b)
    return {"eps": eps, "z": z, "kappa": kap, "d": d, "delta_q": dl}


SAMPLE_GRID = (
    "40000 seeded points: ε ∈ {1/10, 1/2, 1, 2, 5}, Δ = 1, t = 0, z and d = q_i(D) - t in [-8b, 8b] (20% at the kinks), "
    "κ and δ = q_i(D) - q_i(D') = ±Δ (50%) or uniform in [-Δ, Δ]"
)


def mp_log_pdf(x: mpmath.mpf, b: mpmath.mpf) -> mpmath.mpf:
    return -abs(x) / b - mpmath.log(2 * b)


def mp_log_cdf(y: mpmath.mpf, b: mpmath.mpf) -> mpmath.mpf:
    return y / b - mpmath.log(2) if y < 0 else mpmath.log1p(-mpmath.exp(-y / b) / 2)


def mp_args(pt: dict[str, Any]) -> tuple[mpmath.mpf, ...]:
    eps = mpf(pt.get("eps", 1))
    b = 3 / eps
    return eps, b, mpf(pt.get("z", 0)), mpf(pt.get("kappa", 0)), mpf(pt.get("d", 0)), mpf(pt.get("delta_q", 0))


def density_lr(p: dict[str, np.ndarray]) -> np.ndarray:
    b = 3.0 / p["eps"]
    return log_pdf_np(p["z"] + p["kappa"], b) - log_pdf_np(p["z"], b)


def cdf_lr(p: dict[str, np.ndarray]) -> np.ndarray:
    """ln F(-t-z-κ+q_i(D)) - ln F(-t-z+q_i(D')), with q_i(D') = q_i(D) - δ."""
    b = 3.0 / p["eps"]
    return log_cdf_np(-p["z"] - p["kappa"] + p["d"], b) - log_cdf_np(-p["z"] + p["d"] - p["delta_q"], b)


def mp_density(pt: dict[str, Any]):
    eps, b, z, k, d, dl = mp_args(pt)
    return mp_log_pdf(z + k, b) - mp_log_pdf(z, b), eps / 3, -eps / 3


def mp_cdf(pt: dict[str, Any]):
    eps, b, z, k, d, dl = mp_args(pt)
    return mp_log_cdf(-z - k + d, b) - mp_log_cdf(-z + d - dl, b), 2 * eps / 3, -2 * eps / 3


def mp_integrand(pt: dict[str, Any]):
    a, _, _ = mp_density(pt)
    c, _, _ = mp_cdf(pt)
    eps = mpf(pt.get("eps", 1))
    return a + c, eps, -eps


POINT_PARAMS = (("eps", "ε"), ("z", "z (Δ = 1, t = 0)"), ("kappa", "κ ∈ [-1, 1]"), ("d", "q_i(D) - t"), ("delta_q", "q_i(D) - q_i(D') ∈ [-1, 1]"))


POINT_PARAMS = (("eps", "ε"), ("z", "z (Δ = 1, t = 0)"), ("kappa", "κ ∈ [-1, 1]"), ("d", "q_i(D) - t"), ("delta_q", "q_i(D) - q_i(D') ∈ [-1, 1]"))
