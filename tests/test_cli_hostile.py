"""Hostile input to every command: one test per item of the issue, each failed before the fix.

Every refusal is exit status 2 with exactly one line on stderr and no traceback.
Network tests use listeners on 127.0.0.1 only; each listener stops itself.
"""

from __future__ import annotations

import io
import json
import os
import socket
import struct
import sys
import threading
import time
from contextlib import contextmanager
from fractions import Fraction

import pytest

from verify.cli import flags, limits
from verify.cli.flags import Flag, Store
from verify.cli.main import MAX_MESSAGE, build_parser, main

HUGE = "9" * 100_000


def run(capsys, argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def assert_refused(code, err, *needles):
    assert code == 2, err
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert "Traceback" not in err
    assert len(err) <= MAX_MESSAGE + 60
    for n in needles:
        assert n in err, (n, err)


def _subcommands():
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(getattr(a, "choices", None), dict))
    return sub.choices


def _value_flags():
    """(command, flag) for every flag of every command that takes a value."""
    out = []
    for name, p in _subcommands().items():
        for a in p._actions:
            if a.option_strings and a.nargs != 0 and a.option_strings[0] not in ("-h", "--help"):
                out.append((name, a.option_strings[-1]))
    return out


VALUE_FLAGS = _value_flags()


def test_every_flag_goes_through_the_parsing_layer():
    """Every value of every command is parsed by a verify.cli.flags.Flag (a new flag too)."""
    assert len(VALUE_FLAGS) > 50
    for name, p in _subcommands().items():
        for a in p._actions:
            if a.option_strings and a.nargs == 0:
                continue
            if a.option_strings and a.option_strings[0] == "-h":
                continue
            assert isinstance(a, Store) and isinstance(a.flag, Flag), (name, a)
    p = build_parser()
    with pytest.raises(TypeError, match="verify.cli.flags.Flag"):
        p.add_argument("--new", type=int)
    new = p.add_argument("--new-text")
    assert new.flag is flags.TEXT


# 1. ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("command, flag", VALUE_FLAGS)
def test_100000_character_values_refused(capsys, command, flag):
    code, _, err = run(capsys, [command, f"{flag}={HUGE}"])
    assert_refused(code, err, flag)


@pytest.mark.parametrize("argv", [["proofs", HUGE], [HUGE], ["prob", "--" + HUGE], ["--"], ["--", "prob"], ["-x"]])
def test_huge_positional_and_unknown_tokens(capsys, argv):
    code, _, err = run(capsys, argv)
    assert_refused(code, err)


# 2. ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("command, flag", VALUE_FLAGS)
def test_flag_equals_double_dash_refused(capsys, command, flag):
    code, _, err = run(capsys, [command, f"{flag}=--"])
    assert_refused(code, err, flag)


# 3. ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("argv", [
    ["sweep", "--epsilons=1e999"], ["sweep", "--epsilons=1e-999"], ["sweep", "--epsilons=1,1e51"],
    ["sweep", "--random", "10", "--resolution=1e999"], ["sweep", "--random", "10", "--resolution=1e-999"],
    ["sweep", "--conditional", "--gap-max=1e999"], ["sweep", "--conditional", "--gap-query=-1e999"],
    ["prob", "--queries", "1e999", "--output", "1"], ["prob", "--epsilon", "1e-51", "--queries", "0", "--output", "1"],
    ["certify", "--epsilon-range", "1:1e999"], ["report", "--epsilon", "1e999"],
])
def test_huge_and_tiny_magnitudes_refused_with_the_bound(capsys, argv):
    code, _, err = run(capsys, argv)
    assert_refused(code, err, "1e50")


def test_magnitudes_at_the_bound_are_supported(capsys):
    """q = (1e50, -1e50), Lap(3) noise: s_2 needs both noises beyond ~1e50, so log Pr = -2e50/3 to leading order."""
    code, out, err = run(capsys, ["prob", "--queries", "1e50,-1e50", "--threshold", "1e-50", "--output", "2", "--json"])
    assert code == 0, err
    logp = json.loads(out)["log_probability"]
    assert logp.startswith("-6.666666666666666") and logp.endswith("e+49")


