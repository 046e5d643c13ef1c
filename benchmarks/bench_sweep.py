"""Sweep throughput (ratio checks per second) against a per-point scipy quad baseline.

One ratio check = one (q(D), q(D'), output) point: both probabilities and the
comparison |log ratio| <= ε.  Measured in one run, k = 3, Mechanism One (ε = 1):

* grid sweep: the default kind of grid (values t-6Δ..t+6Δ step Δ/2 per coordinate,
  corner shifts): neighbours fall on the grid, so each distinct vector is
  evaluated once per chunk;
* random sweep: seeded random vectors (no reuse between D and D');
* baseline: per check, the two probabilities of the output by
  ``scipy.integrate.quad`` split at every kink (z = 0 and z = q_j - t), what a
  careful user would write without the closed form.

Wall times include starting the worker processes.  Figures are printed as
checks per second and as ratios against the baseline measured here.

    python benchmarks/bench_sweep.py [--workers 2] [--quad-sample 60] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import time
from fractions import Fraction

import numpy as np
from scipy import integrate

from verify.mechanism import AboveThreshold
from verify.sweep import GridSpec, sweep


def quad_probability(mech: AboveThreshold, q: np.ndarray, col: int) -> float:
    """Pr[output in column col] by scipy quad, split at the kinks (Laplace noise)."""
    t = float(mech.threshold)
    bz, bx = float(mech.threshold_noise.scale), float(mech.query_noise.scale)

    def cdf(x):
        return 0.5 * math.exp(x / bx) if x < 0 else 1 - 0.5 * math.exp(-x / bx)

    k = len(q)

    def f(z):
        v = math.exp(-abs(z) / bz) / (2 * bz)
        for j in range(min(col, k)):
            v *= cdf(t + z - q[j])
        if col < k:
            v *= 1 - cdf(t + z - q[col])
        return v

    kinks = sorted({0.0, *[x - t for x in q]})
    bounds = [-math.inf, *kinks, math.inf]
    return sum(integrate.quad(f, lo, hi, epsabs=0, epsrel=1e-12, limit=200)[0] for lo, hi in zip(bounds[:-1], bounds[1:]))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--random", type=int, default=20_000, help="random query vectors in the random sweep")
    ap.add_argument("--quad-sample", type=int, default=60, help="checks timed for the quad baseline")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    mech = AboveThreshold.mechanism_one(1)

    grid = GridSpec(k=3, query_values=tuple(Fraction(j, 2) for j in range(-12, 13)))
    t0 = time.perf_counter()
    rg = sweep(mech, grid, workers=args.workers)
    grid_s = time.perf_counter() - t0

    rand = GridSpec(k=3, random_samples=args.random, seed=1)
    t0 = time.perf_counter()
    rr = sweep(mech, rand, workers=args.workers)
    rand_s = time.perf_counter() - t0

    rng = np.random.default_rng(3)
    t0 = time.perf_counter()
    for _ in range(args.quad_sample):
        q = rng.uniform(-6, 6, 3)
        shift = rng.choice([-1.0, 0.0, 1.0], 3)
        col = int(rng.integers(0, 4))
        a, b = quad_probability(mech, q, col), quad_probability(mech, q + shift, col)
        _ = abs(math.log(a / b)) <= 1.0
    quad_s = time.perf_counter() - t0

    quad_rate = args.quad_sample / quad_s
    result = {
        "k": 3,
        "mechanism": mech.describe(),
        "workers": args.workers,
        "grid_checks": rg.points,
        "grid_seconds": grid_s,
        "grid_checks_per_second": rg.points / grid_s,
        "random_checks": rr.points,
        "random_seconds": rand_s,
        "random_checks_per_second": rr.points / rand_s,
        "quad_checks": args.quad_sample,
        "quad_seconds": quad_s,
        "quad_checks_per_second": quad_rate,
        "grid_speedup_over_quad": rg.points / grid_s / quad_rate,
        "random_speedup_over_quad": rr.points / rand_s / quad_rate,
        "violations": rg.violation_count + rr.violation_count,
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"{mech.describe()}, k = 3, {args.workers} workers (wall time, including process start-up)")
    print(f"grid sweep  : {rg.points:,} checks in {grid_s:.2f} s = {result['grid_checks_per_second']:,.0f} checks/s "
          f"= {result['grid_speedup_over_quad']:,.0f}x quad (target >= 1e6 checks/s)")
    print(f"random sweep: {rr.points:,} checks in {rand_s:.2f} s = {result['random_checks_per_second']:,.0f} checks/s "
          f"= {result['random_speedup_over_quad']:,.0f}x quad")
    print(f"quad        : {args.quad_sample} checks in {quad_s:.2f} s = {quad_rate:,.1f} checks/s (baseline, 1x)")


if __name__ == "__main__":
    main()
