"""Implementations to audit: correct ones of the presets, and broken ones as negative controls.

Each is written the way library code is (a loop over the queries with
``rng.laplace``), at ε = 1, Δ = 1, t = 0, and is listed in `FIXTURES` with the
variant it claims and, for a broken one, the candidate law the audit should
name (`verify.audit.fit`).  Broken ones (``# INCORRECT``, as statdp marks its
incorrect SVT variants):

* `lyu3_unnoised_release`: releases q_i instead of q_i + X_i (the pattern of
  NVIDIA/NVFlare#343);
* `lyu2_threshold_not_resampled`: lyu-2 without the fresh threshold after an above;
* `lyu1_half_noise`: query noise Lap(4cΔ/ε)/2;
* `lyu1_reused_noise`: one query-noise draw reused for every query;
* `lyu1_cutoff_off_by_one`: halts after the (c+1)-th above;
* `lyu1_c3_fresh_threshold`: lyu-1 at c = 3 drawing the threshold noise afresh per query;
* `lyu1_c3_threshold_scale_110`, `lyu1_query_scale_90`: a noise scale 10 % off.

``>`` written for ``>=`` is not among the continuous ones: with continuous noise a tie
has probability 0, so the two laws are equal.  It matters for noise on ℤ: the discrete
fixtures (`verify.audit.discrete_examples`: SampCert's AboveThreshold, dlap-lyu-1, and
``>`` for ``>=``, the threshold off by one, Laplace rounded to ℤ) are listed here too.
"""

from __future__ import annotations

from dataclasses import dataclass

from verify.audit import discrete_examples
from verify.audit.adapters import from_stream, from_vector
from verify.family.presets import PRESETS, preset


def _noisy_query(q, noisy, t_hat, rng):
    return noisy


def _gap(q, noisy, t_hat, rng):
    return noisy - t_hat


def _unnoised(q, noisy, t_hat, rng):
    return q  # INCORRECT: the value is released without its noise


def _fresh(scale):
    def draw(q, noisy, t_hat, rng):
        return q + rng.laplace(0.0, scale)
    return draw


def _svt(queries, rng, z_scale, x_scale, cutoff, resample=False, release=None, reuse=False, halt_at=None, fresh=False):
    """The textbook loop (Lyu, Su, Li 2017, Algorithms 1-3); ``halt_at`` overrides the cutoff only;
    ``release(q, noisy, t_hat, rng)`` gives the value an above releases (None: letters only)."""
    t_hat = rng.laplace(0.0, z_scale)
    x_once = rng.laplace(0.0, x_scale) if reuse else None
    letters, values, count = [], [], 0
    stop = cutoff if halt_at is None else halt_at
    for q in queries:
        if fresh:
            t_hat = rng.laplace(0.0, z_scale)  # INCORRECT: a new threshold noise for every query
        noisy = q + (x_once if reuse else rng.laplace(0.0, x_scale))
        if noisy >= t_hat:
            letters.append("A")
            if release is not None:
                values.append(release(q, noisy, t_hat, rng))
            count += 1
            if count == stop:
                break
            if resample:
                t_hat = rng.laplace(0.0, z_scale)
        else:
            letters.append("B")
    outcome = "".join(letters)
    return (outcome, values) if release is not None else outcome


# --- correct implementations ---------------------------------------------------------------------
def seed_m1(queries, rng):
    """Mechanism One of the seed: Z, X_i ~ Lap(3), halt at the first above."""
    return _svt(queries, rng, 3.0, 3.0, 1)


def seed_m2(queries, rng):
    """Mechanism Two of the seed: Z, X_i ~ Exp(3) (one-sided), halt at the first above."""
    t_hat = rng.exponential(3.0)
    out = ""
    for q in queries:
        if q + rng.exponential(3.0) >= t_hat:
            return out + "A"
        out += "B"
    return out


def lyu1(queries, rng):
    """Lyu et al. Algorithm 1 with c = 2: Z ~ Lap(2), X_i ~ Lap(8)."""
    return _svt(queries, rng, 2.0, 8.0, 2)


