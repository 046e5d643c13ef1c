"""`assert_implements`: one line in a library's own test suite.

    from verify.audit import assert_implements
    from verify.family.presets import preset

    def test_my_svt():
        assert_implements(my_svt, preset("lyu-1", cutoff=2))

The assertion fails only on ``deviates``, a rejection at level α/m (Bonferroni
over the m tests) confirmed by a re-run on fresh seeds: a correct
implementation fails it with probability at most α (the default 1e-3; in fact at
most α²/m, the two runs being independent).  With a fixed ``seed`` the outcome
is deterministic for a deterministic implementation, so the test is never
flaky.  ``undecided`` (a rejection not confirmed, or an interrupted run) fails
too, unless ``allow_undecided=True``: it is not a pass.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from verify.audit.core import DEFAULT_FALSE_ALARM, audit
from verify.audit.result import AuditResult
from verify.errors import InputError
from verify.mechanism import SparseVector
from verify.verdicts import AuditVerdict


def assert_implements(implementation: Callable[..., Any] | str, claimed: SparseVector, *, samples: int | None = None,
                      target_tv: float | None = None, false_alarm: float = DEFAULT_FALSE_ALARM, seed: int = 0,
                      allow_undecided: bool = False, **options: Any) -> AuditResult:
    """Audit and raise AssertionError (with the report) unless the implementation matches its claim.

    Defaults: samples chosen to detect a total variation of 0.1 with power 0.9 at each pair (``samples`` or
    ``target_tv``, not both); ``options`` go to `verify.audit.audit` (e.g. ``random_pairs``, ``workers``)."""
    if not isinstance(allow_undecided, bool):
        raise InputError(f"allow_undecided: {allow_undecided!r} must be True or False")
    if samples is None and target_tv is None:
        target_tv = 0.1
    res = audit(implementation, claimed, samples=samples, target_tv=target_tv, false_alarm=false_alarm, seed=seed, **options)
    failed = res.verdict is AuditVerdict.DEVIATES or (not allow_undecided and res.verdict is not AuditVerdict.MATCHES)
    if failed:
        raise AssertionError("\n".join([f"implementation does not sample {claimed.name}'s law: {res.verdict}"] + res.lines()))
    return res
