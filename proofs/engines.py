"""The project's other engines, used by the claims: the checker and certification.

* `verify.sweep.sweep` (the checker's grid sweep of the output ratios) and
  `verify.worstcase.worst_case` (its worst-case search): extra evidence for
  the privacy theorems; a violation they report is re-confirmed with
  `verify.ratio.privacy_ratio` before it refutes anything.
* `verify.certify.certify_conditional_ratio` (rigorous enclosures of the
  conditional inequality e^{-ε} <= Pr[A(D)=s_i ∥ x]/Pr[A(D')=s_i ∥ x] <= e^{ε})
  and `verify.certify.certify_factor_bounds` (the density / survival / CDF
  ratio bounds and the product e^{Δ/b_Z}·e^{2Δ/b_X} <= e^ε).

Every engine is imported inside the functions.  An engine that is absent or
fails raises `EngineFailure`; `proofs.claim.Claim.check` turns that into the
verdict ``undecided`` with the reason (a failed certifier must never leave a
claim at its sampling verdict, silently ``consistent`` instead of
``certified``).  The sympy lemmas raise it too (`proofs.symbolic.sympy_engine`).
Results are cached per process.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from functools import cache
from typing import Any

from verify.mechanism import output_name
from verify.verdicts import CertificateVerdict, MechanismVerdict


class EngineFailure(RuntimeError):
    """An engine (the certifier, sympy, the checker) is absent or crashed: the claim is ``undecided``."""


class CheckerFinding(StrEnum):
    """What the checker's sweep or worst-case search reported about a theorem."""

    VIOLATION = "violation"
    NONE = "none"


@dataclass(frozen=True)
class EngineResult:
    """What an engine said about a claim.

    ``status``: a `CertificateVerdict` for certification, a `CheckerFinding`
    for the checker.  ``note`` is one line for the evidence; ``witness`` a
    violating point (ε, queries, neighbour, output) for the caller to confirm.
    """

    status: CertificateVerdict | CheckerFinding
    note: str
    value: float | None = None
    witness: tuple | None = None
    details: tuple[str, ...] = field(default=())
    #: steps of the argument applied by hand (the certificate's `StepStatus.BY_HAND` steps and the passage from
    #: the certified statement to the claim); a claim resting on them is at most consistent (docs/verdicts.md)
    by_hand: tuple[str, ...] = field(default=())

    @property
    def certified(self) -> bool:
        return self.status is CertificateVerdict.CERTIFIED

    @property
    def refuted(self) -> bool:
        return self.status is CertificateVerdict.REFUTED


def _mech(family: str, eps: Any = 1):
    from proofs.sweeps import mechanism

    return mechanism(family, Fraction(eps))


def _failure(engine: str, exc: BaseException) -> EngineFailure:
    if isinstance(exc, EngineFailure):
        return exc
    if isinstance(exc, ImportError):
        return EngineFailure(f"{engine} is not available ({exc})")
    return EngineFailure(f"{engine} failed ({type(exc).__name__}: {exc})")


# --- certification -------------------------------------------------------------------------------------------
@cache
def _conditional_certificate(family: str):
    from verify.certify import certify_conditional_ratio

    return certify_conditional_ratio(_mech(family))


@cache
def _factor_bounds(family: str):
    from verify.certify import certify_factor_bounds

    return certify_factor_bounds(_mech(family))


def _range(cert: Any) -> str:
    lo, hi = cert.epsilon_range
    return "every ε > 0" if getattr(cert, "every_epsilon", False) else f"ε ∈ [{lo}, {hi}]"


#: Which factor certificates a pointwise comparison needs: (noise, factor) pairs, and whether the product is used.
FACTOR_NEEDS: dict[str, tuple[tuple[tuple[str, str], ...], bool]] = {
    "density": ((("threshold", "density_ratio"),), False),
    "cdf": ((("query", "cdf_ratio"),), False),
    "integrand": ((("threshold", "density_ratio"), ("query", "cdf_ratio")), True),
    "double_integrand": ((("threshold", "density_ratio"), ("query", "density_ratio")), True),
    "survival_integrand": ((("threshold", "density_ratio"), ("query", "survival_ratio")), True),
}
KINDS = ("theorem", "conditional", "no_halt", *(f"factor:{k}" for k in FACTOR_NEEDS))


def combined_status(verdicts: list[CertificateVerdict]) -> CertificateVerdict:
    """Refuted if any certificate is refuted, certified if all are, else undecided."""
    if CertificateVerdict.REFUTED in verdicts:
        return CertificateVerdict.REFUTED
    if all(v is CertificateVerdict.CERTIFIED for v in verdicts):
        return CertificateVerdict.CERTIFIED
    return CertificateVerdict.UNDECIDED


#: The passage from a conditional bound (given X_{<i} = x) to the unconditional one, applied by hand.
INTEGRATION_BY_HAND = ("integration over x_{i-1}: a pointwise bound between two conditional probabilities with the same "
                       "weight dP(x) integrates to the same bound (law of total probability, monotonicity of the integral), by hand")


def certification(kind: str, family: str) -> EngineResult:
    """Certify a claim of kind ``theorem`` / ``conditional`` (the conditional ratio), ``no_halt`` or
    ``factor:<name>`` (a pointwise comparison, `FACTOR_NEEDS`) for Mechanism One or Two.

    Raises `EngineFailure` when verify.certify is absent or fails."""
    if kind not in KINDS:
        raise ValueError(f"certification kind: {kind!r} is not one of {', '.join(KINDS)}")
    try:
        return _certification(kind, family)
    except Exception as exc:  # noqa: BLE001 - every engine failure becomes EngineFailure (the claim: undecided)
        raise _failure("certification (verify.certify)", exc) from exc


