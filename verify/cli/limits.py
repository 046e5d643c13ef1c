"""Resource limits of the commands: each run finishes within its budget or is refused up front.

The library accepts larger problems from Python; the command line refuses
them before any work, with the limit in the message.  The limits are chosen so
that a run at the limit needs at most `BUDGET_SECONDS` of CPU time on the
project's 2-core machine; most need at most about a minute (the measured time
at each limit, and its command: docs/limits.md).
Runs that can take more than a few seconds draw a tqdm progress bar on a
terminal (`verify.cli.progress`).
"""

from __future__ import annotations

from fractions import Fraction

from verify.errors import InputError
from verify.exact import fmt

#: CPU-time budget of one command at its limits (seconds, 2-core machine; docs/limits.md): five minutes.
BUDGET_SECONDS = 300

#: Largest number of queries k of ``prob`` per --method.
PROB_MAX_QUERIES = {"symbolic": 6, "mpmath": 50, "fast": 1000}
#: Largest k of ``prob --method fast`` with Gaussian noise (its Gauss–Legendre halting path has no closed
#: pieces: k = 1000 took more than 5 minutes of CPU at load 20).
PROB_FAST_GAUSSIAN_MAX_QUERIES = 500
#: Largest k of ``ratio`` (two mpmath distributions).
RATIO_MAX_QUERIES = 32
#: Largest --max-queries of ``worst-case``.
WORST_CASE_MAX_QUERIES = 12
#: ``worst-case`` integrates between kinks Δ apart in steps of the noise scale: a scale below Δ/100
#: (e.g. ε > 300 with the seed's 3Δ/ε) makes its quadrature hundreds of times slower.
WORST_CASE_MIN_SCALE_OVER_DELTA = Fraction(1, 100)
#: ``worst-case`` rounds its witness to multiples of the largest of the noise scales and Δ written with a
#: denominator of at most 1000 (`verify.family.search_tuning.UNIT_DENOMINATOR`): below 1/1000 that unit would be 0.
WORST_CASE_MIN_UNIT = Fraction(1, 1000)
#: ``worst-case`` pushes queries to tens of the largest noise scale, and confirms its witness on the
#: exact oracle, which reaches about 6,900 of the smallest scale: largest / smallest scale <= 100.
WORST_CASE_MAX_SCALE_RATIO = 100
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
#: Most listed violations of one sweep (--max-violations × number of ε) at 30 digits, scaled by 30/digits
#: above: each is re-evaluated at high precision (about 11 ms at 30 digits, k = 3).
SWEEP_MAX_CONFIRMED = 2000
#: Most outputs ``ratio --outcomes all`` enumerates on the closed form (up to `RATIO_OUTCOMES_DIGITS` digits;
#: scaled by RATIO_OUTCOMES_DIGITS/digits above).
RATIO_MAX_OUTCOMES = 1024
RATIO_OUTCOMES_DIGITS = 100
#: Quadrature (Gaussian noise) work of one command: Σ letters of the evaluated outcome strings ×
#: (digits/30)^3, at most this (about 0.07 s of CPU per unit; 1,120 units is ``ratio --variant
#: gaussian-svt`` at its 32 queries, every output, 30 digits).
QUADRATURE_MAX_WORK = 1200
#: Most rows of ``family --rows`` (the default table's size), each named once.
FAMILY_MAX_ROWS = 16
#: Largest --workers (each worker process imports numpy, mpmath and sympy: ~80 MB).
MAX_WORKERS = 16


def check_queries(k: int, limit: int, what: str) -> None:
    """Refuse k > limit with the limit and the reason in the message."""
    if k > limit:
        raise InputError(f"--queries: {k} queries is above the limit of {limit} for {what} "
                         f"(a run at the limit takes at most {BUDGET_SECONDS // 60} minutes of CPU; see docs/limits.md)")


