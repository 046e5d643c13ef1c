"""sympy expressions of the two sides of the claims that have them.

The seed's objects are written with undefined functions ``p`` (the density of
the noise) and ``F`` (its CDF), so that each side reads as in the seed; a
conditional probability is the symbol ``P_D`` / ``P_Dp`` (Pr[A(D)=s_i ∥ x],
Pr[A(D')=s_i ∥ x]).  The checks do not evaluate these (they use
`proofs.symbolic` and `proofs.conditional`); they document each claim in a
form a user can manipulate, e.g. ``get_claim("P1.chain.6").rhs``.
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

SIDES: dict[str, tuple[sp.Expr, sp.Expr]] = {
    "P1.chain.1": (P_D, Pr(event_hat)),
    "P1.chain.2": (Pr(event_hat), Pr(event_noise)),
    "P1.chain.3": (Pr(event_noise), sp.Integral(p(z) * Ind(M < t + z) * (1 - F(t + z - q)), (z, -sp.oo, sp.oo))),
    "P1.chain.4": (
        sp.Integral(p(z) * Ind(M < t + z) * (1 - F(t + z - q)), (z, -sp.oo, sp.oo)),
        sp.Integral(p(z) * Ind(M < t + z) * F(-t - z + q), (z, -sp.oo, sp.oo)),
    ),
    "P1.chain.5": (sp.Integral(p(z) * Ind(M < t + z) * F(-t - z + q), (z, -sp.oo, sp.oo)), sp.Integral(p(z) * F(-t - z + q), (z, M - t, sp.oo))),
    "P1.chain.6": (sp.Integral(p(z) * F(-t - z + q), (z, M - t, sp.oo)), sp.Integral(p(z + kappa) * F(-t - z - kappa + q), (z, Mp - t, sp.oo))),
    "P1.chain": (P_D, sp.Integral(p(z + kappa) * F(-t - z - kappa + q), (z, Mp - t, sp.oo))),
    "P1.dprime": (P_Dp, sp.Integral(p(z) * F(-t - z + qp), (z, Mp - t, sp.oo))),
    "P1.kappa_bound": (sp.Abs(M - Mp), DELTA),
    "P1.compare.density": (p(z + kappa) / p(z), sp.exp(EPSILON / 3)),
    "P1.compare.cdf": (F(-t - z - kappa + q) / F(-t - z + qp), sp.exp(2 * EPSILON / 3)),
    "P1.compare.integrand": (p(z + kappa) * F(-t - z - kappa + q) / (p(z) * F(-t - z + qp)), sp.exp(EPSILON)),
    "P1.conclusion.1": (P_D / P_Dp, sp.exp(EPSILON)),
    "P2.double_integral.3": (Pr(event_noise), sp.Integral(p(z) * p(x_i) * Ind(sp.And(M < t + z, t + z <= q + x_i)), (x_i, -sp.oo, sp.oo), (z, -sp.oo, sp.oo))),
    "P2.dprime.3": (
        Pr(sp.And(Mp < t + Z, t + Z <= qp + X)),
        sp.Integral(p(zp) * p(xp) * Ind(sp.And(Mp < t + zp, t + zp <= qp + xp)), (xp, -sp.oo, sp.oo), (zp, -sp.oo, sp.oo)),
    ),
    "P2.substitution": (Ind(sp.And(Mp < t + zp, t + zp <= qp + xp)), Ind(sp.And(M < t + z, t + z <= q + x_i))),
    "P2.shift_z.1": (sp.Abs(zp - z), sp.Abs(Mp - M)),
    "P2.shift_z": (sp.Abs(zp - z), DELTA),
    "P2.shift_x.1": (sp.Abs(xp - x_i), sp.Abs(zp - qp - z + q)),
    "P2.shift_x.2": (sp.Abs(zp - qp - z + q), sp.Abs(Mp - M + q - qp)),
    "P2.shift_x.3": (sp.Abs(Mp - M + q - qp), 2 * DELTA),
    "P2.shift_x": (sp.Abs(xp - x_i), 2 * DELTA),
    "P2.jacobian": (sp.Matrix([[1, 0], [0, 1]]).det(), sp.Integer(1)),
    "P2.ratio.3": (P_D / P_Dp, sp.exp(DELTA * EPSILON / (3 * DELTA)) * sp.exp(2 * DELTA * EPSILON / (3 * DELTA))),
    "P2.ratio.4": (sp.Mul(sp.exp(EPSILON / 3, evaluate=False), sp.exp(2 * EPSILON / 3, evaluate=False), evaluate=False), sp.exp(EPSILON)),
    "P2.ratio": (P_D / P_Dp, sp.exp(EPSILON)),
    "M2.chain.3": (Pr(event_noise), sp.Integral(p(z) * sp.Integral(p(x_i), (x_i, t + z - q, sp.oo)), (z, M - t, sp.oo))),
    "M2.chain.4": (
        sp.Integral(p(z) * sp.Integral(p(x_i), (x_i, t + z - q, sp.oo)), (z, M - t, sp.oo)),
        sp.Integral(p(z) * sp.exp(-LAM * sp.Max(0, t + z - q)), (z, M - t, sp.oo)),
    ),
    "M2.chain": (P_D, sp.Integral(p(z) * sp.exp(-LAM * sp.Max(0, t + z - q)), (z, M - t, sp.oo))),
    "M2.kappa_bound": (sp.Abs(kappa), DELTA),
    "M2.dprime.5": (
        sp.Integral(p(z) * sp.exp(-LAM * sp.Max(0, t + z - qp)), (z, Mp - t, sp.oo)),
        sp.Integral(p(y - kappa) * sp.exp(-LAM * sp.Max(0, t + y - kappa - qp)), (y, M - t, sp.oo)),
    ),
    "M2.dprime": (P_Dp, sp.Integral(p(y - kappa) * sp.exp(-LAM * sp.Max(0, t + y - kappa - qp)), (y, M - t, sp.oo))),
    "M2.compare.integrand": (
        p(y) * sp.exp(-LAM * sp.Max(0, t + y - q)),
        sp.exp(EPSILON) * p(y - kappa) * sp.exp(-LAM * sp.Max(0, t + y - kappa - qp)),
    ),
    "M2.ratio": (P_D / P_Dp, sp.exp(EPSILON)),
}
for _m in ("M1", "M2"):
    for _v in ("Z", "X"):
        _c = 2 * DELTA / EPSILON * L
        SIDES[f"U.tail_{_v}.{_m}.1"] = (Pr(sp.Abs(sp.Symbol(_v if _v == "Z" else "X_i", real=True)) >= _c), sp.exp(2 * L))
        SIDES[f"U.tail_{_v}.{_m}.2"] = (sp.exp(2 * L), beta / (k + 1))
        SIDES[f"U.tail_{_v}.{_m}"] = (Pr(sp.Abs(sp.Symbol(_v if _v == "Z" else "X_i", real=True)) >= _c), beta / (k + 1))
        SIDES[f"U.tail_{_v}.{_m}.corrected"] = (Pr(sp.Abs(sp.Symbol(_v if _v == "Z" else "X_i", real=True)) >= 3 * DELTA / EPSILON * L), beta / (k + 1))
