"""Audit an implementation of a Sparse Vector variant against the variant's exact law (docs/audit.md).

`audit` samples the implementation at the pairs that matter, tests the
frequencies against the exact probabilities, estimates the privacy loss, and on
a deviation names the law the code really samples; `assert_implements` is the
one-line form for test suites; `from_stream` / `from_vector` adapt the common
shapes of implementations.

Every name is imported on first use (PEP 562 module ``__getattr__``, as in ``verify``): importing a
submodule (the command line's ``--implementation`` check imports `verify.audit.adapters`, a child
process runs `verify.audit.sampling`) does not load the statistics, the exact laws and the fit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from verify.lazy import lazy_exports

if TYPE_CHECKING:  # the names of _LAZY, for type checkers and documentation tools
    from verify.audit.adapters import from_stream, from_vector, load
    from verify.audit.core import audit
    from verify.audit.decoders import from_batch, from_decoder, from_sentinels
    from verify.audit.result import AuditResult
    from verify.audit.testing import assert_implements

#: Public name -> the module defining it.
_LAZY = {
    "AuditResult": "verify.audit.result",
    "assert_implements": "verify.audit.testing",
    "audit": "verify.audit.core",
    "from_batch": "verify.audit.decoders",
    "from_decoder": "verify.audit.decoders",
    "from_sentinels": "verify.audit.decoders",
    "from_stream": "verify.audit.adapters",
    "from_vector": "verify.audit.adapters",
    "load": "verify.audit.adapters",
}


__getattr__, __dir__ = lazy_exports(globals(), _LAZY)


__all__ = ["AuditResult", "assert_implements", "audit", "from_batch", "from_decoder", "from_sentinels", "from_stream", "from_vector",
           "load"]
