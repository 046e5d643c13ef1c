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

import functools
import importlib
import importlib.util
import os
import re
import sys
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from verify.errors import InputError

#: One run: the outcome string and the released values (empty if none).
Run = tuple[str, tuple[float, ...]]


def normalize(result: Any) -> Run:
    """An implementation's return value as ``(outcome, released)``; `InputError` if malformed."""
    values: Any = ()
    if isinstance(result, tuple) and len(result) == 2 and isinstance(result[0], str):
        result, values = result
    if not isinstance(result, str) or not result or result.strip("AB"):  # strip: empty iff only A and B letters
        raise ImplementationError(f"implementation: returned {str(result)[:40]!r}, not a non-empty string of A (above) and B (below)")
    try:
        vals = tuple(map(float, values if values is not None else ()))
    except (TypeError, ValueError):
        raise ImplementationError(f"implementation: released values {str(values)[:40]!r} are not numbers") from None
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
            if len(answers) > len(queries):
                raise InputError(f"implementation: {len(answers)} answers for {len(queries)} queries (at most one per query)")
            if not all(isinstance(a, (bool, np.bool_)) for a in answers):
                bad = next(a for a in answers if not isinstance(a, (bool, np.bool_)))
                raise InputError(f"implementation: answer {bad!r} is not a boolean (True: above, False: below)")
            return "".join("A" if a else "B" for a in answers), tuple(float(v) for v in values)
        for bad in answers:  # the first that is not an integer index
            if not isinstance(bad, (int, np.integer)) or isinstance(bad, (bool, np.bool_)):
                raise InputError(f"implementation: index {bad!r} is not an integer (indices of the above queries, 0-based)")
        ups = sorted(int(i) for i in answers)
        if ups and (ups[0] < 0 or ups[-1] >= len(queries) or len(set(ups)) != len(ups)):
            raise InputError(f"implementation: indices {ups[:10]} are not distinct indices 0..{len(queries) - 1}")
        halted = self.cutoff is not None and len(ups) >= self.cutoff
        length = ups[self.cutoff - 1] + 1 if halted else len(queries)
        letters = ["B"] * length
        for i in ups:
            if i < length:
                letters[i] = "A"
        return "".join(letters), tuple(map(float, values))


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


@dataclass(frozen=True)
class Spec:
    """A parsed ``--implementation``: a module (dotted name) or a ``.py`` file, the callable's dotted
    attribute path, and the keyword parameters given after ``?`` (numbers, ``true``/``false`` or names)."""

    module: str
    attribute: str
    parameters: tuple[tuple[str, Any], ...] = ()
    is_file: bool = False

    def __str__(self) -> str:
        query = "&".join(f"{k}={v}" for k, v in self.parameters)
        return f"{self.module}:{self.attribute}" + (f"?{query}" if query else "")


_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_DOTTED = re.compile(rf"^{_NAME}(\.{_NAME})*$")
_PARAM_VALUE = re.compile(r"^(-?[0-9][0-9_]*(\.[0-9_]*)?([eE][-+]?[0-9]+)?|-?\.[0-9]+([eE][-+]?[0-9]+)?|[A-Za-z_][A-Za-z0-9_.-]*)$")
_EXAMPLE = "e.g. verify.audit.examples:lyu1, path/to/file.py:fn or mymodule:fn?epsilon=0.5"


def _param_value(key: str, text: str) -> Any:
    if not _PARAM_VALUE.match(text) or len(text) > 40:
        raise InputError(f"--implementation: parameter {key}={text[:40]!r} must be a number, true/false or a name")
    if text in ("true", "false"):
        return text == "true"
    if text[0].isalpha() or text[0] == "_":
        return text
    if re.match(r"^-?[0-9][0-9_]*$", text):
        return int(text)
    return float(text)


def parse_spec(spec: str) -> Spec:
    """``MODULE:CALLABLE``, ``path/to/file.py:CALLABLE``, either followed by ``?key=value&...``.

    Only parsed, never evaluated: the module is imported by `load` (which runs its code).

    >>> parse_spec("mylib.svt:above_threshold?epsilon=0.5&threshold=1")
    Spec(module='mylib.svt', attribute='above_threshold', parameters=(('epsilon', 0.5), ('threshold', 1)), is_file=False)
    """
    if not isinstance(spec, str) or "\x00" in spec:
        raise InputError(f"--implementation: {str(spec)[:60]!r} must be MODULE:CALLABLE ({_EXAMPLE})")
    text = spec.strip()
    query = ""
    if "?" in text:
        text, query = text.split("?", 1)
    where, sep, attr = text.rpartition(":")
    if not sep or not _DOTTED.match(attr) or not where:
        raise InputError(f"--implementation: {spec[:60]!r} must be MODULE:CALLABLE ({_EXAMPLE})")
    is_file = where.endswith(".py")
    if not is_file and not _DOTTED.match(where):
        raise InputError(f"--implementation: {spec[:60]!r} must be MODULE:CALLABLE with dotted Python names or a .py file "
                         f"({_EXAMPLE})")
    params: list[tuple[str, Any]] = []
    for item in query.split("&") if query else []:
        key, eq, value = item.partition("=")
        if not eq or not re.match(rf"^{_NAME}$", key) or key in dict(params):
            raise InputError(f"--implementation: parameter {item[:40]!r} must be NAME=VALUE, each name once")
        params.append((key, _param_value(key, value)))
    return Spec(where, attr, tuple(params), is_file)


