"""The engines behind ``certified`` and ``proved``: present in this installation, and when one
fails the claim is ``undecided`` with the reason, never silently left at its sampling verdict.

A failing engine is simulated by monkeypatching the function it calls to raise.  The claim under test is
a copy with a fresh ID (`dataclasses.replace`), so that its default check is not served from the
per-process verdict cache and the registry is untouched; the engines' own caches are cleared first.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from proofs import engines, get_claim, symbolic
from proofs.claim import ClaimVerdict
from proofs.engines import CheckerFinding, EngineFailure, certification, checker_sweep
from verify.verdicts import CertificateVerdict


def _fresh(claim_id: str, tag: str):
    return replace(get_claim(claim_id), id=f"test.{tag}.{claim_id}")


def _boom(*args, **kwargs):
    raise RuntimeError("simulated engine crash")


# --- the engines are available here ---------------------------------------------------------------------------------
def test_certifier_is_available_and_certifies() -> None:
    import verify.certify  # noqa: F401 - the import itself is part of the check

    assert certification("conditional", "laplace").status is CertificateVerdict.CERTIFIED
    assert certification("factor:density", "laplace").status is CertificateVerdict.CERTIFIED
    assert certification("no_halt", "exponential").status is CertificateVerdict.CERTIFIED


def test_checker_is_available() -> None:
    assert checker_sweep("laplace").status is CheckerFinding.NONE


def test_sympy_engine_is_available() -> None:
    from proofs import case_analysis as CA

    assert symbolic.laplace_symmetry() is True
    assert CA.max_lipschitz().proved


def test_unknown_certification_kind_is_a_programming_error() -> None:
    with pytest.raises(ValueError, match="certification kind"):
        certification("factor:nothing", "laplace")


# --- a failing engine makes the claim undecided ----------------------------------------------------------------------------
def test_certifier_crash_makes_a_certified_claim_undecided(monkeypatch) -> None:
    import verify.certify

    # certified factor bounds, but the mean value step is applied by hand: consistent (docs/verdicts.md, "One rule")
    assert get_claim("P1.compare.density").check().verdict is ClaimVerdict.CONSISTENT
    engines.clear_caches()
    monkeypatch.setattr(verify.certify, "certify_factor_bounds", _boom)
    with pytest.raises(EngineFailure, match="simulated engine crash"):
        certification("factor:density", "laplace")
    v = _fresh("P1.compare.density", "certifier").check()
    assert v.verdict is ClaimVerdict.UNDECIDED, v.method
    assert "certification" in v.method and "simulated engine crash" in v.method
    engines.clear_caches()


def test_conditional_certifier_crash_makes_the_conclusion_undecided(monkeypatch) -> None:
    import verify.certify

    engines.clear_caches()
    monkeypatch.setattr(verify.certify, "certify_conditional_ratio", _boom)
    v = _fresh("P1.conclusion.1", "certifier").check()
    assert v.verdict is ClaimVerdict.UNDECIDED, v.method
    engines.clear_caches()


def test_missing_certifier_makes_the_claim_undecided(monkeypatch) -> None:
    import sys

    engines.clear_caches()
    monkeypatch.setitem(sys.modules, "verify.certify", None)  # `import verify.certify` raises ImportError
    v = _fresh("P1.compare.cdf", "missing").check()
    assert v.verdict is ClaimVerdict.UNDECIDED and "not available" in v.method, v.method
    engines.clear_caches()


def test_checker_sweep_crash_makes_the_theorem_undecided(monkeypatch) -> None:
    import verify.sweep

    engines.clear_caches()
    monkeypatch.setattr(verify.sweep, "sweep", _boom)
    v = _fresh("M1.theorem", "checker").check()
    assert v.verdict is ClaimVerdict.UNDECIDED and "verify.sweep" in v.method, v.method
    engines.clear_caches()


def test_sympy_crash_makes_a_proved_claim_undecided(monkeypatch) -> None:
    assert get_claim("P1.chain.4").check().verdict is ClaimVerdict.PROVED
    symbolic.clear_caches()
    monkeypatch.setattr(symbolic, "cdf", _boom)
    v = _fresh("P1.chain.4", "sympy").check()
    assert v.verdict is ClaimVerdict.UNDECIDED, v.method
    assert "sympy engine" in v.method and "laplace_symmetry" in v.method
    symbolic.clear_caches()


def test_case_analysis_crash_makes_the_kappa_bound_undecided(monkeypatch) -> None:
    from proofs import case_analysis as CA

    symbolic.clear_caches()
    monkeypatch.setattr(CA, "linprog", _boom)
    v = _fresh("P1.kappa_bound", "sympy").check()
    assert v.verdict is ClaimVerdict.UNDECIDED and "max_lipschitz" in v.method, v.method
    symbolic.clear_caches()


def test_every_normal_form_failing_is_an_engine_failure(monkeypatch) -> None:
    import sympy as sp

    monkeypatch.setattr(sp, "simplify", _boom)
    monkeypatch.setattr(sp, "expand", _boom)
    with pytest.raises(EngineFailure, match="every normal form failed"):
        symbolic.is_zero(sp.Symbol("x") - sp.Symbol("x") + 1)
