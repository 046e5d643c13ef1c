"""Every refuted claim's counterexample can be fed back into that claim's own ``check(**params)``.

The counterexample's parameters are exact strings (``p/q``); parsed with `verify.exact.parse_number`
(`verify.exact.parse_vector` for a comma-separated vector) they must be accepted by the claim's check,
which must refute the claim again with the identical parameters.  The refuted claims are
`test_proofs.EXPECTED_REFUTED` (tests/test_proofs.py fails if any other claim is refuted), so this file
checks only those claims (fast on its own).
"""

from __future__ import annotations

import pytest
from test_proofs import EXPECTED_REFUTED

from proofs.claim import ClaimVerdict
from verify.validate import parse_list, parse_number

REFUTED = sorted(EXPECTED_REFUTED)


def _parse(name: str, text: str):
    return parse_list(text, name) if "," in text else parse_number(text, name)


def test_there_are_refuted_claims() -> None:
    # the seed's known errors (tests/test_proofs.py derives them by hand): the loop below must not be vacuous
    assert len(REFUTED) >= 10


@pytest.mark.parametrize("claim_id", REFUTED)
def test_counterexample_feeds_back_into_check(claim_id: str) -> None:
    from proofs import get_claim

    claim = get_claim(claim_id)
    cx = claim.check().evidence.counterexample
    assert cx is not None and cx.confirmed
    accepted = {name for name, _ in claim.parameters}
    assert set(cx.values) <= accepted, f"{claim_id}: counterexample names {sorted(set(cx.values) - accepted)} that check() refuses"
    again = claim.check(**{k: _parse(k, v) for k, v in cx.params})
    assert again.verdict is ClaimVerdict.REFUTED, f"{claim_id}: {again.method}"
    assert again.evidence.counterexample is not None
    assert again.evidence.counterexample.params == cx.params
    # and as the plain strings a user would paste
    assert claim.check(**cx.values).verdict is ClaimVerdict.REFUTED
