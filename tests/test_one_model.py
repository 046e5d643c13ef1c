"""The one-model rules, checked on the source (ast) and on the objects.

* No module outside `verify/noise/` compares a noise family's *name* as a string
  (``noise.family == "laplace"``, ``fam in ("laplace", "exponential")``,
  ``family != "none"``): it asks the family object (`Noise.law`) instead, so that
  a new family is one new class in `verify/noise/`.
* `SparseVector` is the only mechanism dataclass in `verify/`; the seed's
  `AboveThreshold` constructors return `SparseVector` presets.
"""

from __future__ import annotations

import ast
from fractions import Fraction
from pathlib import Path

import pytest

from verify.noise import ALL_FAMILIES, NONE

ROOT = Path(__file__).resolve().parent.parent
NAMES = {name for name in ALL_FAMILIES if name != NONE}


def _strings(node: ast.AST) -> set[str]:
    """String constants of a node that is a constant or a literal tuple / list / set of them."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return {node.value}
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return {e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return set()


def family_name_comparisons(source: str) -> list[tuple[int, str]]:
    """(line, code) of every comparison with a family name: any operand a family-name literal
    (or a literal collection holding one), or the literal 'none' against an operand whose
    code mentions a family."""
    hits = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Compare):
            continue
        operands = [node.left, *node.comparators]
        literals = set().union(*(_strings(o) for o in operands))
        mentions_family = any("fam" in ast.unparse(o).lower() for o in operands if not _strings(o))
        if literals & NAMES or (NONE in literals and mentions_family):
            hits.append((node.lineno, ast.unparse(node)))
    return hits


def _sources() -> list[Path]:
    return sorted(p for top in ("verify", "proofs") for p in (ROOT / top).rglob("*.py")
                  if "__pycache__" not in p.parts and (ROOT / "verify" / "noise") not in p.parents)


@pytest.mark.parametrize("snippet", [
    'if noise.family == "laplace": pass',
    'ok = law.family in ("laplace", "exponential", "none")',
    'gauss = "gaussian" in (z.family, x.family)',
    'if fam != "none": pass',
    'x = {a.family, b.family} <= {"gaussian", "none"}',
])
def test_the_checker_finds_a_family_name_comparison(snippet):
    """Negative controls: each of these is what the rule forbids."""
    assert family_name_comparisons(snippet)


@pytest.mark.parametrize("snippet", [
    'if output == "none": pass',
    'if release.value != "none": pass',
    'spec = NoiseSpec("laplace", multiplier=3)',
    'if noise.law.two_sided: pass',
])
def test_the_checker_leaves_other_code_alone(snippet):
    assert not family_name_comparisons(snippet)


#: Files allowed to compare family names as strings: none (the noise package is not scanned).
REMAINING: set[str] = set()


@pytest.mark.slow
def test_no_module_outside_the_noise_package_compares_a_family_name():
    found = {}
    for path in _sources():
        rel = path.relative_to(ROOT).as_posix()
        hits = family_name_comparisons(path.read_text(encoding="utf-8"))
        if hits:
            found[rel] = hits
    unexpected = {rel: hits for rel, hits in found.items() if rel not in REMAINING}
    assert not unexpected, "family names compared as strings (ask noise.law instead): " + "; ".join(
        f"{rel}:{line} {code}" for rel, hits in unexpected.items() for line, code in hits)


def test_every_family_object_is_reached_through_noise_law():
    from verify.noise import FAMILY_TYPES, Noise

    for name, fam in FAMILY_TYPES.items():
        scale = Fraction(0) if fam.is_none else Fraction(2)
        assert Noise(name, scale).law is fam


def _mechanism_dataclasses() -> list[str]:
    """Frozen dataclasses in verify/ with the fields a mechanism has (ε, Δ, threshold and the two noise specs)."""
    found = []
    for path in sorted((ROOT / "verify").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            if not any("dataclass" in ast.unparse(d) for d in node.decorator_list):
                continue
            fields = {s.target.id for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)}
            if {"epsilon", "sensitivity", "threshold_spec", "query_spec"} <= fields:
                found.append(f"{path.relative_to(ROOT).as_posix()}:{node.name}")
    return found


@pytest.mark.slow
def test_there_is_one_mechanism_dataclass():
    assert _mechanism_dataclasses() == ["verify/mechanism.py:SparseVector"]


def test_the_seeds_constructors_return_sparse_vector_presets():
    from verify.family.presets import preset
    from verify.mechanism import SEED_NAME, AboveThreshold, Release, SparseVector, ThresholdPolicy
    from verify.mechanism import SparseVector as FamilyModelSparseVector
    from verify.noise import NoiseSpec

    assert FamilyModelSparseVector is SparseVector
    built = [
        (AboveThreshold.mechanism_one(2, 3, 1), preset("seed-m1", epsilon=2, sensitivity=3, threshold=1)),
        (AboveThreshold.mechanism_two(Fraction(1, 2)), preset("seed-m2", epsilon=Fraction(1, 2))),
        (AboveThreshold(1, 1, 0, NoiseSpec("laplace", multiplier=Fraction(3)), NoiseSpec("laplace", multiplier=Fraction(3))),
         preset("seed-m1")),
    ]
    for seed, same in built:
        assert isinstance(seed, SparseVector) and seed.is_above_threshold
        assert (seed.cutoff, seed.threshold_policy, seed.release, seed.name) == (1, ThresholdPolicy.SHARED, Release.NONE, SEED_NAME)
        assert seed == same.with_changes(name=SEED_NAME)  # the seed preset, named as the seed's constructor
    assert AboveThreshold.mechanism_one(1).describe() == "AboveThreshold(ε=1, Δ=1, t=0, threshold Lap(3Δ/ε), queries Lap(3Δ/ε))"
    assert preset("seed-m1").describe().startswith("seed-m1: SparseVector(")
    # a seed mechanism changed into another variant describes itself as one
    assert AboveThreshold.mechanism_one(1).with_changes(cutoff=2).describe().startswith("above-threshold: SparseVector(")


def test_the_negative_control_finds_a_second_mechanism_dataclass(tmp_path, monkeypatch):
    """The one-dataclass check sees a copy of the old AboveThreshold dataclass if one is added."""
    import tests.test_one_model as me

    (tmp_path / "verify").mkdir()
    (tmp_path / "verify" / "mechanism.py").write_text((ROOT / "verify" / "mechanism.py").read_text(encoding="utf-8"))
    (tmp_path / "verify" / "seed_type.py").write_text(
        "from dataclasses import dataclass\n@dataclass(frozen=True)\nclass AboveThreshold:\n"
        "    epsilon: int\n    sensitivity: int\n    threshold: int\n    threshold_spec: object\n    query_spec: object\n")
    monkeypatch.setattr(me, "ROOT", tmp_path)
    assert me._mechanism_dataclasses() == ["verify/mechanism.py:SparseVector", "verify/seed_type.py:AboveThreshold"]


def test_variant_shape_is_gone():
    """The search, bounds, witnesses, δ and the family oracle read the one `SparseVector`: no second model."""
    assert not (ROOT / "verify" / "family" / "shape.py").exists()
    for path in _sources():
        text = path.read_text(encoding="utf-8")
        assert "VariantShape" not in text and "shape_of" not in text, path


# --- release rules: one class each in verify/release/, never compared by name ---------------------------
RELEASE_NAMES = {"none", "query", "gap", "fresh"}


def _is_release_member(node: ast.AST) -> bool:
    """``Release.GAP`` (or ``x.Release.GAP``)."""
    return isinstance(node, ast.Attribute) and (
        (isinstance(node.value, ast.Name) and node.value.id == "Release")
        or (isinstance(node.value, ast.Attribute) and node.value.attr == "Release"))


def _elements(node: ast.AST) -> list[ast.AST]:
    return list(node.elts) if isinstance(node, (ast.Tuple, ast.List, ast.Set)) else [node]


def _is_release_field(node: ast.AST) -> bool:
    """``mech.release`` or a variable named ``release`` / ``rel``."""
    return (isinstance(node, ast.Attribute) and node.attr == "release") or (
        isinstance(node, ast.Name) and node.id in ("release", "rel"))


def release_comparisons(source: str) -> list[tuple[int, str]]:
    """(line, code) of every switch on a release rule's identity: a comparison with a `Release` member,
    a release name against an operand that mentions a release, a release field against another variable
    (``rel is not mech.release``), a dict keyed by release names or members, a ``match`` on a release field."""
    hits = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Compare):
            operands = [node.left, *node.comparators]
            flat = [e for o in operands for e in _elements(o)]
            literals = set().union(*(_strings(o) for o in operands))
            mentions = any("rel" in ast.unparse(o).lower() for o in operands if not _strings(o))
            fields = [o for o in operands if _is_release_field(o)]
            two_fields = bool(fields) and not any(isinstance(o, ast.Constant) for o in operands)
            if any(_is_release_member(e) for e in flat) or (literals & RELEASE_NAMES and mentions) or two_fields:
                hits.append((node.lineno, ast.unparse(node)))
        elif isinstance(node, ast.Dict):
            keys = [k for k in node.keys if k is not None]
            names = {k.value for k in keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
            if any(_is_release_member(k) for k in keys) or len(names & RELEASE_NAMES) >= 2:
                hits.append((node.lineno, ast.unparse(node)[:80]))
        elif isinstance(node, ast.Match) and ("release" in ast.unparse(node.subject) or _is_release_field(node.subject)):
            hits.append((node.lineno, f"match {ast.unparse(node.subject)}"))
    return hits


def _release_sources() -> list[Path]:
    return sorted(p for top in ("verify", "proofs") for p in (ROOT / top).rglob("*.py")
                  if "__pycache__" not in p.parts and (ROOT / "verify" / "release") not in p.parents)


@pytest.mark.parametrize("snippet", [
    'if shape.release == "gap": pass',
    'if mech.release is Release.FRESH: pass',
    'ok = rel in (Release.QUERY, Release.GAP)',
    'if shape.release in ("fresh", "query"): pass',
    'if rel is not mech.release: pass',
    'if release != "none": pass',
    'extra = {"gap": "case 3", "fresh": "case 4"}.get(shape.release, "")',
    'rel = {"none": (), "gap": (0,)}.get(shape.release, (t,))',
    'f = {Release.GAP: g}[m.release]',
    'match mech.release:\n    case Release.GAP:\n        pass',
    'x = verify.release.Release.QUERY == r',
])
def test_the_checker_finds_a_release_switch(snippet):
    """Negative controls: each of these is what the rule forbids (the old switches among them)."""
    assert release_comparisons(snippet)


@pytest.mark.parametrize("snippet", [
    'm = mech.with_changes(release=Release.NONE, release_spec=None)',
    'if args.release is None: pass',
    'if rule.caps_threshold: pass',
    'if which == "query": pass',
    'if output == "none": pass',
    'if rule is not mech.release_rule: pass',
    'if rel == "=": pass',
    'spec = NoiseSpec("laplace", multiplier=3)',
])
def test_the_release_checker_leaves_other_code_alone(snippet):
    assert not release_comparisons(snippet)


@pytest.mark.slow
def test_no_module_outside_the_release_package_switches_on_a_release_rule():
    found = {}
    for path in _release_sources():
        hits = release_comparisons(path.read_text(encoding="utf-8"))
        if hits:
            found[path.relative_to(ROOT).as_posix()] = hits
    assert not found, "release rules compared by name or member (ask mech.release_rule's attributes): " + "; ".join(
        f"{rel}:{line} {code}" for rel, hits in found.items() for line, code in hits)


def test_the_release_names_are_the_registered_rules():
    from verify.release import RELEASE_RULES, Release

    assert {r.value for r in Release} == RELEASE_NAMES == {rule.name for rule in RELEASE_RULES.values()}
