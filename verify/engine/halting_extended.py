"""The halting chain of `verify.engine.halting_kernel` in extended precision (np.longdouble), numpy.

The escalation step between the compiled float64 kernel and mpmath (`verify.family.fast_api`): the
same nodes, weights, tails and window-free sums as the kernel, for the rows whose float64 estimate
is above the tolerance, with factors and products in x87 extended precision (unit roundoff
u_L = 2^-64 on x86-64: three more digits, and an exponent range to 1e-4951, so no value underflows
where float64 flagged it below 1e-290).

    Pr[B^{i-1}A] ≈ Σ_n M_i(n)·S(z_n - a_i),  Pr[B^k] ≈ Σ_n M_{k+1}(n),  M_{i+1} = M_i·F(z_n - a_i)

(seed, Proof 1's conditioning on Z).  Error estimate per output (relative): the panel rule's
estimate (`verify.engine.fast_plan.gl_relative_error`, given), the tails' bound Pr[Z < L]·G_{i-1}(L) +
Pr[Z >= R]·S(R - a_i) over the value, and a first-order rounding bound: each factor e^{±λy} with
y = z - a formed in long double (as e^{λ(z-c)}·e^{-λ(a-c)}) carries u_L(6 + 4λR) (the two
exponents' roundings times their sizes, the exps, the product, 1 - e and the update), f factors
f·u_L(6 + 4λR) with R = max|z| + max|a|; the weight p_Z·w was formed in float64 (u(3 + 2λ_Z max|z|)); a sum of N positive terms N·u_L; the log rounded to float64 u.
Cost O(k·N) numpy operations per row: a fallback, not the fast path.
"""

from __future__ import annotations

import math

import numpy as np

from verify.engine.halting_kernel import EXPONENTIAL, LAPLACE, NONE

LD = np.longdouble
U = 2.0**-53
U_L = float(np.finfo(np.longdouble).eps) / 2
#: values below this are reported as 0 (estimate inf): far below any probability a caller asks for
EXT_TINY = 1e-4900


def _factors(mode: int, lam: float, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(F(y), S(y)) of the query noise in long double, each to full relative accuracy."""
    if mode == LAPLACE:
        e = LD(0.5) * np.exp(-LD(lam) * np.abs(y))
        neg = y < 0
        return np.where(neg, e, 1 - e), np.where(neg, 1 - e, e)
    if mode == EXPONENTIAL:
        pos = y > 0
        yp = np.where(pos, y, LD(0))
        return np.where(pos, -np.expm1(-LD(lam) * yp), LD(0)), np.where(pos, np.exp(-LD(lam) * yp), LD(1))
    return (y > 0).astype(LD), (y <= 0).astype(LD)


def extended_row(mode: int, lam: float, z: np.ndarray, omega: np.ndarray, a: np.ndarray, panel_err: float,
                 left: float, right: float, z_left: float, z_right: float, weight_exponent: float,
                 upto: int) -> tuple[np.ndarray, np.ndarray]:
    """(log values, error estimates) of outputs 0..upto (upto <= k; k is B^k) of one row, nodes z
    (ascending) and weights omega (the row's nodes in use), queries a = q - t.

    Laplace and exponential factors come from e^{λ(z - c)} and e^{-λ(a - c)} (c the nodes' centre;
    long double's range holds them for any |λ(z - c)| < 11000, else one exp per element), split at
    each a_i (the nodes are sorted)."""
    k = a.shape[0]
    zl = z.astype(LD)
    m = omega.astype(LD)
    reach = float(np.abs(z).max(initial=0.0)) + float(np.abs(a).max(initial=0.0))
    per_factor = U_L * (6 + 4 * lam * reach)
    fixed = U * (3 + 2 * weight_exponent) + U_L * z.shape[0] + U
    logv = np.full(upto + 1, -math.inf)
    err = np.full(upto + 1, math.inf)
    al = a.astype(LD)
    lam_l = LD(lam)
    centre = LD(0.5) * (zl[0] + zl[-1]) if z.shape[0] else LD(0)
    outer = mode != NONE and lam * reach * 2 < 11000
    half = LD(0.5) if mode == LAPLACE else LD(1)
    if outer:
        ez = np.exp(lam_l * (zl - centre))
        # half·e^{λ(z-c)} and half·e^{-λ(z-c)} formed once: the factors below are these times e^{∓λ(a_i-c)},
        # the same roundings in the same order as forming them per query; the loop writes into two buffers
        # (no temporaries of the nodes' length: k·N long doubles)
        half_ez, half_iez = half * ez, half * (1 / ez)
        f, s = np.empty_like(m), np.empty_like(m)
    ms = np.empty_like(m)
    g_left = 1.0
    for i in range(upto + 1):
        if i < k:
            if outer:
                split = int(np.searchsorted(z, a[i], side="left" if mode == LAPLACE else "right"))
                ea = np.exp(-lam_l * (al[i] - centre))
                np.divide(half_iez[split:], ea, out=s[split:])
                if mode == LAPLACE:
                    np.multiply(half_ez[:split], ea, out=f[:split])
                    np.subtract(1, f[:split], out=s[:split])
                else:
                    f[:split], s[:split] = 0, 1
                    near = split + int(np.searchsorted(z[split:], a[i] + math.log(2) / lam, side="left"))
                    yn = zl[split:near] - al[i]
                    s[split:near] = np.exp(-lam_l * yn)
                np.subtract(1, s[split:], out=f[split:])
                if mode == EXPONENTIAL:
                    f[split:near] = -np.expm1(-lam_l * yn)
            else:
                f, s = _factors(mode, lam, zl - al[i])
            v = np.multiply(m, s, out=ms).sum()
            fl, _ = _factors(mode, lam, np.array([LD(left) - al[i]]))
            _, sr = _factors(mode, lam, np.array([LD(right) - al[i]]))
            tail = z_left * g_left + z_right * float(sr[0])
            factors = i + 1
        else:
            f = None
            v = m.sum()
            tail = z_left * g_left + z_right
            factors = k
        if v > EXT_TINY:
            logv[i] = float(np.log(v))
            err[i] = float(panel_err + tail / float(v) + factors * per_factor + fixed)
        elif v > 0:
            logv[i] = float(np.log(v))
        if f is not None:
            m *= f
            g_left *= float(fl[0])
    return logv, err
