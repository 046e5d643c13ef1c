"""Independent oracles for the output probabilities.

The library's three paths share one closed form (`verify.engine.piecewise`).  Here the
probabilities are recomputed without it:

* `verify.oracles.seed`: ``mpmath.quad`` of the algorithm's integral with every kink
  as a breakpoint (no threshold noise: the exact product; no query noise:
  exact indicators);
* ``sympy.integrate`` of the same integrand, written out branch by branch on
  every piece between the kinks (a few small cases, exact);

and compared with all three library paths for k >= 3, every pair of families
(Laplace, exponential, none) including an exponential threshold, ties (queries
equal to each other and to the threshold) and far tails.  The worst-case
search's witnesses are re-checked by the oracle at 30 digits instead of by
`verify.ratio.privacy_ratio`, which found them.

Reference values: the oracle at the digits stated; tolerances are 10^(5-digits)
relative (the oracle's quadrature error is an estimate, so five digits of slack).
"""

from __future__ import annotations

from fractions import Fraction as F

import mpmath
import numpy as np
import pytest
import sympy

from verify.engine.fast_closed_form import FastIntegrator
from verify.errors import InputError
from verify.mechanism import NO_HALT, AboveThreshold, all_outputs
from verify.oracles.seed import oracle_distribution, oracle_probability, recheck_witness
from verify.probabilities import fast_log_distribution, mp_distribution, symbolic_distribution
from verify.worstcase import worst_case

FAMILIES = ("laplace", "exponential", "none")
MULTIPLIER = {"laplace": F(3), "exponential": F(2), "none": F(0)}
#: k = 4 with ties: q_1 = q_4 = t, q_2 below, q_3 above the threshold (t = 1/2, Δ = 1).
TIED = (F(1, 2), F(-1), F(5, 2), F(1, 2))
ORACLE_DIGITS = 20


def _mech(zf: str, xf: str, eps: object = 1, threshold: object = F(1, 2)) -> AboveThreshold:
    return AboveThreshold.with_noise("laplace", eps, threshold=threshold, threshold_family=zf, query_family=xf,
                                     threshold_multiplier=MULTIPLIER[zf], query_multiplier=MULTIPLIER[xf])


def _close(a: mpmath.mpf, b: mpmath.mpf, digits: int) -> bool:
    """a == b to ``digits - 5`` significant digits; exact zeros must match exactly."""
    if a == 0 or b == 0:
        return a == b
    with mpmath.workdps(digits + 10):
        return abs(a / b - 1) <= mpmath.mpf(10) ** (5 - digits)


@pytest.mark.slow
@pytest.mark.parametrize("zf", FAMILIES)
@pytest.mark.parametrize("xf", FAMILIES)
def test_oracle_matches_the_three_library_paths_with_ties(zf, xf):
    """k = 4 (two queries tied at the threshold), every family pair: oracle vs mpmath, sympy and fast paths."""
    mech = _mech(zf, xf)
    oracle = oracle_distribution(mech, TIED, ORACLE_DIGITS)
    mp = mp_distribution(mech, TIED, 30)
    sym = symbolic_distribution(mech, TIED)
    logp, _ = fast_log_distribution(mech, np.array([[float(x) for x in TIED]]))
    with mpmath.workdps(40):
        assert abs(sum(oracle) - 1) <= mpmath.mpf(10) ** (5 - ORACLE_DIGITS)
    for o, a, s, f, out in zip(oracle, mp, sym, logp[0], all_outputs(len(TIED))):
        assert _close(o, a, ORACLE_DIGITS), (zf, xf, out, o, a)
        with mpmath.workdps(40):
            assert _close(o, sympy.N(s, 40), ORACLE_DIGITS) if o != 0 else s == 0, (zf, xf, out)
        if o == 0:
            assert np.isneginf(f), (zf, xf, out)
        else:
            ref = float(mpmath.log(o))  # tolerance relative to the reference, so that -inf cannot pass
            assert abs(ref - f) <= 1e-9 * max(1.0, abs(ref)), (zf, xf, out)


