"""The checker's verdicts on the seed's two mechanisms and on known-broken variants.

`check_seed_mechanisms` runs, for each variant, a default output sweep
(`verify.sweep.GridSpec`: k = 3, queries t-6Δ..t+6Δ step Δ, corner shifts),
the conditional sweep of the proofs' integrals (`ConditionalGridSpec`
defaults) and the worst-case search (`verify.worstcase.worst_case`), and
returns one `SeedCheckRow` per variant; `render_table` prints them.  The
variants (seed, Mechanism One and Mechanism Two; the negative controls are the
ones the seed itself or the DP literature calls broken):

* Mechanism One: Lap(3Δ/ε) on threshold and queries.
* Mechanism Two: Exp(3Δ/ε) on threshold and queries.
* no threshold noise (seed: "Note that it is necessary to add noise to t").
* no query noise.
* Lap(1Δ/ε) on both (scale too small), Exp(2Δ/ε) on both.

`svt-verify report` shows this table (wired by the lead).
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from fractions import Fraction

import mpmath

from verify.exact import fmt
from verify.mechanism import AboveThreshold, SparseVector, output_name
from verify.parallel import default_workers, sigint_deferred
from verify.serialize import float_or_str
from verify.sweep import ConditionalGridSpec, GridSpec, conditional_sweep, sweep
from verify.verdicts import MechanismVerdict, SweepVerdict, Tightness
from verify.worstcase import worst_case


@dataclass(frozen=True)
class SeedCheckRow:
    name: str
    role: str  # "seed" or "negative control"
    description: str
    sweep_points: int
    sweep_max_over_epsilon: float
    sweep_violations: int
    sweep_verdict: SweepVerdict
    conditional_max_over_epsilon: float
    conditional_violations: int
    verdict: MechanismVerdict
    loss_over_epsilon: float
    upper_bound: str | None
    unbounded: bool
    tightness: Tightness | None
    witness: str

    def to_json(self) -> dict:
        """The row as JSON (infinite floats as "inf", verdicts as their words)."""
        return {k: float_or_str(v) if isinstance(v, float) else v for k, v in self.__dict__.items()}


def variants(epsilon: object = 1, include_controls: bool = True) -> list[tuple[str, str, SparseVector]]:
    out = [
        ("Mechanism One", "seed", AboveThreshold.mechanism_one(epsilon)),
        ("Mechanism Two", "seed", AboveThreshold.mechanism_two(epsilon)),
    ]
    if include_controls:
        out += [
            ("no threshold noise", "negative control", AboveThreshold.with_noise("laplace", epsilon, threshold_multiplier=0)),
            ("no query noise", "negative control", AboveThreshold.with_noise("laplace", epsilon, query_multiplier=0)),
            ("Lap(1Δ/ε) both", "negative control", AboveThreshold.with_noise("laplace", epsilon, threshold_multiplier=1, query_multiplier=1)),
            ("Exp(2Δ/ε) both", "negative control", AboveThreshold.with_noise("exponential", epsilon, threshold_multiplier=2, query_multiplier=2)),
        ]
    return out


def _num(x) -> float:
    return float("inf") if mpmath.isinf(x) else float(x)


def _check_one(args: tuple[str, str, SparseVector, int]) -> SeedCheckRow:

    name, role, mech, max_queries = args
    s = sweep(mech, GridSpec(sensitivity=mech.sensitivity, threshold=mech.threshold, max_listed_violations=3), workers=1)
    c = conditional_sweep(mech, ConditionalGridSpec(sensitivity=mech.sensitivity, max_listed_violations=3), workers=1)
    w = worst_case(mech, max_queries=max_queries)
    wit = w.witness
    with mpmath.workdps(60):
        lr = mpmath.nstr(wit.log_ratio, 12)
        return SeedCheckRow(
            name, role, mech.describe(), s.points, _num(s.max_abs_log_ratio_over_epsilon), s.violation_count, s.verdict,
            _num(c.max_abs_log_ratio_over_epsilon), c.violation_count, w.verdict, _num(w.loss_over_epsilon),
            None if w.upper_bound is None else fmt(w.upper_bound.value), w.unbounded, w.tightness,
            f"({', '.join(fmt(x) for x in wit.queries)}) vs ({', '.join(fmt(x) for x in wit.neighbour_queries)}), "
            f"output {output_name(wit.output, len(wit.queries))}, log ratio {lr}")


def check_seed_mechanisms(epsilon: object = 1, max_queries: int = 5, include_controls: bool = True,
                          workers: int | None = None) -> list[SeedCheckRow]:
    """One row per variant (see the module docstring), variants run in parallel
    on ``workers`` processes (default all cores; 1 = here, serially)."""
    jobs = [(n, r, m, max_queries) for n, r, m in variants(Fraction(epsilon) if not isinstance(epsilon, str) else epsilon, include_controls)]
    n = default_workers() if workers is None else workers
    if n == 1:
        return [_check_one(j) for j in jobs]
    with ProcessPoolExecutor(max_workers=min(n, len(jobs))) as pool:
        with sigint_deferred():  # map submits every job, and the first submit forks the workers
            results = pool.map(_check_one, jobs)
        return list(results)


def render_table(rows: list[SeedCheckRow]) -> str:
    """A plain-text summary table (generated, never copied by hand)."""
    head = ["variant", "role", "sweep max/ε", "sweep viol.", "cond. max/ε", "verdict", "loss/ε", "proven bound", "unbounded", "tightness"]
    body = []
    for r in rows:
        body.append([
            r.name, r.role, f"{r.sweep_max_over_epsilon:.6g}", f"{r.sweep_violations:,}", f"{r.conditional_max_over_epsilon:.6g}",
            r.verdict, f"{r.loss_over_epsilon:.6g}", r.upper_bound or "none", "yes" if r.unbounded else "no", r.tightness or "",
        ])
    widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(head)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(head, widths)), "  ".join("-" * w for w in widths)]
    lines += ["  ".join(c.ljust(w) for c, w in zip(b, widths)) for b in body]
    lines.append("")
    lines += [f"{r.name}: witness {r.witness}" for r in rows]
    return "\n".join(lines)
