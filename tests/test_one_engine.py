"""The one-engine rule, checked on the source (ast) and on the calls.

* Only `verify/engine/piecewise.py` defines the closed form's pieces (the factors F, S and p_X on a
  segment, the segment integral, the polynomial product, the prefix trie, the column plan of the
  vectorised mode, the mpmath precision rule): no second closed form lives anywhere in `verify/`.
  The declared exceptions are named below (`DECLARED_CLOSED_FORMS`, each with its reason); a
  closed form is a definition with a piece's name or a function that integrates symbolically.
* The seed's front door (`verify.probabilities`: symbolic, mpmath, arb, fast) and the family's
  (`verify.family.probability`: symbolic, mpmath, arb) both evaluate through that one module, and
  both build what they integrate with the one description of an outcome
  (`verify.engine.integrand.build`); so do the float64 paths (`verify.engine.fast_generic` through
  `verify.engine.row_plan`, `verify.engine.fast_halting` through `piecewise.column_plan`) and the
  discrete engine's plan (`verify.engine.discrete_plan`, through `integrand.describe`).
* No function outside `verify/engine/integrand.py` rebuilds the description (reads an outcome's
  letters together with the release rule's factor attributes or the resampling policy), except the
  declared ones (`DECLARED_DESCRIPTIONS`, each with its reason).
"""

from __future__ import annotations

import ast
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import verify.engine.piecewise as core
from verify import probabilities as seed_door
from verify.engine import integrand
from verify.family import probability as family_door
from verify.family.presets import preset
from verify.mechanism import AboveThreshold

ROOT = Path(__file__).resolve().parent.parent
CORE = "verify/engine/piecewise.py"
#: names whose definition is a piece of the closed form
PIECES = {"factor_below", "factor_reach", "factor_density", "segment_integral", "poly_times", "point_below",
          "point_reach", "integrals", "mp_closed_form", "exponent_digits", "cancellation_digits", "column_plan",
          "PrefixTrie", "ClosedForm"}


#: closed forms outside the core that are a different object, each with the reason (docs/architecture.md)
DECLARED_CLOSED_FORMS = {
    ("verify/engine/discrete_closed_form.py", "ClosedForm"):
        "noise on ℤ: an outcome is a sum over the integers of geometric series (ties have mass), not an integral of a density",
    ("verify/certify/closed_forms.py", "conditional_cell"):
        "C(m, d) symbolic in the positions m and d, one formula per order of m, 0, d, on which the certificate proves "
        "identities for the whole cell; the core evaluates at exact positions",
    ("verify/certify/closed_forms.py", "tilted_hazard_pieces"):
        "φ(v), a function of the threshold noise alone, symbolic in v, for the certificate's interval bounds; no outcome",
    ("verify/certify/closed_forms.py", "integrate_exponentials"):
        "the two above's exact integrator: ∫ c·e^{av+b} dv term by term by its antiderivative, symbolic in the "
        "bounds; no outcome, no noise law",
    ("verify/certify/closed_forms.py", "sympy_integral"):
        "sympy's general integrator, the reference the tests compare `integrate_exponentials` with (and its "
        "fallback for a term of another form); no outcome, no noise law",
}

#: functions outside the one description that read an outcome's letters with the release rule's factor
#: attributes or the resampling policy, each with the reason
DECLARED_DESCRIPTIONS = {
    ("verify/oracles/family.py", "_segment"):
        "the verdicts' independent re-check of every witness (plain mpmath quadrature, its own panels and rule): "
        "it must not share the code it checks",
    ("verify/audit/discrete_laws.py", "prefix_products"):
        "the audit's float64 letter laws of a candidate (the trapezoidal grid of `verify.audit.laws.grid_letter_laws`, "
        "about 1e-4, and the vectorised window sum of a discrete candidate, `_window_laws`), only to rank candidate "
        "laws; the claimed law and every reported probability come from the engine (engine_laws)",
}
DESCRIPTION = "verify/engine/integrand.py"
#: what a description is made of: the release rule's factor attributes and the resampling policy
INGREDIENTS = {"above_term", "caps_threshold", "term_offset", "nonnegative", "constant_noise", "RESAMPLE"}


