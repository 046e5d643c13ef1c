"""Float64 output probabilities of every SVT variant, vectorised over query vectors.

The integrand of an output (`integrand`) is integrated by composite
Gauss–Legendre quadrature with ``GL_NODES`` nodes per panel.  Panels never
straddle a kink (0, every a_j = q_j - t, a cap): every point where a factor
is not smooth is a panel edge, so on each panel the integrand is analytic.
A segment between kinks is cut into panels across which the log-integrand
varies by at most ``PANEL_VARIATION`` (from a bound B on |d/dz log f|: the
threshold density's rate plus λ for every query whose factor is a pure
exponential there, λ for the queries within 5/λ of it, λe^{-5} for the rest).

Error (an *estimate*, except where said): the m-point Gauss–Legendre rule on
a panel of width h integrates e^{cz} with relative error
Δ^{2m}(m!)^4/((2m+1)((2m)!)^3), Δ = c·h (the remainder term of the rule, e.g.
Abramowitz and Stegun 25.4.30, with f^{(2m)} = c^{2m} f); with Δ <= 3 and
m = 8 that is 7e-16.  The two tails beyond the outermost kinks are cut at
±45/rate; their mass is *bounded* by Pr[Z beyond the cut] times the factors'
bounds there (G_{i-1} <= G_{i-1}(L) on the left, S_i <= S_i(R) on the right).
Rounding adds about (number of factors)·8·2^-53.  The per-row estimate is
the sum; `verify.family.fast_api` re-evaluates rows above the tolerance with mpmath.

Cost: O(k·N) per vector with N ≈ GL_NODES·(k + 2 + tail panels) nodes: the k+1
halting probabilities of AboveThreshold are one matrix of F values, a
cumulative product along the queries and one matrix-vector product.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import numpy as np

from verify.engine.integrand import TermKind
from verify.mechanism import SparseVector
from verify.noise import Noise

GL_NODES = 8
PANEL_VARIATION = 3.0
TAIL_E_FOLDS = 45.0
EPS = float(np.finfo(float).eps)
NEAR = 5.0  # queries within NEAR/λ of a segment count fully in the variation bound


@lru_cache(maxsize=8)
def gauss_legendre(m: int) -> tuple[np.ndarray, np.ndarray]:
    """The m-point Gauss–Legendre rule moved to [0, 1]: nodes (x + 1)/2 and weights w/2 (summing to 1).

    The one float64 builder of Gauss–Legendre nodes (cached): the engine's panels, the family search's
    panel rule (`verify.family.structured`), Report Noisy Max's and Adaptive SVT's float64 paths
    (`verify.selection.fast`, `verify.adaptive.fast`).  The oracles' room builds its own mpmath rule
    (`verify.oracles.rule`, arb's roots) on purpose: it imports nothing of the engine."""
    x, w = np.polynomial.legendre.leggauss(m)
    return (x + 1) / 2, w / 2


def gl_relative_error(delta: np.ndarray, m: int = GL_NODES) -> np.ndarray:
    """Relative error of the m-point rule for e^{cz} on a panel with c·h = delta (module docstring)."""
    c = math.factorial(m) ** 4 / ((2 * m + 1) * math.factorial(2 * m) ** 3)
    with np.errstate(over="ignore"):  # inf for a panel far too wide: the row is then recomputed
        return c * np.asarray(delta, dtype=float) ** (2 * m)


#: exponents of the two outer-product factors stay within ±OUTER_MAX (else one exp per element)
OUTER_MAX = 650.0


@dataclass(frozen=True)
class OuterFactors:
    """e^{±λ(z-x)} of the query noise as products of a node vector and a column vector.

    Laplace: left = ½e^{λ(z-c)} with x_left = e^{-λ(x-c)}, right = ½e^{-λ(z-c)} with x_right = e^{λ(x-c)};
    exponential: right = e^{-λ(z-c)}, x_right = e^{λ(x-c)}; c the row's centre.  The exponents are
    formed in np.longdouble and each vector rounded once to float64, so a node's factor carries
    ε = u + 2u_L(λ|z - c| + 1) and a column's δ = u + 2u_L(λ|x - c| + 1) (u = 2^-53, u_L the long
    double's unit roundoff).  ``direct``: the exponents reach beyond ±OUTER_MAX, the vectors are
    zeros and a kernel must take one exp per element (or another path)."""

    left: np.ndarray
    right: np.ndarray
    x_left: np.ndarray
    x_right: np.ndarray
    eps: np.ndarray  # (n,)
    delta: np.ndarray  # (n, L)
    direct: bool


def outer_factors(noise: Noise, z: np.ndarray, count: np.ndarray, x: np.ndarray) -> OuterFactors:
    """`OuterFactors` for nodes z (n, N), ascending, the first count[r] of row r in use, and columns x (n, L)."""
    n = z.shape[0]
    if noise.is_none:
        zeros = np.zeros_like(z)
        return OuterFactors(zeros, zeros, np.zeros_like(x), np.zeros_like(x), np.zeros(n), np.zeros_like(x), False)
    scale = Fraction(noise.scale)
    lam = float(1 / scale)
    lam_l = np.longdouble(scale.denominator) / np.longdouble(scale.numerator)
    zmin, zmax = z[:, 0], z[np.arange(n), np.maximum(count, 1) - 1]
    c = (0.5 * (zmin + zmax))[:, None]
    reach_z = lam * np.abs(zmax - zmin) / 2
    reach_x = lam * np.abs(x - c)
    direct = not max(float(reach_z.max(initial=0.0)), float(reach_x.max(initial=0.0))) < OUTER_MAX
    u, ul = EPS / 2, float(np.finfo(np.longdouble).eps) / 2
    if direct:
        zeros = np.zeros_like(z)
        return OuterFactors(zeros, zeros, np.zeros_like(x), np.zeros_like(x), u + 2 * u * (reach_z + 1),
                            u + 2 * u * (reach_x + 1), True)
    half = float(noise.law.upper_weight)  # Laplace ½, exponential 1
    # e^{λ(z-c)} in one long double buffer (in place: the same operations as the expression
    # np.exp(lam_l * (z - c)), without its temporaries), each vector rounded once to float64 on output
    ez = z.astype(np.longdouble)
    np.subtract(ez, c, out=ez)
    np.multiply(lam_l, ez, out=ez)
    np.exp(ez, out=ez)
    left, right = np.empty(z.shape), np.empty(z.shape)
    np.multiply(half, ez, out=left, casting="same_kind")
    np.divide(half, ez, out=right, casting="same_kind")
    ex = np.exp(lam_l * (x.astype(np.longdouble) - c))
    return OuterFactors(left, right, (1 / ex).astype(float), ex.astype(float),
                        u + 2 * ul * (reach_z + 1), u + 2 * ul * (reach_x + 1), False)


def rounding_linear(factors: int | np.ndarray, count: np.ndarray, weight_exponent: np.ndarray, eps: np.ndarray,
                    delta_sum: np.ndarray) -> np.ndarray:
    """Relative rounding bound of Σ_n ω_n Π_f factor_f(z_n) formed in linear space (first order,
    u = 2^-53): u·(8 + 3f + 2|log ω|max + CHUNK - 1 + N/CHUNK) + f·ε + Σ δ.  The weight ω = p_Z·w
    (its exp and the product: 3 roundings plus 2|log p_Z| from the exponent in float64); each factor
    3 (the product of the two vectors, 1 - v, the update); each sum of N positive terms
    CHUNK - 1 + N/CHUNK (`verify.engine.halting_kernel`); ε, δ from `OuterFactors`.  Works on
    broadcast arrays: ``factors`` may be a row of counts, one per output."""
    from verify.engine.halting_kernel import CHUNK

    u = EPS / 2
    fixed = 8 + 2 * np.asarray(weight_exponent) + CHUNK - 1 + np.asarray(count) / CHUNK
    return u * (fixed + 3 * np.asarray(factors)) + np.asarray(factors) * eps + delta_sum


@dataclass(frozen=True)
class FastResult:
    """log values (n, outputs) and the estimated relative error of each."""

    log_value: np.ndarray
    error_estimate: np.ndarray


def panels(edges: np.ndarray, variation: np.ndarray, per_panel: float = PANEL_VARIATION, front: np.ndarray | None = None,
           lam: float = 0.0) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Cut each segment [edges[:, s], edges[:, s+1]] of positive width into
    clip(ceil(variation/per_panel), 1, 10 000) panels of GL_NODES nodes
    (`verify.engine.nodes.panels_rows`; ``per_panel`` smaller: more panels, a smaller rule error):
    equal panels, or, where ``front`` (`variation_parts`: the share of the variation that sits at a
    segment's left end, decaying at rate ``lam``) is positive, panels graded towards that end so that
    each carries at most variation/count.

    Returns nodes z (n, N), ascending within each row, weights w (n, N) (padding at each row's
    end: weight 0) and the largest per-panel variation of each row (for the error estimate)."""
    from verify.engine.nodes import panels_rows  # numba: imported when first needed

    x, wq = gauss_legendre(GL_NODES)
    z, w, per, _ = panels_rows(np.ascontiguousarray(edges, dtype=float), np.ascontiguousarray(variation, dtype=float),
                               per_panel, 10_000, x, wq,
                               np.zeros_like(variation, dtype=float) if front is None else np.ascontiguousarray(front, dtype=float),
                               float(lam))
    return z, w, per


def noise_rates(mech: SparseVector) -> tuple[float, float]:
    """(rate of Z's density decay, λ of the query noise) in float; Gaussian: 1/σ."""
    return _rates(mech.threshold_noise, mech.query_noise)


@lru_cache(maxsize=64)
def _rates(zn: Noise, xn: Noise) -> tuple[float, float]:
    return 0.0 if zn.is_none else 1 / float(zn.scale), 0.0 if xn.is_none else 1 / float(xn.scale)


@lru_cache(maxsize=64)
def _tail_steps(start: float, cap: float, span: float) -> np.ndarray:
    """Distances of the left tail's edges from the smallest kink (`tail_edges`): the first step
    ``start``, then each step half the distance so far, capped at ``cap``, until ``span``."""
    steps = [0.0]
    d = start
    while steps[-1] < span:
        steps.append(steps[-1] + min(d, cap))
        d = steps[-1] * 0.5
    out = np.array(steps[1:])
    out.flags.writeable = False
    return out


def variation_bound(mech: SparseVector, edges: np.ndarray, a_sorted: np.ndarray, extra: float) -> np.ndarray:
    """A bound on the variation of the log-integrand over each segment [lo, hi];
    ``extra`` adds a constant rate (λ for one S factor).

    h·(rate_Z + extra) + λh·#{a_j >= hi} (pure exponentials ½e^{λ(z-a_j)})
    + c·Σ_{a_j <= lo} (e^{-λ(lo - a_j)} - e^{-λ(hi - a_j)})  (∫ of |d/dz log(1 - ½e^{-λy})| <= λe^{-λy};
    c = 1 for Laplace, 1.6 for the exponential family, whose 1 - e^{-λy} vanishes at its kink and
    is integrated as the polynomial it is there).  The sums over the sorted a_j are prefix sums:
    O(k) per row."""
    return variation_parts(mech, edges, a_sorted, extra)[0]


def variation_parts(mech: SparseVector, edges: np.ndarray, a_sorted: np.ndarray, extra: float) -> tuple[np.ndarray, np.ndarray]:
    """`variation_bound` and each segment's front D = c·Σ_{a_j <= lo} e^{-λ(lo - a_j)}: the last sum's
    share of the variation over [lo, lo + x] is D(1 - e^{-λx}), concentrated at the segment's left end
    (`panels` grades the panels there with it)."""
    from verify.engine.nodes import variation_rows  # numba: imported when first needed

    rz, lx = noise_rates(mech)
    c = 1.6 if mech.query_noise.law.lower_weight == 0 else 1.0  # exponential: vanishes at its kink
    return variation_rows(np.ascontiguousarray(edges, dtype=float), np.ascontiguousarray(a_sorted, dtype=float),
                          rz + extra, lx, c)


def tail_edges(mech: SparseVector, points: np.ndarray) -> np.ndarray:
    """All edges: the tail cuts, the kinks (``points``, sorted along each row), and geometric steps
    into each tail.

    Left of the kinks the integrand of an output with i F-factors decays like
    e^{λ(i-1)(z - a_min)}: panels as wide as 1/2 their distance from a_min, starting at
    PANEL_VARIATION/(rate_Z + λk), keep every output's error small where it has mass
    (and `variation_bound` counts no pure exponentials there); their width is capped
    by PANEL_VARIATION/(rate_Z + λ) for the slowly decaying outputs."""
    rz, lx = noise_rates(mech)
    n, k1 = points.shape
    left, right = tail_cuts(mech, points)
    start = PANEL_VARIATION / (rz + lx * k1 + 1e-300)
    cap = PANEL_VARIATION / (rz + lx + 1e-300)
    steps = _tail_steps(start, cap, tail_reach(mech.threshold_noise))  # reach = min(points) - left on every row
    lo, hi = points[:, :1], points[:, -1:]
    left_steps = np.maximum(lo - steps[None, :], left[:, None])
    unit = 1 / max(lx, rz, 1e-300)
    right_steps = np.minimum(hi + unit * 2.0 ** np.arange(-3, 8)[None, :], right[:, None])
    return np.sort(np.concatenate([left[:, None], left_steps, points, right_steps, right[:, None]], axis=1), axis=1)


def left_tail_mask(edges: np.ndarray, points: np.ndarray) -> np.ndarray:
    """Segments left of the smallest kink (their pure exponentials are not counted, see `tail_edges`)."""
    return edges[:, 1:] <= points.min(axis=1, keepdims=True)


def tail_cuts(mech: SparseVector, points: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Left and right truncation points: TAIL_E_FOLDS scales of Z beyond the outermost kinks."""
    reach = tail_reach(mech.threshold_noise)
    return points.min(axis=1) - reach, points.max(axis=1) + reach


def tail_reach(zn: Noise) -> float:
    """TAIL_E_FOLDS scales of Z (Gaussian: √(2·TAIL_E_FOLDS) standard deviations)."""
    b = float(zn.scale)
    return zn.law.tail_reach(b, TAIL_E_FOLDS)


def log_factor(noise: Noise, kind: TermKind, y: np.ndarray) -> np.ndarray:
    """log F(y), log S(y) or log p(y) of the query noise, float64 (the kernel of `verify.noise`)."""
    if kind is TermKind.BELOW:
        return noise.log_cdf(y)
    if kind is TermKind.ABOVE:
        return noise.log_sf(y)
    return noise.log_pdf(y)


def mode_log(noise: Noise) -> float:
    """log of the density's maximum (the family's `log_mode`)."""
    return noise.law.log_mode(float(noise.scale))


def logsumexp_weighted(logf: np.ndarray, w: np.ndarray, axis: int = -1) -> np.ndarray:
    """log Σ w·e^{logf} with w >= 0 (padding w = 0 ignored)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        lw = np.where(w > 0, np.log(np.where(w > 0, w, 1.0)) + logf, -np.inf)
        top = lw.max(axis=axis, keepdims=True)
        safe = np.where(np.isfinite(top), top, 0.0)
        s = np.exp(lw - safe).sum(axis=axis, keepdims=True)
        out = np.where(np.isfinite(top), safe + np.log(s), -np.inf)
    return np.squeeze(out, axis=axis)
