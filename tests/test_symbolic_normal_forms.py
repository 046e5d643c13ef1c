"""`proofs.symbolic.is_zero` proves an identity by the cheapest normal form that gives 0.

`proofs.symbolic.NORMAL_FORMS` starts with sympy.cancel of the expanded expression (the canonical p/q of a
rational function of its generators; p = 0 is a proof), then the forms is_zero used alone before
(sympy.simplify, expand/powsimp, simplify of the exp rewrite).  Here: on the claims' own expressions, cancel
proves what sympy.simplify proves and, on the expressions that are not 0, gives no proof either (the reference is
sympy.simplify, never a value copied from the new path).  When cancel does not give 0, an expression that is a
non-zero rational at an admissible point (`proofs.symbolic.nonzero_at_a_point`, exact: ε = 3 ln 2, Δ = 1) is not
0, and is_zero says so without the slower forms.
"""

from __future__ import annotations

import pytest
import sympy as sp

from proofs import mechanism_one as M1
from proofs import symbolic as Y
from verify.probabilities import DELTA, EPSILON


def _identities():
    """Expressions the claims prove to be 0 (M1.example.D.corrected and .Dprime: the exact probability at
    n = 0..5 and the product formula for symbolic n; the Laplace symmetry and CDF lemmas, for y = -s, 0, s)."""
    for n in range(6):
        yield f"corrected-{n}", M1.example_probabilities(n)[0] - M1.corrected_example_D(n)
        yield f"Dprime-{n}", M1.example_probabilities(n)[1] - M1.seed_example_Dprime(n)
    yield "product-D", M1.product_formula(1, M1.N) - M1.corrected_example_D(M1.N)
    yield "step-D", M1.corrected_example_D(M1.N + 1) - Y.cdf("laplace", -DELTA) * M1.corrected_example_D(M1.N)
    p = Y.density("laplace", Y.x)
    for v in (-Y.s, sp.Integer(0), Y.s):
        yield f"symmetry-{v}", 1 - Y.cdf("laplace", v) - Y.cdf("laplace", -v)
        inner = [sp.Integer(0)] if v.is_positive else []
        yield f"cdf-{v}", Y.integrate_split(p, Y.x, -sp.oo, v, inner) - Y.cdf("laplace", v)
    yield "exponent", sp.exp(DELTA * EPSILON / (3 * DELTA)) * sp.exp(2 * DELTA * EPSILON / (3 * DELTA)) - sp.exp(EPSILON)


def _non_identities():
    """Expressions that are not 0: the seed's displayed Pr[A(D) = ⊤^n⊥] against the exact one (M1.example.D is
    refuted) and against the product formula."""
    for n in range(3):
        yield f"seed-D-{n}", M1.example_probabilities(n)[0] - M1.seed_example_D(n)
    yield "seed-product-D", M1.product_formula(1, M1.N) - M1.seed_example_D(M1.N)


#: The names `_identities` and `_non_identities` yield, known without building the expressions (sympy.simplify of
#: the exact probabilities: about a second), so that collecting this file builds none of them; each fixture checks
#: that its generator yields exactly these names.  The ids keep their earlier form ``name-``.
IDENTITY_NAMES = ([f"{kind}-{n}" for n in range(6) for kind in ("corrected", "Dprime")] + ["product-D", "step-D"]
                  + [f"{kind}-{v}" for v in ("-s", "0", "s") for kind in ("symmetry", "cdf")] + ["exponent"])
NON_IDENTITY_NAMES = [f"seed-D-{n}" for n in range(3)] + ["seed-product-D"]


@pytest.fixture(scope="module")
def identities() -> dict[str, sp.Expr]:
    built = dict(_identities())
    assert list(built) == IDENTITY_NAMES
    return built


@pytest.fixture(scope="module")
def non_identities() -> dict[str, sp.Expr]:
    built = dict(_non_identities())
    assert list(built) == NON_IDENTITY_NAMES
    return built


@pytest.mark.parametrize("name", IDENTITY_NAMES, ids=[f"{n}-" for n in IDENTITY_NAMES])
def test_cancel_proves_the_claims_identities_as_simplify_does(name: str, identities: dict[str, sp.Expr]) -> None:
    expr = identities[name]
    assert sp.simplify(expr) == 0, name
    assert Y.NORMAL_FORMS[0](expr) == 0, name
    assert not Y.nonzero_at_a_point(expr), name
    assert Y.is_zero(expr)


@pytest.mark.parametrize("name", NON_IDENTITY_NAMES, ids=[f"{n}-" for n in NON_IDENTITY_NAMES])
def test_no_normal_form_proves_a_false_identity(name: str, non_identities: dict[str, sp.Expr]) -> None:
    expr = non_identities[name]
    assert sp.simplify(expr) != 0, name
    assert Y.NORMAL_FORMS[0](expr) != 0, name
    assert Y.nonzero_at_a_point(expr), name
    assert not Y.is_zero(expr)


def test_the_witness_point_respects_the_assumptions() -> None:
    """ε = 3 ln 2 and Δ = 1 make e^{-ε/3} rational; an integer symbol gets an integer, a negative one no value of
    the list (no conclusion); an expression irrational at the point gives no conclusion."""
    n = sp.Symbol("n", integer=True, nonnegative=True)
    assert Y.nonzero_at_a_point(sp.exp(-EPSILON * n / 3) - sp.Rational(1, 3))  # 1/4 - 1/3 at n = 2
    assert not Y.nonzero_at_a_point(sp.exp(-EPSILON * n / 3) - sp.Rational(1, 4))  # 0 at the point: no conclusion
    assert not Y.nonzero_at_a_point(sp.Symbol("m", negative=True) + 1)
    assert not Y.nonzero_at_a_point(sp.exp(EPSILON / 5) - 1)  # 2^(3/5) - 1: not rational
    assert Y.nonzero_at_a_point(sp.exp(EPSILON) - 1)  # 7


def test_a_false_identity_never_reaches_simplify(monkeypatch: pytest.MonkeyPatch) -> None:
    """The seed's displayed Pr[A(D) = ⊤^2⊥] against the exact one: cancel does not give 0 and the witness point
    shows it is not 0, so sympy.simplify (seconds on such expressions) is not asked."""
    expr = M1.example_probabilities(2)[0] - M1.seed_example_D(2)
    calls = []
    real = sp.simplify
    monkeypatch.setattr(sp, "simplify", lambda e, **kw: calls.append(e) or real(e, **kw))
    assert not Y.is_zero(expr)
    assert calls == []


def test_cancel_is_tried_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """The cheap form comes first: an identity cancel shows never reaches sympy.simplify."""
    calls = []
    real = sp.simplify
    monkeypatch.setattr(sp, "simplify", lambda e, **kw: calls.append(e) or real(e, **kw))
    assert Y.is_zero(M1.product_formula(1, M1.N) - M1.corrected_example_D(M1.N))
    assert calls == []
    assert not Y.is_zero(sp.exp(EPSILON / 5) - 1 + sp.exp(-EPSILON) * 0)
    assert calls  # not 0 by cancel and no witness (2^(3/5) - 1): the slower forms are asked