def lyu2(queries, rng):
    """Lyu et al. Algorithm 2 with c = 2: Z ~ Lap(4), X_i ~ Lap(8), threshold resampled after each above."""
    return _svt(queries, rng, 4.0, 8.0, 2, resample=True)


def lyu3(queries, rng):
    """Lyu et al. Algorithm 3 with c = 2: Z ~ Lap(2), X_i ~ Lap(4), an above releases q_i + X_i."""
    return _svt(queries, rng, 2.0, 4.0, 2, release=_noisy_query)


def numeric_svt(queries, rng):
    """NumericalSVT with c = 2: Z ~ Lap(3), X_i ~ Lap(12), an above releases q_i + Lap(6)."""
    return _svt(queries, rng, 3.0, 12.0, 2, release=_fresh(6.0))


def gap_svt(queries, rng):
    """Sparse Vector with Gap, c = 2: Z ~ Lap(2), X_i ~ Lap(8), an above releases the gap q_i + X_i - t̂."""
    return _svt(queries, rng, 2.0, 8.0, 2, release=_gap)


def _dwork_roth_stream(rng):
    """A per-query stream (OpenDP-queryable style): True/False until the first above, then None."""
    state = {"t_hat": rng.laplace(0.0, 2.0), "done": False}

    def ask(q):
        if state["done"]:
            return None
        state["done"] = bool(q + rng.laplace(0.0, 4.0) >= state["t_hat"])
        return state["done"]

    return ask


#: Dwork and Roth's AboveThreshold (Z ~ Lap(2), X_i ~ Lap(4)) as a stream.
dwork_roth_stream = from_stream(_dwork_roth_stream)


def _lyu1_indices(queries, rng):
    """A whole-vector function returning the indices of the above queries (Lyu et al. Algorithm 1, c = 2)."""
    t_hat = rng.laplace(0.0, 2.0)
    ups = []
    for i, q in enumerate(queries):
        if q + rng.laplace(0.0, 8.0) >= t_hat:
            ups.append(i)
            if len(ups) == 2:
                break
    return ups


#: lyu-1 (c = 2) as a whole-vector function of above indices.
lyu1_vector = from_vector(_lyu1_indices, indices=True, cutoff=2)


# --- broken implementations (negative controls) ---------------------------------------------------------
def lyu3_unnoised_release(queries, rng):
    """INCORRECT lyu-3 (c = 2): releases q_i, not q_i + X_i (NVFlare's pattern)."""
    return _svt(queries, rng, 2.0, 4.0, 2, release=_unnoised)


def lyu2_threshold_not_resampled(queries, rng):
    """INCORRECT lyu-2 (c = 2): the threshold is never resampled."""
    return _svt(queries, rng, 4.0, 8.0, 2, resample=False)


def lyu1_half_noise(queries, rng):
    """INCORRECT lyu-1 (c = 2): query noise Lap(4) instead of Lap(8)."""
    return _svt(queries, rng, 2.0, 4.0, 2)


def lyu1_reused_noise(queries, rng):
    """INCORRECT lyu-1 (c = 2): one query noise draw X ~ Lap(8) for every query."""
    return _svt(queries, rng, 2.0, 8.0, 2, reuse=True)


def lyu1_cutoff_off_by_one(queries, rng):
    """INCORRECT lyu-1 (c = 2): halts after the third above, not the second."""
    return _svt(queries, rng, 2.0, 8.0, 2, halt_at=3)


def lyu1_c3(queries, rng):
    """Lyu et al. Algorithm 1 with c = 3: Z ~ Lap(2), X_i ~ Lap(12)."""
    return _svt(queries, rng, 2.0, 12.0, 3)


def lyu1_c3_fresh_threshold(queries, rng):
    """INCORRECT lyu-1 (c = 3): the threshold noise is drawn afresh for every query."""
    return _svt(queries, rng, 2.0, 12.0, 3, fresh=True)


