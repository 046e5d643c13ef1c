"""The seed's objects as sympy expressions, for the sides of the claims (``sides=`` of each claim).

The seed's objects are written with undefined functions ``p`` (the density of
the noise) and ``F`` (its CDF), so that each side reads as in the seed; a
conditional probability is the symbol ``P_D`` / ``P_Dp`` (Pr[A(D)=s_i ∥ x],
Pr[A(D')=s_i ∥ x]).  The checks do not evaluate these (they use
`proofs.symbolic` and `proofs.conditional`); they document each claim in a
form a user can manipulate, e.g. ``get_claim("P1.chain.6").rhs``.  Each claim
declares its own sides from these building blocks.
"""

from __future__ import annotations

import sympy as sp

from verify.probabilities import DELTA, EPSILON

p, F = sp.Function("p"), sp.Function("F")
z, y, x_i, t, q, qp, M, Mp, Z, X = sp.symbols("z y x_i t q_i(D) q_i(D') M(D) M(D') Z X_i", real=True)
zp, xp = sp.symbols("z' x_i'", real=True)
kappa = sp.Symbol("kappa", real=True)
P_D, P_Dp = sp.symbols("P_D P_Dp", positive=True)
k, beta = sp.Symbol("k", positive=True, integer=True), sp.Symbol("beta", positive=True)
Ind = sp.Function("I")  # the indicator of an event
Pr = sp.Function("Pr")
LAM = EPSILON / (3 * DELTA)
L = sp.log((k + 1) / beta)

event_hat = sp.And(M < sp.Symbol("that", real=True), sp.Symbol("that", real=True) <= sp.Symbol("qhat_i", real=True))
event_noise = sp.And(M < t + Z, t + Z <= q + X)

that, qhat = sp.Symbol("that", real=True), sp.Symbol("qhat_i", real=True)
PR_HAT, PR_NOISE = Pr(event_hat), Pr(event_noise)
PR_HAT_DP = Pr(sp.And(Mp < that, that <= qhat))
PR_NOISE_DP = Pr(sp.And(Mp < t + Z, t + Z <= qp + X))

# Proof 1's display
P1_SURVIVAL = sp.Integral(p(z) * Ind(M < t + z) * (1 - F(t + z - q)), (z, -sp.oo, sp.oo))
P1_E_CDF = sp.Integral(p(z) * Ind(M < t + z) * F(-t - z + q), (z, -sp.oo, sp.oo))
P1_INTEGRAL_D = sp.Integral(p(z) * F(-t - z + q), (z, M - t, sp.oo))
P1_SHIFTED = sp.Integral(p(z + kappa) * F(-t - z - kappa + q), (z, Mp - t, sp.oo))
P1_INTEGRAL_DP = sp.Integral(p(z) * F(-t - z + qp), (z, Mp - t, sp.oo))

# Proof 2's double integrals
P2_DOUBLE_D = sp.Integral(p(z) * p(x_i) * Ind(sp.And(M < t + z, t + z <= q + x_i)), (x_i, -sp.oo, sp.oo), (z, -sp.oo, sp.oo))
P2_DOUBLE_DP = sp.Integral(p(zp) * p(xp) * Ind(sp.And(Mp < t + zp, t + zp <= qp + xp)), (xp, -sp.oo, sp.oo), (zp, -sp.oo, sp.oo))

# Mechanism Two's display
M2_NESTED_D = sp.Integral(p(z) * sp.Integral(p(x_i), (x_i, t + z - q, sp.oo)), (z, M - t, sp.oo))
M2_SURV_D = sp.Integral(p(z) * sp.exp(-LAM * sp.Max(0, t + z - q)), (z, M - t, sp.oo))
M2_SURV_DP = sp.Integral(p(z) * sp.exp(-LAM * sp.Max(0, t + z - qp)), (z, Mp - t, sp.oo))
M2_SHIFTED = sp.Integral(p(y - kappa) * sp.exp(-LAM * sp.Max(0, t + y - kappa - qp)), (y, M - t, sp.oo))


def tail_sides(variable: str, multiple: int, rhs: sp.Expr) -> tuple[sp.Expr, sp.Expr]:
    """(Pr[|V| >= multiple·Δ/ε·L], rhs) for V = Z or X_i (utility tails)."""
    v = sp.Symbol("Z" if variable == "Z" else "X_i", real=True)
    return Pr(sp.Abs(v) >= multiple * DELTA / EPSILON * L), rhs
