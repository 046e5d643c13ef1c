"""Tests of the certification engine (verify.certify) and ``svt-verify certify``.

Reference values come from the project's mpmath path (`mp_conditional`, 30-50
digits), never from the certificates themselves.  Every random generator is
seeded.  Known non-private variants are negative controls: the suite fails if
one of them is certified.
"""

from __future__ import annotations

import json
import random
from fractions import Fraction

import mpmath
import pytest
import sympy
from hypothesis import example, given, settings
from hypothesis import strategies as st

from verify.certify import CertifySpec, certify_conditional_ratio, certify_factor_bounds
from verify.certify import closed_forms as cf
from verify.certify.conditional import hazard_search, tilted_hazard_search
from verify.certify.interval import Interval, evaluate, to_fraction
from verify.certify.search import MAX_EXACT_DEGREE, Piece, certify_sup, exact_value
from verify.cli.main import main
from verify.errors import InputError
from verify.mechanism import AboveThreshold
from verify.noise import NoiseSpec
from verify.probabilities import mp_conditional, symbolic_conditional

M1 = AboveThreshold.mechanism_one(1)
M2 = AboveThreshold.mechanism_two(1)


def variant(family: str, cz: object, cx: object, zfam: str | None = None, xfam: str | None = None, eps: object = 1) -> AboveThreshold:
    return AboveThreshold.with_noise(family, eps, threshold_multiplier=cz, query_multiplier=cx,
                                     threshold_family=zfam, query_family=xfam)


# Negative controls: variants that are NOT private in the conditional sense (INCORRECT on purpose).
NON_PRIVATE = {
    "exponential 2Δ/ε on both": variant("exponential", 2, 2),
    "Laplace, query scale Δ/ε": variant("laplace", 3, 1),
    "Laplace 4Δ/ε threshold, 2Δ/ε queries": variant("laplace", 4, 2),
    "Laplace, no threshold noise": variant("laplace", 0, 3),
    "Laplace, no query noise": variant("laplace", 3, 0),
    "exponential, no query noise": variant("exponential", 3, 0),
    "no noise at all": variant("laplace", 0, 0),
}


# --- the seed mechanisms -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("mech", [M1, M2], ids=["mechanism one (Laplace)", "mechanism two (exponential)"])
def test_seed_mechanisms_are_certified_with_zero_margin(mech: AboveThreshold) -> None:
    c = certify_conditional_ratio(mech, (Fraction(1, 100), 10))
    assert c.verdict == "certified"
    assert c.counterexample is None
    assert c.every_epsilon
    # the bound e^ε is attained (tail cell): sup |log ratio| = ε exactly, margin 0
    assert c.sup_log_ratio_per_epsilon == 1
    assert c.min_margin == 0
    assert {s.status for s in c.steps} <= {"exact", "by_hand", "certified", "symbolic"}
    assert all(s.verdict == "certified" for s in c.searches)


@pytest.mark.slow
def test_non_tight_and_textbook_scales() -> None:
    """Lap(4Δ/ε) on both: margin ε(1 - 3/4); Dwork-Roth's Lap(2Δ/ε)/Lap(4Δ/ε): tight, certified."""
    c = certify_conditional_ratio(variant("laplace", 4, 4), (Fraction(1, 100), 10))
    assert c.verdict == "certified" and c.min_margin == Fraction(1, 400) and c.sup_log_ratio_per_epsilon == Fraction(3, 4)
    c = certify_conditional_ratio(variant("laplace", 2, 4), (Fraction(1, 100), 10))
    assert c.verdict == "certified" and c.min_margin == 0
    c = certify_conditional_ratio(variant("laplace", 3, 3, zfam="exponential"), (Fraction(1, 100), 10))
    assert c.verdict == "certified"


