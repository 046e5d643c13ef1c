"""Worst-case privacy loss of an AboveThreshold variant, with a verdict.

The loss of a pair of neighbouring query vectors and an output s is
|log Pr[A(D)=s] - log Pr[A(D')=s]| (seed, "Privacy Guarantee"); the variant is
ε-DP for the outputs s_1.., ⊤^k exactly when its supremum over k, queries,
neighbours and outputs is <= ε.

Search (`worst_case`), using the structure of the problem:

* Only q_1..q_i matter for s_i (later queries are never reached), and only the
  distribution of M(D,x) = max_{j<i}(q_j + x_j) and q_i enter (seed, Proof 1).
  The candidate families are therefore "earlier queries pushed one way, the
  halting query the other": q_j(D) = t + u (j < i), q_i(D) = t + v, and the
  neighbour shifted at the corners, q_j(D') = q_j(D) + σ₁, q_i(D') = q_i(D) + σ₂,
  σ₁, σ₂ ∈ {-Δ, 0, Δ}; for ⊤^k all k queries at t + u, shifted by σ₁.
* For every i = 1..K: a grid over (u, v) in [-R, R]² (R = 40 noise scales),
  then `scipy.optimize.minimize` (Nelder-Mead) from the best grid points; for
  small i also a full-dimensional search over q ∈ R^i from the structured best
  and from seeded random starts.
* The family's probabilities are evaluated for the search by log-space
  Gauss-Legendre quadrature of Pr[s_i] = ∫ p_Z(z) F(z-u)^{i-1} S(z-v) dz split
  at every kink (z = 0, u, v), because the closed form cancels catastrophically
  for large k; the search value is only a guide: every reported number is
  `verify.ratio.privacy_ratio` at 30 digits (50 digits for a violation) on the
  exact rational witness.

Bounds treated as proven (`proven_upper_bound`): for Laplace threshold noise
Lap(b_Z) and Laplace query noise Lap(b_X), the loss is at most
Δ/b_Z + 2Δ/b_X.  Reason: the change of variables of the seed's Proof 2
(z' = z - κ, x_i' = x_i - κ - δ, Jacobian 1, |κ| <= Δ, |κ + δ| <= 2Δ) maps the
event for D onto the event for D' given X_<i = x, and the Laplace density is
log-Lipschitz, |log p_b(u) - log p_b(w)| <= |u - w|/b, so the conditional ratio
is within exp(±(Δ/b_Z + 2Δ/b_X)); integrating over x keeps the bound.  For ⊤^k,
Pr = E_x[Pr(Z > M(D,x) - t)] and the shift of z alone gives Δ/b_Z.  With
b_Z = b_X = 3Δ/ε (Mechanism One) the bound is exactly ε.  For other
continuous families (Mechanism Two among them) the seed's pointwise comparison
fails (the exponential supports differ), so a bound is treated as proven only
where the certification engine (`verify.certify.certify_conditional_ratio`)
certifies the proofs' conditional ratio at this ε: its exact supremum bounds
every s_i after integrating over x, and ⊤^k adds Pr[Z > M(D,x) - t], whose
tail is log-Lipschitz with constant 1/b_Z for Laplace and exponential Z, so
Δ/b_Z.  Anything else is `undecided` unless a violation is found.

Unboundedness is claimed only with evidence: a witness whose probability is
exactly 0 on one side (confirmed by the mpmath path, where zeros are decided
structurally), or, without threshold noise, the family whose probability is a
product Π_{j<i} F(t - q_j) · S(t - q_i) (seed, the example under Mechanism One),
so that its loss is additive, (i-1)·c + c_1, and grows without bound when c > 0.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
from scipy import optimize

from verify.errors import InputError
from verify.exact import fmt
from verify.mechanism import NO_HALT, AboveThreshold, Output
from verify.noise import Noise
from verify.probabilities import fast_log_distribution
from verify.ratio import privacy_ratio

GL_NODES, GL_WEIGHTS = np.polynomial.legendre.leggauss(16)
TAIL_SCALES = 60.0
LOG_HALF = math.log(0.5)
DEFAULT_DIGITS = 30
VIOLATION_DIGITS = 50
SHIFT_PATTERNS = [(s1, s2) for s1 in (-1, 0, 1) for s2 in (-1, 0, 1) if (s1, s2) != (0, 0)]


# --------------------------------------------------------------------------------------------------
# proven bounds
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ProvenBound:
    value: Fraction  # nats
    source: str


def proven_upper_bound(mech: AboveThreshold) -> ProvenBound | None:
    """Δ/b_Z + 2Δ/b_X for Laplace threshold and query noise; else the certified
    supremum of the conditional ratio where `verify.certify` certifies it (see
    the module docstring); else None.

    >>> proven_upper_bound(AboveThreshold.mechanism_one(1)).value
    Fraction(1, 1)
    >>> proven_upper_bound(AboveThreshold.mechanism_two(1)).value
    Fraction(1, 1)
    >>> proven_upper_bound(AboveThreshold.with_noise("exponential", 1, threshold_multiplier=2, query_multiplier=2)) is None
    True
    """
    zn, xn = mech.threshold_noise, mech.query_noise
    delta = mech.sensitivity
    if zn.family == "laplace" and xn.family == "laplace":
        return ProvenBound(delta / zn.scale + 2 * delta / xn.scale,
                           "seed Proof 2 change of variables (Jacobian 1) + Laplace log-Lipschitz density: Δ/b_Z + 2Δ/b_X")
    if zn.is_none or xn.is_none:
        return None
    from verify.certify import certify_conditional_ratio

    try:
        cert = certify_conditional_ratio(mech, (mech.epsilon, mech.epsilon))
    except InputError:
        return None
    if not cert.certified:
        return None
    sup = cert.sup_log_ratio if cert.sup_log_ratio is not None else cert.sup_log_ratio_per_epsilon * mech.epsilon
    return ProvenBound(max(sup, delta / zn.scale),
                       f"verify.certify: conditional ratio certified, sup |log ratio| = {fmt(sup)} ({cert.method}), "
                       f"integrated over x for every s_i; ⊤^k: log-Lipschitz tail of Z, Δ/b_Z = {fmt(delta / zn.scale)}")


# --------------------------------------------------------------------------------------------------
# the family's probabilities, by log-space quadrature (search objective only)
# --------------------------------------------------------------------------------------------------
def _log_below(noise: Noise, y: np.ndarray) -> np.ndarray:
    """log F(y) = log Pr[X < y]."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if noise.family == "laplace":
            b = float(noise.scale)
            return np.where(y < 0, LOG_HALF + np.minimum(y, 0) / b, np.log1p(-0.5 * np.exp(-np.maximum(y, 0) / b)))
        if noise.family == "exponential":
            b = float(noise.scale)
            return np.where(y > 0, np.log(-np.expm1(-np.maximum(y, 0) / b)), -np.inf)
        return np.where(y > 0, 0.0, -np.inf)


