"""The one description of an outcome over query columns: what the generic fast path evaluates row by row.

`verify.engine.integrand.build` describes an outcome for one query vector in exact numbers:
per threshold draw a `Piece` of `Term` s (kind, x) with an optional cap and a zero flag, and the
constant densities (noise, y).  The float64 path (`verify.engine.fast_generic`) evaluates the same
description for many query vectors at once, so it needs each number as a formula in the
columns, q_j - t and the released values v_r.  `row_plan` reads those formulas off the
description, as `verify.engine.piecewise.column_plan` does for the halting outcomes:

* built once at a template, a_j = q_j - t = j + 1 and v_r = (r + 1)/(R + 2) (R released values,
  all in (0, 1)), a term's x is a_j (an integer) or a_j - v_r (between j and j + 1), and a
  constant's y is v_r - q_j: the columns are read from the numbers;
* built once more per released value, for the outcome's prefix that ends at its A, with v_r = -1
  (the others as before): if the last piece's cap becomes v_r - t, v_r caps that piece; if it
  becomes zero, the piece is zero when v_r < 0 (the description is built letter by letter);
* the plan so read is checked against a build at a second, unrelated point (a_j = 3(j+1)/2 + 1/7,
  v_r of both signs): every x, y, cap and zero flag must be what the plan predicts, or the
  outcome is refused (one line), so a description that is not of these forms is never misread.

A `RowPlan` is cached per (mechanism, k, outcome).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from verify.engine import integrand
from verify.engine.integrand import Piece, Term, TermKind
from verify.errors import InputError
from verify.mechanism import ABOVE, SparseVector
from verify.noise import Noise


@dataclass(frozen=True)
class PiecePlan:
    """One piece over columns: term c is ``kinds[c]`` at x = a[columns[c]] (- v[released[c]] where
    that is not None); the cap is the least v_r - t over ``caps`` (none if empty); the piece is 0
    on a row where some v_r, r in ``nonnegative``, is below 0."""

    kinds: tuple[TermKind, ...]
    columns: tuple[int, ...]
    released: tuple[int | None, ...]
    caps: tuple[int, ...]
    nonnegative: tuple[int, ...]


@dataclass(frozen=True)
class RowPlan:
    """An outcome over columns: the pieces, and the constants p_noise(v_r - q_j) as (noise, r, j)."""

    pieces: tuple[PiecePlan, ...]
    constants: tuple[tuple[Noise, int, int], ...]
    released: int

    def describe(self, a: list[Fraction], v: list[Fraction], t: Fraction) -> tuple[tuple[Piece, ...], tuple[tuple[Noise, Fraction], ...]]:
        """The description this plan predicts at a_j = q_j - t and values v (exact)."""
        pieces = []
        for p in self.pieces:
            terms = tuple(Term(kind, a[j] - (v[r] if r is not None else 0)) for kind, j, r in zip(p.kinds, p.columns, p.released))
            cap = min((v[r] - t for r in p.caps), default=None)
            pieces.append(Piece(terms, cap, any(v[r] < 0 for r in p.nonnegative)))
        return tuple(pieces), tuple((noise, v[r] - (a[j] + t)) for noise, r, j in self.constants)


def _column(x: Fraction, k: int, released: int) -> tuple[int, int | None] | None:
    """(j, r) with x = (j + 1) - [r is not None]·(r + 1)/(released + 2), or None."""
    top = math.ceil(x)
    j = top - 1
    if not 0 <= j < k:
        return None
    if x == top:
        return j, None
    r = (top - x) * (released + 2) - 1
    if r.denominator != 1 or not 0 <= r < released:
        return None
    return j, int(r)


@lru_cache(maxsize=256)
def row_plan(mech: SparseVector, k: int, outcome: str) -> RowPlan:
    """`RowPlan` of ``outcome`` for k queries, read from `verify.engine.integrand.build` (module docstring)."""
    n_r = outcome.count(ABOVE) if mech.releases_values else 0
    t = mech.threshold
    q = [t + j + 1 for j in range(k)]
    v = [Fraction(r + 1, n_r + 2) for r in range(n_r)]
    base = integrand.build(mech, q, outcome, v if mech.releases_values else None)

    def refuse(why: str) -> InputError:
        return InputError(f"fast path: outcome {outcome!r} of {mech.name}: {why}; its description is not over the query columns")

    constants = []
    for noise, y in base.constants:
        col = _column(-(y + t), k, n_r)
        if col is None or col[1] is None:
            raise refuse(f"a constant density at {y} is not p(v_r - q_j)")
        constants.append((noise, col[1], col[0]))
    columns: list[list[tuple[int, int | None]]] = []
    for piece in base.pieces:
        if piece.zero:
            raise refuse("a piece is zero at positive released values")
        cols = []
        for term in piece.terms:
            col = _column(term.x, k, n_r)
            if col is None:
                raise refuse(f"a term at {term.x} is neither q_j - t nor q_j - t - v_r")
            cols.append(col)
        columns.append(cols)
    caps: list[list[int]] = [[] for _ in base.pieces]
    nonneg: list[list[int]] = [[] for _ in base.pieces]
    above = [i for i, letter in enumerate(outcome) if letter == ABOVE]
    for r in range(n_r):
        # the description is built letter by letter: v_r acts on the last piece of the prefix ending at its A
        end = above[r] + 1
        moved = integrand.build(mech, q[:end], outcome[:end], [*v[:r], Fraction(-1)])
        if moved.pieces[-1].cap == -1 - t:
            caps[len(moved.pieces) - 1].append(r)
        if moved.pieces[-1].zero:
            nonneg[len(moved.pieces) - 1].append(r)
    plan = RowPlan(tuple(PiecePlan(tuple(term.kind for term in piece.terms), tuple(j for j, _ in cols), tuple(r for _, r in cols),
                                   tuple(cp), tuple(nn))
                         for piece, cols, cp, nn in zip(base.pieces, columns, caps, nonneg)),
                   tuple(constants), n_r)
    # the check at a second point: a misread form (x = a_j + v_r, a cap not a least v_r - t, ...) differs there
    a2 = [Fraction(3 * (j + 1), 2) + Fraction(1, 7) for j in range(k)]
    v2 = [Fraction((2 * r + 1) * (-1) ** r, 3) for r in range(n_r)]
    check = integrand.build(mech, [t + x for x in a2], outcome, v2 if mech.releases_values else None)
    if plan.describe(a2, v2, t) != (check.pieces, check.constants):
        raise refuse("the plan read at one point does not describe it at another")
    return plan
