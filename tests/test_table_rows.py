"""The `family` table's rows (`verify.family.table`).

Re-homed from the mutation rounds' files (`test_family_mutation_kills3.py`); each class or test keeps its name, so
docs/mutation.md and `benchmarks/mutation_score.py` still find it.
"""

from __future__ import annotations

from family_variants import variant


class TestRowsKills3:
    """The per-k rows are refined points."""

    def test_rows_refine_only_the_layouts_whose_best_is_a_grid_point(self, monkeypatch):
        """Rule (`family_worst_case` with rows): every reported row is a refined point: a layout whose best point is
        not one of the refined starts is refined once more (ROW_BUDGET), and a refined start is never refined again.
        The refinement calls are recorded: no row refinement starts from a start refinement's output, and there is
        at least one row refinement (Mechanism One, up to 3 queries, starts = 1: most layouts' best is a grid point)."""
        from verify.family import search_tuning as tune
        from verify.family import worstcase as wc

        real = wc._refine
        outputs: list = []
        row_inputs: list = []

        def refine(shape, p, scale, moves=False, budget=tune.REFINE_BUDGET):
            out = real(shape, p, scale, moves, budget)
            if budget == tune.ROW_BUDGET:
                row_inputs.append(p)
            else:
                outputs.append(out)
            return out

        monkeypatch.setattr(wc, "_refine", refine)
        wc.family_worst_case(variant(), max_queries=3, starts=1, rows=True, tightness_study=False)
        assert outputs and row_inputs
        assert not any(p is o for p in row_inputs for o in outputs)
