"""Property test (Hypothesis): hostile argument vectors for every command, run in-process.

For every generated vector: the exit status is 0, 2 or 130; nothing escapes
as an exception (no traceback); exit 2 writes exactly one line on stderr; the
case finishes within `CASE_SECONDS` of CPU time (a hang guard enforced by SIGPROF, not a
speed target).

Vectors mix valid small values, hostile values (empty, ``--``, huge and tiny
numbers, 5,000-digit numbers, non-ASCII digits, control characters, random
unicode), duplicated flags, missing required flags, stray
``--`` and unknown options.  Sizes: valid values are small, and hostile
integers are 0, negative or at least 10^6 (which the limits refuse), so that a
case never legitimately runs for long.  ``report`` and ``certify`` take
10-30 s whenever their input is valid, so their vectors always carry one value
that must be refused; ``worst-case`` (3-6 s when valid) does so in 19 of 20
vectors.  The assertion is the same for every vector.

Seeded (``derandomize``): the same vectors on every run.  Default
`DEFAULT_EXAMPLES` cases, split evenly over the commands (< 40 s on the
2-core CI machine); a larger run:
``SVT_FUZZ_EXAMPLES=2000 python -m pytest tests/test_cli_fuzz.py``.
"""

from __future__ import annotations

import contextlib
import io
import os
import shutil
import signal
import tempfile
import time
from decimal import Decimal
from fractions import Fraction

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from verify.cli.main import main

