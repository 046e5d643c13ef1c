"""``prob --method fast`` beyond the seed's closed form: the family's halting path serves k > 12.

The value printed (17 significant digits of a float64) must agree with the mpmath path to the fast
path's promise (relative error <= 1e-12) for both seed mechanisms, and the JSON value must parse back.
"""

from __future__ import annotations

import contextlib
import io
import json
import random

import mpmath
import pytest

from verify.cli.main import main


def _run(argv: list[str]) -> dict:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(argv) == 0
    return json.loads(out.getvalue())


@pytest.mark.slow
@pytest.mark.parametrize("noise", ["laplace", "exponential"])
@pytest.mark.parametrize("output", ["1", "17", "40", "none"])
def test_fast_matches_mpmath_above_the_closed_form_range(noise, output):
    rng = random.Random(11)  # seeded: the same 40 queries on every run
    q = ",".join(str(rng.randint(-600, 600)) + "/100" for _ in range(40))
    fast = _run(["prob", "--noise", noise, "--method", "fast", "--queries", q, "--output", output, "--json"])
    exact = _run(["prob", "--noise", noise, "--method", "mpmath", "--queries", q, "--output", output, "--digits", "30", "--json"])
    with mpmath.workdps(40):
        f, e = mpmath.mpf(fast["probability"]), mpmath.mpf(exact["probability"])
        assert e > 0
        assert abs(f / e - 1) <= mpmath.mpf("1e-12"), (fast["probability"], exact["probability"])


# exponential: about 7 s CPU, slow; the Laplace case runs the same fast path in the quick subset
@pytest.mark.parametrize("noise", ["laplace", pytest.param("exponential", marks=pytest.mark.slow)])
def test_fast_without_query_noise_is_the_threshold_law_between_two_queries(noise):
    """No query noise: B^{i-1}A happens iff max_{j<i} a_j < Z <= a_i, so its probability is
    F_Z(a_i) - F_Z(max) (0 when a_i <= max), written here from Z's CDF at 40 digits (Lap(3): ½e^{z/3}
    left of 0, 1 - ½e^{-z/3} right; Exp(3): 1 - e^{-z/3} for z > 0).  k = 300, above the seed's
    closed-form range: the fast path must give every checked output, zeros included, within 1e-12."""
    rng = random.Random(5)
    qs = [rng.randint(-600, 600) for _ in range(300)]
    q = ",".join(f"{x}/100" for x in qs)

    def cdf(z: mpmath.mpf) -> mpmath.mpf:
        if noise == "laplace":
            return mpmath.exp(z / 3) / 2 if z < 0 else 1 - mpmath.exp(-z / 3) / 2
        return 1 - mpmath.exp(-z / 3) if z > 0 else mpmath.mpf(0)

    with mpmath.workdps(40):
        a = [mpmath.mpf(x) / 100 for x in qs]
        top = mpmath.mpf("-inf")
        for i in [0, 1, 2, 5, 17, 150, 299, 300]:
            top = max(a[:i]) if i else mpmath.mpf("-inf")
            want = (cdf(a[i]) - (cdf(top) if i else 0) if i == 0 or a[i] > top else mpmath.mpf(0)) if i < 300 else 1 - cdf(top)
            out = "none" if i == 300 else str(i + 1)
            got = _run(["prob", "--threshold-noise", noise, "--query-noise", "none", "--method", "fast", "--queries", q,
                        "--output", out, "--json"])["probability"]
            if want == 0:
                assert mpmath.mpf(got) == 0, (i, got)
            else:
                assert abs(mpmath.mpf(got) / want - 1) <= mpmath.mpf("1e-12"), (i, got, want)
