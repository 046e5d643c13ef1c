"""What an engine declares, and how a front door picks one.

Each computing engine (a mode of the engine room, `verify/engine/`) declares which mechanisms it
serves, after dp_accounting's accountants, which declare ``supports(event)`` and refuse what they
cannot account for (dp_accounting/privacy_accountant.py: ``supports``, ``UnsupportedEventError``):

* ``name``: how the engine is named by a caller (``engine=``) and printed (``method`` of a result);
* ``refusal(mech)``: one line saying why the engine does not serve ``mech``, or None if it does;
* ``supports(mech)``: ``refusal(mech) is None``;
* ``suits(outcome)``: a preference the door's automatic choice reads (the closed form passes long
  outcome strings to quadrature, where its O(k³) expansion is slow); an engine named by the
  caller is used whatever it says.

A door (`verify.doors.exact`, `verify.doors.fast`) holds an ordered, open list of engines: `pick`
returns the first that supports the mechanism (and suits the outcome), or raises one `InputError`
naming the mechanism and every engine's reason.  A new engine is one `register` line.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol, runtime_checkable

from verify.errors import InputError

AUTO = "auto"


@runtime_checkable
class Engine(Protocol):
    """An engine of a front door (module docstring)."""

    name: str

    def refusal(self, mech: Any) -> str | None: ...

    def supports(self, mech: Any) -> bool: ...

    def suits(self, outcome: object) -> bool: ...


class Declared:
    """The shared part of an engine: ``supports`` from ``refusal``, every outcome suits."""

    name = "engine"

    def refusal(self, mech: Any) -> str | None:  # pragma: no cover - every engine overrides it
        raise NotImplementedError

    def supports(self, mech: Any) -> bool:
        return self.refusal(mech) is None

    def suits(self, outcome: object) -> bool:
        return True

    def __repr__(self) -> str:
        return f"<engine {self.name}>"


def mechanism_name(mech: Any) -> str:
    """The name a refusal shows: the mechanism's ``name``, else its type and a short text."""
    name = getattr(mech, "name", None)
    return name if isinstance(name, str) else f"{type(mech).__name__} {str(mech)[:40]!r}"


def register(engines: list[Any], engine: Any, before: str | None = None) -> None:
    """Add ``engine`` to a door's list (at the end, or before the engine named ``before``)."""
    if not isinstance(engine, Engine):
        raise InputError(f"engine: {engine!r} does not declare name, refusal, supports and suits")
    if any(e.name == engine.name for e in engines):
        raise InputError(f"engine: {engine.name!r} is registered already")
    names = [e.name for e in engines]
    if before is not None and before not in names:
        raise InputError(f"before: {before!r} is not one of {', '.join(names)}")
    engines.insert(names.index(before) if before is not None else len(engines), engine)


def pick(engines: Sequence[Any], mech: Any, door: str, engine: str = AUTO, outcome: object = None) -> Any:
    """The engine named ``engine`` (refusing in one line if it does not support ``mech``), or for
    ``auto`` the first that supports ``mech`` and suits ``outcome``, else the first that supports it;
    none: one `InputError` naming the mechanism and each engine's reason."""
    if engine != AUTO:
        named = [e for e in engines if e.name == engine]
        if not named:
            raise InputError(f"engine: {engine!r} is not one of {AUTO}, {', '.join(e.name for e in engines)} ({door})")
        why = named[0].refusal(mech)
        if why is not None:
            raise InputError(f"{door}: engine {engine!r} does not take {mechanism_name(mech)}: {why}")
        return named[0]
    able = [e for e in engines if e.supports(mech)]
    for e in able:
        if e.suits(outcome):
            return e
    if able:
        return able[0]
    reasons = "; ".join(f"{e.name}: {e.refusal(mech)}" for e in engines)
    raise InputError(f"{door}: no engine takes {mechanism_name(mech)} ({reasons})")
