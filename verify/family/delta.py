"""Approximate DP where pure DP fails: the exact (ε', δ) curve of a pair of neighbours.

For neighbouring query vectors q(D), q(D') and ε' >= 0 (Deliver 2),

    δ(ε') = Σ_s max(0, Pr[A(D) = s] - e^{ε'} Pr[A(D') = s])

over every complete output s (outcome strings; variants that release values
are not covered here: their δ is an integral over the released values, not
implemented).  A mechanism is (ε', δ)-DP only if δ >= this for every pair (in
both directions), so each exact δ(ε') is a *lower bound* on the mechanism's
δ(ε'), and the smallest ε' with δ(ε') <= D of a pair (`epsilon_for_delta`) a
lower bound on the mechanism's ε' at δ = D.  `worst_delta` and
`worst_epsilon_for_delta` search for the worst pair
(`verify.family.delta_search`) and recompute it exactly with
`verify.oracles.family` at the digits asked (Gaussian: erfc form for one query,
quadrature for more, see the oracle).  For Gaussian AboveThreshold the
Rényi-DP bound of Zhu & Wang (`verify.family.rdp`) is an *upper bound* on
δ(ε') (and on ε' at a given δ) and is reported beside it.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath

from verify.discrete.delta import pair_distributions
from verify.errors import InputError
from verify.exact import check_neighbours, fmt, to_fraction
from verify.family.rdp import GaussianSVTRdp
from verify.mechanism import SparseVector, as_variant
from verify.noise import Gaussian
from verify.notebook import delta_markdown
from verify.oracles.family import output_probability
from verify.precision import MPMATH_LOCK
from verify.probabilities import check_digits
from verify.validate import sequence

#: At most this many outputs are summed exactly (2^10; the CPU time at this limit is in docs/limits.md).
MAX_OUTPUTS = 1024


def complete_outputs(shape: SparseVector, k: int) -> list[str]:
    """Every complete outcome string for k queries (the model's rule: halt at the c-th A, else k letters)."""
    c = shape.cutoff
    out: list[str] = []

    def walk(prefix: str, ups: int) -> None:
        if (c is not None and ups == c) or len(prefix) == k:
            out.append(prefix)
            return
        walk(prefix + "A", ups + 1)
        walk(prefix + "B", ups)

    walk("", 0)
    if len(out) > MAX_OUTPUTS:
        raise InputError(f"delta: {len(out)} outputs for k = {k} exceed {MAX_OUTPUTS}")
    return out


@dataclass(frozen=True)
class DeltaResult:
    """δ(ε') of one ordered pair (D, D') at ``digits``, with the output contributing most."""

    epsilon_prime: Fraction
    queries: tuple[Fraction, ...]
    neighbour: tuple[Fraction, ...]
    delta: mpmath.mpf
    top_output: str
    digits: int
    rdp_delta: mpmath.mpf | None = None
    rdp_alpha: mpmath.mpf | None = None

    def _repr_markdown_(self) -> str:

        return delta_markdown(self)

    def to_json(self) -> dict[str, Any]:
        with MPMATH_LOCK, mpmath.workdps(self.digits + 10):
            return {
                "epsilon_prime": fmt(self.epsilon_prime),
                "queries": [fmt(x) for x in self.queries],
                "neighbour_queries": [fmt(x) for x in self.neighbour],
                "delta": mpmath.nstr(self.delta, self.digits),
                "largest_term_output": self.top_output,
                "digits": self.digits,
                "kind": "exact delta of this pair: a lower bound on the mechanism's delta(epsilon')",
                "rdp_delta_upper_bound": None if self.rdp_delta is None else mpmath.nstr(self.rdp_delta, 12),
                "rdp_alpha": None if self.rdp_alpha is None else mpmath.nstr(self.rdp_alpha, 8),
                "rdp_queries": None if self.rdp_delta is None else len(self.queries),
                "rdp_source": None if self.rdp_delta is None else
                "Zhu & Wang NeurIPS 2020 Thm 8 (autodp RDP_gaussian_svt_c1), BBGHS conversion",
            }


@dataclass(frozen=True)
class PairProfile:
    """Pr[A(D) = s] and Pr[A(D') = s] of every complete output s of one ordered pair, at ``digits``.

    Everything about the pair's (ε', δ) curve follows from these two lists:
    δ(ε') = Σ_s max(0, P_s - e^{ε'} P'_s) (`delta_at`), and, ordering the outputs by their
    loss L_s = log(P_s/P'_s) (largest first) with prefix sums A_j = Σ_{i<=j} P_i, B_j = Σ_{i<=j} P'_i,
    δ(ε') = max(0, max_j (A_j - e^{ε'} B_j)) (the set {s : L_s > ε'} that the max(0, ·) keeps is a
    prefix), so the smallest ε' with δ(ε') <= D is max(0, max_{j: A_j > D} log((A_j - D)/B_j)),
    +∞ when some prefix with A_j > D has B_j = 0 (`epsilon_for`).  This is the privacy-loss-distribution
    view of Meiser & Mohammadi (CCS 2018) and of dp_accounting's ``get_epsilon_for_delta``, here on
    the exact probabilities of a pair.
    """

    outputs: tuple[str, ...]
    p: tuple[mpmath.mpf, ...]
    p_neighbour: tuple[mpmath.mpf, ...]
    digits: int

    def delta_at(self, epsilon_prime: Fraction | mpmath.mpf) -> tuple[mpmath.mpf, str]:
        """(δ(ε'), the output with the largest term P_s - e^{ε'} P'_s).

        Tie rule: of outputs whose terms are exactly equal, the first in ``outputs`` is named (on a tie, the
        first found is kept)."""
        with MPMATH_LOCK, mpmath.workdps(self.digits + 15):
            e = mpmath.mpf(epsilon_prime.numerator) / epsilon_prime.denominator if isinstance(epsilon_prime, Fraction) \
                else mpmath.mpf(epsilon_prime)
            factor = mpmath.exp(e)
            total, top, top_term = mpmath.mpf(0), "", -mpmath.inf
            for s, a, b in zip(self.outputs, self.p, self.p_neighbour):
                term = a - factor * b
                if term > 0:
                    total += term
                if term > top_term:
                    top, top_term = s, term
            return +total, top

    def delta_at_infinity(self) -> mpmath.mpf:
        """lim δ(ε') as ε' -> +∞: Σ P_s over the outputs with P'_s = 0 (the terms with P'_s > 0 vanish)."""
        with MPMATH_LOCK, mpmath.workdps(self.digits + 15):
            return +mpmath.fsum(a for a, b in zip(self.p, self.p_neighbour) if b == 0)

    def epsilon_for(self, delta: Fraction) -> mpmath.mpf:
        """The smallest ε' >= 0 with δ(ε') <= ``delta`` (class docstring; +∞ when none is finite)."""
        with MPMATH_LOCK, mpmath.workdps(self.digits + 15):
            d = mpmath.mpf(delta.numerator) / delta.denominator
            rows = [(a, b) for a, b in zip(self.p, self.p_neighbour) if a > 0]
            # largest loss first; P' = 0 is loss +inf
            rows.sort(key=lambda ab: mpmath.inf if ab[1] == 0 else ab[0] / ab[1], reverse=True)
            best, acc_a, acc_b = mpmath.mpf(0), mpmath.mpf(0), mpmath.mpf(0)
            for a, b in rows:
                acc_a, acc_b = acc_a + a, acc_b + b
                if acc_a > d:
                    if acc_b == 0:
                        return mpmath.inf
                    best = max(best, mpmath.log((acc_a - d) / acc_b))
            return best


def _pair(shape: SparseVector, queries, neighbour) -> tuple[tuple[Fraction, ...], tuple[Fraction, ...]]:
    q = tuple(to_fraction(x, "query") for x in sequence(queries, "queries"))
    qn = tuple(to_fraction(x, "neighbour query") for x in sequence(neighbour, "neighbour queries"))
    if len(q) != len(qn) or not q:
        raise InputError(f"delta: {len(q)} queries and {len(qn)} neighbour queries (need the same number, >= 1)")
    check_neighbours(q, qn, shape.sensitivity, "delta")
    return q, qn


def pair_profile(mech: Any, queries, neighbour, digits: int = 30) -> tuple[PairProfile, tuple[Fraction, ...], tuple[Fraction, ...]]:
    """The exact output probabilities of both sides of the pair (`PairProfile`): by the exact oracle
    (`verify.oracles.family`) for continuous noise, by the discrete engine
    (`verify.discrete.delta.pair_distributions`: integer queries, ties with mass) for noise on ℤ."""
    check_digits(digits)
    shape = as_variant(mech)
    if shape.releases_values:
        raise InputError(f"delta: {shape.name or 'the variant'} releases values; δ over released values is not implemented")
    q, qn = _pair(shape, queries, neighbour)
    if shape.is_discrete:  # sums over ℤ, ties with mass: the discrete engine (the continuous oracle integrates densities)
        complete_outputs(shape, len(q))  # the same limit on the number of outputs
        outs_d, p_d, pn_d = pair_distributions(shape, q, qn, digits)
        return PairProfile(outs_d, p_d, pn_d, digits), q, qn
    outs = complete_outputs(shape, len(q))
    with MPMATH_LOCK, mpmath.workdps(digits + 15):
        p = tuple(output_probability(shape, q, s, (), digits) for s in outs)
        pn = tuple(output_probability(shape, qn, s, (), digits) for s in outs)
    return PairProfile(tuple(outs), p, pn, digits), q, qn


def exact_delta(mech: Any, queries, neighbour, epsilon_prime: object, digits: int = 30) -> DeltaResult:
    """δ(ε') = Σ_s max(0, Pr[A(D)=s] - e^{ε'} Pr[A(D')=s]) for the ordered pair, by the exact oracle.

    >>> from verify import preset
    >>> r = exact_delta(preset("gaussian-svt"), [10], [11], epsilon_prime="1/2", digits=15)
    >>> print(r.delta, r.top_output)
    0.00120985559472002 B
    """
    check_digits(digits)
    ep = to_fraction(epsilon_prime, "--epsilon-prime")
    if ep < 0:
        raise InputError(f"--epsilon-prime: {fmt(ep)} must be >= 0")
    prof, q, qn = pair_profile(mech, queries, neighbour, digits)
    shape = as_variant(mech)
    total, top = prof.delta_at(ep)
    rd, ra = rdp_delta(shape, len(q), ep)
    return DeltaResult(ep, q, qn, total, top, digits, rd, ra)


@dataclass(frozen=True)
class EpsilonResult:
    """The smallest ε' with δ(ε') <= ``delta_target`` for one ordered pair (+∞ if none is finite)."""

    delta_target: Fraction
    epsilon_prime: mpmath.mpf
    queries: tuple[Fraction, ...]
    neighbour: tuple[Fraction, ...]
    delta_at: mpmath.mpf
    digits: int
    rdp_epsilon: mpmath.mpf | None = None

    def to_json(self) -> dict[str, Any]:
        with MPMATH_LOCK, mpmath.workdps(self.digits + 10):
            return {
                "delta": fmt(self.delta_target),
                "epsilon_prime": "inf" if mpmath.isinf(self.epsilon_prime) else mpmath.nstr(self.epsilon_prime, self.digits),
                "queries": [fmt(x) for x in self.queries],
                "neighbour_queries": [fmt(x) for x in self.neighbour],
                "delta_at_epsilon_prime": mpmath.nstr(self.delta_at, self.digits),
                "digits": self.digits,
                "kind": "smallest epsilon' with delta(epsilon') <= delta for this pair: a lower bound on the mechanism's epsilon'",
                "rdp_epsilon_upper_bound": None if self.rdp_epsilon is None else mpmath.nstr(self.rdp_epsilon, 12),
                "rdp_queries": None if self.rdp_epsilon is None else len(self.queries),
                "rdp_source": None if self.rdp_epsilon is None else
                "Zhu & Wang NeurIPS 2020 Thm 8 (autodp RDP_gaussian_svt_c1), BBGHS conversion",
            }


def check_delta_target(delta: object) -> Fraction:
    """``delta`` as an exact Fraction in [0, 1], else a one-line `InputError`."""
    d = to_fraction(delta, "--delta")
    if not 0 <= d <= 1:
        raise InputError(f"--delta: {fmt(d)} must be in [0, 1] (δ is a probability)")
    return d


def epsilon_for_delta(mech: Any, queries, neighbour, delta: object, digits: int = 30) -> EpsilonResult:
    """The smallest ε' >= 0 with δ(ε') <= ``delta`` for the ordered pair (like dp_accounting's ``get_epsilon``).

    δ(ε') is non-increasing in ε', and `PairProfile.epsilon_for` solves δ(ε') = D piece by piece in closed
    form on the exact probabilities (no bisection error; the result carries the ``digits`` of the
    probabilities, fewer when D is within 10^-digits of a prefix sum A_j).  ``delta`` >= δ(0) (the total
    variation distance) gives 0; ``delta`` = 0 gives the pair's pure-DP loss max_s log(P_s/P'_s), +∞ when an
    output of D has probability 0 under D'.  The ε' of a pair is a lower bound on the mechanism's.

    >>> from verify import preset
    >>> r = epsilon_for_delta(preset("gaussian-svt"), [10], [11], delta="1e-4", digits=15)
    >>> print(mpmath.nstr(r.epsilon_prime, 8), r.delta_at <= mpmath.mpf("1e-4"))
    0.59240953 True
    """
    d = check_delta_target(delta)
    prof, q, qn = pair_profile(mech, queries, neighbour, digits)
    ep = prof.epsilon_for(d)
    with MPMATH_LOCK, mpmath.workdps(digits + 15):
        at = prof.delta_at_infinity() if mpmath.isinf(ep) else prof.delta_at(ep)[0]
    return EpsilonResult(d, ep, q, qn, at, digits, rdp_epsilon(as_variant(mech), len(q), d))


def rdp_delta(shape: SparseVector, k: int, ep: Fraction) -> tuple[mpmath.mpf | None, mpmath.mpf | None]:
    """(δ, α) of the Zhu-Wang RDP upper bound for Gaussian AboveThreshold (cutoff 1, shared threshold), else (None, None)."""
    if not (isinstance(shape.threshold_noise.law, Gaussian) and isinstance(shape.query_noise.law, Gaussian)) or shape.cutoff != 1 \
            or shape.threshold_policy != "shared" or shape.releases_values:
        return None, None
    return GaussianSVTRdp(shape.threshold_noise.scale, shape.query_noise.scale, shape.sensitivity, k).delta(ep)


def rdp_epsilon(shape: SparseVector, k: int, delta: Fraction) -> mpmath.mpf | None:
    """The Zhu-Wang RDP upper bound on ε' at δ for Gaussian AboveThreshold (cutoff 1), else None."""
    if rdp_delta(shape, k, Fraction(0))[0] is None:
        return None
    return GaussianSVTRdp(shape.threshold_noise.scale, shape.query_noise.scale, shape.sensitivity, k).epsilon(delta)
