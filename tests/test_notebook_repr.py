"""Jupyter views of the results (`verify.notebook`, each result's ``_repr_markdown_``): short, the verdict and
the main numbers as the result holds them, Markdown tables with one cell per column."""

from __future__ import annotations

import mpmath
import pytest

from verify.audit import audit
from verify.audit.examples import FIXTURES, claimed_variant, lyu1
from verify.exact import fmt
from verify.family.delta import exact_delta
from verify.family.presets import preset
from verify.family.table import family_table
from verify.family.worstcase import family_worst_case
from verify.mechanism import AboveThreshold
from verify.notebook import family_table_markdown, markdown_table, number
from verify.ratio import privacy_ratio
from verify.worstcase import worst_case

#: A Markdown view stays short: a heading line, a table of a few rows, a witness line.
MAX_LINES = 15


def tables(text: str) -> list[list[list[str]]]:
    """The Markdown tables of ``text``: rows of cells (an escaped ``\\|`` stays inside its cell)."""
    out: list[list[list[str]]] = []
    previous = False
    for line in text.splitlines():
        if line.startswith("|"):
            cells = [c.strip() for c in line.replace("\\|", "\0").strip("|").split("|")]
            if not previous:
                out.append([])
            out[-1].append([c.replace("\0", "|") for c in cells])
        previous = line.startswith("|")
    return out


def check_shape(text: str) -> list[list[list[str]]]:
    assert len(text.splitlines()) <= MAX_LINES, text
    found = tables(text)
    for t in found:
        assert t[1] == ["---"] * len(t[0]), t  # the separator row
        assert all(len(r) == len(t[0]) for r in t), t  # one cell per column in every row
    return found


def test_markdown_table_escapes_pipes_and_line_breaks():
    t = tables(markdown_table(["a", "b"], [["x|y", "1\n2"]]))
    assert t == [[["a", "b"], ["---", "---"], ["x|y", "1 2"]]]


def test_number_spells_infinity_and_keeps_digits():
    assert number("inf") == "∞" and number(mpmath.inf) == "∞" and number(-mpmath.inf) == "-∞"
    assert number(mpmath.mpf(2) / 3) == "0.66666667"
    assert number(None) == "none"


@pytest.fixture(scope="module")
def seed_result():
    return worst_case(AboveThreshold.mechanism_one(1), max_queries=2, push_study=False)


def test_worst_case_result_shows_verdict_loss_bound_and_witness(seed_result):
    text = seed_result._repr_markdown_()
    (table,) = check_shape(text)
    assert f"**{seed_result.verdict}**" in text
    row = dict(zip(table[0], table[2]))
    with mpmath.workdps(30):
        assert row["loss found (nats)"] == mpmath.nstr(seed_result.loss, 8)
    assert row["proven bound"] == "1" and row["unbounded"] == "no"
    w = seed_result.witness
    assert f"q(D) = ({', '.join(fmt(x) for x in w.queries)})" in text


def test_family_worst_case_and_row():
    res = family_worst_case(preset("lyu-3"), max_queries=2)
    text = res._repr_markdown_()
    (table,) = check_shape(text)
    row = dict(zip(table[0], table[2]))
    assert row["proven bound"] == "none" and row["unbounded"] == ("yes" if res.unbounded else "no")
    assert res.witness.describe() in text
    rows = family_table(rows=(("lyu-1", 1), ("lyu-3", 1)), max_queries=2)
    (one,) = check_shape(rows[0]._repr_markdown_())
    assert one[2][:3] == ["lyu-1", "1", str(rows[0].result.verdict)]
    (both,) = check_shape(family_table_markdown(rows))
    assert [r[0] for r in both[2:]] == ["lyu-1", "lyu-3"]


def test_delta_result_names_delta_as_a_lower_bound():
    res = exact_delta(AboveThreshold.mechanism_one(1), [0], [1], 0)
    text = res._repr_markdown_()
    check_shape(text)
    with mpmath.workdps(30):
        assert f"= {mpmath.nstr(res.delta, 8)}**" in text
    assert "lower bound" in text and "q(D) = (0), q(D') = (1)" in text


def test_ratio_report_has_one_row_per_output():
    rep = privacy_ratio(AboveThreshold.mechanism_one(1), [0], [1])
    (table,) = check_shape(rep._repr_markdown_())
    assert len(table) == 2 + len(rep.outputs)
    assert [r[-1] for r in table[2:]] == ["yes" if o.within_bounds else "**NO**" for o in rep.outputs]


def test_ratio_report_marks_a_violation():
    # Lap(1Δ/ε) on threshold and queries, a negative control of the report: the ratio exceeds e^ε here
    m = AboveThreshold.with_noise("laplace", 1, threshold_multiplier=1, query_multiplier=1)
    rep = privacy_ratio(m, [0, 0], [1, -1])
    assert any(not o.within_bounds for o in rep.outputs)
    assert "**NO**" in rep._repr_markdown_()


def test_claim_verdict_names_id_verdict_and_method():
    from proofs.registry import all_claims

    claim = next(c for c in all_claims() if c.id == "P1.event")
    v = claim.check()
    text = v._repr_markdown_()
    check_shape(text)
    assert text.startswith(f"**P1.event**: **{v.verdict}** by ")
    assert v.method.split()[0] in text


def test_audit_result_shows_verdict_and_one_row_per_pair():
    res = audit(lyu1, claimed_variant(FIXTURES["lyu1"]), samples=300, random_pairs=1, worst_pair=False, workers=1,
                identify=False)
    text = res._repr_markdown_()
    (table,) = check_shape(text)
    assert f"**{res.verdict}**" in text
    assert len(table) == 2 + len(res.pairs)
    assert f"{res.samples_per_side:,} runs per side" in text
