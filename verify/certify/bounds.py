"""Proven upper bounds on the privacy loss of an AboveThreshold variant.

Laplace threshold noise Lap(b_Z) and Laplace query noise Lap(b_X): the loss is
at most Δ/b_Z + 2Δ/b_X.  Reason: the change of variables of the seed's Proof 2
(z' = z - κ, x_i' = x_i - κ - δ, Jacobian 1, |κ| <= Δ, |κ + δ| <= 2Δ) maps the
event for D onto the event for D' given X_<i = x, and the Laplace density is
log-Lipschitz, |log p_b(u) - log p_b(w)| <= |u - w|/b, so the conditional ratio
is within exp(±(Δ/b_Z + 2Δ/b_X)); integrating over x keeps the bound.  For ⊤^k,
Pr = E_x[Pr(Z > M(D,x) - t)] and the shift of z alone gives Δ/b_Z.  With
b_Z = b_X = 3Δ/ε (Mechanism One) the bound is exactly ε.

Other continuous families (Mechanism Two among them): the seed's pointwise
comparison fails (the exponential supports differ), so a bound is treated as
proven only where `verify.certify.certify_conditional_ratio` certifies the
proofs' conditional ratio at this ε: its exact supremum bounds every s_i after
integrating over x, and ⊤^k adds Pr[Z > M(D,x) - t], whose tail is
log-Lipschitz with constant 1/b_Z for Laplace and exponential Z, so Δ/b_Z.
Anything else has no proven bound (None).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from verify.certify.conditional import certify_conditional_ratio
from verify.errors import InputError
from verify.exact import fmt
from verify.mechanism import AboveThreshold
from verify.noise import Laplace


@dataclass(frozen=True)
class ProvenBound:
    """An upper bound on sup |log ratio| (nats) and the argument that proves it."""

    value: Fraction
    source: str


def proven_upper_bound(mech: AboveThreshold) -> ProvenBound | None:
    """Δ/b_Z + 2Δ/b_X for Laplace threshold and query noise; else the certified
    supremum of the conditional ratio where `verify.certify` certifies it (see
    the module docstring); else None.

    >>> proven_upper_bound(AboveThreshold.mechanism_one(1)).value
    Fraction(1, 1)
    >>> proven_upper_bound(AboveThreshold.mechanism_two(1)).value
    Fraction(1, 1)
    >>> proven_upper_bound(AboveThreshold.with_noise("exponential", 1, threshold_multiplier=2, query_multiplier=2)) is None
    True
    """
    zn, xn = mech.threshold_noise, mech.query_noise
    delta = mech.sensitivity
    if isinstance(zn.law, Laplace) and isinstance(xn.law, Laplace):
        return ProvenBound(delta / zn.scale + 2 * delta / xn.scale,
                           "seed Proof 2 change of variables (Jacobian 1) + Laplace log-Lipschitz density: Δ/b_Z + 2Δ/b_X")
    if zn.is_none or xn.is_none:
        return None
    try:
        cert = certify_conditional_ratio(mech, (mech.epsilon, mech.epsilon))
    except InputError:
        return None
    if not cert.certified:
        return None
    sup = cert.sup_log_ratio if cert.sup_log_ratio is not None else cert.sup_log_ratio_per_epsilon * mech.epsilon
    return ProvenBound(max(sup, delta / zn.scale),
                       f"verify.certify: conditional ratio certified, sup |log ratio| = {fmt(sup)} ({cert.method}), "
                       f"integrated over x for every s_i; ⊤^k: log-Lipschitz tail of Z, Δ/b_Z = {fmt(delta / zn.scale)}")