@pytest.mark.parametrize("name", list(NON_PRIVATE))
def test_non_private_variants_are_never_certified(name: str) -> None:
    c = certify_conditional_ratio(NON_PRIVATE[name], (Fraction(1, 100), 10))
    assert c.verdict in ("refuted", "undecided")
    assert c.verdict == "refuted"  # all of these have an exact counterexample
    cx = c.counterexample
    assert cx is not None and cx.digits == 50
    with mpmath.workdps(60):
        lr = cx.values["log_ratio"]
        assert lr == "inf" or mpmath.mpf(lr) > mpmath.mpf(cx.values["bound"])
        # the counterexample is re-evaluated independently through the public mpmath path
        mech = CertifySpec.of(NON_PRIVATE[name]).mechanism(Fraction(cx.values["epsilon"]))
        gm = None if cx.values["gap_max"] == "-inf" else Fraction(cx.values["gap_max"])
        ngm = None if cx.values["neighbour_gap_max"] == "-inf" else Fraction(cx.values["neighbour_gap_max"])
        p = mp_conditional(mech, gm, Fraction(cx.values["gap_query"]), 50)
        p2 = mp_conditional(mech, ngm, Fraction(cx.values["neighbour_gap_query"]), 50)
        eps = mpmath.mpf(Fraction(cx.values["epsilon"]).numerator) / Fraction(cx.values["epsilon"]).denominator
        assert p > mpmath.exp(eps) * p2


def test_absolute_scales() -> None:
    """Lap(3) on both with Δ = 1: sup |log ratio| = 1/3 + 2/3 = 1 nat, independent of ε."""
    spec = CertifySpec(NoiseSpec("laplace", absolute=Fraction(3)), NoiseSpec("laplace", absolute=Fraction(3)), Fraction(1))
    ok = certify_conditional_ratio(spec, (1, 10))
    assert ok.verdict == "certified" and ok.min_margin == 0 and ok.sup_log_ratio == 1 and not ok.every_epsilon
    bad = certify_conditional_ratio(spec, (Fraction(1, 2), 10))
    assert bad.verdict == "refuted"


def test_mixed_scale_kinds_are_rejected() -> None:
    spec = CertifySpec(NoiseSpec("laplace", multiplier=Fraction(3)), NoiseSpec("laplace", absolute=Fraction(3)))
    with pytest.raises(InputError, match="multiple of Δ/ε and the other absolute"):
        certify_conditional_ratio(spec)


@pytest.mark.parametrize("bad", [(0, 1), (2, 1), (-1, 1), "x", (1,)])
def test_bad_epsilon_range(bad: object) -> None:
    with pytest.raises(InputError):
        certify_conditional_ratio(M1, bad)


# --- factor bounds ------------------------------------------------------------------------------------------------------
def test_factor_bounds_mechanism_one_all_certified() -> None:
    fb = certify_factor_bounds(M1)
    assert fb.verdict == "certified"
    for c in (*fb.threshold.all(), *fb.query.all()):
        assert c.verdict == "certified" and c.min_margin == 0
    assert fb.product.verdict == "certified" and fb.product.min_margin == 0


def test_factor_bounds_mechanism_two_pointwise_comparison_fails() -> None:
    """Exponential density: support mismatch gives an infinite density ratio (the seed's
    'comparing the integrands' fails pointwise) while the survival factor is fine."""
    fb = certify_factor_bounds(M2)
    assert fb.verdict == "refuted"
    for nf in (fb.threshold, fb.query):
        assert nf.density_ratio.verdict == "refuted"
        cx = nf.density_ratio.counterexample
        assert cx.values["p(y)"] in ("0.0", "0") and mpmath.mpf(cx.values["p(y+s)"]) > 0 and cx.values["ratio"] == "inf"
        assert nf.survival_ratio.verdict == "certified"
        assert nf.cdf_ratio.verdict == "refuted"
    assert fb.product.verdict == "certified"


def test_factor_product_refuted_for_small_query_scale() -> None:
    fb = certify_factor_bounds(NON_PRIVATE["Laplace, query scale Δ/ε"])
    assert fb.product.verdict == "refuted"
    assert fb.query.density_ratio.verdict == "certified"  # each factor is fine, the product is too large
    fb = certify_factor_bounds(NON_PRIVATE["exponential 2Δ/ε on both"])
    assert fb.product.verdict == "refuted" and fb.threshold.density_ratio.verdict == "refuted"
    assert certify_factor_bounds(NON_PRIVATE["Laplace 4Δ/ε threshold, 2Δ/ε queries"]).product.verdict == "refuted"
    fb = certify_factor_bounds(NON_PRIVATE["Laplace, no threshold noise"])
    assert fb.verdict == "undecided" and fb.threshold.density_ratio.method.startswith("not applicable")


