"""One piece of an mpmath quadrature to a relative tolerance: the rule Report Noisy Max
(`verify.selection.probability`) and Adaptive SVT (`verify.adaptive.probability`) integrate with.

mpmath's tanh-sinh quadrature (``mpmath.quad``) stops on an absolute error estimate, so a tiny integral
would come out with no correct digit.  `relative_piece` divides the integrand by its largest value
at the piece's finite ends and midpoint (1 where all are 0), so that the tolerance is relative to the
piece's size, and accepts a value at the first degree of ``degrees`` whose estimated error is at most
10^-(dps - guard + 1) of the value.  mpmath's estimate is sometimes floored far above the true error
(its docstring: "not very conservative"), so otherwise the piece is recomputed with ``guard`` more
digits at degree 10 and accepted where the two agree to that tolerance; else `ArithmeticError`.

The caller runs under `verify.precision.MPMATH_LOCK` at ``dps`` digits (its digits plus ``guard``)
and splits its integral at every kink first: a piece is analytic inside.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import mpmath


def relative_piece(f: Callable[[Any], Any], a: Any, c: Any, dps: int, guard: int,
                   degrees: Sequence[int] = (6, 8)) -> Any:
    """∫_a^c f (no kink inside; ±inf allowed) to dps − guard digits relative (module docstring)."""
    probes = [x for x in (a, c) if mpmath.isfinite(x)]
    if len(probes) == 2:
        probes.append((a + c) / 2)
    scale = max((abs(f(x)) for x in probes), default=mpmath.mpf(0))
    if scale == 0:
        scale = mpmath.mpf(1)

    def g(x: Any) -> Any:
        return f(x) / scale

    tol = mpmath.mpf(10) ** (-(dps - guard + 1))
    for degree in degrees:
        value, err = mpmath.quad(g, [a, c], error=True, maxdegree=degree)
        if value == 0 or err <= abs(value) * tol:
            return value * scale
    with mpmath.workdps(dps + guard):
        again = mpmath.quad(g, [a, c], maxdegree=10)
    if abs(again - value) <= abs(again) * tol:
        return again * scale
    raise ArithmeticError(f"quadrature did not reach {dps - guard} digits on [{mpmath.nstr(a, 8)}, {mpmath.nstr(c, 8)}] "
                          f"({mpmath.nstr(value, 8)} against {mpmath.nstr(again, 8)} at {guard} more digits)")
