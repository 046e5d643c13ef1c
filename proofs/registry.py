"""The registry of claims: every claim of every module, in the seed's order.

``all_claims()`` imports the claim modules (each registers its claims when
imported) and returns them in order; ``get_claim(id)`` looks one up.  The
default check of each claim is memoised by `proofs.claim.Claim.check`, so
that conclusions can consult their links without recomputing them.
"""

from __future__ import annotations

import importlib
import sys

from proofs.claim import Claim, ClaimVerdict, clear_verdict_cache

MODULES: tuple[str, ...] = (
    "proofs.mechanism_one",
    "proofs.laplace_proof_1",
    "proofs.laplace_proof_2",
    "proofs.mechanism_two",
    "proofs.noisy_max_twice",
    "proofs.utility",
    "proofs.beyond_seed",
)

_CLAIMS: dict[str, Claim] = {}
#: The module that registered each claim: `all_claims` orders by `MODULES`, whichever module was imported first.
_MODULE_OF: dict[str, str] = {}


def register(claim: Claim) -> Claim:
    """Add a claim (IDs are unique), remembering the claim module (of `MODULES`) whose import registers it."""
    if claim.id in _CLAIMS and _CLAIMS[claim.id] is not claim:
        raise ValueError(f"claim id {claim.id!r} is registered twice")
    _CLAIMS[claim.id] = claim
    frame = sys._getframe(1)  # the claim module importing itself, maybe through a builder (proofs.build)
    while frame is not None and frame.f_globals.get("__name__") not in MODULES:
        frame = frame.f_back
    _MODULE_OF[claim.id] = "" if frame is None else frame.f_globals["__name__"]
    return claim


def _rank(claim_id: str) -> int:
    module = _MODULE_OF.get(claim_id, "")
    return MODULES.index(module) if module in MODULES else len(MODULES)


def _load() -> None:
    for name in MODULES:
        importlib.import_module(name)


def all_claims() -> list[Claim]:
    """Every claim, in the order of the seed (modules in `MODULES` order)."""
    _load()
    return sorted(_CLAIMS.values(), key=lambda c: _rank(c.id))  # stable: a module's claims keep their order


def get_claim(claim_id: str) -> Claim:
    """The claim with this ID; KeyError with a one-line message if there is none."""
    _load()
    try:
        return _CLAIMS[claim_id]
    except KeyError:
        raise KeyError(f"unknown claim ID {claim_id!r} (see `svt-verify proofs` for the list)") from None


def clear_cache() -> None:
    """Forget every cached verdict and the shared computations behind them (sweeps, engines, sympy lemmas)."""
    from proofs import engines, sweeps, symbolic

    clear_verdict_cache()
    sweeps.clear_caches()
    engines.clear_caches()
    symbolic.clear_caches()


def link_verdicts(ids: tuple[str, ...] | list[str]) -> tuple[tuple[str, ClaimVerdict], ...]:
    """(id, verdict) of each link's default check."""
    return tuple((i, get_claim(i).check().verdict) for i in ids)
