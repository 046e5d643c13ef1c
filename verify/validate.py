"""Validation of every user value: one rule per kind of value, one-line `InputError`.

The command line (`verify.cli.flags`) and the library's Python API use the
same functions, so a value is accepted or refused for the same reason however
it arrives.  Conventions (docs/limits.md):

* Text is ASCII where it is a number: ``١٢`` (Arabic-Indic digits) is refused,
  not read as 12 — Python's ``int()``/``str.isdigit()`` would accept it.
* Numbers are decimals (``0.25``, ``1e-3``) or fractions (``1/3``), parsed
  exactly into `fractions.Fraction`; never ``eval``/``sympify``.  A number token
  has at most `MAX_NUMBER_CHARS` characters and a decimal exponent within
  ±`MAX_EXPONENT`.  On the command line its value is 0 or has magnitude in
  [10^-`MAX_MAGNITUDE_DIGITS`, 10^`MAX_MAGNITUDE_DIGITS`].  That bound is what
  makes every number supported end to end: a product or quotient of up to six
  such numbers (scale = c·Δ/ε, (q - t)/scale, ...) stays inside float64's range
  (about 1.8e308), which the fast path and the plots need.  ``1e999`` is
  refused with the bound in the message.  Values the library takes from Python
  (`to_number`; also values derived from three numbers, such as a noise scale
  c·Δ/ε) are bounded by 10^±`MAX_VALUE_DIGITS`.  `parse_number` without a
  bound reads back every exact value the program prints.
* Integers are ASCII digits only (no sign, no exponent, no underscores) within
  an explicit range per value.
* Lists have at most `MAX_LIST` entries; text values are non-empty, at most
  `MAX_TEXT_CHARS` characters, without control characters.

Every message is one line: values are shown with `shown`, which escapes
control characters and shortens long values.

The ``name`` argument names the value in the message (``"--epsilon"``,
``"epsilon"``); with ``name=""`` the message is the rule alone (the CLI's
argparse puts the flag in front).
"""

from __future__ import annotations

import math
import os
import re
from decimal import Decimal
from fractions import Fraction
from numbers import Rational, Real

from verify.errors import InputError

#: Longest number token (characters), checked before any conversion: Python's
#: ``int()`` refuses strings over 4300 digits with a ValueError of its own.
MAX_NUMBER_CHARS = 1000
#: Longest p/q token: a decimal of `MAX_NUMBER_CHARS` characters is printed back as p/q with up to
#: twice as many digits, and whatever is printed must parse back (both parts stay under int()'s 4300 digits).
MAX_FRACTION_CHARS = 2 * MAX_NUMBER_CHARS + 1
#: Largest |decimal exponent| written in a number (``1e1000``).
MAX_EXPONENT = 1000
#: A nonzero number written as text has magnitude in [10^-50, 10^50] (see the module docstring).
MAX_MAGNITUDE_DIGITS = 50
#: Any exact value the library takes (from Python, or derived such as a noise scale c·Δ/ε from three
#: numbers within 10^±50) has magnitude in [10^-150, 10^150]: a product or quotient of two such values
#: still fits in float64.
MAX_VALUE_DIGITS = 150
#: Longest comma-separated list.
MAX_LIST = 10_000
#: Longest text value (paths, claim IDs, addresses).
MAX_TEXT_CHARS = 4096
#: Longest file name (one path component), in bytes: the limit of common file systems (NAME_MAX).
MAX_NAME_BYTES = 255
#: Integers are at most 19 digits (int64 reaches 9223372036854775807) before their range is checked.
MAX_INT_DIGITS = 19

_DECIMAL = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?", re.ASCII)
_FRACTION = re.compile(r"[+-]?\d+/\d+", re.ASCII)
_DIGITS = re.compile(r"\d+", re.ASCII)
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


def shown(value: object, limit: int = 40) -> str:
    """A value as it appears in a one-line message: repr, control characters
    escaped, long values shortened with their length.

    >>> shown("1e5")
    "'1e5'"
    >>> shown("9" * 100000)
    "'99999999999999999999…9999999999' (100000 characters)"
    """
    if isinstance(value, str) and len(value) > limit:
        return f"{value[:20] + '…' + value[-10:]!r} ({len(value)} characters)"
    text = repr(value)
    return text if len(text) <= limit + 10 else text[:limit] + "…"


def fail(name: str, rule: str) -> InputError:
    """The error for a value that breaks ``rule``: ``name: rule`` (or the rule alone)."""
    return InputError(f"{name}: {rule}" if name else rule)


