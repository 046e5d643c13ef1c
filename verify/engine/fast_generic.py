"""Float64 log-probability (or log-density) of one outcome string, for every variant.

The integrand, the one description of the outcome (`verify.engine.integrand`:
pieces, caps, densities; read over the query columns by
`verify.engine.row_plan`), is integrated by the Gauss–Legendre panels of `verify.engine.fast_plan` between all
kinks.  The panel count of a segment comes from the log-integrand's variation
measured at its ends and midpoint (a first pass over the edges, in log space
with the noise kernel of `verify.noise`), doubled plus one panel; tails are
cut where Z's own tail is below e^-45 of the kinks' reach and bounded as in
`verify.engine.fast_plan`.  The value is the rule on those panels split in two;
its error estimate is the difference from the unsplit rule (the coarser
rule's error, larger than the finer one's) + the tail bounds + rounding.

At the nodes, Laplace, exponential or no query noise: the factors are
multiplied in linear space (`verify.engine.piece_kernel`, compiled; rounding a
few units per factor, `verify.engine.fast_plan.rounding_linear`, plus the bound of
what its window left out).  Gaussian query noise (or exponents beyond the
outer products' range, or a sum that underflows): the logs of the factors
(``log_cdf``, ``log_sf``, ``log_pdf``; Gaussian through
``scipy.special.log_ndtr``) are added and summed with log-sum-exp, which
loses about (|log f| + 1)·(factors + 2)·2^-52.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from verify.engine.fast_plan import (
    EPS,
    PANEL_VARIATION,
    FastResult,
    gl_relative_error,
    log_factor,
    logsumexp_weighted,
    mode_log,
    outer_factors,
    panels,
    rounding_linear,
    tail_edges,
)
from verify.engine.integrand import TermKind
from verify.engine.row_plan import row_plan
from verify.mechanism import ABOVE, SparseVector
from verify.noise import Gaussian, Noise


def log_probability(mech: SparseVector, queries: np.ndarray, outcome: str, released: np.ndarray | Sequence | None = None) -> FastResult:
    """log Pr[outcome] (log density at the released values) for each row of ``queries`` (n, k).

    ``released``: (n, number of A's) or one row broadcast to all.  What is integrated is the one
    description of the outcome (`verify.engine.integrand.build`), read over the columns by
    `verify.engine.row_plan.row_plan`."""
    q = np.atleast_2d(np.asarray(queries, dtype=float))
    n, k = q.shape
    mech.check_outcome(outcome, k)
    n_a = outcome.count(ABOVE)
    if mech.releases_values:
        v = np.broadcast_to(np.atleast_2d(np.asarray(released, dtype=float)), (n, n_a)) if n_a else np.zeros((n, 0))
    else:
        if released is not None and np.size(released):
            mech.check_released(outcome, list(np.ravel(released)))
        v = np.zeros((n, 0))
    plan = row_plan(mech, k, outcome)
    t = float(mech.threshold)
    a = q - t
    total = np.zeros(n)
    err = np.zeros(n)
    # constants: the released values' densities p(v_r - q_j), in the description's order
    for noise, r, j in plan.constants:
        total += noise.log_pdf(v[:, r] - q[:, j])
    for piece in plan.pieces:
        xs = np.zeros((n, len(piece.kinds)))
        for c, (j, r) in enumerate(zip(piece.columns, piece.released)):
            xs[:, c] = a[:, j] if r is None else a[:, j] - v[:, r]
        for r in piece.nonnegative:
            total = np.where(v[:, r] < 0, -np.inf, total)
        cap = None
        for r in piece.caps:
            ci = v[:, r] - t
            cap = ci if cap is None else np.minimum(cap, ci)
        lv, e = _piece(mech, list(piece.kinds), xs, cap)
        total = total + lv
        err = err + e
    # the pieces' and constants' logs added: each carries its own rounding (in err), the sum adds
    # at most one rounding of |total| per term
    terms = len(plan.pieces) + plan.released
    err = err + EPS * (np.abs(total) + 1) * (terms + 1)
    err = err + argument_rounding(mech, q, v, sum(len(p.kinds) for p in plan.pieces) + terms)
    return FastResult(total, np.where(np.isnan(total), np.inf, err))


def argument_rounding(mech: SparseVector, q: np.ndarray, v: np.ndarray, factors: int) -> np.ndarray:
    """Relative error from rounding the arguments themselves, per row.

    q - t and v - q are rounded to u·R (R = max|q| + |t| + max|v|), and every factor's log moves by
    its slope times that: at most rate·u·R per factor (Laplace, exponential: |d log F/dy| <= λ),
    (R/σ)·(R/σ + 10)·u for a Gaussian (|d log Φ(y/σ)/dy| <= (|y|/σ + 1)/σ, |y| up to R plus the
    ~10σ of the tails).  Small at ordinary magnitudes; at |q| = 1e6 it is what the linear-space
    rounding misses."""
    n = q.shape[0]
    reach = (np.abs(q).max(axis=1) if q.shape[1] else np.zeros(n)) + abs(float(mech.threshold))
    if v.size:
        reach = reach + np.abs(v).max(axis=1)
    total = np.zeros(n)
    # each distinct noise once, in a fixed order (a set's order follows the string hash seed, and moved the sum's last bit)
    noises = list(dict.fromkeys(n for n in (mech.threshold_noise, mech.query_noise, mech.release_noise) if n is not None))
    for noise in noises:
        if noise.is_none:
            continue
        r = reach / float(noise.scale)
        slope = r * (r + 10) if isinstance(noise.law, Gaussian) else r
        total = total + slope
    return EPS * (factors + 2) * total


#: nodes whose running product is below this fraction of the largest are left out (and bounded)
WINDOW = 1e-40
#: a row whose window bound exceeds this fraction of its value is integrated again without the window
WINDOW_REDO = 1e-16


def _integrate(zn: Noise, xn: Noise, kinds: list[TermKind], xs: np.ndarray, z: np.ndarray,
               w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(log ∫ of the piece on the nodes, rounding estimate (relative)).

    Laplace, exponential or no query noise: the factors multiplied in linear space
    (`verify.engine.piece_kernel`; rounding `verify.engine.fast_plan.rounding_linear`).  Gaussian query
    noise, exponents beyond the outer products' range, or a row whose sum underflows: the logs of
    the factors added (`logsumexp_weighted`), which loses about (|log f| + 1)·(factors + 2)·2^-52.
    The estimate includes the bound on what the kernel's window left out (relative)."""
    n = z.shape[0]
    log_f = None
    out = np.full(n, np.nan)
    rounding = np.zeros(n)
    if xn.law.piecewise:
        from verify.engine.piece_kernel import ABOVE as K_ABOVE
        from verify.engine.piece_kernel import BELOW as K_BELOW
        from verify.engine.piece_kernel import DENSITY as K_DENSITY
        from verify.engine.piece_kernel import EXPONENTIAL, LAPLACE, NONE, piece_rows

        count = np.count_nonzero(w > 0, axis=1)  # panels() pads each row's end with weight 0
        f = outer_factors(xn, z, count, xs)
        if not f.direct:
            codes = {TermKind.BELOW: K_BELOW, TermKind.ABOVE: K_ABOVE, TermKind.DENSITY: K_DENSITY}
            kind_codes = np.array([codes[k] for k in kinds], dtype=np.int64)
            mode = NONE if xn.is_none else LAPLACE if xn.law.lower_weight else EXPONENTIAL
            lam = 0.0 if xn.is_none else 1 / float(xn.scale)
            log_pz = zn.log_pdf(z)
            omega = np.exp(log_pz) * w
            mode_d = 0.0 if xn.is_none else float(np.exp(mode_log(xn)))
            amp = np.cumprod(np.where(kind_codes == K_DENSITY, max(1.0, mode_d), 1.0)[::-1])[::-1]
            amp = np.append(amp, 1.0)
            args = (np.ascontiguousarray(z), f.left, f.right, omega, count, np.ascontiguousarray(xs), f.x_left, f.x_right)
            sums, exps, gone = piece_rows(mode, lam, kind_codes, *args, amp, WINDOW)
            # a row whose left-out nodes could matter (the later factors moved the mass to where the
            # window had cut) is integrated again without the window
            again = ~(gone <= WINDOW_REDO * sums)
            if again.any():
                sums[again], exps[again], gone[again] = piece_rows(mode, lam, kind_codes, *(v[again] for v in args), amp, 0.0)
            ok = sums > 0
            out = np.where(ok, np.log(np.where(ok, sums, 1.0)) + exps * np.log(2.0), np.nan)
            reach = np.where((w > 0) & np.isfinite(log_pz), np.abs(log_pz), 0.0).max(axis=1, initial=0.0)
            rounding = rounding_linear(len(kinds), count, reach, f.eps, f.delta.sum(axis=1))
            rounding = rounding + np.where(ok, gone / np.where(ok, sums, 1.0), 0.0)  # the window's left-out mass
    redo = np.isnan(out)
    if redo.any():
        log_f = _log_integrand(zn, xn, kinds, xs[redo], z[redo])
        lv = logsumexp_weighted(log_f, w[redo])
        out[redo] = lv
        rounding[redo] = EPS * (np.abs(lv) + 1) * (len(kinds) + 2)
    return out, rounding


def _log_integrand(zn: Noise, xn: Noise, kinds: list[TermKind], xs: np.ndarray, z: np.ndarray) -> np.ndarray:
    """log p_Z(z) + Σ log factor(z - x_c) for nodes z (n, N)."""
    out = zn.log_pdf(z)
    for c, kind in enumerate(kinds):
        out = out + log_factor(xn, kind, z - xs[:, c : c + 1])
    return out


def _piece(mech: SparseVector, kinds: list[TermKind], xs: np.ndarray, cap: np.ndarray | None) -> tuple[np.ndarray, np.ndarray]:
    zn, xn = mech.threshold_noise, mech.query_noise
    n = xs.shape[0]
    if zn.is_none:
        lv = np.zeros(n)
        for c, kind in enumerate(kinds):
            lv = lv + log_factor(xn, kind, -xs[:, c])
        if cap is not None:
            lv = np.where(cap >= 0, lv, -np.inf)
        return lv, EPS * (np.abs(lv) + 1) * (len(kinds) + 1)  # a sum of log factors
    cols = [xs, np.zeros((n, 1))] + ([cap[:, None]] if cap is not None else [])
    points = np.sort(np.concatenate(cols, axis=1), axis=1)
    edges = tail_edges(mech, points)
    if cap is not None:
        edges = np.minimum(edges, cap[:, None])
    with np.errstate(all="ignore"):
        mid = (edges[:, 1:] + edges[:, :-1]) / 2
        f_e = _log_integrand(zn, xn, kinds, xs, edges)
        f_m = _log_integrand(zn, xn, kinds, xs, mid)
        var = np.abs(f_m - f_e[:, :-1]) + np.abs(f_e[:, 1:] - f_m)
        dead = ~np.isfinite(f_m) & ~np.isfinite(f_e[:, :-1]) & ~np.isfinite(f_e[:, 1:])
        var = np.where(dead, 0.0, np.where(np.isfinite(var), 1.5 * var, 4 * PANEL_VARIATION))
    with np.errstate(all="ignore"):
        z, w, _ = panels(edges, 2 * var + PANEL_VARIATION)
        coarse, _ = _integrate(zn, xn, kinds, xs, z, w)
        z, w, per = panels(edges, 4 * var + 2 * PANEL_VARIATION)  # every panel split: the value reported
        lv, rounding = _integrate(zn, xn, kinds, xs, z, w)
        # the coarse rule's error, |e^{coarse - lv} - 1|, overestimates the fine rule's -- unless the
        # panel count was capped (a segment of 1e6 scales), when both rules are the same rule: then the
        # rule's own remainder at the per-panel variation Δ <= per/4 (taken as per/2) is the estimate
        rule = np.where(np.isfinite(lv), np.abs(np.expm1(coarse - lv)), 0.0)
        capped = per > PANEL_VARIATION * (1 + 1e-9)
        rule = rule + np.where(capped, gl_relative_error(per / 2), 0.0)
        # tails: left of L every F-factor is at most its value at L, S and densities at most 1 / the mode
        left, right = edges[:, 0], edges[:, -1]
        bound_l = zn.log_cdf(left)
        bound_r = zn.log_sf(right) if cap is None else np.full(n, -np.inf)
        for c, kind in enumerate(kinds):
            if kind is TermKind.BELOW:
                bound_l = bound_l + xn.log_cdf(left - xs[:, c])
            elif kind is TermKind.ABOVE:
                bound_r = bound_r + xn.log_sf(right - xs[:, c])
            else:
                bound_l, bound_r = bound_l + mode_log(xn), bound_r + mode_log(xn)
        rel_tail = np.exp(np.logaddexp(bound_l, bound_r) - lv)
    err = rule + np.where(np.isfinite(lv), rel_tail, 0.0) + rounding
    return lv, err