def test_no_noise_at_all_follows_the_seeds_rule_exactly():
    """No noise, t = 1/2: the first query with q_i >= t halts (seed: "if q̂_i >= t̂")."""
    mech = _mech("none", "none")
    assert oracle_distribution(mech, TIED, ORACLE_DIGITS) == [1, 0, 0, 0, 0]  # q_1 = t: halts at once
    assert oracle_distribution(mech, (F(0), F(-1), F(1, 2)), ORACLE_DIGITS) == [0, 0, 1, 0]
    assert oracle_distribution(mech, (F(0), F(-1)), ORACLE_DIGITS) == [0, 0, 1]


@pytest.mark.parametrize("zf, xf", [("laplace", "laplace"), ("exponential", "exponential"), ("exponential", "laplace")])
def test_far_tails_agree_in_relative_terms(zf, xf):
    """Queries 100-200 noise scales from the threshold: probabilities down to ~1e-30 and below."""
    mech = _mech(zf, xf)
    q = (F(-300), F(-451, 2), F(601))
    oracle = oracle_distribution(mech, q, ORACLE_DIGITS)
    mp = mp_distribution(mech, q, 30)
    assert min(oracle) < mpmath.mpf(10) ** -20  # the tail is really reached
    for o, a in zip(oracle, mp):
        assert _close(o, a, ORACLE_DIGITS), (zf, xf, o, a)


@pytest.mark.parametrize("xf", ["laplace", "exponential"])
def test_fast_path_without_threshold_noise_matches_the_oracle(xf):
    """Z = 0: the oracle's exact product vs the float64 path, gaps t - q_j spread over (-2, 2) in steps of 1/8."""
    mech = _mech("none", xf, threshold=0)
    rng = np.random.default_rng(5)
    rows = [tuple(F(int(v), 8) for v in rng.integers(-16, 17, 4)) for _ in range(12)]
    q = np.array([[float(x) for x in r] for r in rows])
    logp, _ = fast_log_distribution(mech, q)
    raw = FastIntegrator(mech).events(q).log_probability  # the float64 kernel itself, before any escalation to mpmath
    for r, lp, lr in zip(rows, logp, raw):
        for o, f, g in zip(oracle_distribution(mech, r, ORACLE_DIGITS), lp, lr):
            for v in (f, g):
                ref = None if o == 0 else float(mpmath.log(o))
                assert np.isneginf(v) if ref is None else abs(ref - v) <= 1e-11 * max(1.0, abs(ref)), (xf, r, o, v)


# --- sympy.integrate with breakpoints ------------------------------------------------------------
Z = sympy.Symbol("z", real=True)


def _branch_density(family: str, b: sympy.Rational, probe: sympy.Rational) -> sympy.Expr:
    if family == "laplace":
        return sympy.exp(-sympy.sign(probe) * Z / b) / (2 * b) if probe != 0 else sympy.exp(-Z / b) / (2 * b)
    return sympy.exp(-Z / b) / b if probe > 0 else sympy.Integer(0)


def _branch_below(family: str, b: sympy.Rational | None, y: sympy.Expr, y_probe: sympy.Rational) -> sympy.Expr:
    """F(y) = Pr[X < y] on the branch that holds at the probe."""
    if family == "none":
        return sympy.Integer(1 if y_probe > 0 else 0)
    if family == "laplace":
        return sympy.exp(y / b) / 2 if y_probe < 0 else 1 - sympy.exp(-y / b) / 2
    return 1 - sympy.exp(-y / b) if y_probe > 0 else sympy.Integer(0)


