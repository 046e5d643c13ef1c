"""The three paths to the exact output probabilities agree with each other,
with independent integrations, with known closed forms and with the sampler."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import scipy.stats
import sympy
from hypothesis import example, given
from hypothesis import strategies as st

from verify.mechanism import AboveThreshold
from verify.noise import Noise
from verify.precision import FAST_TOLERANCE
from verify.probabilities import (
    DELTA,
    EPSILON,
    fast_log_conditional,
    fast_log_distribution,
    mp_conditional,
    mp_distribution,
    symbolic_conditional,
    symbolic_distribution,
)

FAMILIES = ["laplace", "exponential", "none"]


def mech(zf="laplace", xf="laplace", cz=3, cx=3, eps=1, delta=1, t=0):
    return AboveThreshold.with_noise(zf, eps, delta, t, cz, cx, threshold_family=zf, query_family=xf)


def rel(a, b):
    a, b = mpmath.mpf(a), mpmath.mpf(b)
    if a == b:
        return mpmath.mpf(0)
    return abs(a - b) / max(abs(a), abs(b))


mechanisms = st.builds(
    mech,
    zf=st.sampled_from(FAMILIES),
    xf=st.sampled_from(FAMILIES),
    cz=st.sampled_from([Fraction(3), Fraction(1), Fraction(5, 2), Fraction(0)]),
    cx=st.sampled_from([Fraction(3), Fraction(2), Fraction(1, 2), Fraction(0)]),
    eps=st.sampled_from([Fraction(1), Fraction(1, 10), Fraction(3)]),
    t=st.sampled_from([Fraction(0), Fraction(1, 2), Fraction(-2)]),
)
query_values = st.sampled_from([Fraction(0), Fraction(1, 2), Fraction(-2), Fraction(3), Fraction(1, 3), Fraction(-40), Fraction(60)])


# --- the three paths agree --------------------------------------------------------------------------
@pytest.mark.slow
@given(m=mechanisms, q=st.lists(query_values, min_size=1, max_size=3))
@example(m=mech(), q=[Fraction(0)])  # query at the threshold
@example(m=mech(), q=[Fraction(1), Fraction(1), Fraction(1)])  # equal queries
@example(m=mech("exponential", "exponential"), q=[Fraction(-40), Fraction(60)])  # far tails
@example(m=mech(cz=0, cx=0), q=[Fraction(0), Fraction(-1), Fraction(1)])  # no noise at all
def test_symbolic_mpmath_fast_agree(m, q):
    mp = mp_distribution(m, q, digits=30)
    sym = symbolic_distribution(m, q)
    logf, _ = fast_log_distribution(m, np.array([[float(x) for x in q]]))
    with mpmath.workdps(40):
        for a, s, lf in zip(mp, sym, logf[0]):
            if s == 0:
                assert a == 0 and lf == -math.inf
                continue
            s_val = mpmath.mpf(str(sympy.N(s, 45)))
            assert rel(a, s_val) < mpmath.mpf(10) ** -28
            assert abs(float(mpmath.log(a)) - lf) <= 1e-10 * max(1.0, abs(lf)) + 1e-10


@pytest.mark.parametrize("zf", FAMILIES)
@pytest.mark.parametrize("xf", FAMILIES)
def test_distribution_sums_to_one(zf, xf):
    rng = np.random.default_rng(7)
    m = mech(zf, xf)
    for k in (1, 2, 5, 12):
        q = [Fraction(int(x), 4) for x in rng.integers(-40, 40, size=k)]
        with mpmath.workdps(40):
            total = mpmath.fsum(mp_distribution(m, q, digits=30))
            assert abs(total - 1) < mpmath.mpf(10) ** -25


def test_sums_to_one_k50_and_tiny_probabilities():
    m = mech()
    q = [Fraction(j % 7 - 3, 2) for j in range(50)]
    p = mp_distribution(m, q, digits=30)
    with mpmath.workdps(40):
        assert abs(mpmath.fsum(p) - 1) < mpmath.mpf(10) ** -25
    # far-below queries: probabilities far under 1e-300 keep full relative accuracy
    q = [Fraction(-3000)] * 3
    p30 = mp_distribution(m, q, digits=30)
    p60 = mp_distribution(m, q, digits=60)
    with mpmath.workdps(70):
        for a, b in zip(p30[:3], p60[:3]):
            assert 0 < b < mpmath.mpf(10) ** -300
            assert rel(a, b) < mpmath.mpf(10) ** -29


@pytest.mark.slow
def test_fast_matches_mpmath_k20_and_tails():
    rng = np.random.default_rng(11)
    for m in (mech(), mech("exponential", "exponential"), mech("laplace", "exponential", 3, 2)):
        q = np.round(rng.normal(0, 6, size=(6, 20)), 3)
        q[0] = 0.0  # all equal and at the threshold: the worst cancellation of the closed form
        q[1, :] = -900.0  # deep tail: probabilities underflow float64 unless kept in logs
        logf, refined = fast_log_distribution(m, q)
        for row in range(q.shape[0]):
            exact = mp_distribution(m, [Fraction(float(x)) for x in q[row]], digits=25)
            with mpmath.workdps(30):
                for lf, e in zip(logf[row], exact):
                    if e == 0:
                        assert lf == -math.inf
                    else:
                        # relative error of the probability <= 1e-10  <=>  |Δ log p| <= ~1e-10
                        assert abs(lf - float(mpmath.log(e))) <= 1e-10


# --- independent integrations -----------------------------------------------------------------------
def _seed_integral_sympy(zf, xf, q, t, b):
    """Pr of every output by `sympy.integrate` of the seed's integrand
    p(z) Π F(t+z-q_j) (1 - F(t+z-q_i)), on each segment between kinks, with the
    branch of every |·| and every piecewise CDF chosen on that segment (the integrand expanded into its
    exponential terms first: the same integral, which sympy.integrate then takes term by term, about twice
    as fast as the product)."""
    z = sympy.symbols("z", real=True)
    b = sympy.Rational(b)

    def F(x, at):  # Pr[X < x]; the branch is the one valid at z = at
        below = x.subs(z, at) < 0
        if xf == "laplace":
            return sympy.exp(x / b) / 2 if below else 1 - sympy.exp(-x / b) / 2
        return sympy.Integer(0) if x.subs(z, at) <= 0 else 1 - sympy.exp(-x / b)

    def p(at):
        if zf == "laplace":
            return sympy.exp((z if at < 0 else -z) / b) / (2 * b)
        return sympy.Integer(0) if at < 0 else sympy.exp(-z / b) / b

    kinks = sorted({sympy.Integer(0), *[sympy.Rational(x) - t for x in q]})
    bounds = [-sympy.oo, *kinks, sympy.oo]
    out = []
    for i in range(len(q) + 1):
        total = sympy.Integer(0)
        for lo, hi in zip(bounds[:-1], bounds[1:]):
            at = hi - 1 if lo == -sympy.oo else (lo + 1 if hi == sympy.oo else (lo + hi) / 2)
            integrand = p(at)
            for j in range(min(i, len(q))):
                integrand *= F(t + z - q[j], at)
            if i < len(q):
                integrand *= 1 - F(t + z - q[i], at)
            total += sympy.integrate(sympy.expand(integrand), (z, lo, hi))
        out.append(total)
    return out


@pytest.mark.slow
@pytest.mark.parametrize("zf,xf,q", [
    ("laplace", "laplace", [Fraction(1, 2)]),
    ("laplace", "laplace", [Fraction(1), Fraction(-2)]),
    ("exponential", "exponential", [Fraction(1), Fraction(-1, 2)]),
    ("laplace", "exponential", [Fraction(2)]),
])
def test_closed_form_equals_sympy_integrate(zf, xf, q):
    m = mech(zf, xf)
    ours = symbolic_distribution(m, q)
    theirs = _seed_integral_sympy(zf, xf, q, 0, 3)
    for a, b in zip(ours, theirs):
        # identically 0: sympy.cancel of the expansion is 0 (an identity of rational functions of the
        # exponentials), else sympy.simplify (slower); either 0 is a proof
        assert sympy.cancel(sympy.expand(a - b)) == 0 or sympy.simplify(a - b) == 0


@pytest.mark.slow
def test_closed_form_equals_mpmath_quad_with_kinks():
    """mpmath.quad of the seed's integral, split at every kink, at 30 digits."""
    m = mech("laplace", "laplace", 3, 2, eps=Fraction(1, 2), t=Fraction(1, 3))
    zn, xn = m.threshold_noise, m.query_noise
    q = [Fraction(1), Fraction(-2), Fraction(5, 2), Fraction(0)]
    with mpmath.workdps(30):
        bz, bx, t = (mpmath.mpf(zn.scale.numerator) / zn.scale.denominator,
                     mpmath.mpf(xn.scale.numerator) / xn.scale.denominator, mpmath.mpf(1) / 3)
        qs = [mpmath.mpf(x.numerator) / x.denominator for x in q]

        def F(x):
            return mpmath.exp(x / bx) / 2 if x < 0 else 1 - mpmath.exp(-x / bx) / 2

        def pdf(z):
            return mpmath.exp(-abs(z) / bz) / (2 * bz)

        pts = [-mpmath.inf, *sorted({mpmath.mpf(0), *[x - t for x in qs]}), mpmath.inf]
        exact = mp_distribution(m, q, digits=30)
        for i in range(len(q)):
            val = mpmath.quad(lambda z, i=i: pdf(z) * mpmath.fprod(F(t + z - qs[j]) for j in range(i)) * (1 - F(t + z - qs[i])), pts)
            assert rel(val, exact[i]) < mpmath.mpf(10) ** -20


