"""DP-Sniper and StatDP run side by side with svt-verify on the same machine, checked against exact losses.

    python benchmarks/bench_peers.py --dpsniper PATH --statdp PATH [--peer-python PY]
        [--scale 0.001] [--statdp-scale 0.1] [--only NAME ...]

For each SVT mechanism of the peers' own code (DP-Sniper: ``SparseVectorTechnique1..6`` and
``NumericalSVT`` of ``dpsniper/mechanisms/sparse_vector_technique.py``, configured as in its
``exp_default.py``; StatDP: ``SVT`` and ``iSVT1..4`` of ``statdp/algorithms.py``) the peer runs
in its own interpreter (`peers_child.py`) at a stated fraction of its default sample counts, and
this script prints:

* the peer's reported lower bound on the privacy loss, and the pair (inputs) and output event it
  came from;
* the exact loss of *that event at that pair* in the svt-verify preset the mechanism maps to
  (`PEERS`): DP-Sniper's attack S is a probabilistic set (``attack.check(b)`` = Pr[b in S]), so
  Pr[M(a) in S] = Σ_o Pr[M(a) = o]·Pr[o in S] over every complete output o; StatDP's event is a set
  of values of its post-processed output (the count of ``False``, or the Hamming distance to a fixed
  pattern), so Pr = Σ over the outputs that map into it.  Output probabilities come from
  `verify.oracles.family.output_probability` (mpmath, 30 digits) up to `ORACLE_MAX_OUTPUTS` outputs,
  else from the family fast path (`fast_log_distribution`, float64 with an error estimate at most
  `verify.precision.FAST_TOLERANCE` relative, recomputed with mpmath above it);
* the pair's own supremum over events (the largest single-output log ratio, in the peer's
  direction), and the worst-case loss and proven bound of `family_worst_case` at k <= 10 queries;
* the CPU-time ratio: the peer's CPU seconds (user + system of its process and of the worker
  processes it starts and joins) over svt-verify's for the same preset (`family_worst_case`, the
  search that gives the verdict, `time.process_time` plus joined children, after a warm-up that
  compiles the numba kernels), measured in the same run on the same machine;
* the check: every reported lower bound is at most the exact loss of its event, at most the pair's
  supremum, and at most the worst-case loss.  Their bounds hold at stated confidence (DP-Sniper:
  `DDConfig.confidence` 0.9; StatDP: p < 0.05), so a correct peer fails the first check with
  probability at most 0.1 (DP-Sniper) or 0.05 (StatDP) per row: that is the false-alarm rate.

Released values: for DP-Sniper's SparseVectorTechnique3 (cutoff 1) the event's probability is
integrated over the released value (`released_tail`), with the attack located on a grid, which gives
an enclosure of the event loss whose upper end is checked (`released_event_losses`).  NumericalSVT
(two released values) and StatDP's iSVT4 are checked against the worst-case loss only (``n/a``).

Exit code 0 when every check holds, 1 when one fails, 2 on a missing or wrong path (or a peer run that
fails, e.g. for want of its dependencies in ``--peer-python``).
"""

from __future__ import annotations

import argparse
import functools
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from itertools import zip_longest
from pathlib import Path

import mpmath

from verify.errors import InputError

HERE = Path(__file__).resolve().parent
#: Up to this many complete outputs the event probability is summed with the 30-digit oracle.
ORACLE_MAX_OUTPUTS = 64
#: The peers' configuration (DP-Sniper's exp_default.py, statdpwrapper's mechanism_config.py).
EPSILON = Fraction(1, 10)
QUERIES = 10


class OutputKind(StrEnum):
    """How the peer encodes an output, and so how its event maps onto svt-verify's outcome strings."""

    LETTERS = "letters"  # DP-Sniper: 1 = above, 0 = below, -1 = aborted, per query
    RELEASED = "released"  # released real values: event probability not computed here
    FALSE_COUNT = "false-count"  # StatDP SVT: out.count(False)
    HAMMING = "hamming"  # StatDP iSVT1-3: Hamming distance (zip_longest) to [True]*(n//2) + [False]*(n - n//2)


