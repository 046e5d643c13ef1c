"""OpenDP's make_noisy_max side by side with the exact loss (docs/selection.md, "OpenDP, side by side").

OpenDP is a test dependency only (the `test` extra); without it this file is skipped.  Checked here:

* the privacy map `verify.selection.opendp_map` encodes is OpenDP's own (``Measurement.map``) for every
  configuration (both measures, monotonic true and false, max and min);
* every row's verdict is backed: a *tight* pure row by our proven bound equal to the map's ε and a witness within
  1e-9 of it; a zCDP row's ρ found by its witness pair, recomputed here (D_α/α at that pair) and compared with the
  map's ρ; a *violated* row would need the witness above the claim;
* `verify.audit.audit` on OpenDP's own sampler at the worst pair, through `OpenDPPool` below.

The adapter (`OpenDPPool`).  OpenDP draws from its own cryptographic generator, which cannot be seeded, and the
audit refuses an implementation that ignores the numpy generator it is given (its runs must be reproducible).  So
the adapter keeps a pool of ``POOL`` runs per query vector of OpenDP's measurement and answers each run of the
audit with the pool's entry at ``rng.integers(POOL)``: every outcome the audit counts is one of OpenDP's draws, and
the same seed gives the same runs.  The audit then tests the pool's empirical law; with N runs per side drawn from
a pool of M = 25·N, the G statistic is inflated by about a factor 1 + N/M = 1.04 over a fresh sampler's, which
moves the audit's false-alarm rate (1e-3 over all its tests) by a factor well below 2 at its level.  The index i
(0-based) is returned as the audit's outcome string B^i A.

The pool is filled lazily: an entry gets its OpenDP draw when the audit first reads it (the next draw of a stream of
fresh draws, ``CHUNK`` at a time, each chunk one invocation of OpenDP's basic composition of ``CHUNK`` copies of the
measurement: each entry is still one run of OpenDP's noisy max on the vector with its own randomness, and the
Python-to-Rust conversions are paid once per chunk).  The draws are i.i.d., so handing the next one to whichever
entry is read first gives the entries the same joint law as drawing all M in advance, and the entries the audit
reads (at most a few thousand of the M = 50,000) are all that is drawn: the same test, a tenth of OpenDP's draws.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import mpmath
import pytest

dp = pytest.importorskip("opendp.prelude")

from verify.audit import audit  # noqa: E402
from verify.selection.opendp_map import OpenDPConfig, configurations, pure_row, renyi_of_pair, zcdp_row  # noqa: E402
from verify.verdicts import AuditVerdict  # noqa: E402

dp.enable_features("contrib")
SAMPLES = 2000
POOL = 25 * SAMPLES
CHUNK = 1000


def opendp_measurement(cfg: OpenDPConfig):
    space = dp.vector_domain(dp.atom_domain(T=float, nan=False)), dp.linf_distance(T=float, monotonic=cfg.monotonic)
    measure = dp.zero_concentrated_divergence() if cfg.zcdp else dp.max_divergence()
    return dp.m.make_noisy_max(*space, measure, scale=float(cfg.scale), negate=cfg.negate)


@dataclass
class OpenDPPool:
    """The adapter of the module docstring: OpenDP's draws, replayed by the audit's generator."""

    cfg: OpenDPConfig
    pools: dict = field(default_factory=dict)  # query vector -> {pool entry: its draw}
    fresh: dict = field(default_factory=dict)  # query vector -> OpenDP draws not yet given to an entry

    def __call__(self, queries, rng):
        key = tuple(float(x) for x in queries)
        pool = self.pools.setdefault(key, {})
        entry = int(rng.integers(POOL))
        if entry not in pool:
            stream = self.fresh.setdefault(key, [])
            if not stream:
                copies = dp.c.make_composition([opendp_measurement(self.cfg)] * CHUNK)
                stream.extend(copies(list(key)))
            pool[entry] = int(stream.pop())
        return "B" * pool[entry] + "A"


@pytest.mark.parametrize("cfg", configurations(), ids=lambda c: c.label())
def test_the_map_encoded_is_opendps(cfg):
    assert opendp_measurement(cfg).map(float(cfg.sensitivity)) == pytest.approx(float(cfg.claimed()), rel=1e-15)
    assert opendp_measurement(cfg)([0.0, 1.0, 2.0]) in (0, 1, 2)


@pytest.mark.parametrize("monotonic", [False, True])
def test_pure_rows_are_tight_by_bound_and_witness(monotonic):
    row = pure_row(OpenDPConfig(False, monotonic, False))
    assert row.verdict == "tight"
    assert row.proven == row.claimed  # the proven bound d/b equals OpenDP's ε
    with mpmath.workdps(50):
        assert row.found <= mpmath.mpf(row.claimed.numerator) / row.claimed.denominator
        assert row.found >= (1 - mpmath.mpf(10) ** -9) * row.claimed.numerator / row.claimed.denominator


@pytest.mark.slow
@pytest.mark.parametrize("monotonic", [False, True])
def test_zcdp_rows_witness_below_the_map(monotonic):
    cfg = OpenDPConfig(True, monotonic, False)
    row = zcdp_row(cfg, digits=20)
    again = renyi_of_pair(cfg.mechanism(), *row.witness, row.alpha, 25)  # the witness, recomputed
    with mpmath.workdps(25):
        assert abs(again / (mpmath.mpf(row.alpha.numerator) / row.alpha.denominator) - row.found) < mpmath.mpf(10) ** -15
        claim = mpmath.mpf(row.claimed.numerator) / row.claimed.denominator
        assert row.verdict == "not violated" and row.found <= claim
        assert row.found >= claim * (Fraction(98, 100) if not monotonic else Fraction(99, 100))  # nearly tight


@pytest.mark.parametrize("zcdp", [False, True])
def test_audit_opendps_sampler_at_the_worst_pair(zcdp):
    cfg = OpenDPConfig(zcdp, False, False)
    res = audit(OpenDPPool(cfg), cfg.mechanism(), samples=SAMPLES, random_pairs=0, structured_pairs=False, seed=5)
    assert res.pairs[0].pair.kind == "worst" and res.verdict is AuditVerdict.MATCHES


def test_audit_at_the_worst_pair_sees_noisy_min_claimed_as_noisy_max():
    """Negative control of the test above: OpenDP's noisy *min* audited against the noisy max it is not.  At the
    worst pair the claimed law puts all but about 1e-9 of its mass on one outcome, so pooling leaves a single
    cell; every run lands in the other outcome, and the exact test of the remainder (`verify.audit.gof`) must
    reject, where the G-test alone compared nothing and called it a match."""
    claimed = OpenDPConfig(False, False, False)
    res = audit(OpenDPPool(OpenDPConfig(False, False, True)), claimed.mechanism(), samples=SAMPLES, random_pairs=0,
                structured_pairs=False, seed=5)
    assert res.pairs[0].pair.kind == "worst" and res.verdict is AuditVerdict.DEVIATES
