"""The seed's claims as checkable steps with verdicts.

Every claim of ``../shared/seed/above-threshold.txt`` is a `proofs.claim.Claim`
with a stable ID, the seed's LaTeX, hypotheses, a named justification and
``check(**params)`` returning a `proofs.claim.Verdict` (a
`verify.verdicts.ClaimVerdict`: proved / certified / consistent / refuted /
undecided, with the method and the evidence; defined in docs/verdicts.md).

    >>> from proofs import get_claim
    >>> print(get_claim("P1.chain.4").check().verdict)
    proved

Modules: `proofs.mechanism_one` (M1.*), `proofs.laplace_proof_1` (P1.*),
`proofs.laplace_proof_2` (P2.*), `proofs.mechanism_two` (M2.*),
`proofs.utility` (U.*), `proofs.beyond_seed` (X.*).  Import one of them
(``from proofs import laplace_proof_1``) to browse its claims.  Their checks
live beside them (`proofs.shared_checks`, `proofs.proof2_checks`,
`proofs.mechanism_two_checks`, `proofs.utility_checks`,
`proofs.case_analysis`).

Every name is imported on first use (PEP 562 module ``__getattr__``), so the command line's
``proofs`` and ``report`` commands register their flags without loading sympy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from verify.lazy import lazy_exports

if TYPE_CHECKING:  # the names of _LAZY, for type checkers and documentation tools
    from proofs.claim import Claim, ClaimVerdict, Counterexample, Evidence, Outcome, Verdict
    from proofs.registry import all_claims, get_claim

_LAZY = {name: "proofs.claim" for name in ("Claim", "ClaimVerdict", "Counterexample", "Evidence", "Outcome", "Verdict")}
_LAZY |= {"all_claims": "proofs.registry", "get_claim": "proofs.registry"}


__getattr__, __dir__ = lazy_exports(globals(), _LAZY)


__all__ = ["Claim", "ClaimVerdict", "Counterexample", "Evidence", "Outcome", "Verdict", "all_claims", "get_claim"]
