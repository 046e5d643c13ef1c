"""Figures of the checker (matplotlib `Figure` objects: no display and no
pyplot state, so importing this module never changes a notebook's backend).

* `plot_sweep`: the privacy-loss landscape around a sweep's witness.  Output
  sweeps: log ratio over (u, v) where the queries before the witness's output
  are all set to u and the halting query (for ⊤^k: the last query) to v, the
  neighbour keeping the witness's shifts; these are the two parameters the loss
  depends on most (seed, Proof 1: M(D,x) and q_i(D)).  Conditional sweeps: over
  (m, d) = (M(D,x) - t, q_i(D) - t) with the witness's κ and δ.  Contours at ±ε.
* `plot_worst_case`: the largest loss found against k, with ε and the proven
  bound, and against how far the queries are pushed (the tightness study).
"""

from __future__ import annotations

import mpmath
import numpy as np
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from verify.errors import InputError
from verify.exact import fmt
from verify.mechanism import NO_HALT, output_name
from verify.probabilities import fast_log_conditional
from verify.ratio import fast_log_ratios


def save_figure(fig, path: str, **options) -> None:
    """``fig.savefig(path)``; a destination that cannot be written (a read-only or vanished folder, a
    full disk, a file system that refuses the name) is an InputError naming it, not a traceback."""
    try:
        fig.savefig(path, **options)
    except OSError as exc:
        reason = exc.strerror or exc.__class__.__name__
        raise InputError(f"--plot: cannot write {path!r} ({reason})") from None


def _save(fig, path: str) -> None:
    save_figure(fig, path, dpi=110, bbox_inches="tight")


def _landscape(ax, x, y, z, eps, xlabel, ylabel, title, mark=None):
    finite = np.where(np.isfinite(z), z, np.nan)
    lim = max(float(np.nanmax(np.abs(finite))) if np.isfinite(finite).any() else eps, eps) * 1.05
    im = ax.pcolormesh(x, y, np.clip(finite, -lim, lim).T, cmap="RdBu_r", vmin=-lim, vmax=lim, shading="auto")
    # Where the loss sits exactly on the bound (Mechanism Two attains it on whole regions) a contour
    # at ±ε would trace float64 noise: snap values within 1e-9 of the bound onto it and draw the
    # contour a hair outside, so it marks only points that exceed the bound.
    tol = 1e-9 * max(1.0, eps)
    snapped = np.where(np.abs(np.abs(finite) - eps) <= tol, np.sign(finite) * eps, finite)
    outside = [lv for lv in (-eps - tol, eps + tol) if np.nanmin(snapped) < lv < np.nanmax(snapped)]
    if outside:
        cs = ax.contour(x, y, snapped.T, levels=outside, colors="k", linestyles="--", linewidths=1.2)
        ax.clabel(cs, fmt={lv: ("-ε" if lv < 0 else "+ε") for lv in outside}, fontsize=8)
    at_bound = np.abs(np.abs(finite) - eps) <= tol
    if at_bound.any():
        ax.contourf(x, y, at_bound.T.astype(float), levels=[0.5, 1.5], colors="none", hatches=["///"])
        ax.plot([], [], " ", label="/// |log ratio| = ε (to 1e-9)")
    if mark is not None:
        ax.plot(*mark, marker="*", color="gold", markeredgecolor="k", markersize=14, label="witness")
    if mark is not None or at_bound.any():
        ax.legend(loc="upper right", fontsize=8)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.set_title(title, fontsize=10)
    return im


