"""Whether numpy's float64 exp, log, log1p and expm1 are the C library's here, and how to make them so in a child.

The compiled structured loop (`verify.family.structured_kernel`) performs numpy's operations in numpy's order
with the C library's elementary functions (numba calls libm, as ``math`` does).  Its values are numpy's bit for
bit where numpy's float64 loops for those functions are libm's too.  On a CPU with AVX-512, numpy dispatches
loops of its own for them, which differ from libm in the last bit on a few per cent of arguments (seen on an
AMD EPYC with AVX-512: 9,242 of 200,000 uniform arguments of exp differ): there the bit-for-bit comparisons
run in a child process started with those loops turned off (`NPY_DISABLE_CPU_FEATURES`, numpy's switch).
"""

from __future__ import annotations

import math

import numpy as np


def numpy_is_libm() -> bool:
    """True if numpy's exp, log, log1p and expm1 give ``math``'s bits on 4,096 seeded arguments each."""
    x = np.random.default_rng(20261207).uniform(-40.0, 40.0, 4096)
    cases = (
        (np.exp, math.exp, x),
        (np.log, math.log, np.abs(x) + 1e-3),
        (np.log1p, math.log1p, np.abs(x) / 41.0 - 0.5),
        (np.expm1, math.expm1, x / 8.0),
    )
    return all(np.array_equal(f(a), np.array([g(t) for t in a.tolist()])) for f, g, a in cases)


def avx512_off() -> dict[str, str]:
    """The environment of a child whose numpy dispatches none of its AVX-512 loops (empty if there are none)."""
    try:  # numpy's own record of its dispatch targets (numpy.core before numpy 2)
        from numpy._core import _multiarray_umath as umath
    except ImportError:  # pragma: no cover - numpy 1.26
        from numpy.core import _multiarray_umath as umath

    present = getattr(umath, "__cpu_features__", {})
    targets = [t for t in getattr(umath, "__cpu_dispatch__", []) if present.get(t) and ("AVX512" in t or t == "X86_V4")]
    return {"NPY_DISABLE_CPU_FEATURES": " ".join(targets)} if targets else {}


#: Computed once per process (about 10 ms).
LIBM = numpy_is_libm()
