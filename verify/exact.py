"""Exact parsing and validation of user numbers.

Numbers on the command line and in the API are decimals (``0.25``, ``1e-3``)
or fractions (``1/3``); they are parsed into `fractions.Fraction` exactly and
nothing is ever passed to ``eval`` or ``sympify``.  The parsers live in
`verify.validate` (ASCII only, bounded size and magnitude): import them from
there.  This module holds exact printing (`fmt`, `exact_decimal`) and sign
checks (`positive`, `non_negative`); `to_fraction` and `parse_vector` are the
old names of `verify.validate.to_number` and `verify.validate.parse_list`, kept
until the last modules that use them move.  Floats given to the API are
converted exactly (``Fraction(0.1)`` is the binary double nearest 1/10).
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction

import mpmath

from verify.errors import InputError
from verify.validate import parse_list, parse_number, to_number  # noqa: F401  (parse_number: doctests)
from verify.verdicts import MechanismVerdict


def to_fraction(value: object, name: str = "value") -> Fraction:
    """Convert an API value (int, Fraction, float, decimal string) exactly.

    >>> to_fraction(0.5)
    Fraction(1, 2)
    >>> to_fraction(float("inf"), "threshold")
    Traceback (most recent call last):
    ...
    verify.errors.InputError: threshold: inf is not a finite number
    """
    return to_number(value, name)


def positive(value: object, name: str) -> Fraction:
    """A strictly positive exact number."""
    x = to_fraction(value, name)
    if x <= 0:
        raise InputError(f"{name}: {fmt(x)} must be > 0")
    return x


def non_negative(value: object, name: str) -> Fraction:
    """A non-negative exact number."""
    x = to_fraction(value, name)
    if x < 0:
        raise InputError(f"{name}: {fmt(x)} must be >= 0")
    return x


def parse_vector(text: str, name: str = "queries") -> tuple[Fraction, ...]:
    """Parse a comma-separated list of numbers, e.g. ``"0,1/2,1.5"`` (`verify.validate.parse_list`)."""
    return parse_list(text, name)


#: An exact decimal longer than this (sign, point and digits) is printed as p/q instead.
MAX_DECIMAL_CHARS = 24


def exact_decimal(x: Fraction) -> str | None:
    """The terminating decimal expansion of ``x``, written out exactly (no exponent), or None
    if ``x`` has none (its denominator has a prime factor other than 2 and 5).

    >>> exact_decimal(Fraction(1, 2**10)), exact_decimal(Fraction(-5, 2)), exact_decimal(Fraction(1, 3))
    ('0.0009765625', '-2.5', None)
    """
    den = x.denominator
    twos = fives = 0
    while den % 2 == 0:
        den //= 2
        twos += 1
    while den % 5 == 0:
        den //= 5
        fives += 1
    if den != 1:
        return None
    places = max(twos, fives)
    scaled = abs(x.numerator) * 10**places // x.denominator  # exact: x.denominator divides 10**places
    sign = "-" if x < 0 else ""
    if places == 0:
        return f"{sign}{scaled}"
    whole, frac = divmod(scaled, 10**places)
    return f"{sign}{whole}.{frac:0{places}d}"


def fmt(x: Fraction) -> str:
    """Short exact text for a Fraction that `parse_number` reads back to the identical value:
    an integer, an exact decimal (at most `MAX_DECIMAL_CHARS` characters) or ``p/q``.

    >>> fmt(Fraction(3)), fmt(Fraction(1, 3)), fmt(Fraction(1, 4)), fmt(Fraction(1, 2**39))
    ('3', '1/3', '0.25', '1/549755813888')
    >>> parse_number(fmt(Fraction(1, 2**39))) == Fraction(1, 2**39)
    True
    """
    if x.denominator == 1:
        return str(x.numerator)
    text = exact_decimal(x)
    if text is not None and len(text) <= MAX_DECIMAL_CHARS:
        return text
    return f"{x.numerator}/{x.denominator}"


def mpf_fraction(x: mpmath.mpf) -> Fraction:
    """A finite mpf as the exact rational it is: mpmath stores (-1)^sign·man·2^exp (its raw form ``_mpf_``).

    >>> mpf_fraction(mpmath.mpf(3) / 4)
    Fraction(3, 4)
    """
    if not mpmath.isfinite(x):
        raise ValueError(f"{x!r} is not a finite number")
    sign, man, exp, _ = x._mpf_  # not mpmath.mpf(x): that would round x to the working precision
    man = -int(man) if sign else int(man)
    return Fraction(man * 2**exp) if exp >= 0 else Fraction(man, 2**-exp)


def check_neighbours(queries: Sequence[Fraction], neighbour: Sequence[Fraction], sensitivity: Fraction,
                     name: str = "neighbour queries") -> None:
    """Refuse, in one line naming ``name``, query vectors that are not neighbouring: the same length and
    |q_j(D) − q_j(D′)| <= Δ for every j (seed, the definition of sensitivity).  Every model and command
    checks neighbours through this one rule.

    >>> check_neighbours([Fraction(0)], [Fraction(1)], Fraction(1))
    >>> check_neighbours([Fraction(0)], [Fraction(2)], Fraction(1), "--neighbour-queries")
    Traceback (most recent call last):
    ...
    verify.errors.InputError: --neighbour-queries: |q_1(D) - q_1(D')| = 2 exceeds the sensitivity Δ = 1
    """
    if len(queries) != len(neighbour):
        raise InputError(f"{name}: length {len(neighbour)} differs from the {len(queries)} queries of D")
    for j, (a, b) in enumerate(zip(queries, neighbour), start=1):
        if abs(a - b) > sensitivity:
            raise InputError(f"{name}: |q_{j}(D) - q_{j}(D')| = {fmt(abs(a - b))} exceeds the sensitivity "
                             f"Δ = {fmt(Fraction(sensitivity))}")


def confirmation_tolerance(digits: int, epsilon: Fraction) -> Fraction:
    """The slack of a loss confirmed at ``digits`` digits, exactly: 10^-(digits-5)·max(1, ε).

    A confirmed loss counts as above a limit (ε, or a proven bound) only past ``limit + tolerance``: a loss
    that equals ε (a bound attained) computes as ε give or take a few units in the last digit, and must
    be neither a witness nor a broken bound.  Every verdict rule uses this one slack.

    >>> confirmation_tolerance(50, Fraction(1, 10)) == Fraction(1, 10**45), confirmation_tolerance(50, Fraction(3))
    (True, Fraction(3, 1000000000000000000000000000000000000000000000))
    """
    return Fraction(1, 10 ** (digits - 5)) * max(Fraction(1), Fraction(epsilon))


def bound_or_witness(bound: Fraction | None, epsilon: Fraction, violated: bool, digits: int) -> tuple[MechanismVerdict, str]:
    """(verdict, method) of the rule every non-SVT model shares (Report Noisy Max, Adaptive SVT): ``private``
    when a proven bound is <= ε, else ``not_private`` when a witness confirmed at ``digits`` exceeds ε by more
    than `confirmation_tolerance` (``violated``), else ``undecided``."""
    if bound is not None and bound <= epsilon:
        return MechanismVerdict.PRIVATE, f"proven bound {fmt(bound)} <= ε = {fmt(epsilon)}"
    if violated:
        return MechanismVerdict.NOT_PRIVATE, f"witness confirmed at {digits} digits exceeds ε = {fmt(epsilon)}"
    return MechanismVerdict.UNDECIDED, "no proven bound <= ε and no witness above ε"


def exceeds(x: mpmath.mpf, limit: Fraction) -> bool:
    """x > limit, decided exactly (no working precision): +inf exceeds every limit, -inf none; NaN is refused.

    >>> exceeds(mpmath.mpf(1) / 3, Fraction(1, 3)), exceeds(mpmath.inf, Fraction(10**9))
    (False, True)
    """
    if mpmath.isnan(x):
        raise ValueError("NaN has no order")
    if mpmath.isinf(x):
        return x > 0
    return mpf_fraction(x) > limit