def lyu1_c3_threshold_scale_110(queries, rng):
    """INCORRECT lyu-1 (c = 3): threshold noise Lap(2.2) instead of Lap(2) (10 % too wide)."""
    return _svt(queries, rng, 2.2, 12.0, 3)


def lyu1_query_scale_90(queries, rng):
    """INCORRECT lyu-1 (c = 2): query noise Lap(7.2) instead of Lap(8) (10 % too narrow)."""
    return _svt(queries, rng, 2.0, 7.2, 2)


@dataclass(frozen=True)
class Fixture:
    """An implementation, the preset (and cutoff) it claims, and for a broken one the expected candidate label."""

    name: str
    implementation: object
    variant: str
    cutoff: int
    correct: bool
    expected: str = ""


FIXTURES: dict[str, Fixture] = {f.name: f for f in (
    Fixture("seed_m1", seed_m1, "seed-m1", 1, True),
    Fixture("seed_m2", seed_m2, "seed-m2", 1, True),
    Fixture("dwork_roth_stream", dwork_roth_stream, "dwork-roth", 1, True),
    Fixture("lyu1", lyu1, "lyu-1", 2, True),
    Fixture("lyu1_vector", lyu1_vector, "lyu-1", 2, True),
    Fixture("lyu2", lyu2, "lyu-2", 2, True),
    Fixture("lyu3", lyu3, "lyu-3", 2, True),
    Fixture("numeric_svt", numeric_svt, "numeric-svt", 2, True),
    Fixture("gap_svt", gap_svt, "gap-svt", 2, True),
    Fixture("lyu3_unnoised_release", lyu3_unnoised_release, "lyu-3", 2, False, "releases q_i without noise"),
    Fixture("lyu2_threshold_not_resampled", lyu2_threshold_not_resampled, "lyu-2", 2, False, "threshold shared (not resampled)"),
    Fixture("lyu1_half_noise", lyu1_half_noise, "lyu-1", 2, False, "query noise Lap(4Δ/ε) (the claim's scale halved)"),
    Fixture("lyu1_reused_noise", lyu1_reused_noise, "lyu-1", 2, False, "one query noise Lap(8) reused for every query"),
    Fixture("lyu1_cutoff_off_by_one", lyu1_cutoff_off_by_one, "lyu-1", 2, False, "cutoff 3 with the scales of cutoff 2"),
    Fixture("lyu1_c3", lyu1_c3, "lyu-1", 3, True),
    Fixture("lyu1_c3_fresh_threshold", lyu1_c3_fresh_threshold, "lyu-1", 3, False, "threshold drawn afresh per query"),
    Fixture("lyu1_c3_threshold_scale_110", lyu1_c3_threshold_scale_110, "lyu-1", 3, False,
            "threshold noise Lap(2.2Δ/ε) (the claim's scale × 11/10)"),
    Fixture("lyu1_query_scale_90", lyu1_query_scale_90, "lyu-1", 2, False, "query noise Lap(7.2Δ/ε) (the claim's scale × 9/10)"),
    Fixture("sampcert", discrete_examples.sampcert, "sampcert-above-threshold", 1, True),
    Fixture("dlap_lyu1", discrete_examples.dlap_lyu1, "dlap-lyu-1", 2, True),
    Fixture("sampcert_gt", discrete_examples.sampcert_gt, "sampcert-above-threshold", 1, False,
            "compare gt (> where the claim has >=)"),
    Fixture("sampcert_threshold_off_by_one", discrete_examples.sampcert_threshold_off_by_one, "sampcert-above-threshold", 1, False,
            "threshold t - 1 (off by one)"),
    Fixture("sampcert_rounded_laplace", discrete_examples.sampcert_rounded_laplace, "sampcert-above-threshold", 1, False,
            "continuous Laplace rounded to the integers"),
)}


def claimed_variant(fixture: Fixture):
    """The `SparseVector` a fixture claims (ε = 1, Δ = 1, t = 0)."""

    options = {"cutoff": fixture.cutoff} if PRESETS[fixture.variant].scales_with_cutoff else {}
    return preset(fixture.variant, **options)