def _log_reach(noise: Noise, y: np.ndarray) -> np.ndarray:
    """log S(y) = log Pr[X >= y]."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        if noise.family == "laplace":
            b = float(noise.scale)
            return np.where(y < 0, np.log1p(-0.5 * np.exp(np.minimum(y, 0) / b)), LOG_HALF - np.maximum(y, 0) / b)
        if noise.family == "exponential":
            b = float(noise.scale)
            return np.where(y > 0, -np.maximum(y, 0) / b, 0.0)
        return np.where(y <= 0, 0.0, -np.inf)


def _log_density(noise: Noise, z: np.ndarray) -> np.ndarray:
    b = float(noise.scale)
    with np.errstate(divide="ignore"):
        if noise.family == "laplace":
            return -math.log(2 * b) - np.abs(z) / b
        return np.where(z >= 0, -math.log(b) - np.maximum(z, 0) / b, -np.inf)


def _logsumexp(x: np.ndarray, axis: int) -> np.ndarray:
    top = np.max(x, axis=axis, keepdims=True)
    safe = np.where(np.isfinite(top), top, 0.0)
    with np.errstate(divide="ignore"):
        out = np.log(np.sum(np.exp(x - safe), axis=axis)) + np.squeeze(safe, axis=axis)
    return np.where(np.isfinite(np.squeeze(top, axis=axis)), out, -np.inf)


def family_log_probability(mech: AboveThreshold, n: int, a: np.ndarray, d: np.ndarray | None = None) -> np.ndarray:
    """log Pr for the structured family, float64, vectorised over points.

    ``d`` given: Pr[s_{n+1}] with n queries at t + a and the (n+1)-th at t + d;
    ``d`` None: Pr[⊤^n] with n queries at t + a.  Quadrature of
    ∫ p_Z(z) F(z-a)^n [S(z-d)] dz in log space (no cancellation), 16-point
    Gauss-Legendre on sub-panels between the kinks 0, a, d, each short enough
    that the integrand varies by at most e^8 across it, tails cut 60 threshold
    scales out (relative error e^-60).  Without threshold noise: the product.
    """
    zn, xn = mech.threshold_noise, mech.query_noise
    a = np.atleast_1d(np.asarray(a, dtype=float))
    halt = d is not None
    d = np.atleast_1d(np.asarray(d, dtype=float)) if halt else None
    if zn.is_none:
        out = n * _log_below(xn, -a) if n else np.zeros_like(a)
        return out + _log_reach(xn, -d) if halt else out
    bz = float(zn.scale)
    rate = 1 / bz + ((n + 1) / float(xn.scale) if not xn.is_none else 0.0)
    cols = [np.zeros_like(a), a] + ([d] if halt else [])
    kinks = np.sort(np.stack(cols, axis=1), axis=1)
    tail = TAIL_SCALES * bz
    edges = np.concatenate([kinks[:, :1] - tail, kinks, kinks[:, -1:] + tail], axis=1)
    widths = np.diff(edges, axis=1)
    sub = int(np.clip(math.ceil(rate * float(widths.max()) / 8.0), 4, 4000))
    npan = widths.shape[1]
    t = (np.arange(sub)[:, None] + (GL_NODES[None, :] + 1) / 2).reshape(-1) / sub  # in [0, 1]
    wq = np.tile(GL_WEIGHTS / 2, sub) / sub
    out = np.empty(len(a))
    per = max(1, 2_000_000 // (npan * t.size))
    for s in range(0, len(a), per):
        e = slice(s, s + per)
        lo, w = edges[e, :-1], widths[e]
        z = lo[:, :, None] + w[:, :, None] * t[None, None, :]
        with np.errstate(divide="ignore"):
            logw = np.log(w)[:, :, None] + np.log(wq)[None, None, :]
        f = _log_density(zn, z)
        if n:
            f = f + n * _log_below(xn, z - a[e, None, None])
        if halt:
            f = f + _log_reach(xn, z - d[e, None, None])
        out[e] = _logsumexp((f + logw).reshape(f.shape[0], -1), axis=1)
    return out


def family_log_ratio(mech: AboveThreshold, n: int, u: np.ndarray, v: np.ndarray | None, s1: float, s2: float) -> np.ndarray:
    """log Pr(D) - log Pr(D') for the family (0/0 -> 0)."""
    p = family_log_probability(mech, n, u, v)
    pn = family_log_probability(mech, n, u + s1, None if v is None else v + s2)
    with np.errstate(invalid="ignore"):
        lr = p - pn
    return np.where(np.isneginf(p) & np.isneginf(pn), 0.0, lr)


# --------------------------------------------------------------------------------------------------
# results
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class LossWitness:
    """A confirmed witness: exact queries, output and the log ratio at ``digits``."""

    queries: tuple[Fraction, ...]
    neighbour_queries: tuple[Fraction, ...]
    output: Output
    log_ratio: mpmath.mpf
    probability: mpmath.mpf
    neighbour_probability: mpmath.mpf
    digits: int

    @property
    def loss(self) -> mpmath.mpf:
        with mpmath.workdps(self.digits + 10):
            return abs(self.log_ratio)

    def to_json(self) -> dict[str, Any]:
        from verify.cli.common import mp_str

        return {
            "queries": [fmt(x) for x in self.queries],
            "neighbour_queries": [fmt(x) for x in self.neighbour_queries],
            "output": self.output if self.output == NO_HALT else int(self.output),
            "log_ratio": mp_str(self.log_ratio, self.digits),
            "probability": mp_str(self.probability, self.digits),
            "neighbour_probability": mp_str(self.neighbour_probability, self.digits),
            "digits": self.digits,
        }


@dataclass(frozen=True)
class KRow:
    """Best loss found with k queries, for s_k and for ⊤^k."""

    k: int
    halt: LossWitness
    no_halt: LossWitness

    @property
    def loss(self) -> mpmath.mpf:
        return max(self.halt.loss, self.no_halt.loss)


@dataclass
class WorstCaseResult:
    mechanism: AboveThreshold
    verdict: str
    witness: LossWitness
    upper_bound: ProvenBound | None
    unbounded: bool
    unbounded_evidence: str | None
    by_k: list[KRow]
    push: list[tuple[int, Fraction, mpmath.mpf]] = field(default_factory=list)
    push_family: str | None = None
    tightness: str | None = None
    tightness_evidence: str | None = None
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def loss(self) -> mpmath.mpf:
        return self.witness.loss

    @property
    def loss_over_epsilon(self) -> mpmath.mpf:
        with mpmath.workdps(self.witness.digits + 10):
            return self.loss / _eps(self.mechanism)

    def to_json(self) -> dict[str, Any]:
        from verify.cli.common import mechanism_json, mp_str

        def num(x):
            return "inf" if mpmath.isinf(x) else float(x)

        with mpmath.workdps(VIOLATION_DIGITS + 10):
            return self._json(num, mechanism_json, mp_str)

    def _json(self, num, mechanism_json, mp_str) -> dict[str, Any]:
        return {
            "mechanism": mechanism_json(self.mechanism),
            "epsilon": fmt(self.mechanism.epsilon),
            "verdict": self.verdict,
            "loss": num(self.loss),
            "loss_over_epsilon": num(self.loss_over_epsilon),
            "upper_bound": None if self.upper_bound is None else float(self.upper_bound.value),
            "upper_bound_exact": None if self.upper_bound is None else fmt(self.upper_bound.value),
            "upper_bound_source": None if self.upper_bound is None else self.upper_bound.source,
            "unbounded": self.unbounded,
            "unbounded_evidence": self.unbounded_evidence,
            "witness": self.witness.to_json(),
            "loss_by_k": [
                {"k": r.k, "loss_s_k": num(r.halt.loss), "loss_top_k": num(r.no_halt.loss),
                 "witness_s_k": r.halt.to_json(), "witness_top_k": r.no_halt.to_json()}
                for r in self.by_k
            ],
            "push_family": self.push_family,
            "loss_by_push": [{"k": k, "push": fmt(p), "loss": mp_str(v, 30),
                              "gap_to_epsilon": mp_str(_eps(self.mechanism) - v, 5) if not mpmath.isinf(v) else "-inf"}
                             for k, p, v in self.push],
            "tightness": self.tightness,
            "tightness_evidence": self.tightness_evidence,
            "notes": self.notes,
            "seconds": round(self.seconds, 3),
        }


# --------------------------------------------------------------------------------------------------
# search
# --------------------------------------------------------------------------------------------------
def _nice(x: float, unit: Fraction) -> Fraction:
    """A short rational near x (multiples of unit/1000), so witnesses print well."""
    step = unit / 1000
    return round(Fraction(x) / step) * step


def _confirm(mech: AboveThreshold, q: tuple, qn: tuple, output: Output, digits: int) -> LossWitness:
    rep = privacy_ratio(mech, q, qn, outputs=[output], digits=digits)
    o = rep.outputs[0]
    return LossWitness(tuple(q), tuple(qn), output, o.log_ratio, o.probability, o.neighbour_probability, digits)


def _family_vectors(mech: AboveThreshold, n: int, halt: bool, u: Fraction, v: Fraction, s1: int, s2: int):
    t, delta = mech.threshold, mech.sensitivity
    if halt:
        q = (t + u,) * n + (t + v,)
        qn = (t + u + s1 * delta,) * n + (t + v + s2 * delta,)
        return q, qn, n + 1
    q = (t + u,) * n
    qn = (t + u + s1 * delta,) * n
    return q, qn, NO_HALT


def _scale(mech: AboveThreshold) -> float:
    scales = [float(x.scale) for x in (mech.threshold_noise, mech.query_noise) if not x.is_none]
    return max(scales) if scales else float(mech.sensitivity)


@dataclass
class _Best:
    loss: float
    u: float
    v: float
    s1: int
    s2: int


def _search_family(mech: AboveThreshold, n: int, halt: bool, box: float, grid: int, starts: int) -> _Best:
    """Grid over (u, v) ∈ [-box, box]², all corner patterns, then Nelder-Mead from the best."""
    delta = float(mech.sensitivity)
    g = np.linspace(-box, box, grid)
    if halt:
        uu, vv = np.meshgrid(g, g, indexing="ij")
        uu, vv = uu.ravel(), vv.ravel()
    else:
        uu, vv = g, np.zeros_like(g)
    patterns = SHIFT_PATTERNS if halt else [(1, 0), (-1, 0)]
    if halt and n == 0:
        patterns = [(0, 1), (0, -1)]
    cands: list[_Best] = []
    for s1, s2 in patterns:
        lr = family_log_ratio(mech, n, uu, vv if halt else None, s1 * delta, s2 * delta)
        a = np.abs(np.nan_to_num(lr, nan=-1.0))
        order = np.argsort(-a, kind="stable")[:starts]
        cands += [_Best(float(a[j]), float(uu[j]), float(vv[j]), s1, s2) for j in order]
    cands.sort(key=lambda c: -c.loss)
    best = cands[0]
    if math.isinf(best.loss):
        return best
    for c in cands[:starts]:
        def obj(x, c=c):
            u = float(np.clip(x[0], -box, box))
            v = float(np.clip(x[1], -box, box)) if halt else 0.0
            lr = family_log_ratio(mech, n, np.array([u]), np.array([v]) if halt else None, c.s1 * delta, c.s2 * delta)[0]
            return -min(abs(lr), 1e300) if not np.isnan(lr) else 0.0

        x0 = [c.u, c.v] if halt else [c.u]
        res = optimize.minimize(obj, x0, method="Nelder-Mead",
                                options={"xatol": 1e-6 * box, "fatol": 1e-13, "maxiter": 400 if halt else 200})
        val = -float(res.fun)
        val = math.inf if val >= 1e300 else val
        if val > best.loss:
            u = float(np.clip(res.x[0], -box, box))
            v = float(np.clip(res.x[1], -box, box)) if halt else 0.0
            best = _Best(val, u, v, c.s1, c.s2)
    return best


def _full_dimensional(mech: AboveThreshold, k: int, start: tuple, start_n: tuple, box: float, starts: int,
                      rng: np.random.Generator) -> tuple[float, np.ndarray, np.ndarray]:
    """Powell over q ∈ R^k for s_k with the shift pattern fixed, from the structured
    witness and from seeded random starts with random corner shifts (fast path objective)."""
    delta = float(mech.sensitivity)
    t = float(mech.threshold)
    inits = [(np.array([float(x) for x in start]), np.array([float(y) - float(x) for x, y in zip(start, start_n)]))]
    for _ in range(starts):
        inits.append((t + rng.uniform(-box / 4, box / 4, k), delta * rng.choice([-1.0, 0.0, 1.0], k)))
    best = (-1.0, inits[0][0], inits[0][0] + inits[0][1])
    for q0, shift in inits:
        def obj(x, shift=shift):
            x = np.clip(x, t - box, t + box)
            lp, _ = fast_log_distribution(mech, np.stack([x, x + shift]))
            a, b = lp[0, k - 1], lp[1, k - 1]
            if np.isneginf(a) and np.isneginf(b):
                return 0.0
            return -abs(a - b)

        res = optimize.minimize(obj, q0, method="Powell", options={"xtol": 1e-4, "ftol": 1e-12, "maxfev": 150 * k})
        val = -float(res.fun)
        if val > best[0]:
            x = np.clip(res.x, t - box, t + box)
            best = (val, x, x + shift)
    return best


def _witness_from_best(mech: AboveThreshold, n: int, halt: bool, b: _Best, unit: Fraction, digits: int) -> LossWitness:
    q, qn, out = _family_vectors(mech, n, halt, _nice(b.u, unit), _nice(b.v, unit), b.s1, b.s2)
    return _confirm(mech, q, qn, out, digits)


def _eps(mech: AboveThreshold) -> mpmath.mpf:
    return mpmath.mpf(mech.epsilon.numerator) / mech.epsilon.denominator


def worst_case(mech: AboveThreshold, max_queries: int = 10, seed: int = 0, grid: int = 21, starts: int = 2,
               full_dimensional_up_to: int = 4, push_study: bool = True, digits: int = DEFAULT_DIGITS) -> WorstCaseResult:
    """Search for sup |log ratio| of ``mech``'s variant for k = 1..``max_queries`` and decide.

    Verdicts: ``not_private`` (a confirmed witness with loss > ε at 50 digits),
    ``private`` (a proven upper bound <= ε, `proven_upper_bound`), else
    ``undecided``.  Raises RuntimeError if a confirmed loss exceeds a proven
    bound (that would be a bug in the bound or in the numerics).

    >>> r = worst_case(AboveThreshold.with_noise("laplace", 1, threshold_multiplier=0), max_queries=4, push_study=False)
    >>> r.verdict, r.unbounded
    ('not_private', True)
    """
    if isinstance(max_queries, bool) or not isinstance(max_queries, int) or not 1 <= max_queries <= 64:
        raise InputError(f"--max-queries: {max_queries!r} must be an integer from 1 to 64")
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InputError(f"seed: {seed!r} must be an integer >= 0")
    # all comparisons of confirmed values at high precision (mpf arithmetic rounds to the working precision)
    with mpmath.workdps(VIOLATION_DIGITS + 10):
        return _worst_case(mech, max_queries, seed, grid, starts, full_dimensional_up_to, push_study, digits)


def _worst_case(mech, max_queries, seed, grid, starts, full_dimensional_up_to, push_study, digits) -> WorstCaseResult:
    import time

    t0 = time.perf_counter()
    rng = np.random.default_rng(seed)
    eps = _eps(mech)
    tol = mpmath.mpf(10) ** (-(digits - 5)) * max(1, eps)
    scale = _scale(mech)
    box = 40.0 * scale
    unit = Fraction(scale).limit_denominator(1000)
    notes: list[str] = []
    rows: list[KRow] = []
    families: dict[tuple[int, bool], _Best] = {}
    for k in range(1, max_queries + 1):
        bh = _search_family(mech, k - 1, True, box, grid, starts)
        bn = _search_family(mech, k, False, box, grid, starts)
        families[(k, True)], families[(k, False)] = bh, bn
        wh = _witness_from_best(mech, k - 1, True, bh, unit, digits)
        wn = _witness_from_best(mech, k, False, bn, unit, digits)
        if k <= full_dimensional_up_to and not mpmath.isinf(wh.loss):
            val, x, xn = _full_dimensional(mech, k, wh.queries, wh.neighbour_queries, box, starts, rng)
            if val > float(wh.loss) + 1e-9:
                q = tuple(_nice(float(v), unit) for v in x)
                qn = tuple(a + _nice(float(b - a), mech.sensitivity) for a, b in zip(q, xn))
                qn = tuple(a + max(-mech.sensitivity, min(mech.sensitivity, b - a)) for a, b in zip(q, qn))
                cand = _confirm(mech, q, qn, k, digits)
                if cand.loss > wh.loss:
                    wh = cand
                    notes.append(f"k={k}: the full-dimensional search beat the structured family")
        rows.append(KRow(k, wh, wn))
        if mpmath.isinf(wh.loss) and k >= 2 and mpmath.isinf(rows[-2].halt.loss):
            break  # infinite loss: nothing larger to find
    cands = [w for r in rows for w in (r.halt, r.no_halt)]
    witness = max(cands, key=lambda w: (w.loss, -len(w.queries)))
    bound = proven_upper_bound(mech)
    if witness.loss > eps + tol:
        witness = _confirm(mech, witness.queries, witness.neighbour_queries, witness.output, VIOLATION_DIGITS)
    exceeded = witness.loss > eps + tol
    if bound is not None and witness.loss > mpmath.mpf(bound.value.numerator) / bound.value.denominator + tol:
        raise RuntimeError(f"confirmed loss {mpmath.nstr(witness.loss, 20)} exceeds the proven bound {fmt(bound.value)}: "
                           f"bug in the bound or the numerics ({mech.describe()})")
    if exceeded:
        verdict = "not_private"
    elif bound is not None and bound.value <= mech.epsilon:
        verdict = "private"
    else:
        verdict = "undecided"

    unbounded, evidence = False, None
    inf_w = next((w for w in cands if mpmath.isinf(w.loss)), None)
    if inf_w is not None:
        zero_side = "D" if inf_w.probability == 0 else "D'"
        unbounded = True
        evidence = (f"probability exactly 0 on one side ({zero_side}) for output {inf_w.output}: "
                    f"q(D) = ({', '.join(fmt(x) for x in inf_w.queries)}), q(D') = ({', '.join(fmt(x) for x in inf_w.neighbour_queries)})")
    elif mech.threshold_noise.is_none and len(rows) >= 3:
        growth = _additive_growth(mech, rows, digits)
        if growth is not None:
            unbounded, evidence = True, growth[0]
            if verdict != "not_private":
                # the additive family exceeds ε at some k: build that witness and confirm it
                _, q0, qn0, ql, qnl, c, c1 = growth
                k_needed = int(mpmath.floor((eps - c1) / c)) + 2
                w = _confirm(mech, (q0,) * (k_needed - 1) + (ql,), (qn0,) * (k_needed - 1) + (qnl,), k_needed, VIOLATION_DIGITS)
                if w.loss > eps + tol:
                    witness, verdict = w, "not_private"
                    notes.append(f"witness from the additive family at k = {k_needed} (beyond --max-queries)")

    result = WorstCaseResult(mech, verdict, witness, bound, unbounded, evidence, rows, notes=notes)
    if push_study and not unbounded:
        _tightness(mech, result, families, unit, digits)
    elif unbounded:
        result.tightness = "exceeded"
        result.tightness_evidence = "the loss is unbounded"
    result.seconds = time.perf_counter() - t0
    return result


def _additive_growth(mech: AboveThreshold, rows: list[KRow], digits: int) -> tuple | None:
    """Without threshold noise, Pr[s_i] = Π_{j<i} F(t-q_j)·S(t-q_i) exactly, so for the
    family with equal earlier queries the loss is (i-1)·c + c_1: check it at high
    precision on the best s_K witness's family and report c."""
    last = rows[-1].halt
    k = len(last.queries)
    if k < 3:
        return None
    q0, qn0 = last.queries[0], last.neighbour_queries[0]
    losses = []
    for i in range(1, k + 1):
        q = (q0,) * (i - 1) + (last.queries[-1],)
        qn = (qn0,) * (i - 1) + (last.neighbour_queries[-1],)
        losses.append(_confirm(mech, q, qn, i, digits).log_ratio)
    diffs = [b - a for a, b in zip(losses, losses[1:])]
    c = diffs[-1]
    if c == 0 or any(abs(x - c) > mpmath.mpf(10) ** (-(digits - 8)) for x in diffs):
        return None
    with mpmath.workdps(digits):
        text = (f"no threshold noise: Pr[s_i] is the product of per-query factors, so the loss of the family "
                f"q_j(D) = {fmt(q0)}, q_j(D') = {fmt(qn0)} (j < i) is exactly additive: each earlier query adds "
                f"c = {mpmath.nstr(abs(c), 15)} nats (checked for i = 1..{k} at {digits} digits): loss(k) = "
                f"{mpmath.nstr(abs(losses[0]), 10)} + (k-1)·{mpmath.nstr(abs(c), 10)} grows without bound")
        return text, q0, qn0, last.queries[-1], last.neighbour_queries[-1], abs(c), abs(losses[0])


def _tightness(mech: AboveThreshold, res: WorstCaseResult, families: dict, unit: Fraction, digits: int) -> None:
    """Is ε attained, approached as the queries are pushed or k grows, or loose?"""
    eps = _eps(mech)
    tol = mpmath.mpf(10) ** (-(digits - 5)) * max(1, eps)
    if res.verdict == "not_private":
        res.tightness = "exceeded"
        res.tightness_evidence = f"loss {mpmath.nstr(res.loss, 15)} > ε"
        return
    scale = _scale(mech)
    # attained: a witness at moderate queries (|q - t| <= 2 scales) whose loss is ε to 50 digits
    near = _moderate_at_bound(mech, scale, unit)
    if near is not None:
        w = _confirm(mech, near[0], near[1], near[2], VIOLATION_DIGITS)
        if abs(w.loss - eps) <= mpmath.mpf(10) ** (-(VIOLATION_DIGITS - 5)):
            exact = _symbolic_ratio(mech, w)
            res.tightness = "attained"
            res.tightness_evidence = (
                f"log ratio = ε to {VIOLATION_DIGITS} digits at q(D) = ({', '.join(fmt(x) for x in w.queries)}), "
                f"q(D') = ({', '.join(fmt(x) for x in w.neighbour_queries)}), output {w.output}"
                + (f"; sympy: Pr[A(D)]/Pr[A(D')] = {exact} exactly" if exact else ""))
            res.witness = w if w.loss >= res.witness.loss - tol else res.witness
            return
    # push study: the best s_k family for small k, queries pushed out along its signs
    ks = sorted({min(k, len(res.by_k)) for k in (2, 3, 4)})
    pushes = [Fraction(2**j) * unit for j in range(0, 8)]
    studies = []
    for k in ks:
        b = families[(k, True)]
        su = 1 if b.u >= 0 else -1
        sv = 1 if b.v >= 0 else -1
        vals = []
        for p in pushes:
            q, qn, out = _family_vectors(mech, k - 1, True, su * p, sv * p, b.s1, b.s2)
            vals.append((k, p, _confirm(mech, q, qn, out, digits).loss))
        res.push += vals
        fam = (f"s_{k}: q_j(D) = t {'+' if su > 0 else '-'} L (j < {k}), q_{k}(D) = t {'+' if sv > 0 else '-'} L, "
               f"q(D') shifted by {b.s1:+d}Δ (j < {k}) and {b.s2:+d}Δ")
        studies.append((k, fam, [eps - v for _, _, v in vals]))
    res.push_family = "; ".join(f for _, f, _ in studies)
    by_k = ", ".join(f"k={r.k}: {mpmath.nstr(r.loss, 8)}" for r in res.by_k)

    def approaching(gaps):
        live = [g for g in gaps if g > tol]
        return all(g1 > g2 for g1, g2 in zip(live, live[1:])) and gaps[-1] < mpmath.mpf("1e-6") * eps

    good = [(k, fam, g) for k, fam, g in studies if approaching(g)]
    if good:
        k, fam, g = good[0]
        res.tightness = "approached"
        res.tightness_evidence = (
            f"not attained at moderate queries; the gap ε - loss falls from {mpmath.nstr(g[0], 3)} (L = {fmt(pushes[0])}) "
            f"to {mpmath.nstr(max(g[-1], mpmath.mpf(0)), 3)} (L = {fmt(pushes[-1])}) along {fam}; "
            + "; ".join(f"k={kk}: gap {mpmath.nstr(gg[0], 3)} -> {mpmath.nstr(max(gg[-1], mpmath.mpf(0)), 3)}" for kk, _, gg in studies)
            + f"; best loss by k (pushed to the search box): {by_k}")
    else:
        res.tightness = "loose"
        res.tightness_evidence = (f"largest loss found {mpmath.nstr(res.loss, 10)} = {mpmath.nstr(res.loss / eps, 6)}·ε; "
                                  f"gaps at the largest push: " + ", ".join(f"k={k}: {mpmath.nstr(g[-1], 3)}" for k, _, g in studies))


def _moderate_at_bound(mech: AboveThreshold, scale: float, unit: Fraction):
    """The structured witness with the smallest |queries - t| whose float64 loss is within
    1e-9 of ε, over k <= 3 and the grid u, v ∈ unit·{-2..2}/2 (None if none)."""
    eps = float(mech.epsilon)
    delta = float(mech.sensitivity)
    vals = sorted({Fraction(j, 2) * unit for j in range(-4, 5)} | {Fraction(0)}, key=lambda x: (abs(x), x))
    best = None
    for k in (2, 3):
        for u in vals:
            for v in vals:
                for s1, s2 in SHIFT_PATTERNS:
                    lr = family_log_ratio(mech, k - 1, np.array([float(u)]), np.array([float(v)]), s1 * delta, s2 * delta)[0]
                    if abs(abs(lr) - eps) <= 1e-9 * max(1, eps):
                        size = max(abs(u), abs(v))
                        if best is None or size < best[0]:
                            q, qn, out = _family_vectors(mech, k - 1, True, u, v, s1, s2)
                            best = (size, q, qn, out)
        if best is not None:
            return best[1:]
    return None


def _symbolic_ratio(mech: AboveThreshold, w: LossWitness) -> str | None:
    """Exact Pr[A(D)=s]/Pr[A(D')=s] by sympy with ε, Δ symbolic (queries in units of Δ), when cheap."""
    if len(w.queries) > 3 or any(s.multiplier is None for s in (mech.threshold_spec, mech.query_spec) if not s.is_none):
        return None
    import sympy

    from verify.mechanism import output_column
    from verify.probabilities import symbolic_distribution

    d, t = mech.sensitivity, mech.threshold
    q = [(x - t) / d for x in w.queries]
    qn = [(x - t) / d for x in w.neighbour_queries]
    m0 = AboveThreshold(mech.epsilon, mech.sensitivity, 0, mech.threshold_spec, mech.query_spec)
    c = output_column(w.output, len(q))
    p = symbolic_distribution(m0, q, symbolic_parameters=True)[c]
    pn = symbolic_distribution(m0, qn, symbolic_parameters=True)[c]
    return str(sympy.simplify(p / pn))
