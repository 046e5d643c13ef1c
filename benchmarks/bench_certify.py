"""Time to certify (or refute) the conditional inequality and the factor bounds.

For each mechanism: a cold run (every cached 1-D search cleared first, so the
sympy derivations and the ball-arithmetic branch and bound are all timed) of
`certify_conditional_ratio` and `certify_factor_bounds` over ε in the range,
then the median of ``--repeat`` cold runs.  Reported: verdict, boxes, seconds,
minimum margin (nats, exact), sup |log ratio| / ε.  Target: under
60 s per seed mechanism on 2 cores.

    python benchmarks/bench_certify.py [--epsilon-range 0.01:10] [--repeat 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import time

from verify.certify import certify_conditional_ratio, certify_factor_bounds, clear_caches
from verify.certify.results import frac_json
from verify.cli.certify import parse_epsilon_range
from verify.mechanism import AboveThreshold

MECHANISMS = {
    "mechanism one: Lap(3Δ/ε), Lap(3Δ/ε)": AboveThreshold.mechanism_one(1),
    "mechanism two: Exp(3Δ/ε), Exp(3Δ/ε)": AboveThreshold.mechanism_two(1),
    "control: Exp(2Δ/ε), Exp(2Δ/ε)": AboveThreshold.with_noise("exponential", 1, threshold_multiplier=2, query_multiplier=2),
    "control: Lap(3Δ/ε), Lap(Δ/ε)": AboveThreshold.with_noise("laplace", 1, threshold_multiplier=3, query_multiplier=1),
    "control: no threshold noise, Lap(3Δ/ε)": AboveThreshold.with_noise("laplace", 1, threshold_multiplier=0),
}


def run_one(mech: AboveThreshold, eps_range, repeat: int) -> dict:
    times_ratio, times_factors = [], []
    for _ in range(repeat):
        clear_caches()
        t0 = time.perf_counter()
        ratio = certify_conditional_ratio(mech, eps_range)
        t1 = time.perf_counter()
        factors = certify_factor_bounds(mech, eps_range)
        t2 = time.perf_counter()
        times_ratio.append(t1 - t0)
        times_factors.append(t2 - t1)
    return {
        "verdict": ratio.verdict,
        "boxes": ratio.boxes,
        "seconds": statistics.median(times_ratio),
        "seconds_max": max(times_ratio),
        "min_margin": frac_json(ratio.min_margin),
        "sup_log_ratio_per_epsilon": frac_json(ratio.sup_log_ratio_per_epsilon),
        "counterexample_log_ratio": None if ratio.counterexample is None else ratio.counterexample.values["log_ratio"],
        "factor_verdict": factors.verdict,
        "factor_boxes": factors.boxes,
        "factor_seconds": statistics.median(times_factors),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--epsilon-range", default="0.01:10", metavar="LO:HI")
    ap.add_argument("--repeat", type=int, default=3, help="cold runs per mechanism (median reported)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    eps_range = parse_epsilon_range(args.epsilon_range)
    results = {name: run_one(mech, eps_range, args.repeat) for name, mech in MECHANISMS.items()}
    if args.json:
        print(json.dumps({"epsilon_range": args.epsilon_range, "repeat": args.repeat, "results": results}, indent=2, ensure_ascii=False))
        return
    print(f"ε in [{args.epsilon_range.replace(':', ', ')}], median of {args.repeat} cold runs (caches cleared)")
    print(f"{'mechanism':<42} {'verdict':<10} {'boxes':>5} {'seconds':>8} {'margin':>7} {'sup/ε':>6}  "
          f"{'factors':<10} {'boxes':>5} {'seconds':>8}")
    for name, r in results.items():
        print(f"{name:<42} {r['verdict']:<10} {r['boxes']:>5} {r['seconds']:>8.3f} {str(r['min_margin']):>7} "
              f"{str(r['sup_log_ratio_per_epsilon']):>6}  {r['factor_verdict']:<10} {r['factor_boxes']:>5} {r['factor_seconds']:>8.3f}")


if __name__ == "__main__":
    main()
