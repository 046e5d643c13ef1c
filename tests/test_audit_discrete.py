"""Auditing discrete variants: the exact law on ℤ, integer pairs, the integer-code bugs, the CLI.

Statistical tests here are seeded; each states its false-alarm rate.  The fixtures' verdicts (correct
ones match, broken ones deviate and are named) are in tests/test_audit_fixtures.py with the others.
"""

from __future__ import annotations

import json
import math
from collections import Counter

import numpy as np
import pytest

from verify.audit import audit
from verify.audit.discrete_examples import sampcert_rounded_laplace
from verify.audit.discrete_laws import engine_laws, rounded_laws, rounded_pmf, window_laws
from verify.audit.gof import g_test
from verify.audit.laws import Candidate, Law, letter_laws
from verify.audit.pairs import select_pairs
from verify.audit.sensitive import bugs, grid_rows
from verify.errors import InputError
from verify.family.presets import preset
from verify.verdicts import AuditVerdict

ROWS = [(0, 0, 0), (-4, 4, 4), (10, 10, 10, -10), (-8,) * 8, (3, -2, 5, 1, 0, 0, 7, -9)]


@pytest.mark.parametrize("mech", [preset("sampcert-above-threshold"), preset("sampcert-above-threshold", compare="gt"),
                                  preset("dlap-lyu-1", cutoff=2), preset("dlap-lyu-1", cutoff=2).with_changes(threshold_policy="resample"),
                                  preset("dgauss-above-threshold"), preset("dlap-seed-m1")],
                         ids=["sampcert", "sampcert-gt", "dlap-lyu-1", "dlap-lyu-1-resample", "dgauss", "dlap-seed-m1"])
def test_window_sum_agrees_with_the_discrete_engine(mech):
    for a, b in zip(engine_laws(mech, ROWS), window_laws(mech, ROWS)):
        assert set(a) == set(b)
        assert math.isclose(sum(a.values()), 1.0, rel_tol=1e-12)
        for o, p in a.items():
            if p > 1e-12:
                assert b[o] == pytest.approx(p, rel=1e-10), o


def test_discrete_claim_law_is_the_engines():
    mech = preset("sampcert-above-threshold")
    assert letter_laws(Candidate("c", mech), [(0.0, 1.0, -2.0)]) == engine_laws(mech, [(0, 1, -2)])


def test_a_non_integer_query_is_refused_for_a_discrete_law():
    with pytest.raises(InputError, match="not integers"):
        engine_laws(preset("sampcert-above-threshold"), [(0.5, 0.0)])


def test_rounded_laplace_mass_function():
    b = 4.0
    k = np.arange(1, 30)
    assert np.allclose(rounded_pmf(k, b), np.exp(-k / b) * math.sinh(1 / (2 * b)), rtol=1e-12)
    assert rounded_pmf(np.array([0.0]), b)[0] == pytest.approx(1 - math.exp(-1 / (2 * b)), rel=1e-12)
    assert rounded_pmf(np.arange(-400, 401), b).sum() == pytest.approx(1.0, abs=1e-12)


def test_rounded_laplace_law_matches_the_rounding_code():
    """Seeded: 40,000 runs of the rounding fixture against `rounded_laws` (G-test, false alarm 1e-6), and the
    same runs reject the discrete Laplace law it is claimed as (they differ by χ² ≈ 9e-5 per run at this row: at
    40,000 runs the noncentrality is about 3.7, far too small to reject at 1e-6, so only the first is asserted)."""
    mech = preset("sampcert-above-threshold")
    q = np.array([-4.0, 2.0, 4.0])
    rng = np.random.default_rng(20261207)
    counts = Counter(sampcert_rounded_laplace(q, rng) for _ in range(40_000))
    law = rounded_laws(mech, [tuple(q)])[0]
    assert math.isclose(sum(law.values()), 1.0, rel_tol=1e-12)
    assert g_test(counts, law).p_value > 1e-6
    assert law != pytest.approx(engine_laws(mech, [tuple(q)])[0], rel=1e-3)


def test_discrete_pairs_are_integer_neighbours():
    mech = preset("dlap-lyu-1", cutoff=2)
    for p in select_pairs(mech, 3, 6, seed=3):
        for q, qn in zip(p.queries, p.neighbour):
            assert q == round(q) and qn == round(qn) and abs(q - qn) <= 1
    assert all(x == round(x) for r in grid_rows(mech, 3, 8.0) for x in r)


def test_the_integer_code_bugs_are_candidates():
    labels = {b.label for b in bugs(preset("sampcert-above-threshold"))}
    assert {"compare gt (> where the claim has >=)", "threshold t + 1 (off by one)", "threshold t - 1 (off by one)",
            "continuous Laplace rounded to the integers"} <= labels
    assert any(b.law is Law.ROUNDED for b in bugs(preset("sampcert-above-threshold")))
    assert not any(b.law is Law.ROUNDED for b in bugs(preset("dgauss-above-threshold")))  # rounding Laplace: only for DLap
    assert not any("compare" in b.label for b in bugs(preset("lyu-1", cutoff=2)))  # a tie has no mass off ℤ


def _dgauss_impl(queries, rng):
    """AboveThreshold with the library's discrete Gaussian sampler (Canonne, Kamath, Steinke 2020)."""
    mech = preset("dgauss-above-threshold")
    t_hat = mech.threshold_noise.sample(rng, 1)[0]
    out = ""
    for q in queries:
        if q + mech.query_noise.sample(rng, 1)[0] >= t_hat:
            return out + "A"
        out += "B"
    return out


def test_discrete_gaussian_claim_is_audited():
    """Seeded, false-alarm rate 1e-3: a correct discrete-Gaussian AboveThreshold matches."""
    res = audit(_dgauss_impl, preset("dgauss-above-threshold"), target_tv=0.1, seed=0, sensitive=False, random_pairs=2)
    assert res.verdict is AuditVerdict.MATCHES, "\n".join(res.lines())


@pytest.fixture
def run(audit_command):
    return audit_command


def test_cli_audits_a_built_discrete_variant(run):
    """``--noise discrete-laplace`` builds the claim; seeded, false-alarm rate 1e-3: ``>`` for ``>=`` deviates (exit 1)
    and is named, with the threshold t + 1 reported as indistinguishable (on ℤ the two laws are one)."""
    code, out, err = run("--implementation", "verify.audit.discrete_examples:sampcert_gt", "--noise", "discrete-laplace",
                         "--threshold-scale", "2", "--query-scale", "4", "--cutoff", "1", "--target-tv", "0.1",
                         "--random-pairs", "1", "--workers", "1", "--json")
    assert code == 1, err
    res = json.loads(out)
    assert res["verdict"] == "deviates"
    assert res["fit"]["best"][0] == "compare gt (> where the claim has >=)"
    assert "threshold t + 1 (off by one)" in res["fit"]["tied"]