#: the certificate's exact integrators (verify/certify/closed_forms.py) and their injected name ``integrate``
SYMBOLIC_INTEGRATORS = {"integrate", "integrate_exponentials", "sympy_integral"}


def piece_definitions(source: str) -> list[tuple[int, str]]:
    """(line, name) of every function, method or class definition named as a closed-form piece, and of
    every function that integrates symbolically (calls ``sympy.integrate``, or one of `SYMBOLIC_INTEGRATORS`
    by its bare name)."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            continue
        integrates = isinstance(node, ast.FunctionDef) and any(
            isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == "integrate"
            and isinstance(n.func.value, ast.Name) and n.func.value.id in {"sympy", "sp"}
            or isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in SYMBOLIC_INTEGRATORS
            for n in ast.walk(node))
        if node.name in PIECES or integrates:
            out.append((node.lineno, node.name))
    return out


def _letter_test(node: ast.AST) -> bool:
    """A comparison with the letter A (``ABOVE`` or ``"A"``)."""
    return isinstance(node, ast.Compare) and any(
        isinstance(x, ast.Name) and x.id == "ABOVE" or isinstance(x, ast.Constant) and x.value == "A"
        for x in [node.left, *node.comparators])


def description_builders(source: str) -> list[tuple[int, str]]:
    """(line, name) of every function that compares letters with A and reads an `INGREDIENTS` name,
    compares with "resample" or is handed the resampling policy (a parameter named ``resample``): a
    (re)built description of an outcome."""
    out = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.FunctionDef):
            continue
        inner = list(ast.walk(node))
        reads = any(isinstance(n, ast.Attribute) and n.attr in INGREDIENTS or isinstance(n, ast.Constant) and n.value == "resample"
                    for n in inner) or any(a.arg == "resample" for a in node.args.args + node.args.kwonlyargs)
        if reads and any(_letter_test(n) for n in inner):
            out.append((node.lineno, node.name))
    return out


def scan(root: Path, find) -> dict[tuple[str, str], int]:
    """{(path relative to root, name): line} of every hit of ``find`` under root/verify."""
    hits = {}
    for path in sorted((root / "verify").rglob("*.py")):
        rel = path.relative_to(root).as_posix()
        for line, name in find(path.read_text(encoding="utf-8")):
            hits[(rel, name)] = line
    return hits


@pytest.mark.slow
def test_only_the_core_defines_closed_form_pieces():
    found = {key for key in scan(ROOT, piece_definitions) if key[0] != CORE}
    assert found == set(DECLARED_CLOSED_FORMS)  # a new closed form fails, and so does a stale declaration
    assert all(len(reason) > 40 for reason in DECLARED_CLOSED_FORMS.values())
    assert {name for _, name in piece_definitions((ROOT / CORE).read_text(encoding="utf-8"))} >= PIECES
    assert not (ROOT / "verify/family/closed_form.py").exists()


def test_negative_control_a_second_closed_form_is_found():
    second = "class Other:\n    def segment_integral(self, a, lo, hi):\n        return 0\n\ndef poly_times(p, f):\n    return p\n"
    assert sorted(piece_definitions(second)) == [(2, "segment_integral"), (5, "poly_times")]
    assert piece_definitions("def times(p, f):\n    return p\n") == []
    symbolic = "import sympy\n\ndef cell(p, s, z):\n    return sympy.integrate(p * s, (z, 0, sympy.oo))\n"
    assert piece_definitions(symbolic) == [(3, "cell")]


@pytest.mark.slow
def test_no_path_rebuilds_the_outcome_description():
    found = {key for key in scan(ROOT, description_builders) if key[0] != DESCRIPTION}
    assert found == set(DECLARED_DESCRIPTIONS)
    # one builder, `_describe`, behind `describe`/`build` (one outcome) and `build_all` (outcomes sharing queries)
    assert [name for _, name in description_builders((ROOT / DESCRIPTION).read_text(encoding="utf-8"))] == ["_describe"]


#: the generic fast path's own pieces, as they were before it read the description
REBUILT = '''
from verify.engine.integrand import TermKind
from verify.mechanism import ABOVE, ThresholdPolicy


def pieces(mech, outcome):
    pieces, terms, caps = [], [], []
    r = 0
    rule = mech.release_rule
    for i, letter in enumerate(outcome):
        if letter != ABOVE:
            terms.append((TermKind.BELOW, i, None))
            continue
        if rule.above_term is not None:
            terms.append((rule.above_term, i, r if rule.above_term is TermKind.DENSITY else None))
        if mech.threshold_policy is ThresholdPolicy.RESAMPLE:
            pieces.append((terms, caps))
            terms, caps = [], []
    if terms or not pieces:
        pieces.append((terms, caps))
    return pieces


def segments(mech, q, outcome):
    resample = mech.threshold_policy.value == "resample"
    out, offs = [], []
    for i, letter in enumerate(outcome):
        offs.append(q[i])
        if resample and letter == "A":
            out.append(offs)
            offs = []
    return out
'''


def test_negative_control_a_rebuilt_description_is_found(tmp_path):
    module = tmp_path / "verify" / "family" / "rebuilt.py"
    module.parent.mkdir(parents=True)
    module.write_text(REBUILT, encoding="utf-8")
    assert scan(tmp_path, description_builders) == {("verify/family/rebuilt.py", "pieces"): 6,
                                                      ("verify/family/rebuilt.py", "segments"): 24}
    # reading the rule without the letters (or the letters without the rule) is no description
    assert description_builders("def f(rule):\n    return rule.above_term\n") == []
    assert description_builders("def f(s):\n    return s.count('A') if s[0] == 'A' else 0\n") == []
    # handed the resampling policy as a flag and walking the letters: a description
    handed = "def f(s, w, resample):\n    return [c for c in s if c == 'A' and resample]\n"
    assert description_builders(handed) == [(1, "f")]


@pytest.fixture
def calls(monkeypatch):
    """Counts the core's evaluations and the one description's builds."""
    seen = {"integrals": 0, "build": 0, "plan": 0, "describe": 0}
    integrals, build, plan, describe = core.ClosedForm.integrals, integrand.build, core.column_plan, integrand.describe
    build_all = integrand.build_all

    def counted_integrals(self, pieces, floor=None):
        seen["integrals"] += 1
        return integrals(self, pieces, floor)

    def counted_build(*args, **kwargs):
        seen["build"] += 1
        return build(*args, **kwargs)

    def counted_build_all(*args, **kwargs):  # the description of several outcomes at once (the exact door)
        seen["build"] += 1
        return build_all(*args, **kwargs)

    def counted_plan(mech, k):
        seen["plan"] += 1
        return plan(mech, k)

    def counted_describe(*args, **kwargs):
        seen["describe"] += 1
        return describe(*args, **kwargs)

    monkeypatch.setattr(core.ClosedForm, "integrals", counted_integrals)
    monkeypatch.setattr(integrand, "describe", counted_describe)
    monkeypatch.setattr(integrand, "build", counted_build)
    monkeypatch.setattr(integrand, "build_all", counted_build_all)
    monkeypatch.setattr("verify.engine.fast_closed_form.column_plan", counted_plan)
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
    from verify.engine.integrand import TermKind

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


def test_the_float64_paths_and_the_discrete_plan_read_the_description(calls):
    """The generic fast path (through `row_plan`), the halting path (through `column_plan`, its
    precondition) and the discrete plan all call the one description; the caches are cleared so
    that a cached plan cannot hide a path that stopped reading it."""
    from verify.engine.discrete_plan import build_plan
    from verify.engine.fast_generic import log_probability
    from verify.engine.fast_halting import halting_distribution
    from verify.engine.row_plan import row_plan

    row_plan.cache_clear()
    core.column_plan.cache_clear()
    log_probability(preset("gap-svt", cutoff=2), np.array([[0.0, 1.0, 2.0]]), "BAA", [1.0, 0.5])
    assert calls["build"] >= 1
    n = calls["build"]
    halting_distribution(preset("dwork-roth"), np.linspace(-3, 3, 15)[None, :])
    assert calls["build"] > n
    n = calls["describe"]
    build_plan(preset("dlap-seed-m1"), [0, 1], "BA")
    assert calls["describe"] > n
