"""All k+1 halting probabilities of AboveThreshold in float64 (cutoff 1, no release).

What the kernel assumes is checked first (`halting_refusal`, one line why not; the front door
`verify.family.fast_api` then integrates each outcome on the generic path):

* the outcomes for k queries are B^{i-1}A (i = 1..k) and B^k, and the one description of each
  (`verify.engine.integrand`, read over the columns by `verify.engine.piecewise.column_plan`) is one
  uncapped piece F(z - a_1)···F(z - a_{i-1})·S(z - a_i) (F^k for B^k) without constants: the
  chain below.  That is cutoff 1 (any threshold policy: the run halts before a resampling) and an
  above's factor S_X (no release).  It is checked at k = 3 (the first k with an F·F prefix);
  the description is built letter by letter, so the chain holds for every k once it holds there;
* the query noise is Laplace, exponential or none (the kernel's codes, `kernel_mode`);
* the threshold noise is Laplace or exponential: `variation_bound` takes its log-density's slope
  to be at most 1/b, and p_Z is evaluated at the nodes (no threshold noise: no density; the seed's
  point product serves it).

    Pr[B^{i-1}A] = ∫ p_Z(z) G_{i-1}(z) S(z - a_i) dz,  Pr[B^k] = ∫ p_Z(z) G_k(z) dz,
    G_i(z) = Π_{j<=i} F(z - a_j)

(seed, Proof 1's conditioning on Z; `verify.engine.integrand`).  One set of
Gauss–Legendre nodes serves every output (`verify.engine.fast_plan.panels`, kinks
at 0 and every a_j); at the nodes, M_i = p_Z·w·G_{i-1} is updated in place
query by query and each output is one sum (`verify.engine.halting_kernel`,
compiled: one pass over the live nodes per query).  Everything is positive, so
the sums do not cancel; products are formed in linear space (values below
1e-290 are flagged, error estimate inf, and recomputed by the caller).

Cost: O(k·N) with N = O(k) nodes (a panel edge at every kink: the integrand
of output i has a kink at every a_j, j < i, which no panel may straddle), but
with a small constant: the window (nodes whose M falls below WINDOW of the
largest are left out for good, and their mass bounded) keeps N_live well
below N for the later outputs, and the loop is vectorised.  Measured by
`benchmarks/bench_family.py` (docs/family.md).

Error estimate per output (relative):
* the panel rule: `verify.engine.fast_plan.gl_relative_error` of the largest
  per-panel variation (the m-point remainder for e^{cz}; an estimate);
* the tails (a bound): Pr[Z < L]·G_{i-1}(L) + Pr[Z >= R]·S(R - a_i), plus the
  mass of the nodes the window left out, over the value;
* rounding (a first-order bound, u = 2^-53, u_L the unit roundoff of the
  exponent arithmetic): the factors ½e^{λ(z_n - c)} and e^{∓λ(a_j - c)} are
  formed in extended precision (np.longdouble) and rounded once, so each
  carries ε = u + 2u_L(λ|z_n - c| + 1) (per node; its row's largest) or δ_j = u + 2u_L(λ|a_j - c| + 1)
  (per query).  Each node carries its own bound (`verify.engine.halting_kernel`): ε + δ_j + 2u
  for a factor t = ½e^{λ(z-a_j)}, 2(ε + δ_j + 2u)·s for a factor 1 - s (the update is compensated,
  Fast2Sum, so only the errors of s and m·s remain, small where s is), 4u for an exponential factor
  near its kink; the output's error is Σ_n M_i(n)·S_i(n)·err(n) / value (the nodes' bounds weighted
  by their shares), plus its own S factor ε + δ_i + 4u, the weight p_Z·w (3 + 2λ_Z max|z|) and each
  sum of N positive terms CHUNK - 1 + N/CHUNK:
      Σ_n M S err / v + ε + δ_i + 4u + u·(8 + 2λ_Z max|z| + CHUNK - 1 + N/CHUNK).
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import numpy as np

from verify.engine.fast_plan import (
    PANEL_VARIATION,
    FastResult,
    gl_relative_error,
    left_tail_mask,
    noise_rates,
    outer_factors,
    panels,
    tail_edges,
    variation_parts,
)
from verify.engine.integrand import TermKind
from verify.engine.piecewise import column_plan
from verify.errors import InputError
from verify.mechanism import SparseVector
from verify.noise import Exponential, Laplace, Noise

TINY = 1e-290
#: nodes whose running mass G·p_Z·w is below this fraction of the largest are left out (and bounded)
WINDOW = 1e-40
#: nodes beyond max a_j + DEFER_E_FOLDS/λ are not visited (`verify.engine.halting_kernel`): each
#: factor there is within e^{-DEFER_E_FOLDS} = 2.9e-20 of 1, k of them within 3e-16 at k = 10^4
DEFER_E_FOLDS = 45.0


def kernel_mode(xn: Noise) -> int:
    """The compiled kernel's mode for the query noise: Laplace, exponential or none; any other family
    (Gaussian: no piecewise-exponential factors) is refused, never sent to another family's kernel."""
    from verify.engine.halting_kernel import EXPONENTIAL, LAPLACE, NONE

    if xn.is_none:
        return NONE
    if isinstance(xn.law, Laplace):
        return LAPLACE
    if isinstance(xn.law, Exponential):
        return EXPONENTIAL
    raise InputError(f"query noise: the fast halting kernel covers Laplace, exponential and none, not {xn.family}")


