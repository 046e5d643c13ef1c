"""Nelder-Mead minimisation: scipy's ``optimize.minimize(method="Nelder-Mead")``, the same steps in the same order.

The family search refines its best grid points with Nelder-Mead (`verify.family.worstcase`).  Importing
``scipy.optimize`` costs about 0.8 s of CPU (0.4 s of it ``scipy.special``), paid by every ``family``
command before it forks its workers; this module is scipy 1.17's ``_minimize_neldermead``
(scipy/optimize/_optimize.py, BSD-3-Clause; Nelder & Mead, Comput. J. 7 (1965) 308-313, with scipy's
coefficients ρ = 1, χ = 2, ψ = 1/2, σ = 1/2 and its initial simplex: x0 and, per coordinate, x0 with that
coordinate times 1.05, or 0.00025 where it is 0) reduced to what the search uses: no bounds, no callback,
no adaptive coefficients, ``maxiter`` given and no limit on evaluations.  Every array expression is
scipy's own, so the vertices, values and the point returned are the same bits (tests/test_simplex.py
compares the two on the family's objective and on test functions).

One step, with the vertices sorted so that f(x_0) <= ... <= f(x_N) and x̄ the centroid of x_0..x_{N-1}:
reflect x_r = 2x̄ - x_N; if f(x_r) < f(x_0) expand x_e = 3x̄ - 2x_N (keep the better of x_e, x_r); else if
f(x_r) < f(x_{N-1}) keep x_r; else contract outside x_c = 1.5x̄ - 0.5x_N (if f(x_r) < f(x_N)) or inside
x_cc = 0.5x̄ + 0.5x_N, and if that does not improve, shrink every vertex halfway towards x_0.  Stop when
every vertex is within ``xatol`` of x_0 (max norm) and every value within ``fatol`` of f(x_0), or after
``maxiter`` iterations.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

#: scipy's coefficients (non-adaptive): reflection, expansion, contraction, shrink.
RHO, CHI, PSI, SIGMA = 1, 2, 0.5, 0.5
#: scipy's initial simplex: a nonzero coordinate times (1 + NONZDELT), a zero one set to ZDELT.
NONZDELT, ZDELT = 0.05, 0.00025


@dataclass(frozen=True)
class SimplexResult:
    """The best vertex ``x``, its value ``fun`` (the smallest of the final simplex), iterations and evaluations."""

    x: np.ndarray
    fun: float
    nit: int
    nfev: int


def nelder_mead(func: Callable[[np.ndarray], float], x0: Sequence[float], xatol: float, fatol: float,
                maxiter: int) -> SimplexResult:
    """Minimise ``func`` from ``x0`` (module docstring); ``func`` receives a copy of each point, as in scipy."""
    x0 = np.atleast_1d(np.asarray(x0))
    if x0.ndim != 1:
        raise ValueError("x0 must have one dimension")
    if x0.dtype.kind in np.typecodes["AllInteger"]:
        x0 = np.asarray(x0, dtype=float)
    x0 = np.atleast_1d(x0).flatten()
    dtype = x0.dtype if np.issubdtype(x0.dtype, np.inexact) else np.float64
    x0 = np.asarray(x0, dtype=dtype)
    rho, chi, psi, sigma = RHO, CHI, PSI, SIGMA
    n = len(x0)
    sim = np.empty((n + 1, n), dtype=x0.dtype)
    sim[0] = x0
    for k in range(n):
        y = np.array(x0, copy=True)
        if y[k] != 0:
            y[k] = (1 + NONZDELT) * y[k]
        else:
            y[k] = ZDELT
        sim[k + 1] = y
    calls = 0

    def f(x: np.ndarray) -> float:
        nonlocal calls
        calls += 1
        fx = func(np.copy(x))
        if not np.isscalar(fx):
            fx = np.asarray(fx).item()
        return fx

    fsim = np.full((n + 1,), np.inf, dtype=float)
    for k in range(n + 1):
        fsim[k] = f(sim[k])
    ind = np.argsort(fsim)
    sim = np.take(sim, ind, 0)
    fsim = np.take(fsim, ind, 0)
    ind = np.argsort(fsim)  # scipy sorts twice (its second sort changes nothing)
    fsim = np.take(fsim, ind, 0)
    sim = np.take(sim, ind, 0)
    iterations = 1
    while iterations < maxiter:
        if np.max(np.ravel(np.abs(sim[1:] - sim[0]))) <= xatol and np.max(np.abs(fsim[0] - fsim[1:])) <= fatol:
            break
        xbar = np.add.reduce(sim[:-1], 0) / n
        xr = (1 + rho) * xbar - rho * sim[-1]
        fxr = f(xr)
        doshrink = 0
        if fxr < fsim[0]:
            xe = (1 + rho * chi) * xbar - rho * chi * sim[-1]
            fxe = f(xe)
            if fxe < fxr:
                sim[-1] = xe
                fsim[-1] = fxe
            else:
                sim[-1] = xr
                fsim[-1] = fxr
        elif fxr < fsim[-2]:
            sim[-1] = xr
            fsim[-1] = fxr
        else:
            if fxr < fsim[-1]:  # outside contraction
                xc = (1 + psi * rho) * xbar - psi * rho * sim[-1]
                fxc = f(xc)
                if fxc <= fxr:
                    sim[-1] = xc
                    fsim[-1] = fxc
                else:
                    doshrink = 1
            else:  # inside contraction
                xcc = (1 - psi) * xbar + psi * sim[-1]
                fxcc = f(xcc)
                if fxcc < fsim[-1]:
                    sim[-1] = xcc
                    fsim[-1] = fxcc
                else:
                    doshrink = 1
            if doshrink:
                for j in range(1, n + 1):
                    sim[j] = sim[0] + sigma * (sim[j] - sim[0])
                    fsim[j] = f(sim[j])
        iterations += 1
        ind = np.argsort(fsim)
        sim = np.take(sim, ind, 0)
        fsim = np.take(fsim, ind, 0)
    return SimplexResult(sim[0], float(np.min(fsim)), iterations, calls)
