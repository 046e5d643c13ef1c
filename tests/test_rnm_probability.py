"""Report Noisy Max's exact probabilities against independent oracles, the float64 path against mpmath,
and the sampler against the law (χ²)."""

import math
from fractions import Fraction

import flint
import mpmath
import numpy as np
import pytest
import sympy
from scipy import integrate, stats

from verify.selection.fast import fast_index_log_probabilities, fast_value_log_density, index_log_probabilities_of_floats
from verify.selection.model import ReportNoisyMax
from verify.selection.probability import mp_index_probabilities, mp_value_density

QS = [Fraction(0), Fraction(1), Fraction(3), Fraction(-1, 2)]


def _m(family, output="index", scale=2):
    return ReportNoisyMax(1, 1, family, scale, output)


def test_gumbel_quadrature_is_the_softmax():
    """Independent closed form: Gumbel-max is the exponential mechanism, Pr[i] = e^{q_i/b}/Σ e^{q_j/b}."""
    got = mp_index_probabilities(_m("gumbel"), QS, 30)
    with mpmath.workdps(40):
        w = [mpmath.exp(mpmath.mpf(q.numerator) / q.denominator / 2) for q in QS]
        want = [x / mpmath.fsum(w) for x in w]
        assert max(abs(a - c) / c for a, c in zip(got, want)) < mpmath.mpf(10) ** -28


def test_exponential_matches_the_polynomial_closed_form():
    """Substituting u = e^{-(z - max q)/b}: Pr[i] = a_i ∫_0^1 Π_{j≠i} (1 − a_j u) du, a_j = e^{(q_j − max q)/b},
    integrated exactly term by term in sympy: the polynomial's coefficients c_m (exact products of the a_j,
    built factor by factor) and ∫_0^1 u^m du = 1/(m + 1).  (`sympy.integrate` on the expanded product
    spends minutes in its assumptions system; the term-wise integral is the same exact number.)"""
    got = mp_index_probabilities(_m("exponential"), QS, 30)
    top = max(QS)
    a = [sympy.exp(sympy.Rational(q - top) / 2) for q in QS]
    for i, g in enumerate(got):
        coeffs = [sympy.Integer(1)]  # Π (1 − a_j u) = Σ_m c_m u^m
        for j in range(len(QS)):
            if j != i:
                coeffs = [(coeffs[m] if m < len(coeffs) else 0) - (a[j] * coeffs[m - 1] if m >= 1 else 0)
                          for m in range(len(coeffs) + 1)]
        exact = a[i] * sum(c / (m + 1) for m, c in enumerate(coeffs))
        with mpmath.workdps(40):
            assert abs(mpmath.mpf(str(sympy.N(exact, 40))) - g) < mpmath.mpf(10) ** -28


@pytest.mark.slow
@pytest.mark.parametrize("family,sampler", [("laplace", stats.laplace), ("exponential", stats.expon), ("gumbel", stats.gumbel_r)])
def test_index_against_scipy_quad(family, sampler):
    """An oracle written separately: scipy's quad over scipy.stats' pdf and cdf."""
    qs = [float(q) for q in QS]
    got = mp_index_probabilities(_m(family), QS, 20)
    for i in range(len(qs)):
        def f(z, i=i):
            return sampler.pdf(z - qs[i], scale=2) * math.prod(sampler.cdf(z - qs[j], scale=2) for j in range(len(qs)) if j != i)
        want = integrate.quad(f, -60, 80, points=sorted(qs), limit=400, epsabs=0, epsrel=1e-12)[0]
        assert abs(float(got[i]) - want) < 1e-10 * want


@pytest.mark.slow
@pytest.mark.parametrize("family", ["laplace", "exponential"])
def test_outputs_sum_and_integrate_to_one(family):
    m = _m(family)
    assert abs(mpmath.fsum(mp_index_probabilities(m, QS, 30)) - 1) < mpmath.mpf(10) ** -28
    mv = _m(family, "value")
    total = mpmath.quad(lambda v: mp_value_density(mv, QS[:3], v, 15), [-mpmath.inf, 0, 1, 3, mpmath.inf])
    assert abs(total - 1) < 1e-12


@pytest.mark.slow
@pytest.mark.parametrize("family", ["laplace", "exponential", "gumbel"])
def test_fast_path_within_1e_11_of_mpmath(family):
    rng = np.random.default_rng(3101)
    m = _m(family)
    for k in (2, 5, 9):
        qs = [Fraction(f"{x:.3f}") for x in rng.uniform(-6, 6, k)]
        logs, err = fast_index_log_probabilities(m, qs)
        exact = mp_index_probabilities(m, qs, 25)
        rel = max(abs(math.expm1(lg - float(mpmath.log(e)))) for lg, e in zip(logs, exact))
        assert rel < 1e-11 and err < 1e-11


def test_fast_value_density_matches_mpmath():
    for family in ("laplace", "exponential", "gumbel"):
        m = _m(family, "value")
        for v in (-7.0, 0.5, 2.0, 9.0):
            want = mp_value_density(m, QS, Fraction(v), 25)
            got = fast_value_log_density(m, QS, v)
            assert (want == 0 and got == -math.inf) or abs(got - float(mpmath.log(want))) < 1e-12


@pytest.mark.parametrize("family", ["laplace", "exponential", "gumbel"])
def test_sampler_chi_square(family):
    """Seeded draws of argmax(q + X) against the exact law: χ² with k − 1 = 3 degrees of freedom at level
    1e-4 per family (a false alarm with probability 1e-4 each, 3e-4 for the three)."""
    m = _m(family)
    rng = np.random.default_rng(31)
    n = 200_000
    draws = np.array([float(q) for q in QS])[None, :] + m.law.sample(rng, float(m.b), (n, len(QS)))
    counts = np.bincount(np.argmax(draws, axis=1), minlength=len(QS))
    p = np.array([float(x) for x in mp_index_probabilities(m, QS, 20)])
    assert stats.chisquare(counts, n * p).pvalue > 1e-4


