"""Gauss-Legendre on the family oracle's panels (`verify.oracles.family`, Gaussian noise).

Between two kinks the oracle's integrand p_Z(z)·Π F/S/p(t + z - q_i) is analytic (Gaussian density and
erfc are entire, a Laplace or exponential branch is an exponential, no noise is a constant), so an n-point
Gauss-Legendre rule on a panel of width h converges like an entire function's Taylor remainder: for a
factor e^{c·u} on the panel mapped to u ∈ [-1, 1], the error is about (c/2)^{2n}/(2n)!
(Abramowitz and Stegun 25.4.29 for the remainder; Trefethen,
*Approximation Theory and Approximation Practice*, ch. 19).  The oracle's panels
(`verify.oracles.family._mass_panels`: 2·digits + 20 equal panels over the region where the log-integrand is
within digits·ln 10 + 30 nats of its peak) keep that slope per half-panel c below about 2.4 for every
Gaussian, Laplace or exponential factor (a quadratic log-integrand: c = (digits·ln 10 + 30)/(digits + 10));
`points_for` takes c = 3 with a margin of 5 digits (c = 1.5 on the layout with twice the panels).  The rule is a heuristic like tanh-sinh's own error
estimate; the guard is the oracle's: two panel layouts (one twice as fine) must agree to 10^-digits.

The two infinite tails (beyond the region, at most e^{-(digits·ln 10 + 30)} of the peak) keep
``mpmath.quad`` (tanh-sinh with its change of variables for an infinite interval).

Measured (benchmarks/bench_gaussian_oracle.py): the same values as tanh-sinh on every panel to the digits
asked, with about a sixth of the integrand evaluations.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from functools import lru_cache

import mpmath


def points_for(dps: int, slope: float = 3.0) -> int:
    """The least n whose Gauss-Legendre remainder for f = e^{c·u} on [-1, 1] (c = ``slope``) is at most
    10^-(dps + 5): E_n = 2^{2n+1}(n!)^4 / ((2n+1)((2n)!)^3) · f^{(2n)}(ξ) (Abramowitz and Stegun 25.4.29),
    |f^{(2n)}| <= c^{2n}e^c.  60 working digits: 29 points (measured: 20 already reach 1e-61 on the corpus of
    benchmarks/bench_gaussian_oracle.py, 15 only 1e-46)."""
    target = -(dps + 5) * math.log(10)

    def log_error(n: int) -> float:
        return ((2 * n + 1) * math.log(2) + 4 * math.lgamma(n + 1) - math.log(2 * n + 1) - 3 * math.lgamma(2 * n + 1)
                + 2 * n * math.log(slope) + slope)

    n = 2
    while log_error(n) > target:
        n += 1
    return n


@lru_cache(maxsize=16)
def legendre_rule(n: int, prec: int) -> tuple[tuple[mpmath.mpf, ...], tuple[mpmath.mpf, ...]]:
    """Nodes and weights of the n-point Gauss-Legendre rule on (-1, 1) to ``prec`` bits: the midpoints of
    arb's enclosures (`arb.legendre_p_root`, Johansson and Mezzarobba, SIAM J. Sci. Comput. 40(6), 2018)."""
    import flint

    def mp(x) -> mpmath.mpf:
        man, exp = x.mid().man_exp()
        return mpmath.mpf((int(man), int(exp)))

    with flint.ctx.workprec(prec + 20):
        pairs = [flint.arb.legendre_p_root(n, k, weight=True) for k in range(n)]
    return tuple(mp(x) for x, _ in pairs), tuple(mp(w) for _, w in pairs)


def integrate(f: Callable, edges: Sequence, n: int | None = None) -> mpmath.mpf:
    """∫ f over the panels between consecutive ``edges``: Gauss-Legendre (n points, `points_for` the working
    precision by default) on every finite panel, ``mpmath.quad`` on an infinite one."""
    n = n or points_for(mpmath.mp.dps)
    xs, ws = legendre_rule(n, mpmath.mp.prec)
    total = mpmath.mpf(0)
    for lo, hi in zip(edges, edges[1:]):
        if not hi > lo:
            continue
        if mpmath.isinf(lo) or mpmath.isinf(hi):
            total += mpmath.quad(f, [lo, hi])
            continue
        half, mid = (hi - lo) / 2, (hi + lo) / 2
        total += half * mpmath.fsum(w * f(mid + half * x) for x, w in zip(xs, ws))
    return total