def _certification(kind: str, family: str) -> EngineResult:
    if kind in ("theorem", "conditional"):
        cert = _conditional_certificate(family)
        status = CertificateVerdict(cert.verdict)
        base = (f"verify.certify.certify_conditional_ratio: {status} ({cert.method}; {cert.boxes} boxes, "
                f"{_range(cert)}, margin {cert.min_margin}, sup |ln ratio|/ε = {cert.sup_log_ratio_per_epsilon})")
        hand = cert.by_hand_steps
        if kind == "theorem" and status is CertificateVerdict.CERTIFIED:
            base += "; the theorem follows by integrating the certified conditional bound over x_{i-1} (law of total probability)"
            hand += (INTEGRATION_BY_HAND,)
        return EngineResult(status, "certification: " + base, None if cert.min_margin is None else float(cert.min_margin),
                            by_hand=hand)
    if kind == "no_halt":
        # Pr[A(D) = ⊤^k | X = x] = Pr[Z > M(D, x) - t] = S_Z(M(D, x) - t); D' shifts the argument by
        # κ = M(D, x) - M(D', x), |κ| <= Δ, so a certified log-Lipschitz survival of Z (constant 1/b_Z)
        # bounds the conditional ratio by e^{Δ/b_Z}; the seed's scale b_Z = 3Δ/ε makes that e^{ε/3} <= e^ε.
        surv = _factor_bounds(family).threshold.survival_ratio
        status = CertificateVerdict(surv.verdict)
        base = (f"verify.certify.certify_factor_bounds: survival of Z {status} ({surv.method}; {surv.boxes} boxes, "
                f"{_range(surv)}): |ln S_Z(y+s) - ln S_Z(y)| <= |s|/b_Z; with Pr[⊤^k | x] = S_Z(M(D,x) - t) and "
                "|κ| <= Δ the conditional ratio is within e^{±Δ/b_Z} = e^{±ε/3}, and integrating over x keeps it")
        return EngineResult(status, "certification: " + base, None, by_hand=surv.by_hand_steps + (
            "Pr[⊤^k | X = x] = S_Z(M(D, x) - t) (independence of Z and X; the definition of ⊤^k), by hand", INTEGRATION_BY_HAND))
    needs, product = FACTOR_NEEDS[kind.split(":", 1)[1]]
    fb = _factor_bounds(family)
    certs = [getattr(getattr(fb, noise), factor) for noise, factor in needs] + ([fb.product] if product else [])
    status = combined_status([CertificateVerdict(c.verdict) for c in certs])
    parts = "; ".join(f"{c.claim}: {CertificateVerdict(c.verdict)}" for c in certs)
    hand = tuple(dict.fromkeys(h for c in certs for h in c.by_hand_steps))
    return EngineResult(status, f"certification (verify.certify.certify_factor_bounds, {_range(certs[0])}): {parts}", by_hand=hand)


# --- the checker -----------------------------------------------------------------------------------------------------
@cache
def checker_sweep(family: str) -> EngineResult:
    """`verify.sweep.sweep` on ε ∈ {1/2, 1, 2}, k = 2 (q(D) on t + jΔ, j = -6..6; shifts at the corners).

    Raises `EngineFailure` when verify.sweep is absent or fails."""
    try:
        from verify.sweep import GridSpec, sweep

        spec = GridSpec(epsilons=(Fraction(1, 2), Fraction(1), Fraction(2)), k=2)
        r = sweep(_mech(family), spec, workers=1, progress=False)
    except Exception as exc:  # noqa: BLE001
        raise _failure("the checker's sweep (verify.sweep)", exc) from exc
    w = r.witness
    note = (f"checker sweep (verify.sweep, ε ∈ {{1/2, 1, 2}}, k = 2, {r.points} points): {r.violation_count} violations; "
            f"largest |ln ratio| = {w.log_ratio if w else None} at ε = {w.epsilon if w else None}")
    if r.violation_count:
        v = r.violations[0]
        return EngineResult(CheckerFinding.VIOLATION, note, None, (v.epsilon, v.queries, v.neighbour_queries, v.output))
    return EngineResult(CheckerFinding.NONE, note)


@cache
def checker_worst_case(family: str) -> EngineResult:
    """`verify.worstcase.worst_case` with k <= 3 at ε = 1.

    Raises `EngineFailure` when verify.worstcase is absent or fails."""
    try:
        from verify.worstcase import worst_case

        r = worst_case(_mech(family), max_queries=3, push_study=False)
    except Exception as exc:  # noqa: BLE001
        raise _failure("the checker's worst-case search (verify.worstcase)", exc) from exc
    w = r.witness
    note = (f"worst-case search (verify.worstcase, ε = 1, k <= 3): verdict {r.verdict}, loss {float(r.loss):.12g} "
            f"(loss/ε = {float(r.loss_over_epsilon):.12g}) at q(D) = {[str(x) for x in w.queries]}, "
            f"q(D') = {[str(x) for x in w.neighbour_queries]}, output {output_name(w.output, len(w.queries))}")
    if MechanismVerdict(r.verdict) is MechanismVerdict.NOT_PRIVATE:
        return EngineResult(CheckerFinding.VIOLATION, note, float(r.loss), (Fraction(1), w.queries, w.neighbour_queries, w.output))
    return EngineResult(CheckerFinding.NONE, note, float(r.loss))


def clear_caches() -> None:
    for f in (_conditional_certificate, _factor_bounds, checker_sweep, checker_worst_case):
        f.cache_clear()
