"""The worst-case engine's decision rule and runtime guard (`verify.family.worstcase`), on every path.

The guard: a confirmed loss above the proven bound is a bug (RuntimeError).  Each test below stubs a wrong
(too small) bound so that exactly one kind of printed witness exceeds it (the search witness, a per-k row,
the tightness study's witness, a pushed point), and fails if the guard at that site is removed.  The
decision rule's edges (ε + tol, strict) are checked on exact losses.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction as F

import mpmath
import pytest

import verify.family.bounds as B
import verify.family.worstcase as W
from verify.family.bounds import ProvenBound, upper_bound_at
from verify.mechanism import AboveThreshold
from verify.verdicts import MechanismVerdict
from verify.worstcase import worst_case

M1 = AboveThreshold.mechanism_one(1)
M2 = AboveThreshold.mechanism_two(1)


def _stub_bounds(monkeypatch, printed: F, by_k=None):
    """The printed bound ``printed``; the bound for k queries ``by_k(k)`` (default: the printed one)."""
    pb = ProvenBound(printed, fmt := str(printed), f"stub {fmt}")
    monkeypatch.setattr(W, "proven_upper_bound", lambda shape, monotone=False: pb)
    monkeypatch.setattr(W, "upper_bound_at", lambda shape, k, monotone=False:
                        pb if by_k is None else ProvenBound(by_k(k), str(by_k(k)), "stub"))


def test_search_witness_above_the_bound_raises(monkeypatch):
    """Mechanism One's loss approaches 1; a bound 3/4 is wrong: the search witness exceeds it."""
    _stub_bounds(monkeypatch, F(3, 4))
    with pytest.raises(RuntimeError, match="of the witness exceeds the proven bound 0.75"):
        worst_case(M1, max_queries=3, starts=1, push_study=False)


def test_per_k_row_above_its_bound_raises(monkeypatch):
    """The printed bound 1 holds, but the bound stubbed for one query (1/10) is below the k = 1 row's loss
    (about 0.31): the row, not the search witness (at k >= 4), is caught."""
    _stub_bounds(monkeypatch, F(1), by_k=lambda k: F(1, 10) if k == 1 else F(1))
    with pytest.raises(RuntimeError, match=r"best (A|B) point exceeds the proven bound 0.1 for 1 queries"):
        worst_case(M1, max_queries=4, starts=1, push_study=False)


def test_tightness_witness_above_the_bound_raises(monkeypatch):
    """Mechanism Two attains 1 at q(D) = (0, 0), q(D') = (1, -1).  A bound 1 - 10^-40 passes the search
    witness (confirmed at 30 digits, tolerance 10^-25) but not the tightness study's 50-digit witness."""
    _stub_bounds(monkeypatch, 1 - F(1, 10**40))
    with pytest.raises(RuntimeError, match="tightness witness exceeds"):
        worst_case(M2, max_queries=2, starts=1)


def test_pushed_point_above_the_bound_raises(monkeypatch):
    """Mechanism One pushed to L = 384 comes within ~1e-25 of 1; a bound 1 - 10^-20 passes the search witness
    (gap about 2e-17) but not the push table's far points."""
    _stub_bounds(monkeypatch, 1 - F(1, 10**20))
    with pytest.raises(RuntimeError, match="pushed point"):
        worst_case(M1, max_queries=5)


def test_seed_path_has_a_bound_for_every_k_and_a_wrong_certificate_is_caught(monkeypatch):
    """On the seed's path with exponential noise the bound comes from the certificate; it holds for every
    number of queries (`upper_bound_at` is not None), so the guard runs there too: a wrong certificate
    (3/4 instead of 1) makes the confirmed loss 1 an error, not `not_private` beside a proven bound."""
    shape = M2
    assert all(upper_bound_at(shape, k).value == 1 for k in (1, 2, 5))
    monkeypatch.setattr(B, "_seed_bound", lambda s: (ProvenBound(F(3, 4), "3/4", "stub certificate"), None))
    with pytest.raises(RuntimeError, match="exceeds the proven bound 0.75"):
        worst_case(M2, max_queries=2, starts=1, push_study=False)


@dataclass(frozen=True)
class _Loss:
    loss: mpmath.mpf
    digits: int = 50


@pytest.mark.parametrize("bound, expected", [(None, MechanismVerdict.UNDECIDED), (F(1), MechanismVerdict.PRIVATE),
                                             (F(1) + F(1, 10**60), MechanismVerdict.UNDECIDED)])
def test_verdict_rule_edges(bound, expected):
    """not_private iff loss > ε + 10^-(digits-5)·max(1, ε) (strict, decided exactly); private iff a proven bound <= ε
    (not <).  ε + 10^-45 is not a binary rational: the points are 10^-70 either side of it (the strictness itself is
    tested in `tests/test_verdict_rules.py` at a representable edge)."""
    shape = M1
    pb = None if bound is None else ProvenBound(bound, "b", "stub")
    with mpmath.workdps(80):
        tol = mpmath.mpf(10) ** -45
        assert W.verdict_rule(shape, _Loss(1 + tol - mpmath.mpf(10) ** -70), pb) is expected  # below ε + tol
        assert W.verdict_rule(shape, _Loss(1 + tol + mpmath.mpf(10) ** -70), pb) is MechanismVerdict.NOT_PRIVATE
        assert W.verdict_rule(shape, _Loss(1 + 2 * tol), pb) is MechanismVerdict.NOT_PRIVATE
        assert W.verdict_rule(shape, _Loss(1 + 2 * tol, 30), pb) is expected  # 30 digits: tolerance 10^-25
