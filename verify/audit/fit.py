"""Which law the implementation samples: a likelihood fit over a small grid of candidate variants.

Candidates (`candidates`), built from the claimed variant M:

* M itself;
* threshold or query noise scale times 1/2 or 2 (multiples of Δ/ε);
* cutoff c - 1 and c + 1 with M's scales;
* the other threshold policy (shared / resampled);
* for a releasing M: the other release rules (query, gap, fresh with X's
  noise), and q_i released without noise (`Law.UNNOISED`);
* for a shared threshold, Laplace noise and no release: one query-noise draw
  reused for every query (`Law.REUSED`);
* for noise on ℤ: the other comparison (``gt``/``ge``), the threshold t ± 1, and
  continuous Laplace rounded to the integers (`Law.ROUNDED`,
  `verify.audit.sensitive.discrete_bugs`);
* every preset (`verify.family.presets`) at M's ε, Δ, t and cutoff (the discrete
  presets, on ℤ, included).

Candidates with the same law (`Candidate.key`) are merged, their labels kept as
aliases.  The fit is the multinomial log-likelihood (the letters' probabilities by
`verify.audit.laws.grid_letter_laws`, a quadrature estimate good to about 1e-4,
far below what separates candidates) of every count the audit collected (letters at every pair and side; letter and value bin at the
release pairs) under each candidate; the best candidate maximises it.
Candidates whose log-likelihoods agree to `TIE_NATS` cannot be told apart on
these pairs and are reported together.  For speed the grid is first ranked on the
general and release pairs, and the best `SHORTLIST` (and the claim) are re-ranked on
every observation, the sensitive rows included.  The best is then re-tested with
the audit's G-tests (`fit`): a law is named only when none rejects it.

The best candidate's exact privacy verdict: for a family member, the
worst-case search (`verify.family.worstcase`, confirmed at 50 digits); for the
two laws outside the family, the exact zero-probability witness of
`outside_family_verdict` (loss unbounded, not private).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np
from mpmath import mp

from verify.audit.gof import g_test, total_variation
from verify.audit.laws import (
    Candidate,
    Law,
    grid_letter_laws,
    letter_law,
    letter_laws,
    letters_only,
    release_cells,
    reuse_supported,
)
from verify.audit.pairs import Pair, PairKind
from verify.audit.sensitive import discrete_bugs
from verify.errors import InputError
from verify.exact import fmt
from verify.family.presets import NAMES, PRESETS, preset
from verify.family.probability import mp_probability
from verify.mechanism import SparseVector, ThresholdPolicy
from verify.noise import NoiseSpec
from verify.precision import MPMATH_LOCK
from verify.release import RELEASE_RULES
from verify.verdicts import MechanismVerdict

if TYPE_CHECKING:
    from verify.family.worstcase import FamilyWorstCase

#: Candidates re-ranked on every observation (the sensitive rows' 8 queries are costly) after a first
#: ranking on the general and release pairs.
SHORTLIST = 12
#: Log-likelihoods closer than this (nats) are a tie.
TIE_NATS = 1e-6


def _scaled(spec: NoiseSpec, factor: Fraction) -> NoiseSpec | None:
    if spec.is_none:
        return None
    if spec.multiplier is not None:
        return NoiseSpec(spec.family, multiplier=spec.multiplier * factor)
    return NoiseSpec(spec.family, absolute=spec.absolute * factor)


#: Multiples of a noise scale tried (a scale is a multiple of Δ/ε).
SCALE_FACTORS = (Fraction(1, 2), Fraction(9, 10), Fraction(11, 10), Fraction(2))


def _cutoffs(c: int | None) -> list[int | None]:
    """The cutoffs tried: c - 1, c, c + 1 and unlimited (1, 2, 3 and unlimited for an unlimited claim)."""
    near = [1, 2, 3] if c is None else [x for x in (c - 1, c, c + 1) if x >= 1]
    return near + [None]


def candidates(mech: SparseVector) -> list[tuple[Candidate, list[str]]]:
    """The grid of the module docstring, merged by law: (candidate, all its labels)."""
    out: list[Candidate] = [Candidate(f"as claimed ({mech.name})", mech)]
    for name, spec_name in (("threshold", "threshold_spec"), ("query", "query_spec")):
        for factor in SCALE_FACTORS:
            spec = _scaled(getattr(mech, spec_name), factor)
            if spec is not None:
                how = {Fraction(1, 2): "halved", Fraction(2): "doubled"}.get(factor, f"× {factor}")
                out.append(Candidate(f"{name} noise {spec.describe()} (the claim's scale {how})", mech.with_changes(**{spec_name: spec})))
    for c in _cutoffs(mech.cutoff):
        if c != mech.cutoff:
            cut = "unlimited" if c is None else c
            out.append(Candidate(f"cutoff {cut} with the scales of cutoff {'unlimited' if mech.cutoff is None else mech.cutoff}",
                                 mech.with_changes(cutoff=c)))
    if not mech.threshold_noise.is_none:
        out.append(Candidate("threshold drawn afresh per query", mech, Law.FRESH))
    other = ThresholdPolicy.SHARED if mech.threshold_policy is ThresholdPolicy.RESAMPLE else ThresholdPolicy.RESAMPLE
    out.append(Candidate(f"threshold {other.value}" + (" (not resampled)" if other is ThresholdPolicy.SHARED else ""),
                         mech.with_changes(threshold_policy=other)))
    if mech.releases_values:
        for rel, rule in RELEASE_RULES.items():
            if rule.releases_values and rule is not mech.release_rule:
                spec = mech.query_spec if rule.needs_release_noise else None
                if rule.needs_release_noise and spec.is_none:
                    continue
                out.append(Candidate(f"release {rel.value}", mech.with_changes(release=rel, release_spec=spec)))
        out.append(Candidate("releases q_i without noise", mech, Law.UNNOISED))
    if reuse_supported(mech):
        out.append(Candidate(f"one query noise {mech.query_noise.describe()} reused for every query", mech, Law.REUSED))
    if mech.is_discrete:  # the other comparison, the threshold off by one, Laplace rounded to ℤ
        out += discrete_bugs(letters_only(mech)) if not mech.releases_values else []
    for name in NAMES:
        for c in _cutoffs(mech.cutoff):
            options = {"cutoff": c} if PRESETS[name].scales_with_cutoff and c is not None else {}
            try:
                p = preset(name, mech.epsilon, mech.sensitivity, mech.threshold, **options)
                if not PRESETS[name].scales_with_cutoff or c is None:
                    p = p.with_changes(cutoff=c)
            except InputError:
                continue
            if p.is_discrete and not mech.is_discrete:  # noise on ℤ has no law at a continuous claim's real-valued queries
                continue
            out.append(Candidate(f"preset {name} (cutoff {'unlimited' if c is None else c})", p))
    merged: dict[tuple, tuple[Candidate, list[str]]] = {}
    for c in out:
        if c.key() in merged:
            merged[c.key()][1].append(c.label)
        else:
            merged[c.key()] = (c, [c.label])
    return list(merged.values())


@dataclass(frozen=True)
class Observation:
    """The counts of one (pair, side): letters, and for a release pair the value-bin counts."""

    pair: Pair
    side: int
    counts: Mapping[str, int]
    bin_counts: np.ndarray | None = None
    inner_edges: np.ndarray | None = None

    @property
    def queries(self) -> tuple[float, ...]:
        return self.pair.queries if self.side == 0 else self.pair.neighbour


def log_likelihood(cand: Candidate, observations: Sequence[Observation]) -> float:
    """Σ count · log(probability) over every observation (module docstring); -inf if a count is impossible."""
    letters = [ob for ob in observations if ob.pair.kind is not PairKind.RELEASE]
    laws = grid_letter_laws(cand, [ob.queries for ob in letters])
    total = 0.0
    for ob in observations:
        if ob.pair.kind is PairKind.RELEASE:
            if not cand.mech.releases_values and cand.law is not Law.UNNOISED:
                return -math.inf
            probs, _ = release_cells(cand, ob.queries[0], ob.inner_edges)
            counts = ob.bin_counts
        else:
            law = laws[letters.index(ob)]
            names = sorted(set(law) | set(ob.counts))
            counts = np.array([ob.counts.get(s, 0) for s in names], dtype=float)
            probs = np.array([law.get(s, 0.0) for s in names])
        seen = counts > 0
        if np.any(probs[seen] <= 0):
            return -math.inf
        total += float(np.sum(counts[seen] * np.log(probs[seen])))
    return total


@dataclass(frozen=True)
class Privacy:
    """A candidate's exact privacy verdict and where it comes from."""

    verdict: MechanismVerdict
    loss: str
    evidence: str

    def to_json(self) -> dict[str, str]:
        return {"verdict": str(self.verdict), "loss": self.loss, "evidence": self.evidence}