# --- closed forms against the project's mpmath path ---------------------------------------------------------------------
@pytest.mark.slow
@pytest.mark.parametrize(
    "zf,xf,cz,cx",
    [("laplace", "laplace", 3, 3), ("exponential", "exponential", 3, 3), ("laplace", "exponential", 2, 4),
     ("exponential", "laplace", 4, 2), ("none", "laplace", 0, 3), ("laplace", "none", 3, 0)],
)
def test_closed_forms_match_mp_conditional_in_every_cell(zf: str, xf: str, cz: int, cx: int) -> None:
    mech = variant("laplace", cz, cx, zfam=zf, xfam=xf)
    a = Fraction(1, cz) if cz else Fraction(1)
    b = Fraction(1, cx) if cx else Fraction(1)
    for order in cf.cells(True) + cf.cells(False):
        pt = cf._sample_point(order)
        m = None if "m" not in pt else pt["m"] * Fraction(5, 4) + (Fraction(1, 7) if pt["m"] > 0 else -Fraction(1, 7) if pt["m"] < 0 else 0)
        d = pt["d"] * Fraction(9, 4)
        exact = cf.conditional_value(zf, xf, a, b, m, d)
        ref = mp_conditional(mech, m, d, digits=30)  # reference: mpmath, 30 digits
        with mpmath.workdps(30):
            assert abs(mpmath.mpf(str(exact.evalf(40))) - ref) <= mpmath.mpf(10) ** -28


@pytest.mark.parametrize("zf,xf", [("laplace", "laplace"), ("exponential", "exponential"), ("laplace", "exponential")])
def test_closed_forms_equal_symbolic_conditional_exactly(zf: str, xf: str) -> None:
    """Exact sympy equality with the project's symbolic path at points of three cells."""
    mech = variant("laplace", 3, 3, zfam=zf, xfam=xf)
    third = Fraction(1, 3)
    for m, d in [(Fraction(-2), Fraction(1)), (Fraction(1, 2), Fraction(-1)), (None, Fraction(3, 2))]:
        mine = cf.conditional_value(zf, xf, third, third, m, d)
        theirs = symbolic_conditional(mech, m, d)
        assert sympy.simplify(mine - theirs) == 0


def test_tail_cell_identity_symbolic() -> None:
    a, b = sympy.symbols("alpha beta", positive=True)
    for zf in ("laplace", "exponential"):
        for xf in ("laplace", "exponential"):
            ok, _ = cf.tail_cell_identity(zf, xf, a, b)
            assert ok


# --- certified bounds against mpmath at random points inside the boxes ------------------------------------------------
def _points_in(box, rng: random.Random, n: int = 6) -> list[Fraction]:
    lo, hi = box.lo, box.hi
    if lo is None and hi is None:
        lo, hi = Fraction(-50), Fraction(50)
    elif lo is None:
        return [hi - Fraction(rng.choice([0, 1, 3, 10, 40, 200])) - Fraction(rng.randint(0, 99), 100) for _ in range(n)]
    elif hi is None:
        return [lo + Fraction(rng.choice([0, 1, 3, 10, 40, 200])) + Fraction(rng.randint(0, 99), 100) for _ in range(n)]
    return [lo + (hi - lo) * Fraction(rng.randint(0, 1000), 1000) for _ in range(n)]


@pytest.mark.parametrize("family", ["laplace", "exponential"])
def test_hazard_boxes_against_mpmath(family: str) -> None:
    rng = random.Random(1)
    res = hazard_search(family)
    assert res.verdict == "certified"
    with mpmath.workdps(40):
        for box in res.boxes:
            for x in _points_in(box, rng):
                xm = mpmath.mpf(x.numerator) / x.denominator
                if family == "laplace":  # scale 1: p = e^{-|x|}/2, S = e^{-x}/2 or 1 - e^{x}/2
                    p = mpmath.exp(-abs(xm)) / 2
                    s = mpmath.exp(-xm) / 2 if xm >= 0 else 1 - mpmath.exp(xm) / 2
                else:
                    p = mpmath.exp(-xm) if xm >= 0 else mpmath.mpf(0)
                    s = mpmath.exp(-xm) if xm >= 0 else mpmath.mpf(1)
                assert p / s <= box.upper + mpmath.mpf(10) ** -35


