"""Panel loops of Report Noisy Max's one-pass Laplace path (numba): the recurrences over the panels.

The formulas are those of `verify.selection.fast` (`_laplace_index_logs`, whose docstring states them and the
error argument); these are its loops over the panels and their nodes, compiled.  Every loop adds positive terms
times factors in (0, 1], in linear space under a running log scale, so no step cancels.
"""

from __future__ import annotations

import math

import numba
import numpy as np

from verify.jit_interrupts import hold_sigint_while_numba_compiles

hold_sigint_while_numba_compiles()  # Ctrl-C during a first compilation: delivered after it


@numba.njit(cache=True, nogil=True)
def power_sums(width: np.ndarray, added: np.ndarray, b: float, terms: int) -> np.ndarray:
    """q[p, n−1] = Σ_{s_j <= left_p} (½ e^{(s_j − left_p)/b})^n for n = 1..terms: the lower factors' power sums at
    each panel's left end, by q(p) = q(p − 1)·e^{−n·width_{p−1}/b} + added_p·2^{−n} (added_p scores at left_p)."""
    npan = len(width)
    q = np.empty((npan, terms))
    for n in range(terms):
        q[0, n] = added[0] * 0.5 ** (n + 1)
    for p in range(1, npan):
        r = math.exp(-width[p - 1] / b)
        f = 1.0
        h = 1.0
        for n in range(terms):
            f *= r
            h *= 0.5
            q[p, n] = q[p - 1, n] * f + added[p] * h
    return q


@numba.njit(cache=True, nogil=True)
def prefix_logs(log_panel: np.ndarray, log_start: float) -> np.ndarray:
    """out[p] = log(e^{log_start} + Σ_{q<p} e^{log_panel[q]}): the integral of G below each panel's left end."""
    npan = len(log_panel)
    out = np.empty(npan)
    acc, sc = 1.0, log_start
    for p in range(npan):
        out[p] = math.log(acc) + sc
        if log_panel[p] > sc:
            acc, sc = acc * math.exp(sc - log_panel[p]), log_panel[p]
        acc += math.exp(log_panel[p] - sc)
    return out


@numba.njit(cache=True, nogil=True)
def panel_moments(base: np.ndarray, v: np.ndarray, qn: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per panel p, with log(w·G) = base[p, x] − Σ_n v^n qn[p, n−1] at its nodes (Horner's rule): the scale
    c_p = max over the nodes, the panel integral's log, and mom[p, m−1] = e^{−c_p} ∫_panel G(z) e^{−m(z − ℓ)/b}
    dz (v = e^{−(z − ℓ)/b} at the nodes)."""
    npan, nodes = base.shape
    terms = qn.shape[1]
    acc = np.empty(nodes)
    g = np.empty(nodes)
    scale = np.empty(npan)
    log_int = np.empty(npan)
    mom = np.zeros((npan, terms))
    # the loops run over the nodes innermost (independent lanes), each node's and each moment's operations in the
    # order of the rule above: the same roundings as a node-by-node loop
    for p in range(npan):
        for x in range(nodes):
            acc[x] = 0.0
        for j in range(terms - 1, -1, -1):
            q = qn[p, j]
            for x in range(nodes):
                acc[x] = (acc[x] + q) * v[p, x]
        c = -np.inf
        for x in range(nodes):
            acc[x] = base[p, x] - acc[x]  # log(w·G) at node x
            c = max(c, acc[x])
        scale[p] = c
        total = 0.0
        for x in range(nodes):
            g[x] = math.exp(acc[x] - c)
            total += g[x]
        for m in range(terms):
            s = 0.0
            for x in range(nodes):
                g[x] *= v[p, x]
                s += g[x]
            mom[p, m] = s
        log_int[p] = math.log(total) + c
    return scale, log_int, mom


@numba.njit(cache=True, nogil=True)
def suffix_series(mom: np.ndarray, scale: np.ndarray, width: np.ndarray, b: float) -> np.ndarray:
    """out[p] = log Σ_{m=1..M} 2^{−m} R_m(left_p), R_m(left_p) = I_{m,p} + e^{−m·width_p/b}·R_m(left_{p+1}) from
    the top panel down, I_{m,p} = e^{scale_p}·mom[p, m−1] = ∫_panel G(z) e^{−m(z − left_p)/b} dz."""
    npan, terms = mom.shape
    out = np.empty(npan)
    cur = np.zeros(terms)
    sc = -np.inf
    for p in range(npan - 1, -1, -1):
        if scale[p] > sc:
            if sc > -np.inf:
                shrink = math.exp(sc - scale[p])
                for m in range(terms):
                    cur[m] *= shrink
            sc = scale[p]
        lift = math.exp(scale[p] - sc)
        r = math.exp(-width[p] / b)
        f = 1.0
        h = 1.0
        total = 0.0
        for m in range(terms):
            f *= r
            h *= 0.5
            cur[m] = mom[p, m] * lift + f * cur[m]
            total += h * cur[m]
        out[p] = math.log(total) + sc
    return out