def outside_family_verdict(cand: Candidate) -> Privacy:
    """The exact zero-probability witness of a law outside the family (loss unbounded)."""
    m = cand.mech
    t, d = float(m.threshold), float(m.sensitivity)
    if cand.law is Law.REUSED:
        p = letter_law(cand, [t, t]).get("BA", 0.0)
        pn = letter_law(cand, [t - d, t + d]).get("BA", 0.0)
        if p == 0 and pn > 0:
            return Privacy(MechanismVerdict.NOT_PRIVATE, "inf",
                           f"Pr[BA] = 0 at q(D) = ({fmt(m.threshold)}, {fmt(m.threshold)}) (B needs W > 0, A needs W <= 0 for the one "
                           f"W = Z - X), Pr[BA] = {pn:.6g} > 0 at q(D') = ({fmt(m.threshold - m.sensitivity)}, {fmt(m.threshold + m.sensitivity)})")
    if cand.law is Law.FRESH:
        one = letters_only(m).with_changes(cutoff=1)
        with MPMATH_LOCK, mp.workdps(50):
            p_b = mp_probability(one, [m.threshold], "B", digits=50)
            p_bn = mp_probability(one, [m.threshold + m.sensitivity], "B", digits=50)
            per = mp.log(p_b / p_bn)
            k = int(mp.floor(mp.mpf(m.epsilon.numerator) / m.epsilon.denominator / per)) + 1
            loss = k * per
        return Privacy(MechanismVerdict.NOT_PRIVATE, f"{float(loss):.6g} at {k} queries, growing without bound",
                       f"the answers are independent, so k B's at q(D) = (t, ..., t), q(D') = (t + Δ, ..., t + Δ) have loss "
                       f"k·log(Pr[B | t]/Pr[B | t + Δ]) = k·{float(per):.6g} (50 digits): {float(loss):.6g} > ε at k = {k}")
    if cand.law is Law.ROUNDED:
        return Privacy(MechanismVerdict.UNDECIDED, "not computed",
                       "continuous Laplace rounded to ℤ is outside the family: no exact worst-case search covers it")
    if cand.law is Law.UNNOISED:
        return Privacy(MechanismVerdict.NOT_PRIVATE, "inf",
                       "an above releases q_i exactly: at q(D) = (t), q(D') = (t + Δ) the output (A, t) has probability "
                       "Pr[A] > 0 under D and 0 under D'")
    raise ValueError(f"no outside-family verdict for {cand.law}")  # pragma: no cover