@pytest.mark.parametrize("family,ratio", [("laplace", Fraction(1)), ("laplace", Fraction(2)), ("laplace", Fraction(1, 2)),
                                          ("exponential", Fraction(1))])
def test_tilted_hazard_boxes_against_mpmath(family: str, ratio: Fraction) -> None:
    """φ(m)/(α+β) <= box upper bound, φ computed by mpmath quadrature (kink at 0 given to quad)."""
    rng = random.Random(2)
    res = tilted_hazard_search(family, ratio)
    assert res.verdict == "certified"
    beta = mpmath.mpf(ratio.numerator) / ratio.denominator
    with mpmath.workdps(30):
        def log_p(z):  # log density, scale 1 (-inf off the support)
            if family == "laplace":
                return -abs(z) - mpmath.log(2)
            return -z if z >= 0 else mpmath.ninf

        for box in res.boxes:
            for x in _points_in(box, rng, 3):
                m = mpmath.mpf(x.numerator) / x.denominator
                if log_p(m) == mpmath.ninf:
                    phi = mpmath.mpf(0)
                else:
                    # φ(m) = 1 / ∫_0^∞ (p(m+t)/p(m)) e^{-βt} dt (z = m + t; the kink z = 0 is t = -m);
                    # the ratio p(m+t)/p(m) keeps quad away from e^{-200}-sized integrands
                    pts = [0, -m, mpmath.inf] if m < 0 else [0, mpmath.inf]
                    g = mpmath.quad(lambda t, m=m: mpmath.exp(log_p(m + t) - log_p(m) - beta * t), pts)
                    phi = 1 / g / (1 + beta)
                assert phi <= box.upper * (1 + mpmath.mpf(10) ** -20)


@pytest.mark.parametrize("mech,s", [(M1, 1), (M2, 1), (variant("laplace", 2, 4), 1), (variant("laplace", 4, 4), Fraction(3, 4)),
                                    (variant("laplace", 3, 3, zfam="exponential"), 1), (variant("laplace", 4, 2, xfam="exponential"), Fraction(5, 4))],
                         ids=["mech one", "mech two", "Lap 2/4", "Lap 4/4", "Exp Z, Lap X", "Lap Z 4, Exp X 2"])
def test_certified_bound_holds_and_is_attained_at_random_points(mech: AboveThreshold, s: Fraction) -> None:
    """|log ratio| <= s·ε at seeded random (ε, m, d, κ, δ), mpmath 30 digits; = s·ε on the tail cell
    (s = sup |log ratio|/ε from the certificate; for s > 1 the certificate must be a refutation)."""
    c = certify_conditional_ratio(mech)
    assert c.sup_log_ratio_per_epsilon == s
    assert c.verdict == ("certified" if s <= 1 else "refuted")
    rng = random.Random(3)
    spec = CertifySpec.of(mech)
    shifts = [Fraction(-1), Fraction(-1, 3), Fraction(0), Fraction(1, 2), Fraction(1)]
    with mpmath.workdps(30):
        for _ in range(60):
            eps = Fraction(rng.choice([1, 7, 100, 350, 1000]), 100)
            mm = spec.mechanism(eps)
            scale = 3 / eps
            m = None if rng.random() < 0.15 else Fraction(rng.randint(-400, 400), 100) * scale
            d = Fraction(rng.randint(-400, 400), 100) * scale
            k, dl = rng.choice(shifts), rng.choice(shifts)
            p = mp_conditional(mm, m, d, 30)
            p2 = mp_conditional(mm, None if m is None else m - k, d + dl, 30)
            lr = abs(mpmath.log(p) - mpmath.log(p2))
            bound = mpmath.mpf(s.numerator) / s.denominator * mpmath.mpf(eps.numerator) / eps.denominator
            assert lr <= bound * (1 + mpmath.mpf(10) ** -25)
        # attained: tail cell m >= 0, d <= m, κ = δ = -Δ
        eps = Fraction(1, 2)
        mm = spec.mechanism(eps)
        lr = mpmath.log(mp_conditional(mm, 2, 1, 30)) - mpmath.log(mp_conditional(mm, 3, 0, 30))
        assert abs(lr - mpmath.mpf(s.numerator) / s.denominator / 2) < mpmath.mpf(10) ** -25


