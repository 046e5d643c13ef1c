"""The peers' side of `bench_peers.py`: runs one DP-Sniper or StatDP search in their own interpreter.

Started by `bench_peers.py` as ``PEER_PYTHON peers_child.py {dpsniper,statdp} ...`` with the
peer's checkout on ``sys.path``; it imports nothing from svt-verify, only the peer and numpy.
It prints one JSON object on stdout: the peer's reported lower bound, the pair and the event it
came from, and the CPU seconds of the run (user + system of this process and of every worker
process it started and joined, `resource.getrusage`), so that the driver can set them against
svt-verify's exact values and its own CPU time.

DP-Sniper (eth-sri/dp-sniper): `DDSearch` with `DPSniper` and the logistic-regression attack of
``dpsniper/experiments/exp_default.py`` (same features, optimiser and epochs), on the StatDP
patterns over 10 queries in [-10, 10], then `DDWitness.compute_eps_high_precision`, as
``dpsniper/example.py`` does; the sample counts are ``scale`` times `DDConfig`'s defaults.
The event is DP-Sniper's attack S (a probabilistic set: ``attack.check(b)`` is Pr[b in S]);
for outputs that are finite letter strings the driver sends the complete list of outputs
(``--outputs``) and this script returns ``attack.check`` on each, so that the driver can sum
the exact probabilities.

StatDP (cmla-psu/statdp): `statdp.detect_counterexample` on its own SVT algorithms
(``statdp/algorithms.py``) with its own input patterns, ``event_iterations`` and
``detect_iterations`` ``scale`` times its defaults, over a grid of test ε; StatDP rejects
"ε0-DP" when the p-value is below 0.05, so its lower bound is the largest rejected ε0, at that
test's pair and event.  NumPy 2 removed ``np.bool``, which StatDP's ``core.py`` uses: it is
aliased to ``bool`` here (StatDP's code itself is not modified).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import tempfile
import time

import numpy as np

#: DP-Sniper's `DDConfig` defaults (dpsniper/search/ddconfig.py).
DPS_DEFAULTS = {"n_train": 10_700_000, "n": 10_700_000, "n_check": 10_700_000, "n_final": 200_000_000}
#: StatDP's `detect_counterexample` defaults (statdp/core.py).
STATDP_DEFAULTS = {"event_iterations": 100_000, "detect_iterations": 500_000}


def _cpu() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    ch = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + ch.ru_utime + ch.ru_stime


def scaled(n: int, scale: float) -> int:
    """``n·scale`` rounded to a multiple of 1000 (DP-Sniper refuses other sizes >= 10,000), at least 1000."""
    return max(1000, int(round(n * scale / 1000.0)) * 1000)


def _dpsniper_mechanism(name: str):
    from dpsniper.classifiers.feature_transformer import FlagsFeatureTransformer
    from dpsniper.mechanisms import sparse_vector_technique as svt

    # exp_default.py, lines 61-71 and 87: (instance, classifier input size, feature transform)
    table = {
        "SparseVectorTechnique1": (svt.SparseVectorTechnique1(c=1, t=0.5), 20, FlagsFeatureTransformer([-1])),
        "SparseVectorTechnique2": (svt.SparseVectorTechnique2(c=1, t=1), 20, FlagsFeatureTransformer([-1])),
        "SparseVectorTechnique3": (svt.SparseVectorTechnique3(c=1, t=1), 30, FlagsFeatureTransformer([-1000.0, -2000.0])),
        "SparseVectorTechnique4": (svt.SparseVectorTechnique4(c=1, t=1), 20, FlagsFeatureTransformer([-1])),
        "SparseVectorTechnique5": (svt.SparseVectorTechnique5(c=1, t=1), 10, None),
        "SparseVectorTechnique6": (svt.SparseVectorTechnique6(c=1, t=1), 10, None),
        "NumericalSVT": (svt.NumericalSVT(), 10, None),
    }
    return table[name]


#: Released values at which SparseVectorTechnique3's attack is evaluated (step 0.1; Lap(20) query noise at ε = 0.1).
RELEASE_GRID = (-2000.0, 2000.0, 40001)
MAX_CHANGES = 100


def released_switches(attack, k: int) -> dict:
    """SparseVectorTechnique3 (c = 1): Pr[o in S] along each output B^j A(v) (-1000 = below, v at j, -2000 after),
    on `RELEASE_GRID`.  Per j: the weight left of the grid and every grid cell ``[lo, hi]`` where it changes, with
    the weight right of it (None beyond `MAX_CHANGES` changes); and the weight of the all-below output."""
    grid = np.linspace(*RELEASE_GRID)
    per_j = []
    for j in range(k):
        b = np.full((grid.size, k), -2000.0)
        b[:, :j] = -1000.0
        b[:, j] = grid
        w = np.asarray(attack.check(b), dtype=float)
        change = np.nonzero(np.diff(w))[0]
        if change.size > MAX_CHANGES:
            per_j.append(None)
            continue
        per_j.append({"left": float(w[0]),
                      "changes": [[float(grid[i]), float(grid[i + 1]), float(w[i + 1])] for i in change]})
    below = float(attack.check(np.full((1, k), -1000.0))[0])
    return {"per_j": per_j, "all_below": below, "grid": list(RELEASE_GRID)}


def run_dpsniper(args) -> dict:
    import random

    import torch
    from dpsniper.attack.dpsniper import DPSniper
    from dpsniper.classifiers.classifier_factory import LogisticRegressionFactory
    from dpsniper.classifiers.torch_optimizer_factory import SGDOptimizerFactory
    from dpsniper.input.input_domain import InputBaseType, InputDomain
    from dpsniper.input.pattern_generator import PatternGenerator
    from dpsniper.search.ddconfig import DDConfig
    from dpsniper.search.ddsearch import DDSearch
    from dpsniper.utils.initialization import initialize_dpsniper

    np.random.seed(args.seed)
    random.seed(args.seed)
    torch.manual_seed(args.seed)
    mech, size, transform = _dpsniper_mechanism(args.mechanism)
    counts = {k: scaled(v, args.scale) for k, v in DPS_DEFAULTS.items()}
    config = DDConfig(n_processes=args.processes, **counts)
    factory = LogisticRegressionFactory(feature_transform=transform, in_dimensions=size,
                                        optimizer_factory=SGDOptimizerFactory(learning_rate=0.3, momentum=0.3, step_size=500),
                                        regularization_weight=0.001, epochs=10, label=args.mechanism)
    generator = PatternGenerator(InputDomain(10, InputBaseType.FLOAT, [-10, 10]), True)
    out_dir = tempfile.mkdtemp(prefix="dpsniper-")
    cpu0, wall0 = _cpu(), time.perf_counter()
    with initialize_dpsniper(config, out_dir=out_dir, torch_threads=1):
        witness = DDSearch(mech, DPSniper(mech, factory, config), generator, config).run()
        witness.compute_eps_high_precision(mech, config)
    cpu, wall = _cpu() - cpu0, time.perf_counter() - wall0
    weights = switches = None
    if args.mechanism == "SparseVectorTechnique3":
        switches = released_switches(witness.attack, len(witness.a1))
    if args.outputs:
        with open(args.outputs) as f:
            outs = np.asarray(json.load(f), dtype=float)
        weights = [float(w) for w in witness.attack.check(outs)]
    return {"tool": "DP-Sniper", "mechanism": args.mechanism, "lower_bound": float(witness.lower_bound),
            "estimate": float(witness.eps), "a1": [float(x) for x in witness.a1], "a2": [float(x) for x in witness.a2],
            "event": "attack " + str(witness.attack).split(", CLASSIFIER")[0], "weights": weights, "switches": switches, "cpu_seconds": cpu, "wall_seconds": wall,
            "samples": counts, "c": getattr(mech, "c", None), "t": float(mech.t), "epsilon": float(getattr(mech, "eps", 0.1))}


def run_statdp(args) -> dict:
    if not hasattr(np, "bool"):
        np.bool = bool  # StatDP's core.py predates NumPy 2 (np.bool removed); same type as before
    import statdp.algorithms as algs
    from statdp import ALL_DIFFER, detect_counterexample

    np.random.seed(args.seed)  # StatDP's p-value sampler (numba, np.random); its own runs use default_rng()
    algorithm = getattr(algs, args.mechanism)
    kwargs = {"epsilon": args.epsilon, "N": args.cutoff, "T": args.threshold}
    grid = [float(x) for x in args.test_epsilon.split(",")]
    iters = {k: max(1, int(round(v * args.scale))) for k, v in STATDP_DEFAULTS.items()}
    cpu0, wall0 = _cpu(), time.perf_counter()
    result = detect_counterexample(algorithm, grid, dict(kwargs), num_input=(args.queries,), cores=args.processes,
                                   sensitivity=ALL_DIFFER, quiet=True, **iters)
    cpu, wall = _cpu() - cpu0, time.perf_counter() - wall0
    tests = [{"test_epsilon": e, "p_value": p, "d1": [float(x) for x in d1], "d2": [float(x) for x in d2],
              "event": [list(ev) if isinstance(ev, tuple) else ev for ev in event]}
             for e, p, d1, d2, _, event in result]
    rejected = [t for t in tests if t["p_value"] < args.alpha]
    best = max(rejected, key=lambda t: t["test_epsilon"]) if rejected else None
    return {"tool": "StatDP", "mechanism": args.mechanism, "lower_bound": best["test_epsilon"] if best else 0.0,
            "best": best, "tests": tests, "cpu_seconds": cpu, "wall_seconds": wall, "samples": iters,
            "c": args.cutoff, "t": args.threshold, "epsilon": args.epsilon, "alpha": args.alpha}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("tool", choices=("dpsniper", "statdp"))
    p.add_argument("--path", required=True, help="the peer's checkout (put on sys.path)")
    p.add_argument("--mechanism", required=True)
    p.add_argument("--scale", type=float, required=True, help="fraction of the peer's default sample counts")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--processes", type=int, default=1)
    p.add_argument("--outputs", help="DP-Sniper: JSON list of output vectors to evaluate the attack on")
    p.add_argument("--epsilon", type=float, default=0.1)
    p.add_argument("--cutoff", type=int, default=1)
    p.add_argument("--threshold", type=float, default=1.0)
    p.add_argument("--queries", type=int, default=10)
    p.add_argument("--test-epsilon", default="0.05,0.1,0.2")
    p.add_argument("--alpha", type=float, default=0.05)
    args = p.parse_args(argv)
    sys.path.insert(0, os.path.abspath(args.path))
    out = run_dpsniper(args) if args.tool == "dpsniper" else run_statdp(args)
    json.dump(out, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
