"""OpenDP's ``make_noisy_max`` side by side with the exact loss (docs/selection.md, "OpenDP, side by side").

OpenDP's privacy map, read from opendp/opendp ``rust/src/measurements/noisy_top_k/mod.rs`` (``make_noisy_top_k``,
which ``rust/src/measurements/noisy_max/mod.rs`` calls with k = 1): the L∞ distance d_in = Δ becomes the range
distance d = Δ if the metric is ``monotonic``, else d = 2Δ (``d_in.inf_add(&d_in)``); then

* ``MaxDivergence`` (exponential noise, or permute-and-flip, the same law): ε = d/scale;
* ``ZeroConcentratedDivergence`` (Gumbel noise, the exponential mechanism): ρ = (d/scale)²/8.

``negate`` reports the minimum.  This module encodes that map (tests/test_opendp_noisy_max.py checks it against
OpenDP's own ``Measurement.map``); it never imports opendp.

Our side, at OpenDP's scale b = ``scale`` and Δ: the model `ReportNoisyMax` with ε_model = d/scale, noise scale
(d/Δ)·Δ/ε_model = b, and the neighbours of the metric.

* Pure rows: `selection_verdict` gives the proven bound (2Δ/b, or Δ/b monotone: d/b) and the witness's loss at
  50 digits.  *tight* when the bound equals the map's ε and a witness comes within `TIGHT` of it; *loose by a
  factor* when the proven bound is below the map; *violated* when a witness exceeds it.
* zCDP rows: zCDP means D_α(P‖P′) <= ρα for every α > 1 (Bun and Steinke 2016, Def. 1.1).  With Gumbel noise the
  index law is the softmax, and the worst neighbour of index 1 (`verify.selection.search.corners`) lowers its
  score by d relative to every other score; the other indices scale by one common factor, so
  D_α(P‖P′) = D_α(Bern(p)‖Bern(p′)) with p′ = p·e^{−d/b}/(p·e^{−d/b} + 1 − p), p = Pr[1] at the base.  For each
  α in `ALPHAS` (and KL, the limit α → 1) the worst p in both directions is searched (a grid of logit p in
  [−30, 30] refined by a bounded scalar search); the witness pair (0, b·log((1 − p)/p)) against its corner is
  re-evaluated at 50 digits by the quadrature of `verify.selection.probability` (not the softmax), and its
  D_α/α is the row's ρ found.  A witness above the map's ρ would be *violated*; below, the row is *not
  violated*, the map loose by at least claimed/found at the α tested.  The upper bound we prove is the pure one
  (ε = d/b); ε-DP implies ρ = ε²/2 (Bun and Steinke 2016, Prop. 1.4), four times OpenDP's ρ, which rests on
  its own proof (bounded range: Cesar and Rogers 2021).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import mpmath
import numpy as np
from scipy.optimize import minimize_scalar

from verify.exact import exceeds, fmt
from verify.precision import MPMATH_LOCK
from verify.selection.model import Optimize, ReportNoisyMax
from verify.selection.probability import mp_index_probabilities
from verify.selection.search import corners
from verify.selection.verdict import WITNESS_DIGITS, selection_verdict

SOURCE = "opendp/opendp rust/src/measurements/noisy_top_k/mod.rs (make_noisy_top_k's privacy map; noisy_max/mod.rs calls it, k = 1)"
#: Rényi orders of the zCDP rows (KL, α → 1, is added).
ALPHAS = (Fraction(3, 2), Fraction(2), Fraction(4), Fraction(8), Fraction(32))
#: A witness within this relative distance of the map's ε makes a pure row *tight*.
TIGHT = Fraction(1, 10**9)


@dataclass(frozen=True)
class OpenDPConfig:
    """One ``make_noisy_max`` configuration: measure, ``monotonic``, ``negate``, ``scale`` and the L∞ bound Δ."""

    zcdp: bool
    monotonic: bool
    negate: bool
    scale: Fraction = Fraction(2)
    sensitivity: Fraction = Fraction(1)

    @property
    def d(self) -> Fraction:
        return self.sensitivity if self.monotonic else 2 * self.sensitivity

    def claimed(self) -> Fraction:
        """OpenDP's map: ε = d/scale, or ρ = (d/scale)²/8."""
        e = self.d / self.scale
        return e * e / 8 if self.zcdp else e

    def mechanism(self) -> ReportNoisyMax:
        eps = self.d / self.scale
        return ReportNoisyMax(eps, self.sensitivity, "gumbel" if self.zcdp else "exponential", self.d / self.sensitivity,
                              monotone=self.monotonic, optimize=Optimize.MIN if self.negate else Optimize.MAX,
                              name=self.label(), source=SOURCE, claimed=f"{'ρ' if self.zcdp else 'ε'} = {fmt(self.claimed())}")

    def label(self) -> str:
        return (f"{'zCDP (Gumbel)' if self.zcdp else 'pure (exponential)'}, monotonic={str(self.monotonic).lower()}, "
                f"{'min' if self.negate else 'max'}")


