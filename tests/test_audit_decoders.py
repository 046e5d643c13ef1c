"""Declared decoders for real code's returns (sentinel numbers, any value) and batch samplers.

The audits here are seeded; each has the audit's false-alarm rate 1e-3."""

from __future__ import annotations

import pickle
from collections import Counter

import numpy as np
import pytest

from verify.audit import audit, from_batch, from_decoder, from_sentinels
from verify.audit.adapters import ImplementationError, normalize
from verify.audit.sampling import Job, executor_mapper, run_chunk, run_jobs
from verify.audit.shaped_examples import lyu1_batch, lyu1_sentinels, numeric_svt_sentinels
from verify.errors import InputError
from verify.family.presets import preset
from verify.verdicts import AuditVerdict


def _fixed(values):
    def fn(queries, rng):
        return values
    return fn


def test_sentinels_decode_below_above_and_halted():
    adapter = from_sentinels(_fixed([0.0, 1.0, 0.0, -1.0, -1.0]), below=0.0, above=1.0, halted=-1.0)
    assert adapter(np.zeros(5), None) == ("BAB", ())
    assert from_sentinels(_fixed(np.array([0.0, 0.0])), below=0.0, above=1.0)(np.zeros(2), None) == ("BB", ())


def test_released_values_are_read_from_the_non_sentinel_entries():
    adapter = from_sentinels(_fixed([float("nan"), 2.5, float("nan"), -0.75]), below=float("nan"), releases=True)
    assert adapter(np.zeros(4), None) == ("BABA", (2.5, -0.75))


def test_a_below_sentinel_that_is_also_a_legal_value_must_be_declared():
    with pytest.raises(InputError, match="ambiguous"):
        from_sentinels(_fixed([0.0]), below=0.0, releases=True)
    adapter = from_sentinels(_fixed([0.0, 0.0, 3.0]), below=0.0, releases=True, ambiguous="below")
    assert adapter(np.zeros(3), None) == ("BBA", (3.0,))


@pytest.mark.parametrize("kwargs, rule", [({"below": 0.0}, "above"), ({"below": "x", "above": 1.0}, "must be a number"),
                                         ({"below": 0.0, "above": 1.0, "ambiguous": "guess"}, "ambiguous"),
                                         ({"below": 0.0, "above": 1.0, "releases": True}, "no above")])
def test_bad_sentinel_declarations_are_refused(kwargs, rule):
    with pytest.raises(InputError, match=rule):
        from_sentinels(_fixed([0.0]), **kwargs)


def test_an_undeclared_entry_is_an_implementation_failure():
    with pytest.raises(ImplementationError, match="none of the declared sentinels"):
        from_sentinels(_fixed([0.0, 7.0]), below=0.0, above=1.0)(np.zeros(2), None)


def _count_of_aboves_and_first(raw):
    return "".join(raw)


def test_a_declared_decoder_maps_any_return():
    adapter = from_decoder(_fixed(("B", "A")), _count_of_aboves_and_first)
    assert adapter(np.zeros(2), None) == "BA"


def test_adapters_pickle_by_reference():
    for adapter in (numeric_svt_sentinels, lyu1_sentinels, lyu1_batch):
        assert pickle.loads(pickle.dumps(adapter)) == adapter


@pytest.mark.parametrize("impl, variant", [(numeric_svt_sentinels, "numeric-svt"), (lyu1_sentinels, "lyu-1"), (lyu1_batch, "lyu-1")],
                         ids=["numerical-svt-sentinels", "lyu1-sentinels", "lyu1-batch"])
def test_correct_code_in_library_shapes_matches(impl, variant):
    res = audit(impl, preset(variant, cutoff=2), target_tv=0.1, seed=0, sensitive=False, random_pairs=2)
    assert res.verdict is AuditVerdict.MATCHES, "\n".join(res.lines())


def test_a_batch_sampler_is_called_once_per_chunk():
    calls = []

    def many(queries, rng, n):
        calls.append(n)
        return ["A"] * n

    tallies, _, _, _ = run_jobs(executor_mapper(from_batch(many), None), [Job((0, 0, 0), (0.0,), 12_000, False)], 0, False)
    assert calls == [5000, 5000, 2000] and tallies[(0, 0, 0)].counts == {"A": 12_000}


def _short_batch(queries, rng, n):
    return ["A"] * (n - 1)


def test_a_batch_of_the_wrong_length_is_refused():
    with pytest.raises(ImplementationError, match="returned 9 outcomes"):
        run_jobs(executor_mapper(from_batch(_short_batch), None), [Job((0, 0, 0), (0.0,), 10, False)], 0, False)


class _Cycle:
    """Returns ``raws[0], raws[1], ...`` in turn (one per call), counting the calls."""

    def __init__(self, raws):
        self.raws, self.calls = raws, 0

    def __call__(self, queries, rng):
        self.calls += 1
        return self.raws[(self.calls - 1) % len(self.raws)]


def _run_by_run(raws, releases, keep):
    """What a chunk counts, each run through `normalize` in turn (bare strings counted last, as the chunk does)."""
    counts, wrong, values, plain = Counter(), Counter(), [], Counter()
    for raw in raws:
        if type(raw) is str:
            plain[raw] += 1
            continue
        outcome, vals = normalize(raw)
        counts[outcome] += 1
        if len(vals) != (outcome.count("A") if releases else 0):
            wrong[outcome] += 1
        elif keep and vals:
            values.append(vals[0])
    for raw, c in plain.items():
        counts[raw] += c
        wrong[raw] += c if releases and "A" in raw else 0
    return counts, values, +wrong


@pytest.mark.parametrize("releases", [False, True])
def test_runs_returning_no_values_are_counted_as_normalize_reads_them(releases):
    """A run returning (outcome, ()), (outcome, []) or (outcome, None) is counted without `normalize` each time
    (`run_chunk`): the counts (in the order the outcomes first came), the released values and the runs with the wrong
    number of values are those of normalizing every run."""
    raws = [("BA", ()), ("A", [2.5]), ("BB", []), "BA", ("A", ()), ("BA", None), ("A", np.array([])), "A", ("BB", (1.0,))]
    impl = _Cycle(raws)
    counts, values, wrong, n, _, _, _ = run_chunk(impl, (0, Job((0, 0, 0), (0.0, 0.0), 90, True), 0, 90, releases))
    ref_counts, ref_values, ref_wrong = _run_by_run(raws * 10, releases, True)
    assert n == impl.calls == 90
    assert list(counts.items()) == list(ref_counts.items()) and values == ref_values and +wrong == ref_wrong


def test_a_malformed_outcome_with_no_values_is_refused_at_its_run():
    impl = _Cycle([("BA", ()), ("AX", ())])
    with pytest.raises(ImplementationError, match="returned 'AX'"):
        run_chunk(impl, (0, Job((0, 0, 0), (0.0, 0.0), 50, False), 0, 50, False))
    assert impl.calls == 2
