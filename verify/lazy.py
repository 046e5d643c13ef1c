"""Public names of a package imported on first use (PEP 562 module ``__getattr__`` and ``__dir__``).

`verify`, `verify.audit` and `proofs` defer their imports this way, so that importing one submodule (a command,
a sandbox child) does not load the libraries behind every public name."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_exports(namespace: dict[str, Any], table: Mapping[str, str | tuple[str, str]]
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for the package whose globals are ``namespace``: a name of ``table``
    (name -> module, or name -> (module, attribute)) is imported on first use and kept in ``namespace``."""

    def __getattr__(name: str) -> Any:
        try:
            where = table[name]
        except KeyError:
            raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}") from None
        module, attr = (where, name) if isinstance(where, str) else where
        value = getattr(import_module(module), attr)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(table))

    return __getattr__, __dir__
