"""Which Sparse Vector variants are discrete, and the integer rules they must obey.

A variant is *discrete* when its threshold noise or its query noise is a
family on the integers (``discrete = True`` in `verify.noise.protocol`).  The
ties and the geometric-series closed form need every quantity compared to be
an integer, so a discrete variant must have:

* integer sensitivity Δ and threshold t (and integer queries, checked where
  queries are given: `check_queries`);
* threshold and query noise each discrete or none (a continuous noise mixed
  with a discrete one is refused: ties would have mass on one side only and
  none of the paths here integrates a density);
* release ``none`` (the outcome is the A/B string only).

Every refusal is one `InputError` line naming the value and the rule.
"""

from __future__ import annotations

from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from verify.comparison import Comparison, check_comparison
from verify.errors import InputError
from verify.exact import to_fraction
from verify.noise import NoiseSpec
from verify.release import release_rule
from verify.validate import sequence


def is_discrete_spec(spec: NoiseSpec | None) -> bool:
    return spec is not None and spec.law.discrete


def is_discrete(mech: Any) -> bool:
    """A variant with a discrete threshold or query noise (a `SparseVector`)."""
    return is_discrete_spec(mech.threshold_spec) or is_discrete_spec(mech.query_spec) or is_discrete_spec(mech.release_spec)


def _integer(x: Fraction, name: str) -> int:
    if x.denominator != 1:
        raise InputError(f"{name}: {x} is not an integer; a discrete noise family needs integer queries, threshold and Δ")
    return x.numerator


def check_discrete_model(epsilon: Fraction, sensitivity: Fraction, threshold: Fraction, threshold_spec: NoiseSpec,
                         query_spec: NoiseSpec, release: str, release_spec: NoiseSpec | None) -> None:
    """The rules of the module docstring for a variant with a discrete noise (`InputError` otherwise)."""
    if release_rule(release).releases_values or release_spec is not None:
        raise InputError(f"release: {release!r} with discrete noise is not supported; a discrete variant releases nothing (release 'none')")
    _integer(sensitivity, "sensitivity")
    _integer(threshold, "threshold")
    for label, spec in (("threshold noise", threshold_spec), ("query noise", query_spec)):
        if not (spec.is_none or spec.law.discrete):
            raise InputError(f"{label}: {spec.describe()} is continuous; a discrete variant needs discrete noise or none "
                             "for both the threshold and the queries")


def refuse_discrete(mech: Any, engine: str) -> None:
    """The continuous engines (integrals over densities) refuse a discrete variant in one line."""
    if is_discrete(mech):
        raise InputError(f"{engine}: {mech.name} has noise on the integers; its probabilities are sums over ℤ "
                         "(verify.discrete), not integrals of a density")


def check_queries(queries: Sequence[object]) -> tuple[int, ...]:
    """Integer queries, given as a list, tuple, range or 1-d array (not a string, set or dict, whose iteration is
    not a query vector): `InputError` naming the first that is not an integer."""
    out = []
    for j, q in enumerate(sequence(queries, "queries"), start=1):
        out.append(_integer(to_fraction(q, f"queries[{j}]"), f"queries[{j}]"))
    if not out:
        raise InputError("queries: at least one query is needed")
    return tuple(out)


__all__ = ["Comparison", "check_comparison", "check_discrete_model", "check_queries", "is_discrete", "is_discrete_spec", "refuse_discrete"]