def _import(spec: Spec) -> Any:
    if spec.is_file:
        path = os.path.abspath(spec.module)
        if not os.path.isfile(path):
            raise InputError(f"--implementation: no file {spec.module!r}")
        name = "_svt_audit_" + re.sub(r"\W", "_", os.path.splitext(os.path.basename(path))[0])
        loader_spec = importlib.util.spec_from_file_location(name, path)
        if loader_spec is None or loader_spec.loader is None:  # pragma: no cover - a .py path always has a loader
            raise InputError(f"--implementation: cannot load {spec.module!r}")
        module = importlib.util.module_from_spec(loader_spec)
        sys.modules[name] = module  # so that its functions pickle by reference in this process
        folder = os.path.dirname(path)
        if folder not in sys.path:
            sys.path.insert(0, folder)  # its own imports of neighbouring files
        loader_spec.loader.exec_module(module)
        return module
    if os.getcwd() not in sys.path and "" not in sys.path:
        sys.path.insert(0, os.getcwd())  # the current folder is importable, as with ``python -m``
    return importlib.import_module(spec.module)


def load(spec: str | Spec) -> Callable[..., Any]:
    """The callable named by ``spec`` (`parse_spec`), imported with importlib: this *runs the module's code*
    (the user's own).  Whatever the import raises, or a ``sys.exit`` in it, is refused in one line
    (`ImplementationError`) naming the exception and where it came from."""
    parsed = spec if isinstance(spec, Spec) else parse_spec(spec)
    try:
        obj: Any = _import(parsed)
    except InputError:
        raise
    except ImportError as exc:
        raise ImplementationError(f"--implementation: cannot import module {parsed.module!r} ({type(exc).__name__}: {exc})") from None
    except (Exception, SystemExit) as exc:  # the user's module failed while it ran at import
        raise ImplementationError(f"--implementation {parsed}: importing {parsed.module!r} " + describe_failure(exc)) from None
    for part in parsed.attribute.split("."):
        if not hasattr(obj, part):
            raise InputError(f"--implementation: module {parsed.module!r} has no attribute {parsed.attribute!r}")
        obj = getattr(obj, part)
    if isinstance(obj, type):
        raise InputError(f"--implementation: {parsed.attribute!r} is a class; name a function (or an instance with __call__)")
    if not callable(obj):
        raise InputError(f"--implementation: {str(parsed)!r} is not callable")
    if parsed.parameters:
        obj = functools.partial(obj, **dict(parsed.parameters))
    return obj


class ImplementationError(InputError):
    """The implementation failed (raised, exited, died): one line, exit status 2 in the CLI."""


#: Files of the audit's own runner: a failure's location is the innermost frame outside them.
_RUNNER_FILES = ("adapters.py", "sampling.py", "sandbox.py")


def describe_failure(exc: BaseException) -> str:
    """``raised ValueError: message (at file.py:12 in fn)``: the exception and the innermost frame of the
    user's code (not the standard library's, numpy's, or this runner's)."""
    if isinstance(exc, SystemExit):
        what = f"called sys.exit({exc.code!r})"
    else:
        text = " ".join(str(exc).split())[:160]
        what = f"raised {type(exc).__name__}" + (f": {text}" if text else "")
    frames = traceback.extract_tb(exc.__traceback__)
    lib = tuple({os.path.dirname(os.__file__), os.path.dirname(np.__file__)})
    own = [f for f in frames if not f.filename.startswith(lib) and os.path.basename(f.filename) not in _RUNNER_FILES
           and "importlib" not in f.filename]
    if own:
        f = own[-1]
        return f"{what} (at {f.filename}:{f.lineno} in {f.name})"
    if frames and os.path.basename(frames[-1].filename) in _RUNNER_FILES:
        return f"{what} (when called as impl(queries, rng))"
    return what
