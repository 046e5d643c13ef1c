"""Hostile input, second round: the public API refuses wrong types and sizes with an InputError naming
the argument; integer flags with thousands of leading zeros; the documented largest seed; plot
destinations; the round trip of a long decimal; the oracle's and the quadrature's reach refused up front."""

from __future__ import annotations

import contextlib
import io
import json
from decimal import Decimal

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from loopback import listener

from verify import AboveThreshold, mp_distribution
from verify.cli.main import main
from verify.errors import InputError
from verify.family.delta import exact_delta
from verify.family.presets import preset
from verify.family.sampler import sample
from verify.probabilities import distribution, fast_log_distribution, probability
from verify.validate import integer_in, parse_number

M1 = AboveThreshold.mechanism_one(1)


def cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main(list(argv))
    return code, out.getvalue(), err.getvalue()


WRONG_MECHS = [None, "m1", 1, 1.5, [M1], {"epsilon": 1}]


@pytest.mark.parametrize("mech", WRONG_MECHS)
@pytest.mark.parametrize("fn", [mp_distribution, distribution, lambda m, q: probability(m, q, 1),
                                lambda m, q: fast_log_distribution(m, [[0.0]])])
def test_public_functions_refuse_a_non_mechanism(fn, mech):
    with pytest.raises(InputError, match="mech"):
        fn(mech, [0])


@settings(max_examples=60, derandomize=True, deadline=None)
@given(st.one_of(st.text(max_size=5), st.dictionaries(st.integers(), st.integers(), max_size=3),
                 st.sets(st.integers(), max_size=3), st.integers(), st.none(), st.binary(max_size=3)))
def test_query_vectors_must_be_lists(queries):
    with pytest.raises(InputError, match="queries"):
        mp_distribution(M1, queries)


def test_decimal_is_an_exact_number():
    assert AboveThreshold.mechanism_one(epsilon=Decimal("0.1")).epsilon == AboveThreshold.mechanism_one("1/10").epsilon
    with pytest.raises(InputError, match="finite"):
        AboveThreshold.mechanism_one(epsilon=Decimal("NaN"))


def test_exact_delta_digits_and_sample_sizes_are_bounded():
    with pytest.raises(InputError, match="digits"):
        exact_delta(preset("lyu-1"), [0], [1], 0, digits=0)
    with pytest.raises(InputError, match="runs"):
        sample(preset("lyu-1"), [0], 10**12, 0)


def test_oracle_refuses_magnitudes_beyond_its_working_digits():
    """``delta --variant lyu-6 ... --threshold=1e50`` ran for over an hour."""
    with pytest.raises(InputError, match="working at|noise scales"):
        exact_delta(preset("lyu-6", threshold=10**50), [0], [1], "1/2")


@pytest.mark.parametrize("flag,value", [("--digits", "12"), ("--k", "2")])
def test_integer_flags_parse_what_they_measure(flag, value):
    zeros = "0" * 900 + value
    assert integer_in(zeros, flag, 1, 1000) == int(value)
    with pytest.raises(InputError, match="too large"):
        integer_in("0" * 900 + "1" * 20, flag, 1, 1000)


def test_largest_documented_seed_is_accepted():
    assert integer_in("9223372036854775807", "--seed", 0, 2**63 - 1) == 2**63 - 1


def test_a_long_decimal_prints_back_in_a_form_that_parses_back():
    text = "1." + "3" * 997
    code, out, _ = cli("prob", "--queries", text, "--output", "1", "--digits", "5", "--json")
    assert code == 0
    printed = json.loads(out)["queries"][0]
    assert parse_number(printed) == parse_number(text)


def test_plot_name_over_255_bytes_is_one_line(tmp_path):
    path = tmp_path / ("é" * 130 + ".png")  # 260 bytes, 134 characters
    code, _, err = cli("delta", "--variant", "lyu-1", "--queries", "0", "--neighbour-queries", "1",
                       "--epsilon-prime", "1/2", "--plot", str(path))
    assert code == 2 and "255 bytes" in err and len(err.strip().splitlines()) == 1


def test_plot_into_an_unwritable_place_is_one_line(tmp_path):
    from matplotlib.figure import Figure

    from verify.plots import save_figure

    with pytest.raises(InputError, match="cannot write"):
        save_figure(Figure(), str(tmp_path / "missing" / "x.png"))


def test_probabilities_never_exceed_one_on_the_cli_fast_path():
    for q in ("1e17,-1e17", "1e50,-1e50", "-1e12"):
        code, out, _ = cli("prob", f"--queries={q}", "--output", "1", "--method", "fast", "--json")
        assert code == 0
        assert float(json.loads(out)["probability"]) <= 1.0