def _sympy_probability(mech: AboveThreshold, queries: tuple[F, ...], output) -> sympy.Expr:
    """∫ p_Z(z) Π_{j<i} F(t+z-q_j) S(t+z-q_i) dz by sympy.integrate, piece by piece between the kinks."""
    zn, xn = mech.threshold_noise, mech.query_noise
    r = sympy.Rational
    t = r(mech.threshold.numerator, mech.threshold.denominator)
    qs = [r(x.numerator, x.denominator) for x in queries]
    n = len(qs) if output == NO_HALT else output - 1
    bx = None if xn.is_none else r(xn.scale.numerator, xn.scale.denominator)

    def integrand(probe):
        out = sympy.Integer(1)
        for qj in qs[:n]:
            out *= _branch_below(xn.family, bx, t + Z - qj, t + probe - qj)
        if output != NO_HALT:
            out *= 1 - _branch_below(xn.family, bx, t + Z - qs[n], t + probe - qs[n])
        return out

    if zn.is_none:
        return integrand(sympy.Integer(0)).subs(Z, 0)
    bz = r(zn.scale.numerator, zn.scale.denominator)
    kinks = sorted({sympy.Integer(0), *[qj - t for qj in qs[: n + 1]]})
    ends = ([sympy.Integer(0)] if zn.family == "exponential" else [-sympy.oo]) + [k for k in kinks if k > 0 or zn.family == "laplace"] + [sympy.oo]
    ends = sorted(set(ends), key=lambda e: float(e))
    total = sympy.Integer(0)
    for a, b in zip(ends, ends[1:]):
        probe = (a + b) / 2 if a.is_finite and b.is_finite else (b - 1 if not a.is_finite else a + 1)
        f = sympy.expand(_branch_density(zn.family, bz, probe) * integrand(probe))
        total += sum(sympy.integrate(term, (Z, a, b)) for term in sympy.Add.make_args(f))
    return total


SYMPY_CASES = [
    ("laplace", "laplace", (F(1, 2), F(-1)), 2),
    ("exponential", "exponential", (F(0), F(1)), NO_HALT),
    ("laplace", "none", (F(1), F(-1, 2), F(2)), 3),
    ("exponential", "laplace", (F(0), F(0), F(1)), 1),
    ("none", "exponential", (F(-1), F(2)), 2),
]


@pytest.mark.slow
@pytest.mark.parametrize("zf, xf, q, output", SYMPY_CASES)
def test_oracle_matches_sympy_integrate_with_breakpoints(zf, xf, q, output):
    mech = _mech(zf, xf, threshold=0)
    exact = _sympy_probability(mech, q, output)
    value = oracle_probability(mech, q, output, 30).probability
    with mpmath.workdps(40):
        ref = mpmath.mpf(sympy.N(exact, 45))
        assert ref > 0
        assert _close(value, ref, 30), (exact, value)
        # and the library's closed form agrees with sympy.integrate too
        lib = mp_distribution(mech, q, 30)[output - 1 if output != NO_HALT else len(q)]
        assert _close(lib, ref, 30)


# --- witness re-check ------------------------------------------------------------------------------
WORST = dict(max_queries=3, starts=1)
WITNESS_MECHANISMS = {
    "Mechanism One": AboveThreshold.mechanism_one(1),
    "Mechanism Two": AboveThreshold.mechanism_two(1),
    "Lap(1Δ/ε) (not private)": AboveThreshold.with_noise("laplace", 1, threshold_multiplier=1, query_multiplier=1),
}


@pytest.fixture(scope="module")
def worst_results():
    return {name: worst_case(m, push_study=False, **WORST) for name, m in WITNESS_MECHANISMS.items()}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(WITNESS_MECHANISMS))
def test_worst_case_witnesses_rechecked_by_the_oracle(worst_results, name):
    mech = WITNESS_MECHANISMS[name]
    res = worst_results[name]
    witnesses = [res.witness, res.by_k[1].halt, res.by_k[0].no_halt]
    for w in witnesses:
        chk = recheck_witness(mech, w.queries, w.neighbour_queries, w.output, w.log_ratio, digits=30)
        assert chk.agrees, (name, w.queries, w.neighbour_queries, w.output, chk.log_ratio, w.log_ratio)
    eps = mpmath.mpf(1)
    top = recheck_witness(mech, res.witness.queries, res.witness.neighbour_queries, res.witness.output, digits=30)
    with mpmath.workdps(40):
        if res.verdict == "not_private":
            assert abs(top.log_ratio) > eps + mpmath.mpf(10) ** -20
        else:
            assert abs(top.log_ratio) <= eps + mpmath.mpf(10) ** -25


