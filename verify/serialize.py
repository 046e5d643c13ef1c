"""Text for exact and high-precision numbers, below the CLI (every command and result type uses it).

Rules ("numbers that round-trip"):

* an exact rational is printed so that `verify.exact.parse_number` gives back
  the identical value: an integer, a terminating decimal written exactly, or
  ``p/q`` (`exact_str`);
* an mpmath value to the digits asked (`mp_str`), "0", "inf", "-inf" exactly;
* a float64 value to 17 significant digits, which identifies the double
  uniquely (`float_str`), with the error estimate alongside where it has one.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import mpmath

from verify.mechanism import NO_HALT, Output, SparseVector
from verify.noise import NoiseSpec


def frac_str(x: Fraction) -> str:
    """``p/q`` (or ``p`` for an integer): always exact."""
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


def mp_str(x: mpmath.mpf, digits: int) -> str:
    """Decimal string with ``digits`` significant digits; "0", "inf", "-inf" exactly."""
    if x == 0:
        return "0"
    if mpmath.isinf(x):
        return "inf" if x > 0 else "-inf"
    with mpmath.workdps(digits + 5):
        return mpmath.nstr(x, digits, min_fixed=-5, max_fixed=digits + 1, strip_zeros=False)


def mp_number(x: mpmath.mpf) -> float | str:
    """A JSON number for a high-precision value shown at float64 resolution; "inf"/"-inf"/"nan" as strings."""
    if mpmath.isnan(x):
        return "nan"
    if mpmath.isinf(x):
        return "inf" if x > 0 else "-inf"
    return float(x)


def float_or_str(x: float) -> float | str:
    """JSON has no inf/nan: write them as strings."""
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if math.isnan(x):
        return "nan"
    return x


def output_json(o: Output) -> int | str:
    """An output as JSON: the index i of s_i, or "none" for ⊤^k."""
    return o if o == NO_HALT else int(o)


def noise_spec_json(s: NoiseSpec) -> dict[str, Any]:
    """`NoiseSpec.to_json` (one spelling of a noise in JSON)."""
    return s.to_json()


def mechanism_json(m: SparseVector) -> dict[str, Any]:
    """The mechanism's parameters, exactly (fractions as p/q)."""
    return {
        "epsilon": frac_str(m.epsilon),
        "sensitivity": frac_str(m.sensitivity),
        "threshold": frac_str(m.threshold),
        "threshold_noise": noise_spec_json(m.threshold_spec),
        "query_noise": noise_spec_json(m.query_spec),
        "description": m.describe(),
    }


#: Significant digits that identify a float64 uniquely (printed, they parse back to the same double).
FLOAT64_DIGITS = 17


def float_str(x: float) -> str:
    """A float64 to 17 significant digits ("inf", "-inf", "nan" as words): parses back to the identical double.

    >>> float_str(0.1), float(float_str(0.1)) == 0.1
    ('0.10000000000000001', True)
    """
    if math.isnan(x) or math.isinf(x):
        return str(float_or_str(x))
    return f"{x:.{FLOAT64_DIGITS}g}"