# --- known closed forms -------------------------------------------------------------------------------
@pytest.mark.parametrize("d", [Fraction(0), Fraction(-1), Fraction(-7, 3), Fraction(-2000)])
def test_first_output_laplace_is_difference_tail(d):
    """Pr[s_1] = Pr[X_1 - Z >= -d] and X_1 - Z is a difference of two iid Lap(b):
    Pr[X - Z >= a] = e^{-a/b}(2 + a/b)/4 for a >= 0."""
    m = mech()
    b = m.query_noise.scale
    with mpmath.workdps(40):
        a = mpmath.mpf(-d.numerator) / d.denominator / (mpmath.mpf(b.numerator) / b.denominator)
        closed = mpmath.exp(-a) * (2 + a) / 4
        assert rel(mp_distribution(m, [d], digits=30)[0], closed) < mpmath.mpf(10) ** -29
    logf, _ = fast_log_distribution(m, np.array([[float(d)]]))
    assert abs(logf[0, 0] - float(mpmath.log(closed))) < 1e-10 * max(1, abs(logf[0, 0]))


@pytest.mark.parametrize("d", [Fraction(-1), Fraction(1, 2), Fraction(5)])
def test_first_output_exponential_is_laplace_cdf(d):
    """Mechanism Two: Z - X_1 is Lap(b), so Pr[s_1] = Pr[Z - X_1 <= d] = F_Lap(d)."""
    m = mech("exponential", "exponential")
    b = float(m.query_noise.scale)
    with mpmath.workdps(40):
        x = mpmath.mpf(float(d)) / b
        closed = mpmath.exp(x) / 2 if x < 0 else 1 - mpmath.exp(-x) / 2
        assert rel(mp_distribution(m, [d], digits=30)[0], closed) < mpmath.mpf(10) ** -29


