"""Exact probability (or density) of one output of an SVT variant by direct mpmath quadrature.

This is the verdicts' own, deliberately plain path: one 1-D integral per
threshold segment, split at every kink, at the digits asked: a closed form for
piecewise-exponential noise, else (Gaussian) Gauss-Legendre on equal panels over
the integrand's mass with tanh-sinh (``mpmath.quad``) on the two infinite tails
(`verify.oracles.rule`), two layouts compared, tanh-sinh on every panel when
they disagree.
It serves as the independent re-check of every witness ("every
not_private witness re-checked by an independent path").

Formula ("Probabilities"; seed, Proof 1, conditioning on Z): for a
segment of the run that uses one threshold draw Z (the whole run for a shared
threshold; the stretch up to and including each A for a resampled one, Lyu
Alg. 2), the answers are independent given Z = z, so

    Pr[segment] = ∫ p_Z(z) Π_{i∈B} F(t+z-q_i) Π_{i∈A} G_i(z) dz,

with F(y) = Pr[X < y], S(y) = Pr[X >= y] and, by the release rule's attributes
(`verify.release.protocol`: the A's term, its constant density, cap and sign rule),
G_i = S(t+z-q_i) (none), p_Y(v_i - q_i)·S(t+z-q_i) (fresh, v_i released),
p_X(v_i - q_i)·[v_i >= t+z] (query: the density of q_i + X_i at v_i on the
event), p_X(v_i + t + z - q_i)·[v_i >= 0] (gap: v_i = q_i + X_i - t - z).
Without threshold noise the integral is the integrand at z = 0.  Segments
multiply.  Kinks: z = 0 (the density of Z), z = q_i - t (F, S), z = q_i - t - v_i
(gap), the cap z <= v_i - t (query).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from fractions import Fraction
from functools import lru_cache

import mpmath

from verify import logratio
from verify.errors import InputError
from verify.exact import to_fraction
from verify.integer_rules import refuse_discrete
from verify.mechanism import SparseVector
from verify.noise import Noise
from verify.oracles import rule as oracle_rule
from verify.precision import MPMATH_LOCK
from verify.release.protocol import TermKind


def _mp(x: Fraction) -> mpmath.mpf:
    """x rounded to the working precision (remembered per precision: the integrand asks for the same few
    scales and offsets at every node)."""
    return _mp_at(x, mpmath.mp.prec)


@lru_cache(maxsize=256)
def _mp_at(x: Fraction, prec: int) -> mpmath.mpf:
    with mpmath.workprec(prec):
        return mpmath.mpf(x.numerator) / x.denominator


def _cdf_below(law: Noise, y):
    """F(y) = Pr[X < y] (the family's mpmath form, `verify.noise.protocol.NoiseFamily.mp_cdf`)."""
    if law.is_none:
        return mpmath.mpf(1) if y > 0 else mpmath.mpf(0)
    return law.law.mp_cdf(y, _mp(law.scale))


def _sf(law: Noise, y):
    """S(y) = Pr[X >= y] (`NoiseFamily.mp_sf`, computed directly, not as 1 - F)."""
    if law.is_none:
        return mpmath.mpf(1) if y <= 0 else mpmath.mpf(0)
    return law.law.mp_sf(y, _mp(law.scale))


def _pdf(law: Noise, y):
    if law.is_none:
        raise InputError("noise density: 'none' has no density")
    return law.law.mp_pdf(y, _mp(law.scale))


def _factor_terms(law: Noise, kind: str, c: Fraction, mid: Fraction) -> dict[Fraction, mpmath.mpf]:
    """The factor as Σ coef·e^{rate·z} on a panel (``mid`` decides the branch): F(z - c), S(z - c) or p(z - c).

    ``mid`` is an exact point strictly inside the panel, and c is a kink: the branch is decided exactly."""
    one = mpmath.mpf(1)
    if law.is_none:
        y = mid - c
        hit = (y > 0) if kind == "F" else (y <= 0)
        return {Fraction(0): one if hit else mpmath.mpf(0)}
    if not law.law.piecewise:
        raise InputError(f"closed form: {law.describe()} is not piecewise exponential (its factors have no such terms)")
    b = law.scale
    r = 1 / b
    e_plus = mpmath.exp(_mp(c) / _mp(b))  # e^{c/b}
    below = mid < c
    # piecewise exponential (`NoiseFamily.piecewise`): p(y) = w₋·λe^{λy} on y < 0, w₊·λe^{-λy} on y >= 0, so
    # F(y) = w₋e^{λy} | 1 - w₊e^{-λy},  S(y) = 1 - w₋e^{λy} | w₊e^{-λy};  with y = z - c, e^{±λy} = e^{±rz}·e^{∓c/b}
    lo, hi = law.law.lower_weight, law.law.upper_weight
    zero = {Fraction(0): mpmath.mpf(0)}
    if below:  # y < 0: only the w₋ branch has mass
        if kind == "F":
            return {r: e_plus ** -1 * _mp(lo)} if lo else zero
        if kind == "S":
            return {Fraction(0): one, r: -(e_plus ** -1) * _mp(lo)} if lo else {Fraction(0): one}
        return {r: e_plus ** -1 * _mp(lo) / _mp(b)} if lo else zero
    if kind == "F":
        return {Fraction(0): one, -r: -e_plus * _mp(hi)}
    if kind == "S":
        return {-r: e_plus * _mp(hi)}
    return {-r: e_plus * _mp(hi) / _mp(b)}


def _times(a: dict, b: dict) -> dict:
    out: dict[Fraction, mpmath.mpf] = {}
    for ra, ca in a.items():
        if ca == 0:
            continue
        for rb, cb in b.items():
            if cb != 0:
                out[ra + rb] = out.get(ra + rb, 0) + ca * cb
    return out


def _closed_form(shape: SparseVector, q, outcome, v, a_index, seg, pts, cap) -> mpmath.mpf:
    """∫ p_Z(z) Π factors dz exactly for piecewise-exponential noise: on every panel between kinks each
    factor is Σ coef·e^{rate z} with rates in {0, ±1/b}; expand (merging equal rates: at most 2m+1
    terms) and integrate term by term.  Run at a precision raised by the cancellation the expansion can
    cause; `output_probability` checks two precisions agree."""
    zn, xn, t = shape.threshold_noise, shape.query_noise, shape.threshold
    hi_cap = mpmath.inf if cap is None else _mp(cap)
    edges = [-mpmath.inf] + [_mp(k) for k in pts] + [hi_cap]
    exact = [None, *pts, cap]  # the same edges as Fractions (None: infinite); pts are distinct, sorted, below cap
    total = mpmath.mpf(0)
    for lo, hi, x_lo, x_hi in zip(edges, edges[1:], exact, exact[1:]):
        if not hi > lo:
            continue
        # a point strictly inside the panel, exact, so that each factor's branch is decided without rounding
        mid = x_hi - 1 if x_lo is None else x_lo + 1 if x_hi is None else (x_lo + x_hi) / 2
        terms = _factor_terms(zn, "p", Fraction(0), mid)
        kind = shape.release_rule.above_term
        for i in seg:
            c = q[i] - t
            if outcome[i] == "B":
                f = _factor_terms(xn, "F", c, mid)
            elif kind is TermKind.DENSITY:
                f = _factor_terms(xn, "p", c - v[a_index[i]], mid)
            elif kind is None:
                continue
            else:
                f = _factor_terms(xn, "S", c, mid)
            terms = _times(terms, f)
            if not terms:
                break
        for rate, coef in terms.items():
            if coef == 0:
                continue
            if rate == 0:
                if lo == -mpmath.inf or hi == mpmath.inf:
                    raise ArithmeticError("closed form: a constant term on an infinite panel (improper density)")
                total += coef * (hi - lo)
                continue
            rr = _mp(rate)
            ehi = mpmath.mpf(0) if hi == mpmath.inf else mpmath.exp(rr * hi)
            elo = mpmath.mpf(0) if lo == -mpmath.inf else mpmath.exp(rr * lo)
            total += coef * (ehi - elo) / rr
    return total


def _mass_panels(shape, q, outcome, v, a_index, seg, pts, cap, digits: int, panels: int | None = None) -> tuple[list, float]:
    """Quadrature nodes for smooth (Gaussian) integrands: the float64 log-integrand on a fine grid
    locates where it is within (digits·ln 10 + 30) nats of its maximum; that region gets 2·digits equal
    panels (plus every kink inside it) and the rest two infinite tails.  Without this, far-apart kinks
    leave tanh-sinh panels hundreds of widths long around a narrow peak (seen: 0.7% error at 1e-699);
    the relative error then falls like 1e-16 (40 panels), 1e-32 (64) for a 2-query witness at 50 digits.

    Also returns the float64 log of the integrand's peak: the caller divides by it, because
    ``mpmath.quad``'s error target is absolute (a 1e-699 integrand otherwise passes at the first degree).
    No nodes (and a peak of -inf) when the integrand is 0 between every two kinks; ArithmeticError when
    it found no mass and two kinks are too close for float64 to look between them."""
    import numpy as np

    zn, xn, t = shape.threshold_noise, shape.query_noise, shape.threshold
    # every kink may lie at or above the cap (a released value below them): the mass is then on (-inf, cap]
    kinks = [float(k) for k in pts] or ([float(cap)] if cap is not None else [0.0])
    span = 40.0 * max(float(zn.scale), float(xn.scale))
    lo, hi = min(kinks) - span, max(kinks) + span
    if cap is not None:
        hi = min(hi, float(cap))
    # the grid, every kink and the midpoint of every two consecutive kinks: between two kinks each factor
    # is either 0 throughout or positive throughout, so an interval of support narrower than the grid's
    # step is still seen, and f = -inf at every point means that the integrand is 0 almost everywhere
    inside = [k for k in kinks if lo <= k <= hi]
    z = np.unique(np.concatenate([np.linspace(lo, hi, 200_001), inside,
                                  [(x + y) / 2 for x, y in zip(inside, inside[1:])]]))
    f = zn.log_pdf(z)
    kind = shape.release_rule.above_term
    for i in seg:
        y = z + float(t - q[i])
        if outcome[i] == "B":
            f = f + xn.log_cdf(y)
        elif kind is TermKind.DENSITY:
            f = f + xn.log_pdf(float(v[a_index[i]]) + y)
        elif kind is not None:
            f = f + xn.log_sf(y)
    top = np.max(f)
    if top == -np.inf:
        close = [(x, y) for x, y in zip(pts, pts[1:]) if abs(float(y) - float(x)) <= 4 * np.spacing(abs(float(x)))]
        if close:
            x, y = close[0]
            raise ArithmeticError(f"output probability: the kinks {float(x)!r} and {float(y)!r} are within 4 float64 "
                                  "spacings, and the float64 grid that locates the integrand's mass found none")
        return [], top
    keep = np.flatnonzero(f >= top - (digits * math.log(10) + 30))
    a, b = z[max(keep[0] - 1, 0)], z[min(keep[-1] + 1, len(z) - 1)]
    n = panels or 2 * digits
    inner = [mpmath.mpf(a) + (mpmath.mpf(b) - mpmath.mpf(a)) * j / n for j in range(n + 1)]
    step = (hi - lo) / 200_000  # a kink rounded to float64 may sit on the far side of a or b: kept exact
    inner += [_mp(k) for k in pts if a - step <= k <= b + step]
    upper = mpmath.inf if cap is None else _mp(cap)
    nodes = sorted({x for x in inner if x < upper})
    return [-mpmath.inf] + nodes + [upper], float(top)


def _gaussian_single(shape: SparseVector, q: Fraction, outcome: str, digits: int) -> mpmath.mpf:
    """One query, Gaussian noise: X - Z ~ N(0, σ_X² + σ_Z²), so Pr[A] = Pr[X - Z >= t - q] =
    erfc((t - q)/(σ√2))/2 exactly (no quadrature); Pr[B] = erfc((q - t)/(σ√2))/2."""
    with MPMATH_LOCK, mpmath.workdps(digits + 15):
        var = _mp(shape.threshold_noise.scale) ** 2 + _mp(shape.query_noise.scale) ** 2
        y = _mp(shape.threshold - q) / mpmath.sqrt(2 * var)
        return mpmath.erfc(y if outcome == "A" else -y) / 2


def segments(shape: SparseVector, outcome: str) -> list[list[int]]:
    """Positions sharing one threshold draw: all of them (shared), or each stretch ending at an A (resample)."""
    if shape.threshold_policy == "shared":
        return [list(range(len(outcome)))]
    out, cur = [], []
    for i, ch in enumerate(outcome):
        cur.append(i)
        if ch == "A":
            out.append(cur)
            cur = []
    if cur:
        out.append(cur)
    return out


def check_output(shape: SparseVector, k: int, outcome: str, released: Sequence[Fraction]) -> None:
    """The rules of a complete output: letters A/B, at most c A's and halt at the c-th, else k letters."""
    if not outcome or set(outcome) - {"A", "B"}:
        raise InputError(f"outcome: {outcome!r} must be a non-empty string of A and B")
    n_a = outcome.count("A")
    c = shape.cutoff
    if len(outcome) > k:
        raise InputError(f"outcome: {outcome!r} is longer than the k = {k} queries")
    if c is not None and n_a > c or (c is not None and n_a == c and outcome[-1] != "A"):
        raise InputError(f"outcome: {outcome!r} continues after the run halts (cutoff {c})")
    if (c is None or n_a < c) and len(outcome) != k:
        raise InputError(f"outcome: {outcome!r} must have k = {k} letters (the run halts only at the c-th A)")
    if len(released) != (n_a if shape.releases_values else 0):
        raise InputError(f"released: {len(released)} values for {n_a} A's (release {shape.release})")


#: The oracle's expansion in e^{±x/b} may cancel about |q - t|/(2.3 b) digits, and it works at that
#: many: beyond this many (|q - t| of about 6,900 scales) it runs for minutes (measured: docs/limits.md).
MAX_GUARD_DIGITS = 6000


def guard_digits(shape: SparseVector, q: Sequence[Fraction], v: Sequence[Fraction] = ()) -> int:
    """The digits the oracle's expansion may cancel at queries ``q`` and released values ``v``,
    20 + k + |q - t|/(2.3 b) for the smallest noise scale b; `InputError` beyond `MAX_GUARD_DIGITS` for piecewise
    noise (Laplace, exponential, none), the oracle's limit on its input, which every exact path of a witness
    shares (`verify.family.witness`)."""
    spread = max([abs(x - shape.threshold) for x in q] + [abs(x) for x in v] + [Fraction(1)])
    small = min(n.scale for n in (shape.threshold_noise, shape.query_noise) if not n.is_none) \
        if not (shape.threshold_noise.is_none and shape.query_noise.is_none) else Fraction(1)
    guard = 20 + len(q) + int(float(spread / small) / 2.3)  # digits the expansion may cancel
    piecewise = all(n.law.piecewise for n in (shape.threshold_noise, shape.query_noise))
    if piecewise and guard > MAX_GUARD_DIGITS:
        raise InputError(f"queries: |q - t| up to {float(spread):.3g} is {float(spread / small):.3g} noise scales; the exact "
                         f"oracle would work at {guard} digits, at most {MAX_GUARD_DIGITS} "
                         f"(|q - t| up to about {2.3 * (MAX_GUARD_DIGITS - 20 - len(q)) * float(small):.3g})")
    return guard


def output_probability(shape: SparseVector, queries: Sequence[object], outcome: str, released: Sequence[object] = (),
                       digits: int = 30, *, quadrature: str = "gauss-legendre") -> mpmath.mpf:
    """Pr[A(D) = outcome] (a density in the released values when the variant releases any), to ~``digits``.

    ``quadrature``: the rule on a Gaussian integrand's finite panels, ``gauss-legendre`` (`verify.oracles.rule`)
    or ``tanh-sinh`` (``mpmath.quad``, the rule before it; kept for benchmarks/bench_gaussian_oracle.py)."""
    if quadrature not in ("gauss-legendre", "tanh-sinh"):
        raise InputError(f"quadrature: {quadrature!r} is neither 'gauss-legendre' nor 'tanh-sinh'")
    refuse_discrete(shape, "exact oracle")  # its integrals are of densities; noise on ℤ is summed (verify.discrete)
    q = [to_fraction(x, "query") for x in queries]
    v = [to_fraction(x, "released value") for x in released]
    check_output(shape, len(q), outcome, v)
    gauss = all(n.is_none or not n.law.piecewise for n in (shape.threshold_noise, shape.query_noise))
    if len(outcome) == 1 and gauss and not shape.releases_values and not shape.query_noise.is_none:
        return _gaussian_single(shape, q[0], outcome, digits)
    a_index = {i: j for j, i in enumerate(i for i, ch in enumerate(outcome) if ch == "A")}
    with MPMATH_LOCK:
        guard = guard_digits(shape, q, v)
        piecewise = all(n.law.piecewise for n in (shape.threshold_noise, shape.query_noise))
        if not piecewise:
            guard = 10  # quadrature (Gaussian): two panel layouts instead of two precisions
        for rule in dict.fromkeys((quadrature, "tanh-sinh") if not piecewise else (quadrature,)):
            vals = []
            for extra in (0, 15):
                with mpmath.workdps(digits + guard + (extra if piecewise else 0)):
                    total = mpmath.mpf(1)
                    for seg in segments(shape, outcome):
                        total *= _segment(shape, q, outcome, v, a_index, seg, digits,
                                          None if piecewise else (2 * digits + 20) * (2 if extra else 1), rule)
                        if total == 0:
                            break
                    vals.append(total)
            with mpmath.workdps(digits + guard + 15):
                a, b = vals
                agree = a == b or (b != 0 and abs(a / b - 1) <= mpmath.mpf(10) ** (-digits))
            if agree:
                break
            # Gauss-Legendre's layouts disagree: tanh-sinh (adaptive on every panel) decides before the error
        if not agree:
            raise ArithmeticError(f"output probability: two precisions disagree ({mpmath.nstr(a, 20)} vs "
                                  f"{mpmath.nstr(b, 20)}): cancellation beyond the guard digits or quadrature not converged")
        with mpmath.workdps(digits + 15):
            return +vals[-1]


def _segment(shape: SparseVector, q: list[Fraction], outcome: str, v: list[Fraction], a_index: dict[int, int],
             seg: list[int], digits: int = 30, panels: int | None = None, quadrature: str = "gauss-legendre") -> mpmath.mpf:
    t = shape.threshold
    xn, zn = shape.query_noise, shape.threshold_noise
    const = mpmath.mpf(1)
    kinks: set[Fraction] = {Fraction(0)}
    cap: Fraction | None = None
    rule = shape.release_rule  # its attributes (`verify.release.protocol`), never its name
    density = rule.constant_noise(shape)
    for i in seg:
        kinks.add(q[i] - t)
        if outcome[i] != "A" or not shape.releases_values:
            continue
        vi = v[a_index[i]]
        if density is not None:
            const *= _pdf(density, _mp(vi - q[i]))
        if rule.caps_threshold:
            cap = vi - t if cap is None else min(cap, vi - t)
        if rule.nonnegative and vi < 0:
            return mpmath.mpf(0)
        if rule.above_term is TermKind.DENSITY:
            kinks.add(q[i] - t - vi)
    if const == 0:
        return mpmath.mpf(0)

    def integrand(z):
        f = mpmath.mpf(1)
        for offset, factor, shift in _terms()[1]:
            y = offset + z
            f *= factor(y) if shift is None else factor(shift + y)
            if f == 0:
                return f
        return f

    def factor(kind: str, scale: mpmath.mpf | None):
        """F, S or p of the query noise at one precision (its scale rounded once, as `_cdf_below`, `_sf`, `_pdf` do)."""
        if scale is None:  # no query noise: `_cdf_below`, `_sf` (a density of no noise is refused by `_pdf`)
            return {"F": lambda y: _cdf_below(xn, y), "S": lambda y: _sf(xn, y), "p": lambda y: _pdf(xn, y)}[kind]
        return {"F": lambda y: law.mp_cdf(y, scale), "S": lambda y: law.mp_sf(y, scale), "p": lambda y: law.mp_pdf(y, scale)}[kind]

    law = None if xn.is_none else xn.law
    by_prec: dict[int, tuple] = {}

    def _terms() -> tuple[mpmath.mpf | None, list]:
        """(Z's scale, per position of the segment (offset t - q_i, factor, released shift or None)) at the working
        precision, formed once per precision (``mpmath.quad`` raises it on the tails): the integrand's own ``_mp``
        values, without rounding the same Fractions again at every node."""
        prec = mpmath.mp.prec
        got = by_prec.get(prec)
        if got is None:
            scale = None if xn.is_none else _mp(xn.scale)
            terms = []
            got = (None if zn.is_none else _mp(zn.scale), terms)
            for i in seg:
                if outcome[i] == "B":
                    terms.append((_mp(t - q[i]), factor("F", scale), None))
                elif rule.above_term is TermKind.DENSITY:
                    terms.append((_mp(t - q[i]), factor("p", scale), _mp(v[a_index[i]])))
                elif rule.above_term is not None:
                    terms.append((_mp(t - q[i]), factor("S", scale), None))
            by_prec[prec] = got
        return got

    if zn.is_none:
        if cap is not None and cap < 0:
            return mpmath.mpf(0)
        return const * integrand(mpmath.mpf(0))
    pts = sorted(k for k in kinks if cap is None or k < cap)
    if all(n.law.piecewise for n in (zn, xn)):
        return const * _closed_form(shape, q, outcome, v, a_index, seg, pts, cap)
    fine, log_peak = _mass_panels(shape, q, outcome, v, a_index, seg, pts, cap, digits, panels)
    if not fine:  # the integrand is 0 between every two kinks (an impossible output)
        return mpmath.mpf(0)
    peak = mpmath.exp(mpmath.mpf(log_peak))  # any positive constant is exact here; this one makes quad's target relative
    scaled = lambda z: zn.law.mp_pdf(z, _terms()[0]) * integrand(z) / peak  # noqa: E731  (`_pdf`; Z is not none here)
    if quadrature == "tanh-sinh":
        val = mpmath.quad(scaled, fine) * peak
    else:  # the slope per half-panel is at most 3 on 2·digits + 20 panels and shrinks as the panels do
        n = oracle_rule.points_for(mpmath.mp.dps, 3.0 * (2 * digits + 20) / (panels or 2 * digits))
        val = oracle_rule.integrate(scaled, fine, n) * peak
    return const * val


def log_ratio(shape: SparseVector, queries, neighbour, outcome: str, released=(), digits: int = 50) -> mpmath.mpf:
    """log Pr[A(D)=o] - log Pr[A(D')=o] at ``digits`` (±inf when exactly one side is 0, 0 when both are)."""
    with MPMATH_LOCK, mpmath.workdps(digits + 15):
        p = output_probability(shape, queries, outcome, released, digits)
        pn = output_probability(shape, neighbour, outcome, released, digits)
        return logratio.log_ratio(p, pn)
