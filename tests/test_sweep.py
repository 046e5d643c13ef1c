"""Grid sweeps (verify.sweep): decisions, witnesses, executors, CLI.

Reference values: the mpmath path (`verify.ratio.privacy_ratio`, 30 digits) and
sympy (Mechanism Two's ratio e^ε at q(D) = (0,0), q(D') = (Δ,-Δ), s_2).
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from fractions import Fraction

import mpmath
import pytest

from verify.cli.main import main
from verify.errors import InputError
from verify.mechanism import AboveThreshold
from verify.ratio import privacy_ratio
from verify.sweep import ConditionalGridSpec, GridSpec, conditional_sweep, sweep

M1 = AboveThreshold.mechanism_one(1)
M2 = AboveThreshold.mechanism_two(1)
LAP1 = AboveThreshold.with_noise("laplace", 1, threshold_multiplier=1, query_multiplier=1)
NO_Z = AboveThreshold.with_noise("laplace", 1, threshold_multiplier=0)
NO_X = AboveThreshold.with_noise("laplace", 1, query_multiplier=0)
SMALL = GridSpec(k=2, query_values=tuple(range(-4, 5)), chunk_size=97, max_listed_violations=5)


def _stable(result) -> dict:
    j = result.to_json()
    j.pop("seconds")
    j.pop("runner")
    return j


@pytest.mark.parametrize("mech", [M1, M2], ids=["mechanism one", "mechanism two"])
def test_seed_mechanisms_have_no_violation(mech):
    r = sweep(mech, GridSpec(k=3, query_values=tuple(range(-4, 5))), workers=1)
    assert r.complete and r.violation_count == 0 and r.verdict == "consistent"
    assert r.points == 9**3 * 27 * 4
    assert r.max_abs_log_ratio <= 1


def test_mechanism_two_sits_on_the_bound_and_is_not_reported_as_violation():
    r = sweep(M2, SMALL, workers=1)
    assert r.violation_count == 0
    j = r.to_json()
    assert j["at_bound"] > 0 and j["near_bound_reevaluated"] >= j["at_bound"]
    ex = j["at_bound_example"]
    with mpmath.workdps(40):
        assert abs(mpmath.mpf(ex["log_ratio"]).__abs__() - 1) < mpmath.mpf(10) ** -25
    # the known exact case (sympy: ratio e^ε), decided at 30 digits as "at the bound"
    w = privacy_ratio(M2, [0, 0], [1, -1], outputs=[2], digits=50).outputs[0]
    with mpmath.workdps(60):
        assert abs(w.log_ratio - 1) < mpmath.mpf(10) ** -45


@pytest.mark.parametrize("mech", [LAP1, NO_X], ids=["Lap(1Δ/ε)", "no query noise"])
def test_negative_controls_are_refuted_with_confirmed_witnesses(mech):
    r = sweep(mech, SMALL, workers=1)
    assert r.violation_count > 0 and r.verdict == "refuted"
    assert 0 < len(r.violations) <= 5
    from verify.cli.common import mp_str

    for v in r.violations:
        rep = privacy_ratio(mech, v.queries, v.neighbour_queries, outputs=[v.output], digits=30).outputs[0]
        with mpmath.workdps(40):
            assert abs(rep.log_ratio) > 1
        assert mp_str(rep.log_ratio, 30) == v.log_ratio


def test_no_query_noise_has_a_zero_probability_witness():
    r = sweep(NO_X, SMALL, workers=1)
    assert r.max_abs_log_ratio == mpmath.inf
    w = r.witness
    assert "0" in (w.probability, w.neighbour_probability)


def test_witness_reproduces_through_ratio_cli(capsys):
    r = sweep(LAP1, SMALL, workers=1)
    w = r.witness
    argv = ["ratio", "--threshold-scale", "1", "--query-scale", "1", "--queries", ",".join(str(x) for x in w.queries),
            "--neighbour-queries", ",".join(str(x) for x in w.neighbour_queries), "--output", str(w.output), "--json"]
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["outputs"][0]["log_ratio"] == w.log_ratio
    assert out["outputs"][0]["within_bounds"] is False


@pytest.mark.slow  # integration: a process pool and two Dask clusters (one of processes); the only test of that equality
def test_serial_pool_thread_and_dask_runs_are_identical():
    from dask.distributed import Client, LocalCluster

    spec = GridSpec(k=2, query_values=tuple(range(-3, 4)), chunk_size=50, epsilons=(Fraction(1), Fraction(1, 2)))
    serial = _stable(sweep(LAP1, spec, workers=1))
    assert _stable(sweep(LAP1, spec, workers=2)) == serial
    with ThreadPoolExecutor(3) as ex:
        assert _stable(sweep(LAP1, spec, executor=ex)) == serial
    with LocalCluster(n_workers=1, processes=False, threads_per_worker=2, dashboard_address=None) as cluster:
        with Client(cluster) as client:
            ex = client.get_executor()
            assert _stable(sweep(LAP1, spec, executor=ex)) == serial
        assert _stable(sweep(LAP1, spec, scheduler=cluster.scheduler_address)) == serial
    cspec = ConditionalGridSpec(gap_max=tuple(range(-3, 4)), gap_query=tuple(range(-3, 4)), chunk_size=40)
    cserial = _stable(conditional_sweep(M2, cspec, workers=1))
    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None) as cluster:
        assert _stable(conditional_sweep(M2, cspec, scheduler=cluster.scheduler_address)) == cserial
        assert _stable(sweep(LAP1, spec, scheduler=cluster.scheduler_address)) == serial


@pytest.mark.slow
def test_conditional_sweep_seed_bounds_and_negative_control():
    spec = ConditionalGridSpec()
    for mech in (M1, M2):
        r = conditional_sweep(mech, spec, workers=1)
        assert r.violation_count == 0
        # the conditional ratio reaches e^ε exactly (m, m-κ >= 0, d <= m: pure exponentials)
        assert abs(r.max_abs_log_ratio - 1) < 1e-25
    r = conditional_sweep(LAP1, spec, workers=1)
    assert r.violation_count > 0 and abs(r.max_abs_log_ratio - 3) < 1e-25  # Δ/b_Z + 2Δ/b_X = 3ε
    assert spec.n_first == len(spec.gap_query) * len(spec.deltas)


@pytest.mark.slow
def test_random_samples_are_seeded_and_independent_of_chunking():
    a = GridSpec(k=3, random_samples=300, seed=7, chunk_size=1000)
    b = GridSpec(k=3, random_samples=300, seed=7, chunk_size=77)
    ra, rb = sweep(M1, a, workers=1), sweep(M1, b, workers=1)
    assert ra.points == rb.points == 300 * 27 * 4
    assert ra.witness.to_json() == rb.witness.to_json()
    c = sweep(M1, GridSpec(k=3, random_samples=300, seed=8), workers=1)
    assert c.witness.to_json() != ra.witness.to_json()


def test_interrupt_returns_partial_result(monkeypatch):
    import verify.sweep.driver as sw

    real = sw.fold_chunk
    calls = {"n": 0}

    def fold(*a):
        calls["n"] += 1
        if calls["n"] == 3:
            raise KeyboardInterrupt
        real(*a)

    monkeypatch.setattr(sw, "fold_chunk", fold)
    r = sweep(M1, GridSpec(k=2, chunk_size=100), workers=1)
    assert not r.complete and r.chunks_done == 2 and r.points == 200 * 3


@pytest.mark.parametrize("kwargs, needle", [
    (dict(k=0), "number of queries"),
    (dict(shift_steps=1), "shift steps"),
    (dict(query_values=()), "grid is empty"),
    (dict(epsilons=(0,)), "epsilon"),
    (dict(random_samples=5, random_range=(1, 0)), "random range"),
    (dict(digits=20), "digits"),
    (dict(k=40, query_values=tuple(range(100))), "too large"),
])
def test_grid_spec_validation(kwargs, needle):
    with pytest.raises(InputError, match=needle):
        GridSpec(**kwargs)


def test_conditional_spec_rejects_kappa_outside_sensitivity():
    with pytest.raises(InputError, match="outside"):
        ConditionalGridSpec(kappas=(2,))


@pytest.mark.slow
def test_cli_json_csv_plot(tmp_path, capsys):
    csv_path, png = tmp_path / "s.csv", tmp_path / "s.png"
    assert main(["sweep", "--threshold-scale", "1", "--query-scale", "1", "--k", "2", "--query-values=-2:2:1",
                 "--workers", "1", "--json", "--csv", str(csv_path), "--plot", str(png)]) == 0
    out = json.loads(capsys.readouterr().out)
    for key in ("points", "violations", "max_abs_log_ratio", "max_abs_log_ratio_over_epsilon", "witness"):
        assert key in out
    assert out["points"] == 5**2 * 9 * 3 and out["violation_count"] > 0
    assert out["witness"]["output"] in (1, 2, "none")
    assert csv_path.read_text().startswith("kind,epsilon,output")
    assert png.stat().st_size > 10_000
    assert main(["sweep", "--conditional", "--noise", "exponential", "--gap-max", "-1,0,1", "--gap-query", "0:2:1", "--workers", "1"]) == 0
    assert "verdict: consistent" in capsys.readouterr().out


@pytest.mark.parametrize("argv, needle", [
    (["sweep", "--k", "0"], "--k"),
    (["sweep", "--query-values", "1:0:1"], "below"),
    (["sweep", "--query-values=-1:-2:1"], "below"),
    (["sweep", "--shift-steps", "1"], "shift steps"),
    (["sweep", "--epsilon", "-1"], "--epsilon"),
    (["sweep", "--plot", "x.pdf"], ".png"),
    (["sweep", "--scheduler", "tcp://127.0.0.1:1", "--k", "1"], "--scheduler"),
])
def test_cli_bad_input_one_line_exit_2(capsys, argv, needle):
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert needle in err and err.count("\n") == 1 and "Traceback" not in err


def test_confirmation_is_decided_at_full_precision_against_exact_epsilon():
    """verify.screen.classify: the sweep's old classifier took |log r| at the ambient 15 digits and ε as a
    double, so an excess of 1e-20 over ε = 1 counted as 'at the bound'; at 30 digits (tol 1e-25) it is a
    violation, and a value equal to ε = 3/10 to 30 digits is at the bound (not beyond the double 0.3)."""
    from verify.screen import Position, classify

    with mpmath.workdps(40):
        assert classify(mpmath.mpf(1) + mpmath.mpf("1e-20"), Fraction(1), 30) is Position.VIOLATION
        assert classify(mpmath.mpf(1) + mpmath.mpf("1e-27"), Fraction(1), 30) is Position.AT_BOUND
        assert classify(-(mpmath.mpf(3) / 10), Fraction(3, 10), 30) is Position.AT_BOUND
        assert classify(mpmath.mpf(3) / 10 - mpmath.mpf("1e-20"), Fraction(3, 10), 30) is Position.INSIDE
        assert classify(mpmath.inf, Fraction(1), 30) is Position.VIOLATION


def test_screen_orders_candidates_and_never_passes_nan():
    import numpy as np

    from verify.screen import first_violation, screen

    s = screen(np.array([[0.5, -2e-9], [np.nan, -0.5]]), 1.0)
    assert s.worst == 2 and s.candidates.tolist() == [2, 3, 1] and s.points == 4
    assert screen(np.array([-2e-9]), 5.0).candidates.tolist() == []  # within 1e-9·ε of the bound: not a candidate

    def confirm(c):
        return c, mpmath.mpf(c), Fraction(1)

    assert first_violation([0.5, 1.5, 2.0], confirm, 30).point == 1.5
    assert first_violation([0.5, 1.5], confirm, 30, limit=1) is None


def test_near_bound_confirmations_compute_each_query_vector_once_across_chunks(monkeypatch):
    """Mechanism Two attains e^ε on many points of a grid, each confirmed at 30 digits; a query vector is
    the first vector of some pairs and the neighbour of others, in several chunks, and each of its
    confirmed outputs is computed once per process (as a ball, `verify.sweep.balls.output_ball`, and by
    mpmath, `verify.sweep.outputs.exact_output`, where a ball does not settle), with the same verdicts and
    counts as a sweep in one chunk."""
    import verify.sweep.balls as sb
    import verify.sweep.outputs as so

    calls: list[tuple] = []
    balls: list[tuple] = []
    real, real_build = so.mp_probability, sb.build

    def counted(mech, queries, output, digits):
        calls.append((tuple(queries), output))
        return real(mech, queries, output, digits)

    def counted_build(mech, queries, outcome):
        balls.append((tuple(queries), outcome))
        return real_build(mech, queries, outcome)

    def clear():
        so.exact_output.cache_clear()
        sb.clear_output_balls()

    m = AboveThreshold.mechanism_two(1)
    spec = GridSpec(k=2, query_values=tuple(range(-2, 3)))
    clear()
    one = sweep(m, spec, workers=1)
    monkeypatch.setattr(so, "mp_probability", counted)
    monkeypatch.setattr(sb, "build", counted_build)
    clear()
    many = sweep(m, GridSpec(k=2, query_values=tuple(range(-2, 3)), chunk_size=7), workers=1)
    clear()
    assert one.per_epsilon[0].at_bound > 0
    assert [e.at_bound for e in many.per_epsilon] == [e.at_bound for e in one.per_epsilon]
    assert [e.violation_count for e in many.per_epsilon] == [e.violation_count for e in one.per_epsilon]
    assert len(calls) == len(set(calls)) and len(balls) == len(set(balls)) > 0