DEFAULT_EXAMPLES = 180
EXAMPLES = int(os.environ.get("SVT_FUZZ_EXAMPLES", DEFAULT_EXAMPLES))
COMMANDS = ["prob", "ratio", "sweep", "worst-case", "certify", "proofs", "report", "family", "delta"]
#: The examples are split evenly over the commands (each command is a separate seeded run).
EXAMPLES_PER_COMMAND = max(1, EXAMPLES // len(COMMANDS))
#: Hang guard per case (seconds of CPU time of this process).
CASE_SECONDS = 60

OUT_DIR = tempfile.mkdtemp(prefix="svt-fuzz-")

HOSTILE_TEXT = [
    "", " ", "--", "-", "-1", "0", "-0", "1/0", "0/0", "nan", "NaN", "inf", "-inf", "1e999", "1e-999", "-1e999",
    "1e50", "1e-50", "1e51", "1e-51", "1e1000", "1e1001", "١٢", "١", "１２", "٣/٤", "²", "9" * 5000, "1" * 1001, "0x10",
    "1_000", "1,", ",1", ",", ",,", ":", "1:2", "0:1:0", "1:0:1", "0:10000000:1", "1:2:3:4", "\x00", "\n", "a\nb", "é",
    "💥", "tcp://127.0.0.1:1", "tcp://127.0.0.1:0", "none", "all", "1.5", "+3", "  7  ", "1e3", "99999999999999999999",
    ".5", "5.", "1//2", "e5", "1e", "--json", "-h", "=", "'", '"', "\\", "$(id)", "__import__('os')", "1 2", "0,0,0,0,0,0,0,0,0,0,0,0",
]
NO_DIGITS = st.characters(blacklist_categories=("Nd", "Cs"))
HOSTILE = st.one_of(
    st.sampled_from(HOSTILE_TEXT),
    st.text(alphabet=NO_DIGITS, max_size=12),
    st.one_of(st.integers(max_value=0), st.integers(min_value=10**6)).map(str),  # refused by every integer flag's range
    st.builds(lambda a, b: f"{a}/{b}", st.integers(-(10**60), 10**60), st.integers(0, 10**60)),
    st.builds(lambda m, e: f"{m}e{e}", st.integers(-99, 99), st.integers(-2000, 2000)),
)
#: Values that every flag of report/certify/worst-case refuses.
MUST_REFUSE = st.sampled_from(["", "--", "١٢", "1e999", "abc", "9" * 2000, "\x00"])

SMALL_NUM = st.sampled_from(["0", "1", "-1", "1/2", "2", "0.25", "3", "-3/2", "1e-3", "10"])
POS_NUM = st.sampled_from(["1", "1/2", "2", "0.1", "3", "1e-3", "5"])
SMALL_LIST = st.lists(SMALL_NUM, min_size=1, max_size=3).map(",".join)
MECH_VALID = {
    "--noise": st.sampled_from(["laplace", "exponential"]),
    "--threshold-noise": st.sampled_from(["laplace", "exponential", "none"]),
    "--query-noise": st.sampled_from(["laplace", "exponential", "none"]),
    "--threshold-scale": st.sampled_from(["0", "1", "3", "1/2"]),
    "--query-scale": st.sampled_from(["0", "1", "3", "2"]),
    "--threshold-absolute-scale": st.sampled_from(["0", "1", "3"]),
    "--query-absolute-scale": st.sampled_from(["0", "1", "3"]),
    "--epsilon": POS_NUM, "--sensitivity": POS_NUM, "--threshold": SMALL_NUM,
}
VALID = {
    "prob": {**MECH_VALID, "--queries": SMALL_LIST, "--output": st.sampled_from(["1", "2", "3", "none"]),
             "--method": st.sampled_from(["symbolic", "mpmath", "fast"]), "--digits": st.sampled_from(["5", "15", "30", "60"])},
    "ratio": {**MECH_VALID, "--queries": SMALL_LIST, "--neighbour-queries": SMALL_LIST,
              "--output": st.sampled_from(["1", "2", "none", "all"]), "--digits": st.sampled_from(["5", "30", "50"])},
    "sweep": {**MECH_VALID, "--epsilons": st.lists(POS_NUM, min_size=1, max_size=2).map(",".join),
              "--k": st.sampled_from(["1", "2"]), "--query-values": st.sampled_from(["0", "-1,0,1", "-2:2:1", "0:1:1/2"]),
              "--random": st.sampled_from(["1", "5", "20"]), "--random-range": st.sampled_from(["-1,1", "0,5", "-6,6"]),
              "--resolution": st.sampled_from(["1/4", "1/64", "1"]), "--seed": st.sampled_from(["0", "7"]),
              "--shift-steps": st.sampled_from(["0", "2", "3"]), "--gap-max": st.sampled_from(["0", "-1,1", "0:1:1/2"]),
              "--gap-query": st.sampled_from(["0", "-1,0"]), "--kappa-steps": st.sampled_from(["1", "2", "3"]),
              "--delta-steps": st.sampled_from(["1", "3"]), "--workers": st.just("1"),
              "--scheduler": st.sampled_from(["tcp://127.0.0.1:1", "127.0.0.1:8786"]),
              "--chunk-size": st.sampled_from(["1000", "20000"]), "--max-violations": st.sampled_from(["0", "3"]),
              "--digits": st.sampled_from(["30", "35"]), "--csv": st.just(os.path.join(OUT_DIR, "s.csv"))},
    "worst-case": {**MECH_VALID, "--max-queries": st.sampled_from(["1", "2"])},
    "certify": {**MECH_VALID, "--epsilon-range": st.sampled_from(["1:2", "0.01:10"]), "--what": st.sampled_from(["ratio", "factors"])},
    "report": {"--epsilon": POS_NUM, "--max-queries": st.just("1"), "--workers": st.just("1")},
    "proofs": {},
    "family": {"--rows": st.sampled_from(["lyu-4:1", "lyu-5", "seed-m2", "lyu-3:2"]), "--max-queries": st.sampled_from(["1", "2"])},
    "delta": {"--variant": st.sampled_from(["lyu-1", "lyu-6", "seed-m1", "gaussian-svt"]), "--epsilon-prime": SMALL_NUM,
              "--epsilon": POS_NUM, "--threshold": SMALL_NUM, "--cutoff": st.sampled_from(["1", "2", "unlimited"]),
              "--queries": SMALL_LIST, "--neighbour-queries": SMALL_LIST, "--max-queries": st.just("1"),
              "--digits": st.sampled_from(["5", "20"]), "--plot": st.just(os.path.join(OUT_DIR, "d.png"))},
}
BOOL_FLAGS = {"prob": ["--json"], "ratio": ["--json"], "sweep": ["--json", "--conditional"], "worst-case": ["--json"],
              "certify": ["--json"], "report": ["--json", "--no-claims", "--no-family"], "proofs": ["--json", "--list"],
              "family": ["--json", "--monotone"], "delta": ["--json"]}
#: Flags every vector of the command starts with (each may be overridden later: the last one wins).
PREFIX = {"sweep": ["--k", "1", "--workers", "1"], "worst-case": ["--max-queries", "1"],
          "report": ["--no-claims", "--no-family", "--max-queries", "1", "--workers", "1"], "proofs": ["--list"],
          "family": ["--rows", "lyu-4:1", "--max-queries", "1"], "delta": ["--max-queries", "1"]}
REQUIRED = {"prob": ["--queries", "--output"], "ratio": ["--queries", "--neighbour-queries"], "delta": ["--variant", "--epsilon-prime"]}
CLAIM_IDS = st.sampled_from(["P1.chain.6", "M1.example.D", "U.tail_*", "P1.*", "*", "nothing-matches", "P[", "?"])


def _pair(draw, flag: str, value: str) -> list[str]:
    return [f"{flag}={value}"] if draw(st.booleans()) else [flag, value]


@st.composite
def argv(draw, command: str) -> list[str]:
    valid = VALID[command]
    out = [command, *PREFIX.get(command, [])]
    for flag in REQUIRED.get(command, []):
        if draw(st.integers(0, 9)) > 0:  # 1 in 10: the required flag is missing
            out += _pair(draw, flag, draw(valid[flag]))
    flags = sorted(valid) + BOOL_FLAGS[command]
    for _ in range(draw(st.integers(0, 5))):
        flag = draw(st.sampled_from(flags))
        if flag in BOOL_FLAGS[command]:
            out.append(flag)
            continue
        value = draw(valid[flag]) if draw(st.integers(0, 3)) < 3 else draw(HOSTILE)
        out += _pair(draw, flag, value)
    if command == "proofs":
        out += draw(st.lists(st.one_of(CLAIM_IDS, HOSTILE), max_size=3))
    if draw(st.integers(0, 5)) == 0:  # stray tokens: '--', an unknown option, a bare value
        junk = draw(st.sampled_from(["--", "--nope", "-x", "value", "--epsilon", "--queries=1", "-1"]))
        out.insert(draw(st.integers(1, len(out))), junk)
    must_refuse = command in ("report", "certify") or (command == "worst-case" and draw(st.integers(0, 19)) > 0)
    if must_refuse:
        flag = draw(st.sampled_from(sorted(valid)))
        out += _pair(draw, flag, draw(MUST_REFUSE))
    return out


class _Hang(Exception):
    pass


def _alarm(signum, frame):
    raise _Hang(f"case still running after {CASE_SECONDS} s of CPU time")


def run_case(args: list[str]) -> tuple[int, str, str, float]:
    """Run one vector in-process; the hang guard counts this process's CPU time (SIGPROF), not wall time, so
    that a machine loaded by other work does not pass for a hang."""
    out, err = io.StringIO(), io.StringIO()
    previous = signal.signal(signal.SIGPROF, _alarm)
    signal.setitimer(signal.ITIMER_PROF, CASE_SECONDS)
    t0 = time.process_time()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args))
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)
    return code, out.getvalue(), err.getvalue(), time.process_time() - t0