# --------------------------------------------------------------------------------------------------
# numbers
# --------------------------------------------------------------------------------------------------
def check_magnitude(x: Fraction, name: str, shown_as: str | None = None, digits: int = MAX_MAGNITUDE_DIGITS) -> Fraction:
    """``x`` if it is 0 or 10^-digits <= |x| <= 10^digits, else InputError with the bound."""
    if x != 0:
        a = abs(x)
        # compare without building 10^digits for every call when x is moderate
        top = a.numerator.bit_length() - a.denominator.bit_length()
        if not -3.33 * digits + 2 < top < 3.32 * digits - 2:
            bound = Fraction(10) ** digits
            if not 1 / bound <= a <= bound:
                what = shown_as if shown_as is not None else ("the value" if len(str(x)) > 60 else str(x))
                raise fail(name, f"{what} is outside the supported magnitudes: 0 or 1e-{digits} <= |x| <= 1e{digits}")
    return x


def parse_number(text: str, name: str = "value", digits: int | None = None) -> Fraction:
    """Parse a decimal or a fraction exactly (ASCII only, bounded size); with ``digits``,
    also 0 or 10^-digits <= |x| <= 10^digits (the command line uses `MAX_MAGNITUDE_DIGITS`).

    Without ``digits`` every printed exact value parses back (``parse_number(fmt(x)) == x``).

    >>> parse_number("0.1")
    Fraction(1, 10)
    >>> parse_number("1/3")
    Fraction(1, 3)
    >>> parse_number("1e999", "--epsilon", MAX_MAGNITUDE_DIGITS)
    Traceback (most recent call last):
    ...
    verify.errors.InputError: --epsilon: '1e999' is outside the supported magnitudes: 0 or 1e-50 <= |x| <= 1e50
    >>> parse_number("١٢", "--k")
    Traceback (most recent call last):
    ...
    verify.errors.InputError: --k: '١٢' is not a finite number (write ASCII digits: a decimal such as 0.5 or a fraction such as 1/3)
    """
    if not isinstance(text, str):
        raise fail(name, f"{shown(text)} is not text")
    s = text.strip()
    if not s:
        raise fail(name, "the value is empty (give a number such as 0.5 or 1/3)")
    is_fraction = len(s) <= MAX_FRACTION_CHARS and _FRACTION.fullmatch(s) is not None
    limit = MAX_FRACTION_CHARS if is_fraction else MAX_NUMBER_CHARS
    if len(s) > limit:
        raise fail(name, f"{shown(text)} is longer than {limit} characters")
    if is_fraction:
        num, den = s.split("/")
        if int(den) == 0:
            raise fail(name, f"{shown(text)} has a zero denominator")
        x = Fraction(int(num), int(den))
        return x if digits is None else check_magnitude(x, name, shown(text), digits)
    if _DECIMAL.fullmatch(s):
        _, _, exponent = s.lower().partition("e")
        if exponent and abs(int(exponent)) > MAX_EXPONENT:  # at most MAX_NUMBER_CHARS digits: int() is safe
            raise fail(name, f"{shown(text)} has a decimal exponent beyond ±{MAX_EXPONENT}")
        x = Fraction(s)
        return x if digits is None else check_magnitude(x, name, shown(text), digits)
    raise fail(name, f"{shown(text)} is not a finite number "
                     "(write ASCII digits: a decimal such as 0.5 or a fraction such as 1/3)")


def to_number(value: object, name: str = "value") -> Fraction:
    """An API value (int, Fraction, float, decimal string) as an exact Fraction, bounded magnitude.

    >>> to_number(0.5)
    Fraction(1, 2)
    >>> to_number(float("inf"), "threshold")
    Traceback (most recent call last):
    ...
    verify.errors.InputError: threshold: inf is not a finite number
    """
    if isinstance(value, bool):
        raise fail(name, f"{value!r} is a bool, not a number")
    if isinstance(value, str):
        return parse_number(value, name, MAX_VALUE_DIGITS)
    if isinstance(value, Fraction):
        x = value
    elif isinstance(value, Decimal):  # exact: a Decimal is a finite decimal fraction (or NaN/inf)
        if not value.is_finite():
            raise fail(name, f"{value!r} is not a finite number")
        x = Fraction(value)
    elif isinstance(value, Rational):
        x = Fraction(int(value.numerator), int(value.denominator))
    elif isinstance(value, Real):
        f = float(value)
        if not math.isfinite(f):
            raise fail(name, f"{value!r} is not a finite number")
        x = Fraction(f)
    else:
        raise fail(name, f"{shown(value)} is not a number")
    return check_magnitude(x, name, digits=MAX_VALUE_DIGITS)