@dataclass(frozen=True)
class PeerMechanism:
    """One of the peers' SVT mechanisms and the svt-verify preset with the same noises, cutoff and rule."""

    tool: str
    name: str
    preset: str
    cutoff: int | None
    threshold: Fraction
    output: OutputKind
    epsilon: Fraction = EPSILON

    def variant(self):
        """The svt-verify variant (`verify.family.presets.preset`) at the peer's ε, Δ = 1 and t."""
        from verify.family.presets import preset

        return preset(self.preset, epsilon=self.epsilon, sensitivity=1, threshold=self.threshold, cutoff=self.cutoff)


def _m(tool: str, name: str, preset: str, cutoff: int | None, t: str, kind: OutputKind) -> PeerMechanism:
    return PeerMechanism(tool, name, preset, cutoff, Fraction(t), kind)


L, R = OutputKind.LETTERS, OutputKind.RELEASED
#: The peers' SVT mechanisms (scales checked line by line against the peers' code: see the presets'
#: docstrings; StatDP's iSVT3/iSVT4 compare with ``>``, the presets with ``>=``: the same law,
#: ties have probability 0 under continuous noise).
PEERS: dict[tuple[str, str], PeerMechanism] = {
    (m.tool, m.name): m
    for m in (
        _m("DP-Sniper", "SparseVectorTechnique1", "lyu-1", 1, "1/2", L),
        _m("DP-Sniper", "SparseVectorTechnique2", "lyu-2", 1, "1", L),
        _m("DP-Sniper", "SparseVectorTechnique3", "lyu-3", 1, "1", R),
        _m("DP-Sniper", "SparseVectorTechnique4", "lyu-4", 1, "1", L),
        _m("DP-Sniper", "SparseVectorTechnique5", "lyu-5", None, "1", L),
        _m("DP-Sniper", "SparseVectorTechnique6", "lyu-6", None, "1", L),
        _m("DP-Sniper", "NumericalSVT", "numeric-svt", 2, "1", R),
        _m("StatDP", "SVT", "lyu-1", 1, "1/2", OutputKind.FALSE_COUNT),
        _m("StatDP", "iSVT1", "lyu-5", None, "1", OutputKind.HAMMING),
        _m("StatDP", "iSVT2", "lyu-6", None, "1", OutputKind.HAMMING),
        _m("StatDP", "iSVT3", "lyu-4", 1, "1", OutputKind.HAMMING),
        _m("StatDP", "iSVT4", "lyu-3", 1, "1", R),
    )
}


def peer(tool: str, name: str) -> PeerMechanism:
    """The mapping of a peer's mechanism name; unknown names are refused in one line."""
    key = (tool, name)
    if key not in PEERS:
        known = ", ".join(n for t, n in PEERS if t == tool)
        raise InputError(f"mechanism: {name!r} is not one of {tool}'s SVT mechanisms ({known})")
    return PEERS[key]


def dpsniper_vector(outcome: str, k: int) -> list[float]:
    """DP-Sniper's encoding of an outcome string: A -> 1, B -> 0, then -1 for every aborted query."""
    return [1.0 if ch == "A" else 0.0 for ch in outcome] + [-1.0] * (k - len(outcome))


