"""Pairs chosen by the exact law for the bugs people make: where the claim and each bug differ most.

For the claimed variant M, the *bugs* (`bugs`) are the laws of the mistakes the
audit must catch by default: the threshold or query noise scale off by 10 %
(× 11/10 and × 9/10), the cutoff off by one, the threshold drawn afresh for
every query (`verify.audit.laws.Law.FRESH`), the other threshold policy (shared /
resampled after each above), one query-noise draw reused for every query
(`Law.REUSED`); for noise on ℤ also the other comparison (``>`` for ``>=`` or the
reverse: a tie has mass), the threshold off by one (t ± 1), and for discrete Laplace
noise continuous Laplace rounded to the integers (`Law.ROUNDED`).  (An unnoised release is caught at the release pair, and outputs
the claim cannot produce reject outright.)

For each bug B and each query vector q of a small grid (`grid_rows`: equal
queries at t + u·b, and half low, half high, b the larger noise scale), the
laws give the χ² divergence χ²(B‖M) = Σ_o (B(o) - M(o))²/M(o) (both by the same
quadrature, `verify.audit.laws.grid_letter_laws`, about 1e-4 relative: far below the
differences that decide, and much faster than the exact path on 8-query rows; the
claimed law at the chosen rows, which the test uses, is the exact one).  The G-test
at level α/m on N runs has power ncx2.sf(crit, df, N·χ²) asymptotically
(`verify.audit.power`), so the q with the largest χ² needs the fewest runs:
N_B = λ*(df, α/m, √0.9)/χ²(B‖M) gives the verdict (a rejection and its re-run)
power 0.9 against B.  Mass that B puts on outcomes M cannot produce rejects
outright once one such run is seen: N_B = ⌈3/mass⌉ (probability 1 - e⁻³ ≈ 0.95
per test).  The rows are paired with q + Δ (a neighbour) and sampled N_B times
per side, capped at `MAX_SENSITIVE_SAMPLES`; `predicted_power` is the verdict's
asymptotic power at the N used.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from scipy import special

from verify.audit.laws import Candidate, Law, grid_letter_laws, letters_only, reuse_supported
from verify.audit.power import chi2_isf, noncentrality
from verify.comparison import Comparison
from verify.mechanism import SparseVector, ThresholdPolicy
from verify.noise import NoiseSpec
from verify.noise.discrete_laplace import DiscreteLaplace

#: Largest number of runs per side of a sensitive pair (bounds the default audit's time).
MAX_SENSITIVE_SAMPLES = 450_000
#: Smallest number of runs per side of a sensitive pair.
MIN_SENSITIVE_SAMPLES = 200
#: How far off a noise scale may be and still be caught by default.
SCALE_ERRORS = (Fraction(11, 10), Fraction(9, 10))


def _scaled(spec: NoiseSpec, factor: Fraction) -> NoiseSpec | None:
    if spec.is_none:
        return None
    if spec.multiplier is not None:
        return NoiseSpec(spec.family, multiplier=spec.multiplier * factor)
    return NoiseSpec(spec.family, absolute=spec.absolute * factor)


def bugs(mech: SparseVector) -> list[Candidate]:
    """The bugs of the module docstring, for the claimed ``mech`` (letters only: releases are tested apart)."""
    m = letters_only(mech)
    out: list[Candidate] = []
    for name, attr in (("threshold", "threshold_spec"), ("query", "query_spec")):
        for f in SCALE_ERRORS:
            spec = _scaled(getattr(m, attr), f)
            if spec is not None:
                out.append(Candidate(f"{name} noise scale × {f}", m.with_changes(**{attr: spec})))
    if m.cutoff is not None:
        for c in (m.cutoff - 1, m.cutoff + 1):
            if c >= 1:
                out.append(Candidate(f"cutoff {c}", m.with_changes(cutoff=c)))
    if not m.threshold_noise.is_none:
        out.append(Candidate("threshold drawn afresh per query", m, Law.FRESH))
    if m.cutoff != 1:
        other = ThresholdPolicy.SHARED if m.threshold_policy is ThresholdPolicy.RESAMPLE else ThresholdPolicy.RESAMPLE
        out.append(Candidate(f"threshold {other.value}", m.with_changes(threshold_policy=other)))
    if reuse_supported(m) and not m.query_noise.is_none:
        out.append(Candidate("one query noise draw reused", m, Law.REUSED))
    if m.is_discrete:
        out += discrete_bugs(m)
    return out


def discrete_bugs(m: SparseVector) -> list[Candidate]:
    """The integer-code bugs: the other comparison, the threshold off by one, Laplace rounded to ℤ (module docstring)."""
    other = Comparison.GT if m.compare is Comparison.GE else Comparison.GE
    sign = {Comparison.GT: ">", Comparison.GE: ">="}
    out = [Candidate(f"compare {other.value} ({sign[other]} where the claim has {sign[m.compare]})", m.with_changes(compare=other))]
    for off in (1, -1):
        out.append(Candidate(f"threshold t {'+' if off > 0 else '-'} 1 (off by one)", m.with_changes(threshold=m.threshold + off)))
    if all(not n.is_none and isinstance(n.law, DiscreteLaplace) for n in (m.threshold_noise, m.query_noise)):
        out.append(Candidate("continuous Laplace rounded to the integers", m, Law.ROUNDED))
    return out


#: Lengths of the grid's rows besides the audit's k (more queries show a shared threshold's correlation).
LONG_ROWS = 8


def grid_rows(mech: SparseVector, k: int, scale: float) -> list[tuple[float, ...]]:
    """For k and `LONG_ROWS` queries: equal queries at t + u·b, u in {-2, -1, -1/2, -1/4, 0, 1/4, 1/2, 1, 2},
    and half at t - u·b, half at t + u·b (u in {1/2, 1, 2})."""
    t = float(mech.threshold)
    rows = []
    for n in sorted({k, max(k, LONG_ROWS)}):
        rows += [(t + u * scale,) * n for u in (-2.0, -1.0, -0.5, -0.25, 0.0, 0.25, 0.5, 1.0, 2.0)]
        h = n // 2
        rows += [(t - u * scale,) * h + (t + u * scale,) * (n - h) for u in (0.5, 1.0, 2.0)] if h else []
    if mech.is_discrete:  # integer rows: the grid's points rounded, duplicates dropped
        rows = list(dict.fromkeys(tuple(float(round(x)) for x in r) for r in rows))
    return rows


def divergence(bug: dict[str, float], claim: dict[str, float]) -> tuple[float, float, int]:
    """(χ²(bug‖claim) over the claim's support, the bug's mass outside it, the claim's support size - 1).  Both sums
    are correctly rounded (`math.fsum`), so they do not depend on the order the outcomes come in (a set of strings,
    whose order changes with Python's string hashing from run to run)."""
    chi2: list[float] = []
    outside: list[float] = []
    for o in set(bug) | set(claim):
        p, pb = claim.get(o, 0.0), bug.get(o, 0.0)
        if p > 0:
            chi2.append((pb - p) ** 2 / p)
        else:
            outside.append(pb)
    return math.fsum(chi2), math.fsum(outside), max(sum(1 for v in claim.values() if v > 0) - 1, 1)


def runs_needed(chi2: float, outside: float, df: int, level: float, test_power: float) -> float:
    """Runs per side for ``test_power`` against one bug at one row (module docstring); inf if not separable."""
    best = math.inf
    if outside > 1e-12:
        best = 3.0 / outside
    if chi2 > 1e-15:
        best = min(best, noncentrality(df, level, test_power) / chi2)
    return best


def predicted_power(chi2: float, outside: float, df: int, level: float, n: int) -> float:
    """The verdict's asymptotic power at ``n`` runs: the test's (G-test, or an impossible outcome seen), squared."""
    miss = math.exp(-n * outside) * special.chndtr(chi2_isf(level, df), df, n * chi2) if chi2 > 0 else math.exp(-n * outside)
    return (1.0 - miss) ** 2


@dataclass(frozen=True)
class Sensitive:
    """The row chosen for one bug, with the runs it needs and the verdict's predicted power there."""

    bug: str
    queries: tuple[float, ...]
    chi2: float
    outside: float
    df: int
    needed: float


def choose(claimed: SparseVector, k: int, scale: float, level: float, test_power: float) -> list[Sensitive]:
    """For every bug, the grid row that needs the fewest runs (module docstring)."""
    return list(_chosen(claimed, k, scale, level, test_power))


@lru_cache(maxsize=64)
def _chosen(claimed: SparseVector, k: int, scale: float, level: float, test_power: float) -> tuple[Sensitive, ...]:
    """`choose`, remembered per arguments (a function of them only): audits of one claim at one level share it."""
    rows = grid_rows(claimed, k, scale)
    claim = grid_letter_laws(Candidate("claim", letters_only(claimed)), rows)
    out = []
    for bug in bugs(claimed):
        laws = grid_letter_laws(bug, rows)
        best = None
        for row, lb, lc in zip(rows, laws, claim):
            chi2, outside, df = divergence(lb, lc)
            need = runs_needed(chi2, outside, df, level, test_power)
            if best is None or need < best.needed:
                best = Sensitive(bug.label, row, chi2, outside, df, need)
        if best is not None and math.isfinite(best.needed):
            out.append(best)
    return tuple(out)


def sensitive_pairs(claimed: SparseVector, k: int, scale: float, level: float, test_power: float,
                    cap: int = MAX_SENSITIVE_SAMPLES) -> tuple[list[tuple[tuple[float, ...], int, tuple[Sensitive, ...]]], list[Sensitive]]:
    """(rows to sample: (queries, runs per side, the bugs it is chosen for)), and the bugs found separable.
    Bugs choosing the same row share it, at the largest of their run counts (capped at ``cap``)."""
    found = choose(claimed, k, scale, level, test_power)
    rows: dict[tuple[float, ...], list[Sensitive]] = {}
    for sv in found:
        rows.setdefault(sv.queries, []).append(sv)
    out = []
    for q, svs in rows.items():
        n = min(cap, max(MIN_SENSITIVE_SAMPLES, math.ceil(max(sv.needed for sv in svs))))
        out.append((q, n, tuple(svs)))
    return out, found
