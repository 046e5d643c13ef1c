"""Exact parsing and validation of user numbers.

Numbers on the command line and in the API are decimals (``0.25``, ``1e-3``)
or fractions (``1/3``); they are parsed into `fractions.Fraction` exactly and
nothing is ever passed to ``eval`` or ``sympify``.  The parsers live in
`verify.validate` (ASCII only, bounded size and magnitude); this module keeps
the names the library has always used.  Floats given to the API are
converted exactly (``Fraction(0.1)`` is the binary double nearest 1/10).
"""

from __future__ import annotations

from fractions import Fraction

from verify.errors import InputError
from verify.validate import MAX_EXPONENT, parse_list, parse_number, to_number  # noqa: F401  (one parser: verify.validate)


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


def fmt(x: Fraction) -> str:
    """Short exact text for a Fraction: ``3``, ``1/3``, ``0.25``."""
    if x.denominator == 1:
        return str(x.numerator)
    d = x.denominator
    while d % 2 == 0:
        d //= 2
    while d % 5 == 0:
        d //= 5
    if d == 1 and x.denominator <= 10**12:
        return str(float(x)) if abs(x) < 10**15 else f"{x.numerator}/{x.denominator}"
    return f"{x.numerator}/{x.denominator}"
