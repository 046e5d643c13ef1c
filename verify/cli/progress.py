"""Progress bars on a terminal for runs that can take more than a few seconds.

`stages` draws a tqdm bar over the stages of a run (the k of a worst-case
search, the certificates of ``certify``) and redraws it every second, so the
elapsed time moves even while one long stage runs.  Nothing is drawn unless
stderr is a terminal (or ``enabled`` is given).
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from tqdm import tqdm

#: Seconds between redraws while a stage runs.
REDRAW_SECONDS = 1.0


@contextmanager
def stages(desc: str, total: int, enabled: bool | None = None, unit: str = "stage") -> Iterator[tqdm]:
    """A bar with ``total`` stages; call ``bar.update(1)`` after each."""
    show = sys.stderr.isatty() if enabled is None else enabled
    bar = tqdm(total=total, desc=desc, unit=unit, leave=False, disable=not show, file=sys.stderr)
    stop = threading.Event()

    def redraw() -> None:
        while not stop.wait(REDRAW_SECONDS):
            bar.refresh()

    ticker = threading.Thread(target=redraw, daemon=True) if show else None
    if ticker is not None:
        ticker.start()
    try:
        yield bar
    finally:
        stop.set()
        if ticker is not None:
            ticker.join()
        bar.close()