# 4. ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("value", ["0", "-1", "1/3", "1,1", "2,1", "1,2,3", ",", "1,"])
def test_random_range_needs_two_increasing_numbers(capsys, value):
    code, _, err = run(capsys, ["sweep", "--random", "10", f"--random-range={value}"])
    assert_refused(code, err, "--random-range")


# 5. ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("command, flag", VALUE_FLAGS)
def test_empty_values_refused(capsys, command, flag):
    code, _, err = run(capsys, [command, f"{flag}="])
    assert_refused(code, err, flag)
    assert "empty" in err or "invalid choice" in err


@pytest.mark.parametrize("path", ["", " ", "/nonexistent-folder/x.csv", "."])
def test_csv_path_checked_before_the_run(capsys, path):
    code, _, err = run(capsys, ["sweep", "--k", "1", "--workers", "1", "--csv", path])
    assert_refused(code, err, "--csv")


# 6. ------------------------------------------------------------------------------------------------
@contextmanager
def listener(reply: bytes | None):
    """A TCP listener on 127.0.0.1 that sends ``reply`` (or nothing) to every connection and never
    answers further; closed (and its thread joined) on exit."""
    srv = socket.socket()
    srv.bind(("127.0.0.1", 0))
    srv.listen(8)
    srv.settimeout(0.2)
    stop = threading.Event()
    conns = []

    def serve():
        while not stop.is_set():
            try:
                c, _ = srv.accept()
            except OSError:
                continue
            conns.append(c)
            if reply:
                c.sendall(reply)

    t = threading.Thread(target=serve, daemon=True)
    t.start()
    try:
        yield f"tcp://127.0.0.1:{srv.getsockname()[1]}"
    finally:
        stop.set()
        t.join(5)
        for c in conns:
            c.close()
        srv.close()


@pytest.fixture
def short_timeout(monkeypatch):
    import verify.parallel

    monkeypatch.setattr(verify.parallel, "SCHEDULER_TIMEOUT", 1.0)
    return 1.0


@pytest.mark.parametrize("reply, needle", [
    (None, "within 1 s"),                                              # accepts, never answers
    (b"\xff" * 8, "not a Dask scheduler"),                             # 16 EiB header: refused, nothing allocated
    (b"HTTP/1.1 400 Bad Request\r\n\r\n", "not a Dask scheduler"),      # read as a 3.07 EiB frame by Dask (the issue)
    (struct.pack("<Q", 58), "within 1 s"),                             # a header, then silence
    (struct.pack("<QQQ", 16, 1, 2**62), "not a Dask scheduler"),       # a frame of 2^62 bytes declared
    (struct.pack("<QQ", 8, 2**40), "not a Dask scheduler"),            # 2^40 frames declared
])
def test_scheduler_that_is_not_dask_fails_in_one_line_within_the_timeout(capsys, short_timeout, reply, needle):
    with listener(reply) as address:
        t0 = time.monotonic()
        code, _, err = run(capsys, ["sweep", "--k", "1", "--workers", "1", "--scheduler", address])
        elapsed = time.monotonic() - t0
    assert_refused(code, err, "--scheduler", needle)
    assert elapsed < 10 * short_timeout  # hang guard: the probe's deadline is 1 s


def test_scheduler_refused_connection(capsys):
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    code, _, err = run(capsys, ["sweep", "--k", "1", "--scheduler", f"tcp://127.0.0.1:{port}"])
    assert_refused(code, err, "--scheduler", "cannot connect")


@pytest.mark.parametrize("address", ["127.0.0.1:8786", "tcp://", "tcp://:1", "tcp://a b:1", "tcp://h:0", "tcp://h:99999",
                                     "http://h:1", "tcp://h:1/x", "inproc://x", "tcp://h:١"])
def test_scheduler_address_validated(capsys, address):
    code, _, err = run(capsys, ["sweep", "--k", "1", "--scheduler", address])
    assert_refused(code, err, "--scheduler", "tcp://HOST:PORT")


def test_real_dask_scheduler_passes_the_probe(capsys, short_timeout):
    from dask.distributed import LocalCluster

    with LocalCluster(n_workers=0, processes=False, protocol="tcp://", host="127.0.0.1", dashboard_address=None) as cluster:
        assert cluster.scheduler_address.startswith("tcp://127.0.0.1:")
        code, _, err = run(capsys, ["sweep", "--k", "1", "--scheduler", cluster.scheduler_address])
        assert_refused(code, err, "no worker joined")  # the probe passed; no worker within 1 s
        cluster.scale(1)
        code, out, err = run(capsys, ["sweep", "--k", "1", "--scheduler", cluster.scheduler_address])
        assert code == 0, err
        assert "(dask tcp://127.0.0.1" in out and "verdict: consistent" in out