@pytest.mark.slow
@pytest.mark.parametrize("scheme,greeting", [
    ("tls", None),  # the TLS context Dask needs is missing: was a traceback
    ("tcp", __import__("struct").pack("<QQQ", 24, 1, 8) + b"garbage!"),  # plausible header, then not Dask: CRITICAL log
])
def test_scheduler_failures_are_one_line(scheme, greeting, capfd):
    sock = listener(greeting)
    port = sock.getsockname()[1]
    try:
        code, _, err = cli("sweep", "--scheduler", f"{scheme}://127.0.0.1:{port}")
    finally:
        sock.close()
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and "--scheduler" in err
    assert "Traceback" not in capfd.readouterr().err


def test_gaussian_quadrature_refuses_digits_it_cannot_reach_in_time():
    """``prob --variant gaussian-svt ... --digits 1000`` did not finish in 5 minutes, even at k = 1."""
    from verify.engine.quadrature import MAX_QUAD_DIGITS
    from verify.family.probability import evaluate

    with pytest.raises(InputError, match="at most"):
        evaluate(preset("gaussian-svt"), [0], "A", None, MAX_QUAD_DIGITS + 1)


# --- limits the tool meets: each at the limit (or a cheap proxy through the same guard) and just above ---------------
from fractions import Fraction  # noqa: E402

from verify.cli import limits  # noqa: E402

Q = ",".join(f"{(j * 7) % 13 - 6}/3" for j in range(14))
QN = ",".join(f"{(j * 7) % 13 - 5}/3" for j in range(14))


def _one_line_refusal(code: int, err: str, *needles: str) -> None:
    assert code == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    for n in needles:
        assert n in err, (n, err)


def test_sweep_listed_violations_at_and_above_the_limit():
    limits.check_sweep_listed(40, 50, 30)  # 2,000: at the limit
    limits.check_sweep_listed(1000, 2, 30)
    with pytest.raises(InputError, match="2,050 listed violations is above the limit of 2,000"):
        limits.check_sweep_listed(41, 50, 30)
    limits.check_sweep_listed(20, 3, 1000)  # 60 = 2000·30/1000: at the limit at 1000 digits
    with pytest.raises(InputError, match="limit of 60 per sweep at 1000 digits"):
        limits.check_sweep_listed(20, 4, 1000)


def test_sweep_with_50_epsilons_and_1000_listed_violations_is_refused_up_front():
    eps = ",".join(str(i) for i in range(1, 51))
    _one_line_refusal(*cli("sweep", "--epsilons", eps, "--max-violations", "1000")[::2], "--max-violations", "2,000")


def test_sweep_confirms_at_most_cap_violations_per_epsilon_over_many_chunks(monkeypatch):
    """The listed violations are confirmed in the fold, not in every chunk: a grid of many chunks (a variant
    with violations everywhere) re-evaluates at most ``cap`` per ε (before: ``cap`` per chunk)."""
    import verify.sweep.outputs as outputs
    from verify.sweep import GridSpec, sweep
    from verify.sweep.results import WitnessKind

    calls = {"violation": 0}
    real = outputs.output_witness

    def counting(mech, q, qn, output, digits, kind):
        calls["violation"] += kind is WitnessKind.VIOLATION
        return real(mech, q, qn, output, digits, kind)

    monkeypatch.setattr(outputs, "output_witness", counting)
    broken = AboveThreshold.with_noise("laplace", 1, query_multiplier=1)  # query noise Lap(Δ/ε): loss 2ε
    r = sweep(broken, GridSpec(k=2, chunk_size=200, max_listed_violations=3, epsilons=(Fraction(1), Fraction(2))), workers=1)
    assert r.chunks_total >= 10
    assert r.violation_count > 6
    assert calls["violation"] == 6  # 3 per ε
    assert all(len(s.violations) == 3 for s in r.per_epsilon)


def test_ratio_outcomes_all_at_and_above_the_limit():
    limits.check_outcomes_all(1024, 30)
    limits.check_outcomes_all(1024, 100)
    limits.check_outcomes_all(102, 1000)
    with pytest.raises(InputError, match="1,025 outputs at 30 digits is above the limit of 1,024"):
        limits.check_outcomes_all(1025, 30)
    with pytest.raises(InputError, match="103 outputs at 1000 digits is above the limit of 102"):
        limits.check_outcomes_all(103, 1000)


