"""Sequential stopping: the audit samples the general pairs, then the sensitive rows, and stops at the
first confirmed deviation.  Stopping cannot change the verdict (``deviates`` needs one confirmed
rejection, whatever the rest show; every pair keeps its own seeds), so the error rates are those of the full
audit: checked seed by seed against ``sequential=False``, at a large false-alarm rate (0.3) so that
rejections, confirmed or not, occur among the seeds.

The two audits of a seed hand the implementation the same generators wherever they sample the same pair (that
is what is checked), so each test's batch sampler is wrapped in `_Remembered`: a chunk asked again with the same
queries, size and generator state gets the outcomes the sampler gave for it (a batch sampler is a function of
these), and a chunk given any other generator is sampled afresh.  The full audit thus re-uses the sequential
audit's chunks instead of drawing them a second time (about half the test's CPU); the counts, tests and verdicts
are the ones the two audits would compute without it."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from verify.audit import audit, from_batch
from verify.audit.core import _stages
from verify.audit.pairs import Pair, PairKind
from verify.audit.shaped_examples import letters, lyu1_batch
from verify.family.presets import preset
from verify.verdicts import AuditVerdict

LYU1 = preset("lyu-1", cutoff=2)


def _lyu1_wide_threshold(queries, rng, n):
    """lyu-1 (c = 2) with threshold noise Lap(2.6) instead of Lap(2): a bug the audit catches only sometimes at
    small sample sizes."""
    q = np.asarray(queries, dtype=float)
    above = q[None, :] + rng.laplace(0.0, 8.0, (n, len(q))) >= rng.laplace(0.0, 2.6, n)[:, None]
    halted = np.cumsum(above, axis=1) >= 2
    length = np.where(halted.any(axis=1), halted.argmax(axis=1) + 1, len(q))
    return letters(above, length)


wide_threshold = from_batch(_lyu1_wide_threshold)


class _Remembered:
    """``fn(queries, rng, n)`` remembered by (queries, n, the generator's state): the outcomes ``fn`` gives for them
    (module docstring).  Every chunk gets a fresh generator from its own seed, so the state identifies the chunk's draws."""

    def __init__(self, fn: Callable[[np.ndarray, np.random.Generator, int], list[str]]) -> None:
        self.fn = fn
        self.seen: dict[tuple, list[str]] = {}
        self.sampled = 0

    def __call__(self, queries: np.ndarray, rng: np.random.Generator, n: int) -> list[str]:
        key = (tuple(np.asarray(queries, dtype=float).tolist()), n, repr(rng.bit_generator.state))
        if key not in self.seen:
            self.seen[key] = self.fn(queries, rng, n)
            self.sampled += n
        return list(self.seen[key])


def test_stages_are_the_general_pairs_then_the_sensitive_rows():
    p = [Pair("w", PairKind.WORST, (0.0,), (1.0,)), Pair("s1", PairKind.SENSITIVE, (0.0,), (0.0,), 900),
         Pair("r", PairKind.RANDOM, (0.0,), (1.0,)), Pair("s2", PairKind.SENSITIVE, (1.0,), (1.0,), 300),
         Pair("s3", PairKind.SENSITIVE, (2.0,), (2.0,), 900)]
    assert _stages(p, 500) == [[0, 2], [1, 3, 4]]
    assert _stages(p[:1], 500) == [[0]]


@pytest.mark.parametrize("sampler", [lyu1_batch, wide_threshold], ids=["correct", "threshold-scale-1.3"])
def test_stopping_early_gives_the_full_audits_verdict_seed_by_seed(sampler):
    remembered = _Remembered(sampler.fn)
    impl = from_batch(remembered)
    verdicts = []
    for seed in range(12):
        kw = dict(target_tv=0.3, false_alarm=0.3, seed=seed, random_pairs=2, identify=False)
        seq, full = audit(impl, LYU1, **kw), audit(impl, LYU1, sequential=False, **kw)
        assert seq.verdict is full.verdict, seed
        by_label = {r.pair.label: [t.p_value for t in r.tests] for r in full.pairs}
        for r in seq.pairs:  # the pairs it sampled: the same seeds, the same counts, the same tests
            assert [t.p_value for t in r.tests] == by_label[r.pair.label]
        if any("stopped at the first confirmed deviation" in n for n in seq.notes):
            assert seq.verdict is AuditVerdict.DEVIATES and len(seq.pairs) < len(full.pairs)
        else:
            assert len(seq.pairs) == len(full.pairs)
        verdicts.append(seq.verdict)
    if sampler is wide_threshold:  # the seeds exercise both an early stop and a full run
        assert AuditVerdict.DEVIATES in verdicts
    assert remembered.sampled > 0 and len(remembered.seen) > 0
