"""Progress bars on a terminal for runs that can take more than a few seconds.

`stages` draws a tqdm bar over the steps of a run (the k of a worst-case
search, the certificates of ``certify``) and redraws it every second, so the
elapsed time moves even while one long step runs.  Nothing is drawn unless
stderr is a terminal (or ``enabled`` is given).

`Staged` runs a command in named stages (``report 2/3: claims``): one such bar
per stage, each finished section printed to stdout and flushed at once (so
that ``svt-verify report | tee out.txt`` shows it long before the end), and on
Ctrl-C the partial result the command gives, marked partial, before the
KeyboardInterrupt goes on to the exit status 130 of `verify.cli.main`.
``--progress {auto,always,never}`` (`add_progress_flag`) chooses whether bars
are drawn.
"""

from __future__ import annotations

import argparse
import sys
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager

from tqdm import tqdm

#: Seconds between redraws while a stage runs.
REDRAW_SECONDS = 1.0


@contextmanager
def stages(desc: str, total: int, enabled: bool | None = None, unit: str = "stage",
           bar_format: str | None = None) -> Iterator[tqdm]:
    """A bar with ``total`` stages; call ``bar.update(1)`` after each."""
    show = sys.stderr.isatty() if enabled is None else enabled
    bar = tqdm(total=total, desc=desc, unit=unit, leave=False, disable=not show, file=sys.stderr, bar_format=bar_format)
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


#: The bar of a stage with one step: its name and the elapsed time.
ONE_STEP_FORMAT = "{desc} ... {elapsed}{postfix}"

#: Values of ``--progress``: bars when stderr is a terminal (auto), always, never.
PROGRESS_MODES = ("auto", "always", "never")


def add_progress_flag(p: argparse.ArgumentParser) -> None:
    """``--progress {auto,always,never}`` on a command that runs in stages."""
    p.add_argument("--progress", choices=PROGRESS_MODES, default="auto",
                   help="progress bars on standard error, one per stage: auto (when it is a terminal; default), always, never")


def bars_wanted(args: argparse.Namespace | None) -> bool | None:
    """``enabled`` for `stages` from ``--progress``: None (auto: stderr is a terminal), True or False."""
    mode = getattr(args, "progress", "auto") if args is not None else "auto"
    return None if mode == "auto" else mode == "always"


class Staged:
    """A command run in named stages, used as a context manager::

        with Staged("report", ["mechanisms", "claims"], args) as run:
            with run.stage("mechanisms"):
                rows = ...
            run.section(render(rows))

    ``partial``: set by the command to a function that prints what it has when Ctrl-C arrives (the best
    witness so far, the claims done); without one, a line says which stage was interrupted.  The
    KeyboardInterrupt is raised again, so the exit status stays 130."""

    def __init__(self, command: str, names: Sequence[str], args: argparse.Namespace | None = None,
                 quiet_partial: bool = False) -> None:
        self.command = command
        self.names = list(names)
        self.enabled = bars_wanted(args)
        #: the stage running now (None between stages) and the stages finished, in order
        self.current: str | None = None
        self.finished: list[str] = []
        self.partial: Callable[[], None] | None = None
        #: no generic "interrupted" line on stdout (``--json``: stdout holds one JSON object or nothing)
        self.quiet_partial = quiet_partial

    def __enter__(self) -> Staged:
        return self

    def __exit__(self, kind, exc, tb) -> bool:
        if kind is not None and issubclass(kind, KeyboardInterrupt):
            if self.partial is not None:
                self.partial()
            elif not self.quiet_partial:
                where = (f"during stage {self.current!r}" if self.current is not None else
                         f"after stage {self.finished[-1]!r}" if self.finished else "before its first stage")
                self.section(f"(partial: {self.command} interrupted {where}; "
                             "the sections above are complete, the rest was not computed)")
            sys.stdout.flush()
        return False

    @contextmanager
    def stage(self, name: str, total: int = 1, unit: str = "step") -> Iterator[tqdm]:
        """A bar named ``command i/n: name`` with ``total`` steps, filled when the stage ends."""
        if name not in self.names:
            raise ValueError(f"stage {name!r} is not one of {self.names}")
        self.current = name
        desc = f"{self.command} {self.names.index(name) + 1}/{len(self.names)}: {name}"
        # a stage of one long step shows its name and the elapsed time, not a count stuck at 0/1
        with stages(desc, total, self.enabled, unit, ONE_STEP_FORMAT if total == 1 else None) as bar:
            yield bar
            bar.update(bar.total - bar.n)
            bar.refresh()  # drawn full before it is cleared, however fast the stage was
        self.current = None
        self.finished.append(name)

    def section(self, text: str) -> None:
        """Print a finished section and flush it (bars on the same terminal are cleared first)."""
        tqdm.write(text, file=sys.stdout)
        sys.stdout.flush()
