"""The certificate's closed forms integrate sums of exponentials term by term, exactly.

`verify.certify.closed_forms.integrate_exponentials` replaces sympy's general integrator (its Meijer G
path) in `conditional_cell` and `tilted_hazard_pieces`.  Reference: the same functions with
``integrate=sympy_integral`` (sympy.integrate), compared exactly (the difference is identically 0: sympy.cancel,
else sympy.simplify; Piecewise results branch by branch), never a value copied from the new path.  The reference
integrals are computed once per distinct integral up to a rational factor, a finite one once per integrand between
two symbolic bounds (`reference_integral`: the cells of one pair share segments such as [d, ∞) with the same
integrand, the family pairs share integrands), each by sympy.integrate itself, and a cell's reference is the sum of
its integrals as sympy.integrate gives them, Piecewise terms folded into one (`reference_cell`; not passed through
sympy.simplify first, which only rewrote it: the comparison simplifies the difference).
"""

from __future__ import annotations

from fractions import Fraction

import pytest
import sympy

from verify.certify import closed_forms as cf

ALPHA, BETA = sympy.symbols("alpha beta", positive=True)
V = cf.Z
FAMILIES = ("laplace", "exponential", "none")


_REFERENCE: dict[tuple, sympy.Expr] = {}
#: The bounds of the finite integrals `reference_integral` asks sympy for once per integrand (real, otherwise free).
LO, HI = sympy.Dummy("lo", real=True), sympy.Dummy("hi", real=True)


def reference_integral(expr: sympy.Expr, v: sympy.Symbol, lo: sympy.Expr, hi: sympy.Expr) -> sympy.Expr:
    """`cf.sympy_integral` (sympy.integrate) of ``expr`` from lo to hi, remembered (equal sympy expressions hash
    alike) and shared between the integrals that differ only by a rational factor or by finite bounds: a rational
    factor c of expr is taken out (∫ c·f = c·∫ f), and where lo and hi are finite, sympy integrates f once from LO
    to HI, two real symbols, and lo, hi are substituted (sympy's result there is F(HI) - F(LO), an antiderivative
    of an integrand continuous on ℝ at both bounds: exactly ∫_lo^hi f; with sympy 1.14 it is even the same
    expression as sympy.integrate(f, (v, lo, hi)) for every finite integral of this file).  The cells of the four
    family pairs share these (laplace-laplace and exponential-laplace integrate the same f up to a factor ½).
    f is expanded into its terms before sympy.integrate sees it (the same integrand; sympy integrates a sum
    term by term, faster than the product)."""
    c, f = expr.as_coeff_Mul()
    if lo.is_finite and hi.is_finite:
        key = (f, v)
        if key not in _REFERENCE:
            _REFERENCE[key] = cf.sympy_integral(sympy.expand(f), v, LO, HI)
        return c * _REFERENCE[key].subs({LO: lo, HI: hi})
    key = (f, v, lo, hi)
    if key not in _REFERENCE:
        _REFERENCE[key] = cf.sympy_integral(sympy.expand(f), v, lo, hi)
    return c * _REFERENCE[key]


def reference_cell(zf: str, xf: str, alpha: sympy.Expr, beta: sympy.Expr, order: tuple[str, ...]) -> sympy.Expr:
    """`cf.conditional_cell` with sympy.integrate (`reference_integral`) in place of the term-by-term integrals,
    the sum unsimplified and its Piecewise terms folded (`sympy.piecewise_fold`)."""
    return sympy.piecewise_fold(cf.conditional_cell(zf, xf, alpha, beta, order, integrate=reference_integral,
                                                    simplified=False))


def assert_equal_exactly(new: sympy.Expr, old: sympy.Expr) -> None:
    """new == old as functions: a plain difference is identically 0 (`is_zero_exactly`); a Piecewise has the same
    conditions and each branch's difference is identically 0 where that branch applies (the branch after
    ``Ne(x, y)`` with y = x substituted)."""
    if isinstance(old, sympy.Piecewise) or isinstance(new, sympy.Piecewise):
        assert isinstance(old, sympy.Piecewise) and isinstance(new, sympy.Piecewise), (new, old)
        assert [_zero_set(c) for _, c in new.args] == [_zero_set(c) for _, c in old.args], (new, old)
        where: dict = {}
        for (e_new, cond), (e_old, _) in zip(new.args, old.args):
            assert is_zero_exactly((e_new - e_old).subs(where)), (e_new, e_old, where)
            if cond is not sympy.true:
                where[BETA] = _zero_set(cond)
    else:
        assert is_zero_exactly(new - old), (new, old)


