"""The registry of claims: every claim of every module, in the seed's order.

``all_claims()`` imports the claim modules (each registers its claims when
imported) and returns them in order; ``get_claim(id)`` looks one up;
``cached_check`` memoises the default check of each claim per process, so
that conclusions can consult their links without recomputing them.
"""

from __future__ import annotations

import importlib
import threading

from proofs.claim import Claim, Verdict

MODULES: tuple[str, ...] = (
    "proofs.mechanism_one",
    "proofs.laplace_proof_1",
    "proofs.laplace_proof_2",
    "proofs.exponential_proof",
    "proofs.utility",
    "proofs.beyond_seed",
)

_CLAIMS: dict[str, Claim] = {}
_CACHE: dict[str, Verdict] = {}
_LOCK = threading.RLock()


def register(claim: Claim) -> Claim:
    """Add a claim (IDs are unique)."""
    if claim.id in _CLAIMS and _CLAIMS[claim.id] is not claim:
        raise ValueError(f"claim id {claim.id!r} is registered twice")
    _CLAIMS[claim.id] = claim
    return claim


def _load() -> None:
    for name in MODULES:
        importlib.import_module(name)


def all_claims() -> list[Claim]:
    """Every claim, in the order of the seed (modules in `MODULES` order)."""
    _load()
    return list(_CLAIMS.values())


def get_claim(claim_id: str) -> Claim:
    """The claim with this ID; KeyError with a one-line message if there is none."""
    _load()
    try:
        return _CLAIMS[claim_id]
    except KeyError:
        raise KeyError(f"unknown claim ID {claim_id!r} (see `svt-verify proofs` for the list)") from None


def cached_check(claim: Claim) -> Verdict:
    """The claim's default check, computed once per process."""
    with _LOCK:
        if claim.id not in _CACHE:
            v = claim.checker()
            if v.claim_id != claim.id:
                raise RuntimeError(f"{claim.id}: checker returned a verdict for {v.claim_id}")
            _CACHE[claim.id] = v
        return _CACHE[claim.id]


def clear_cache() -> None:
    """Forget every cached verdict (and the shared computations behind them)."""
    with _LOCK:
        _CACHE.clear()
    from proofs import sweeps

    sweeps.clear_caches()


def link_verdicts(ids: tuple[str, ...] | list[str]) -> tuple[tuple[str, str], ...]:
    """(id, verdict) of each link's default check."""
    return tuple((i, get_claim(i).check().verdict) for i in ids)