def configurations(scale: Fraction = Fraction(2), sensitivity: Fraction = Fraction(1)) -> list[OpenDPConfig]:
    """Every configuration: both measures, both monotonic settings, max and min."""
    return [OpenDPConfig(z, m, n, scale, sensitivity) for z in (False, True) for m in (False, True) for n in (False, True)]


def _bern_renyi(p: Any, q: Any, alpha: Any) -> Any:
    """D_α(Bern(p)‖Bern(q)); α = 1: KL."""
    if alpha == 1:
        return p * mpmath.log(p / q) + (1 - p) * mpmath.log((1 - p) / (1 - q))
    return mpmath.log(p**alpha * q**(1 - alpha) + (1 - p)**alpha * (1 - q)**(1 - alpha)) / (alpha - 1)


def _lowered(p: Any, r: Any) -> Any:
    return p * mpmath.exp(-r) / (p * mpmath.exp(-r) + 1 - p)


def _worst_logit(r: float, alpha: float, reverse: bool) -> float:
    def neg(t: float) -> float:
        with mpmath.workdps(20):
            p = 1 / (1 + mpmath.exp(-t))
            q = _lowered(p, r)
            return -float(_bern_renyi(q, p, alpha) if reverse else _bern_renyi(p, q, alpha))
    grid = np.linspace(-30, 30, 241)
    t0 = float(grid[int(np.argmin([neg(float(t)) for t in grid]))])
    res = minimize_scalar(neg, bounds=(t0 - 0.25, t0 + 0.25), method="bounded", options={"xatol": 1e-9})
    return float(res.x)


@dataclass(frozen=True)
class OpenDPRow:
    config: OpenDPConfig
    claimed: Fraction
    verdict: str           # tight / loose by a factor / not violated / violated
    found: Any             # the witness's ε (pure) or max_α D_α/α (zCDP), at 50 digits
    proven: Fraction | None
    alpha: Fraction | None
    witness: tuple[tuple[Fraction, ...], tuple[Fraction, ...]]
    note: str

    def ratio(self) -> Any:
        with mpmath.workdps(30):
            return mpmath.mpf(self.claimed.numerator) / self.claimed.denominator / self.found

    def to_json(self) -> dict[str, Any]:
        return {"configuration": self.config.label(), "claimed": fmt(self.claimed), "verdict": self.verdict,
                "found": mpmath.nstr(self.found, 20), "claimed_over_found": mpmath.nstr(self.ratio(), 12),
                "proven_bound": None if self.proven is None else fmt(self.proven),
                "alpha": None if self.alpha is None else fmt(self.alpha),
                "witness": {"queries": [fmt(x) for x in self.witness[0]], "neighbour": [fmt(x) for x in self.witness[1]]},
                "note": self.note}


def pure_row(cfg: OpenDPConfig, max_scores: int = 3) -> OpenDPRow:
    mech = cfg.mechanism()
    v = selection_verdict(mech, max_scores)
    claim = cfg.claimed()
    w = v.witness
    if exceeds(v.loss, claim):
        verdict = "violated"
    elif v.bound.value is not None and v.bound.value < claim:
        verdict = f"loose by a factor {fmt(claim / v.bound.value)}"
    elif v.bound.value == claim and exceeds(v.loss, claim * (1 - TIGHT)):
        verdict = "tight"
    else:
        verdict = "not decided"
    return OpenDPRow(cfg, claim, verdict, v.loss, v.bound.value, None, (w.queries, w.neighbour),
                     f"proven bound {v.bound.formula} = {fmt(v.bound.value)}; witness loss at {WITNESS_DIGITS} digits")


