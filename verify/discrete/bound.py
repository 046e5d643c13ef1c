"""A proven upper bound on the privacy loss of discrete-Laplace SVT: the seed's change of variables on ℤ.

Setting (`verify.engine.discrete_plan`): ``Pr[s | q] = Π_segments Σ_{z∈ℤ} Pr[Z=z] Π_i f_i(z + u_i)``
with ``u_i = t - q_i + [gt]``.  Neighbours ``q, q'`` have ``|q_i - q'_i| <= Δ`` (Δ an
integer), so ``u'_i = u_i + (q_i - q'_i)`` and ``|u'_i - u_i| <= Δ``.

In ``Pr[s | q']`` substitute ``z = w + Δ`` — a bijection of ℤ because Δ is an integer
(this is where the integer rule is used; with a non-integer Δ the shifted
sum would run over another lattice):

* ``Pr[Z = w + Δ] >= e^{-Δ/b_Z} Pr[Z = w]`` (``log Pr[Z = ·]`` is (1/b_Z)-Lipschitz on ℤ);
* a letter B: ``F(w + Δ + u'_i) >= F(w + u_i)`` since ``Δ + u'_i >= u_i`` and F is non-decreasing;
* a letter A: ``S(w + Δ + u'_i) >= S(w + u_i + 2Δ) >= e^{-2Δ/b_X} S(w + u_i)`` (S is
  non-increasing and ``log S`` is (1/b_X)-Lipschitz on ℤ, `verify.noise.discrete_laplace`).

Hence ``Pr[s | q'] >= e^{-L(s)} Pr[s | q]`` with ``L(s) = (#segments)·Δ/b_Z + 2·(#A)·Δ/b_X``,
and by symmetry of the neighbour relation the loss is at most
``max_s L(s)``: with a shared threshold (one segment, at most c letters A)

    ε_bound = Δ/b_Z + 2cΔ/b_X,

and with the threshold resampled after each A (at most c segments, or j+1 segments with j < c A's)

    ε_bound = c·Δ/b_Z + 2cΔ/b_X.

This is the proof of the seed's Mechanism One (and of Lyu, Su, Li 2017,
Theorem 2 for Algorithm 1) with integrals replaced by sums over ℤ.  The
comparison does not enter: ``gt`` adds 1 to every ``u_i`` and ``u'_i`` alike,
so every step above holds unchanged for ``>`` as for ``>=``.  No bound is given
for an unlimited cutoff (the count of A's is unbounded), without query noise
(a letter A's indicator has no Lipschitz constant) or for the discrete
Gaussian (``log Pr`` is quadratic: no constant exists).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from verify.noise.discrete_laplace import DiscreteLaplace


@dataclass(frozen=True)
class ProvenBound:
    """``ε_bound`` and the derivation's name, or ``value = None`` with the reason none applies."""

    value: Fraction | None
    reason: str


def proven_bound(mech: Any) -> ProvenBound:
    """The bound of the module docstring for a discrete `SparseVector` (exact rational)."""
    z, x = mech.threshold_noise, mech.query_noise
    for label, noise in (("threshold", z), ("query", x)):
        if not noise.is_none and not isinstance(noise.law, DiscreteLaplace):
            return ProvenBound(None, f"the {label} noise {noise.describe()} has no log-Lipschitz constant (log Pr is quadratic)")
    if x.is_none:
        return ProvenBound(None, "no query noise: an above letter's indicator has no Lipschitz constant")
    if mech.cutoff is None:
        return ProvenBound(None, "unlimited cutoff: the number of above letters, and so the bound, is unbounded")
    c, delta = mech.cutoff, mech.sensitivity
    lz = Fraction(0) if z.is_none else delta / z.scale
    if z.is_none:
        return ProvenBound(None, "no threshold noise: the change of variables has no threshold to shift")
    segments = c if mech.threshold_policy.value == "resample" else 1
    return ProvenBound(segments * lz + 2 * c * delta / x.scale,
                       "change of variables z = w + Δ on ℤ with the 1/b log-Lipschitz tails of discrete Laplace noise")