@lru_cache(maxsize=64)
def privacy_search(mech: SparseVector) -> FamilyWorstCase:
    """The search and verdict of ``svt-verify worst-case`` at its defaults (`family_worst_case`, up to 10
    queries), not the audit's shorter search for its worst pair (`verify.audit.pairs.worst_case`)."""
    from verify.family.worstcase import family_worst_case  # lazy: start-up time (~0.4 s); only a fit needs it

    return family_worst_case(mech, tightness_study=False)


def privacy_of(cand: Candidate) -> Privacy:
    if cand.law is not Law.FAMILY:
        return outside_family_verdict(cand)
    res = privacy_search(cand.mech)
    loss = "inf" if math.isinf(float(res.loss)) else f"{float(res.loss):.6g}"
    eps = float(cand.mech.epsilon)
    ratio = "" if loss == "inf" else f" = {float(res.loss) / eps:.4g}ε"
    return Privacy(res.verdict, loss, f"worst-case search, witness {res.witness.describe()}, loss {loss}{ratio} (50 digits)"
                   + ("; unbounded: " + str(res.unbounded_evidence) if res.unbounded else ""))


@dataclass(frozen=True)
class FitResult:
    """The ranking of the candidates and the best one's privacy verdict."""

    best: Candidate
    best_labels: tuple[str, ...]
    tied: tuple[str, ...]
    log_likelihood: float
    claimed_log_likelihood: float
    privacy: Privacy
    claimed_privacy: Privacy
    ranking: tuple[tuple[str, float], ...]
    #: The best candidate re-tested with the audit's G-tests: whether none rejects, how many did of how many.
    fits: bool = True
    rejections: int = 0
    tests: int = 0
    level: float = 0.0
    #: The largest total variation between the sampled frequencies and the best candidate's law, over the tests.
    distance: float = 0.0
    candidates: int = 0

    @property
    def identifies_claim(self) -> bool:
        return any(lab.startswith("as claimed") for lab in self.best_labels)

    def sentence(self, claimed: SparseVector) -> str:
        if not self.fits or self.identifies_claim:
            return (f"none of the {self.candidates} candidates fits (the best, re-tested with the same G-tests at level "
                    f"{self.level:.3g}, rejects at {self.rejections} of {self.tests} tests); closest: {self.best_labels[0]} "
                    f"[{self.best.describe()}], largest total variation from the sampled frequencies {self.distance:.3g}")
        return (f"behaves like {self.best_labels[0]} [{self.best.describe()}], not {claimed.name} [{Candidate('', claimed).describe()}]: "
                f"{self.privacy.verdict}, loss {self.privacy.loss} (claimed: {self.claimed_privacy.verdict}, loss {self.claimed_privacy.loss})")

    def to_json(self) -> dict[str, object]:
        def num(x: float) -> object:
            return round(x, 3) if math.isfinite(x) else "-inf"

        return {"best": list(self.best_labels), "law": self.best.describe(), "tied": list(self.tied),
                "log_likelihood": num(self.log_likelihood), "claimed_log_likelihood": num(self.claimed_log_likelihood),
                "privacy": self.privacy.to_json(), "claimed_privacy": self.claimed_privacy.to_json(),
                "ranking": [[lab, num(ll)] for lab, ll in self.ranking], "fits": self.fits,
                "best_rejected_by": [self.rejections, self.tests], "best_distance_tv": round(self.distance, 6),
                "candidates": self.candidates}