@settings(max_examples=25, deadline=None, derandomize=True)
@given(m=st.fractions(min_value=0, max_value=20, max_denominator=50), gap=st.fractions(min_value=0, max_value=20, max_denominator=50))
@example(m=Fraction(0), gap=Fraction(0))
def test_tail_cell_ratio_is_exactly_the_bound(m: Fraction, gap: Fraction) -> None:
    """On the tail cell the log ratio is exactly ε for both seed mechanisms (mpmath, 30 digits)."""
    d = m - gap
    for mech in (M1, M2):
        with mpmath.workdps(30):
            lr = mpmath.log(mp_conditional(mech, m, d, 30)) - mpmath.log(mp_conditional(mech, m + 1, d - 1, 30))
            assert abs(lr - 1) < mpmath.mpf(10) ** -25


# --- the engine's building blocks ---------------------------------------------------------------------------------------
@pytest.mark.slow
@settings(max_examples=60, deadline=None, derandomize=True)
@given(lo=st.fractions(min_value=-30, max_value=30, max_denominator=64), w=st.fractions(min_value=0, max_value=10, max_denominator=64),
       t=st.fractions(min_value=0, max_value=1, max_denominator=100))
@example(lo=Fraction(-1), w=Fraction(1), t=Fraction(1))
def test_interval_evaluation_encloses_exact_values(lo: Fraction, w: Fraction, t: Fraction) -> None:
    x = sympy.Symbol("x", real=True)
    exprs = [sympy.exp(x / 3) / (2 - sympy.exp(x / 3)), (1 - sympy.exp(-x)) ** 2 * x - 3 / (1 + sympy.exp(x)), sympy.log(1 + sympy.exp(x))]
    box = Interval.of(lo, lo + w)
    pt = lo + w * t
    for e in exprs:
        enc = evaluate(e, {x: box})
        with mpmath.workdps(40):
            v = mpmath.mpf(str(e.subs(x, sympy.Rational(pt.numerator, pt.denominator)).evalf(45)))
            lo_, hi_ = to_fraction(enc.lo), to_fraction(enc.hi)
            assert (lo_ == -mpmath.inf or mpmath.mpf(lo_.numerator) / lo_.denominator <= v)
            assert (hi_ == mpmath.inf or v <= mpmath.mpf(hi_.numerator) / hi_.denominator)


def test_interval_keeps_exact_tangency() -> None:
    """exp(0) = 1 stays exact: the Laplace hazard ratio on (-∞, 0] is enclosed by [0, 1] exactly."""
    x = sympy.Symbol("x", real=True)
    enc = evaluate(sympy.exp(x) / (2 - sympy.exp(x)), {x: Interval.of(None, 0)})
    assert to_fraction(enc.lo) == 0 and to_fraction(enc.hi) == 1


