"""Exact paths of the SVT family agree (verify.family.probability): mpmath closed form, sympy, arb
enclosures, mpmath quadrature; all outputs sum to 1; densities integrate to the probabilities;
the seed presets reproduce the seed's verify.probabilities.mp_distribution."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
import sympy
from hypothesis import example, given, settings
from hypothesis import strategies as st

from verify.errors import InputError
from verify.family import Release, SparseVector, ThresholdPolicy, preset
from verify.family.probability import arb_probability, evaluate, mp_distribution, mp_probability, symbolic_probability
from verify.noise import NoiseSpec
from verify.probabilities import mp_distribution as seed_distribution

CLOSED = ["laplace", "exponential", "none"]
queries_st = st.lists(st.fractions(-4, 4, max_denominator=4), min_size=1, max_size=4)
SETTINGS = settings(max_examples=12, deadline=None, derandomize=True)


def _close(a, b, digits: int) -> bool:
    """|a - b| <= 10^-(digits) · max(|a|, |b|), or both exactly 0."""
    if a == 0 or b == 0:
        return a == b
    return abs(a - b) <= mpmath.mpf(10) ** (-digits) * max(abs(a), abs(b))


def _fraction(x: mpmath.mpf) -> Fraction:
    """The exact binary value of an mpf."""
    sign, man, exp, _ = (x if isinstance(x, mpmath.mpf) else mpmath.mpf(x))._mpf_  # mpf(x) would round to 53 bits
    return Fraction((-1) ** sign * int(man)) * Fraction(2) ** int(exp)


def _in_ball(ball, ref: mpmath.mpf, digits: int) -> bool:
    """The arb ball meets [ref ± 10^-digits·|ref|] (ref is itself only correct to about that many digits)."""
    import flint

    if ref == 0:
        return ball.contains(0)
    exact = _fraction(ref)
    mid = flint.fmpq(exact.numerator, exact.denominator)
    return ball.overlaps(flint.arb(mid) + flint.arb(0, float(abs(ref)) * 10.0 ** (-digits)))


@SETTINGS
@given(q=queries_st, which=st.sampled_from(["seed-m1", "seed-m2"]), eps=st.sampled_from([Fraction(1), Fraction(1, 2), Fraction(3)]))
@example(q=[Fraction(0), Fraction(1), Fraction(1, 2)], which="seed-m1", eps=Fraction(1))
def test_seed_presets_reproduce_the_seed(q, which, eps):
    """Reference: verify.probabilities.mp_distribution (the seed's mpmath path), 30 digits."""
    m = preset(which, epsilon=eps)
    seed = seed_distribution(m, q, 30)
    fam = mp_distribution(m, q, 30)
    assert list(fam) == m.outputs(len(q))
    with mpmath.workdps(40):
        for a, b in zip(seed, fam.values()):
            assert _close(a, b, 35)


def _variant(zf, xf, zscale, xscale, cutoff, policy, release, rfam):
    if release in (Release.QUERY, Release.GAP) and xf == "none":
        xf = "laplace"
    return SparseVector(
        1, 1, 0, NoiseSpec(zf, multiplier=zscale), NoiseSpec(xf, multiplier=xscale), cutoff=cutoff,
        threshold_policy=policy, release=release,
        release_spec=NoiseSpec(rfam, multiplier=Fraction(2)) if release is Release.FRESH else None,
    )


variant_st = st.builds(
    _variant,
    zf=st.sampled_from(CLOSED), xf=st.sampled_from(CLOSED),
    zscale=st.sampled_from([Fraction(1), Fraction(2), Fraction(3, 2)]), xscale=st.sampled_from([Fraction(1), Fraction(3), Fraction(4, 3)]),
    cutoff=st.sampled_from([1, 2, None]), policy=st.sampled_from(list(ThresholdPolicy)),
    release=st.sampled_from(list(Release)), rfam=st.sampled_from(["laplace", "gaussian"]),
)


@pytest.mark.slow
@settings(max_examples=25, deadline=None, derandomize=True)
@given(m=variant_st, q=st.lists(st.fractions(-3, 3, max_denominator=2), min_size=1, max_size=3), data=st.data())
def test_paths_agree_on_every_output(m, q, data):
    """mpmath closed form (20 digits) = sympy exact = inside the arb ball = mpmath quadrature (to its estimate)."""
    outs = m.outputs(len(q))
    s = data.draw(st.sampled_from(outs))
    released = [data.draw(st.sampled_from([Fraction(-1), Fraction(0), Fraction(1, 2), Fraction(2)])) for _ in range(s.count("A"))] if m.releases_values else None
    closed = evaluate(m, q, s, released, 20, method="closed")
    quad = evaluate(m, q, s, released, 20, method="quadrature")
    exact = symbolic_probability(m, q, s, released)
    ball = arb_probability(m, q, s, released, prec=200)
    with mpmath.workdps(40):
        ref = mpmath.mpf(sympy.N(exact, 40)) if exact != 0 else mpmath.mpf(0)
        assert _close(closed.value, ref, 19)
        assert _close(quad.value, ref, 15) or (ref == 0 and abs(quad.value) < mpmath.mpf(10) ** -30)
        assert _in_ball(ball, ref, 35)
        assert closed.kind.value == ("density" if released else "probability")


@SETTINGS
@given(m=variant_st.filter(lambda v: not v.releases_values), q=st.lists(st.fractions(-3, 3, max_denominator=3), min_size=1, max_size=5))
def test_all_outputs_sum_to_one(m, q):
    d = mp_distribution(m, q, 25)
    assert len(d) == m.output_count(len(q))
    with mpmath.workdps(30):
        assert _close(mpmath.fsum(d.values()), mpmath.mpf(1), 24)
        assert all(v >= 0 for v in d.values())


@pytest.mark.slow
@pytest.mark.parametrize("name", ["lyu-3", "gap-svt", "numeric-svt"])
def test_densities_integrate_to_the_probability_of_the_letters(name):
    """∫ density(v) dv over the released value of a one-A outcome = Pr[the same letters, nothing released]."""
    m = preset(name)
    q = [Fraction(1, 2), Fraction(-1)]
    plain = m.with_changes(release=Release.NONE, release_spec=None)
    # the density is smooth in v between these points: 0, q_j and q_i - q_j (t = 0)
    kinks = sorted({Fraction(0), *q, *(a - b for a in q for b in q)})
    for s in ["A", "BA"]:
        with mpmath.workdps(20):
            def f(v, s=s):
                return mp_probability(m, q, s, [_fraction(v)], digits=12)

            lo = mpmath.mpf(0) if name == "gap-svt" else mpmath.ninf
            pts = [lo, *[mpmath.mpf(x.numerator) / x.denominator for x in kinks if name != "gap-svt" or x > 0], mpmath.inf]
            total = mpmath.quad(f, pts)
            assert _close(total, mp_probability(plain, q, s, digits=12), 8)


@pytest.mark.slow
def test_gaussian_has_quadrature_and_a_rigorous_enclosure():
    """No closed form: mpmath quadrature (estimate) lies inside the acb.integral enclosure; outputs sum to 1."""
    m = preset("gaussian-svt", cutoff=2)
    q = [Fraction(1, 2), Fraction(-1), 0]
    with pytest.raises(InputError, match="no closed form"):
        symbolic_probability(m, q, "AA")
    d = mp_distribution(m, q, 20)
    with mpmath.workdps(25):
        assert _close(mpmath.fsum(d.values()), mpmath.mpf(1), 18)
    ball = arb_probability(m, q, "BAB", prec=100)
    assert _in_ball(ball, d["BAB"], 18) and ball.rad() < 1e-25
    e = evaluate(m, q, "BAB", digits=20)
    assert e.method == "quadrature" and e.error_estimate < 1e-20


def test_resample_factorises_into_pieces():
    """lyu-2: Pr[ABA] = Pr_shared-Z[A on q_1] · Pr_shared-Z[BA on q_2, q_3] with independent thresholds."""
    m = preset("lyu-2", cutoff=2)
    q = [Fraction(1), Fraction(-1, 2), Fraction(2)]
    single = m.with_changes(threshold_policy=ThresholdPolicy.SHARED, cutoff=1)
    lhs = mp_probability(m, q, "ABA", digits=25)
    first, rest = mp_probability(single, q[:1], "A", digits=25), mp_probability(single, q[1:], "BA", digits=25)
    with mpmath.workdps(30):
        assert _close(lhs, first * rest, 22)


@pytest.mark.slow
def test_quadrature_agrees_with_the_closed_form_on_longer_strings():
    m = preset("lyu-1", cutoff=3)
    q = [Fraction(j % 7 - 3, 2) for j in range(25)]
    s = "B" * 10 + "A" + "B" * 8 + "A" + "B" * 4 + "A"
    quad = evaluate(m, q, s, digits=15, method="quadrature")
    closed = evaluate(m, q, s, digits=15, method="closed")
    with mpmath.workdps(20):
        assert _close(quad.value, closed.value, 13)


def test_auto_switches_to_quadrature_for_long_strings():
    m = preset("lyu-5")  # no query noise: the integrand is p_Z on (-inf, 0] with 61 indicator factors
    e = evaluate(m, [10] * 61, "A" * 61, digits=15)
    assert e.method == "quadrature" and e.error_estimate < 1e-15
    with mpmath.workdps(20):
        assert _close(e.value, mpmath.mpf(1) - mpmath.exp(-5) / 2, 14)  # Pr[Z <= 10], Z ~ Lap(2)


@pytest.mark.parametrize("name", ["seed-m1", "seed-m2", "dwork-roth", "lyu-1", "lyu-2", "lyu-3", "lyu-4", "lyu-5", "lyu-6",
                                  "numeric-svt", "gap-svt", "gaussian-svt"])
def test_every_preset_all_paths_agree(name):
    """Per preset (cutoff 2 where it scales with c), two outputs of k = 3: mpmath (20 digits) against
    sympy (exact) and the arb ball where a closed form exists, against the acb.integral ball for Gaussian
    noise; the fast path within 1e-12."""
    import numpy as np

    from verify.family.fast_api import fast_log_probability

    m = preset(name, **({} if name in ("seed-m1", "seed-m2", "dwork-roth", "lyu-5", "lyu-6") else {"cutoff": 2}))
    q = [Fraction(1, 2), Fraction(-1), Fraction(3, 2)]
    for s in m.outputs(3)[1:3]:
        released = [Fraction(1, 4) * (j + 1) for j in range(s.count("A"))] if m.releases_values else None
        value = evaluate(m, q, s, released, 20).value
        ball = arb_probability(m, q, s, released, prec=120)
        assert _in_ball(ball, value, 18)
        if m.is_piecewise:
            exact = symbolic_probability(m, q, s, released)
            with mpmath.workdps(30):
                assert _close(value, mpmath.mpf(sympy.N(exact, 30)), 19)
        logv, _ = fast_log_probability(m, np.array([[float(x) for x in q]]), s, None if released is None else [float(v) for v in released])
        if value == 0:  # e.g. lyu-5 (no query noise): an exact zero is -inf in log space
            assert logv[0] == -np.inf
            continue
        with mpmath.workdps(30):
            assert abs(float(mpmath.expm1(mpmath.mpf(float(logv[0])) - mpmath.log(value)))) <= 1e-12
