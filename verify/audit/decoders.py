"""Real code as it is: declared decoders for sentinel numbers and other returns, and batch samplers.

Library code rarely returns the audit's outcome string (`verify.audit.adapters`).  Each
adapter here is a frozen dataclass around a module-level function (it pickles by
reference, so it runs in worker processes and isolated children), with the decoding
declared, not guessed:

* `from_sentinels`: one number per query, DP-Sniper's style.  ``below`` marks a below
  answer, ``above`` (letters only) an above, ``halted`` the entries after the run
  stopped (or the list simply ends).  For a variant that releases values, every entry
  that is not a sentinel is an above releasing that value.  **Ambiguity**: a ``below``
  sentinel that is also a legal released value (DP-Sniper's NumericalSVT writes 0.0 for
  below, and 0.0 is a value its noisy release can take) must be resolved explicitly:
  ``ambiguous="below"`` reads an entry equal to the sentinel as below, which is right
  with probability 1 when the released values have a continuous law (Pr[value = 0.0]
  = 0); without it the adapter is refused (one line) rather than guessing.
* `from_decoder`: any return value (a statistic, a dictionary, a custom object) mapped by
  a declared module-level ``decode(raw) -> outcome | (outcome, values)``.  A statistic
  that does not determine the outcome string (e.g. only the number of aboves) cannot be
  tested against the outcome law: the decoder then has no right answer, and should not
  be written.
* `from_batch`: a batch sampler ``fn(queries, rng, n)`` called once for n runs and
  returning n outcomes (each in any shape the audit accepts); `verify.audit.sampling`
  calls it once per chunk instead of once per run.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from verify.audit.adapters import ImplementationError, Run
from verify.errors import InputError

AMBIGUOUS = ("below",)


@dataclass(frozen=True)
class Sentinels:
    """`from_sentinels`'s adapter (module docstring)."""

    fn: Callable[[np.ndarray, np.random.Generator], Any]
    below: float
    above: float | None = None
    halted: float | None = None
    releases: bool = False
    ambiguous: str | None = None

    def _same(self, x: float, sentinel: float | None) -> bool:
        return sentinel is not None and (x == sentinel or (math.isnan(x) and math.isnan(sentinel)))

    def __call__(self, queries: np.ndarray, rng: np.random.Generator) -> Run:
        raw = self.fn(queries, rng)
        try:
            entries = [float(x) for x in np.asarray(raw, dtype=float).ravel()]
        except (TypeError, ValueError):
            raise ImplementationError(f"implementation: returned {str(raw)[:40]!r}, not a list of numbers (sentinels)") from None
        letters: list[str] = []
        values: list[float] = []
        for x in entries:
            if self._same(x, self.halted):
                break
            if self._same(x, self.below):
                letters.append("B")
            elif self.releases:
                letters.append("A")
                values.append(x)
            elif self._same(x, self.above):
                letters.append("A")
            else:
                raise ImplementationError(f"implementation: entry {x!r} is none of the declared sentinels (below {self.below!r}, "
                                          f"above {self.above!r}, halted {self.halted!r})")
        if len(letters) > len(queries):
            raise ImplementationError(f"implementation: {len(letters)} answers for {len(queries)} queries (at most one per query)")
        return "".join(letters), tuple(values)


def from_sentinels(fn: Callable[[np.ndarray, np.random.Generator], Any], below: float, above: float | None = None,
                   halted: float | None = None, releases: bool = False, ambiguous: str | None = None) -> Sentinels:
    """Adapt a function returning one sentinel number per query (module docstring).

    >>> import numpy as np
    >>> def numerical(queries, rng):          # below: 0.0; above: the noisy query (NumericalSVT's style)
    ...     return [0.0, 0.0, 3.25]
    >>> from_sentinels(numerical, below=0.0, releases=True, ambiguous="below")(np.zeros(3), None)
    ('BBA', (3.25,))
    """
    for name, v in (("below", below), ("above", above), ("halted", halted)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int | float)):
            raise InputError(f"sentinel {name}: {v!r} must be a number")
    if releases and above is not None:
        raise InputError("sentinel above: a releasing implementation's above is its released value; give no above sentinel")
    if not releases and above is None:
        raise InputError("sentinel above: give the number that marks an above (or releases=True if aboves are released values)")
    if ambiguous is not None and ambiguous not in AMBIGUOUS:
        raise InputError(f"ambiguous: {ambiguous!r} must be one of {', '.join(AMBIGUOUS)} or None")
    if releases and not math.isnan(below) and ambiguous is None:
        raise InputError(f"sentinel below: {below!r} is also a legal released value, so an entry {below!r} is ambiguous (below, or "
                         "an above releasing that value); declare ambiguous='below' (right with probability 1 when the released "
                         "values have a continuous law) or return a sentinel no release can take (e.g. nan or None)")
    return Sentinels(fn, float(below), None if above is None else float(above), None if halted is None else float(halted),
                     bool(releases), ambiguous)


@dataclass(frozen=True)
class Decoded:
    """`from_decoder`'s adapter: ``decode(fn(queries, rng))``."""

    fn: Callable[[np.ndarray, np.random.Generator], Any]
    decode: Callable[[Any], Any]

    def __call__(self, queries: np.ndarray, rng: np.random.Generator) -> Any:
        return self.decode(self.fn(queries, rng))


def from_decoder(fn: Callable[[np.ndarray, np.random.Generator], Any], decode: Callable[[Any], Any]) -> Decoded:
    """Adapt any return value with a declared, module-level ``decode(raw)`` giving the outcome (module docstring)."""
    if not callable(fn) or not callable(decode):
        raise InputError("from_decoder: fn and decode must be callables (module-level functions, so that they pickle)")
    return Decoded(fn, decode)


@dataclass(frozen=True)
class Batch:
    """`from_batch`'s adapter: ``fn(queries, rng, n)`` returns n outcomes.  ``batch`` tells
    `verify.audit.sampling.run_chunk` to call `runs` once per chunk."""

    fn: Callable[[np.ndarray, np.random.Generator, int], Sequence[Any]]
    batch = True

    def runs(self, queries: np.ndarray, rng: np.random.Generator, n: int) -> list[Any]:
        out = self.fn(queries, rng, n)
        out = list(out) if not isinstance(out, str) else None
        if out is None or len(out) != n:
            raise ImplementationError(f"implementation: a batch sampler asked for {n} runs returned "
                                      f"{'a string' if out is None else len(out)} outcomes")
        return out

    def __call__(self, queries: np.ndarray, rng: np.random.Generator) -> Any:
        return self.runs(queries, rng, 1)[0]


def from_batch(fn: Callable[[np.ndarray, np.random.Generator, int], Sequence[Any]]) -> Batch:
    """Adapt a batch sampler ``fn(queries, rng, n) -> n outcomes`` (module docstring)."""
    if not callable(fn):
        raise InputError("from_batch: fn must be a callable fn(queries, rng, n)")
    return Batch(fn)