def _chain(plan) -> list[list[tuple[TermKind, int]]]:
    """The (kind, column) sequence of each outcome of a `verify.engine.piecewise.ColumnPlan`, in order."""
    paths = []
    for leaf in plan.trie.leaves:
        path, node = [], leaf
        while node:
            parent, term = plan.trie.nodes[node - 1]
            path.append(term)
            node = parent
        paths.append(path[::-1])
    return paths


#: the halting chain at k = 3: B^{i-1}A is F..F S, B^3 is F F F
CHAIN = [[(TermKind.BELOW, j) for j in range(i)] + ([(TermKind.ABOVE, i)] if i < 3 else []) for i in range(4)]


def halting_refusal(mech: SparseVector) -> str | None:
    """Why the halting kernel does not serve ``mech`` (one line), or None if it does (module docstring)."""
    zn, xn = mech.threshold_noise, mech.query_noise
    if mech.is_discrete:
        return f"{mech.name} has discrete noise (sums over the integers, verify.discrete)"
    if not isinstance(zn.law, (Laplace, Exponential)):
        return f"threshold noise {zn.family}: the kernel's panels and weights assume a Laplace or exponential density"
    if not (xn.is_none or isinstance(xn.law, (Laplace, Exponential))):
        return f"query noise {xn.family}: the kernel covers Laplace, exponential and none"
    cut = "unlimited" if mech.cutoff is None else mech.cutoff
    why = f"cutoff {cut}, release {mech.release.value}: the outcomes are not the halting chain B^(i-1)A, B^k of F...F·S factors"
    try:
        plan = column_plan(mech, 3)
    except InputError as exc:
        return f"{why} ({exc})"
    return None if _chain(plan) == CHAIN else why


def _kernel(xn: Noise, z: np.ndarray, omega: np.ndarray, count: np.ndarray, a: np.ndarray) -> tuple[np.ndarray, ...]:
    """`verify.engine.halting_kernel.halting_rows` with the factors of `verify.engine.fast_plan.outer_factors`
    (one exp per element where those could overflow).  Returns (values, dropped, weighted, ε, δ)."""
    from verify.engine.halting_kernel import halting_rows  # numba: when first needed

    f = outer_factors(xn, z, count, a)
    mode = kernel_mode(xn)
    lam = 0.0 if xn.is_none else float(1 / Fraction(xn.scale))
    defer = DEFER_E_FOLDS / lam if lam > 0 else 0.0
    values, dropped, weighted = halting_rows(mode, lam, f.direct, z, f.left, f.right, omega, count, a, f.x_left,
                                             f.x_right, WINDOW, np.ascontiguousarray(f.eps, dtype=float),
                                             np.ascontiguousarray(f.delta, dtype=float), defer)
    return values, dropped, weighted, f.eps, f.delta