def test_mechanism_two_attains_epsilon_by_the_oracle():
    """q(D) = (t, t), q(D') = (t+Δ, t-Δ), s_2: log ratio exactly ε (docs), here by quadrature at 40 digits."""
    mech = AboveThreshold.mechanism_two(1)
    chk = recheck_witness(mech, (0, 0), (1, -1), 2, digits=40)
    with mpmath.workdps(50):
        assert abs(abs(chk.log_ratio) - 1) <= mpmath.mpf(10) ** -35


@pytest.mark.slow
def test_recheck_rejects_a_wrong_claim():
    mech = AboveThreshold.mechanism_one(1)
    good = recheck_witness(mech, (0, 2), (1, 1), 2, digits=12)  # agreement demanded to 10^-7
    with mpmath.workdps(40):
        off = good.log_ratio + mpmath.mpf(10) ** -5
    assert recheck_witness(mech, (0, 2), (1, 1), 2, good.log_ratio, digits=12).agrees is True
    assert recheck_witness(mech, (0, 2), (1, 1), 2, off, digits=12).agrees is False
    assert recheck_witness(mech, (0, 2), (1, 1), 2, mpmath.inf, digits=12).agrees is False


def test_recheck_of_an_infinite_loss():
    """No query noise: Pr = 0 on one side exactly; the oracle decides the zero structurally."""
    mech = AboveThreshold.with_noise("laplace", 1, query_multiplier=0)
    # s_2 needs q_1 < t + Z <= q_2: impossible for q(D) = (1, 0), possible for q(D') = (0, 1)
    chk = recheck_witness(mech, (1, 0), (0, 1), 2, mpmath.ninf, digits=30)
    assert chk.probability == 0 and chk.neighbour_probability > 0
    assert chk.agrees and chk.log_ratio == mpmath.ninf


def test_oracle_input_errors():
    mech = AboveThreshold.mechanism_one(1)
    with pytest.raises(InputError):
        oracle_probability(mech, [0], 1, digits=5)
    with pytest.raises(InputError):
        oracle_probability(mech, [0], 2)
    with pytest.raises(InputError):
        recheck_witness(mech, [0], [2], 1)


# --- the noise kernel (verify.noise) against its definitions, by mpmath ----------------------------------
KERNEL_POINTS = np.array([-800.0, -40.0, -3.0, -1.0, -0.25, -1e-9, 0.0, 1e-9, 0.25, 1.0, 3.0, 40.0, 800.0])


def _mp_kernel(family: str, b: mpmath.mpf, x: mpmath.mpf) -> tuple:
    """(F(x) = Pr[X < x], S(x) = Pr[X >= x], density) from the definitions (noise.py docstring), 60 digits."""
    if family == "laplace":
        F_ = mpmath.exp(x / b) / 2 if x < 0 else 1 - mpmath.exp(-x / b) / 2
        S_ = 1 - mpmath.exp(x / b) / 2 if x < 0 else mpmath.exp(-x / b) / 2
        return F_, S_, mpmath.exp(-abs(x) / b) / (2 * b)
    F_ = 1 - mpmath.exp(-x / b) if x > 0 else mpmath.mpf(0)
    S_ = mpmath.exp(-x / b) if x > 0 else mpmath.mpf(1)
    return F_, S_, mpmath.exp(-x / b) / b if x >= 0 else mpmath.mpf(0)


def _log_close(got: float, exact: mpmath.mpf) -> bool:
    if exact == 0:
        return got == -np.inf
    want = float(mpmath.log(exact))
    return abs(got - want) <= 1e-13 * max(1.0, abs(want))


@pytest.mark.parametrize("family, scale", [("laplace", F(3)), ("laplace", F(1, 7)), ("exponential", F(2)), ("exponential", F(5, 3))])
def test_noise_kernel_matches_its_definition_in_both_tails(family, scale):
    from verify.noise import Noise

    noise = Noise(family, scale)
    lc, ls, lp = noise.log_cdf(KERNEL_POINTS), noise.log_sf(KERNEL_POINTS), noise.log_pdf(KERNEL_POINTS)
    cdf, pdf = noise.cdf_below(KERNEL_POINTS), noise.pdf(KERNEL_POINTS)
    with mpmath.workdps(60):
        b = mpmath.mpf(scale.numerator) / scale.denominator
        for j, x in enumerate(KERNEL_POINTS):
            F_, S_, p_ = _mp_kernel(family, b, mpmath.mpf(float(x)))
            assert _log_close(lc[j], F_), (family, x, "log_cdf")
            assert _log_close(ls[j], S_), (family, x, "log_sf")
            assert _log_close(lp[j], p_), (family, x, "log_pdf")
            # float64 exp(y) of a rounded y = x/b: relative error about (2 + |y|)·2^-53
            rel = 2.3e-16 * (4 + abs(float(x)) / float(scale))
            assert abs(cdf[j] - float(F_)) <= rel * float(F_), (family, x, "cdf_below")
            assert abs(pdf[j] - float(p_)) <= rel * float(p_), (family, x, "pdf")


