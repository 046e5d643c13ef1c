"""The Rényi-DP bound of Gaussian SVT (`verify.family.rdp`) against autodp, an independent implementation.

autodp (PyPI ``autodp``, yuxiangw/autodp; a test dependency) covers:

* ``rdp_bank.RDP_gaussian_svt_c1`` — Zhu & Wang (NeurIPS 2020) Thm 8 for cutoff 1.  With the default
  ``gamma = 2`` it returns min(Thm 8, Prop. 10) when σ₂ >= √3 σ₁; Prop. 10 needs non-negative queries, which
  our neighbour relation does not assume, so we compare to Thm 8 alone by passing a ``gamma`` that makes
  Prop. 10 inapplicable (σ₂ < √(γ+1) σ₁), and check ours >= autodp's minimum otherwise.
* ``rdp_bank.RDP_gaussian`` — the Gaussian mechanism, α/(2σ²): our curve with k = 1 is
  α(Δ²/σ₁² + 2Δ²/σ₂²), the Gaussian mechanism's at 1/(2σ²) = Δ²/σ₁² + 2Δ²/σ₂².
* ``converter.rdp_to_delta`` (δ at ε') and ``converter.rdp_to_approxdp`` (ε' at δ), BBGHS or Mironov.
  autodp minimises over α by Brent's method from the bracket (1, 2); we minimise over a grid refined by
  golden section.  Both give valid bounds; they must agree closely (relative 1e-6), and ours is never
  looser than autodp's by more than that.
* ``mechanism_zoo.GaussianSVT_Mechanism`` — the whole pipeline (RDP and conversion): the exact δ(ε') and
  ε'(δ) of a pair (lower bounds, `verify.family.delta`) must lie below autodp's upper bounds.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest

from verify import epsilon_for_delta, exact_delta, preset
from verify.family.rdp import GaussianSVTRdp

autodp = pytest.importorskip("autodp", reason="autodp (a test dependency: pip install -e '.[test]') is not installed")
from autodp import converter, rdp_bank  # noqa: E402
from autodp.mechanism_zoo import GaussianSVT_Mechanism  # noqa: E402

# autodp's own numpy warnings (np.divide with where=, Brent stepping to α <= 1): not ours to fix
pytestmark = pytest.mark.filterwarnings("ignore::RuntimeWarning", "ignore::UserWarning")

# (σ₁ threshold, σ₂ query, Δ, k): the gaussian-svt preset (2, 4, 1, k), Prop. 10's regime and outside it
CASES = [(2, 4, 1, 2), (2, 4, 1, 10), (1, 1, 1, 5), (3, 2, Fraction(1, 2), 100), (Fraction(1, 2), 5, 2, 3)]
ALPHAS = [1.01, 1.5, 2, 3.7, 10, 64, 1000]


def _params(s1, s2, d, k, thm8_only=True):
    p = {"sigma": float(s1), "sigma_nu": float(s2), "Delta": float(d), "k": k}
    if thm8_only:
        p["gamma"] = 10.0 * (float(s2) / float(s1)) ** 2  # σ₂ < √(γ+1) σ₁: Prop. 10 not applicable
    return p


def _rel(a: float, b: float) -> float:
    return abs(a - b) / max(abs(b), 1e-300)


@pytest.mark.parametrize("case", CASES)
def test_rdp_curve_matches_autodp(case):
    ours = GaussianSVTRdp(*case)
    for a in ALPHAS:
        mine = float(ours.rdp(mpmath.mpf(a)))
        assert _rel(mine, rdp_bank.RDP_gaussian_svt_c1(_params(*case), a)) < 1e-12
        # autodp's default also takes Prop. 10 where σ₂ >= √3 σ₁: its value can only be smaller
        assert mine >= rdp_bank.RDP_gaussian_svt_c1(_params(*case, thm8_only=False), a) * (1 - 1e-12)


def test_one_query_curve_is_autodps_gaussian_mechanism():
    s1, s2, d = Fraction(2), Fraction(4), Fraction(1)
    sigma = 1 / math.sqrt(2 * float(d**2 / s1**2 + 2 * d**2 / s2**2))  # 1/(2σ²) = Δ²/σ₁² + 2Δ²/σ₂²
    ours = GaussianSVTRdp(s1, s2, d, 1)
    for a in ALPHAS:
        assert _rel(float(ours.rdp(mpmath.mpf(a))), rdp_bank.RDP_gaussian({"sigma": sigma}, a)) < 1e-12


@pytest.mark.parametrize("case", CASES)
@pytest.mark.parametrize("conversion", ["bbghs", "mironov"])
def test_conversions_match_autodp(case, conversion):
    ours = GaussianSVTRdp(*case)
    rdp = lambda a: rdp_bank.RDP_gaussian_svt_c1(_params(*case), a)  # noqa: E731
    bbghs = conversion == "bbghs"
    for ep in (Fraction(1, 2), Fraction(1), Fraction(3), Fraction(10)):
        d_ours = float(ours.delta(ep, conversion)[0])
        d_autodp = float(converter.rdp_to_delta(rdp, BBGHS_conversion=bbghs)(float(ep)))
        assert d_ours <= d_autodp * (1 + 1e-6)
        if d_autodp < 1:
            assert _rel(d_ours, d_autodp) < 1e-6, (ep, d_ours, d_autodp)
    for d in ("1e-2", "1e-5", "1e-9"):
        e_ours = float(ours.epsilon(d, conversion))
        e_autodp = float(converter.rdp_to_approxdp(rdp, BBGHS_conversion=bbghs)(float(d)))
        assert e_ours <= e_autodp + 1e-6 * (1 + e_autodp)
        assert abs(e_ours - e_autodp) < 1e-6 * (1 + e_autodp), (d, e_ours, e_autodp)


@pytest.mark.parametrize("q,qn", [((-10,), (-11,)), ((10,), (11,)), ((0,), (1,))])
def test_exact_pairs_lie_below_autodps_upper_bounds(q, qn):
    """Lower bounds (exact δ and ε' of a pair, one query: the erfc form) against autodp's Gaussian SVT mechanism
    (Thm 8 with k = 1 and its default conversion), for the gaussian-svt preset."""
    mech = preset("gaussian-svt")
    zoo = GaussianSVT_Mechanism(_params(2, 4, 1, len(q)))
    for ep in (Fraction(0), Fraction(1, 2), Fraction(1)):
        assert exact_delta(mech, q, qn, ep, digits=15).delta <= zoo.get_approx_delta(float(ep))
    for d in ("1e-3", "1e-6"):
        assert epsilon_for_delta(mech, q, qn, d, digits=15).epsilon_prime <= zoo.get_approxDP(float(d))