def number_in(value: object, name: str, *, lo: Fraction | int | None = None, hi: Fraction | int | None = None,
              lo_open: bool = False, digits: int | None = None) -> Fraction:
    """A number with ``lo <= x`` (``lo < x`` when ``lo_open``) and ``x <= hi`` (text: magnitude
    bound 10^±``digits`` when given)."""
    x = parse_number(value, name, digits) if isinstance(value, str) and digits is not None else to_number(value, name)
    what = (value.strip() if len(value.strip()) <= 40 else shown(value.strip())) if isinstance(value, str) else _short(x)
    if lo is not None and (x <= lo if lo_open else x < lo):
        raise fail(name, f"{what} must be {'>' if lo_open else '>='} {_short(Fraction(lo))}")
    if hi is not None and x > hi:
        raise fail(name, f"{what} must be <= {_short(Fraction(hi))}")
    return x


def positive(value: object, name: str, digits: int | None = None) -> Fraction:
    """A number > 0."""
    return number_in(value, name, lo=0, lo_open=True, digits=digits)


def non_negative(value: object, name: str, digits: int | None = None) -> Fraction:
    """A number >= 0."""
    return number_in(value, name, lo=0, digits=digits)


def _short(x: Fraction) -> str:
    s = str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"
    return s if len(s) <= 60 else f"{float(x):.6g}"


# --------------------------------------------------------------------------------------------------
# integers
# --------------------------------------------------------------------------------------------------
def integer_in(value: object, name: str, lo: int, hi: int) -> int:
    """An integer in [lo, hi]: ASCII digits (text) or a Python/NumPy int, never a bool or a float.

    >>> integer_in("12", "--k", 1, 64)
    12
    >>> integer_in("١٢", "--k", 1, 64)
    Traceback (most recent call last):
    ...
    verify.errors.InputError: --k: '١٢' is not an integer from 1 to 64 (ASCII digits only)
    """
    rule = f"an integer from {lo} to {hi}"
    if isinstance(value, str):
        s = value.strip()
        if not s:
            raise fail(name, f"the value is empty (give {rule})")
        if not _DIGITS.fullmatch(s):
            raise fail(name, f"{shown(value)} is not {rule} (ASCII digits only)")
        if len(s) > MAX_NUMBER_CHARS:  # the numbers' rule: long text is refused before it is read, zeros or not
            raise fail(name, f"{shown(value)} is longer than {MAX_NUMBER_CHARS} characters: it must be {rule}")
        s = s.lstrip("0") or "0"  # parse what was measured: 5,000 leading zeros are not an int() overflow
        if len(s) > MAX_INT_DIGITS:
            raise fail(name, f"{shown(value)} is too large: it must be {rule}")
        v = int(s)
    elif isinstance(value, bool) or not hasattr(value, "__index__"):
        raise fail(name, f"{shown(value)} is not {rule}")
    else:
        v = int(value.__index__())
    if not lo <= v <= hi:
        raise fail(name, f"{v if abs(v) < 10**20 else 'the value'} must be {rule}")
    return v


# --------------------------------------------------------------------------------------------------
# lists, pairs, ranges
# --------------------------------------------------------------------------------------------------
def float_rows(queries: object, name: str = "queries") -> np.ndarray:  # noqa: F821 (numpy imported lazily)
    """``queries`` as a 2-d float64 array of finite numbers (one row per query vector)."""
    import numpy as np

    try:
        q = np.atleast_2d(np.asarray(queries, dtype=float))
    except (TypeError, ValueError, OverflowError):
        raise fail(name, f"{shown(queries)} is not an array of numbers") from None
    if q.ndim != 2 or not np.all(np.isfinite(q)):
        raise fail(name, "every value must be a finite number, in a 2-d array (one row per query vector)")
    if q.shape[1] > MAX_LIST:
        raise fail(name, f"{q.shape[1]} queries per vector; at most {MAX_LIST:,}")
    return q


def sequence(values: object, name: str, max_len: int | None = None) -> tuple:
    """``values`` as a tuple: a list, tuple, range or 1-d array of values (not a string or a scalar)."""
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__") or isinstance(values, (dict, set, frozenset)):
        raise fail(name, f"{shown(values)} is not a list of values")
    try:
        out = tuple(values)
    except TypeError:
        raise fail(name, f"{shown(values)} is not a list of values") from None
    if max_len is not None and len(out) > max_len:
        raise fail(name, f"{len(out)} values; at most {max_len}")
    return out


def parse_list(text: str, name: str, max_len: int = MAX_LIST, digits: int | None = None) -> tuple[Fraction, ...]:
    """A comma-separated list of numbers, e.g. ``"0,1/2,1.5"`` (1..max_len entries)."""
    if not isinstance(text, str):
        raise fail(name, f"{shown(text)} is not text")
    if not text.strip():
        raise fail(name, "the list is empty (give numbers separated by commas)")
    if text.count(",") >= max_len:
        raise fail(name, f"the list has {text.count(',') + 1} entries; at most {max_len}")
    out = []
    for pos, part in enumerate(text.split(","), start=1):
        if not part.strip():
            raise fail(name, f"entry {pos} of {shown(text)} is empty")
        out.append(parse_number(part, f"{name}[{pos}]" if name else f"entry {pos}", digits))
    return tuple(out)