# 7. ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("argv", [["proofs", "--list"], ["ratio", "--queries", "0,0", "--neighbour-queries", "1,1", "--json"],
                                  ["sweep", "--k", "1", "--workers", "1", "--json"], ["worst-case", "--max-queries", "1"]])
@pytest.mark.slow  # integration: one forked process each
def test_closed_stdout_exits_quietly(argv):
    """The reader of stdout has gone (``| head -c1`` after it read): no traceback, status 141 as for ``cat``.  A process
    forked from this one (tests/forked_cli.py): stdout is a real pipe without reader, the interpreter's exit."""
    from forked_cli import run_cli

    r, w = os.pipe()
    os.close(r)
    try:
        proc = run_cli(argv, stdout=w, timeout=300, cwd=os.getcwd())
    finally:
        os.close(w)
    assert proc.stderr == ""
    assert proc.returncode == 141


# 8. ------------------------------------------------------------------------------------------------
def _queries(k):
    return ",".join(str(Fraction(j % 13 - 6, 3)) for j in range(k))


@pytest.mark.parametrize("argv, needle", [
    (["prob", "--method", "symbolic", "--queries", _queries(limits.PROB_MAX_QUERIES["symbolic"] + 1), "--output", "1"],
     f"limit of {limits.PROB_MAX_QUERIES['symbolic']}"),
    (["prob", "--method", "symbolic", "--queries", _queries(50), "--output", "1"], "limit"),
    (["prob", "--method", "mpmath", "--queries", _queries(1000), "--output", "1"], "limit"),
    (["prob", "--method", "fast", "--queries", _queries(limits.PROB_MAX_QUERIES["fast"] + 1), "--output", "1"], "limit of 1000"),
    (["ratio", "--queries", _queries(1000), "--neighbour-queries", _queries(1000)], "limit"),
    (["prob", "--queries", _queries(10_001), "--output", "1"], "at most 10000"),
    (["worst-case", "--max-queries", "64"], f"from 1 to {limits.WORST_CASE_MAX_QUERIES}"),
    (["sweep", "--random", "1000000000"], f"{limits.SWEEP_MAX_RANDOM}"),
    (["sweep", "--random", "10000000"], "points"),
    (["sweep", "--k", "10"], "points"),
    (["sweep", "--conditional", "--kappa-steps", "1001", "--delta-steps", "1001"], "points"),
    (["sweep", "--query-values", "0:1000:1/100"], "at most 10000"),
    (["sweep", "--max-violations", "100000"], f"from 0 to {limits.SWEEP_MAX_LISTED}"),
    (["sweep", "--workers", "256"], f"from 1 to {limits.MAX_WORKERS}"),
    (["report", "--max-queries", "64"], f"from 1 to {limits.REPORT_MAX_QUERIES}"),
    (["report", "--epsilon", "1e-9"], "--epsilon"), (["report", "--epsilon", "301"], "--epsilon"),
    (["worst-case", "--epsilon", "1e50", "--max-queries", "1"], "below Δ/100"),
    (["worst-case", "--threshold-absolute-scale", "0.001", "--max-queries", "1"], "below Δ/100"),
    (["sweep", "--epsilons", "1e-10", "--k", "3"], "re-evaluated"),
])
def test_sizes_beyond_the_limits_refused_up_front(capsys, argv, needle):
    t0 = time.monotonic()
    code, _, err = run(capsys, argv)
    assert_refused(code, err, needle)
    assert time.monotonic() - t0 < 30  # refused before any work (hang guard, not a speed target)


class _Terminal(io.StringIO):
    def isatty(self):
        return True


@pytest.mark.parametrize("argv, desc", [
    (["prob", "--queries", "0,1", "--output", "1"], "prob (mpmath, k = 2)"),
    (["ratio", "--queries", "0", "--neighbour-queries", "1"], "ratio (k = 1)"),
    (["sweep", "--k", "1", "--workers", "1"], "sweep (outputs)"),
    (["worst-case", "--max-queries", "1"], "worst-case"),
])
def test_progress_bar_on_a_terminal(monkeypatch, capsys, argv, desc):
    term = _Terminal()
    monkeypatch.setattr(sys, "stderr", term)
    assert main(argv) == 0
    assert desc in term.getvalue()
    capsys.readouterr()


