"""How many samples an audit needs: the power rule of the goodness-of-fit test.

Under an alternative law p' at distance from the exact law p, the G statistic
(and Pearson's χ²) on m cells is asymptotically noncentral χ² with m - 1
degrees of freedom and noncentrality λ = N·χ²(p'‖p) = N·Σ (p'_j - p_j)²/p_j
(Cochran 1952, "The χ² test of goodness of fit", Ann. Math. Stat. 23; Agresti,
Categorical Data Analysis, 3rd ed., Section 1.5.5 and 16.3).  The test at level
α rejects with power ``power`` once λ >= λ*(df, α, power), the root of
``ncx2.sf(chi2.isf(α, df), df, λ) = power``.

Total variation bounds the χ² divergence from below: TV(p', p) = ½ Σ |p'_j - p_j|
<= ½ sqrt(χ²(p'‖p)) by Cauchy–Schwarz, so χ² >= 4·TV².  Every alternative with
TV >= δ therefore has λ >= 4Nδ², and N = λ*/(4δ²) samples detect it with power
at least ``power`` (asymptotically).  `detectable_tv` is that δ for a given N.
The statement is about the laws on the pooled cells the test sees.

The distributions are ``scipy.special``'s (``chdtri`` for the χ² quantile, ``chndtr`` for the noncentral χ²
CDF), not ``scipy.stats`` (whose import costs every audit about a second): ``chdtri`` is what
``stats.chi2.isf`` calls, and ``1 - chndtr`` is ``stats.ncx2.sf`` to about 1e-15 (λ* to about 1e-12 relative).
The root λ* is found by `brent_root`, Brent's method in the arithmetic of ``scipy.optimize.brentq`` (the same
floats, tests/test_audit_stats.py), without importing ``scipy.optimize`` (about 0.4 s of CPU at every audit's
start-up).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from functools import lru_cache

from scipy import special

from verify.errors import InputError

#: The power every sample size of the audit is chosen for.
POWER = 0.9


def chi2_isf(alpha: float, df: int) -> float:
    """The χ² critical value: Pr[χ²_df > x] = alpha (``scipy.stats.chi2.isf(alpha, df)``, the same float)."""
    return float(special.chdtri(df, alpha))


def brent_root(f: Callable[[float], float], a: float, b: float, xtol: float, rtol: float, maxiter: int = 100) -> float:
    """The root of ``f`` in [a, b] (f(a), f(b) of opposite signs or zero) by Brent's method (R. P. Brent,
    *Algorithms for Minimization Without Derivatives*, 1973, ch. 4): inverse quadratic extrapolation or the
    secant step when it stays well inside the bracket, else bisection; stops once half the bracket is below
    δ = (xtol + rtol·|x|)/2, then the last step is at least δ.  The operations are those of
    ``scipy.optimize.brentq``'s C loop, in the same order, so its floats are reproduced exactly (tested).

    >>> brent_root(lambda x: x * x - 2.0, 0.0, 2.0, 1e-12, 1e-14)
    1.4142135623731364
    """
    def value(x: float) -> float:
        y = float(f(x))
        if math.isnan(y):
            raise ValueError(f"brent_root: the function is NaN at {x!r}")
        return y

    x_prev, x = float(a), float(b)
    f_prev, fx = value(x_prev), value(x)
    if f_prev * fx > 0:
        raise ValueError(f"brent_root: f({a!r}) and f({b!r}) have the same sign")
    if f_prev == 0:
        return x_prev
    if fx == 0:
        return x
    x_far = f_far = 0.0  # the bracket's other end: the root lies between x and x_far
    step = step_prev = 0.0
    for _ in range(maxiter):
        if f_prev * fx < 0:  # the last step crossed the root: the previous estimate closes the bracket
            x_far, f_far = x_prev, f_prev
            step = step_prev = x - x_prev
        if abs(f_far) < abs(fx):  # keep the best estimate in x
            x_prev, x, x_far = x, x_far, x
            f_prev, fx, f_far = fx, f_far, fx
        tol = (xtol + rtol * abs(x)) / 2
        half = (x_far - x) / 2
        if fx == 0 or abs(half) < tol:
            return x
        if abs(step_prev) > tol and abs(fx) < abs(f_prev):
            if x_prev == x_far:  # secant through the two ends
                trial = -fx * (x - x_prev) / (fx - f_prev)
            else:  # inverse quadratic through the three points
                d_prev = (f_prev - fx) / (x_prev - x)
                d_far = (f_far - fx) / (x_far - x)
                trial = -fx * (f_far * d_far - f_prev * d_prev) / (d_far * d_prev * (f_far - f_prev))
            bound = 3 * abs(half) - tol
            bound = abs(step_prev) if abs(step_prev) < bound else bound
            if 2 * abs(trial) < bound:  # a short step: take it
                step_prev, step = step, trial
            else:
                step = step_prev = half
        else:
            step = step_prev = half
        x_prev, f_prev = x, fx
        x += step if abs(step) > tol else (tol if half > 0 else -tol)
        fx = value(x)
    raise RuntimeError(f"brent_root: no convergence in {maxiter} iterations (last estimate {x!r})")


def _check(df: int, alpha: float, power: float) -> None:
    if isinstance(df, bool) or not isinstance(df, int) or df < 1:
        raise InputError(f"degrees of freedom: {df!r} must be an integer >= 1")
    if not 0 < alpha < 1:
        raise InputError(f"false-alarm rate: {alpha!r} must be in (0, 1)")
    if not alpha < power < 1:
        raise InputError(f"power: {power!r} must be in (α, 1)")


@lru_cache(maxsize=256)
def noncentrality(df: int, alpha: float, power: float = POWER) -> float:
    """λ* with ``ncx2.sf(chi2.isf(alpha, df), df, λ*) = power`` (module docstring).

    >>> round(noncentrality(1, 0.05), 2)  # one degree of freedom: (z_0.975 + z_0.9)² = (1.960 + 1.282)² = 10.51
    10.51
    """
    _check(df, alpha, power)
    crit = chi2_isf(alpha, df)
    f = lambda lam: 1.0 - special.chndtr(crit, df, lam) - power  # noqa: E731  ncx2.sf as 1 - cdf (module docstring)
    hi = 1.0
    while f(hi) < 0:
        hi *= 2
    return brent_root(f, 1e-9, hi, xtol=1e-10, rtol=1e-12)


def detectable_tv(n: int, df: int, alpha: float, power: float = POWER) -> float:
    """The smallest total variation distance detected with probability ``power`` at ``n`` samples."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise InputError(f"samples: {n!r} must be an integer >= 1")
    return math.sqrt(noncentrality(df, alpha, power) / (4 * n))


def samples_for_tv(tv: float, df: int, alpha: float, power: float = POWER) -> int:
    """The samples per side that detect any deviation of total variation >= ``tv`` with ``power``."""
    if not 0 < tv <= 1:
        raise InputError(f"target total variation: {tv!r} must be in (0, 1]")
    return max(1, math.ceil(noncentrality(df, alpha, power) / (4 * tv * tv)))