@pytest.mark.slow
def test_exact_value_decides_rationality_as_simplify_does() -> None:
    """`exact_value` (sympy.cancel in t = e^g, t transcendental) gives the Rational sympy.simplify gives, and a
    non-Rational where simplify gives one: on the search's forms at rational points (dyadic ones included), on
    identities in disguise (rational only after cancelling exponentials), and on forms it must leave to simplify
    (a logarithm, a root, a degree above MAX_EXACT_DEGREE)."""
    x = sympy.Symbol("x", real=True)
    u = x - sympy.Rational(1, 3)
    forms = [2 * sympy.exp(u) - sympy.exp(2 * u), sympy.exp(x) / (2 - sympy.exp(x)), 1 - (1 - sympy.exp(x - 1)) ** 2,
             (1 - sympy.exp(-x)) ** 2 * x - 3 / (1 + sympy.exp(x)), sympy.E * sympy.exp(-x) / 2,
             (sympy.exp(2 * x) - 1) / (sympy.exp(x) - 1) - sympy.exp(x),  # 1
             sympy.exp(x) * (sympy.exp(-x) + 3) - 3 * sympy.exp(x) + sympy.Rational(1, 7),  # 8/7
             (1 + sympy.exp(x / 3)) ** 2 - sympy.exp(2 * x / 3) - 2 * sympy.exp(x / 3),  # 1
             sympy.exp(x) * (1 + sympy.exp(x)) / (2 * (sympy.exp(x) + sympy.exp(2 * x))),  # 1/2
             sympy.log(1 + sympy.exp(x)), sympy.sqrt(1 + sympy.exp(x)), sympy.exp((MAX_EXACT_DEGREE + 1) * x) / sympy.exp(x)]
    rationals = 0
    for f in forms:
        for r in (sympy.Rational(1, 3), sympy.Integer(1), sympy.Rational(-12345, 2**20)):
            v = f.subs(x, r)
            new, old = exact_value(v), sympy.simplify(v)
            assert new.is_Rational == old.is_Rational, (v, new, old)
            if old.is_Rational:
                assert new == old, v
                rationals += not v.is_Rational
    assert rationals == 12  # the four identities in disguise at each point: cancel, not the input, gives the Rational


@pytest.mark.slow
def test_search_refutes_and_does_not_certify_an_interior_tangency() -> None:
    x = sympy.Symbol("x", real=True)
    bad = certify_sup([Piece(None, Fraction(0), 2 - sympy.exp(x))], x, Fraction(1))
    assert bad.verdict == "refuted" and bad.witness is not None
    # 2e^u - e^{2u} = 1 - (1 - e^u)^2, u = x - 1/3: sup = 1 attained only at the interior, non-dyadic
    # point x = 1/3; in this form no enclosure separates it from the bound: undecided, never certified
    u = x - sympy.Rational(1, 3)
    inner = certify_sup([Piece(Fraction(0), Fraction(1), 2 * sympy.exp(u) - sympy.exp(2 * u))], x, Fraction(1), max_boxes=300)
    assert inner.verdict == "undecided" and inner.undecided
    # the same function with a bound just above its supremum is certified
    above = certify_sup([Piece(Fraction(0), Fraction(1), 2 * sympy.exp(u) - sympy.exp(2 * u))], x, 1 + Fraction(1, 10**6))
    assert above.verdict == "certified" and 0 < above.min_margin <= Fraction(1, 10**6)


# --- command line ------------------------------------------------------------------------------------------------------------
def test_cli_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["certify", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("verdict", "boxes", "seconds", "min_margin", "counterexample"):
        assert key in out
    assert out["verdict"] == "certified" and out["min_margin"] == 0 and out["counterexample"] is None
    assert out["factor_bounds"]["verdict"] == "certified"


def test_cli_refuted_json(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["certify", "--noise", "exponential", "--threshold-scale", "2", "--query-scale", "2", "--what", "ratio", "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "refuted" and out["min_margin"] is None
    assert mpmath.mpf(out["counterexample"]["log_ratio"]) > mpmath.mpf(out["counterexample"]["bound"])


@pytest.mark.parametrize("rng_text", ["abc", "1:0.5", "0:1", "1", "1:2:3", "nan:1", "1/0:2"])
def test_cli_bad_epsilon_range(rng_text: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["certify", "--epsilon-range", rng_text]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--epsilon-range" in err


def test_cli_factors_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["certify", "--noise", "exponential", "--what", "factors", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "refuted" and out["conditional_ratio"] is None
    assert out["counterexample"]["ratio"] == "inf" and out["min_margin"] is None


def test_cli_text_output(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["certify", "--noise", "exponential", "--epsilon-range", "1/100:10"]) == 0
    out = capsys.readouterr().out
    assert "conditional ratio: CERTIFIED" in out and "density ratio refuted" in out