def test_no_threshold_noise_is_a_product():
    """Seed example set-up: t̂ = t, so Pr[⊤^n⊥] = Π F(t - q_j) · (1 - F(t - q_{n+1}))."""
    m = mech(cz=0)
    noise = Noise("laplace", m.query_noise.scale)
    q = [Fraction(1)] * 4
    p = mp_distribution(m, q, digits=30)
    f = float(noise.cdf_below(np.array([-1.0]))[0])
    for n in range(4):
        assert abs(float(p[n]) - f**n * (1 - f)) < 1e-15


def test_symbolic_parameters_match_numbers():
    m = mech()
    expr = symbolic_distribution(m, [0, 1, Fraction(-1, 2)], symbolic_parameters=True)
    num = mp_distribution(mech(eps=Fraction(7, 10), delta=Fraction(2)), [0, 2, -1], digits=30)
    for e, v in zip(expr, num):
        val = sympy.N(e.subs({EPSILON: sympy.Rational(7, 10), DELTA: 2}), 40)
        assert rel(mpmath.mpf(str(val)), v) < mpmath.mpf(10) ** -28


# --- conditional probabilities of the proofs ------------------------------------------------------------
@pytest.mark.parametrize("zf,xf", [("laplace", "laplace"), ("exponential", "exponential")])
def test_conditional_three_paths_and_quad(zf, xf):
    m = mech(zf, xf)
    b = float(m.query_noise.scale)
    for gm, gq in [(None, Fraction(1)), (Fraction(-1), Fraction(2)), (Fraction(2), Fraction(-1)), (Fraction(1, 2), Fraction(1, 2))]:
        v = mp_conditional(m, gm, gq, digits=30)
        s = symbolic_conditional(m, gm, gq)
        lf = fast_log_conditional(m, np.array([-np.inf if gm is None else float(gm)]), np.array([float(gq)]))[0]
        with mpmath.workdps(30):
            def pdf(z):
                if zf == "laplace":
                    return mpmath.exp(-abs(z) / b) / (2 * b)
                return mpmath.exp(-z / b) / b if z >= 0 else mpmath.mpf(0)

            def surv(x):  # 1 - F(x) = Pr[X >= x]
                if xf == "laplace":
                    return 1 - mpmath.exp(x / b) / 2 if x < 0 else mpmath.exp(-x / b) / 2
                return mpmath.exp(-x / b) if x > 0 else mpmath.mpf(1)

            lo = -mpmath.inf if gm is None else mpmath.mpf(float(gm))
            pts = sorted({lo, mpmath.mpf(0), mpmath.mpf(float(gq))} - {-mpmath.inf})
            pts = [p for p in pts if p >= lo]
            val = mpmath.quad(lambda z, gq=gq: pdf(z) * surv(z - float(gq)), ([-mpmath.inf] if gm is None else []) + pts + [mpmath.inf])
            assert rel(v, val) < mpmath.mpf(10) ** -20
            assert rel(v, mpmath.mpf(str(sympy.N(s, 40)))) < mpmath.mpf(10) ** -28
            assert abs(lf - float(mpmath.log(v))) < 1e-10


