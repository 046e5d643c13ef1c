"""`verify.parallel.executor_for` with a Dask scheduler address: what a refused address leaves behind."""

from __future__ import annotations

import gc
import struct

import pytest
from loopback import listener

from verify.errors import InputError
from verify.parallel import executor_for


@pytest.mark.slow
@pytest.mark.parametrize("scheme,greeting", [
    ("tls", None),  # Dask's Client raises in its constructor: no TLS context
    ("tcp", struct.pack("<QQQ", 24, 1, 8) + b"garbage!"),  # a header that parses, then not Dask
], ids=["tls-without-context", "tcp-not-dask"])
def test_a_refused_scheduler_leaves_no_client_for_the_garbage_collector(scheme: str, greeting: bytes | None) -> None:
    """A Client whose constructor raised is closed by its ``__del__`` whenever the collector frees it, and that
    takes Dask's class-wide ``LoopRunner`` lock: freed inside the next Client's start (which holds that lock),
    it deadlocked a test run.  So none may be left when the refusal reaches the caller."""
    from dask.distributed import Client

    sock = listener(greeting)
    gc.collect()
    gc.disable()  # no collection but the one the refusal makes (the test is about that one)
    try:
        with pytest.raises(InputError, match="--scheduler"):
            with executor_for(scheduler=f"{scheme}://127.0.0.1:{sock.getsockname()[1]}"):
                pass
        left = [o for o in gc.get_objects() if type(o) is Client]  # (isinstance fails on a dead weakref proxy)
    finally:
        gc.enable()
        sock.close()
    assert not left, f"{len(left)} half-built Client(s) left for a later collection"
