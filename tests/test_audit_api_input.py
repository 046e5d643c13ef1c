"""`verify.audit` in Python: bad arguments refused in one line, the implementation's failures as one
`ImplementationError` line, an unpicklable implementation run in one process with a note (issues 30, 32)."""

from __future__ import annotations

import pytest

from verify.audit import audit, load
from verify.audit.adapters import ImplementationError, parse_spec
from verify.audit.core import MAX_QUERIES_PER_PAIR, MAX_RUNS, MAX_SAMPLES
from verify.audit.examples import FIXTURES, claimed_variant, lyu1
from verify.cli import audit as audit_cli
from verify.errors import InputError
from verify.family.presets import preset
from verify.verdicts import AuditVerdict

LYU1 = claimed_variant(FIXTURES["lyu1"])
QUICK = {"samples": 100, "random_pairs": 0, "worst_pair": False}


def test_the_cli_limits_are_the_audits():
    assert (audit_cli.MAX_SAMPLES, audit_cli.MAX_QUERIES_PER_PAIR, audit_cli.MAX_RUNS) == (MAX_SAMPLES, MAX_QUERIES_PER_PAIR, MAX_RUNS)


@pytest.mark.parametrize("kwargs,words", [
    ({"target_tv": True}, "target total variation"),
    ({"target_tv": 0.1, "samples": 100}, "not both"),
    ({"samples": True}, "samples"),
    ({"samples": 10**9}, "100,000,000"),
    ({"false_alarm": True}, "false-alarm"),
    ({"target_tv": 1e-4}, "100,000,000"),
    ({"max_runs": 1000, "samples": 100}, "max-runs"),
])
def test_bad_arguments_are_refused(kwargs, words):
    with pytest.raises(InputError, match=words):
        audit(lyu1, LYU1, **{"random_pairs": 0, "worst_pair": False, **kwargs})


def test_a_cutoff_needing_more_queries_than_the_cap_names_the_flags():
    with pytest.raises(InputError, match="--queries-per-pair"):
        audit(lyu1, preset("lyu-1", cutoff=12), **QUICK)


def _raises(queries, rng):
    raise KeyError("gone")


def test_an_exception_inside_the_implementation_is_one_line_with_its_place():
    with pytest.raises(ImplementationError) as info:
        audit(_raises, LYU1, workers=1, **QUICK)
    msg = str(info.value)
    assert "\n" not in msg and "KeyError" in msg and "test_audit_api_input.py" in msg and "_raises" in msg


def test_an_unpicklable_implementation_runs_in_one_process_with_a_note():
    scale = 8.0

    def closure(queries, rng):  # a local function: cannot be pickled
        return lyu1(queries, rng) if scale else ""

    res = audit(closure, LYU1, workers=2, **QUICK)
    assert res.verdict is AuditVerdict.MATCHES
    assert any("cannot be pickled" in n and "one process" in n for n in res.notes), res.notes


def test_a_spec_runs_isolated_in_python_too():
    res = audit("verify.audit.examples:lyu1", LYU1, workers=1, **QUICK)
    assert res.verdict is AuditVerdict.MATCHES and res.implementation == "verify.audit.examples:lyu1"


@pytest.mark.parametrize("spec,words", [
    ("os.system('x')", "MODULE:CALLABLE"),
    ("a:b?x", "NAME=VALUE"),
    ("a:b?x=1&x=2", "each name once"),
    ("a:b?x=(1)", "number"),
    ("a\x00:b", "MODULE:CALLABLE"),
])
def test_bad_specs(spec, words):
    with pytest.raises(InputError, match=words):
        parse_spec(spec)


def test_spec_parameters_and_file_paths(tmp_path):
    s = parse_spec("dir/impl.py:fn?epsilon=0.5&c=2&flag=true&mode=fast")
    assert s.is_file and s.module == "dir/impl.py" and dict(s.parameters) == {"epsilon": 0.5, "c": 2, "flag": True, "mode": "fast"}
    path = tmp_path / "mine.py"
    path.write_text("def fn(queries, rng, c=1):\n    return 'A' * c\n")
    assert load(f"{path}:fn?c=2")(None, None) == "AA"


def test_load_wraps_a_module_that_fails_or_exits_at_import(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text("raise ValueError('at import')\n")
    with pytest.raises(ImplementationError, match="ValueError: at import"):
        load(f"{bad}:f")
    gone = tmp_path / "gone.py"
    gone.write_text("import sys\nsys.exit(0)\n")
    with pytest.raises(ImplementationError, match=r"sys.exit\(0\)"):
        load(f"{gone}:f")


def _global_state(queries, rng):
    import numpy as np

    return "A" if np.random.random() < 0.5 else "B" * len(queries)  # ignores rng


def test_an_implementation_ignoring_the_generator_is_refused():
    with pytest.raises(ImplementationError, match="same seed"):
        audit(_global_state, LYU1, workers=1, **QUICK)


_CALLS = [0]


def _same_counts_other_order(queries, rng):
    _CALLS[0] += 1  # ignores rng: A, B, A, B, ... for 200 calls, then B, A, B, A, ...
    c = _CALLS[0]
    return "A" if (c + (c > 200)) % 2 else "B" * len(queries)


def test_the_generator_check_compares_runs_in_order_not_only_counts():
    """Two chunks of the check with the same counts (100 A, 100 B) but in another order: an implementation
    ignoring its generator all the same.  Comparing counts alone let it through (as it lets a global-state coin
    through about 4 % of the time, 200 runs); the runs are compared in order."""
    _CALLS[0] = 0
    with pytest.raises(ImplementationError, match="same seed"):
        audit(_same_counts_other_order, LYU1, workers=1, **QUICK)


def test_from_vector_refuses_a_float_index_and_more_answers_than_queries():
    """`from_vector` neither truncates a float index (1.7 was read as 1) nor accepts more booleans than there
    are queries (the extra ones were dropped): both are a one-line InputError naming the value."""
    import numpy as np

    from verify.audit.adapters import from_vector

    q = np.array([1.0, -1.0, 2.0])
    with pytest.raises(InputError, match=r"index 1\.7 is not an integer"):
        from_vector(lambda qs, rng: [1.7], indices=True)(q, None)
    with pytest.raises(InputError, match="4 answers for 3 queries"):
        from_vector(lambda qs, rng: [True, False, True, True])(q, None)
    with pytest.raises(InputError, match="is not a boolean"):
        from_vector(lambda qs, rng: [1, 0, 1])(q, None)
    assert from_vector(lambda qs, rng: [np.int64(1)], indices=True)(q, None) == ("BAB", ())
    assert from_vector(lambda qs, rng: [True, False])(q, None) == ("AB", ())
