"""The one closed form: exact output probabilities of every SVT variant with piecewise noise.

Conditioning on the threshold noise Z = z makes the query noises independent
(seed, Proof 1: "Since the random variables Z, X_{i-1}, X_i are independent"),
so with a_j = q_j - t

    Pr[s_i] = ∫ p_Z(z) · Π_{j<i} F(z - a_j) · S(z - a_i) dz,
    Pr[⊤^k] = ∫ p_Z(z) · Π_{j<=k} F(z - a_j) dz,

where F(x) = Pr[X < x] and S(x) = Pr[X >= x] (`verify.noise`).  The proofs'
conditional probabilities are the same integral restricted to z > m with
m = M(D, x) - t and a single factor S(z - d), d = q_i(D) - t (seed, Proof 1,
the display ending in ∫_{M(D,x)-t}^∞ p(z) F(-t-z+q_i(D)) dz; Mechanism Two,
the display ending in ∫_{M(D,x)-t}^∞ p(z) exp(-(ε/3Δ) max{0, t+z-q_i(D)}) dz).

Between consecutive kinks (z = 0 and z = a_j) every factor is, for the
Laplace, exponential and no-noise families, ``const · w^e · (p0 + p1·w)`` with
``w = exp(-λ(z - r))`` (λ the query-noise rate, r a reference point of the
segment), and the threshold density is ``const · exp(ζλ(z - r))``.  The
integrand on a segment is therefore a finite sum of exponentials whose
exponents are *rational* multiples of λ: each term is integrated in closed
form.  Exponents are kept as `Fraction` multiples of λ, so a vanishing
exponent is recognised exactly (the term integrates to the segment's length).

Positions are exact `Fraction` multiples of a unit u (u = 1 numerically, u = Δ
for symbolic ε and Δ); ``lam`` is the backend number λ·u.  Reference points
are chosen so that every expanded term is bounded by its factor's bound
(<= 1/2 for Laplace, <= 1 for exponential): nothing overflows, and the sum of
the terms' magnitudes over the value is the condition number of the sum,
returned so that callers can raise the precision where cancellation bites.

Released values add the density p_X(z - x) (a gap; ``w₋λe^{λ(r-x)}·w^{-1}``
below x, ``w₊λe^{λ(x-r)}·w`` above) and a cap z <= v - t (a noisy query v).

What is integrated is read from the one description of an outcome,
`verify.engine.integrand` (per threshold draw a `Piece` of `Term` s F, S, p_X
and a cap; constant densities).  `ClosedForm.integrals` evaluates several
pieces in one pass, expanding a common prefix once (a trie): the k+1 halting
outcomes of AboveThreshold are one chain of F factors with an S exit per
query, O(k²) per segment.  `ClosedForm.evaluate` is one outcome,
`mp_closed_form` the mpmath precision rule.  Both front doors
(`verify.probabilities`, `verify.family.probability`) call this module.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Any

import mpmath

from verify.engine import integrand as integrand_module
from verify.engine.backends import ArbBackend, Backend, MpmathBackend, SympyBackend
from verify.engine.integrand import Integrand, Piece, Term, TermKind
from verify.errors import InputError
from verify.noise import Gaussian, Noise, NoiseFamily, family_type
from verify.precision import MPMATH_LOCK

INF = None  # an open end of a segment


@dataclass(frozen=True)
class Factor:
    """``const · w^e · (p0 + p1·w)`` on one segment; ``p1`` may be None."""

    const: Any
    e: int
    p0: Any
    p1: Any = None


@dataclass
class Integral:
    """A value with the sum of the magnitudes of the terms that made it."""

    value: Any
    magnitude: Any
    zero: bool = True  # no term at all: the probability is exactly 0


def rates(threshold_noise: Any, query_noise: Any) -> tuple[Fraction, Fraction]:
    """(λ, ρ) of the closed form (`ClosedForm`): λ the query-noise rate (the threshold's if the queries are
    noiseless, 1 if neither is noisy), ρ = rate_Z/λ (1 without threshold noise); exact."""
    zn, xn = threshold_noise, query_noise
    lam = xn.rate if not xn.is_none else (zn.rate if not zn.is_none else Fraction(1))
    rho = zn.rate / lam if not zn.is_none else Fraction(1)
    return lam, rho

class ClosedForm:
    """The closed form of the outcome integrals (`verify.engine.integrand`) on one backend.

    Parameters
    ----------
    backend: the number type (`verify.engine.backends`).
    lam: λ·u as a backend number, λ the query-noise rate (the threshold-noise
        rate when the queries carry no noise).
    rho: the threshold-noise rate over λ, exact.
    zfamily, xfamily: noise families (names or `verify.noise.NoiseFamily` objects) of the
        threshold and the queries.  Each must be piecewise exponential: density
        ``w₋·λe^{λx}`` on x < 0 and ``w₊·λe^{-λx}`` on x >= 0 with the family's exact
        weights ``lower_weight = w₋``, ``upper_weight = w₊`` (Laplace ½, ½; exponential
        0, 1), or no noise; every factor below is written in these weights.
    """

    def __init__(self, backend: Backend, lam: Any, rho: Fraction, zfamily: str | NoiseFamily, xfamily: str | NoiseFamily) -> None:
        self.zlaw = zfamily if isinstance(zfamily, NoiseFamily) else family_type(zfamily)
        self.xlaw = xfamily if isinstance(xfamily, NoiseFamily) else family_type(xfamily)
        for name, law in (("threshold", self.zlaw), ("query", self.xlaw)):
            if not law.piecewise:
                raise InputError(f"noise: {law.name} {name} noise is not piecewise exponential; the closed form needs "
                                 "Laplace, exponential or none (use verify.family.probability)")
        self.b = backend
        self.lam = lam
        self.rho = Fraction(rho)
        self.half = backend.num(Fraction(1, 2))
        self.one = backend.num(Fraction(1))
        self.zero = backend.num(Fraction(0))

    @classmethod
    def of(cls, mech: Any, backend: Backend, lam: Any | None = None) -> ClosedForm:
        """The closed form for a mechanism's threshold and query noise (λ, ρ from `rates`; ``lam``
        overrides λ·u, e.g. with ε and Δ as symbols).  A fresh release noise may be any family: it
        only enters as a constant density (`constant`)."""
        zn, xn = mech.threshold_noise, mech.query_noise
        if not (zn.is_piecewise and xn.is_piecewise):
            raise InputError(f"closed form: {mech.name} has Gaussian noise; no closed form exists, use quadrature")
        lam_f, rho = rates(zn, xn)
        return cls(backend, backend.num(lam_f) if lam is None else lam, rho, zn.law, xn.law)

    # --- the pieces ----------------------------------------------------------------
    def _e(self, x: Fraction) -> Any:
        """exp(x·lam), x exact."""
        return self.b.exp(self.b.num(x) * self.lam) if x != 0 else self.one

    def weighted(self, weight: Fraction, value: Any) -> Any:
        """weight·value, with weight 1 applied as no operation (so an exact 1 adds no rounding)."""
        return value if weight == 1 else self.b.num(weight) * value

    def factor_below(self, x: Fraction, r: Fraction, below: bool) -> Factor | None:
        """F(z - x) = Pr[X < z - x] on a segment below (z <= x) or above x:
        w₋e^{λ(z-x)} below, 1 - w₊e^{-λ(z-x)} above (none: 0 below, 1 above)."""
        law = self.xlaw
        if below:
            if law.is_none or not law.lower_weight:
                return None  # no mass below 0: Pr[X < negative] = 0
            return Factor(self.b.num(law.lower_weight) * self._e(r - x), -1, self.one)
        if law.is_none:
            return Factor(self.one, 0, self.one)
        return Factor(self.one, 0, self.one, -self.weighted(law.upper_weight, self._e(x - r)))

    def factor_reach(self, x: Fraction, r: Fraction, below: bool) -> Factor | None:
        """S(z - x) = Pr[X >= z - x] on a segment below (z <= x) or above x:
        1 - w₋e^{λ(z-x)} below, w₊e^{-λ(z-x)} above (none: 1 below, 0 above)."""
        law = self.xlaw
        if below:
            if law.is_none or not law.lower_weight:
                return Factor(self.one, 0, self.one)
            return Factor(self.one, -1, -self.b.num(law.lower_weight) * self._e(r - x), self.one)
        if law.is_none:
            return None
        return Factor(self.weighted(law.upper_weight, self._e(x - r)), 1, self.one)

    def factor_density(self, x: Fraction, r: Fraction, below: bool) -> Factor | None:
        """p_X(z - x) on a segment below (z <= x) or above x: w₋λe^{λ(r-x)}·w^{-1} below,
        w₊λe^{λ(x-r)}·w above (a released gap makes the query noise's density a factor)."""
        law = self.xlaw
        if law.is_none:
            raise InputError("density of the query noise: the query noise is 'none', it has no density")
        weight = law.lower_weight if below else law.upper_weight
        if not weight:
            return None
        w_lam = self.weighted(weight, self.lam)
        return Factor(w_lam * self._e(r - x), -1, self.one) if below else Factor(w_lam * self._e(x - r), 1, self.one)

    def factor(self, term: Term, r: Fraction, below: bool) -> Factor | None:
        """The factor of one `Term` on a segment below (z <= term.x) or above it; None where exactly 0."""
        if term.kind is TermKind.BELOW:
            return self.factor_below(term.x, r, below)
        if term.kind is TermKind.ABOVE:
            return self.factor_reach(term.x, r, below)
        return self.factor_density(term.x, r, below)

    def density(self, r: Fraction, above_zero: bool) -> tuple[Any, Fraction] | None:
        """The threshold density on a segment: (const, ζ) with p = const·e^{ζ·lam(z - r)}
        (w₊ρλe^{-ρλz} above 0, w₋ρλe^{ρλz} below; None where the weight is 0)."""
        law = self.zlaw
        if law.is_none:
            raise ValueError("density() is for a continuous threshold noise")
        rl = self.b.num(self.rho) * self.lam
        weight = law.upper_weight if above_zero else law.lower_weight
        if not weight:
            return None
        zeta = -self.rho if above_zero else self.rho
        return self.weighted(weight, rl) * self._e(zeta * r), zeta

    def segment_integral(self, alpha: Fraction, lo: Fraction | None, hi: Fraction | None) -> Any:
        """∫_lo^hi exp(alpha·lam·(z - r)) dz, r = lo if finite else hi."""
        lam = self.lam
        if lo is not None and hi is not None:
            length = hi - lo
            if alpha == 0:
                return self.b.num(length)
            a = self.b.num(alpha) * lam
            return self.b.expm1(a * self.b.num(length)) / a
        if alpha == 0 or (lo is not None and alpha > 0) or (hi is not None and alpha < 0):
            raise ArithmeticError(f"divergent term: exponent {alpha} on an infinite segment")
        a = self.b.num(alpha) * lam
        return -1 / a if lo is not None else 1 / a

    # --- pieces ---------------------------------------------------------------------------
    def integrals(self, pieces: Sequence[Piece], floor: Fraction | None = None) -> list[Integral]:
        """∫_{floor < z <= cap} p_Z(z) Π terms dz for each piece, in one pass over the segments
        between all the pieces' kinks (and the floor: the proofs' conditional form, z > M(D,x) - t).

        The pieces' terms form a trie (`PrefixTrie`): a factor shared by several pieces as a common
        prefix is expanded once per segment."""
        results = [Integral(self.zero, self.zero) for _ in pieces]
        trie = PrefixTrie(p.terms for p in pieces)
        if self.zlaw.is_none:
            return self._point_integrals(pieces, trie, floor, results)
        # the pieces' kinks (0, each term's x, the caps: `Piece.kinks`), a shared term once (the trie's nodes)
        kinks = sorted({Fraction(0), *(t.x for _, t in trie.nodes), *(p.cap for p in pieces), floor} - {None})
        ends: list[Fraction | None] = [INF, *kinks, INF]
        for lo, hi in zip(ends[:-1], ends[1:]):
            if floor is not None and (hi is not None and hi <= floor):
                continue
            open_pieces = [i for i, p in enumerate(pieces)
                           if not p.zero and (p.cap is None or (hi is not None and hi <= p.cap))]
            if not open_pieces:
                continue
            r = lo if lo is not None else hi
            dens = self.density(r, above_zero=lo is not None and lo >= 0)
            if dens is None:
                continue
            const, zexp = dens
            seg: dict[int, Any] = {}  # this segment's integrals by exponent n (e^{(zexp - n)λ(z-r)}), shared by the pieces
            states: list[tuple[Any, int, list[Any]] | None] = [(const, 0, [self.one])]
            for parent, term in trie.nodes:
                state = states[parent]
                f = None if state is None else self.factor(term, r, hi is not None and hi <= term.x)
                states.append(None if f is None else (state[0] * f.const, state[1] + f.e, poly_times(state[2], f)))
            for i in open_pieces:
                state = states[trie.leaves[i]]
                if state is not None:
                    self._accumulate(results[i], *state, zexp, lo, hi, seg)
        return results

    def _accumulate(self, acc: Integral, const: Any, shift: int, poly: list[Any], zexp: Fraction, lo, hi, seg: dict) -> None:
        for c, coef in enumerate(poly):
            if (n := c + shift) not in seg:
                seg[n] = self.segment_integral(zexp - n, lo, hi)
            term = const * coef * seg[n]
            acc.value = acc.value + term
            if not self.b.exact:
                acc.magnitude = acc.magnitude + self.b.magnitude(term)
            acc.zero = False

    def _point_integrals(self, pieces: Sequence[Piece], trie: PrefixTrie, floor: Fraction | None,
                         results: list[Integral]) -> list[Integral]:
        """No threshold noise: z = 0, each piece is the product of its factors at 0."""
        if floor is not None and not 0 > floor:
            return results
        values: list[Any] = [self.one]
        for parent, term in trie.nodes:
            v = values[parent]
            f = None if v is None else self.point(term)
            values.append(None if f is None else v * f)
        for i, p in enumerate(pieces):
            v = values[trie.leaves[i]]
            if p.zero or v is None or (p.cap is not None and p.cap < 0):
                continue
            results[i] = Integral(v, v if self.b.exact else self.b.magnitude(v), zero=False)
        return results

    def point(self, term: Term) -> Any | None:
        """The factor of one `Term` at z = 0 (no threshold noise); None where exactly 0."""
        if term.kind is TermKind.BELOW:
            return self.point_below(-term.x)
        if term.kind is TermKind.ABOVE:
            return self.point_reach(-term.x)
        law = self.xlaw
        if law.is_none:
            raise InputError("density of the query noise: the query noise is 'none', it has no density")
        weight = law.upper_weight if term.x <= 0 else law.lower_weight  # p_X(-x): the branch of -x's sign
        return self.weighted(weight, self.lam) * self._e(-abs(term.x)) if weight else None

    # --- one outcome ------------------------------------------------------------------------
    def constant(self, noise: Noise, y: Fraction) -> Any:
        """p_noise(y) exactly on this backend (a released value's density)."""
        b, law = self.b, noise.law
        if not law.piecewise:
            return gaussian_density(b, noise.scale, y)
        weight = law.upper_weight if y >= 0 else law.lower_weight
        return b.num(noise.rate * weight) * b.exp(b.num(-abs(y) * noise.rate)) if weight else b.num(Fraction(0))

    def evaluate(self, integrand: Integrand) -> tuple[Any, list[Integral]]:
        """(value, the pieces' integrals) of one outcome: Π constants · Π pieces, each piece between its
        own kinks."""
        pieces = [self.integrals([p])[0] for p in integrand.pieces]
        value = self.one
        for noise, y in integrand.constants:
            value = value * self.constant(noise, y)
        for p in pieces:
            value = value * (self.zero if p.zero else p.value)
        return value, pieces

    def point_below(self, d: Fraction) -> Any | None:
        """F(d) = Pr[X < d], d exact (None where exactly 0): w₋e^{λd} for d < 0,
        1 - w₊e^{-λd} for d >= 0 (as -expm1(-λd) when w₊ = 1, no cancellation)."""
        law = self.xlaw
        if law.is_none:
            return None if d <= 0 else self.one
        if d < 0 or (d == 0 and not law.lower_weight):
            return self.b.num(law.lower_weight) * self._e(d) if law.lower_weight else None
        if law.upper_weight == 1:
            return -self.b.expm1(self.b.num(-d) * self.lam)
        return self.one - self.b.num(law.upper_weight) * self._e(-d)

    def point_reach(self, d: Fraction) -> Any | None:
        """S(d) = Pr[X >= d], d exact (None where exactly 0): 1 - w₋e^{λd} for d < 0,
        w₊e^{-λd} for d >= 0."""
        law = self.xlaw
        if law.is_none:
            return self.one if d <= 0 else None
        if d < 0 or (d == 0 and not law.lower_weight):
            return self.one - self.b.num(law.lower_weight) * self._e(d) if law.lower_weight else self.one
        return self.weighted(law.upper_weight, self._e(-d))


class PrefixTrie:
    """The pieces' term sequences as a trie: ``nodes`` lists (parent index, term) in creation order
    (node 0 is the root, node j + 1 is ``nodes[j]``; a parent comes before its children) and
    ``leaves[i]`` is the node that ends sequence i.  Terms are `Term` s, or (kind, column) pairs
    for the vectorised mode (`column_plan`)."""

    def __init__(self, sequences: Any) -> None:
        self.nodes: list[tuple[int, Any]] = []
        self.leaves: list[int] = []
        children: list[dict[Any, int]] = [{}]
        for terms in sequences:
            node = 0
            for term in terms:
                nxt = children[node].get(term)
                if nxt is None:
                    self.nodes.append((node, term))
                    children.append({})
                    nxt = children[node][term] = len(self.nodes)
                node = nxt
            self.leaves.append(node)


@dataclass(frozen=True)
class ColumnPlan:
    """The halting outcomes of a mechanism for k queries as a trie over query columns, for a
    vectorised evaluation (`verify.engine.fast_closed_form`): terms are (`TermKind`, column j of q - t); ``ends[node]``
    lists the outcomes (in `SparseVector.outputs` order) that end at a node, ``last_child[node]``
    is the node's last child (a node without children is absent), after which its state can go."""

    trie: PrefixTrie
    ends: dict[int, list[int]]
    last_child: dict[int, int]


@lru_cache(maxsize=32)
def column_plan(mech: Any, k: int) -> ColumnPlan:
    """`ColumnPlan` read from the one description (`verify.engine.integrand.build`): the outcomes
    are described for a template row with q_j - t = j + 1, so a term's x names its column; only
    outcomes of one uncapped piece of F and S factors qualify (the shared-threshold halting
    outcomes), anything else is refused."""

    template = [mech.threshold + j + 1 for j in range(k)]
    sequences = []
    for s in mech.outputs(k):
        integ = integrand_module.build(mech, template, s)
        if len(integ.pieces) != 1 or integ.constants or integ.pieces[0].cap is not None:
            raise InputError(f"vectorised closed form: outcome {s!r} of {mech.name} is not one uncapped piece")
        seq = []
        for term in integ.pieces[0].terms:
            if term.kind is TermKind.DENSITY or term.x.denominator != 1 or not 1 <= term.x <= k:
                raise InputError(f"vectorised closed form: outcome {s!r} of {mech.name} has a term off the query columns")
            seq.append((term.kind, int(term.x) - 1))
        sequences.append(seq)
    trie = PrefixTrie(sequences)
    ends: dict[int, list[int]] = {}
    for out, leaf in enumerate(trie.leaves):
        ends.setdefault(leaf, []).append(out)
    last_child = {parent: node for node, (parent, _) in enumerate(trie.nodes, start=1)}
    return ColumnPlan(trie, ends, last_child)


def poly_times(poly: list[Any], f: Factor) -> list[Any]:
    """poly(w) · (p0 + p1·w), coefficients in increasing powers of w."""
    out = [c * f.p0 for c in poly]
    if f.p1 is not None:
        out.append(poly[-1] * f.p1)
        for c in range(len(poly) - 1, 0, -1):
            out[c] = out[c] + poly[c - 1] * f.p1
    return out


def gaussian_density(b: Backend, sigma: Fraction, y: Fraction) -> Any:
    """exp(-y²/(2σ²)) / (σ√(2π)) on the backend (a fresh Gaussian release noise)."""
    if isinstance(b, SympyBackend):
        import sympy  # lazy: start-up time (the mpmath and arb paths never load sympy)

        return sympy.exp(-b.num(y * y / (2 * sigma * sigma))) / (b.num(sigma) * sympy.sqrt(2 * sympy.pi))
    if isinstance(b, ArbBackend):
        import flint  # lazy: start-up time (only the arb paths use python-flint)

        return b.exp(-b.num(y * y / (2 * sigma * sigma))) / (b.num(sigma) * (2 * flint.arb.pi()).sqrt())
    return mpmath.exp(-b.num(y * y / (2 * sigma * sigma))) / (b.num(sigma) * mpmath.sqrt(2 * mpmath.pi))


# --- the mpmath path's precision rule ------------------------------------------------------------
def digits_of(bound: Fraction | int) -> int:
    """1 + floor(log10(bound)) for bound >= 1 (exact on Fractions of any size), else 1."""
    whole = math.ceil(bound)
    return len(str(whole)) if whole >= 1 else 1


def cancellation_digits(integrals: Sequence[Integral]) -> float:
    """Decimal digits the closed form may have lost to cancellation: the largest
    log10(Σ|terms| / value) over the non-zero integrals (``inf`` when a value is <= 0,
    which only cancellation can produce).  Evaluated at the caller's mpmath precision."""
    lost = 0.0
    for r in integrals:
        if r.zero:
            continue
        if r.value <= 0:
            return math.inf
        lost = max(lost, float(mpmath.log10(r.magnitude / r.value)))
    return lost


def exponent_digits(lam: Fraction, rho: Fraction, outcomes: Sequence[Integrand], floor: Fraction | None = None) -> int:
    """Decimal digits the exponents of the closed form spend before the fraction of the result.

    Every exponent of a piece is a sum of pieces λ(x - r), ρλr, λα·length with |x|, |r| <= R, the
    largest kink of the piece (or |floor|), so its magnitude is at most (n+2)(2λR + 1)max(1, ρ) for a
    piece of n terms; an outcome adds its pieces' bounds and the exponent of every constant density
    p(y) (λ|y|, or y²/2σ² for Gaussian); the largest over the outcomes is E.  Computing the exponents
    to absolute error 10^-D, which is the value's relative error, takes D + log10(E) digits.  At
    t = 1e50 (R/b = 3e49) these are 51 digits that the cancellation count alone does not see."""
    top = Fraction(0)
    for integ in outcomes:
        bound = Fraction(0)
        for p in integ.pieces:
            reach = p.reach
            if floor is not None:
                reach = max(reach, abs(floor))
            bound += (len(p.terms) + 2) * (2 * lam * reach + 1) * max(Fraction(1), rho)
        for noise, y in integ.constants:
            if isinstance(noise.law, Gaussian):
                bound += (y / noise.scale) ** 2 / 2 + 1
            elif not noise.is_none:
                bound += abs(y) * noise.rate + 1
        top = max(top, bound)
    return digits_of(top)


def mp_closed_form(mech: Any, outcomes: Sequence[Integrand], digits: int, floor: Fraction | None = None) -> list[mpmath.mpf]:
    """The outcomes' values in mpmath, each correct to ``digits`` significant digits (0 exactly where
    a piece is exactly 0).

    The working precision starts at digits + 10 + n/2 + `exponent_digits` (n the most terms of an
    outcome) and is raised until the cancellation (`cancellation_digits`) is covered with 8 guard
    digits.  Outcomes of one piece and no constants (AboveThreshold's halting outcomes, the proofs'
    conditional form) are integrated together (`ClosedForm.integrals`), any other one by itself.

    >>> from verify.engine.integrand import build
    >>> from verify.mechanism import AboveThreshold
    >>> m = AboveThreshold.mechanism_one(1)
    >>> [mpmath.nstr(v, 12) for v in mp_closed_form(m, [build(m, [0, 1], s) for s in m.outputs(2)], 20)]
    ['0.5', '0.209908378575', '0.290091621425']
    """
    lam, rho = rates(mech.threshold_noise, mech.query_noise)
    n = max((sum(len(p.terms) for p in integ.pieces) for integ in outcomes), default=0)
    extra = exponent_digits(lam, rho, outcomes, floor)
    joint = all(len(integ.pieces) == 1 and not integ.constants for integ in outcomes)
    if floor is not None and not joint:
        raise ValueError("a floor on z applies to outcomes of one piece without constants")
    dps = digits + 10 + n // 2 + extra
    for _ in range(8):
        with MPMATH_LOCK, mpmath.workdps(dps):
            form = ClosedForm.of(mech, MpmathBackend())
            if joint:
                parts = [[p] for p in form.integrals([integ.pieces[0] for integ in outcomes], floor)]
                values = [p[0].value for p in parts]
            else:
                evaluated = [form.evaluate(integ) for integ in outcomes]
                values, parts = [v for v, _ in evaluated], [p for _, p in evaluated]
            lost = cancellation_digits([x for p in parts for x in p])
            if dps - lost - extra >= digits + 8:
                return [mpmath.mpf(0) if any(x.zero for x in p) else +v for v, p in zip(values, parts)]
        dps = int(dps * 2) if math.isinf(lost) else int(digits + lost + extra + 20)
    raise ArithmeticError(f"mpmath closed form: could not reach {digits} digits (cancellation)")  # pragma: no cover
