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

MPMATH_LOCK = threading.RLock()