def check_worst_case_scales(mech) -> None:
    """Refuse noise scales below Δ/100 for the worst-case search (see `WORST_CASE_MIN_SCALE_OVER_DELTA`),
    and a largest scale more than `WORST_CASE_MAX_SCALE_RATIO` times the smallest."""
    largest = max([n.scale for n in (mech.threshold_noise, mech.query_noise) if not n.is_none] + [mech.sensitivity])
    if largest < WORST_CASE_MIN_UNIT:
        raise InputError(f"noise scale: the largest noise scale and Δ are at most {float(largest):.3g}, below "
                         f"{fmt(WORST_CASE_MIN_UNIT)}, the limit of the search (it rounds its witness to multiples of that "
                         "scale written with a denominator of at most 1000; give the queries in larger units, e.g. Δ = 1; "
                         "see docs/limits.md)")
    present = []
    for which, noise in (("threshold", mech.threshold_noise), ("query", mech.query_noise)):
        if not noise.is_none and noise.scale < WORST_CASE_MIN_SCALE_OVER_DELTA * mech.sensitivity:
            raise InputError(f"noise scale: the {which} noise scale {float(noise.scale):.3g} is below Δ/100 = "
                             f"{float(mech.sensitivity / 100):.3g}, the limit of the search (for the seed's scale 3Δ/ε: "
                             f"ε <= 300; see docs/limits.md)")
        if not noise.is_none:
            present.append((noise.scale, which))
    release = getattr(mech, "release_noise", None)
    if release is not None and not release.is_none:
        present.append((release.scale, "release"))
    if len(present) > 1:
        (lo, lo_name), (hi, hi_name) = min(present), max(present)
        if hi > WORST_CASE_MAX_SCALE_RATIO * lo:
            raise InputError(f"noise scale: the {hi_name} noise scale {float(hi):.3g} is more than "
                             f"{WORST_CASE_MAX_SCALE_RATIO} times the {lo_name} noise scale {float(lo):.3g}, the limit of "
                             "the search (its pushed queries would leave the exact oracle's reach; see docs/limits.md)")


def check_quadrature(letters: int, digits: int, what: str) -> None:
    """Refuse quadrature work letters·(digits/30)^3 above `QUADRATURE_MAX_WORK` (``letters``: the letters of
    every outcome string evaluated, e.g. 2k for one ratio row of k letters)."""
    work = letters * (max(digits, 30) / 30) ** 3
    if work > QUADRATURE_MAX_WORK:
        most = int(30 * (QUADRATURE_MAX_WORK / letters) ** (1 / 3))
        hint = f"at most {most} digits here" if most >= 5 else "fewer queries or outputs"
        raise InputError(f"--digits: {digits} digits of quadrature (Gaussian noise, {what}) over {letters} outcome letters is "
                         f"{work:,.0f} units of work, above the limit of {QUADRATURE_MAX_WORK:,} (letters × (digits/30)^3, "
                         f"about 0.07 s each; {hint}; see docs/limits.md)")


def check_outcomes_all(outputs: int, digits: int) -> None:
    """Refuse ``--outcomes all`` over more than `RATIO_MAX_OUTCOMES` outputs (fewer above 100 digits)."""
    cap = RATIO_MAX_OUTCOMES * RATIO_OUTCOMES_DIGITS // max(digits, RATIO_OUTCOMES_DIGITS)
    if outputs > cap:
        raise InputError(f"--outcomes all: {outputs:,} outputs at {digits} digits is above the limit of {cap:,} "
                         f"({RATIO_MAX_OUTCOMES:,} up to {RATIO_OUTCOMES_DIGITS} digits, ·{RATIO_OUTCOMES_DIGITS}/digits above; "
                         "give fewer queries or one --outcomes STRING; see docs/limits.md)")


def check_sweep_listed(max_violations: int, n_epsilons: int, digits: int) -> None:
    """Refuse more than `SWEEP_MAX_CONFIRMED`·30/digits listed violations per sweep."""
    cap = SWEEP_MAX_CONFIRMED * 30 // max(digits, 30)
    if max_violations * n_epsilons > cap:
        raise InputError(f"--max-violations: {max_violations} per ε × {n_epsilons} ε = {max_violations * n_epsilons:,} "
                         f"listed violations is above the limit of {cap:,} per sweep at {digits} digits (each is "
                         "re-evaluated at high precision; give a smaller --max-violations; see docs/limits.md)")


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