def _mp(x: Fraction) -> Any:
    return mpmath.mpf(x.numerator) / x.denominator


def renyi_of_pair(mech: ReportNoisyMax, q: tuple[Fraction, ...], qn: tuple[Fraction, ...], alpha: Fraction, digits: int) -> Any:
    """max(D_α(P‖P′), D_α(P′‖P)) of the index laws at q and q′ (quadrature, `mp_index_probabilities`); α = 1: KL."""
    with MPMATH_LOCK, mpmath.workdps(digits + 10):
        p, pn = mp_index_probabilities(mech, q, digits), mp_index_probabilities(mech, qn, digits)
        a = _mp(alpha)

        def d(x: list[Any], y: list[Any]) -> Any:
            if a == 1:
                return mpmath.fsum(u * mpmath.log(u / v) for u, v in zip(x, y))
            return mpmath.log(mpmath.fsum(u**a * v**(1 - a) for u, v in zip(x, y))) / (a - 1)
        return max(d(p, pn), d(pn, p))


def zcdp_row(cfg: OpenDPConfig, digits: int = 30) -> OpenDPRow:
    mech = cfg.mechanism()
    b = cfg.scale
    r = float(cfg.d / b)
    claim = cfg.claimed()
    best = None
    for alpha in (Fraction(1), *ALPHAS):
        for reverse in (False, True):
            t = _worst_logit(r, float(alpha), reverse)
            # Pr[1] at (0, s2) is 1/(1 + e^{s2/b}) = p = 1/(1 + e^{-t}): s2 = -b·t
            base = [Fraction(0), Fraction(f"{-float(b) * t:.6f}")]
            corner = corners(mech, base)[0]
            sign = -1 if cfg.negate else 1
            q, qn = tuple(sign * x for x in base), tuple(sign * x for x in corner)
            div = renyi_of_pair(mech, q, qn, alpha, digits)
            with mpmath.workdps(digits):
                val = div / _mp(alpha)
            if best is None or val > best[0]:
                best = (val, alpha, q, qn)
    val, alpha, q, qn = best
    pure = cfg.d / b
    verdict = "violated" if exceeds(val, claim) else "not violated"
    note = (f"max over α in {{1 (KL), {', '.join(fmt(a) for a in ALPHAS)}}} of D_α/α at the worst pair per α, recomputed by "
            f"quadrature at {digits} digits; proven here: ε-DP with ε = d/b = {fmt(pure)} (so ρ <= ε²/2 = {fmt(pure * pure / 2)}, "
            f"Bun–Steinke Prop. 1.4); OpenDP's ρ = ε²/8 rests on its bounded-range proof")
    return OpenDPRow(cfg, claim, verdict, val, pure, alpha, (q, qn), note)


def side_by_side(scale: Fraction = Fraction(2), sensitivity: Fraction = Fraction(1)) -> list[OpenDPRow]:
    return [zcdp_row(c) if c.zcdp else pure_row(c) for c in configurations(scale, sensitivity)]


def render(rows: list[OpenDPRow]) -> str:
    out = [f"OpenDP make_noisy_max, scale {fmt(rows[0].config.scale)}, Δ = {fmt(rows[0].config.sensitivity)} "
           f"(map: {SOURCE})",
           f"{'configuration':<45} {'OpenDP map':>12} {'ours (witness)':>22} {'proven':>8} {'map/ours':>10}  verdict"]
    for r in rows:
        what = "ρ" if r.config.zcdp else "ε"
        found = mpmath.nstr(r.found, 15) + ("" if r.alpha is None else f" (α={fmt(r.alpha)})")
        out.append(f"{r.config.label():<45} {what + ' = ' + fmt(r.claimed):>12} {found:>22} "
                   f"{'' if r.proven is None else 'ε ' + fmt(r.proven):>8} {mpmath.nstr(r.ratio(), 6):>10}  {r.verdict}")
    return "\n".join(out)


if __name__ == "__main__":  # python -m verify.selection.opendp_map
    print(render(side_by_side()))
