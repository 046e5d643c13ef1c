"""One lock for mpmath's working precision.

mpmath keeps its working precision in a single process-wide context:
``mp.workdps(n)`` raises it for *every* thread until the block ends, and a
block ending in one thread lowers it under another thread's feet.  Two threads
evaluating the mpmath path at once can therefore return values correct to 15
digits instead of 30 (seen in the test suite with a thread-based Dask worker).
Every high-precision section of the library runs under `MPMATH_LOCK`; the lock
is re-entrant, so sections nest, and it costs nothing in throughput because
mpmath holds the GIL anyway.  Processes (the default for sweeps) each have
their own context and their own lock.
"""

from __future__ import annotations

import threading

from verify.errors import InputError

MPMATH_LOCK = threading.RLock()

#: Digits any mpmath path accepts (the oracle's independent re-check keeps its own narrower range).
MIN_DIGITS, MAX_DIGITS = 5, 1000

#: The fast float64 paths' one promise: estimated relative error at most this, else the row is recomputed
#: with mpmath.  1e-12, the stricter of the two promises the seed's and the family's fast paths made: both
#: estimate their own error and recompute the rows above it, so the stricter promise costs only time on
#: ill-conditioned rows and never an answer, and a float64 log-probability near 1 still has ~4 digits of
#: headroom above the machine epsilon 2.2e-16 times the condition numbers the estimates admit.
FAST_TOLERANCE = 1e-12


def check_digits(digits: int) -> int:
    """``digits`` if it is an integer from MIN_DIGITS to MAX_DIGITS, else a one-line InputError."""

    if isinstance(digits, bool) or not isinstance(digits, int) or not MIN_DIGITS <= digits <= MAX_DIGITS:
        raise InputError(f"digits: {digits!r} must be an integer from {MIN_DIGITS} to {MAX_DIGITS}")
    return digits