def _goodness(cand: Candidate, observations: Sequence[Observation], level: float) -> tuple[int, int, float]:
    """(tests rejecting ``cand`` at ``level``, tests, largest total variation from the sampled frequencies): the
    audit's G-test (`verify.audit.gof.g_test`) of every observation against the candidate's law."""
    letters = [ob for ob in observations if ob.pair.kind is not PairKind.RELEASE]
    laws = dict(zip(map(id, letters), letter_laws(cand, [ob.queries for ob in letters]))) if cand.law is not Law.UNNOISED else \
        dict(zip(map(id, letters), letter_laws(Candidate("", cand.mech), [ob.queries for ob in letters])))
    rejected, tv = 0, 0.0
    for ob in observations:
        if ob.pair.kind is PairKind.RELEASE:
            if not cand.mech.releases_values and cand.law is not Law.UNNOISED:
                rejected, tv = rejected + 1, 1.0
                continue
            probs, _ = release_cells(cand, ob.queries[0], ob.inner_edges)
            law = {f"cell {j}": float(p) for j, p in enumerate(probs)}
            counts = {f"cell {j}": int(c) for j, c in enumerate(ob.bin_counts)}
        else:
            law, counts = laws[id(ob)], ob.counts
        total = sum(counts.values())
        if not total or not any(v > 0 for v in law.values()):
            continue
        tv = max(tv, total_variation(counts, law))
        if g_test(counts, law).p_value < level:
            rejected += 1
    return rejected, len(observations), tv


def fit(claimed: SparseVector, observations: Sequence[Observation], level: float = 1e-4) -> FitResult:
    """Rank the candidates by log-likelihood, then re-test the best with the audit's G-tests at ``level``
    (module docstring): a law is named only when it fits."""
    grid = candidates(claimed)
    general = [ob for ob in observations if ob.pair.kind is not PairKind.SENSITIVE]
    first = sorted(((log_likelihood(cand, general), j) for j, (cand, _) in enumerate(grid)),
                   key=lambda r: -r[0] if math.isfinite(r[0]) else math.inf)
    keep = {j for _, j in first[:SHORTLIST]} | {0}  # the claim (first in the grid) always
    scored = []
    for j, (cand, labels) in enumerate(grid):
        if j in keep:
            scored.append((log_likelihood(cand, observations), cand, labels))
    scored.sort(key=lambda r: -r[0] if math.isfinite(r[0]) else math.inf)
    best_ll, best, labels = scored[0]
    tied = tuple(lab[0] for ll, _, lab in scored[1:] if math.isfinite(best_ll) and abs(ll - best_ll) <= TIE_NATS)
    claimed_ll = next(ll for ll, _, lab in scored if lab[0].startswith("as claimed"))
    claim = Candidate("claim", claimed)
    rejected, tests, tv = _goodness(best, observations, level)
    return FitResult(best, tuple(labels), tied, best_ll, claimed_ll, privacy_of(best), privacy_of(claim),
                     tuple((lab[0], ll) for ll, _, lab in scored), rejected == 0 and math.isfinite(best_ll), rejected, tests,
                     level, tv, len(grid))
