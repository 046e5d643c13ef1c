"""An output of the SVT family as a product of one-dimensional integrals.

Condition on the noisy threshold t + Z = t + z: the query noises are then
independent (seed, Proof 1: "Since the random variables Z, X_{i-1}, X_i are
independent"), and query i is above iff q_i + X_i >= t + z, i.e. iff
X_i >= z - a_i with a_i = q_i - t.  For an outcome string s (`model`):

    Pr[s] = ∫ p_Z(z) Π_{i: s_i = B} F_X(z - a_i) Π_{i: s_i = A} S_X(z - a_i) dz,

F(y) = Pr[X < y], S(y) = Pr[X >= y] (`verify.noise`).  With a resampled
threshold (Lyu, Su, Li 2017, Algorithm 2) a fresh Z is drawn after every A, so
the string splits after each A into *pieces*, each with its own Z, and the
probability is the product of one such integral per piece.

Released values turn an A's factor into a density (the output is then a
density in the released values, one per A), as the release rule's attributes
say (`verify.release.protocol`; the rule's name is never read):

* query (q_i + X_i = v): p_X(v - q_i) · [v >= t + z]: a constant times a cap z <= v - t;
* gap (q_i + X_i - (t + z) = g): p_X(z - (a_i - g)) for g >= 0 (0 for g < 0);
* fresh (q_i + Y_i = v): p_Y(v - q_i) · S_X(z - a_i): a constant times the usual factor.

`Integrand` holds exactly this: the pieces (each a list of `Term` s and an
optional cap) and the constant densities.  Every evaluation path
(`closed_form`, `quadrature`, `fast`) integrates this one description.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from functools import cached_property

from verify.integer_rules import refuse_discrete
from verify.mechanism import ABOVE, SparseVector, ThresholdPolicy, parse_queries
from verify.noise import Noise
from verify.release.protocol import TermKind


class Kind(StrEnum):
    """What the number is: a probability, or a density in the released values."""

    PROBABILITY = "probability"
    DENSITY = "density"


@dataclass(frozen=True)
class Term:
    """One factor of the integrand, a function of z; ``x`` is exact, relative to t."""

    kind: TermKind
    x: Fraction

    def __hash__(self) -> int:
        return self._hash

    @cached_property
    def _hash(self) -> int:
        """The dataclass's hash, hash((kind, x)), once per term (the closed form's trie hashes shared terms often)."""
        return hash((self.kind, self.x))

    @cached_property
    def size(self) -> Fraction:
        """|x|, once per term (`Piece.reach`; the halting outcomes share their F terms)."""
        return abs(self.x)


@dataclass(frozen=True)
class Piece:
    """∫_{z <= cap} p_Z(z) Π terms dz for one draw of the threshold noise
    (``cap`` None: no cap; ``zero``: the piece is identically 0, e.g. a negative gap)."""

    terms: tuple[Term, ...]
    cap: Fraction | None = None
    zero: bool = False

    @cached_property
    def kinks(self) -> list[Fraction]:
        """Where the integrand may be non-smooth: 0 (the threshold density), every x, the cap (sorted once per
        piece: the closed form and quadrature read it several times)."""
        points = {Fraction(0), *(t.x for t in self.terms)}
        if self.cap is not None:
            points.add(self.cap)
        return sorted(points)

    @property
    def reach(self) -> Fraction:
        """max |kink| (the same as ``max(abs(x) for x in kinks)``, without sorting)."""
        top = max((t.size for t in self.terms), default=Fraction(0))
        return top if self.cap is None else max(top, abs(self.cap))


@dataclass(frozen=True)
class Integrand:
    """Π constants · Π_pieces ∫ ... (module docstring)."""

    pieces: tuple[Piece, ...]
    constants: tuple[tuple[Noise, Fraction], ...]  # (noise, y): a factor p_noise(y)
    kind: Kind

    @property
    def zero(self) -> bool:
        return any(p.zero for p in self.pieces)


def build(mech: SparseVector, queries: Sequence[object], outcome: str, released: Sequence[object] | None = None) -> Integrand:
    """The integrand of Pr[outcome] (or of its density at the released values).

    ``queries`` are q_1..q_k; the outcome is validated against k (`SparseVector.check_outcome`)."""
    refuse_discrete(mech, "integrand")
    return describe(mech, queries, outcome, released)


def build_all(mech: SparseVector, queries: Sequence[object], outcomes: Sequence[str]) -> list[Integrand]:
    """`build` of several outcomes (nothing released) at the same queries, the queries parsed once."""
    refuse_discrete(mech, "integrand")
    q = parse_queries(queries)
    below = _below_terms(mech, q, len(q))  # one F term per column, shared: the closed form's trie meets them by identity
    return [_describe(mech, q, s, None, below) for s in outcomes]


def _below_terms(mech: SparseVector, q: tuple[Fraction, ...], n: int) -> list[Term]:
    """F(z - a_i), a_i = q_i - t, for the first n queries."""
    t = mech.threshold
    return [Term(TermKind.BELOW, x - t) for x in q[:n]]


def describe(mech: SparseVector, queries: Sequence[object], outcome: str, released: Sequence[object] | None = None) -> Integrand:
    """The description itself, for any noise: `build` for the engines that integrate a density, and
    for the discrete engine (`verify.engine.discrete_plan`), which reads the same pieces and factors as
    sums over ℤ (a term's x = q_i - t is then an integer; ties are its own law's business)."""
    return _describe(mech, parse_queries(queries), outcome, released)


def _describe(mech: SparseVector, q: tuple[Fraction, ...], outcome: str, released: Sequence[object] | None,
              below: Sequence[Term] | None = None) -> Integrand:
    """`describe` at parsed queries; ``below``: `_below_terms` of at least the outcome's length (else built here)."""
    outcome = mech.check_outcome(outcome, len(q))
    if below is None:
        below = _below_terms(mech, q, len(outcome))
    values = mech.check_released(outcome, released)
    t = mech.threshold
    pieces: list[Piece] = []
    constants: list[tuple[Noise, Fraction]] = []
    terms: list[Term] = []
    cap: Fraction | None = None
    zero = False
    v_iter = iter(values)
    rule = mech.release_rule
    density = rule.constant_noise(mech)
    for i, letter in enumerate(outcome):
        if letter != ABOVE:
            terms.append(below[i])
            continue
        a = below[i].x
        # the release rule's attributes (`verify.release.protocol`), never its name
        v = next(v_iter) if rule.releases_values else None
        if density is not None:
            constants.append((density, v - q[i]))
        if rule.caps_threshold:
            cap = v - t if cap is None else min(cap, v - t)
        if rule.nonnegative:
            zero = zero or v < 0
        if rule.above_term is not None:
            terms.append(Term(rule.above_term, rule.term_offset(a, v)))
        if mech.threshold_policy is ThresholdPolicy.RESAMPLE:
            pieces.append(Piece(tuple(terms), cap, zero))
            terms, cap, zero = [], None, False
    if terms or not pieces:
        pieces.append(Piece(tuple(terms), cap, zero))
    kind = Kind.DENSITY if values else Kind.PROBABILITY
    return Integrand(tuple(pieces), tuple(constants), kind)
