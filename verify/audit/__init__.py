"""Audit an implementation of a Sparse Vector variant against the variant's exact law (docs/audit.md).

`audit` samples the implementation at the pairs that matter, tests the
frequencies against the exact probabilities, estimates the privacy loss, and on
a deviation names the law the code really samples; `assert_implements` is the
one-line form for test suites; `from_stream` / `from_vector` adapt the common
shapes of implementations.
"""

from verify.audit.adapters import from_stream, from_vector, load
from verify.audit.core import audit
from verify.audit.decoders import from_batch, from_decoder, from_sentinels
from verify.audit.result import AuditResult
from verify.audit.testing import assert_implements

__all__ = ["AuditResult", "assert_implements", "audit", "from_batch", "from_decoder", "from_sentinels", "from_stream", "from_vector",
           "load"]