@pytest.mark.parametrize("k,digits", [(14, "30"), (20, "30"), (11, "30"), (7, "1000")])
def test_ratio_outcomes_all_above_the_limit_is_refused_up_front(k, digits):
    q = ",".join(f"{(j * 7) % 13 - 6}/3" for j in range(k))
    qn = ",".join(f"{(j * 7) % 13 - 5}/3" for j in range(k))
    code, _, err = cli("ratio", "--variant", "lyu-6", "--outcomes", "all", "--queries", q, "--neighbour-queries", qn, "--digits", digits)
    _one_line_refusal(code, err, "--outcomes all", "above the limit")


def test_ratio_outcomes_all_below_the_limit_runs():
    code, out, err = cli("ratio", "--variant", "lyu-6", "--outcomes", "all", "--queries", "0,1", "--neighbour-queries", "1,0", "--json")
    assert code == 0, err
    assert len(json.loads(out)["outputs"]) == 4


def test_quadrature_work_at_and_above_the_limit():
    limits.check_quadrature(1200, 30, "prob")
    limits.check_quadrature(1120, 30, "ratio")  # gaussian-svt, 32 queries, every output
    with pytest.raises(InputError, match="--digits: 31 digits"):
        limits.check_quadrature(1120, 31, "ratio")
    limits.check_quadrature(4, 200, "prob")  # 4·(200/30)^3 = 1185
    with pytest.raises(InputError, match="above the limit of 1,200"):
        limits.check_quadrature(5, 200, "prob")


def test_gaussian_quadrature_above_the_limit_is_refused_up_front_and_below_runs():
    q50 = ",".join("0" for _ in range(50))
    code, _, err = cli("prob", "--variant", "gaussian-svt", "--queries", q50, "--output", "none", "--digits", "100")
    _one_line_refusal(code, err, "--digits: 100", "1,200")
    code, _, err = cli("prob", "--variant", "gaussian-svt", "--queries", "0,0,0,0,0", "--output", "none", "--digits", "200")
    _one_line_refusal(code, err, "--digits: 200")
    code, out, err = cli("prob", "--variant", "gaussian-svt", "--queries", "0", "--output", "1", "--digits", "20", "--json")
    assert code == 0, err
    assert json.loads(out)["probability"].startswith("0.5")


def test_worst_case_scale_ratio_at_and_above_the_limit():
    code, out, err = cli("worst-case", "--max-queries", "1", "--threshold-absolute-scale", "1/100", "--query-absolute-scale", "1", "--json")
    assert code == 0, err
    code, _, err = cli("worst-case", "--max-queries", "1", "--threshold-absolute-scale", "1/100", "--query-absolute-scale", "101/100")
    _one_line_refusal(code, err, "more than 100 times")
    code, _, err = cli("worst-case", "--max-queries", "12", "--threshold-absolute-scale", "1/100", "--query-absolute-scale", "1e50")
    _one_line_refusal(code, err, "more than 100 times")


def test_family_rows_each_once_at_most_16():
    from verify.cli.family import parse_rows
    from verify.family.table import ROWS

    assert len(parse_rows(",".join(f"{n}:{'unlimited' if c is None else c}" for n, c in ROWS))) == 16
    with pytest.raises(InputError, match="named twice"):
        parse_rows("lyu-1:1,lyu-1:1")
    with pytest.raises(InputError, match="17 rows is above the limit of 16"):
        parse_rows(",".join(f"lyu-6:{c}" for c in range(1, 18)))
    code, _, err = cli("family", "--rows", ",".join(["lyu-1:1"] * 512))
    _one_line_refusal(code, err, "named twice")


def test_prob_fast_with_gaussian_noise_at_most_500_queries():
    code, _, err = cli("prob", "--variant", "gaussian-svt", "--method", "fast", "--queries", ",".join(["0"] * 501), "--output", "none")
    _one_line_refusal(code, err, "501 queries", "limit of 500", "Gaussian")
    code, out, err = cli("prob", "--variant", "gaussian-svt", "--method", "fast", "--queries", "0,1", "--output", "none", "--json")
    assert code == 0, err  # a cheap run through the same guard
    assert 0 < float(json.loads(out)["probability"]) < 1


def test_delta_sums_at_most_max_outputs_and_refuses_one_query_more():
    """At the limit (lyu-6, unlimited cutoff: 2^k outputs) k = 10 gives all 1,024 outputs; k = 11 (2,048) is refused."""
    from verify.errors import InputError
    from verify.family.delta import MAX_OUTPUTS, complete_outputs
    from verify.family.presets import preset

    assert MAX_OUTPUTS == 1024
    outs = complete_outputs(preset("lyu-6"), 10)
    assert len(outs) == len(set(outs)) == 1024
    with pytest.raises(InputError, match="2048 outputs for k = 11 exceed 1024"):
        complete_outputs(preset("lyu-6"), 11)
