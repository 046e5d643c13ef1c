"""Fast path vs per-vector scipy.integrate.quad, both checked against mpmath.

One run: N random query vectors (k = 3, seeded) evaluated by the vectorised
fast path; a sample of the same vectors by ``scipy.integrate.quad`` per
output, split at every kink (what a careful user would write); a sample of
both compared with the mpmath path at 30 digits.  Figures are printed as
evaluations per second (one evaluation = all k+1 output probabilities of one
vector) and as the ratio fast/quad measured in this same process.

    python benchmarks/bench_probabilities.py [--n 100000] [--quad-sample 300] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import time
from fractions import Fraction

import mpmath
import numpy as np
from scipy import integrate

from verify.mechanism import AboveThreshold
from verify.probabilities import fast_log_distribution, mp_distribution


def quad_distribution(mech: AboveThreshold, q: np.ndarray) -> np.ndarray:
    """All k+1 output probabilities of one vector by scipy quad, split at the kinks."""
    zn, xn = mech.threshold_noise, mech.query_noise
    t = float(mech.threshold)
    bz, bx = float(zn.scale), float(xn.scale)

    def pdf(z):
        return math.exp(-abs(z) / bz) / (2 * bz)

    def cdf(x):
        return 0.5 * math.exp(x / bx) if x < 0 else 1 - 0.5 * math.exp(-x / bx)

    k = len(q)
    kinks = sorted({0.0, *[x - t for x in q]})
    bounds = [-math.inf, *kinks, math.inf]
    out = np.zeros(k + 1)
    for i in range(k + 1):
        def f(z, i=i):
            v = pdf(z)
            for j in range(min(i, k)):
                v *= cdf(t + z - q[j])
            if i < k:
                v *= 1 - cdf(t + z - q[i])
            return v

        out[i] = sum(integrate.quad(f, lo, hi, epsabs=0, epsrel=1e-12, limit=200)[0] for lo, hi in zip(bounds[:-1], bounds[1:]))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=100_000, help="query vectors for the fast path")
    ap.add_argument("--quad-sample", type=int, default=300, help="vectors for the quad baseline")
    ap.add_argument("--check-sample", type=int, default=200, help="vectors checked against mpmath")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()

    mech = AboveThreshold.mechanism_one(1)
    rng = np.random.default_rng(2026)
    Q = np.round(rng.normal(0, 4, size=(args.n, 3)), 6)

    t0 = time.perf_counter()
    logp, refined = fast_log_distribution(mech, Q)
    fast_s = time.perf_counter() - t0

    sample = Q[: args.quad_sample]
    t0 = time.perf_counter()
    quad_vals = np.array([quad_distribution(mech, row) for row in sample])
    quad_s = time.perf_counter() - t0

    max_fast = max_quad = 0.0
    for row in range(min(args.check_sample, args.quad_sample)):
        exact = mp_distribution(mech, [Fraction(float(x)) for x in Q[row]], digits=30)
        with mpmath.workdps(30):
            for c, e in enumerate(exact):
                max_fast = max(max_fast, float(abs(mpmath.exp(mpmath.mpf(float(logp[row, c]))) / e - 1)))
                max_quad = max(max_quad, float(abs(quad_vals[row, c] / e - 1)))
    fast_rate = args.n / fast_s
    quad_rate = len(sample) / quad_s
    result = {
        "k": 3,
        "mechanism": mech.describe(),
        "fast_vectors": args.n,
        "fast_seconds": fast_s,
        "fast_refined_by_mpmath": int(refined),
        "quad_vectors": len(sample),
        "quad_seconds": quad_s,
        "fast_per_second": fast_rate,
        "quad_per_second": quad_rate,
        "speedup": fast_rate / quad_rate,
        "checked_against_mpmath": min(args.check_sample, args.quad_sample),
        "max_rel_error_fast": max_fast,
        "max_rel_error_quad": max_quad,
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{mech.describe()}, k = 3, one evaluation = all 4 output probabilities of a vector")
    print(f"fast path : {args.n} vectors in {fast_s:.3f} s = {fast_rate:,.0f} /s ({refined} refined by mpmath)")
    print(f"quad      : {len(sample)} vectors in {quad_s:.3f} s = {quad_rate:,.0f} /s")
    print(f"speed-up fast/quad = {fast_rate / quad_rate:,.0f}x (target >= 1000x)")
    print(f"max relative error vs mpmath (30 digits) on {result['checked_against_mpmath']} vectors: "
          f"fast {max_fast:.2e}, quad {max_quad:.2e} (target fast <= 1e-10)")


if __name__ == "__main__":
    main()
