"""Proven bounds on the privacy loss of SVT variants: upper bounds (for `private`) and growth (for `unbounded`).

Notation: Δ sensitivity, Z threshold noise, X query noise, Y fresh release
noise; F(y) = Pr[X < y], S(y) = Pr[X >= y]; the run compares q_i + X_i >= t + Z.
A noise law is *log-Lipschitz with constant L* for a function g (density or
survival) when |log g(u) - log g(u + h)| <= L|h| wherever the left side is
finite and the step keeps inside the support in the direction used:

* Laplace Lap(b): density and survival, L = 1/b;
* exponential Exp(b): survival, L = 1/b (log S(y) = -max(0, y)/b); density not
  usable in the threshold (the supports of z and z + Δ differ, seed Mechanism Two);
* Gaussian, none: neither (no pure-DP bound from this argument).

Upper bound (`proven_upper_bound`), the change of variables of the seed's
Proof 2 extended as in Lyu, Su, Li (PVLDB 2017), proof of Thm 2:

1. **Shared threshold, cutoff c, no release.**  Given Z = z the answers are
   independent: Pr[a | D] = ∫ p_Z(z) Π_{i∈B} F(t+z-q_i) Π_{i∈A} S(t+z-q_i) dz,
   with at most c aboves in a.  Substitute z = z' - Δ (Jacobian 1): the below
   factors only grow, F(t+z-q_i) <= F(t+z+Δ-q_i') because q_i' <= q_i + Δ and F
   is non-decreasing; each above factor's argument grows by h = Δ + q_i - q_i' in
   [0, 2Δ], so S(t+z-q_i) <= e^{2Δ L_S} S(t+z+Δ-q_i'); and p_Z(z) <= e^{Δ L_Z}
   p_Z(z+Δ).  Integrating, Pr[a|D] <= e^{Δ L_Z + 2cΔ L_S} Pr[a|D'], and by
   symmetry the reverse: **Δ/b_Z + 2cΔ/b_X** for Laplace/Laplace (c = 1: the
   seed's Δ/b_Z + 2Δ/b_X).  Lyu Alg. 1 (b_Z = 2Δ/ε, b_X = 4cΔ/ε): ε; Alg. 4
   (b_Z = 4Δ/ε, b_X = 4Δ/(3ε)): (1 + 6c)ε/4.
2. **Resample** (a fresh Z after each above): the output splits into at most c
   independent segments B..BA (each an AboveThreshold run with its own Z) and a
   trailing B..B when fewer than c aboves occurred; each B..BA segment costs
   Δ L_Z + 2Δ L_S (case 1 with c = 1), a trailing B-run Δ L_Z, so j < c aboves
   cost at most (j + 1)Δ L_Z + 2jΔ L_S <= c(Δ L_Z + 2Δ L_S): **c(Δ/b_Z + 2Δ/b_X)**.
3. **Gap release** v_i = q_i + X_i - (t + Z) >= 0: the above factor S(...) becomes
   the density p_X(v_i + t + z - q_i), whose argument moves by the same h in
   [0, 2Δ] under the substitution; with L_p the density's constant the bound is
   case 1/2 with L_p for L_S (Laplace: unchanged, Δ/b_Z + 2cΔ/b_X; Ding et al.,
   PVLDB 13(3) 2019).
4. **Fresh release** v_i = q_i + Y_i (NumericalSVT): the factor p_Y(v_i - q_i)
   does not involve z and its argument moves by |q_i - q_i'| <= Δ: add
   **cΔ/b_Y** (Laplace Y).  NumericalSVT (b_Z = 3Δ/ε, b_X = 6cΔ/ε, b_Y = 3cΔ/ε): ε.
5. **Query release** v_i = q_i + X_i (Lyu Alg. 3): the density carries the
   indicator [v_i >= t + z], which caps z from above and does not move with q;
   the substitution z -> z + Δ leaves part of D's range without a counterpart, so
   no bound follows: None (and `query_release_growth` proves the loss unbounded).
6. **Monotone neighbours** (all q_i' - q_i of one sign, Lyu §4): if q' >= q,
   for Pr[D]/Pr[D'] substitute z = z' - Δ and the above arguments move by
   Δ - (q_i' - q_i) in [0, Δ]; for Pr[D']/Pr[D] keep z (no density cost) and the
   below factors F(t+z-q_i') <= F(t+z-q_i), the above arguments move by q_i' - q_i
   in [0, Δ]; q' <= q is the mirror image.  The factor 2 on the query term drops
   to 1: Δ/b_Z + cΔ/b_X (shared), c(Δ/b_Z + Δ/b_X) (resample).
7. **Unlimited cutoff**: the number of aboves is not bounded, the argument gives
   Δ L_Z + 2kΔ L_S for k queries (`upper_bound_at`), no bound uniform in k: None.

For the seed's own mechanisms with non-Laplace threshold noise (cutoff 1,
shared, no release, Laplace/exponential families: Mechanism Two), the bound is
the supremum of the conditional ratio certified by `verify.certify` (`_seed_bound`).
This is the one proven-bound module: `verify.worstcase.proven_upper_bound` is its view for
the seed's `AboveThreshold`, and a discrete variant (noise on ℤ) gets its bound here too, by the
integer change of variables derived in `verify.discrete.bound` (same `ProvenBound`).

Growth (lower bounds that are proofs, for the `unbounded` flag):

* `no_cutoff_growth` (cutoff None, Laplace X, any Z): m aboves at t - L and m
  belows at t + L, neighbour shifted by -Δ resp. +Δ; output A^m B^m.  For |z| < L
  every factor is in its exponential piece, S(z+L)^m F(z-L)^m = 4^{-m} e^{-2mL/b_X}
  (independent of z), so Pr[D] >= 4^{-m} e^{-2mL/b_X} Pr[|Z| < L]; for |z| >= L'
  = L + Δ the neighbour's integrand is at most 2^{-m} e^{-2mL'/b_X} p_Z(z), so
  Pr[D'] <= 4^{-m} e^{-2mL'/b_X} (1 + 2^m Pr[|Z| >= L']).  Hence loss(2m) >=
  2mΔ/b_X + log Pr[|Z| < L] - log(1 + 2^m Pr[|Z| >= L]); with Laplace Z and
  L = b_Z (m + 2) ln 2: loss(k) >= kΔ/b_X - log(5/3) for every even k.
* `query_release_growth` (release query, Laplace X, any Z, cutoff c >= 1): i - 1
  belows at t + L (L >= 0), then an above with released value v = t - M (M >= 0),
  neighbour: belows shifted by +Δ, the above's query by +Δ too.  The density is
  p_X(v - q_i) ∫_{z <= v - t} p_Z(z) Π_{j<i} F(t+z-q_j) dz and for z <= -M every
  F is ½e^{(z-L)/b_X}, so the ratio is exactly e^{(i-1)Δ/b_X} · e^{Δ/b_X}: loss = iΔ/b_X.
* `gaussian_tail_growth` (Gaussian Z and X, cutoff 1): one query, output A,
  q = t - L, q' = t - L + Δ: Pr = Q((L)/σ), Q the standard normal tail, σ² = σ_Z² + σ_X²;
  log Q is concave with slope <= -x/σ² (Mills ratio), so loss >= Δ(L - Δ)/σ²,
  unbounded in L.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cache

import mpmath

from verify.discrete.bound import change_of_variables_bound
from verify.errors import InputError
from verify.exact import exceeds, fmt
from verify.mechanism import AboveThreshold, SparseVector, as_variant
from verify.noise import Gaussian, Laplace, Noise, NoiseSpec
from verify.release.protocol import Role, TermKind


@dataclass(frozen=True)
class ProvenBound:
    """An upper bound (nats) on the loss of every output, with its formula and the derivation step used."""

    value: Fraction
    formula: str
    source: str

    def exceeded_by(self, loss: mpmath.mpf, tol: Fraction) -> bool:
        """Is a confirmed loss above this bound by more than ``tol``?  loss > value + tol, decided exactly."""
        return exceeds(loss, self.value + tol)


def _lip_density(law: Noise) -> Fraction | None:
    return law.law.density_lipschitz(law.scale)


def _lip_survival(law: Noise) -> Fraction | None:
    return law.law.sf_lipschitz(law.scale)


def why_no_bound(shape: SparseVector, monotone: bool = False) -> str | None:
    """The reason `proven_upper_bound` returns None (None if it returns a bound)."""
    return _bound(shape, monotone, None)[1]


def proven_upper_bound(shape: SparseVector, monotone: bool = False) -> ProvenBound | None:
    """The proven bound of the module docstring (cases 1-7), or None when none is derived.

    >>> from verify.mechanism import SparseVector
    >>> from verify.noise import NoiseSpec
    >>> lap = lambda b: NoiseSpec("laplace", absolute=b)
    >>> lyu4 = SparseVector(Fraction(1, 10), 1, 1, lap(40), lap(Fraction(40, 3)), cutoff=2)
    >>> proven_upper_bound(lyu4).value / lyu4.epsilon      # (1 + 6c)/4 at c = 2
    Fraction(13, 4)
    >>> proven_upper_bound(lyu4, monotone=True).value / lyu4.epsilon
    Fraction(7, 4)
    """
    return _bound(shape, monotone, None)[0]


def upper_bound_at(shape: SparseVector, k: int, monotone: bool = False) -> ProvenBound | None:
    """The bound for runs of at most k queries (at most min(c, k) aboves); finite also for unlimited c."""
    return _bound(shape, monotone, k)[0]


def _bound(shape: SparseVector, monotone: bool, k: int | None) -> tuple[ProvenBound | None, str | None]:
    if shape.is_discrete:  # sums over ℤ: the integer change of variables (valid for every neighbour, monotone or not)
        value, formula, source = change_of_variables_bound(shape, k)
        return (None, formula) if value is None else (ProvenBound(value, formula, source), None)
    d = shape.sensitivity
    if shape.cutoff is None and k is None:
        return None, "unlimited cutoff: the change-of-variables bound grows with the number of aboves (case 7)"
    aboves = shape.cutoff if k is None else (k if shape.cutoff is None else min(shape.cutoff, k))
    rule = shape.release_rule  # its attributes (`verify.release.protocol`), never its name
    if rule.bound_blocker is not None:
        return None, rule.bound_blocker
    lz = _lip_density(shape.threshold_noise)
    seed = shape.cutoff == 1 and shape.threshold_policy == "shared" and not rule.releases_values and not monotone
    if lz is None:
        if seed:  # the certified bound holds for every number of queries
            return _seed_bound(shape)
        return None, f"threshold noise {shape.threshold_noise.describe()} has no log-Lipschitz density"
    density_of_x = rule.above_term is TermKind.DENSITY  # the A's factor is p_X, not S_X
    lx = _lip_density(shape.query_noise) if density_of_x else _lip_survival(shape.query_noise)
    if lx is None:
        what = "density" if density_of_x else "survival function"
        return None, f"query noise {shape.query_noise.describe()} has no log-Lipschitz {what}"
    ly = Fraction(0)
    released = rule.constant_noise(shape)  # a constant density p_Y(v - q) moves with q: c·Δ·L_Y
    if released is not None:
        ly_ = _lip_density(released)
        if ly_ is None:
            return None, f"release noise {released.describe()} has no log-Lipschitz density"
        ly = ly_
    w = 1 if monotone else 2
    rel = aboves * d * ly
    if shape.threshold_policy == "shared":
        value = d * lz + w * aboves * d * lx + rel
        formula = f"Δ·L_Z + {w}·{aboves}·Δ·L_X" + (f" + {aboves}·Δ·L_Y" if ly else "")
        case = "case 1 (shared threshold)"
    else:
        value = aboves * (d * lz + w * d * lx) + rel
        formula = f"{aboves}·(Δ·L_Z + {w}·Δ·L_X)" + (f" + {aboves}·Δ·L_Y" if ly else "")
        case = "case 2 (resampled threshold)"
    extra = rule.bound_case
    mono = "; case 6 (monotone neighbours)" if monotone else ""
    return ProvenBound(value, f"{formula} = {fmt(value)}",
                       f"verify.family.bounds {case}{extra}{mono}: change of variables z -> z ± Δ, log-Lipschitz noise"), None


@cache
def _seed_bound(shape: SparseVector) -> tuple[ProvenBound | None, str | None]:
    """The seed's own cutoff-1 mechanisms whose threshold density is not log-Lipschitz (Mechanism Two).

    The seed's pointwise comparison fails (the exponential supports differ), so a bound is proven only
    where `verify.certify.certify_conditional_ratio` certifies the proofs' conditional ratio at this ε:
    its exact supremum bounds every s_i after integrating over x, and ⊤^k adds Pr[Z > M(D,x) - t], whose
    tail is log-Lipschitz with constant 1/b_Z for Laplace and exponential Z, so Δ/b_Z.
    """
    zn, xn = shape.threshold_noise, shape.query_noise
    if not all(n.law.piecewise and not n.is_none for n in (zn, xn)):
        return None, (f"threshold noise {zn.describe()} has no log-Lipschitz density, and the certified conditional "
                      "ratio covers Laplace and exponential threshold and query noise only")

    mech = AboveThreshold(shape.epsilon, shape.sensitivity, shape.threshold, NoiseSpec(zn.family, absolute=zn.scale),
                          NoiseSpec(xn.family, absolute=xn.scale))
    from verify.certify.conditional import certify_conditional_ratio  # lazy: start-up (sympy, only for this bound)

    try:
        cert = certify_conditional_ratio(mech, (mech.epsilon, mech.epsilon))
    except InputError as exc:
        return None, f"the conditional ratio could not be certified ({exc})"
    if not cert.certified:
        return None, "the certification engine did not certify the conditional ratio of this AboveThreshold"
    sup = cert.sup_log_ratio if cert.sup_log_ratio is not None else cert.sup_log_ratio_per_epsilon * mech.epsilon
    value = max(sup, shape.sensitivity / zn.scale)
    return ProvenBound(value, f"max(sup |log conditional ratio|, Δ/b_Z) = {fmt(value)}",
                       f"verify.certify: conditional ratio certified, sup |log ratio| = {fmt(sup)} ({cert.method}), "
                       f"integrated over x for every s_i; ⊤^k: log-Lipschitz tail of Z, Δ/b_Z = {fmt(shape.sensitivity / zn.scale)}"), None


# --------------------------------------------------------------------------------------------------
# growth: lower bounds that prove unboundedness (module docstring)
# --------------------------------------------------------------------------------------------------
@dataclass(frozen=True)
class Growth:
    """A proven lower bound on the loss along a family, growing without bound in ``parameter``."""

    statement: str
    parameter: str
    slope: Fraction  # nats per unit of the parameter (asymptotically)
    monotone_valid: bool = True  # the family's neighbour moves every query the same way

    def __str__(self) -> str:
        return self.statement


def no_cutoff_growth(shape: SparseVector) -> Growth | None:
    """Unlimited cutoff, Laplace query noise, any threshold noise: loss(k) >= kΔ/b_X - log(5/3) (Laplace Z)."""
    if shape.cutoff is not None or not isinstance(shape.query_noise.law, Laplace) or shape.threshold_policy != "shared":
        return None
    bx = shape.query_noise.scale
    slope = shape.sensitivity / bx
    if isinstance(shape.threshold_noise.law, Laplace) or shape.threshold_noise.is_none:
        tail = "log(5/3)" if isinstance(shape.threshold_noise.law, Laplace) else "0"
        return Growth(f"no cutoff: m aboves at t - L and m belows at t + L, neighbour moved by -Δ/+Δ, output A^m B^m; "
                      f"loss(k = 2m) >= kΔ/b_X - {tail} = k·{fmt(slope)} - {tail} nats (L = b_Z(m+2) ln 2; "
                      f"verify.family.bounds, no_cutoff_growth)", "k", slope, monotone_valid=False)
    return Growth(f"no cutoff: loss(k = 2m) >= kΔ/b_X + log Pr[|Z| < L] - log(1 + 2^m Pr[|Z| >= L]) for every L; "
                  f"slope Δ/b_X = {fmt(slope)} nats per query (verify.family.bounds, no_cutoff_growth)", "k", slope,
                  monotone_valid=False)


def query_release_growth(shape: SparseVector) -> Growth | None:
    """Query release (Lyu Alg. 3) with Laplace query noise: the i-th output can have loss exactly iΔ/b_X."""
    if shape.release_rule.constant is not Role.QUERY or not isinstance(shape.query_noise.law, Laplace) \
            or shape.threshold_policy != "shared":
        return None
    slope = shape.sensitivity / shape.query_noise.scale
    return Growth(f"query release: i-1 belows at t + L, an above releasing v = t - M (L, M >= 0), neighbour +Δ on every query: "
                  f"density ratio exactly e^(iΔ/b_X), loss = i·{fmt(slope)} nats, for every c >= 1 "
                  f"(verify.family.bounds, query_release_growth)", "i", slope)


def no_threshold_noise_growth(shape: SparseVector) -> Growth | None:
    """No threshold noise, Laplace query noise: every below adds exactly Δ/b_X (seed, the example under Mechanism One)."""
    if not shape.threshold_noise.is_none or not isinstance(shape.query_noise.law, Laplace):
        return None
    slope = shape.sensitivity / shape.query_noise.scale
    return Growth(f"no threshold noise: the output probability is a product of per-query factors; m belows at t "
                  f"(neighbour t + Δ: F(0)/F(-Δ) = e^(Δ/b_X) each) and an above at t (neighbour t) give loss exactly "
                  f"mΔ/b_X = m·{fmt(slope)} nats, for every m (verify.family.bounds, no_threshold_noise_growth)", "m", slope)


#: The longest growth-family member `growth_witness` builds (the exact confirmation's cost grows with it).
GROWTH_WITNESS_MAX_QUERIES = 64


def growth_witness(shape: SparseVector, g: Growth, loss: Fraction) -> tuple[tuple, tuple, str, tuple] | None:
    """Queries, neighbour, outcome and released values of a member of ``g``'s family whose loss exceeds ``loss``
    (proven by ``g``'s statement; the caller still confirms it at 50 digits), or None when ``g``'s family has no
    member here or it needs more than `GROWTH_WITNESS_MAX_QUERIES` queries.

    * `no_threshold_noise_growth` (parameter m): m = floor(loss·b_X/Δ) + 1 belows at t, then an above at t that
      the neighbour keeps (its factor, and its released value t, or gap 0, cancel): loss mΔ/b_X exactly;
    * `query_release_growth` (parameter i): L = M = 0, i = floor(loss·b_X/Δ) + 1 queries at t, output B^{i-1}A
      releasing t, neighbour t + Δ on every query: loss iΔ/b_X exactly;
    * `no_cutoff_growth` with Laplace threshold noise or none (parameter k = 2m): the smallest m with
      2mΔ/b_X - log(5/3) > loss, m aboves at t - L and m belows at t + L (L = `no_cutoff_push`), neighbour
      -Δ resp. +Δ, output A^m B^m: loss >= 2mΔ/b_X - log(5/3)."""
    if g.slope <= 0:
        return None
    t, d = shape.threshold, shape.sensitivity
    if g.parameter in ("m", "i"):
        n = int(loss / g.slope) + 1  # n·slope > loss
        if n + (g.parameter == "m") > GROWTH_WITNESS_MAX_QUERIES:
            return None
        if g.parameter == "i":
            return (t,) * n, (t + d,) * n, "B" * (n - 1) + "A", (t,)
        value = shape.release_rule.noiseless_value(t, t)  # the above at t: X = Z = 0 (any other density cancels)
        rel = () if value is None else (value,)
        return (t,) * (n + 1), (t + d,) * n + (t,), "B" * n + "A", rel
    laplace_z = isinstance(shape.threshold_noise.law, Laplace) or shape.threshold_noise.is_none
    if g.parameter != "k" or not laplace_z:
        return None
    tail = Fraction(511, 1000)  # > log(5/3) = 0.5108...
    m = int((loss + tail) / (2 * g.slope)) + 1  # 2m·slope - log(5/3) > loss
    if 2 * m > GROWTH_WITNESS_MAX_QUERIES:
        return None
    push = no_cutoff_push(shape, m)
    return ((t - push,) * m + (t + push,) * m, (t - push - d,) * m + (t + push + d,) * m, "A" * m + "B" * m, ())


def fresh_release_growth(shape: SparseVector) -> Growth | None:
    """Fresh release with Gaussian noise Y ~ N(0, σ_Y²), query noise of full support (Laplace, Gaussian).

    One above at q releasing r = q + L, neighbour q' = q - Δ: the integral factor of D' is no larger
    (S(t+z-q+Δ) <= S(t+z-q), the other queries unchanged) and the release factor, outside the integral,
    has ratio p_Y(L)/p_Y(L+Δ) = exp((2LΔ + Δ²)/(2σ_Y²)): loss >= (2LΔ + Δ²)/(2σ_Y²), unbounded in L."""
    if shape.release_rule.constant is not Role.RELEASE or not isinstance(shape.release_noise.law, Gaussian) \
            or not isinstance(shape.query_noise.law, (Laplace, Gaussian)):
        return None
    var = shape.release_noise.scale**2
    return Growth(f"fresh release with Gaussian noise: an above at q releasing q + L, neighbour q - Δ: the release "
                  f"density's ratio alone is exp((2LΔ + Δ²)/(2σ_Y²)), σ_Y² = {fmt(var)}, and the rest of the "
                  f"neighbour's probability is no larger: loss >= (2LΔ + Δ²)/(2σ_Y²), unbounded in L "
                  f"(verify.family.bounds, fresh_release_growth)", "L", shape.sensitivity / var)


def gaussian_tail_growth(shape: SparseVector) -> Growth | None:
    """Gaussian threshold and query noise: loss >= Δ(L - Δ)/σ² for one query at t - L (unbounded in L)."""
    z, x = shape.threshold_noise, shape.query_noise
    if not (isinstance(z.law, Gaussian) or z.is_none) or not isinstance(x.law, Gaussian):
        return None
    var = z.scale**2 + x.scale**2
    slope = shape.sensitivity / var
    return Growth(f"Gaussian noise: one query at t - L, neighbour t - L + Δ, output A: loss >= Δ(L - Δ)/σ² with "
                  f"σ² = σ_Z² + σ_X² = {fmt(var)} (Mills ratio; verify.family.bounds, gaussian_tail_growth)", "L", slope)


def growth(shape: SparseVector, monotone: bool = False) -> Growth | None:
    """The first growth family of the module docstring that applies (to monotone neighbours if asked), or None."""
    for f in (query_release_growth, no_cutoff_growth, no_threshold_noise_growth, fresh_release_growth,
              gaussian_tail_growth):
        g = f(shape)
        if g is not None and (g.monotone_valid or not monotone):
            return g
    return None


def no_cutoff_push(shape: SparseVector, m: int) -> Fraction:
    """The L of `no_cutoff_growth` for 2m queries: (ceil(1000·b_Z·(m+2)·ln 2) + 1)/1000, with b_Z = 1 when Z is none."""
    bz = shape.threshold_noise.scale if not shape.threshold_noise.is_none else Fraction(1)
    return Fraction(math.ceil(float(bz) * (m + 2) * math.log(2) * 1000) + 1, 1000)


def proven_upper_bound_of(mech: object, monotone: bool = False) -> ProvenBound | None:
    """`proven_upper_bound` of a variant (a `SparseVector`; the seed's `AboveThreshold` constructors build one)."""
    return proven_upper_bound(as_variant(mech), monotone)
