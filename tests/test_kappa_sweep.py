"""The κ sweep behind the κ-bound claims (`proofs.shared_checks.kappa_sweep`) works in hundredths (integers):
it must return what the same draws give in Fractions, the sweep as first written (kept here as the reference)."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from proofs.shared_checks import kappa_sweep


def _fraction_sweep(n: int, seed: int) -> tuple[int, Fraction, list]:
    rnd = random.Random(seed)
    worst, bad, total = Fraction(10**9), [], 0
    for m in range(1, 7):
        for _ in range(n):
            q = [Fraction(rnd.randint(-500, 500), 100) for _ in range(m)]
            shift = [Fraction(rnd.choice([-1, 1])) if rnd.random() < 0.5 else Fraction(rnd.randint(-100, 100), 100) for _ in range(m)]
            x = [Fraction(rnd.randint(-900, 900), 100) for _ in range(m)]
            M = max(a + b for a, b in zip(q, x))
            Mp = max(a + s + b for a, s, b in zip(q, shift, x))
            margin = 1 - abs(M - Mp)
            total += 1
            worst = min(worst, margin)
            if margin < 0 and len(bad) < 3:
                bad.append((q, shift, x))
    return total, worst, bad


@pytest.mark.parametrize("n, seed", [(0, 11), (1, 2), (200, 11), (200, 3)])
def test_the_sweep_in_hundredths_is_the_sweep_in_fractions(n: int, seed: int) -> None:
    assert kappa_sweep(n, seed) == _fraction_sweep(n, seed)


def test_the_default_sweep_margin_is_attained() -> None:
    total, worst, bad = kappa_sweep()
    assert (total, worst, bad) == (6000, Fraction(0), [])  # |κ| = Δ is reached (a shift of ±Δ on the maximum)
