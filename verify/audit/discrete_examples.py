"""Discrete implementations to audit: noise on the integers, as libraries deploy it.

Each is written the way integer code is (a loop over integer queries, the discrete
Laplace law drawn as the difference of two geometric variables, Inusah and
Kozubowski 2006), at ε = 1, Δ = 1, t = 0, and listed in `verify.audit.examples.FIXTURES`.
Broken ones (``# INCORRECT``):

* `sampcert_gt`: ``>`` where SampCert's AboveThreshold has ``>=`` (a tie has mass on ℤ;
  on integers ``q + X > t + Z`` is ``q + X >= (t + 1) + Z``, so its law is the one of the
  threshold t + 1 too: the two are indistinguishable by any sample);
* `sampcert_threshold_off_by_one`: the threshold taken as t - 1;
* `sampcert_rounded_laplace`: continuous Laplace of the claimed scales rounded to the
  nearest integer, claimed as discrete Laplace (the law of `verify.audit.discrete_laws.rounded_laws`).
"""

from __future__ import annotations

import math


def _dlap(rng, b: float) -> int:
    """One DLap(b) draw: G1 - G2 with G ~ Geometric(1 - e^{-1/b}) (module docstring).  The two geometric
    variables in one call (numpy draws an array's elements in order, so they are the two scalar draws)."""
    g1, g2 = rng.geometric(-math.expm1(-1.0 / b), 2).tolist()
    return g1 - g2


def _rounded(rng, b: float) -> int:
    return round(rng.laplace(0.0, b))  # INCORRECT when claimed as DLap(b): rounding changes the law


def _above_threshold(queries, rng, z_scale, x_scale, cutoff=1, draw=_dlap, strict=False, threshold=0):
    t_hat = threshold + draw(rng, z_scale)
    letters, count = [], 0
    for q in queries:
        noisy = int(q) + draw(rng, x_scale)
        if (noisy > t_hat) if strict else (noisy >= t_hat):
            letters.append("A")
            count += 1
            if count == cutoff:
                break
        else:
            letters.append("B")
    return "".join(letters)


# --- correct ---------------------------------------------------------------------------------------------
def sampcert(queries, rng):
    """SampCert's AboveThreshold: Z ~ DLap(2), X_i ~ DLap(4), ``>=``, halt at the first above."""
    return _above_threshold(queries, rng, 2.0, 4.0)


def dlap_lyu1(queries, rng):
    """Lyu et al. Algorithm 1 with discrete Laplace noise, c = 2: Z ~ DLap(2), X_i ~ DLap(8)."""
    return _above_threshold(queries, rng, 2.0, 8.0, cutoff=2)


# --- broken ----------------------------------------------------------------------------------------------
def sampcert_gt(queries, rng):
    """INCORRECT SampCert AboveThreshold: ``>`` where the claim has ``>=``."""
    return _above_threshold(queries, rng, 2.0, 4.0, strict=True)


def sampcert_threshold_off_by_one(queries, rng):
    """INCORRECT SampCert AboveThreshold: the threshold taken as t - 1."""
    return _above_threshold(queries, rng, 2.0, 4.0, threshold=-1)


def sampcert_rounded_laplace(queries, rng):
    """INCORRECT SampCert AboveThreshold: round(Lap(2)), round(Lap(4)) claimed as DLap(2), DLap(4)."""
    return _above_threshold(queries, rng, 2.0, 4.0, draw=_rounded)
