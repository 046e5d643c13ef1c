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
