"""The family oracle's Gaussian quadrature: Gauss-Legendre panels against the former tanh-sinh panels.

``verify.oracles.family.output_probability`` integrates a Gaussian integrand on its mass panels by
Gauss-Legendre (`verify.oracles.rule`) and its Gaussian F and S by arb's erfc
(`verify.noise.gaussian.half_erfc`); the former path, ``quadrature="tanh-sinh"`` (``mpmath.quad`` on the same
panels) with mpmath's erfc (`former_erfc`, swapped in for the old run only), is the reference.  On a corpus of outputs (mixed Laplace/Gaussian, Gaussian/Gaussian, the gaussian-svt preset,
cutoffs 1 and 2, released values under the gap, fresh and query releases) this prints, per output, the
relative difference of the two and the CPU time of each, measured in one process (``time.process_time``),
then the largest difference and the total time ratio new/old.  Both are run at DIGITS digits, so a
difference below 10^-DIGITS is agreement to the digits asked.

Run: ``PYTHONPATH=$PWD python3 benchmarks/bench_gaussian_oracle.py [--digits 50]``
"""

from __future__ import annotations

import argparse
import time
from contextlib import contextmanager
from fractions import Fraction as F

import mpmath

from verify.family.presets import preset
from verify.mechanism import Release
from verify.noise.gaussian import Gaussian
from verify.noise.spec import NoiseSpec
from verify.oracles.family import output_probability


@contextmanager
def former_erfc():
    """Gaussian F and S as they were before `half_erfc`: mpmath's erfc."""
    cdf, sf = Gaussian.mp_cdf, Gaussian.mp_sf
    Gaussian.mp_cdf = lambda self, y, b: mpmath.erfc(-y / (b * mpmath.sqrt(2))) / 2
    Gaussian.mp_sf = lambda self, y, b: mpmath.erfc(y / (b * mpmath.sqrt(2))) / 2
    try:
        yield
    finally:
        Gaussian.mp_cdf, Gaussian.mp_sf = cdf, sf


def _mixed(cutoff: int = 1, release: Release | None = None, fresh: bool = False):
    """The worst-case command's variant: ε = 1, t = 0, threshold Lap(3), queries N(3)."""
    mech = preset("gaussian-svt", epsilon=F(1), sensitivity=1, threshold=F(0), cutoff=cutoff)
    changes: dict = {"threshold_spec": NoiseSpec("laplace", multiplier=F(3)), "query_spec": NoiseSpec("gaussian", multiplier=F(3))}
    if release is not None:
        changes["release"] = release
        if fresh:
            changes["release_spec"] = NoiseSpec("laplace", multiplier=F(2))
    return mech.with_changes(**changes)


def _gsvt(cutoff: int, release: Release | None = None, fresh: bool = False):
    mech = preset("gaussian-svt", epsilon=F(1, 2), sensitivity=1, threshold=F(1), cutoff=cutoff)
    if release is None:
        return mech
    changes: dict = {"release": release}
    if fresh:
        changes["release_spec"] = NoiseSpec("gaussian", multiplier=F(2))
    return mech.with_changes(**changes)


def corpus() -> list[tuple[str, object, tuple, str, tuple]]:
    """(label, variant, queries, outcome, released values)."""
    out: list[tuple[str, object, tuple, str, tuple]] = []
    for q in ((F(456, 10),), (F(466, 10),), (F(-3),)):
        out += [(f"mixed c1 q={[str(x) for x in q]} {o}", _mixed(), q, o, ()) for o in ("A", "B")]
    out += [(f"mixed c2 {o}", _mixed(2), (F(5), F(-10)), o, ()) for o in ("AA", "AB", "BA", "BB")]
    out += [("mixed gap c1 BA", _mixed(1, Release.GAP), (F(2), F(7)), "BA", (F(3, 2),)),
            ("mixed query c2 AB", _mixed(2, Release.QUERY), (F(4), F(-1)), "AB", (F(9, 2),)),
            ("mixed fresh c2 AA", _mixed(2, Release.FRESH, fresh=True), (F(1), F(2)), "AA", (F(1, 3), F(5, 2)))]
    for c in (1, 2):
        for q in ((F(5), F(-10)), (F(6), F(-11))):
            for o in (("BA", "BB") if c == 1 else ("AA", "AB", "BA", "BB")):
                out.append((f"gaussian-svt c{c} q={[str(x) for x in q]} {o}", _gsvt(c), q, o, ()))
    out += [("gaussian-svt gap c2 AB", _gsvt(2, Release.GAP), (F(3), F(1)), "AB", (F(1, 2),)),
            ("gaussian-svt query c1 BA", _gsvt(1, Release.QUERY), (F(0), F(2)), "BA", (F(5, 2),)),
            ("gaussian-svt fresh c2 BAA", _gsvt(2, Release.FRESH, fresh=True), (F(-1), F(2), F(3)), "BAA", (F(2), F(7, 2)))]
    steep = _gsvt(2).with_changes(threshold_spec=NoiseSpec("gaussian", multiplier=F(20)),
                                  query_spec=NoiseSpec("gaussian", multiplier=F(1, 2)))
    out.append(("steep N(20)/N(1/2) c2 BA", steep, (F(3), F(-2)), "BA", ()))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--digits", type=int, default=50)
    args = ap.parse_args()
    worst, t_old, t_new = mpmath.mpf(0), 0.0, 0.0
    print(f"{'output':42} {'probability':>24} {'rel. diff':>10} {'old s':>7} {'new s':>7}")
    for label, mech, q, o, rel in corpus():
        t0 = time.process_time()
        with former_erfc():
            old = output_probability(mech, q, o, rel, args.digits, quadrature="tanh-sinh")
        t1 = time.process_time()
        new = output_probability(mech, q, o, rel, args.digits)
        t2 = time.process_time()
        with mpmath.workdps(args.digits + 20):
            diff = abs(new / old - 1) if old != 0 else (mpmath.mpf(0) if new == 0 else mpmath.inf)
        worst = max(worst, diff)
        t_old, t_new = t_old + t1 - t0, t_new + t2 - t1
        print(f"{label:42} {mpmath.nstr(old, 15):>24} {mpmath.nstr(diff, 2):>10} {t1 - t0:7.2f} {t2 - t1:7.2f}")
    print(f"max relative difference {mpmath.nstr(worst, 3)} (digits asked: {args.digits}); "
          f"CPU old {t_old:.1f} s, new {t_new:.1f} s, ratio new/old {t_new / t_old:.3f}")


if __name__ == "__main__":
    main()