# 9. ------------------------------------------------------------------------------------------------
@pytest.mark.parametrize("argv", [
    ["prob", "--queries", "0", "--output", "1", "--epsilon", "١"],
    ["prob", "--queries", "١,٢", "--output", "1"],
    ["prob", "--queries", "0,1", "--output", "١"],
    ["prob", "--queries", "0", "--output", "1", "--digits", "١٢"],
    ["prob", "--queries", "0", "--output", "1", "--digits", "１２"],  # fullwidth
    ["sweep", "--k", "١"], ["sweep", "--random", "١٢"], ["sweep", "--seed", "٣"], ["sweep", "--query-values", "0:٢:1"],
    ["worst-case", "--max-queries", "١٢"], ["report", "--max-queries", "١"], ["certify", "--epsilon-range", "١:٢"],
])
def test_non_ascii_digits_refused(capsys, argv):
    code, _, err = run(capsys, argv)
    assert_refused(code, err, "ASCII")


def test_duplicated_flags_last_wins(capsys):
    code, out, err = run(capsys, ["prob", "--queries", "5", "--queries", "0", "--output", "1", "--json"])
    assert code == 0, err
    assert '"queries": [\n    "0"\n  ]' in out


# the library refuses the same values from Python (items 3 and 4) ------------------------------------
_BIG, _TINY = Fraction(10**999), Fraction(1, 10**999)


@pytest.mark.parametrize("kwargs, needle", [
    (dict(epsilons=(_BIG,)), "1e150"), (dict(epsilons=(_TINY,)), "1e150"), (dict(epsilons=(float("inf"),)), "finite"),
    (dict(epsilons=5), "not a list"), (dict(query_values="1,2"), "not a list"),
    (dict(random_samples=10, random_range=(0,)), "give two"), (dict(random_samples=10, random_range=(-1,)), "give two"),
    (dict(random_samples=10, random_range=(Fraction(1, 3),)), "give two"), (dict(random_samples=10, random_range=0), "not a list"),
    (dict(random_samples=10, random_range=(1, 1)), "below"),
    (dict(random_samples=10, random_resolution=_BIG), "1e150"), (dict(random_samples=10, random_resolution=10**40), "larger than"),
    (dict(random_samples=10, random_resolution=Fraction(1, 10**40)), "2^40"),
    (dict(random_samples=10, random_range=(-10**40, 10**40)), "2^52"), (dict(query_values=(10**40,)), "2^52"),
    (dict(random_samples=10**30), "too large"), (dict(k=10**30), "from 1 to 64"), (dict(seed=-1), "seed"),
])
def test_grid_spec_refuses_bad_values_from_python(kwargs, needle):
    from verify.errors import InputError
    from verify.sweep import GridSpec

    with pytest.raises(InputError, match=needle.replace("^", r"\^")) as exc:
        GridSpec(**kwargs)
    assert "\n" not in str(exc.value)


@pytest.mark.parametrize("kwargs, needle", [
    (dict(gap_max=(_BIG,)), "1e150"), (dict(gap_max=(10**40,)), "2^52"), (dict(gap_query=(-(10**40),)), "2^52"),
    (dict(gap_max=(Fraction(1, 10**40),)), "2^40"), (dict(gap_query=3), "not a list"), (dict(kappas=(2,)), "outside"),
])
def test_conditional_grid_spec_refuses_bad_values_from_python(kwargs, needle):
    from verify.errors import InputError
    from verify.sweep import ConditionalGridSpec

    with pytest.raises(InputError, match=needle.replace("^", r"\^")):
        ConditionalGridSpec(**kwargs)


@pytest.mark.parametrize("value", [0, 65, 10**30, True, 1.5, "3"])
def test_worst_case_refuses_bad_max_queries_from_python(value):
    from verify.errors import InputError
    from verify.mechanism import AboveThreshold
    from verify.worstcase import worst_case

    with pytest.raises(InputError, match="max-queries"):
        worst_case(AboveThreshold.mechanism_one(1), max_queries=value)