def halting_distribution(mech: SparseVector, q: np.ndarray, per_panel: float = PANEL_VARIATION,
                         extended_upto: int | None = None) -> FastResult:
    """log Pr of B^{i-1}A (i = 1..k) and B^k for each row of q (n, k), with error estimates.

    ``per_panel``: the panels' largest variation (smaller: more panels, a smaller rule error).
    ``extended_upto``: outputs 0..extended_upto in long double instead (`verify.engine.halting_extended`,
    the escalation step; the later outputs are inf with estimate inf).
    Refuses (`InputError`, the reason of `halting_refusal`) a variant the kernel does not serve."""
    why = halting_refusal(mech)
    if why is not None:
        raise InputError(f"halting path: {why}")
    q = np.atleast_2d(np.asarray(q, dtype=float))
    n, k = q.shape
    zn, xn = mech.threshold_noise, mech.query_noise
    a = q - float(mech.threshold)
    points = np.sort(np.concatenate([a, np.zeros((n, 1))], axis=1), axis=1)
    edges = tail_edges(mech, points)
    rz, lx = noise_rates(mech)
    a_sorted = np.sort(a, axis=1)
    var, front = variation_parts(mech, edges, a_sorted, extra=lx)
    h = edges[:, 1:] - edges[:, :-1]
    tail = left_tail_mask(edges, points)
    var = np.where(tail, h * (rz + lx), var)
    z, w, largest = panels(edges, var, per_panel, np.where(tail, 0.0, front), lx)
    panel_err = gl_relative_error(largest)
    count = np.count_nonzero(w > 0, axis=1)  # panels() pads each row's end with weight 0
    omega = zn.pdf(z) * w  # (n, N)
    mode = kernel_mode(xn)
    lam = 0.0 if xn.is_none else float(1 / Fraction(xn.scale))
    left, right = edges[:, 0], edges[:, -1]
    z_left, z_right = np.exp(zn.log_cdf(left)), np.exp(zn.log_sf(right))
    wexp = np.abs(z).max(axis=1) * rz
    if extended_upto is not None:
        from verify.engine.halting_extended import extended_row  # numba (the kernel's mode codes): when first needed

        logv = np.full((n, k + 1), np.inf)
        err = np.full((n, k + 1), np.inf)
        upto = min(int(extended_upto), k)
        for r in range(n):
            c = count[r]
            logv[r, : upto + 1], err[r, : upto + 1] = extended_row(
                mode, lam, z[r, :c], omega[r, :c], a[r], float(panel_err[r]), float(left[r]), float(right[r]),
                float(z_left[r]), float(z_right[r]), float(wexp[r]), upto)
    else:
        from verify.engine.halting_kernel import finish_rows

        values, dropped, weighted, eps_node, delta = _kernel(xn, z, omega, count, a)
        logv, err = finish_rows(mode, lam, a, left, right, z_left, z_right, values, dropped, weighted, panel_err, count,
                                wexp, eps_node, delta, TINY)
    if xn.is_none:
        # without query noise, B^{i-1}A needs max_{j<i} a_j < Z <= a_i: exactly 0 when a_i <= that
        # maximum (whatever Z's law), and known to be 0, so nothing is recomputed
        prev = np.maximum.accumulate(np.concatenate([np.full((n, 1), -np.inf), a[:, :-1]], axis=1), axis=1)
        zero = np.concatenate([a <= prev, np.zeros((n, 1), dtype=bool)], axis=1)
        logv = np.where(zero, -np.inf, logv)
        err = np.where(zero, 0.0, err)
    return FastResult(logv, err)


#: The last step of the escalation, mpmath, takes outcomes of at most this many letters
#: (an outcome of 20 letters at k = 2000 spread queries: 0.06 s of CPU, of 60: 8 s, of 120: 14 s)
MP_FALLBACK_MAX_LETTERS = 64
#: the escalation's finer panels: the largest per-panel variation divided by this
FINER = 4.0


def escalate_row(mech: SparseVector, row: np.ndarray, outs: list[str], logp: np.ndarray, err: np.ndarray,
                 tolerance: float, mp_log: Callable[[np.ndarray, str], float],
                 max_letters: int | None = None) -> None:
    """Recompute, in place in ``logp``, the outputs of one row whose estimate ``err`` is above
    ``tolerance``: the same nodes in long double (`verify.engine.halting_extended`), then ``FINER``
    times smaller panels, then both, then ``mp_log(row, outcome)`` (the caller's exact path) for an
    outcome of at most ``max_letters`` (default `MP_FALLBACK_MAX_LETTERS`) letters; a longer one is refused in one line (`InputError`)
    rather than integrated for hours.  Both front doors (`verify.probabilities`,
    `verify.family.fast_api`) finish their halting rows here."""
    limit = MP_FALLBACK_MAX_LETTERS if max_letters is None else max_letters
    bad = err > tolerance
    steps = ({"extended_upto": None}, {"per_panel": PANEL_VARIATION / FINER},
             {"per_panel": PANEL_VARIATION / FINER, "extended_upto": None})
    for step in steps:
        if not bad.any():
            return
        options = dict(step)
        if "extended_upto" in options:
            options["extended_upto"] = int(np.nonzero(bad)[0].max())
        res = halting_distribution(mech, row[None, :], **options)
        ok = bad & (res.error_estimate[0] <= tolerance)
        logp[ok] = res.log_value[0, ok]
        bad &= ~ok
    for col in np.nonzero(bad)[0]:
        if len(outs[col]) > limit:
            raise InputError(f"queries: output {outs[col][-1]} after {len(outs[col]) - 1} queries of {len(row)} is not "
                             f"within {tolerance:g} on the float64 or long double paths, and mpmath takes outcomes of at "
                             f"most {limit} letters (hours at this length)")
        logp[col] = mp_log(row, outs[col])