def is_zero_exactly(diff: sympy.Expr) -> bool:
    """diff is identically 0: sympy.cancel of its expansion (exp(a + b) = exp(a)·exp(b)) is 0, an exact identity of
    rational functions in the exponentials as generators; only otherwise is sympy.simplify asked (slower).  Either
    answer 0 is a proof; neither is a test at points."""
    return sympy.cancel(sympy.expand(diff)) == 0 or sympy.simplify(diff) == 0


def _zero_set(cond: sympy.Basic) -> sympy.Expr | None:
    """A Piecewise condition Ne(p, q), as the β with p = q (None for True): Ne(α, β) and Ne(α - β, 0) alike."""
    if cond is sympy.true:
        return None
    assert isinstance(cond, sympy.Ne), cond
    (beta,) = sympy.solve(cond.args[0] - cond.args[1], BETA)
    return beta


@pytest.mark.parametrize("expr,lo,hi", [
    (ALPHA * sympy.exp(-ALPHA * V), sympy.Integer(0), sympy.oo),                      # a < 0 up to +∞
    (sympy.exp(BETA * V - BETA * cf.D) / 2, -sympy.oo, cf.D),                           # a > 0 from -∞
    (sympy.exp((ALPHA + BETA) * V) - 3 * sympy.exp(2 * V), cf.M, cf.D),                # finite bounds, two terms
    (sympy.exp(V / 3) * sympy.exp(-V / 3) * sympy.exp(cf.D), cf.M, sympy.Integer(0)),  # a = 0: c e^b (hi - lo)
    (sympy.exp((ALPHA - BETA) * V), sympy.Integer(0), cf.D),                           # a of unknown zero-ness
    (V * sympy.exp(-V), sympy.Integer(0), sympy.oo),                                   # not c·e^{av+b}
])
def test_integrate_exponentials_equals_sympy(expr, lo, hi) -> None:
    assert_equal_exactly(cf.integrate_exponentials(expr, V, lo, hi), cf.sympy_integral(expr, V, lo, hi))


def test_a_term_that_is_not_an_exponential_is_left_to_sympy() -> None:
    assert cf.integrate_exponentials(V * sympy.exp(-V), V, sympy.Integer(0), sympy.oo) == 1
    assert cf.integrate_exponentials(V, V, sympy.Integer(0), sympy.Integer(2)) == 2


@pytest.mark.slow
@pytest.mark.parametrize("zf", FAMILIES)
@pytest.mark.parametrize("xf", FAMILIES)
def test_conditional_cells_equal_sympy_integrals_at_rational_rates(zf: str, xf: str) -> None:
    """Every cell (with and without m); rates equal (exponents cancel: a = 0) and unequal."""
    for alpha, beta in [(Fraction(1, 3), Fraction(1, 3)), (Fraction(1, 2), Fraction(1, 4))]:
        for order in cf.cells(True) + cf.cells(False):
            new = cf.conditional_cell(zf, xf, cf.rat(alpha), cf.rat(beta), order)
            old = reference_cell(zf, xf, cf.rat(alpha), cf.rat(beta), order)
            assert_equal_exactly(new, old)


@pytest.mark.slow  # about 10 s of CPU (sympy's Meijer G reference); the rational-rate test covers every cell quickly
@pytest.mark.parametrize("zf,xf", [("laplace", "laplace"), ("exponential", "exponential"),
                                   ("laplace", "exponential"), ("exponential", "laplace")])
def test_conditional_cells_equal_sympy_integrals_at_symbolic_rates(zf: str, xf: str) -> None:
    """Every cell with α, β symbols, as `tail_cell_identity` uses it: the sum of the term-by-term integrals
    (``simplified=False``; the simplified cell is checked at rational rates), Piecewise terms folded as the
    reference's; Piecewise where α = β is possible."""
    for order in cf.cells(True) + cf.cells(False):
        new = sympy.piecewise_fold(cf.conditional_cell(zf, xf, ALPHA, BETA, order, simplified=False))
        old = reference_cell(zf, xf, ALPHA, BETA, order)
        assert_equal_exactly(new, old)