def test_exponential_index_far_below_the_leader():
    """At max s the integrand is 0 (the leader's F(0) = 0); the quadrature must still scale the piece above it:
    Pr[1] = a_1 ∫_0^1 (1 − u) du = e^{−100}/2 for scores (0, 200), b = 2 (the closed form of docs/selection.md)."""
    m = _m("exponential")
    p = mp_index_probabilities(m, [0, 200], 20)[0]
    with mpmath.workdps(30):
        assert abs(p / (mpmath.exp(-100) / 2) - 1) < mpmath.mpf(10) ** -18


@pytest.mark.slow
def test_fast_exponential_k_1000_within_1e_11_of_the_u_integral():
    """The one-pass float64 path at k = 1000 against a_i ∫_0^1 Π_{j≠i}(1 − a_j u) du at three outputs (the leader, the
    median, the last), enclosed in arb at 256 bits (a ball, not a quadrature estimate): ∫_0^U by `flint.acb.integral`
    (rigorous error bounds) of the product expanded as an arb polynomial (its cancellation, about e^{2·45}, is carried
    in the ball's radius), and ∫_U^1 as [0, e^{−U·A_i}/A_i], A_i = Σ_{j≠i} a_j (1 − x <= e^{−x}), so the ball holds the
    integral over all of [0, 1], not only the float64 path's [0, U]; its relative radius must stay below 1e-15.
    (Formerly mpmath's tanh-sinh quadrature at 20 digits over [0, 1], about eight times the time.)"""
    m = _m("exponential")
    s = np.round(np.random.default_rng(7).uniform(0, 20, 1000), 3)
    logp, err = index_log_probabilities_of_floats(m, s)
    assert err < 1e-11
    old = flint.ctx.prec
    flint.ctx.prec = 256
    try:
        exact = [Fraction(str(x)) for x in s]
        top = max(exact)
        a = [flint.arb(flint.fmpq((x - top).numerator, 2 * (x - top).denominator)).exp() for x in exact]
        cut = min(flint.arb(1), 45 / (sum(a, flint.arb(0)) - 1))
        for i in (int(np.argmax(s)), int(np.argsort(s)[500]), int(np.argmin(s))):
            poly = flint.arb_poly([1])
            for j, x in enumerate(a):
                if j != i:
                    poly *= flint.arb_poly([1, -x])
            product = flint.acb_poly(poly)
            val = flint.acb.integral(lambda u, _analytic, product=product: product(u), 0, cut, rel_tol=flint.arb(2) ** -60).real
            if cut < 1:
                rest = sum(a, flint.arb(0)) - a[i]
                val += flint.arb(0).union((-cut * rest).exp() / rest)
            val *= a[i]
            assert val > 0 and val.rad() < val.mid() * flint.arb(10) ** -15, (i, val)
            assert abs(math.expm1(logp[i] - float(val.log().mid()))) < 1e-11
    finally:
        flint.ctx.prec = old


@pytest.mark.parametrize("family", ["laplace", "exponential"])
def test_the_panel_matrix_in_blocks_gives_the_whole_matrixs_bits(family, monkeypatch):
    """Rule (`verify.selection.fast.panel_matrix_index_logs`): the nodes × k matrix is formed in blocks, so that no
    nodes × k temporary is made (at k = 1000 the whole matrix peaked at 1.1 GB); every element, row sum and column
    logsumexp is as on the whole matrix, so the result has the whole matrix's bits.  Blocks of a few thousand
    elements here force many row and column blocks (k = 46: widths of 3 and a last block widened from one column)."""
    from scipy.special import logsumexp

    from verify.selection import fast

    mech, b = _m(family), 2.0
    s = np.round(np.random.default_rng(7).uniform(0, 6, 46), 3)
    lo = float(s.max()) if not mech.law.two_sided else float(s.min())
    edges = fast._panels(s, b, lo)
    u, v = fast.gauss_legendre(16)
    z = (edges[:-1, None] + np.diff(edges)[:, None] * u[None, :]).ravel()
    logw = np.log((np.diff(edges)[:, None] * v[None, :]).ravel())
    d = z[:, None] - s[None, :]
    log_f = mech.law.log_cdf(d, b)
    whole = logsumexp(mech.law.log_pdf(d, b) + (log_f.sum(axis=1)[:, None] - log_f) + logw[:, None], axis=0)
    if mech.law.two_sided:
        tail = 46 * math.log(float(mech.law.lower_weight)) - math.log(46) + (46 * float(s.min()) - float(s.sum())) / b
        whole = np.logaddexp(whole, tail)
    monkeypatch.setattr(fast, "_BLOCK_ELEMENTS", 3 * len(z))
    assert [c.stop - c.start for c in fast._column_blocks(46, 3)][-2:] == [3, 4]
    assert np.array_equal(fast.panel_matrix_index_logs(mech, s, b, 16), whole)


def test_column_blocks_cover_every_column_once_and_none_is_one_column_wide():
    from verify.selection.fast import _column_blocks

    for k in (1, 2, 3, 4, 5, 7, 31, 46, 61):
        for width in (2, 3, 5, 15):
            blocks = _column_blocks(k, width)
            assert [i for c in blocks for i in range(k)[c]] == list(range(k))
            assert all(c.stop - c.start >= 2 for c in blocks) or k == 1
