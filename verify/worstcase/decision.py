"""The seed's worst-case search and verdict, served by the family's one search engine.

`worst_case` runs `verify.family.worstcase.family_worst_case` on the seed's
`AboveThreshold` (cutoff 1, shared threshold, no release) and reports its
result in the seed's terms (`verify.worstcase.results.WorstCaseResult`): one
decision rule (`verify.family.worstcase`), one proven-bound module
(`verify.family.bounds`), one guard.  The loss of a pair of neighbouring query
vectors and an output s is |log Pr[A(D)=s] - log Pr[A(D')=s]| (seed, "Privacy
Guarantee"); the variant is ε-DP for the outputs s_1.., ⊤^k exactly when its
supremum over k, queries, neighbours and outputs is <= ε.

The outcome strings of the family map to the seed's outputs: B^{k-1}A is s_k
(the k-th query halts), B^k is ⊤^k.  Rows: for every k <= ``max_queries`` the
best point of both layouts, confirmed at ``digits`` (a witness above ε at 50).
"""

from __future__ import annotations

from collections.abc import Callable

import mpmath

from verify.errors import InputError
from verify.family.bounds import ProvenBound, proven_upper_bound_of
from verify.family.witness import BestSoFar, FamilyWitness
from verify.family.worstcase import family_worst_case
from verify.mechanism import NO_HALT, AboveThreshold, Output
from verify.worstcase.results import DEFAULT_DIGITS, VIOLATION_DIGITS, KRow, LossWitness, WorstCaseResult


def worst_case(mech: AboveThreshold, max_queries: int = 10, seed: int = 0, starts: int = 4, push_study: bool = True,
               digits: int = DEFAULT_DIGITS, progress: Callable[[int], None] | None = None,
               on_best: Callable[[BestSoFar], None] | None = None) -> WorstCaseResult:
    """Search for sup |log ratio| of ``mech``'s variant for k = 1..``max_queries`` and decide.

    Verdicts: ``not_private`` (a confirmed witness with loss > ε at 50 digits),
    ``private`` (a proven upper bound <= ε, `verify.family.bounds.proven_upper_bound`),
    else ``undecided``.  Raises RuntimeError if a confirmed loss exceeds a proven
    bound (a bug in the bound or in the numerics).  The search is deterministic:
    ``seed`` must be 0 (there are no random starts to seed).  ``progress``, if
    given, is called with k after the search at k queries is done; ``on_best``, if given, with the
    best pair so far (`verify.family.witness.BestSoFar`) whenever it improves.

    >>> r = worst_case(AboveThreshold.with_noise("laplace", 1, threshold_multiplier=0), max_queries=4, push_study=False)
    >>> str(r.verdict), r.unbounded
    ('not_private', True)
    """
    if isinstance(seed, bool) or not isinstance(seed, int) or seed != 0:
        raise InputError(f"seed: {seed!r}: the structured search is deterministic (no random starts); only 0 is accepted")
    if isinstance(digits, bool) or not isinstance(digits, int) or not 15 <= digits <= VIOLATION_DIGITS:
        raise InputError(f"digits: {digits!r} must be an integer from 15 to {VIOLATION_DIGITS}")
    fam = family_worst_case(mech, max_queries=max_queries, starts=starts, tightness_study=push_study, digits=digits,
                            rows=True, push_table=push_study, progress=progress,
                            on_best=on_best)
    # every value below was computed (and rounded) by the family engine at its own precision: none is computed here
    rows = []
    for k in range(1, fam.max_queries + 1):
        halt, top = fam.rows.get("B" * (k - 1) + "A"), fam.rows.get("B" * k)
        if halt is None and top is None:
            break  # the search stopped at an infinite loss
        rows.append(KRow(k, _seed_witness(halt, k), _seed_witness(top, k)))
    studied = push_study or fam.unbounded  # without a study, only the unbounded loss's `exceeded` is reported
    return WorstCaseResult(mech, fam.verdict, _seed_witness(fam.witness, len(fam.witness.queries)), fam.upper_bound,
                           fam.unbounded, fam.unbounded_evidence, tuple(rows), tuple(fam.push), fam.push_family,
                           fam.tightness if studied else None, fam.tightness_evidence if studied else None,
                           tuple(fam.notes), fam.seconds)


def _output(outcome: str) -> Output:
    """The seed's output of a family outcome string: B^{k-1}A -> k (s_k), B^k -> ⊤^k."""
    return outcome.index("A") + 1 if "A" in outcome else NO_HALT


def _seed_witness(w: FamilyWitness | None, k: int) -> LossWitness:
    if w is None:  # a layout the search did not reach: no loss found (0, at no queries)
        zero = mpmath.mpf(0)
        return LossWitness((), (), k, zero, zero, zero, DEFAULT_DIGITS)
    return LossWitness(w.queries, w.neighbour, _output(w.outcome), w.log_ratio, w.probability, w.neighbour_probability,
                       w.digits)


def proven_upper_bound(mech) -> ProvenBound | None:
    """`verify.family.bounds.proven_upper_bound_of` of the variant ``mech`` (seed `AboveThreshold` or family model),
    under the seed's name.

    >>> from verify.mechanism import AboveThreshold
    >>> proven_upper_bound(AboveThreshold.mechanism_one(1)).value
    Fraction(1, 1)
    >>> proven_upper_bound(AboveThreshold.mechanism_two(1)).value
    Fraction(1, 1)
    >>> proven_upper_bound(AboveThreshold.with_noise("exponential", 1, threshold_multiplier=2, query_multiplier=2)) is None
    True
    """
    return proven_upper_bound_of(mech)
