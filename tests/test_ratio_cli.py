"""The privacy ratio and the ``prob``/``ratio`` commands: values, conventions, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction

import mpmath
import pytest

from verify.cli.main import main
from verify.errors import InputError
from verify.mechanism import AboveThreshold
from verify.probabilities import mp_distribution
from verify.ratio import privacy_ratio


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_ratio_is_quotient_of_probabilities():
    m = AboveThreshold.mechanism_one(Fraction(1, 2))
    q, qn = [0, 1, 2], [1, 0, 3]
    rep = privacy_ratio(m, q, qn, digits=40)
    p, pn = mp_distribution(m, q, 40), mp_distribution(m, qn, 40)
    with mpmath.workdps(45):
        for o, a, b in zip(rep.outputs, p, pn):
            assert abs(o.log_ratio - (mpmath.log(a) - mpmath.log(b))) < mpmath.mpf(10) ** -38
            assert o.within_bounds == (abs(o.log_ratio) <= mpmath.mpf(1) / 2)


def test_zero_probabilities_give_exact_zero_and_infinite_ratios():
    """No noise at all: outputs are deterministic, ratios are 0, inf or 0/0."""
    m = AboveThreshold.with_noise("laplace", 1, threshold_multiplier=0, query_multiplier=0)
    rep = privacy_ratio(m, [1, 0], [0, 0])  # D halts at 1; D' halts at 1 too (0 >= 0)
    assert [o.probability for o in rep.outputs] == [1, 0, 0]
    assert rep.outputs[1].log_ratio == 0  # 0/0: impossible on both sides
    rep = privacy_ratio(m, [-1, 0], [0, 0])  # D halts at 2, D' at 1
    assert rep.outputs[0].ratio == 0 and rep.outputs[0].log_ratio == mpmath.ninf
    assert rep.outputs[1].ratio == mpmath.inf and not rep.outputs[1].within_bounds


def test_non_neighbours_rejected():
    m = AboveThreshold.mechanism_one(1)
    with pytest.raises(InputError, match=r"exceeds the sensitivity"):
        privacy_ratio(m, [0, 0], [0, 2])
    with pytest.raises(InputError, match=r"length"):
        privacy_ratio(m, [0, 0], [0])


def test_prob_json(capsys):
    code, out, _ = run_cli(capsys, "prob", "--queries", "0", "--output", "1", "--json", "--digits", "20")
    assert code == 0
    obj = json.loads(out)
    assert obj["output"] == 1 and obj["probability"].startswith("0.5000000000000000000")
    code, out, _ = run_cli(capsys, "prob", "--queries", "0,1", "--output", "none", "--json",
                           "--threshold-scale", "0", "--query-scale", "0")
    assert json.loads(out)["probability"] == "0" and json.loads(out)["log_probability"] == "-inf"
    assert json.loads(out)["output"] == "none"


def test_prob_methods_agree(capsys):
    vals = {}
    for method in ("symbolic", "mpmath", "fast"):
        code, out, _ = run_cli(capsys, "prob", "--noise", "exponential", "--queries", "1/3,-1,2", "--output", "3",
                               "--epsilon", "0.7", "--method", method, "--json")
        assert code == 0
        vals[method] = mpmath.mpf(json.loads(out)["probability"])
    assert abs(vals["symbolic"] - vals["mpmath"]) < 1e-25
    assert abs(vals["fast"] / vals["mpmath"] - 1) < 1e-9


def test_ratio_json(capsys):
    code, out, _ = run_cli(capsys, "ratio", "--queries", "0,0", "--neighbour-queries", "1,-1", "--json")
    obj = json.loads(out)
    assert code == 0 and [o["output"] for o in obj["outputs"]] == [1, 2, "none"]
    assert all(isinstance(o["within_bounds"], bool) for o in obj["outputs"])
    assert mpmath.mpf(obj["max_abs_log_ratio"]) == max(abs(mpmath.mpf(o["log_ratio"])) for o in obj["outputs"])


@pytest.mark.parametrize("argv,needle", [
    (["prob", "--queries", "0", "--output", "1", "--epsilon", "0"], "--epsilon: 0 must be > 0"),
    (["prob", "--queries", "0", "--output", "1", "--epsilon", "-1"], "--epsilon"),
    (["prob", "--queries", "0", "--output", "1", "--sensitivity", "0"], "--sensitivity"),
    (["prob", "--queries", "0,nan", "--output", "1"], "'nan' is not a finite number"),
    (["prob", "--queries", "inf", "--output", "1"], "'inf' is not a finite number"),
    (["prob", "--queries", "0", "--output", "1", "--threshold", "1/0"], "zero denominator"),
    (["prob", "--queries", "0", "--output", "1", "--query-scale", "-3"], "--query-scale: -3 must be >= 0"),
    (["prob", "--queries", "0,1", "--output", "3"], "outside 1..2"),
    (["prob", "--queries", "0,1", "--output", "0"], "outside 1..2"),
    (["prob", "--queries", "", "--output", "1"], "empty"),
    (["prob", "--queries", "1,,2", "--output", "1"], "entry 2"),
    (["prob", "--queries", "0", "--output", "1", "--digits", "2"], "--digits"),
    (["prob", "--queries", "0", "--output", "1", "--digits", "5000"], "--digits"),
    (["prob", "--queries", "__import__('os')", "--output", "1"], "not a finite number"),
    (["ratio", "--queries", "0,0", "--neighbour-queries", "0,2"], "exceeds the sensitivity"),
    (["ratio", "--queries", "0,0", "--neighbour-queries", "0"], "length"),
    (["prob", "--queries", "0", "--output", "1", "--noise", "gauss"], "invalid choice"),
])
def test_bad_input_one_line_exit_2(capsys, argv, needle):
    with pytest.raises(SystemExit) as exc:
        code = main(argv)
        raise SystemExit(code)
    assert exc.value.code == 2
    _, err = capsys.readouterr()
    assert needle in err
    assert err.count("\n") == 1 and "Traceback" not in err


@pytest.mark.slow
def test_console_script_bad_input_no_traceback():
    # a real process: ``python -m verify.cli.main`` (the module's own ``__main__`` block) as an entry point
    proc = subprocess.run([sys.executable, "-m", "verify.cli.main", "prob", "--queries", "1e9999", "--output", "1"],
                          capture_output=True, text=True)
    assert proc.returncode == 2
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_negative_values_after_flags(capsys):
    """``--neighbour-queries -1,-1`` is a value, not an option (failed before the fix)."""
    code, out, err = run_cli(capsys, "ratio", "--queries", "0,0", "--neighbour-queries", "-1,-1", "--threshold", "-1/2", "--json")
    assert code == 0, err
    assert json.loads(out)["neighbour_queries"] == ["-1", "-1"]


def test_ratio_exactly_at_the_bound_is_flagged():
    """Mechanism Two, q(D) = (0,0), q(D') = (Δ,-Δ), s_2: the ratio is exactly e^ε
    (symbolic check below); numerically it is flagged at_bound, within bounds."""
    import sympy

    from verify.probabilities import DELTA, EPSILON, symbolic_distribution

    m = AboveThreshold.mechanism_two(1)
    rep = privacy_ratio(m, [0, 0], [1, -1], outputs=[2], digits=40)
    assert rep.outputs[0].at_bound and rep.outputs[0].within_bounds
    p = symbolic_distribution(m, [0, 0], symbolic_parameters=True)[1]
    pn = symbolic_distribution(m, [1, -1], symbolic_parameters=True)[1]
    assert sympy.simplify(p / pn - sympy.exp(EPSILON)) == 0
    assert DELTA not in (p / pn).free_symbols


def test_ratio_is_thread_safe():
    """mpmath's precision is process-global; concurrent privacy_ratio calls from
    threads must still return 40 correct digits (failed before verify.precision:
    a thread's workdps block lowered the precision under another thread)."""
    from concurrent.futures import ThreadPoolExecutor

    m = AboveThreshold.mechanism_one(Fraction(1, 3))
    pairs = [([j, -j, 1], [j + 1, -j - 1, 0]) for j in range(8)]
    serial = [[mpmath.nstr(o.log_ratio, 40) for o in privacy_ratio(m, q, qn, digits=40).outputs] for q, qn in pairs]
    with ThreadPoolExecutor(4) as ex:
        for _ in range(3):
            threaded = list(ex.map(lambda p: [mpmath.nstr(o.log_ratio, 40) for o in privacy_ratio(m, *p, digits=40).outputs], pairs))
            assert threaded == serial
