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
"""

from __future__ import annotations

import math
from functools import lru_cache

from scipy import optimize, special

from verify.errors import InputError

#: The power every sample size of the audit is chosen for.
POWER = 0.9


def chi2_isf(alpha: float, df: int) -> float:
    """The χ² critical value: Pr[χ²_df > x] = alpha (``scipy.stats.chi2.isf(alpha, df)``, the same float)."""
    return float(special.chdtri(df, alpha))


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
    return float(optimize.brentq(f, 1e-9, hi, xtol=1e-10, rtol=1e-12))


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