def statdp_value(kind: OutputKind, outcome: str, k: int) -> int:
    """StatDP's post-processed output of an outcome string (``statdp/algorithms.py``)."""
    out = [ch == "A" for ch in outcome]
    if kind is OutputKind.FALSE_COUNT:
        return out.count(False)
    if kind is OutputKind.HAMMING:
        pattern = [i < k // 2 for i in range(k)]
        return sum(a != b for a, b in zip_longest(pattern, out))
    raise InputError(f"output: {kind} has no single StatDP value")


def in_statdp_event(value: float, event: object) -> bool:
    """StatDP's membership rule (``statdp/core.py``, `run_algorithm`): a number is an equality, a pair an open interval."""
    if isinstance(event, (list, tuple)):
        lo, hi = (float(x) for x in event)
        return lo < value < hi
    return value == event


@dataclass
class Row:
    """One peer result set against svt-verify's exact values (losses in nats)."""

    mech: PeerMechanism
    lower_bound: float
    pair: tuple[list[float], list[float]]
    event: str
    event_loss: mpmath.mpf | None
    pair_max: mpmath.mpf | None
    worst_loss: mpmath.mpf
    worst_bound: Fraction | None
    peer_cpu: float
    our_cpu: float
    method: str
    checks: dict[str, bool] = field(default_factory=dict)

    def __post_init__(self) -> None:
        lb = mpmath.mpf(self.lower_bound)
        if self.event_loss is not None:
            self.checks["LB <= event loss"] = lb <= self.event_loss
        if self.pair_max is not None:
            self.checks["LB <= pair sup"] = lb <= self.pair_max
        self.checks["LB <= worst case"] = lb <= self.worst_loss

    @property
    def ok(self) -> bool:
        return all(self.checks.values())

    @property
    def ratio(self) -> float:
        return self.peer_cpu / max(self.our_cpu, 1e-9)


def output_log_probabilities(shape, queries: list[float], outputs: list[str]) -> tuple[list[mpmath.mpf], str]:
    """log Pr[A(q) = o] for each outcome string: the oracle (30 digits) for few outputs, else the fast path."""
    q = [Fraction(x) for x in queries]
    if len(outputs) <= ORACLE_MAX_OUTPUTS:
        from verify.oracles.family import output_probability

        with mpmath.workdps(45):
            return [mpmath.log(output_probability(shape, q, o, digits=30)) for o in outputs], "oracle, 30 digits"
    import numpy as np

    from verify.family.fast_api import fast_log_distribution

    logp, outs, _ = fast_log_distribution(shape, np.asarray([queries], dtype=float))
    by = dict(zip(outs, logp[0]))
    return [mpmath.mpf(float(by[o])) for o in outputs], "fast path, float64 with error estimate"


def _log_sum(logs: list[mpmath.mpf], weights: list[float]) -> mpmath.mpf:
    terms = [lg + mpmath.log(w) for lg, w in zip(logs, weights) if w > 0 and lg > -mpmath.inf]
    if not terms:
        return -mpmath.inf
    top = max(terms)
    return top + mpmath.log(mpmath.fsum(mpmath.exp(t - top) for t in terms))


def event_losses(mech: PeerMechanism, a1: list[float], a2: list[float], weights_of) -> tuple[mpmath.mpf, mpmath.mpf, str]:
    """(log Pr[M(a1) in S] - log Pr[M(a2) in S], max over outputs of the log ratio, method).

    ``weights_of(outputs)`` gives Pr[o in S] for each outcome string (DP-Sniper's attack, or StatDP's
    indicator)."""
    shape = mech.variant()
    k = len(a1)
    outputs = shape.outputs(k)
    with mpmath.workdps(45):
        l1, method = output_log_probabilities(shape, a1, outputs)
        l2, _ = output_log_probabilities(shape, a2, outputs)
        w = weights_of(outputs)
        loss = _log_sum(l1, w) - _log_sum(l2, w)
        sup = max((x - y if y > -mpmath.inf else mpmath.inf) for x, y in zip(l1, l2) if x > -mpmath.inf)
        return loss, sup, method


def statdp_event_losses(mech: PeerMechanism, d1: list[float], d2: list[float], event: list) -> tuple[mpmath.mpf, mpmath.mpf, str]:
    """StatDP orders its counts so that the larger side is first: its bound is on the larger direction."""
    k = len(d1)

    def weights(outputs: list[str]) -> list[float]:
        return [1.0 if in_statdp_event(statdp_value(mech.output, o, k), event[0]) else 0.0 for o in outputs]

    f_loss, f_sup, method = event_losses(mech, d1, d2, weights)
    b_loss, b_sup, _ = event_losses(mech, d2, d1, weights)
    return max(f_loss, b_loss), max(f_sup, b_sup), method


def released_tail(shape, queries: list[float], j: int, r: mpmath.mpf) -> mpmath.mpf:
    """Pr[B^j A with released q_j + X_j >= r] for a shared-threshold variant that releases the noisy query
    (lyu-3), conditioning on Z as `verify.oracles.family` does (seed, Proof 1):

        ∫ p_Z(z) Π_{i<j} F(t + z - q_i) · S(max(t + z, r) - q_j) dz,

    F(y) = Pr[X < y], S(y) = Pr[X >= y]; ``r = -inf`` gives Pr[B^j A].  mpmath.quad split at every kink
    (z = 0, q_i - t, r - t).  Remembered per (shape, queries, j, r, working precision): the enclosure asks
    for each tail at every cell edge of both sides, and a tail is the same number whoever asks."""
    return _released_tail(shape, tuple(queries), j, mpmath.mpf(r), mpmath.mp.prec)


@functools.lru_cache(maxsize=4096)
def _released_tail(shape, queries: tuple[float, ...], j: int, r: mpmath.mpf, prec: int) -> mpmath.mpf:
    """`released_tail` at the working precision ``prec`` (bits; the caller's, in the key)."""
    zn, xn, t = shape.threshold_noise, shape.query_noise, mpmath.mpf(shape.threshold.numerator) / shape.threshold.denominator
    bz, bx = (mpmath.mpf(n.scale.numerator) / n.scale.denominator for n in (zn, xn))
    q = [mpmath.mpf(x) for x in queries]

    def f(z):
        v = zn.law.mp_pdf(z, bz) * xn.law.mp_sf(max(t + z, r) - q[j], bx)
        for i in range(j):
            v *= xn.law.mp_cdf(t + z - q[i], bx)
        return v

    kinks = sorted({mpmath.mpf(0), *(x - t for x in q[: j + 1]), *([r - t] if r > -mpmath.inf else [])})
    return mpmath.quad(f, [-mpmath.inf, *kinks, mpmath.inf])


def released_event_losses(mech: PeerMechanism, a1: list[float], a2: list[float], switches: dict) -> tuple[mpmath.mpf, mpmath.mpf] | None:
    """An enclosure [low, high] of log Pr[M(a1) in S] - log Pr[M(a2) in S] for DP-Sniper's attack on
    SparseVectorTechnique3 (lyu-3, c = 1), from the attack's weights along each output B^j A(v) on a grid
    (`peers_child.released_switches`): constant between the grid cells where it changes, anything between
    its two neighbours' values inside such a cell, and constant beyond the grid (the attack is logistic
    regression on the released value).  None when the weights change too often along some output."""
    shape = mech.variant()
    if shape.cutoff != 1 or str(shape.release) != "query" or any(s is None for s in switches["per_j"]):
        return None
    k = len(a1)
    with mpmath.workdps(30):
        def bounds(a: list[float]) -> tuple[mpmath.mpf, mpmath.mpf]:
            lo_sum = hi_sum = mpmath.mpf(0)
            for j, sw in enumerate(switches["per_j"]):
                # Pr[v >= x] at -inf, at every cell edge, and +inf (0): masses of the runs and of the cells
                w, start = sw["left"], mpmath.mpf(1) * released_tail(shape, a, j, -mpmath.inf)
                for lo, hi, after in sw["changes"]:
                    at_lo = released_tail(shape, a, j, mpmath.mpf(lo))
                    at_hi = released_tail(shape, a, j, mpmath.mpf(hi))
                    lo_sum += w * (start - at_lo) + min(w, after) * (at_lo - at_hi)
                    hi_sum += w * (start - at_lo) + max(w, after) * (at_lo - at_hi)
                    w, start = after, at_hi
                lo_sum += w * start
                hi_sum += w * start
            from verify.oracles.family import output_probability

            none = switches["all_below"] * output_probability(shape, [Fraction(x) for x in a], "B" * k, digits=30)
            return lo_sum + none, hi_sum + none

        p1lo, p1hi = bounds(a1)
        p2lo, p2hi = bounds(a2)
        return mpmath.log(p1lo) - mpmath.log(p2hi), mpmath.log(p1hi) - mpmath.log(p2lo)


def check_paths(dpsniper: str | None, statdp: str | None) -> None:
    """Each given checkout must hold the peer's SVT code; one line naming the path otherwise."""
    if dpsniper is None and statdp is None:
        raise InputError("peers: give --dpsniper PATH and/or --statdp PATH (checkouts of eth-sri/dp-sniper, cmla-psu/statdp)")
    for flag, path, inner in (("--dpsniper", dpsniper, "dpsniper/mechanisms/sparse_vector_technique.py"),
                              ("--statdp", statdp, "statdp/algorithms.py")):
        if path is None:
            continue
        if not os.path.isdir(path):
            raise InputError(f"{flag}: {path!r} is not a directory")
        if not os.path.isfile(os.path.join(path, inner)):
            raise InputError(f"{flag}: {path!r} has no {inner} (not a checkout of the peer)")


def _cpu() -> float:
    me = resource.getrusage(resource.RUSAGE_SELF)
    ch = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + ch.ru_utime + ch.ru_stime


def run_child(python: str, args: list[str]) -> dict:
    """Run `peers_child.py` in the peers' interpreter; its last stdout line is the JSON result."""
    proc = subprocess.run([python, str(HERE / "peers_child.py"), *args], capture_output=True, text=True)
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-1:] or ["no output"]
        raise RuntimeError(f"peer run {' '.join(args[:4])} failed: {tail[0]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


_WORST: dict[tuple, tuple] = {}


def our_worst_case(mech: PeerMechanism) -> tuple[mpmath.mpf, Fraction | None, float]:
    """(worst-case loss at k <= 10, proven bound or None, CPU seconds), once per preset configuration."""
    from verify.family.worstcase import family_worst_case

    key = (mech.preset, mech.cutoff, mech.threshold, mech.epsilon)
    if key not in _WORST:
        t0 = _cpu()
        res = family_worst_case(mech.variant(), max_queries=QUERIES)
        cpu = _cpu() - t0
        _WORST[key] = (res.loss, None if res.upper_bound is None else res.upper_bound.value, cpu)
    return _WORST[key]


def warm_up() -> None:
    """Compile the numba kernels before anything is timed (a one-off cost per interpreter)."""
    from verify.family.presets import preset
    from verify.family.worstcase import family_worst_case

    family_worst_case(preset("lyu-1", epsilon=EPSILON, threshold=1, cutoff=1), max_queries=2)


def dpsniper_row(mech: PeerMechanism, res: dict, outputs: list[str] | None) -> Row:
    a1, a2 = res["a1"], res["a2"]
    loss = sup = None
    method = "n/a: released values (event is a set of real vectors)"
    t0 = _cpu()
    if outputs is not None:
        by = dict(zip(outputs, res["weights"]))
        loss, sup, method = event_losses(mech, a1, a2, lambda outs: [by[o] for o in outs])
    elif res.get("switches"):
        box = released_event_losses(mech, a1, a2, res["switches"])
        if box is not None:
            loss = box[1]
            method = (f"event loss in [{mpmath.nstr(box[0], 8)}, {mpmath.nstr(box[1], 8)}] (released values integrated, "
                      f"attack located on a grid of step {(res['switches']['grid'][1] - res['switches']['grid'][0]) / (res['switches']['grid'][2] - 1):g}; "
                      "the upper end is checked)")
    event_cpu = _cpu() - t0
    worst, bound, cpu = our_worst_case(mech)
    return Row(mech, res["lower_bound"], (a1, a2), res["event"], loss, sup, worst, bound, res["cpu_seconds"], cpu,
               f"{method}; event {event_cpu:.2f} s CPU")


def statdp_row(mech: PeerMechanism, res: dict) -> Row:
    best = res["best"]
    worst, bound, cpu = our_worst_case(mech)
    if best is None:
        return Row(mech, 0.0, ([], []), "no test ε rejected", None, None, worst, bound, res["cpu_seconds"], cpu,
                   "nothing rejected (bound 0)")
    loss = sup = None
    method = "n/a: released values (event is a set of real vectors)"
    t0 = _cpu()
    if mech.output is not OutputKind.RELEASED:
        loss, sup, method = statdp_event_losses(mech, best["d1"], best["d2"], best["event"])
    event_cpu = _cpu() - t0
    return Row(mech, best["test_epsilon"], (best["d1"], best["d2"]), f"value in {best['event']}", loss, sup, worst, bound,
               res["cpu_seconds"], cpu, f"{method}; event {event_cpu:.2f} s CPU; p = {best['p_value']:.3g}")


def _n(x: mpmath.mpf | None) -> str:
    if x is None:
        return "n/a"
    return "inf" if mpmath.isinf(x) else mpmath.nstr(x, 6)


def render(rows: list[Row]) -> str:
    head = ["tool", "mechanism", "preset", "LB", "event loss", "pair sup", "worst (k<=10)", "bound", "their CPU s",
            "our CPU s", "ratio", "check"]
    body = [[r.mech.tool, r.mech.name, f"{r.mech.preset} c={'∞' if r.mech.cutoff is None else r.mech.cutoff}",
             f"{r.lower_bound:.4g}", _n(r.event_loss), _n(r.pair_max), _n(r.worst_loss),
             "none" if r.worst_bound is None else f"{float(r.worst_bound):.4g}", f"{r.peer_cpu:.1f}", f"{r.our_cpu:.2f}",
             f"{r.ratio:.0f}x", "ok" if r.ok else "FAIL"] for r in rows]
    widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(head)] if body else [len(h) for h in head]
    lines = ["  ".join(h.ljust(w) for h, w in zip(head, widths)), "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(b, widths)) for b in body]
    lines.append("")
    for r in rows:
        pair = "-" if not r.pair[0] else f"{_short(r.pair[0])} vs {_short(r.pair[1])}"
        lines.append(f"  {r.mech.tool} {r.mech.name}: pair {pair}; event {r.event}; {r.method}")
        for name, ok in r.checks.items():
            if not ok:
                lines.append(f"    FAIL: {name}")
    return "\n".join(lines)


def _short(v: list[float]) -> str:
    return "(" + ",".join(f"{x:g}" for x in v) + ")"


def parse(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dpsniper", metavar="PATH", help="checkout of eth-sri/dp-sniper")
    ap.add_argument("--statdp", metavar="PATH", help="checkout of cmla-psu/statdp")
    ap.add_argument("--peer-python", default=sys.executable,
                    help="interpreter with the peers' dependencies (DP-Sniper: torch, scikit-learn, mmh3; default this one)")
    ap.add_argument("--scale", type=float, default=0.001,
                    help="DP-Sniper: fraction of DDConfig's sample counts (10.7M training/threshold/check, 200M final; default 0.001)")
    ap.add_argument("--statdp-scale", type=float, default=0.1,
                    help="StatDP: fraction of its 100,000 event and 500,000 detection iterations (default 0.1)")
    ap.add_argument("--statdp-test-epsilon", default="0.05,0.1,0.2,0.4",
                    help="StatDP: the test ε grid (comma-separated; its lower bound is the largest rejected)")
    ap.add_argument("--only", nargs="+", metavar="NAME", help="run only these mechanism names (e.g. SparseVectorTechnique1 iSVT1)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--json", action="store_true", help="print the rows as JSON instead of the table")
    return ap.parse_args(argv)


def _validate(args: argparse.Namespace) -> None:
    check_paths(args.dpsniper, args.statdp)
    for flag, v in (("--scale", args.scale), ("--statdp-scale", args.statdp_scale)):
        if not (math.isfinite(v) and 0 < v <= 1):
            raise InputError(f"{flag}: {v} must be in (0, 1]")
    if args.only:
        known = {n for _, n in PEERS}
        bad = [n for n in args.only if n not in known]
        if bad:
            raise InputError(f"--only: {bad[0]!r} is not one of {', '.join(sorted(known))}")
    if not os.access(args.peer_python, os.X_OK):
        raise InputError(f"--peer-python: {args.peer_python!r} is not an executable")


def run(args: argparse.Namespace) -> list[Row]:
    rows = []
    warm_up()
    wanted = set(args.only or [n for _, n in PEERS])
    for (tool, name), mech in PEERS.items():
        if name not in wanted:
            continue
        if tool == "DP-Sniper" and args.dpsniper:
            outputs, extra = None, []
            if mech.output is OutputKind.LETTERS:
                outputs = mech.variant().outputs(QUERIES)
                fd, path = tempfile.mkstemp(suffix=".json")
                with os.fdopen(fd, "w") as f:
                    json.dump([dpsniper_vector(o, QUERIES) for o in outputs], f)
                extra = ["--outputs", path]
            res = run_child(args.peer_python, ["dpsniper", "--path", args.dpsniper, "--mechanism", name,
                                               "--scale", str(args.scale), "--seed", str(args.seed), *extra])
            rows.append(dpsniper_row(mech, res, outputs))
        elif tool == "StatDP" and args.statdp:
            res = run_child(args.peer_python, ["statdp", "--path", args.statdp, "--mechanism", name,
                                               "--scale", str(args.statdp_scale), "--seed", str(args.seed),
                                               "--epsilon", str(float(mech.epsilon)), "--cutoff", str(mech.cutoff or 1),
                                               "--threshold", str(float(mech.threshold)), "--queries", str(QUERIES),
                                               "--test-epsilon", args.statdp_test_epsilon])
            rows.append(statdp_row(mech, res))
        print(f"  done {tool} {name} ({time.strftime('%H:%M:%S')})", file=sys.stderr, flush=True)
    return rows


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    try:
        _validate(args)
    except InputError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    try:
        rows = run(args)
    except RuntimeError as e:  # the peer's own run failed (e.g. its dependencies are missing from --peer-python)
        print(f"error: {e}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps([{"tool": r.mech.tool, "mechanism": r.mech.name, "preset": r.mech.preset, "cutoff": r.mech.cutoff,
                           "lower_bound": r.lower_bound, "pair": r.pair, "event": r.event,
                           "event_loss": None if r.event_loss is None else str(r.event_loss),
                           "pair_sup": None if r.pair_max is None else str(r.pair_max), "worst_loss": str(r.worst_loss),
                           "bound": None if r.worst_bound is None else str(r.worst_bound), "peer_cpu": r.peer_cpu,
                           "our_cpu": r.our_cpu, "ratio": r.ratio, "checks": r.checks, "method": r.method} for r in rows],
                         indent=1))
    else:
        print(f"Peers at ε = 1/10, Δ = 1, k = {QUERIES} queries; DP-Sniper at {args.scale:g} of its default samples, "
              f"StatDP at {args.statdp_scale:g} of its default iterations (test ε {args.statdp_test_epsilon}); "
              f"CPU seconds (user + system) measured here, in this run; losses in nats.")
        print(render(rows))
    return 0 if all(r.ok for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