@pytest.mark.slow
@pytest.mark.parametrize("family", ["laplace", "exponential"])
def test_tilted_hazard_pieces_are_the_same_expressions(family: str) -> None:
    """Structurally identical to sympy's (the interval search evaluates these very expressions)."""
    for alpha, beta in [(sympy.Integer(1), cf.rat(r)) for r in (Fraction(1), Fraction(1, 3), Fraction(3, 2))] + [(ALPHA, BETA)]:
        new = cf.tilted_hazard_pieces(family, alpha, beta)
        old = cf.tilted_hazard_pieces(family, alpha, beta, integrate=reference_integral)
        assert new == old


@pytest.mark.parametrize("zf,xf", [("laplace", "laplace"), ("exponential", "exponential"), ("laplace", "exponential")])
def test_tail_cell_identity_fails_for_a_wrong_tail_form(zf: str, xf: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The identity check (sympy.cancel, else sympy.simplify) can fail: a constant off by 2 is caught."""
    assert cf.tail_cell_identity(zf, xf, ALPHA, BETA)[0]
    right = cf.tail_constants
    monkeypatch.setattr(cf, "tail_constants", lambda z, x, a: (2 * right(z, x, a)[0], right(z, x, a)[1]))
    assert not cf.tail_cell_identity(zf, xf, ALPHA, BETA)[0]


# --- the proofs' lemmas (proofs.symbolic.integrate_split) ------------------------------------------------------
def _lemma_integrals():
    """Every integral `proofs.symbolic`'s lemmas take (`cdf_lemma`, `normalised`, `exp_survival_lemma`): the
    density of each family, from -∞ to y and from y to ∞ for y = -s, 0, s, and over ℝ, split at 0 where 0 is
    inside."""
    from proofs import symbolic as Y

    zero = sympy.Integer(0)
    for family in ("laplace", "exponential"):
        p = Y.density(family, Y.x)
        yield family, p, -sympy.oo, sympy.oo, [zero]
        for v in (-Y.s, zero, Y.s):
            yield family, p, -sympy.oo, v, [zero] if v.is_positive else []
            yield family, p, v, sympy.oo, [zero] if v.is_negative else []


LEMMA_INTEGRALS = list(_lemma_integrals())


@pytest.mark.parametrize("family,p,lo,hi,inner", LEMMA_INTEGRALS, ids=[f"{f}-[{lo},{hi}]" for f, _, lo, hi, _ in LEMMA_INTEGRALS])
def test_lemma_integrals_equal_sympy_integrate(family, p, lo, hi, inner) -> None:
    """`integrate_split` by term-by-term antiderivatives (its default) gives sympy.integrate's value on the
    lemmas' integrals (the difference cancels to 0: an exact identity in e^{±ελy}, λ = ε/(3Δ))."""
    from proofs import symbolic as Y

    new = Y.integrate_split(p, Y.x, lo, hi, inner)
    old = Y.integrate_split(p, Y.x, lo, hi, inner, integrate=cf.sympy_integral)
    assert sympy.cancel(sympy.expand(new - old)) == 0, (family, lo, hi, new, old)


def test_lemma_integral_with_a_wrong_antiderivative_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    """The comparison can fail: an antiderivative off by a factor 2 on the density's negative branch differs from
    sympy.integrate's value, and the lemma it feeds is then not shown."""
    from proofs import symbolic as Y

    right = cf.integrate_exponentials
    monkeypatch.setattr(cf, "integrate_exponentials", lambda e, v, a, b: 2 * right(e, v, a, b) if b == 0 else right(e, v, a, b))
    p = Y.density("laplace", Y.x)
    new = Y.integrate_split(p, Y.x, -sympy.oo, sympy.oo, [sympy.Integer(0)], integrate=cf.integrate_exponentials)
    old = Y.integrate_split(p, Y.x, -sympy.oo, sympy.oo, [sympy.Integer(0)], integrate=cf.sympy_integral)
    assert sympy.cancel(sympy.expand(new - old)) != 0
    assert not Y.is_zero(new - 1)
