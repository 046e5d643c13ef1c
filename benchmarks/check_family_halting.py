"""Accuracy check of the halting path (`verify.engine.fast_halting`) against mpmath, seeded.

Query vectors (cycled): uniform in [-6, 6]; clustered (N(0, 0.05) around a uniform centre); ties
(each value four times); far tails (a fifth of the queries at -80, 80 or 150).  k = 3 (40 vectors)
and k = 20 (12): every output against the seed's `mp_distribution` (40 digits); k = 100 (4) and
k = 1000 (2, uniform and clustered): a few outputs against `verify.family.probability.mp_probability`
(30 digits).  Prints, per preset, the values checked (estimate <= 1e-12), the largest relative
error among them, how many exceed 1e-12 (must be 0) and how many values were left to escalation
(estimate above 1e-12), and the largest ratio of the actual error to the estimate (must be <= 1).

    PYTHONPATH=. python benchmarks/check_family_halting.py [PRESET ...] [--seed 1]
"""

from __future__ import annotations

import argparse
from fractions import Fraction

import mpmath
import numpy as np

from verify.engine.fast_halting import halting_distribution
from verify.family import preset
from verify.family.fast_api import FAST_TOLERANCE
from verify.family.probability import mp_probability
from verify.probabilities import mp_distribution as seed_mp

PLAN = [(3, 40, None), (20, 12, None), (100, 4, [0, 1, 2, 5, 10, 25, 40]), (1000, 2, [0, 1, 3, 10])]


def _rel(logv: float, exact: mpmath.mpf) -> float:
    with mpmath.workdps(30):
        return abs(float(mpmath.expm1(mpmath.mpf(logv) - mpmath.log(exact))))


def _vector(rng: np.random.Generator, k: int, kind: int) -> np.ndarray:
    if kind == 0:
        q = rng.uniform(-6, 6, k)
    elif kind == 1:
        q = rng.normal(0, 0.05, k) + rng.uniform(-3, 3)
    elif kind == 2:
        q = np.resize(np.repeat(rng.uniform(-5, 5, max(1, k // 4)), 4), k)
    else:
        q = rng.uniform(-6, 6, k)
        q[rng.integers(0, k, max(1, k // 5))] = rng.choice([-80.0, 80.0, 150.0], max(1, k // 5))
    return np.round(q, 4)


def check(name: str, seed: int) -> dict:
    m = preset(name)
    rng = np.random.default_rng(seed)
    checked = fails = escalated = 0
    worst = worst_ratio = 0.0
    for k, count, outs in PLAN:
        for c in range(count):
            q = _vector(rng, k, c % 4)
            res = halting_distribution(m, q[None, :])
            fq = [Fraction(str(x)) for x in q]
            cols = range(k + 1) if outs is None else outs
            exact = seed_mp(m, fq, 40) if outs is None else [
                mp_probability(m, fq, "B" * i + ("A" if i < k else ""), None, 30) for i in cols]
            for col, e in zip(cols, exact):
                if res.error_estimate[0, col] > FAST_TOLERANCE:
                    escalated += 1
                    continue
                r = _rel(res.log_value[0, col], e)
                checked += 1
                worst = max(worst, r)
                worst_ratio = max(worst_ratio, r / res.error_estimate[0, col])
                fails += r > FAST_TOLERANCE
    return {"preset": name, "checked": checked, "max_rel_err": worst, "over_tolerance": fails,
            "escalated": escalated, "max_error_over_estimate": worst_ratio}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("presets", nargs="*", default=["seed-m1", "seed-m2", "dwork-roth"])
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    for name in args.presets:
        r = check(name, args.seed)
        print(f"{r['preset']}: {r['checked']} values checked, max relative error {r['max_rel_err']:.1e}, "
              f"{r['over_tolerance']} over 1e-12, {r['escalated']} left to escalation; "
              f"largest error / estimate {r['max_error_over_estimate']:.2f}")


if __name__ == "__main__":
    main()
