"""Records the generic fast path's values and error estimates, or compares them bit for bit.

`verify.engine.fast_generic.log_probability` over every preset, the cutoffs 1, 2 and unlimited (a
preset whose scales grow with c is built at c = 2 and its cutoff then lifted), two parameter sets
(ε = Δ = 1, t = 0; ε = 1/2, Δ = 1, t = 1/3), k in (1, 2, 3, 5, 8, 13, 20), outcome strings (all
of them for k <= 3, else eight seeded random complete strings), released values for the variants
that release (seeded; for a gap, one row with a negative value), and rows of queries: seeded
uniform in [-6, 6], ties, and far tails (|q| up to 1e3 scales, which takes the log-space branch).
Also `verify.family.fast_api.fast_log_distribution` of the non-halting variants that release
nothing at k <= 5 (its per-outcome loop).

    python benchmarks/check_fast_generic_identity.py record FILE
    python benchmarks/check_fast_generic_identity.py compare FILE [--presets NAME ...]

``compare`` prints the number of cases, the number whose bytes differ (must be 0) and the first few.
"""

from __future__ import annotations

import argparse
import dataclasses
import pickle
import sys
from fractions import Fraction

import numpy as np

from verify.engine.fast_generic import log_probability
from verify.errors import InputError
from verify.family.fast_api import fast_log_distribution
from verify.family.presets import NAMES, PRESETS, preset

KS = (1, 2, 3, 5, 8, 13, 20)
PARAMS = ((1, 1, 0), (Fraction(1, 2), 1, Fraction(1, 3)))


def variants(names=NAMES):
    for name in names:
        for eps, delta, t in PARAMS:
            for cutoff in (1, 2, None):
                try:
                    if cutoff is None and PRESETS[name].scales_with_cutoff:
                        mech = dataclasses.replace(preset(name, eps, delta, t, cutoff=2), cutoff=None)
                    else:
                        mech = preset(name, eps, delta, t, cutoff=cutoff)
                except (InputError, ValueError, TypeError) as exc:
                    yield (name, str(eps), str(t), str(cutoff)), exc
                    continue
                yield (name, str(eps), str(t), str(cutoff)), mech


def outcomes(mech, k: int, rng: np.random.Generator) -> list[str]:
    if k <= 3:
        return mech.outputs(k)
    out = []
    for _ in range(8):
        letters = []
        for _ in range(k):
            letters.append("A" if rng.random() < 0.3 else "B")
            if mech.cutoff is not None and letters.count("A") == mech.cutoff:
                break
        out.append("".join(letters))
    return out


def query_rows(rng: np.random.Generator, k: int, scale: float) -> np.ndarray:
    uniform = rng.uniform(-6, 6, (3, k))
    ties = np.repeat(rng.uniform(-3, 3, (1, (k + 1) // 2)), 2, axis=1)[:, :k]
    far = rng.uniform(-6, 6, (1, k))
    far[0, ::3] = rng.choice([-1e3, 1e3, 40.0], size=far[0, ::3].shape) * scale
    return np.concatenate([uniform, ties, far])


def released_rows(mech, rng: np.random.Generator, n: int, n_a: int) -> np.ndarray | None:
    if not mech.releases_values:
        return None
    v = np.round(rng.uniform(-2, 6, (n, n_a)), 3)
    if mech.release_rule.nonnegative:
        v = np.abs(v)
        if n_a:
            v[-1, 0] = -0.5
    return v


def cases(names=NAMES):
    for key, mech in variants(names):
        if isinstance(mech, Exception):
            yield key, ("refused", str(mech))
            continue
        rng = np.random.default_rng(sum(map(ord, "|".join(key))))  # seeded per variant
        scale = float(mech.query_noise.scale) if not mech.query_noise.is_none else 1.0
        for k in KS:
            q = query_rows(rng, k, scale)
            for s in outcomes(mech, k, rng):
                v = released_rows(mech, rng, q.shape[0], s.count("A"))
                try:
                    res = log_probability(mech, q, s, v)
                    yield (*key, k, s), (res.log_value.tobytes(), res.error_estimate.tobytes())
                except InputError as exc:
                    yield (*key, k, s), ("error", str(exc))
            if k <= 5 and not mech.releases_values and not mech.is_above_threshold:
                logp, outs, refined = fast_log_distribution(mech, q)
                yield (*key, k, "distribution"), (logp.tobytes(), tuple(outs), refined)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("mode", choices=("record", "compare"))
    ap.add_argument("file")
    ap.add_argument("--presets", nargs="*", default=list(NAMES), help="compare: only these presets' cases")
    args = ap.parse_args()
    got = dict(cases(tuple(args.presets)))
    if args.mode == "record":
        with open(args.file, "wb") as fh:
            pickle.dump(got, fh)
        print(f"recorded {len(got)} cases")
        return 0
    with open(args.file, "rb") as fh:
        want = {key: value for key, value in pickle.load(fh).items() if key[0] in args.presets}
    differ = [key for key in want.keys() | got.keys() if want.get(key) != got.get(key)]
    print(f"{len(want)} cases recorded, {len(got)} now; {len(differ)} differ")
    for key in sorted(differ, key=str)[:10]:
        print("  ", key)
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
