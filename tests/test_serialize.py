"""Numbers that round-trip: everything printed as an exact value parses back to it.

* `verify.exact.fmt` (exact decimals or p/q) and `verify.serialize.frac_str`
  parse back (`verify.exact.parse_number`) to the identical Fraction; before
  the fix ``fmt(Fraction(1, 2**39))`` printed ``1.8189894035458565e-12``;
* `verify.serialize.float_str` gives 17 significant digits that parse back to
  the identical double, and ``prob --method fast --json`` prints them;
* a witness printed by the worst-case search and by the sweep, fed back into
  ``svt-verify ratio`` (in-process), reproduces the identical exact queries and
  the same log ratio at the same digits.
"""

from __future__ import annotations

import contextlib
import io
import json
from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from verify.cli.main import main
from verify.exact import exact_decimal, fmt
from verify.mechanism import AboveThreshold
from verify.probabilities import fast_log_distribution
from verify.serialize import float_str, frac_str, mechanism_json
from verify.validate import parse_number


@pytest.mark.slow
@given(st.fractions(max_denominator=10**30))
@example(Fraction(1, 2**39))
@example(Fraction(-3, 2**60))
@example(Fraction(123456789012345678, 1000))
@example(Fraction(1, 10**5))
@example(Fraction(10**40 + 1, 2))
@example(Fraction(1, 3))
def test_fmt_and_frac_str_parse_back_identically(x: Fraction):
    assert parse_number(fmt(x)) == x
    assert parse_number(frac_str(x)) == x


@pytest.mark.slow
@given(st.decimals(allow_nan=False, allow_infinity=False, places=None).filter(lambda d: abs(d.adjusted()) < 300))
@example(Decimal("1.8189894035458565e-12"))
@example(Decimal("0.1"))
def test_decimals_print_back_exactly(d: Decimal):
    x = parse_number(str(d))
    assert parse_number(fmt(x)) == x
    text = exact_decimal(x)  # a decimal always has an exact decimal expansion
    assert text is not None and parse_number(text) == x


def test_fmt_regression_dyadic_value():
    """The rule: printed through float repr it parsed back to a different number."""
    x = Fraction(1, 2**39)
    assert fmt(x) == "1/549755813888"
    assert parse_number("1.8189894035458565e-12") != x  # what the old fmt printed


@given(st.floats(allow_nan=False, allow_infinity=False))
@example(0.1)
@example(5e-324)
@example(1.7976931348623157e308)
def test_float_str_identifies_the_double(x: float):
    assert float(float_str(x)) == x
    assert Fraction(float(float_str(x))) == Fraction(x)


def _run(*argv: str) -> dict:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        code = main(list(argv))
    assert code == 0
    return json.loads(buf.getvalue())


def _mechanism_flags(mj: dict) -> list[str]:
    """CLI flags that rebuild the mechanism printed by `verify.serialize.mechanism_json`."""
    flags = ["--epsilon", mj["epsilon"], "--sensitivity", mj["sensitivity"], "--threshold", mj["threshold"]]
    for which in ("threshold", "query"):
        spec = mj[f"{which}_noise"]
        flags += [f"--{which}-noise", spec["family"]]
        if "absolute_scale" in spec:
            flags += [f"--{which}-absolute-scale", spec["absolute_scale"]]
        else:
            flags += [f"--{which}-scale", spec.get("scale_over_delta_over_epsilon", "0")]
    return flags


def test_prob_fast_prints_the_double_to_17_digits():
    m = AboveThreshold.mechanism_one(Fraction(7, 10))
    out = _run("prob", "--queries", "0,1/3", "--output", "2", "--method", "fast", "--json", *_mechanism_flags(mechanism_json(m))[:6])
    logp, _ = fast_log_distribution(m, np.array([[0.0, 1 / 3]]))
    assert out["digits"] == 17
    assert float(out["log_probability"]) == logp[0, 1]


def _feed_back(mj: dict, witness: dict) -> dict:
    return _run("ratio", "--queries", ",".join(witness["queries"]), "--neighbour-queries", ",".join(witness["neighbour_queries"]),
                "--output", str(witness["output"]), "--digits", str(witness["digits"]), "--json", *_mechanism_flags(mj))


def test_worst_case_witness_fed_back_into_ratio_reproduces_it():
    from verify.worstcase import worst_case

    # ε = 7/10: the search unit is 30/7, so the witness queries are rationals with no decimal expansion
    mech = AboveThreshold.with_noise("laplace", Fraction(7, 10), threshold_multiplier=2, query_multiplier=2)
    res = worst_case(mech, max_queries=2, starts=1, push_study=False)
    j = res.to_json()
    for w, wj in [(res.witness, j["witness"])] + [(r.halt, rj["witness_s_k"]) for r, rj in zip(res.by_k, j["loss_by_k"])]:
        assert tuple(parse_number(x) for x in wj["queries"]) == w.queries
        assert tuple(parse_number(x) for x in wj["neighbour_queries"]) == w.neighbour_queries
        back = _feed_back(j["mechanism"], wj)
        assert tuple(parse_number(x) for x in back["queries"]) == w.queries
        assert back["outputs"][0]["log_ratio"] == wj["log_ratio"]
        assert back["outputs"][0]["probability"] == wj["probability"]
    assert any(fmt(x).count("/") for x in res.witness.queries), "the test should exercise p/q witnesses"


@pytest.mark.parametrize("values", [
    (Fraction(1, 2**39), Fraction(0), Fraction(1)),  # the value: a dyadic with a long expansion
    (Fraction(-7, 3), Fraction(5, 3)),
])
def test_sweep_witness_fed_back_into_ratio_reproduces_it(values):
    from verify.sweep import GridSpec, sweep

    mech = AboveThreshold.with_noise("laplace", 1, threshold_multiplier=1, query_multiplier=1)  # not private: violations
    res = sweep(mech, GridSpec(k=2, query_values=values, max_listed_violations=3), workers=1)
    j = res.to_json()
    listed = [(res.witness, j["witness"])] + list(zip(res.violations, j["violations"]))
    assert len(listed) >= 2
    assert any(values[0] in w.queries or values[0] in w.neighbour_queries for w, _ in listed), "the test should print values[0]"
    for w, wj in listed:
        assert tuple(parse_number(x) for x in wj["queries"]) == w.queries
        back = _feed_back(j["mechanism"], wj)
        assert tuple(parse_number(x) for x in back["neighbour_queries"]) == w.neighbour_queries
        assert back["outputs"][0]["log_ratio"] == wj["log_ratio"]
