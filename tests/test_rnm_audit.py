"""The audit on Report Noisy Max: the model's own seeded sampler matches its law; a sampler at the wrong scale deviates.

False alarm: each audit's `matches` / `deviates` comes from the audit's own rule (false-alarm rate 1e-3 over all its
tests, Bonferroni, a rejection confirmed on fresh seeds); the runs are seeded, so each outcome here is fixed.
"""

import functools

import pytest

from verify.audit import audit
from verify.selection import sampler
from verify.selection.presets import selection_preset
from verify.verdicts import AuditVerdict


@pytest.mark.slow
def test_the_models_sampler_matches_its_law():
    m = selection_preset("statdp-noisy-max-v2a")
    r = audit(functools.partial(sampler.run, m), m, samples=3000, random_pairs=2, worst_pair=False, seed=3)
    assert r.verdict is AuditVerdict.MATCHES and len(r.pairs) == 5


@pytest.mark.slow
def test_half_the_noise_scale_deviates():
    m = selection_preset("statdp-noisy-max-v1a")
    bad = functools.partial(sampler.run, m.with_changes(scale=1))
    r = audit(bad, m, samples=5000, random_pairs=0, worst_pair=False, seed=1)
    assert r.verdict is AuditVerdict.DEVIATES


def test_outcome_alphabet_round_trip():
    assert [sampler.outcome_index(sampler.index_outcome(i, 5)) for i in range(5)] == list(range(5))
