"""Float64 output probabilities, vectorised over many query vectors.

The vectorised mode of the one closed form, `verify.engine.piecewise` (see its
docstring for the derivation): it reads the outcomes from the one description
through `verify.engine.piecewise.column_plan` (the halting outcomes' trie of F and S
factors over query columns) and evaluates them in numpy for an array of query
vectors at once, in log space throughout, so that probabilities far below 1e-300 keep their
relative accuracy.  Every term of the closed form is positive or negative;
the result is ``log Σ sign·exp(log|term|)``, and the ratio
``Σ|term| / |Σ term|`` is the condition number of that sum.

Rounding: each term carries a relative error of a few units in the last place,
so the result's relative error is at most about ``cond · ops · 2^-53``.  That
estimate is returned with the values (`FastResult.error_estimate`);
`verify.probabilities` re-evaluates in extended precision (``dtype=np.longdouble``)
and then with mpmath wherever it exceeds the tolerance asked for, so a caller
of the public API never receives a value whose estimated error is above it.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from verify.engine.integrand import TermKind
from verify.engine.piecewise import column_plan
from verify.mechanism import AboveThreshold

EPS = float(np.finfo(float).eps)
CHUNK = 8192


@dataclass(frozen=True)
class FastResult:
    """log-probabilities (n, k+1) and the estimated relative error of each."""

    log_probability: np.ndarray
    error_estimate: np.ndarray


def _log_exprel(x: np.ndarray) -> np.ndarray:
    """log(expm1(x)/x), 0 at x = 0, stable for every real x:
    log((1 - e^{-|x|})/|x|) + max(x, 0)."""
    y = np.abs(x)
    safe = np.where(y == 0, 1.0, y)
    return np.where(y == 0, 0.0, np.log(-np.expm1(-safe)) - np.log(safe) + np.maximum(x, 0))


def _exprel_times_length(alpha_lam: np.ndarray, length: np.ndarray) -> np.ndarray:
    """∫_0^L e^{a u} du = L·expm1(aL)/(aL), linear space (caller guarantees no overflow)."""
    x = alpha_lam * length
    safe = np.where(x == 0, 1.0, x)
    return np.where(x == 0, length, length * np.expm1(safe) / safe)


class _Terms:
    """Signed terms of one event, kept as (log|term|, sign) arrays."""

    def __init__(self) -> None:
        self.logs: list[np.ndarray] = []
        self.signs: list[np.ndarray] = []

    def add(self, logmag: np.ndarray, sign: np.ndarray) -> None:
        """Terms in order: rows (terms, n), or one term (n,)."""
        self.logs.append(np.atleast_2d(logmag))
        self.signs.append(np.atleast_2d(sign))

    def total(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        """(log of the sum, condition number); -inf where no term."""
        if not self.logs:
            return np.full(n, -np.inf), np.ones(n)
        # (n, terms), C-contiguous: the terms in the order added, summed along each row
        logs = np.ascontiguousarray(np.concatenate(self.logs).T)
        signs = np.ascontiguousarray(np.concatenate(self.signs).T)
        top = logs.max(axis=1)
        safe_top = np.where(np.isfinite(top), top, 0.0)
        scaled = np.exp(logs - safe_top[:, None])
        mag = scaled.sum(axis=1)
        val = (signs * scaled).sum(axis=1)
        with np.errstate(divide="ignore", invalid="ignore"):
            logval = np.where(val > 0, safe_top + np.log(np.where(val > 0, val, 1.0)), np.nan)
            cond = np.where(val > 0, mag / np.where(val > 0, val, 1.0), np.inf)
        empty = ~np.isfinite(top)
        logval = np.where(empty, -np.inf, logval)
        cond = np.where(empty, 1.0, cond)
        return logval, cond


class _LinearTerms:
    """Terms summed in linear space: used for rows where no term can over- or
    underflow (see `FastIntegrator.linear_safe`); same results as `_Terms`."""

    def __init__(self, n: int, dtype: type = np.float64) -> None:
        self.value = np.zeros(n, dtype=dtype)
        self.magnitude = np.zeros(n, dtype=dtype)
        self.any = np.zeros(n, dtype=bool)

    def add_segment(self, scale: np.ndarray, poly: np.ndarray, alpha0: np.ndarray, lam: float, lo, hi) -> None:
        """Add Σ_col scale·poly[col]·∫ e^{(alpha0 - col)·lam·(z - r)} dz over the segment (every column at once,
        added to the sums column by column, in order)."""
        alpha_lam = (alpha0 - np.arange(poly.shape[0])[:, None]) * lam
        if lo is not None and hi is not None:
            j = _exprel_times_length(alpha_lam, hi - lo)
        elif lo is not None:
            j = -1.0 / alpha_lam
        else:
            j = 1.0 / alpha_lam
        terms = np.where(poly == 0, 0.0, scale * poly * j)
        for term, size in zip(terms, np.abs(terms)):
            self.value += term
            self.magnitude += size
        self.any |= (terms != 0).any(axis=0)

    def total(self, n: int) -> tuple[np.ndarray, np.ndarray]:
        with np.errstate(divide="ignore", invalid="ignore"):
            logval = np.where(self.value > 0, np.log(np.where(self.value > 0, self.value, 1.0)), np.nan)
            cond = np.where(self.value > 0, self.magnitude / np.where(self.value > 0, self.value, 1.0), np.inf)
        logval = np.where(self.any, logval, -np.inf)
        cond = np.where(self.any, cond, 1.0)
        return logval, cond


class FastIntegrator:
    """The vectorised mode of `verify.engine.piecewise.ClosedForm` for one mechanism (the same factors on
    the same segments, on numpy arrays of rows)."""

    def __init__(self, mech: AboveThreshold, dtype: type = np.float64) -> None:
        """``dtype``: float64, or np.longdouble for the rows whose float64 error
        estimate is too large (x87 extended precision: 3 more digits)."""
        self.mech = mech
        self.dtype = dtype
        self.eps = float(np.finfo(dtype).eps)
        self.log_half = np.log(dtype(0.5))
        zn, xn = mech.threshold_noise, mech.query_noise
        self.zlaw, self.xlaw = zn.law, xn.law
        self.query_noise = xn
        rate_x = xn.rate if not xn.is_none else (zn.rate if not zn.is_none else Fraction(1))
        rho = zn.rate / rate_x if not zn.is_none else Fraction(1)
        self.lam = _in(dtype, rate_x)
        self.rho = _in(dtype, rho)
        self.threshold = _in(dtype, mech.threshold)

    # --- public ---------------------------------------------------------------------------
    def events(self, queries: np.ndarray, cutoff: np.ndarray | None = None) -> FastResult:
        """log Pr of s_1..s_k and ⊤^k for each row of ``queries`` (n, k).

        With ``cutoff`` (n,), the threshold noise is restricted to z > cutoff - t
        (the proofs' conditional form; -inf for no restriction).
        """
        q = np.atleast_2d(np.asarray(queries, dtype=self.dtype))
        n, k = q.shape
        if n > CHUNK:  # cache-sized blocks: the same arithmetic, 2-3x faster on large inputs
            parts = [self.events(q[s : s + CHUNK], None if cutoff is None else np.asarray(cutoff)[s : s + CHUNK])
                     for s in range(0, n, CHUNK)]
            return FastResult(np.concatenate([p.log_probability for p in parts]),
                              np.concatenate([p.error_estimate for p in parts]))
        a = q - self.threshold
        c = None if cutoff is None else np.asarray(cutoff, dtype=self.dtype) - self.threshold
        with np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore"):
            if self.zlaw.is_none:
                logp = self._point_events(a, c)
                bound = (4 * (k + 1) + 2 * self.exponent_reach(q, c))[:, None] * self.eps
                return FastResult(logp.astype(float), np.where(np.isfinite(logp), bound, 0.0))
            out = np.empty((n, k + 1))
            err = np.empty((n, k + 1))
            exponent = self.exponent_reach(q, c)
            safe = self.linear_safe(a, c)
            for rows, linear in ((safe, True), (~safe, False)):
                m = int(rows.sum())
                if m == 0:
                    continue
                accs: list = [_LinearTerms(m, self.dtype) if linear else _Terms() for _ in range(k + 1)]
                self._integrate(a[rows], None if c is None else c[rows], accs)
                for i, acc in enumerate(accs):
                    logv, cond = acc.total(m)
                    out[rows, i] = logv
                    err[rows, i] = cond * self.eps * (8 * (k + 2) + 2 * exponent[rows])
        err = np.where(np.isnan(out), np.inf, err)
        return FastResult(out, err)

    def exponent_reach(self, q: np.ndarray, c: np.ndarray | None) -> np.ndarray:
        """Per row, a bound E on the sum of the magnitudes of the pieces of any exponent of the closed form.

        Each exponent (a log-term) is a sum of pieces λ·(x - r), ρλ·r and λ·α·length, with every
        kink and every |x - r| at most 2R, R = max|q_j| + |t| (+ |cutoff|): E = (k+2)·(2λR + 1)·max(1, ρ).
        The arguments q_j - t and the kinks are themselves rounded, to u·R, and every addition of the
        pieces rounds by u times the running sum, so each term's log carries an absolute error of
        about u·E, which is its relative error; the sum then has relative error <= cond·u·E.  At
        |q| = 1e17 this is what turns Pr = 1 into 1.5 (u·E ≈ 8), and it is why the estimate
        includes 2·E·eps besides the per-operation 8(k+2)·eps."""
        n, k = q.shape
        reach = (np.abs(q).max(axis=1) if k else np.zeros(n, dtype=self.dtype)) + abs(self.threshold)
        if c is not None:
            reach = reach + np.where(np.isfinite(c), np.abs(c), 0.0)
        return np.asarray((k + 2) * (2 * self.lam * reach + 1) * max(1.0, self.rho), dtype=float)

    def linear_safe(self, a: np.ndarray, c: np.ndarray | None) -> np.ndarray:
        """Rows whose every term and partial product stays within e^{±600}.

        Every exponent in the closed form is at most (k+2)·(2R+1)·max(1, ρ) in
        magnitude, R = λ·max|kink| (kinks: 0, the a_j and the cutoff), so such
        rows can be summed in linear space without over- or underflow."""
        n, k = a.shape
        reach = np.abs(a).max(axis=1) if k else np.zeros(n)
        if c is not None:
            reach = np.maximum(reach, np.where(np.isfinite(c), np.abs(c), 0.0))
        bound = (k + 2) * (2 * self.lam * reach + 1) * max(1.0, self.rho)
        return bound < 600

    # --- internals ------------------------------------------------------------------------
    def _integrate(self, a: np.ndarray, c: np.ndarray | None, terms: list[_Terms]) -> None:
        n, k = a.shape
        cols = [a, np.zeros((n, 1), dtype=self.dtype)]
        if c is not None:
            finite_c = np.where(np.isfinite(c), c, a.min(axis=1) if k else 0.0)
            cols.append(finite_c[:, None])
        kinks = np.sort(np.concatenate(cols, axis=1), axis=1)
        nk = kinks.shape[1]
        lam, rho = self.lam, self.rho
        plan = column_plan(self.mech, k)
        for s in range(nk + 1):
            lo = kinks[:, s - 1] if s > 0 else None
            hi = kinks[:, s] if s < nk else None
            r = lo if lo is not None else hi
            active = np.ones(n, dtype=bool)
            if c is not None and hi is not None:
                active &= ~(hi <= c)
            above0 = (lo >= 0) if lo is not None else np.zeros(n, dtype=bool)
            if self.zlaw.two_sided:  # Laplace (weights ½, ½)
                logc = np.log(0.5 * rho * lam) + np.where(above0, -rho, rho) * lam * r
            else:  # exponential
                logc = np.log(rho * lam) - rho * lam * r
                active &= above0
            zexp = np.where(above0, -rho, rho)
            logc = np.where(active, logc, -np.inf)
            never = np.zeros(n, dtype=bool)
            # the outcomes' trie (`verify.engine.piecewise.column_plan`): a node's state (log const, shift,
            # coefficient rows) is its parent's times the node's factor; emitted where outcomes end
            states: dict[int, tuple] = {0: (logc, np.zeros(n), np.ones((1, n), dtype=self.dtype))}
            for node, (parent, (kind, col)) in enumerate(plan.trie.nodes, start=1):
                plogc, shift, poly = states[parent]
                x = a[:, col]
                below = (hi <= x) if hi is not None else never
                fl, fe, f0, f1, fdead = (self._reach if kind is TermKind.ABOVE else self._below)(x, r, below)
                state = (np.where(fdead, -np.inf, plogc + fl), shift + fe, _times(poly, f0, f1))
                if plan.last_child[parent] == node:
                    del states[parent]  # every child of the parent done: O(1) coefficient rows alive
                for out in plan.ends.get(node, ()):
                    self._emit(terms[out], state[0], state[1], state[2], never, zexp, lo, hi)
                if node in plan.last_child:
                    states[node] = state
            for out in plan.ends.get(0, ()):
                self._emit(terms[out], logc, np.zeros(n), np.ones((1, n), dtype=self.dtype), never, zexp, lo, hi)

    def _below(self, x, r, below):
        """F(z - x) as (log const, e, p0, p1, zero-mask)."""
        n = x.shape[0]
        zero = np.zeros(n, dtype=self.dtype)
        one = np.ones(n, dtype=self.dtype)
        if self.xlaw.two_sided:  # Laplace
            logc = np.where(below, self.log_half + self.lam * (r - x), 0.0)
            e = np.where(below, -1.0, 0.0)
            p1 = np.where(below, 0.0, -0.5 * np.exp(self.lam * np.minimum(x - r, 0)))
            return logc, e, one, p1, np.zeros(n, dtype=bool)
        if self.xlaw.lower_weight == 0:  # exponential: no mass below 0
            p1 = np.where(below, 0.0, -np.exp(self.lam * np.minimum(x - r, 0)))
            return zero, zero, one, p1, below
        return zero, zero, one, zero, below

    def _reach(self, x, r, below):
        """S(z - x) as (log const, e, p0, p1, zero-mask)."""
        n = x.shape[0]
        zero = np.zeros(n, dtype=self.dtype)
        one = np.ones(n, dtype=self.dtype)
        if self.xlaw.two_sided:  # Laplace
            logc = np.where(below, 0.0, self.log_half + self.lam * (x - r))
            e = np.where(below, -1.0, 1.0)
            p0 = np.where(below, -0.5 * np.exp(self.lam * np.minimum(r - x, 0)), 1.0)
            p1 = np.where(below, 1.0, 0.0)
            return logc, e, p0, p1, np.zeros(n, dtype=bool)
        if self.xlaw.lower_weight == 0:  # exponential
            logc = np.where(below, 0.0, self.lam * (x - r))
            e = np.where(below, 0.0, 1.0)
            return logc, e, one, zero, np.zeros(n, dtype=bool)
        return zero, zero, one, zero, ~below

    def _emit(self, acc, logc, shift, poly, dead, zexp, lo, hi) -> None:
        lam = self.lam
        logc = np.where(dead, -np.inf, logc)
        if isinstance(acc, _LinearTerms):
            acc.add_segment(np.exp(logc), poly, zexp - shift, lam, lo, hi)
            return
        alpha = zexp - (np.arange(poly.shape[0])[:, None] + shift)  # every column of the polynomial at once
        if lo is not None and hi is not None:
            length = hi - lo
            logj = np.log(length) + _log_exprel(alpha * lam * length)
        elif lo is not None:
            logj = -np.log(-alpha * lam)
        else:
            logj = -np.log(alpha * lam)
        acc.add(np.where(poly == 0, -np.inf, logc + np.log(np.abs(poly)) + logj), np.sign(poly))

    def _point_events(self, a: np.ndarray, c: np.ndarray | None) -> np.ndarray:
        """No threshold noise: each outcome is log Π of its factors at z = 0, F(-a_j) and S(-a_i)
        (the outcomes' trie, `verify.engine.piecewise.column_plan`)."""
        n, k = a.shape
        plan = column_plan(self.mech, k)
        out = np.full((n, len(plan.trie.leaves)), -np.inf)
        logs = {0: np.zeros(n) if c is None else np.where(0 > c, 0.0, -np.inf)}
        for node, (parent, (kind, col)) in enumerate(plan.trie.nodes, start=1):
            d = -a[:, col]
            value = logs[parent] + (self.query_noise.log_sf(d) if kind is TermKind.ABOVE else self.query_noise.log_cdf(d))
            if plan.last_child[parent] == node:
                del logs[parent]
            for o in plan.ends.get(node, ()):
                out[:, o] = value
            if node in plan.last_child:
                logs[node] = value
        for o in plan.ends.get(0, ()):
            out[:, o] = 0.0 if c is None else np.where(0 > c, 0.0, -np.inf)
        return out


def _in(dtype: type, x: Fraction):
    """A Fraction rounded once into ``dtype``."""
    return dtype(x.numerator) / dtype(x.denominator)


def _times(poly: np.ndarray, p0: np.ndarray, p1: np.ndarray) -> np.ndarray:
    """poly(w)·(p0 + p1·w), coefficients along axis 0 (contiguous rows)."""
    d, n = poly.shape
    out = np.empty((d + 1, n), dtype=poly.dtype)
    np.multiply(poly, p0, out=out[:d])
    out[d] = 0.0
    out[1:] += poly * p1
    return out