def parse_pair(text: str, name: str, sep: str = ",", digits: int | None = None) -> tuple[Fraction, Fraction]:
    """``LO<sep>HI`` with LO < HI."""
    parts = text.split(sep) if isinstance(text, str) else []
    if len(parts) != 2 or not all(p.strip() for p in parts):
        raise fail(name, f"{shown(text)} is not LO{sep}HI (two numbers separated by {sep!r})")
    lo, hi = (parse_number(p, name, digits) for p in parts)
    if not lo < hi:
        raise fail(name, f"LO = {parts[0].strip()[:40]} must be below HI = {parts[1].strip()[:40]}")
    return lo, hi


def parse_grid(text: str, name: str, max_len: int = MAX_LIST, digits: int | None = None) -> tuple[Fraction, ...]:
    """A list ``a,b,c`` or an arithmetic range ``LO:HI:STEP`` (HI included when on the grid),
    at most ``max_len`` values."""
    if isinstance(text, str) and ":" in text:
        parts = text.split(":")
        if len(parts) != 3:
            raise fail(name, f"{shown(text)} is not LO:HI:STEP")
        lo, hi, step = (parse_number(p, name, digits) for p in parts)
        if step <= 0:
            raise fail(name, f"step {_short(step)} must be > 0")
        if hi < lo:
            raise fail(name, f"{_short(hi)} is below {_short(lo)}")
        n = (hi - lo) // step + 1
        if n > max_len:
            raise fail(name, f"{shown(text)} has {n if n < 10**20 else 'more than 1e20'} values; at most {max_len}")
        return tuple(lo + j * step for j in range(int(n)))
    return parse_list(text, name, max_len, digits)


# --------------------------------------------------------------------------------------------------
# text, paths, addresses
# --------------------------------------------------------------------------------------------------
def text_value(value: object, name: str, max_chars: int = MAX_TEXT_CHARS) -> str:
    """Non-empty text of at most ``max_chars`` characters without control characters."""
    if not isinstance(value, str):
        raise fail(name, f"{shown(value)} is not text")
    if not value.strip():
        raise fail(name, "the value is empty")
    if len(value) > max_chars:
        raise fail(name, f"{shown(value)} is longer than {max_chars} characters")
    if _CONTROL.search(value):
        raise fail(name, f"{shown(value)} contains a control character")
    return value


def output_path(value: object, name: str, suffix: str | None = None) -> str:
    """A file to write: non-empty, ends in ``suffix`` (if given), its folder exists, not a folder itself.

    Checked before a long run so that it does not fail at the end.
    """
    path = text_value(value, name)
    if suffix is not None and not path.lower().endswith(suffix):
        raise fail(name, f"{shown(path)} must end in {suffix}")
    folder = os.path.dirname(os.path.abspath(path))
    base = os.path.basename(path)
    if len(base.encode("utf-8", "surrogateescape")) > MAX_NAME_BYTES:
        raise fail(name, f"{shown(path)}: the file name is longer than {MAX_NAME_BYTES} bytes")
    if os.path.isdir(path):
        raise fail(name, f"{shown(path)} is a folder, not a file")
    if not os.path.isdir(folder):
        raise fail(name, f"{shown(path)}: the folder {shown(folder)} does not exist")
    if not os.access(folder, os.W_OK):
        raise fail(name, f"{shown(path)}: the folder {shown(folder)} is not writable")
    return path


_HOST = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\]", re.ASCII)


def scheduler_address(value: object, name: str) -> tuple[str, str, int]:
    """A Dask scheduler address ``tcp://HOST:PORT`` (or ``tls://``): returns (scheme, host, port).

    >>> scheduler_address("tcp://127.0.0.1:8786", "--scheduler")
    ('tcp', '127.0.0.1', 8786)
    """
    text = text_value(value, name, max_chars=300)
    rule = "is not a scheduler address tcp://HOST:PORT (or tls://HOST:PORT), PORT from 1 to 65535"
    scheme, sep, rest = text.strip().partition("://")
    host, colon, port = rest.rpartition(":")
    if not sep or scheme not in ("tcp", "tls") or not colon or not _HOST.fullmatch(host) or not _DIGITS.fullmatch(port):
        raise fail(name, f"{shown(text)} {rule}")
    p = int(port) if len(port) <= 5 else 0
    if not 1 <= p <= 65535:
        raise fail(name, f"{shown(text)} {rule}")
    return scheme, host.strip("[]"), p
