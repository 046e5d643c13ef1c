"""A proven upper bound on the privacy loss of discrete-Laplace SVT: the seed's change of variables on ℤ.

The derivation of the discrete case of the one proven-bound module, `verify.family.bounds`
(whose `ProvenBound` and `proven_upper_bound` serve every variant; this module gives the value).

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
``max_s L(s)``.  For runs of at most k queries the count of A's is at most min(c, k), finite
also for an unlimited cutoff (`verify.family.bounds.upper_bound_at`): with a shared threshold (one segment, at most c letters A)

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

from fractions import Fraction
from typing import Any

from verify.exact import fmt
from verify.noise.discrete_laplace import DiscreteLaplace

#: The derivation's name, printed as the bound's source.
SOURCE = "change of variables z = w + Δ on ℤ with the 1/b log-Lipschitz tails of discrete Laplace noise (verify.discrete.bound)"


def change_of_variables_bound(mech: Any, aboves: int | None = None) -> tuple[Fraction | None, str, str]:
    """``(ε_bound, formula, SOURCE)`` of the module docstring for a discrete `SparseVector` (exact rational),
    with at most ``aboves`` letters A (default: the cutoff c), or ``(None, reason, "")`` when none applies."""
    z, x = mech.threshold_noise, mech.query_noise
    for label, noise in (("threshold", z), ("query", x)):
        if not noise.is_none and not isinstance(noise.law, DiscreteLaplace):
            return None, f"the {label} noise {noise.describe()} has no log-Lipschitz constant (log Pr is quadratic)", ""
    if x.is_none:
        return None, "no query noise: an above letter's indicator has no Lipschitz constant", ""
    c = mech.cutoff if aboves is None else (aboves if mech.cutoff is None else min(mech.cutoff, aboves))
    if c is None:
        return None, "unlimited cutoff: the number of above letters, and so the bound, is unbounded", ""
    if z.is_none:
        return None, "no threshold noise: the change of variables has no threshold to shift", ""
    delta = mech.sensitivity
    lz = delta / z.scale
    shared = mech.threshold_policy.value != "resample"
    segments = 1 if shared else c
    value = segments * lz + 2 * c * delta / x.scale
    formula = (f"Δ/b_Z + 2·{c}·Δ/b_X" if shared else f"{c}·Δ/b_Z + 2·{c}·Δ/b_X") + f" = {fmt(value)}"
    return value, formula, SOURCE
