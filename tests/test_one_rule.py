"""Each rule is written once: the 0/0 log-ratio rule (`verify.logratio`, re-exported by `verify.ratio`), the fast paths' tolerance and the
digits check (`verify.precision`), the integrator's rates (`verify.engine.piecewise.rates`), and the compiled
halting kernel's dispatch by query-noise family (`verify.engine.fast_halting.kernel_mode`)."""

from __future__ import annotations

import inspect
import re
from fractions import Fraction as F

import mpmath
import numpy as np
import pytest

import verify.certify.conditional
import verify.family.structured
import verify.family.witness
import verify.oracles.family
import verify.oracles.seed
from verify import logratio, precision, ratio
from verify.engine.fast_halting import kernel_mode
from verify.errors import InputError
from verify.family.witness import FamilyWitness
from verify.mechanism import SparseVector
from verify.noise import Noise, NoiseSpec

#: a hand-written 0/0 test: "p == 0 and pn == 0" and its float64 form "isneginf(a) & ...isneginf(b)"
ZERO_OVER_ZERO = re.compile(r"(\w+) == 0 and (\w+) == 0|isneginf\(\w+\) & np\.isneginf\(\w+\)")


@pytest.mark.parametrize("module", [verify.oracles.seed, verify.oracles.family, verify.family.witness,
                                    verify.certify.conditional, verify.family.structured, ratio])
def test_zero_over_zero_rule_lives_only_in_logratio(module):
    assert not ZERO_OVER_ZERO.search(inspect.getsource(module)), module.__name__
    assert ZERO_OVER_ZERO.search(inspect.getsource(logratio))
    assert ratio.log_ratio is logratio.log_ratio and ratio.log_ratio_from_logs is logratio.log_ratio_from_logs


def test_zero_over_zero_conventions():
    with mpmath.workdps(30):
        z, one = mpmath.mpf(0), mpmath.mpf(1)
        assert ratio.log_ratio(z, z) == 0 and ratio.log_ratio(one, z) == mpmath.inf and ratio.log_ratio(z, one) == mpmath.ninf
        w = FamilyWitness((F(0),), (F(1),), "A", (), z, z, 30)
        assert w.log_ratio == 0 and w.loss == 0
    shape = SparseVector(1, 1, 0, NoiseSpec("exponential", absolute=F(3)), NoiseSpec("none"))
    # q = -2, q' = -1 < t: Z >= 0 never reaches below q, so A is impossible on both sides
    assert verify.oracles.family.log_ratio(shape, (F(-2),), (F(-1),), "A", (), 30) == 0


def test_one_fast_tolerance_and_one_digits_check():
    import verify.family.fast_api as fam_fast
    import verify.family.probability as fam_prob
    import verify.probabilities as seed_prob

    assert seed_prob.FAST_TOLERANCE == fam_fast.FAST_TOLERANCE == precision.FAST_TOLERANCE == 1e-12
    assert seed_prob.check_digits is fam_prob.check_digits is precision.check_digits
    for bad in (4, 1001, True, 5.0):
        with pytest.raises(InputError, match="digits"):
            precision.check_digits(bad)
    assert precision.check_digits(5) == 5 and precision.check_digits(1000) == 1000


def test_piecewise_rates_once():
    from verify.engine.piecewise import rates

    lap = lambda b: Noise("laplace", F(b))  # noqa: E731
    none = Noise("none", F(0))
    assert rates(lap(3), lap(6)) == (F(1, 6), F(2))
    assert rates(none, lap(6)) == (F(1, 6), F(1))
    assert rates(lap(3), none) == (F(1, 3), F(1))
    assert rates(none, none) == (F(1), F(1))


def test_halting_kernel_dispatches_explicitly():
    kernel_families = ("none", "laplace", "exponential")
    assert len({kernel_mode(Noise(f, F(0) if f == "none" else F(2))) for f in kernel_families}) == 3
    with pytest.raises(InputError, match="gaussian"):
        kernel_mode(Noise("gaussian", F(2)))


def test_gaussian_queries_take_the_generic_path_and_sum_to_one():
    """A Gaussian variant (k = 14) is served by the generic path, not by the compiled kernel: outputs sum to one."""
    from verify.family import preset
    from verify.family.fast_api import fast_log_distribution

    logp, outs, _ = fast_log_distribution(preset("gaussian-svt"), np.zeros((1, 14)))
    assert len(outs) == 15 and abs(float(np.exp(logp[0]).sum()) - 1) < 1e-9
