"""Tuning parameters of the family's worst-case search and tightness study (`verify.family.worstcase`).

They set the effort (how many points are tried, how far Nelder-Mead goes) and so which point is found, never what
a found point means: a loss is reported only as a witness confirmed at 50 digits (`verify.family.witness.confirm`)
and `private` only from a proven bound (`verify.family.bounds`).  The mutation runner does not mutate them
(docs/mutation.md, "Tuning parameters"); tests/test_family_mutation_kills2.py pins the first phase's grid.
"""

from __future__ import annotations

#: The first phase's grid: queries at t ± j·scale for these j (scale: the larger noise scale, or Δ).
GRID_STEPS = (0.0, 1.0, 2.0, 4.0, 8.0, 16.0)
#: A gap release's released value on the grid: r = j·scale for these j.
GAP_STEPS = (0.0, 0.25, 0.5, 1.0, 2.0, 4.0)
#: Nelder-Mead iterations per coordinate when a per-k row (not a search start) is refined.
ROW_BUDGET = 30
#: Offsets (in units of Δ) of a fresh released value from its above query on the grid.
RELEASE_OFFSETS = (-1.0, 0.0, 1.0)

#: Nelder-Mead iterations per coordinate when a search start is refined.
REFINE_BUDGET = 80
#: The refinement clips every query to this many noise scales from t.
REFINE_BOX = 40.0
#: Nelder-Mead's stopping tolerances: on the coordinates (in noise scales) and on the float64 loss.
REFINE_XATOL = 1e-4
REFINE_FATOL = 1e-13
#: A fresh release's moved point counts only where it beats its layout's best by more than this (relative).
MOVE_RTOL = 1e-9
#: The tightness study's moderate grid: queries at t + j·unit for these j (|q - t| <= 2 scales).
MODERATE_STEPS = tuple(j / 2 for j in range(-4, 5))
#: Grid points of the tightness study within this relative distance of the bound (float64) are confirmed at 50 digits.
CLOSE_RTOL = 1e-9
#: A witness's coordinates are rounded to short rationals in units of the noise scale written with at most this
#: denominator (`Fraction(scale).limit_denominator(UNIT_DENOMINATOR)`); the rounded point is the one confirmed.
UNIT_DENOMINATOR = 1000
