"""Resource limits of the commands: each run finishes within its budget or is refused up front.

The library accepts larger problems from Python; the command line refuses
them before any work, with the limit in the message.  The limits are chosen so
that a run at the limit needs at most about `BUDGET_SECONDS` of CPU time on the
project's 2-core machine (measured figures and commands: docs/limits.md).
Runs that can take more than a few seconds draw a tqdm progress bar on a
terminal (`verify.cli.progress`).
"""

from __future__ import annotations

from fractions import Fraction

from verify.errors import InputError

#: CPU-time budget of one command at its limits (seconds, 2-core machine; docs/limits.md).
BUDGET_SECONDS = 60

#: Largest number of queries k of ``prob`` per --method.
PROB_MAX_QUERIES = {"symbolic": 6, "mpmath": 50, "fast": 1000}
#: Largest k of ``ratio`` (two mpmath distributions).
RATIO_MAX_QUERIES = 32
#: Largest --max-queries of ``worst-case``.
WORST_CASE_MAX_QUERIES = 12
#: ``worst-case`` integrates between kinks Δ apart in steps of the noise scale: a scale below Δ/100
#: (e.g. ε > 300 with the seed's 3Δ/ε) makes its quadrature hundreds of times slower.
WORST_CASE_MIN_SCALE_OVER_DELTA = Fraction(1, 100)
#: ``report`` runs sweeps and the worst-case search at its ε: 1e-8 <= ε <= 300 (the bounds above for the seed's 3Δ/ε).
REPORT_EPSILON_RANGE = (Fraction(1, 10**8), Fraction(300))
#: Largest --max-queries of ``report``.
REPORT_MAX_QUERIES = 8
#: Largest number of points (per ε, times the number of ε) of one ``sweep``.
SWEEP_MAX_POINTS = 12_000_000
#: Below this ε the float64 screen (margin 1e-9) cannot tell |log ratio| from ε, so every point of a
#: sweep is re-evaluated by mpmath (~0.7 ms a point at 30 digits): the grid is limited much more.
SWEEP_SCREEN_EPSILON = Fraction(1, 10**8)
#: Largest number of points of a sweep whose points all go to mpmath (at 30 digits; scaled by 30/digits).
SWEEP_MAX_MPMATH_POINTS = 20_000
#: Largest number of ε values of ``sweep --epsilons``.
SWEEP_MAX_EPSILONS = 100
#: Largest --random of ``sweep`` (query vectors).
SWEEP_MAX_RANDOM = 10_000_000
#: Largest --max-violations of ``sweep`` (each listed violation is re-evaluated at high precision).
SWEEP_MAX_LISTED = 1000
#: Largest --workers (each worker process imports numpy, mpmath and sympy: ~80 MB).
MAX_WORKERS = 16


def check_queries(k: int, limit: int, what: str) -> None:
    """Refuse k > limit with the limit and the reason in the message."""
    if k > limit:
        raise InputError(f"--queries: {k} queries is above the limit of {limit} for {what} "
                         f"(a run at the limit takes at most about {BUDGET_SECONDS} s; see docs/limits.md)")


def check_worst_case_scales(mech) -> None:
    """Refuse noise scales below Δ/100 for the worst-case search (see `WORST_CASE_MIN_SCALE_OVER_DELTA`)."""
    for which, noise in (("threshold", mech.threshold_noise), ("query", mech.query_noise)):
        if not noise.is_none and noise.scale < WORST_CASE_MIN_SCALE_OVER_DELTA * mech.sensitivity:
            raise InputError(f"noise scale: the {which} noise scale {float(noise.scale):.3g} is below Δ/100 = "
                             f"{float(mech.sensitivity / 100):.3g}, the limit of the search (for the seed's scale 3Δ/ε: "
                             f"ε <= 300; see docs/limits.md)")


def check_sweep_points(points: int, smallest_epsilon: Fraction, digits: int) -> None:
    """Refuse a sweep of more than `SWEEP_MAX_POINTS` points (`SWEEP_MAX_MPMATH_POINTS`·30/digits
    when ε < `SWEEP_SCREEN_EPSILON`)."""
    if smallest_epsilon < SWEEP_SCREEN_EPSILON:
        cap = SWEEP_MAX_MPMATH_POINTS * 30 // digits
        if points > cap:
            raise InputError(f"grid: {points:,} points with ε = {float(smallest_epsilon):.3g} is above the limit of {cap:,} "
                             f"points: below ε = 1e-8 every point is re-evaluated at {digits} digits (see docs/limits.md)")
    if points > SWEEP_MAX_POINTS:
        raise InputError(f"grid: {points:,} points is above the limit of {SWEEP_MAX_POINTS:,} points per sweep "
                         "(split the grid, e.g. fewer --epsilons, a smaller --k or --random; see docs/limits.md)")