@pytest.fixture(scope="module", autouse=True)
def _clean_out_dir():
    yield
    shutil.rmtree(OUT_DIR, ignore_errors=True)


@pytest.mark.slow
@pytest.mark.parametrize("command", COMMANDS)
@settings(max_examples=EXAMPLES_PER_COMMAND, derandomize=True, deadline=None, database=None, print_blob=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])
@given(data=st.data())
def test_every_command_survives_hostile_argument_vectors(command, data):
    args = data.draw(argv(command), label="argv")
    code, _, err, seconds = run_case(args)
    event(f"{args[0]}: exit {code}")  # shown by --hypothesis-show-statistics
    assert code in (0, 2, 130), (code, err[-2000:])
    assert "Traceback" not in err
    if code == 2:
        assert err.count("\n") == 1 and err.endswith("\n"), err[-2000:]
    assert seconds < CASE_SECONDS


# --- magnitudes up to the accepted limit on `prob --method fast` ------------------------------------------------------
def _magnitude() -> st.SearchStrategy[str]:
    """A signed decimal m·10^e with |e| <= 50 (the parsing layer's whole range), or 0."""
    return st.one_of(st.just("0"), st.builds(lambda s, m, e: f"{s}{m}e{e}", st.sampled_from(["", "-"]),
                                             st.sampled_from(["1", "3", "7.5"]), st.integers(-50, 49)))


