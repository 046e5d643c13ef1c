"""The project's other engines, used when present: the checker and certification.

* `verify.sweep.sweep` (the checker's grid sweep of the output ratios) and
  `verify.worstcase.worst_case` (its worst-case search): extra evidence for
  the privacy theorems; a violation they report is re-confirmed here with
  `verify.ratio.privacy_ratio` before it refutes anything.
* `verify.certify.certify_conditional_ratio` (rigorous enclosures of the
  conditional inequality e^{-ε} <= Pr[A(D)=s_i ∥ x]/Pr[A(D')=s_i ∥ x] <= e^{ε})
  and `verify.certify.certify_factor_bounds` (the density / survival / CDF
  ratio bounds and the product e^{Δ/b_Z}·e^{2Δ/b_X} <= e^ε).

Every engine is imported inside the functions; when one is absent or fails,
the result says so (``available`` False, a note) and the claims keep their
own sampling verdicts: a claim is reported ``certified`` only on a
certificate whose verdict is ``certified``.  Results are cached per process.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import cache
from typing import Any


@dataclass(frozen=True)
class EngineResult:
    """What an engine said about a claim.

    ``status``: ``certified`` / ``refuted`` / ``undecided`` for certification,
    ``violation`` / ``none`` for the checker, ``unavailable`` when the engine
    could not be used.  ``note`` is one line for the evidence; ``witness`` a
    violating point (queries, neighbour, output, ε) for the caller to confirm.
    """

    status: str
    note: str
    value: float | None = None
    witness: tuple | None = None
    details: tuple[str, ...] = field(default=())

    @property
    def certified(self) -> bool:
        return self.status == "certified"


def _mech(family: str, eps: Any = 1):
    from proofs.sweeps import mechanism

    return mechanism(family, Fraction(eps))


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


def certification(kind: str, family: str) -> EngineResult:
    """Certify a claim of kind ``theorem`` / ``conditional`` (the conditional ratio) or
    ``factor:<name>`` (a pointwise comparison, `FACTOR_NEEDS`) for Mechanism One or Two."""
    try:
        if kind in ("theorem", "conditional"):
            cert = _conditional_certificate(family)
            base = (f"verify.certify.certify_conditional_ratio: {cert.verdict} ({cert.method}; {cert.boxes} boxes, "
                    f"{_range(cert)}, margin {cert.min_margin}, sup |ln ratio|/ε = {cert.sup_log_ratio_per_epsilon})")
            if kind == "theorem" and cert.certified:
                base += "; the theorem follows by integrating the certified conditional bound over x_{i-1} (law of total probability)"
            return EngineResult(cert.verdict, "certification: " + base, None if cert.min_margin is None else float(cert.min_margin))
        if kind == "no_halt":
            # Pr[A(D) = ⊤^k | X = x] = Pr[Z > M(D, x) - t] = S_Z(M(D, x) - t); D' shifts the argument by
            # κ = M(D, x) - M(D', x), |κ| <= Δ, so a certified log-Lipschitz survival of Z (constant 1/b_Z)
            # bounds the conditional ratio by e^{Δ/b_Z}; the seed's scale b_Z = 3Δ/ε makes that e^{ε/3} <= e^ε.
            surv = _factor_bounds(family).threshold.survival_ratio
            base = (f"verify.certify.certify_factor_bounds: survival of Z {surv.verdict} ({surv.method}; {surv.boxes} boxes, "
                    f"{_range(surv)}): |ln S_Z(y+s) - ln S_Z(y)| <= |s|/b_Z; with Pr[⊤^k | x] = S_Z(M(D,x) - t) and "
                    "|κ| <= Δ the conditional ratio is within e^{±Δ/b_Z} = e^{±ε/3}, and integrating over x keeps it")
            return EngineResult(surv.verdict, "certification: " + base, None)
        if kind.startswith("factor:"):
            needs, product = FACTOR_NEEDS[kind.split(":", 1)[1]]
            fb = _factor_bounds(family)
            certs = [getattr(getattr(fb, noise), factor) for noise, factor in needs] + ([fb.product] if product else [])
            verdicts = [c.verdict for c in certs]
            status = "refuted" if "refuted" in verdicts else ("certified" if all(v == "certified" for v in verdicts) else "undecided")
            parts = "; ".join(f"{c.claim}: {c.verdict}" for c in certs)
            return EngineResult(status, f"certification (verify.certify.certify_factor_bounds, {_range(certs[0])}): {parts}")
    except ImportError:
        return EngineResult("unavailable", "certification: verify.certify is not present; no rigorous enclosure attempted")
    except Exception as exc:  # noqa: BLE001 - an engine failure must never turn into a verdict
        return EngineResult("unavailable", f"certification: verify.certify failed ({type(exc).__name__}: {exc}); sampling verdict kept")
    return EngineResult("unavailable", f"certification: no certificate for claims of kind {kind!r}")


# --- the checker -----------------------------------------------------------------------------------------------------
@cache
def checker_sweep(family: str) -> EngineResult:
    """`verify.sweep.sweep` on ε ∈ {1/2, 1, 2}, k = 2 (q(D) on t + jΔ, j = -6..6; shifts at the corners)."""
    try:
        from verify.sweep import GridSpec, sweep
    except ImportError:
        return EngineResult("unavailable", "checker sweep: verify.sweep is not present")
    try:
        spec = GridSpec(epsilons=(Fraction(1, 2), Fraction(1), Fraction(2)), k=2)
        r = sweep(_mech(family), spec, workers=1, progress=False)
        w = r.witness
        note = (f"checker sweep (verify.sweep, ε ∈ {{1/2, 1, 2}}, k = 2, {r.points} points): {r.violation_count} violations; "
                f"largest |ln ratio| = {w.log_ratio if w else None} at ε = {w.epsilon if w else None}")
        if r.violation_count:
            v = r.violations[0]
            return EngineResult("violation", note, None, (v.epsilon, v.queries, v.neighbour_queries, v.output))
        return EngineResult("none", note)
    except Exception as exc:  # noqa: BLE001
        return EngineResult("unavailable", f"checker sweep: verify.sweep failed ({type(exc).__name__}: {exc})")


@cache
def checker_worst_case(family: str) -> EngineResult:
    """`verify.worstcase.worst_case` with k <= 3 at ε = 1."""
    try:
        from verify.worstcase import worst_case
    except ImportError:
        return EngineResult("unavailable", "worst-case search: verify.worstcase is not present")
    try:
        r = worst_case(_mech(family), max_queries=3, push_study=False)
        w = r.witness
        note = (f"worst-case search (verify.worstcase, ε = 1, k <= 3): verdict {r.verdict}, loss {float(r.loss):.12g} "
                f"(loss/ε = {float(r.loss_over_epsilon):.12g}) at q(D) = {[str(x) for x in w.queries]}, "
                f"q(D') = {[str(x) for x in w.neighbour_queries]}, output {w.output}")
        if r.verdict == "not_private":
            return EngineResult("violation", note, float(r.loss), (Fraction(1), w.queries, w.neighbour_queries, w.output))
        return EngineResult("none", note, float(r.loss))
    except Exception as exc:  # noqa: BLE001
        return EngineResult("unavailable", f"worst-case search: verify.worstcase failed ({type(exc).__name__}: {exc})")


def clear_caches() -> None:
    for f in (_conditional_certificate, _factor_bounds, checker_sweep, checker_worst_case):
        f.cache_clear()
