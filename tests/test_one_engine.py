"""The one-engine rule, checked on the source (ast) and on the calls.

* Only `verify/piecewise.py` defines the closed form's pieces (the factors F, S and p_X on a
  segment, the segment integral, the polynomial product, the prefix trie, the column plan of the
  vectorised mode, the mpmath precision rule): no second closed form lives anywhere in `verify/`.
* The seed's front door (`verify.probabilities`: symbolic, mpmath, arb, fast) and the family's
  (`verify.family.probability`: symbolic, mpmath, arb) both evaluate through that one module, and
  both build what they integrate with the one description of an outcome
  (`verify.family.integrand.build`).
"""

from __future__ import annotations

import ast
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import verify.piecewise as core
from verify import probabilities as seed_door
from verify.family import integrand
from verify.family import probability as family_door
from verify.family.presets import preset
from verify.mechanism import AboveThreshold

ROOT = Path(__file__).resolve().parent.parent
CORE = "verify/piecewise.py"
#: names whose definition is a piece of the closed form
PIECES = {"factor_below", "factor_reach", "factor_density", "segment_integral", "poly_times", "point_below",
          "point_reach", "integrals", "mp_closed_form", "exponent_digits", "cancellation_digits", "column_plan",
          "PrefixTrie", "ClosedForm", "PiecewiseIntegrator"}


def piece_definitions(source: str) -> list[tuple[int, str]]:
    """(line, name) of every function, method or class definition named as a closed-form piece."""
    return [(node.lineno, node.name) for node in ast.walk(ast.parse(source))
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and node.name in PIECES]


def test_only_the_core_defines_closed_form_pieces():
    offenders = {}
    for path in sorted((ROOT / "verify").rglob("*.py")):
        rel = path.relative_to(ROOT).as_posix()
        if rel == CORE or rel.startswith("verify/discrete/"):  # sums over ℤ: the discrete engine, its own law
            continue
        hits = piece_definitions(path.read_text(encoding="utf-8"))
        if hits:
            offenders[rel] = hits
    assert offenders == {}
    assert {name for _, name in piece_definitions((ROOT / CORE).read_text(encoding="utf-8"))} >= PIECES - {"PiecewiseIntegrator"}
    assert not (ROOT / "verify/family/closed_form.py").exists()


def test_negative_control_a_second_closed_form_is_found():
    second = "class Other:\n    def segment_integral(self, a, lo, hi):\n        return 0\n\ndef poly_times(p, f):\n    return p\n"
    assert sorted(piece_definitions(second)) == [(2, "segment_integral"), (5, "poly_times")]
    assert piece_definitions("def times(p, f):\n    return p\n") == []


@pytest.fixture
def calls(monkeypatch):
    """Counts the core's evaluations and the one description's builds."""
    seen = {"integrals": 0, "build": 0, "plan": 0}
    integrals, build, plan = core.ClosedForm.integrals, integrand.build, core.column_plan

    def counted_integrals(self, pieces, floor=None):
        seen["integrals"] += 1
        return integrals(self, pieces, floor)

    def counted_build(*args, **kwargs):
        seen["build"] += 1
        return build(*args, **kwargs)

    def counted_plan(mech, k):
        seen["plan"] += 1
        return plan(mech, k)

    monkeypatch.setattr(core.ClosedForm, "integrals", counted_integrals)
    monkeypatch.setattr(integrand, "build", counted_build)
    monkeypatch.setattr("verify.fast.column_plan", counted_plan)
    return seen


@pytest.mark.parametrize("path", ["mpmath", "symbolic", "arb", "conditional"])
def test_the_seed_front_door_calls_the_core(calls, path):
    m = AboveThreshold.mechanism_one(1)
    if path == "mpmath":
        seed_door.mp_distribution(m, [0, 1, -1], 20)
    elif path == "symbolic":
        seed_door.symbolic_distribution(m, [0, 1])
    elif path == "arb":
        seed_door.arb_distribution(m, [0, 1])
    else:
        seed_door.mp_conditional(m, Fraction(1, 2), 1, 20)
    assert calls["integrals"] >= 1 and calls["build"] >= 1


def test_the_seed_fast_path_reads_the_plan(calls):
    for m in (AboveThreshold.mechanism_one(1), AboveThreshold.with_noise("laplace", 1, threshold_family="none")):
        before = calls["plan"]
        seed_door.fast_log_distribution(m, np.array([[0.0, 1.0, -1.0]]))
        assert calls["plan"] > before


@pytest.mark.parametrize("name, outcome, released", [("lyu-1", "BA", None), ("lyu-2", "AB", None),
                                                      ("gap-svt", "BA", [1]), ("numeric-svt", "A", [2])])
def test_the_family_front_door_calls_the_core(calls, name, outcome, released):
    m = preset(name, cutoff=2 if name == "lyu-2" else 1)
    family_door.mp_probability(m, [0, 1][: len(outcome)], outcome, released, 20)
    assert calls["integrals"] >= 1 and calls["build"] >= 1
    n = calls["integrals"]
    family_door.symbolic_probability(m, [0, 1][: len(outcome)], outcome, released)
    family_door.arb_probability(m, [0, 1][: len(outcome)], outcome, released)
    assert calls["integrals"] >= n + 2


def test_negative_control_quadrature_does_not_call_the_core(calls):
    """Gaussian noise has no closed form: the counter stays at 0, so it counts only the core."""
    family_door.mp_probability(preset("gaussian-svt"), [0, 1], "BA", None, 15)
    assert calls["integrals"] == 0 and calls["build"] == 1


def test_the_plan_is_the_description():
    """The vectorised mode's trie holds the description's factors: for k = 3, s_i = F^{i-1}S, ⊤^3 = F^3."""
    plan = core.column_plan(AboveThreshold.mechanism_one(1), 3)
    from verify.family.integrand import TermKind

    paths = []
    for leaf in plan.trie.leaves:
        path, node = [], leaf
        while node:
            parent, term = plan.trie.nodes[node - 1]
            path.append(term)
            node = parent
        paths.append(path[::-1])
    F, S = TermKind.BELOW, TermKind.ABOVE
    assert paths == [[(S, 0)], [(F, 0), (S, 1)], [(F, 0), (F, 1), (S, 2)], [(F, 0), (F, 1), (F, 2)]]
    assert len(plan.trie.nodes) == 6  # the F chain shared: 3 F + 3 S, not 1 + 2 + 3 + 3


def test_the_plan_refuses_outcomes_off_the_columns():
    from verify.errors import InputError

    with pytest.raises(InputError, match="vectorised closed form"):
        core.column_plan(preset("lyu-2", cutoff=2), 2)  # a resampled threshold: outcomes of two pieces
