"""`verify.engine.row_plan`: the one description of an outcome read over the query columns.

The plan must predict the description (`integrand.build`) exactly at any point, for every release
rule and threshold policy; a description of a form it does not know is refused, not misread.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction

import numpy as np
import pytest

from verify.engine import integrand
from verify.engine.row_plan import row_plan
from verify.errors import InputError
from verify.family.presets import preset
from verify.release.gap import GapRelease

MECHS = [preset("lyu-1", cutoff=2), preset("lyu-2", cutoff=3), preset("lyu-3", cutoff=2),
         dataclasses.replace(preset("lyu-3", cutoff=2), cutoff=None), preset("numeric-svt", cutoff=2),
         preset("gap-svt", cutoff=3), dataclasses.replace(preset("gap-svt", cutoff=3), threshold_policy="resample"),
         dataclasses.replace(preset("lyu-3", cutoff=3), threshold_policy="resample"), preset("lyu-5"), preset("gaussian-svt", cutoff=2)]


@pytest.mark.parametrize("mech", MECHS, ids=lambda m: f"{m.name}-{m.cutoff}-{m.threshold_policy.value}")
def test_the_plan_predicts_the_description_at_random_points(mech):
    rng = np.random.default_rng(3)
    for k in (1, 4, 7):
        outs = mech.outputs(k)
        for s in [outs[i] for i in rng.choice(len(outs), min(len(outs), 6), replace=False)]:
            plan = row_plan(mech, k, s)
            for _ in range(3):
                a = [Fraction(int(x), 8) for x in rng.integers(-40, 40, k)]
                v = [Fraction(int(x), 8) for x in rng.integers(-16, 40, plan.released)]
                want = integrand.build(mech, [mech.threshold + x for x in a], s, v if mech.releases_values else None)
                assert plan.describe(a, v, mech.threshold) == (want.pieces, want.constants)


def test_a_form_the_plan_does_not_know_is_refused(monkeypatch):
    """Negative control: a gap whose density sat at z - (a + g) instead of z - (a - g)."""
    mech = preset("gap-svt", cutoff=2)
    assert row_plan(mech, 3, "BAA").pieces[0].released == (None, 0, 1)
    row_plan.cache_clear()
    monkeypatch.setattr(GapRelease, "term_offset", lambda self, a, value: a + value)
    with pytest.raises(InputError, match="fast path: outcome 'BAA' of gap-svt: .*not over the query columns"):
        row_plan(mech, 3, "BAA")
    row_plan.cache_clear()
