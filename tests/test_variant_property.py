"""Property test over random variants of the model: `private` survives an independent random search,
and every loss printed is reproduced by the `ratio` command from its witness.

Variants (Hypothesis, derandomized, 12 examples, and four pinned `private` ones): threshold and query noise Laplace, exponential or
Gaussian, scales 1-6 Δ/ε, cutoff 1, 2 or unlimited, shared or resampled threshold, release none, gap,
fresh (Laplace or exponential Y) or query, monotone neighbours or not.  For each:

* `family_worst_case` (up to 2 queries, no tightness study);
* if it prints ``private`` with bound B: an independent seeded random search (numpy seed 2024) of
  PAIRS = 300 neighbour pairs per k = 1, 2 (queries uniform in t ± 6 noise scales, neighbour shifts
  uniform in [-Δ, Δ] per query, of one sign per pair when monotone), every complete output (no release)
  or a random output with random released values (release), by the model's float64 engine
  (`verify.family.fast_api`, rows it flags as ill-conditioned recomputed with mpmath); no pair may
  exceed B by more than 1e-9 nats.  A float64 excess is recomputed at 30 digits by the model's exact
  path before the test fails, so a float64 rounding cannot fail it (false-alarm rate 0);
* the witness's loss is recomputed by the `ratio` command (the family flags, at the witness's digits: the
  model's engine `verify.family.probability.evaluate`, not the verdicts' oracle) and must agree to
  10^-(d-10) for a witness confirmed at d digits; a Gaussian variant, which the seed's noise flags cannot
  express, goes to that engine directly.
"""

from __future__ import annotations

import json
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

from verify.cli.main import main
from verify.exact import fmt
from verify.family.fast_api import fast_log_probability
from verify.family.probability import evaluate, mp_probability
from verify.family.worstcase import family_worst_case
from verify.mechanism import SparseVector
from verify.noise import NoiseSpec
from verify.verdicts import MechanismVerdict

EPS = Fraction(1, 2)
PAIRS = 300
SEED = 2024


@st.composite
def variants(draw):
    z = draw(st.sampled_from(["laplace", "exponential", "gaussian"]))
    x = draw(st.sampled_from(["laplace", "exponential", "gaussian"]))
    cz = draw(st.sampled_from([1, 2, 3, 4, 6]))
    cx = draw(st.sampled_from([1, 2, 3, 4, 6]))
    gaussian = "gaussian" in (z, x)
    cutoff = draw(st.sampled_from([1, 2, None]))
    policy = draw(st.sampled_from(["shared", "resample"]))
    # Gaussian noise has no closed form: keep its examples to the seed's AboveThreshold (erfc form)
    release = "none" if gaussian else draw(st.sampled_from(["none", "gap", "fresh", "query"]))
    y, cy = None, None
    if release == "fresh":
        y = draw(st.sampled_from(["laplace", "exponential"]))
        cy = draw(st.sampled_from([2, 3, 6]))
    monotone = draw(st.booleans())
    return dict(z=z, x=x, cz=cz, cx=cx, cutoff=cutoff, policy=policy, release=release, y=y, cy=cy, monotone=monotone)


def build(v) -> SparseVector:
    return SparseVector(EPS, 1, 0, NoiseSpec(v["z"], multiplier=Fraction(v["cz"])), NoiseSpec(v["x"], multiplier=Fraction(v["cx"])),
                        cutoff=v["cutoff"], threshold_policy=v["policy"], release=v["release"],
                        release_spec=None if v["y"] is None else NoiseSpec(v["y"], multiplier=Fraction(v["cy"])), name="random")


def flags(v) -> list[str]:
    out = ["--epsilon", fmt(EPS), "--threshold-noise", v["z"], "--threshold-scale", str(v["cz"]),
           "--query-noise", v["x"], "--query-scale", str(v["cx"]),
           "--cutoff", "unlimited" if v["cutoff"] is None else str(v["cutoff"]),
           "--threshold-policy", v["policy"], "--release", v["release"]]
    if v["y"] is not None:
        out += ["--release-noise", v["y"], "--release-scale", str(v["cy"])]
    return out


def exact_log(mech, q, outcome, rel) -> mpmath.mpf:
    with mpmath.workdps(40):
        p = mp_probability(mech, [Fraction(float(a)) for a in q], outcome,
                           None if rel is None else [Fraction(float(a)) for a in rel], 30)
        return mpmath.log(p) if p > 0 else -mpmath.inf


