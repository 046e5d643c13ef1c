"""A seeded sampler of Report Noisy Max (docs/selection.md): the model's own draws, for χ² checks and the audit.

``sample_indices(mech, queries, rng, n)`` draws n runs of argmax_j (s_j + X_j) (s = q, or −q for ``min``)
with X_j i.i.d. from the model's noise family at scale b, all from the numpy Generator given.  A tie
(discrete noise only; probability 0 otherwise) follows ``mech.ties``: ``first`` is ``numpy.argmax`` (the
first maximum), ``last`` the argmax of the reversed row (`verify.selection.model.TieRule`).  ``run`` is one run
in the audit's form (`verify.audit.adapters`): the index i (1-based) of k written as the outcome string
``B^{i−1}A`` (`index_outcome`).  The audit calls ``run`` once per draw, so `preset_run` builds each preset once
(`_preset`, cached) and ``run`` converts each query vector once per mechanism (`_float_scores`, cached): the same
draws from the same generator calls, without re-validating the same input thousands of times.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from verify.errors import InputError
from verify.selection.model import ReportNoisyMax, SelectionOutput, TieRule
from verify.selection.presets import selection_preset


def index_outcome(index: int, k: int) -> str:
    """The outcome string of the 0-based ``index`` among k: ``B^index A`` (the audit's alphabet)."""
    if isinstance(index, bool) or not isinstance(index, int | np.integer) or not 0 <= index < k:
        raise InputError(f"index: {index!r} must be an integer from 0 to {k - 1}")
    return "B" * int(index) + "A"


def outcome_index(outcome: str) -> int:
    """The 0-based index of an outcome string ``B^i A`` (`index_outcome`'s inverse)."""
    if not outcome.endswith("A") or set(outcome[:-1]) - {"B"}:
        raise InputError(f"outcome: {outcome[:40]!r} is not B...BA (an index)")
    return len(outcome) - 1


def sample_indices(mech: ReportNoisyMax, queries: Sequence[object], rng: np.random.Generator, n: int) -> np.ndarray:
    """n seeded draws of the reported index (0-based); ties by ``mech.ties``."""
    if mech.output is not SelectionOutput.INDEX:
        raise InputError(f"{mech.name}: releases the {mech.output.value}; the sampler draws the index only")
    return _draw(mech, np.array([float(x) for x in mech.effective_scores(mech.check_queries(queries))]), rng, n)


def _draw(mech: ReportNoisyMax, s: np.ndarray, rng: np.random.Generator, n: int) -> np.ndarray:
    """n draws of argmax_j (s_j + X_j) at float64 effective scores ``s`` (`sample_indices`)."""
    noise = mech.law.sample(rng, float(mech.b), (n, len(s)))
    noisy = s[None, :] + noise
    if mech.ties is TieRule.FIRST:
        return np.argmax(noisy, axis=1)
    return len(s) - 1 - np.argmax(noisy[:, ::-1], axis=1)  # the last maximum


def run(mech: ReportNoisyMax, queries: Sequence[float], rng: np.random.Generator) -> str:
    """One run, as the audit calls an implementation: the index as ``B^{i−1}A``."""
    if mech.output is not SelectionOutput.INDEX:
        raise InputError(f"{mech.name}: releases the {mech.output.value}; the sampler draws the index only")
    try:
        s = _float_scores(mech, tuple(queries))
    except TypeError:  # an unhashable entry: validated (and refused) without the cache
        s = np.array([float(x) for x in mech.effective_scores(mech.check_queries(queries))])
    return index_outcome(int(_draw(mech, s, rng, 1)[0]), len(queries))


@lru_cache(maxsize=256)
def _float_scores(mech: ReportNoisyMax, queries: tuple[object, ...]) -> np.ndarray:
    """The float64 effective scores of validated ``queries`` (read-only: shared by every run at that vector)."""
    s = np.array([float(x) for x in mech.effective_scores(mech.check_queries(queries))])
    s.flags.writeable = False
    return s


@lru_cache(maxsize=64)
def _preset(preset: str, epsilon: str, sensitivity: str, scale: str | None) -> ReportNoisyMax:
    """The preset ``preset`` at ε and Δ, optionally at another noise ``scale`` (`preset_run`)."""
    mech = selection_preset(preset, epsilon, sensitivity)
    return mech if scale is None else mech.with_changes(scale=scale)


def preset_run(queries: Sequence[float], rng: np.random.Generator, preset: str = "statdp-noisy-max-v1a",
               epsilon: float = 1, sensitivity: float = 1, scale: float | None = None) -> str:
    """One run of a preset (`verify.selection.presets`), optionally at another noise ``scale`` (a multiple of Δ/ε):
    the audit's implementation form, e.g. ``--implementation verify.selection.sampler:preset_run?scale=1``."""
    return run(_preset(preset, str(epsilon), str(sensitivity), None if scale is None else str(scale)), queries, rng)
