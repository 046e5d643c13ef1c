"""Where the audit samples: pairs of neighbouring query vectors (D, D'), |q_i - q'_i| <= Δ.

* ``worst``: the exact worst pair that the worst-case search
  (`verify.family.worstcase.family_worst_case`, up to `WORST_MAX_QUERIES`
  queries) finds for the claimed variant, both sides.  Its queries are often
  pushed many noise scales out, where the witness outcome is too rare to be
  sampled; the pair is still tested for goodness of fit.
* ``structured``: equal queries one noise scale b below the threshold (D' = D + Δ);
  every query tied with the threshold (D' = D - Δ); far tails (the first k - 1
  queries 4b below t, the last 4b above; D' moves each towards t by Δ).
  b is the larger of the threshold and query noise scales.
* ``random``: seeded, q_i uniform on [t - 2b, t + 2b], D' = D + a shift uniform on
  [-Δ, Δ] per query, both rounded to multiples of b/1000 (exact binary floats are
  not needed: the exact law is evaluated at the float64 queries used).
* ``sensitive``: one query vector per bug people make, where the exact laws of the claim and
  of the bug differ most, with its own sample size (`verify.audit.sensitive`; added by the audit).
* noise on ℤ (a discrete variant): every query is an integer (the engine's law is defined
  there): the structured queries rounded to the nearest integer, the random ones uniform
  integers on [t - 2b, t + 2b] shifted by a uniform integer in [-Δ, Δ] (Δ is an integer).
* ``release``: for variants that release values, the one-query pair q = t, q' = t - Δ,
  where the released value is tested against its exact law (`verify.audit.laws`).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from verify.mechanism import SparseVector

if TYPE_CHECKING:
    from verify.family.worstcase import FamilyWorstCase

#: Longest query vector of the worst-case search run for the audit.
WORST_MAX_QUERIES = 4


class PairKind(StrEnum):
    WORST = "worst"
    STRUCTURED = "structured"
    RANDOM = "random"
    RELEASE = "release"
    SENSITIVE = "sensitive"


@dataclass(frozen=True)
class Pair:
    """Two neighbouring query vectors and why they were chosen."""

    label: str
    kind: PairKind
    queries: tuple[float, ...]
    neighbour: tuple[float, ...]
    #: Runs per side when the pair has its own sample size (a sensitive row, `verify.audit.sensitive`).
    samples: int | None = None

    @property
    def sides(self) -> tuple[int, ...]:
        """The sides tested: a sensitive row is one query vector (its neighbour is itself), tested once."""
        return (0,) if self.kind is PairKind.SENSITIVE else (0, 1)

    def to_json(self) -> dict[str, object]:
        return {"label": self.label, "kind": str(self.kind), "queries": list(self.queries), "neighbour": list(self.neighbour),
                "samples": self.samples}


@lru_cache(maxsize=64)
def worst_case(mech: SparseVector) -> FamilyWorstCase:
    """The search's result for ``mech`` (cached: audits of one claim share it)."""
    from verify.family.worstcase import family_worst_case  # lazy: start-up time (~0.4 s); only the worst pair needs it

    return family_worst_case(mech, max_queries=WORST_MAX_QUERIES, tightness_study=False)


def noise_scale(mech: SparseVector) -> float:
    vals = [float(n.scale) for n in (mech.threshold_noise, mech.query_noise) if not n.is_none]
    return max(vals + [float(mech.sensitivity)])


def select_pairs(mech: SparseVector, k: int, random_pairs: int, seed: int, worst: bool = True, structured: bool = True) -> list[Pair]:
    """The pairs of the module docstring, in that order (``worst``/``structured`` False leave those out)."""
    t, d, b = float(mech.threshold), float(mech.sensitivity), noise_scale(mech)
    if mech.is_discrete:
        b = float(max(round(b), 1))
    pairs: list[Pair] = []
    if worst:
        w = worst_case(mech).witness
        pairs.append(Pair(f"worst pair of the search (witness {w.outcome})", PairKind.WORST,
                          tuple(float(x) for x in w.queries), tuple(float(x) for x in w.neighbour)))
    if structured:
        eq = (t - b,) * k
        pairs.append(Pair("equal queries one scale below t", PairKind.STRUCTURED, eq, tuple(x + d for x in eq)))
        ties = (t,) * k
        pairs.append(Pair("queries tied with t", PairKind.STRUCTURED, ties, tuple(x - d for x in ties)))
        tails = (t - 4 * b,) * (k - 1) + (t + 4 * b,)
        pairs.append(Pair("far tails", PairKind.STRUCTURED, tails, tuple(x + d for x in tails[:-1]) + (tails[-1] - d,)))
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(0x5A1,)))
    step = b / 1000
    for j in range(random_pairs):
        if mech.is_discrete:
            q = rng.integers(round(t - 2 * b), round(t + 2 * b), k, endpoint=True).astype(float)
            shift = rng.integers(-round(d), round(d), k, endpoint=True).astype(float)
            pairs.append(Pair(f"random pair {j + 1}", PairKind.RANDOM, tuple(q.tolist()), tuple((q + shift).tolist())))
            continue
        q = np.round(rng.uniform(t - 2 * b, t + 2 * b, k) / step) * step
        shift = np.round(rng.uniform(-d, d, k) / step) * step
        shift = np.clip(shift, -d, d)
        pairs.append(Pair(f"random pair {j + 1}", PairKind.RANDOM, tuple(q.tolist()), tuple((q + shift).tolist())))
    if mech.releases_values:
        pairs.append(Pair("one query at t (released values tested)", PairKind.RELEASE, (t,), (t - d,)))
    return pairs
