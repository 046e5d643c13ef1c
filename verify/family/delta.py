"""Approximate DP where pure DP fails: the exact δ(ε') of a pair of neighbours and the worst one found.

For neighbouring query vectors q(D), q(D') and ε' >= 0 (Deliver 2),

    δ(ε') = Σ_s max(0, Pr[A(D) = s] - e^{ε'} Pr[A(D') = s])

over every complete output s (outcome strings; variants that release values
are not covered here: their δ is an integral over the released values, not
implemented).  A mechanism is (ε', δ)-DP only if δ >= this for every pair (in
both directions), so each exact δ(ε') is a *lower bound* on the mechanism's
δ(ε'); `worst_delta` searches the structured pairs (all earlier queries at
t + u moved by +Δ, the last at t + v moved by -Δ, and the mirror pair) with the
family model's float64 distributions and recomputes the best pair exactly with
`verify.family.oracle` at the digits asked (Gaussian: erfc form for one query,
quadrature for more, see the oracle).  For Gaussian AboveThreshold the
Rényi-DP bound of Zhu & Wang (`verify.family.rdp`) is an *upper bound* on
δ(ε') and is reported beside it.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from itertools import product
from typing import Any

import mpmath
import numpy as np

from verify.errors import InputError
from verify.exact import fmt, to_fraction
from verify.family.oracle import output_probability
from verify.family.rdp import GaussianSVTRdp
from verify.mechanism import SparseVector, as_variant
from verify.noise import Gaussian
from verify.precision import MPMATH_LOCK
from verify.probabilities import check_digits
from verify.validate import sequence

#: At most this many outputs are summed exactly (2^12).
MAX_OUTPUTS = 4096


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
                "rdp_source": None if self.rdp_delta is None else
                "Zhu & Wang NeurIPS 2020 Thm 8 (autodp RDP_gaussian_svt_c1), BBGHS conversion",
            }


def exact_delta(mech: Any, queries, neighbour, epsilon_prime: object, digits: int = 30) -> DeltaResult:
    """δ(ε') = Σ_s max(0, Pr[A(D)=s] - e^{ε'} Pr[A(D')=s]) for the ordered pair, by the exact oracle."""
    check_digits(digits)
    shape = as_variant(mech)
    if shape.releases_values:
        raise InputError(f"delta: {shape.name or 'the variant'} releases values; δ over released values is not implemented")
    ep = to_fraction(epsilon_prime, "--epsilon-prime")
    if ep < 0:
        raise InputError(f"--epsilon-prime: {fmt(ep)} must be >= 0")
    q = tuple(to_fraction(x, "query") for x in sequence(queries, "queries"))
    qn = tuple(to_fraction(x, "neighbour query") for x in sequence(neighbour, "neighbour queries"))
    if len(q) != len(qn) or not q:
        raise InputError(f"delta: {len(q)} queries and {len(qn)} neighbour queries (need the same number, >= 1)")
    for a, b in zip(q, qn):
        if abs(a - b) > shape.sensitivity:
            raise InputError(f"delta: |{fmt(a)} - {fmt(b)}| exceeds the sensitivity Δ = {fmt(shape.sensitivity)}")
    with MPMATH_LOCK, mpmath.workdps(digits + 15):
        factor = mpmath.exp(mpmath.mpf(ep.numerator) / ep.denominator)
        total, top, top_term = mpmath.mpf(0), "", mpmath.mpf(-1)
        for s in complete_outputs(shape, len(q)):
            term = output_probability(shape, q, s, (), digits) - factor * output_probability(shape, qn, s, (), digits)
            if term > 0:
                total += term
            if term > top_term:
                top, top_term = s, term
        rd, ra = _rdp(shape, len(q), ep)
        return DeltaResult(ep, q, qn, +total, top, digits, rd, ra)


def _rdp(shape: SparseVector, k: int, ep: Fraction):
    if not (isinstance(shape.threshold_noise.law, Gaussian) and isinstance(shape.query_noise.law, Gaussian)) or shape.cutoff != 1 \
            or shape.threshold_policy != "shared" or shape.releases_values:
        return None, None
    return GaussianSVTRdp(shape.threshold_noise.scale, shape.query_noise.scale, shape.sensitivity, k).delta(ep)


def worst_delta(mech: Any, epsilon_prime: object, max_queries: int = 3, grid: int = 13, digits: int = 20) -> DeltaResult:
    """The largest exact δ(ε') over the structured pairs (module docstring), k = 1..max_queries."""
    from verify.family.fast_api import fast_log_distribution

    shape = as_variant(mech)
    if shape.releases_values:
        raise InputError("delta: variants that release values are not covered")
    if isinstance(max_queries, bool) or not isinstance(max_queries, int) or not 1 <= max_queries <= 10:
        raise InputError(f"--max-queries: {max_queries!r} must be an integer from 1 to 10")
    ep = float(to_fraction(epsilon_prime, "--epsilon-prime"))
    scale = max(float(n.scale) for n in (shape.threshold_noise, shape.query_noise) if not n.is_none)
    axis = np.linspace(-8 * scale, 8 * scale, grid)
    t, d = float(shape.threshold), float(shape.sensitivity)
    best = (-1.0, None, None)
    for k in range(1, max_queries + 1):
        for sign in (1, -1):
            pts = list(product(axis, axis)) if k > 1 else [(0.0, v) for v in axis]
            Q = np.array([[t + u] * (k - 1) + [t + v] for u, v in pts])
            shift = np.array([sign * d] * (k - 1) + [-sign * d])
            lp, _, _ = fast_log_distribution(mech, Q)
            lpn, _, _ = fast_log_distribution(mech, Q + shift)
            dl = np.sum(np.maximum(0.0, np.exp(lp) - np.exp(ep + lpn)), axis=1)
            i = int(np.argmax(dl))
            if dl[i] > best[0]:
                best = (float(dl[i]), Q[i], Q[i] + shift)
    q = tuple(Fraction(x).limit_denominator(1000) for x in best[1])
    qn = tuple(a + (shape.sensitivity if b > a0 else -shape.sensitivity) for a, a0, b in zip(q, best[1], best[2]))
    return exact_delta(shape, q, qn, epsilon_prime, digits)
