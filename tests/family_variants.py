"""The variant builder the rule tests share: a `SparseVector` with absolute noise scales."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np

from verify.family import worstcase as wc
from verify.family.bounds import ProvenBound
from verify.family.structured import Layout, layouts
from verify.family.witness import FamilyWitness
from verify.mechanism import SparseVector
from verify.noise import NoiseSpec
from verify.verdicts import MechanismVerdict, Tightness


def variant(eps=Fraction(1, 10), delta=Fraction(1), t=Fraction(0), z=("laplace", 30), x=("laplace", 30), cutoff=1,
            policy="shared", release="none", y=None) -> SparseVector:
    """A variant with absolute noise scales (``z``, ``x``, ``y``: (family, scale))."""
    return SparseVector(Fraction(eps), Fraction(delta), Fraction(t), NoiseSpec(z[0], absolute=Fraction(z[1])),
                        NoiseSpec(x[0], absolute=Fraction(x[1])), cutoff=cutoff, threshold_policy=policy, release=release,
                        release_spec=None if y is None else NoiseSpec(y[0], absolute=Fraction(y[1])))


# --- shared by the rule tests of the verdict, tightness, search and witness (one copy each, formerly four) ---
def mp(x) -> mpmath.mpf:
    x = Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


@dataclass(frozen=True)
class FixedLoss(FamilyWitness):
    """A witness whose loss is the given mpf, or ``fixed()`` computed at the caller's working precision (a crafted
    input for a decision edge that holds at any precision)."""

    fixed: Any = None

    @property
    def loss(self) -> mpmath.mpf:
        return self.fixed() if callable(self.fixed) else self.fixed


def fixed(queries, loss, outcome="A") -> FixedLoss:
    q = tuple(Fraction(x) for x in queries)
    return FixedLoss(q, q, outcome, (), mpmath.mpf(1), mpmath.mpf(1), 50, loss)


def lay_of(s, has_b: bool, has_a: bool, k: int = 2):
    return next(lay for lay in layouts(s, k, every_k=True) if bool(lay.n_b) == has_b and bool(lay.n_a) == has_a)


def tightness(monkeypatch, s, lay, bound: Fraction, lr, moderate_loss, search: FixedLoss, unit=Fraction(30)):
    """Run `_tightness` on crafted inputs: the float64 loss of the moderate grid is ``lr(uu, vv, rr)``, a confirmed
    moderate point has loss ``moderate_loss``; the search's witness is ``search``.  Returns (result, grid, confirmed)."""
    grid, confirmed = [], []

    def ratio(shape, la, uu, vv, rr, sb, sa):
        grid.append((np.array(uu, float), np.array(vv, float), np.array(rr, float)))
        return np.asarray(lr(*grid[-1]), dtype=float)

    def witness(shape, p, unit_, digits=None):
        confirmed.append(p)
        q, qn, out, rel = p.pair(shape, unit_)
        return FixedLoss(q, qn, out, rel, mpmath.mpf(1), mpmath.mpf(1), 50, moderate_loss)

    monkeypatch.setattr(wc, "family_log_ratio", ratio)
    monkeypatch.setattr(wc, "_witness", witness)
    res = wc.FamilyWorstCase(s, False, 2, MechanismVerdict.PRIVATE, search, ProvenBound(bound, "crafted", "test"), None, False,
                             None, Tightness.LOOSE, "no tightness study")
    wc._tightness(s, res, wc._Point(0.0, lay, 0.0, 0.0, 0.0, 1.0, -1.0), unit, False, None)
    return res, grid, confirmed


def _w(loss: mpmath.mpf | int | Fraction, k: int = 1) -> FamilyWitness:
    """A witness with k queries whose confirmed loss is ``loss``: Pr = e^loss·Pr', Pr' = 1/4 (at 90 digits)."""
    with mpmath.workdps(90):
        pn = mpmath.mpf(1) / 4
        loss = mpmath.mpf(loss.numerator) / loss.denominator if isinstance(loss, Fraction) else mpmath.mpf(loss)
        return FamilyWitness((Fraction(0),) * k, (Fraction(1),) * k, "B" * (k - 1) + "A", (), pn * mpmath.exp(loss), pn, 50)


def _p(value: float, lay: Layout, tag: float = 0.0) -> wc._Point:
    """A search point of layout ``lay`` with float64 value ``value``; ``tag`` (its u) tells equal points apart."""
    return wc._Point(value, lay, tag, 0.0, 0.0, 1.0, -1.0)
