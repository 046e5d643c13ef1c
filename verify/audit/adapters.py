"""What an audited implementation looks like, and adapters for the two common shapes.

The audit calls an *implementation* as ``impl(queries, rng)``: ``queries`` a
float64 numpy vector (q_1, ..., q_k), ``rng`` a seeded `numpy.random.Generator`
that the implementation must use for all of its noise.  It returns the outcome
string (one letter per query answered: ``A`` above, ``B`` below, ending at the
c-th A or after the k-th query, `verify.mechanism`), or ``(outcome, values)``
with one released value per A for variants that release values.

Two adapters wrap the shapes libraries usually have:

* `from_stream`: ``make(rng)`` returns a per-query function ``ask(q)`` that
  answers True (above) or False (below), and signals that it has halted by
  returning None or raising (StopIteration, or the exception classes given),
  as OpenDP's queryables do.  A release is returned as ``(True, value)``.
* `from_vector`: ``fn(queries, rng)`` returns a list of booleans (one per query
  answered) or, with ``indices=True``, the indices of the above queries; a
  release is returned as ``(list, values)``.

Adapters are frozen dataclasses around module-level functions, so they pickle
by reference and run in worker processes and on Dask workers.
"""

from __future__ import annotations

import importlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from verify.errors import InputError

#: One run: the outcome string and the released values (empty if none).
Run = tuple[str, tuple[float, ...]]

_SPEC = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*:[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$")


def normalize(result: Any) -> Run:
    """An implementation's return value as ``(outcome, released)``; `InputError` if malformed."""
    values: Any = ()
    if isinstance(result, tuple) and len(result) == 2 and isinstance(result[0], str):
        result, values = result
    if not isinstance(result, str) or not result or set(result) - {"A", "B"}:
        raise InputError(f"implementation: returned {str(result)[:40]!r}, not a non-empty string of A (above) and B (below)")
    try:
        vals = tuple(float(v) for v in (values if values is not None else ()))
    except (TypeError, ValueError):
        raise InputError(f"implementation: released values {str(values)[:40]!r} are not numbers") from None
    return result, vals


def call(impl: Callable[..., Any], queries: np.ndarray, rng: np.random.Generator) -> Run:
    """One run of ``impl``, normalized."""
    return normalize(impl(queries, rng))


@dataclass(frozen=True)
class Stream:
    """`from_stream`'s adapter (see the module docstring)."""

    make: Callable[[np.random.Generator], Callable[[float], Any]]
    halts_on: tuple[type[BaseException], ...] = (StopIteration,)

    def __call__(self, queries: np.ndarray, rng: np.random.Generator) -> Run:
        ask = self.make(rng)
        letters: list[str] = []
        values: list[float] = []
        for q in queries:
            try:
                answer = ask(float(q))
            except self.halts_on:
                break
            if answer is None:
                break
            value = None
            if isinstance(answer, tuple):
                answer, value = answer
            letters.append("A" if answer else "B")
            if answer and value is not None:
                values.append(float(value))
        return "".join(letters), tuple(values)


@dataclass(frozen=True)
class Vector:
    """`from_vector`'s adapter (see the module docstring)."""

    fn: Callable[[np.ndarray, np.random.Generator], Any]
    indices: bool = False
    cutoff: int | None = None

    def __call__(self, queries: np.ndarray, rng: np.random.Generator) -> Run:
        result = self.fn(queries, rng)
        values: Any = ()
        if isinstance(result, tuple) and len(result) == 2:
            result, values = result
        answers = list(result)
        if not self.indices:
            return "".join("A" if a else "B" for a in answers), tuple(float(v) for v in values)
        ups = sorted(int(i) for i in answers)
        if ups and (ups[0] < 0 or ups[-1] >= len(queries) or len(set(ups)) != len(ups)):
            raise InputError(f"implementation: indices {ups[:10]} are not distinct indices 0..{len(queries) - 1}")
        halted = self.cutoff is not None and len(ups) >= self.cutoff
        length = ups[self.cutoff - 1] + 1 if halted else len(queries)
        letters = ["B"] * length
        for i in ups:
            if i < length:
                letters[i] = "A"
        return "".join(letters), tuple(float(v) for v in values)


def from_stream(make: Callable[[np.random.Generator], Callable[[float], Any]],
                halts_on: Sequence[type[BaseException]] = (StopIteration,)) -> Stream:
    """Adapt a per-query stream: ``make(rng)`` returns ``ask(q) -> bool | (bool, value) | None``.

    >>> import numpy as np
    >>> def make(rng):
    ...     t_hat = rng.laplace(0, 2)
    ...     state = {"done": False}
    ...     def ask(q):
    ...         if state["done"]:
    ...             return None
    ...         state["done"] = q + rng.laplace(0, 4) >= t_hat
    ...         return state["done"]
    ...     return ask
    >>> from_stream(make)(np.array([-50.0, 50.0, 0.0]), np.random.default_rng(1))
    ('BA', ())
    """
    return Stream(make, tuple(halts_on))


def from_vector(fn: Callable[[np.ndarray, np.random.Generator], Any], indices: bool = False, cutoff: int | None = None) -> Vector:
    """Adapt a whole-vector function returning booleans, or (``indices=True``, with the run's
    ``cutoff``, None for unlimited) the indices of the above queries."""
    if indices and cutoff is not None and (isinstance(cutoff, bool) or not isinstance(cutoff, int) or cutoff < 1):
        raise InputError(f"cutoff: {cutoff!r} must be an integer >= 1 or None")
    return Vector(fn, bool(indices), cutoff)


def load(spec: str) -> Callable[..., Any]:
    """The callable named ``MODULE:CALLABLE`` (dotted names only; imported with importlib, never evaluated)."""
    if not isinstance(spec, str) or not _SPEC.match(spec.strip()):
        raise InputError(f"--implementation: {str(spec)[:60]!r} must be MODULE:CALLABLE with dotted Python names, "
                         "e.g. verify.audit.examples:lyu1")
    module_name, attr = spec.strip().split(":")
    try:
        obj: Any = importlib.import_module(module_name)
    except ImportError as exc:
        raise InputError(f"--implementation: cannot import module {module_name!r} ({type(exc).__name__}: {exc})") from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise InputError(f"--implementation: module {module_name!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise InputError(f"--implementation: {spec!r} is not callable")
    return obj