# --- the sampler ---------------------------------------------------------------------------------------
SAMPLER_CASES = [
    (mech(), [0, 1, -1, 2]),
    (mech("exponential", "exponential"), [Fraction(1, 2), -1, 0]),
    (mech("laplace", "laplace", 0, 3), [1, 1, 1]),
    (mech("laplace", "none", 3, 0), [-1, 2, 0]),
]


@pytest.mark.parametrize("m,q", SAMPLER_CASES)
def test_sampler_matches_exact_probabilities(m, q):
    """Chi-square goodness of fit, 200 000 runs with a fixed seed.

    False-alarm rate: each case rejects a correct sampler with probability
    1e-4 (p-value threshold), 4e-4 for the four cases together; the seed is
    fixed, so the outcome is reproducible."""
    runs = 200_000
    counts = m.sample_counts(q, runs, seed=20261129)
    p = np.array([float(x) for x in mp_distribution(m, q, digits=20)])
    support = p > 0
    assert counts[~support].sum() == 0  # outputs of probability exactly 0 never occur
    stat, pvalue = scipy.stats.chisquare(counts[support], runs * p[support] / p[support].sum())
    assert pvalue > 1e-4, (counts, runs * p)


@pytest.mark.parametrize("zf,xf", [("laplace", "laplace"), ("exponential", "exponential"), ("laplace", "exponential"), ("exponential", "none")])
def test_fast_linear_and_log_space_agree(zf, xf, monkeypatch):
    """The fast path sums in linear space where it is safe and in log space
    elsewhere; forcing every row through the log-space route gives the same values."""
    from verify.engine.fast_closed_form import FastIntegrator

    m = mech(zf, xf, 3, 2)
    q = np.round(np.random.default_rng(5).normal(0, 4, size=(3000, 4)), 4)
    fi = FastIntegrator(m)
    linear = fi.events(q).log_probability
    assert fi.linear_safe(q - float(m.threshold), None).all()
    monkeypatch.setattr(FastIntegrator, "linear_safe", lambda self, a, c: np.zeros(a.shape[0], dtype=bool))
    logspace = FastIntegrator(m).events(q).log_probability
    finite = np.isfinite(linear)
    assert np.array_equal(finite, np.isfinite(logspace))
    assert np.max(np.abs(linear[finite] - logspace[finite])) < 1e-12