def plot_sweep(result, path: str, n: int = 121) -> None:
    """The landscape of a `verify.sweep.SweepResult` around its witness."""
    w = result.witness
    if w is None:
        raise InputError("--plot: the sweep has no points to draw")
    import dataclasses

    mech = dataclasses.replace(result.mechanism, epsilon=w.epsilon)
    eps = float(w.epsilon)
    fig = Figure(figsize=(12, 4.8))
    axes = fig.subplots(1, 2, gridspec_kw={"width_ratios": [1.25, 1]})
    if w.queries is not None:
        q = np.array([float(x) for x in w.queries])
        shift = np.array([float(b - a) for a, b in zip(w.queries, w.neighbour_queries)])
        k = len(q)
        col = k if w.output == NO_HALT else int(w.output) - 1
        hi = col if w.output != NO_HALT else k - 1  # the coordinate drawn as v
        vals = [float(x) for x in getattr(result.spec, "query_values", None) or []] or [float(x) for x in result.spec.random_range]
        lo_, hi_ = min(vals), max(vals)
        pad = 0.1 * (hi_ - lo_ or 1)
        g = np.linspace(lo_ - pad, hi_ + pad, n)
        uu, vv = np.meshgrid(g, g, indexing="ij")
        Q = np.repeat(q[None, :], uu.size, axis=0)
        if hi > 0:
            Q[:, :hi] = uu.reshape(-1, 1)
        Q[:, hi] = vv.ravel()
        lr = fast_log_ratios(mech, Q, Q + shift)[:, col].reshape(uu.shape)
        xlabel = f"u = q_1..q_{hi} (D) (query units)" if hi > 0 else "q_1(D) (unused: no earlier query)"
        ylabel = f"v = q_{hi + 1}(D) (query units)"
        mark = (float(q[0]) if hi > 0 else float(g[0]), float(q[hi]))
        shift_txt = ", ".join(fmt(b - a) for a, b in zip(w.queries, w.neighbour_queries))
        title = f"log Pr[A(D)=o]/Pr[A(D')=o] (nats), o = {output_name(w.output, k)}, shifts ({shift_txt})"
        im = _landscape(axes[0], g, g, lr, eps, xlabel, ylabel, title, mark)
        # slice through the witness along v
        Q1 = np.repeat(q[None, :], n, axis=0)
        Q1[:, hi] = g
        s = fast_log_ratios(mech, Q1, Q1 + shift)[:, col]
        axes[1].plot(g, s, color="C0", label="log ratio")
        axes[1].set_xlabel(ylabel)
        axes[1].set_title(f"slice at the witness's other queries ({', '.join(fmt(x) for x in w.queries)})", fontsize=10)
    else:
        m0 = float(w.gap_max) if w.gap_max is not None else 0.0
        kap, d0, dl = float(w.kappa), float(w.gap_query), float(w.delta)
        ms = [float(x) for x in result.spec.gap_max]
        ds = [float(x) for x in result.spec.gap_query]
        gm = np.linspace(min(ms), max(ms), n)
        gd = np.linspace(min(ds), max(ds), n)
        mm, dd = np.meshgrid(gm, gd, indexing="ij")
        lr = fast_log_conditional(mech, mm, dd) - fast_log_conditional(mech, mm - kap, dd + dl)
        im = _landscape(axes[0], gm, gd, lr, eps, "m = M(D,x) - t (query units)", "d = q_i(D) - t (query units)",
                        f"log cond(m,d)/cond(m-κ,d+δ) (nats), κ = {fmt(w.kappa)}, δ = {fmt(w.delta)}", (m0, d0))
        s = fast_log_conditional(mech, np.full(n, m0), gd) - fast_log_conditional(mech, np.full(n, m0 - kap), gd + dl)
        axes[1].plot(gd, s, color="C0", label="log ratio")
        axes[1].set_xlabel("d = q_i(D) - t (query units)")
        axes[1].set_title(f"slice at m = {fmt(w.gap_max) if w.gap_max is not None else '-inf'}", fontsize=10)
    fig.colorbar(im, ax=axes[0], label="log ratio (nats)")
    for sign in (1, -1):
        axes[1].axhline(sign * eps, color="k", linestyle="--", linewidth=1)
    axes[1].text(axes[1].get_xlim()[0], eps, " +ε", va="bottom")
    axes[1].text(axes[1].get_xlim()[0], -eps, " -ε", va="top")
    axes[1].set_ylabel("log ratio (nats)")
    axes[1].legend(fontsize=8)
    fig.subplots_adjust(wspace=0.4)
    fig.suptitle(f"Privacy-loss landscape: {mech.describe()}", fontsize=11)
    _save(fig, path)


def plot_worst_case(res, path: str) -> None:
    """Loss against k (B^{k-1}A = s_k and B^k = ⊤^k) and against the push L (tightness study)."""
    eps = float(res.mechanism.epsilon)

    def val(x):
        return np.inf if mpmath.isinf(x) else float(x)

    ks = [r.k for r in res.by_k]
    halt = [val(r.halt.loss) for r in res.by_k]
    top = [val(r.no_halt.loss) for r in res.by_k]
    fig = Figure(figsize=(12, 4.6))
    axes = fig.subplots(1, 2)
    ax = axes[0]
    finite = [x for x in halt + top if np.isfinite(x)]
    cap = max(finite + [eps]) * 1.15
    ax.plot(ks, np.minimum(halt, cap), "o-", label=r"output $\mathrm{B}^{k-1}\mathrm{A}$ ($s_k$)")
    ax.plot(ks, np.minimum(top, cap), "s--", label=r"output $\mathrm{B}^k$ ($\top^k$)")
    for k, h in zip(ks, halt):
        if not np.isfinite(h):
            ax.annotate("∞", (k, cap), ha="center", va="bottom", color="C3", fontsize=12)
    ax.axhline(eps, color="k", linestyle="--", linewidth=1, label="ε")
    if res.upper_bound is not None:
        ax.axhline(float(res.upper_bound.value), color="C2", linestyle=":", linewidth=1.5, label="proven upper bound")
    ax.set_xlabel("number of queries k")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_ylabel("largest |log ratio| found (nats)")
    ax.set_title(f"worst-case loss vs k (verdict: {res.verdict})", fontsize=10)
    ax.legend(fontsize=8)
    ax = axes[1]
    if res.push:
        e = mpmath.mpf(res.mechanism.epsilon.numerator) / res.mechanism.epsilon.denominator
        for k in sorted({k for k, _, _ in res.push}):
            with mpmath.workdps(80):  # the gap can be far below float64's resolution of ε
                pts = [(float(p), float(e - v)) for kk, p, v in res.push if kk == k]
            pts = [(p, g) for p, g in pts if g > 0]
            ax.plot([p for p, _ in pts], [g for _, g in pts], "o-", label=f"{output_name(k, k)} family")
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlabel("push L (query units): earlier queries at t ± L, halting query at t ∓ L")
        ax.set_ylabel("gap ε - loss (nats, 30-digit values; 0 not drawn)")
        ax.set_title("tightness: gap to ε as the queries are pushed", fontsize=10)
        ax.legend(fontsize=8)
    else:
        ax.text(0.5, 0.5, f"no push study\n(tightness: {res.tightness})", ha="center", va="center", transform=ax.transAxes)
        ax.set_axis_off()
    fig.suptitle(f"Worst case: {res.mechanism.describe()}", fontsize=11)
    _save(fig, path)