def random_search(mech, bound: Fraction, monotone: bool) -> float:
    """The largest |log ratio| found (module docstring); fails if a pair exceeds the bound at 30 digits."""
    rng = np.random.default_rng(SEED)
    scale = max(float(n.scale) for n in (mech.threshold_noise, mech.query_noise) if not n.is_none)
    worst = 0.0
    for k in (1, 2):
        q = rng.uniform(-6 * scale, 6 * scale, (PAIRS, k))
        shift = rng.uniform(-1, 1, (PAIRS, k))
        if monotone:
            shift = np.abs(shift) * rng.choice([-1.0, 1.0], (PAIRS, 1))
        qn = q + shift
        outs = mech.outputs(k)
        if mech.releases_values:  # one random output per draw, with random released values
            outs = [outs[int(rng.integers(len(outs)))] for _ in range(3)]
        for s in outs:
            rel = None
            if mech.releases_values:
                n_a = s.count("A")
                rel = rng.uniform(0, 3 * scale, n_a) if mech.release.value == "gap" else rng.uniform(-3 * scale, 3 * scale, n_a)
            lp, _ = fast_log_probability(mech, q, s, rel)
            lpn, _ = fast_log_probability(mech, qn, s, rel)
            both = np.isfinite(lp) & np.isfinite(lpn)
            assert not np.any(np.isfinite(lp) != np.isfinite(lpn)), f"{s}: zero on one side only, beside a proven bound"
            lr = np.abs(np.where(both, lp - lpn, 0.0))
            i = int(np.argmax(lr))
            if lr[i] > float(bound) + 1e-9:
                with mpmath.workdps(40):
                    exact = abs(exact_log(mech, q[i], s, rel) - exact_log(mech, qn[i], s, rel))
                    assert exact <= mpmath.mpf(bound.numerator) / bound.denominator + mpmath.mpf(10) ** -25, \
                        (mech.describe(), q[i], qn[i], s, rel, exact)
            worst = max(worst, float(lr[i]))
    return worst


def ratio_loss(v, w, capsys) -> mpmath.mpf:
    if "gaussian" in (v["z"], v["x"]):
        # the seed's noise flags take laplace/exponential/none only: a Gaussian variant is not expressible on the
        # command line, so the engine behind `ratio` (verify.family.probability.evaluate) is called directly
        mech = build(v)
        rel = list(w.released) or None
        with mpmath.workdps(w.digits + 10):
            a = evaluate(mech, list(w.queries), w.outcome, rel, w.digits).value
            b = evaluate(mech, list(w.neighbour), w.outcome, rel, w.digits).value
            if a == 0 or b == 0:
                return mpmath.mpf(0) if a == b else mpmath.inf
            return abs(mpmath.log(a) - mpmath.log(b))
    args = ["ratio", *flags(v), "--queries", ",".join(fmt(a) for a in w.queries),
            "--neighbour-queries", ",".join(fmt(a) for a in w.neighbour), "--outcomes", w.outcome,
            "--digits", str(w.digits), "--json"]
    if w.released:
        args += ["--released", ",".join(fmt(a) for a in w.released)]
    capsys.readouterr()
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    text = out["max_abs_log_ratio"]
    with mpmath.workdps(w.digits + 10):
        return mpmath.inf if text in ("inf", "+inf") else mpmath.mpf(text)


@pytest.mark.slow
@settings(max_examples=12, deadline=None, derandomize=True, database=None, phases=(Phase.explicit, Phase.generate),
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(v=variants())
# pinned `private` variants (a random draw is seldom private): the seed's Mechanism One resampled and monotone,
# Lyu Alg. 1 at c = 2 (b_Z = 2Δ/ε, b_X = 8Δ/ε), GapSVT and NumericalSVT at c = 2
@example(v=dict(z="laplace", x="laplace", cz=3, cx=3, cutoff=1, policy="resample", release="none", y=None, cy=None, monotone=True))
@example(v=dict(z="laplace", x="laplace", cz=2, cx=8, cutoff=2, policy="shared", release="none", y=None, cy=None, monotone=False))
@example(v=dict(z="laplace", x="laplace", cz=2, cx=8, cutoff=2, policy="shared", release="gap", y=None, cy=None, monotone=False))
@example(v=dict(z="laplace", x="laplace", cz=3, cx=12, cutoff=2, policy="shared", release="fresh", y="laplace", cy=6,
                monotone=False))
def test_private_survives_a_random_search_and_every_loss_is_reproduced_by_ratio(v, capsys):
    mech = build(v)
    res = family_worst_case(mech, max_queries=2, monotone=v["monotone"], tightness_study=False)
    if res.verdict is MechanismVerdict.PRIVATE:
        assert res.upper_bound is not None and res.upper_bound.value <= EPS
        random_search(mech, res.upper_bound.value, v["monotone"])
    w = res.witness
    again = ratio_loss(v, w, capsys)
    with mpmath.workdps(w.digits + 10):
        if mpmath.isinf(res.loss):
            assert mpmath.isinf(again)
        else:
            assert abs(again - res.loss) <= mpmath.mpf(10) ** -(w.digits - 10) * max(1, abs(res.loss)), (mech.describe(), w.describe())