@pytest.mark.skipif(np.finfo(np.longdouble).eps >= 1e-17, reason="np.longdouble is no wider than float64 here")
def test_extended_precision_resolves_most_ill_conditioned_rows():
    """Mechanism Two at k = 20: most rows are too ill-conditioned for float64's
    closed form; extended precision resolves them (mpmath only for the rest),
    and every row stays within 1e-10 of the mpmath path."""
    from verify.engine.fast_closed_form import FastIntegrator

    m = mech("exponential", "exponential")
    q = np.round(np.random.default_rng(3).normal(0, 3, size=(12, 20)), 2)
    flagged = (FastIntegrator(m).events(q).error_estimate > 1e-11).any(axis=1)
    assert flagged.sum() >= 4  # the float64 closed form alone would not meet the tolerance
    logf, by_mpmath = fast_log_distribution(m, q)
    assert by_mpmath < flagged.sum()
    for row in np.nonzero(flagged)[0][:4]:
        exact = mp_distribution(m, [Fraction(float(x)) for x in q[row]], digits=25)
        with mpmath.workdps(30):
            for lf, e in zip(logf[row], exact):
                assert abs(lf - float(mpmath.log(e))) <= 1e-10


def _far_sign_rows(k: int) -> np.ndarray:
    """The utility notebook's rows: k queries at ±32 scales of t (the utility bound at β = 0.1), one sign flipped
    per row: the closed form's alternating sums lose about 9 digits here (estimate 5e-9 in float64, 2e-12 in long
    double at k = 20)."""
    a = 6 * math.log((k + 1) / 0.1) * (1 + 1e-9)
    rows = np.repeat(np.array([1.0] * (k - 1) + [-1.0])[None, :], k, axis=0)
    rows[np.arange(k), np.arange(k)] *= -1
    return rows * a


@pytest.mark.slow
@pytest.mark.parametrize("family", ["laplace", "exponential"])
def test_rows_the_closed_form_cannot_resolve_go_to_the_halting_path_before_mpmath(family):
    """Rule (`closed_form_log_distribution`): a row still above the tolerance after long double is computed by
    the Gauss–Legendre halting path (no cancellation), and only a row whose halting estimate is above the
    tolerance too goes to the mpmath closed form.  Every value within 1e-12 of the 30-digit mpmath value."""
    from verify.doors.fast import closed_form_log_distribution
    from verify.engine.fast_closed_form import FastIntegrator
    from verify.engine.fast_halting import halting_distribution

    m = mech(family, family)
    q = _far_sign_rows(20)[:3]
    assert (FastIntegrator(m).events(q).error_estimate > FAST_TOLERANCE).any(axis=1).all()
    logf, by_mpmath = closed_form_log_distribution(m, q)
    assert by_mpmath == 0
    for row in range(len(q)):
        exact = mp_distribution(m, [Fraction(float(x)) for x in q[row]], digits=30)
        with mpmath.workdps(30):
            assert max(abs(lf - float(mpmath.log(e))) for lf, e in zip(logf[row], exact)) <= 1e-12
    # the edge: a tolerance below the halting path's own estimate leaves every row to mpmath
    below = float(np.min(np.max(halting_distribution(m, q).error_estimate, axis=1))) / 2
    assert closed_form_log_distribution(m, q, tolerance=below)[1] == len(q)


@pytest.mark.parametrize("zf,xf", [("laplace", "laplace"), ("exponential", "exponential"), ("laplace", "none"), ("none", "exponential")])
def test_arb_balls_enclose_the_probabilities(zf, xf):
    """Ball arithmetic: every ball meets the mpmath value's 50-digit error ball
    (both contain the exact value), is narrow, and the balls sum to a ball
    containing 1."""
    import flint

    from verify.probabilities import arb_distribution

    m = mech(zf, xf, 3, 2, eps=Fraction(1, 2))
    q = [Fraction(1, 3), Fraction(-2), Fraction(5), Fraction(0)]
    balls = arb_distribution(m, q, prec=200)
    exact = mp_distribution(m, q, digits=50)
    old = flint.ctx.prec
    flint.ctx.prec = 200  # the reference values as narrow balls too
    try:
        for ball, e in zip(balls, exact):
            if e == 0:
                assert ball == 0
                continue
            # the mpmath value is correct to 50 digits: the exact value lies in both balls
            reference = flint.arb(mpmath.nstr(e, 60), mpmath.nstr(abs(e) * mpmath.mpf(10) ** -49, 5))
            assert ball.overlaps(reference)
            assert float(ball.rad()) < 1e-40 * float(ball.mid())
        assert sum(balls, flint.arb(0)).contains(1)
    finally:
        flint.ctx.prec = old