@pytest.mark.parametrize("scale", [F(3), F(1, 7)])
def test_gaussian_noise_kernel_matches_its_definition_in_both_tails(scale):
    """The Gaussian kernel N(σ) (log_cdf, log_sf, log_pdf, cdf_below, pdf) against mpmath's ``ncdf``/``npdf`` at
    60 digits, both tails included (x up to ±800, i.e. y = x/σ up to ±5600): the rule F(x) = Φ(x/σ),
    S(x) = Φ(-x/σ), density e^{-x²/2σ²}/(σ√2π).  Logs to 1e-13 relative; the linear values to
    (4 + y²)·2.3e-16 relative (float64 exp of -y²/2 carries a relative error of about y²/2 units)."""
    from verify.noise import Noise

    noise = Noise("gaussian", scale)
    lc, ls, lp = noise.log_cdf(KERNEL_POINTS), noise.log_sf(KERNEL_POINTS), noise.log_pdf(KERNEL_POINTS)
    cdf, pdf = noise.cdf_below(KERNEL_POINTS), noise.pdf(KERNEL_POINTS)
    with mpmath.workdps(60):
        b = mpmath.mpf(scale.numerator) / scale.denominator
        for j, x in enumerate(KERNEL_POINTS):
            xm = mpmath.mpf(float(x))
            F_, S_, p_ = mpmath.ncdf(xm, 0, b), mpmath.ncdf(-xm, 0, b), mpmath.npdf(xm, 0, b)
            assert _log_close(lc[j], F_), (x, "log_cdf")
            assert _log_close(ls[j], S_), (x, "log_sf")
            assert _log_close(lp[j], p_), (x, "log_pdf")
            rel = 2.3e-16 * (4 + (float(x) / float(scale)) ** 2)
            assert abs(cdf[j] - float(F_)) <= rel * float(F_), (x, "cdf_below")
            assert abs(pdf[j] - float(p_)) <= rel * float(p_), (x, "pdf")


def test_noise_kernel_none_is_the_indicator_of_the_seeds_rule():
    from verify.noise import Noise

    none = Noise("none", F(0))
    x = np.array([-1.0, 0.0, 1.0])
    assert list(none.log_cdf(x)) == [-np.inf, -np.inf, 0.0]  # Pr[0 < x]
    assert list(none.log_sf(x)) == [0.0, 0.0, -np.inf]  # Pr[0 >= x]: a tie reaches the threshold
    assert list(none.cdf_below(x)) == [0.0, 0.0, 1.0]
    with pytest.raises(InputError):
        none.log_pdf(x)
    with pytest.raises(InputError):
        none.pdf(x)


@pytest.mark.parametrize("family", ["laplace", "exponential", "gaussian"])
def test_noise_sampler_has_the_stated_distribution(family):
    """Kolmogorov-Smirnov of 20,000 seeded draws against F; false-alarm rate 1e-4 (deterministic seed)."""
    from scipy import stats

    from verify.noise import Noise

    noise = Noise(family, F(3))
    draws = noise.sample(np.random.default_rng(7), 20_000)
    cdf = {"laplace": stats.laplace(scale=3.0), "exponential": stats.expon(scale=3.0), "gaussian": stats.norm(scale=3.0)}[family].cdf
    assert stats.kstest(draws, cdf).pvalue > 1e-4
    assert np.all(Noise("none", F(0)).sample(np.random.default_rng(7), 5) == 0)