@pytest.mark.slow
@settings(max_examples=40, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(queries=st.lists(_magnitude(), min_size=1, max_size=3), threshold=_magnitude(), out=st.integers(1, 4))
def test_prob_fast_at_every_magnitude_agrees_with_mpmath(queries, threshold, out):
    """The fast path's promise on the command line: Pr <= 1, and |log Pr - log Pr(mpmath)| <= 1e-11 +
    2^-53·|log Pr| (a float64 log holds no more), for every accepted magnitude."""
    import json
    import math

    output = str(out) if out <= len(queries) else "none"
    base = ["prob", f"--queries={','.join(queries)}", f"--threshold={threshold}", "--output", output, "--json"]
    code, fast_out, err, _ = run_case(base + ["--method", "fast"])
    assert code == 0, err
    code, exact_out, err, _ = run_case(base + ["--digits", "20"])
    assert code == 0, err
    fast, exact = json.loads(fast_out), json.loads(exact_out)
    assert float(fast["probability"]) <= 1.0
    lf, le = float(fast["log_probability"]), float(exact["log_probability"])
    if math.isinf(le):
        assert lf == le
    else:
        assert abs(lf - le) <= 1e-11 + 2.0**-52 * abs(le), (queries, threshold, output, lf, le)


# --- the public Python API with wrong types and values -----------------------------------------------------------------
def _api_calls():
    """(name, function, valid positional arguments, keyword arguments) of the exported functions, each cheap when valid."""
    import numpy as np

    import verify

    m1 = verify.AboveThreshold.mechanism_one(1)
    lyu = verify.preset("lyu-1", cutoff=2)
    return [
        ("distribution", verify.distribution, [m1, [0, 1]], {"method": "mpmath", "digits": 20}),
        ("mp_distribution", verify.mp_distribution, [m1, [0, 1]], {"digits": 20}),
        ("symbolic_distribution", verify.symbolic_distribution, [m1, [0]], {}),
        ("probability", verify.probability, [m1, [0, 1], 1], {"method": "mpmath", "digits": 20}),
        ("fast_log_distribution", verify.fast_log_distribution, [m1, np.array([[0.0, 1.0]])], {}),
        ("mp_conditional", verify.mp_conditional, [m1, 0, 1], {"digits": 20}),
        ("privacy_ratio", verify.privacy_ratio, [m1, [0, 1], [1, 0]], {"digits": 20}),
        ("mp_probability", verify.mp_probability, [lyu, [0, 1], "AA"], {"digits": 20}),
        ("family_fast_log_probability", verify.family_fast_log_probability, [lyu, np.array([[0.0, 1.0]]), "AB"], {}),
        ("preset", verify.preset, ["lyu-1"], {"epsilon": 1, "threshold": 0}),
        ("sample", verify.sample, [m1, [0, 1], 100, 0], {}),
        ("exact_delta", verify.exact_delta, [m1, [0], [1], 0], {"digits": 20}),
        ("mechanism_one", verify.AboveThreshold.mechanism_one, [1], {"threshold": 0}),
        ("mechanism_two", verify.AboveThreshold.mechanism_two, [1], {"sensitivity": 1}),
    ]


WRONG = [None, "1", "abc", "", b"1", {}, {1: 2}, set(), {1}, [], [[]], [None], ["x"], (), object(), float("nan"), float("inf"),
         -1, 0, 10**100, -(10**100), 1e300, True, 1j, [1j], [float("nan")], [10**100], "0,1", Decimal("1"), Decimal("NaN"),
         Fraction(1, 3), Fraction(-1, 10**60), 2**63, [0] * 20_000]


@settings(max_examples=max(20, EXAMPLES // 6), derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_public_api_refuses_wrong_arguments_in_one_line(data):
    """Each exported function, one argument (positional or keyword) replaced by a wrong type or value: it
    returns, or raises `verify.errors.InputError` (a ValueError) with a one-line message; never another
    exception from deep inside (AttributeError, TypeError, KeyError, ZeroDivisionError, OverflowError, ...)."""
    from verify.errors import InputError

    calls = _api_calls()
    name, fn, args, kwargs = data.draw(st.sampled_from(calls), label="function")
    slots = [("arg", i) for i in range(len(args))] + [("kw", k) for k in kwargs]
    where = data.draw(st.sampled_from(slots), label="argument")
    value = data.draw(st.sampled_from(WRONG), label="value")
    args, kwargs = list(args), dict(kwargs)
    if where[0] == "arg":
        args[where[1]] = value
    else:
        kwargs[where[1]] = value
    event(f"api: {name}")
    previous = signal.signal(signal.SIGPROF, _alarm)
    signal.setitimer(signal.ITIMER_PROF, CASE_SECONDS)
    try:
        fn(*args, **kwargs)
    except InputError as e:
        assert "\n" not in str(e) and len(str(e)) <= 1000, (name, where, repr(value)[:80], str(e)[:300])
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, previous)


# --- every pair of mode-specific flags (sweep: grid, random and conditional modes) ---------------------------------------
MODE_FLAGS = {"--k": "1", "--query-values": "-1,0,1", "--shift-steps": "2", "--random": "3", "--random-range": "-1,1",
              "--resolution": "1/4", "--seed": "7", "--gap-max": "0", "--gap-query": "0", "--kappa-steps": "1",
              "--delta-steps": "1", "--conditional": None}


@settings(max_examples=max(20, EXAMPLES // 10), derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(pair=st.lists(st.sampled_from(sorted(MODE_FLAGS)), min_size=2, max_size=2, unique=True))
def test_every_pair_of_mode_specific_flags_is_applied_or_refused_naming_a_flag(pair):
    """Two flags of the sweep's modes together: the run completes, or one line names one of them (a flag is
    never silently dropped)."""
    args = ["sweep", "--workers", "1"]
    for flag in pair:
        args += [flag] if MODE_FLAGS[flag] is None else [flag, MODE_FLAGS[flag]]
    event(f"pair: {' '.join(pair)}")
    code, _, err, _ = run_case(args)
    assert code in (0, 2), err
    if code == 2:
        assert err.count("\n") == 1 and "Traceback" not in err, err
        assert any(f in err for f in pair), (pair, err)


# --- output destinations and encodings, as processes forked from this one ----------------------------------------------
def _process(args: list[str], stdout, env: dict) -> tuple[int, str]:
    """``svt-verify ARGS`` in a fork of this process (tests/forked_cli.py: real descriptors, the interpreter's streams
    for ``env`` and its exit; the imports inherited, not paid again per example)."""
    from pathlib import Path

    from forked_cli import run_cli, warm_up

    for cheap in CHEAP:  # their first run here: the children inherit what it loads
        warm_up(cheap)
    root = Path(__file__).resolve().parent.parent
    r = run_cli(args, cwd=root, stdout=stdout, env={**os.environ, **env}, timeout=300, text=False)
    return r.returncode, r.stderr.decode("utf-8", "replace")


CHEAP = [["prob", "--queries", "0,1/2", "--output", "2"], ["ratio", "--queries", "0", "--neighbour-queries", "1"],
         ["prob", "--variant", "lyu-1", "--queries", "0", "--outcomes", "A", "--json"], ["proofs", "--list"],
         ["sweep", "--k", "1", "--workers", "1"]]
DESTINATIONS = ["pipe", "full", "devnull", "csv-missing-folder", "csv-long-name", "plot-not-png"]


@pytest.mark.slow  # integration: one forked process per example (the in-process fuzz above stays quick)
@settings(max_examples=max(6, EXAMPLES // 100), derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(cmd=st.sampled_from(range(len(CHEAP))), dest=st.sampled_from(DESTINATIONS),
       encoding=st.sampled_from(["utf-8", "ascii", "latin-1"]))
def test_real_process_with_any_destination_and_encoding_exits_cleanly(cmd, dest, encoding):
    """The command as users run it (a process: tests/forked_cli.py): stdout to a pipe, a full device or /dev/null (closed descriptors: tests/test_cli_process.py); an output file in a
    missing folder or with a name over 255 bytes; ASCII or Latin-1 output encoding.  Exit 0 or 2, never a
    traceback, at most one line on stderr."""
    import subprocess

    args = list(CHEAP[cmd])
    stdout = subprocess.PIPE
    if dest == "full":
        if not os.path.exists("/dev/full"):
            return
        stdout = open("/dev/full", "w")  # noqa: SIM115 (closed below)
    elif dest == "devnull":
        stdout = subprocess.DEVNULL
    elif dest == "csv-missing-folder":
        args = ["sweep", "--k", "1", "--workers", "1", "--csv", os.path.join(OUT_DIR, "missing", "s.csv")]
    elif dest == "csv-long-name":
        args = ["sweep", "--k", "1", "--workers", "1", "--csv", os.path.join(OUT_DIR, "x" * 300 + ".csv")]
    elif dest == "plot-not-png":
        args = ["delta", "--variant", "lyu-1", "--epsilon-prime", "1", "--max-queries", "1", "--plot", os.path.join(OUT_DIR, "d.pdf")]
    event(f"destination: {dest}, encoding {encoding}")
    try:
        code, err = _process(args, stdout, {"PYTHONIOENCODING": encoding})
    finally:
        if dest == "full":
            stdout.close()
    assert code in (0, 2), err
    assert "Traceback" not in err, err
    assert err.count("\n") <= 1, err
    if dest in ("full", "csv-missing-folder", "csv-long-name", "plot-not-png"):
        assert code == 2, err


# --- discrete noise at hostile magnitudes, as processes (issue 32: hangs, memory, wrong δ) ----------------------------------
# Forked from this one (tests/forked_cli.py), with an address-space limit never looser than DISCRETE_CASE_BYTES on a
# fresh interpreter (forked_cli.address_space_limit).
DISCRETE_MAGNITUDE = st.sampled_from(["1e-50", "1e50", "0.01", "1/2", "300", "0", "-1e50", "1"])
DISCRETE_COMMANDS = {
    "prob": lambda m: ["prob", "--queries", f"{m},0", "--outcomes", "BA"],
    "delta": lambda m: ["delta", "--epsilon-prime", "1/2", f"--queries={m},0", f"--neighbour-queries={m},1"],
    "worst-case": lambda m: ["worst-case", "--max-queries", "2"],
}
DISCRETE_FLAGS = st.sampled_from(["--epsilon", "--threshold", "--sensitivity", "--threshold-absolute-scale",
                                  "--query-absolute-scale", "--queries"])
#: Wall-clock limit of one discrete case (the issue's bar: a correct answer or a refusal within 60 s, here with the
#: start-up of a process on a loaded machine on top) and its address-space limit (the failures were kills at GBs).
DISCRETE_CASE_SECONDS = 120
DISCRETE_CASE_BYTES = 3 * 1024**3


@pytest.mark.slow  # integration: one forked process per example
@settings(max_examples=max(6, EXAMPLES // 30), derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(command=st.sampled_from(sorted(DISCRETE_COMMANDS)), noise=st.sampled_from(["discrete-laplace", "discrete-gaussian"]),
       flag=DISCRETE_FLAGS, magnitude=DISCRETE_MAGNITUDE)
def test_discrete_noise_at_any_magnitude_answers_or_refuses_in_one_line(command, noise, flag, magnitude):
    """A discrete variant with one hostile magnitude (ε, t, Δ, a scale or a query): exit 0 or 2, one line on
    stderr at exit 2, no traceback, within `DISCRETE_CASE_SECONDS` and `DISCRETE_CASE_BYTES`, one process each."""
    from pathlib import Path

    from forked_cli import address_space_limit, run_cli, warm_up

    base = DISCRETE_COMMANDS[command]("0" if flag != "--queries" else magnitude)
    args = base + ["--noise", noise] + ([flag, magnitude] if flag != "--queries" else [])
    event(f"{command} {noise} {flag}")
    # a valid run of each command first, in this process (no memory limit here: not the hostile values), inherited
    for cmd in DISCRETE_COMMANDS.values():
        warm_up(cmd("0") + ["--noise", "discrete-laplace"])
    root = Path(__file__).resolve().parent.parent
    r = run_cli(args, cwd=root, timeout=DISCRETE_CASE_SECONDS, prepare=address_space_limit(DISCRETE_CASE_BYTES))
    assert r.returncode in (0, 2), (args, r.returncode, r.stderr[-1500:])
    assert "Traceback" not in r.stderr, (args, r.stderr[-1500:])
    if r.returncode == 2:
        assert r.stderr.count("\n") == 1, (args, r.stderr)
