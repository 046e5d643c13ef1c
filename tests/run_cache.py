"""A value computed once per test run and shared between pytest-xdist's worker processes.

The sharing must not depend on the scheduler (an ``xdist_group`` keeps a group on one worker only under
``--dist loadgroup``, and one scratch run of this project's set-up saw a group split over both workers), so
`computed_once` makes it explicit: the first process to ask
computes the value under an exclusive lock (``fcntl.flock`` on ``PATH.lock``) and writes it to
``PATH`` (a pickle, renamed into place); every other process waits on the lock and loads it.
`run_dir` names a directory private to one run: the run's ``testrunuid``, which the controller
sets in `start_run` (pytest_configure) and hands to its xdist workers; `end_run` (the controller's
pytest_unconfigure, after the workers are done) removes it."""

from __future__ import annotations

import fcntl
import os
import pickle
import shutil
import tempfile
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest


def start_run(config: pytest.Config) -> None:
    """In the controller: give the run a ``testrunuid`` if it has none (xdist hands it to the workers)."""
    if getattr(config, "workerinput", None) is None and getattr(config.option, "testrunuid", None) is None:
        config.option.testrunuid = uuid.uuid4().hex


def end_run(config: pytest.Config) -> None:
    """In the controller, once the run is over: remove its directory."""
    if getattr(config, "workerinput", None) is None:
        shutil.rmtree(run_dir(config), ignore_errors=True)


def run_dir(config: pytest.Config) -> Path:
    """A directory shared by the processes of this test run and no other."""
    workerinput = getattr(config, "workerinput", None)
    run = workerinput["testrunuid"] if workerinput is not None else getattr(config.option, "testrunuid", None)
    return Path(tempfile.gettempdir()) / f"svt-verify-tests-{run or f'pid{os.getpid()}'}"


def computed_once(path: Path, compute: Callable[[], Any]) -> Any:
    """compute(), by the first process of the run to ask; the others load its result from ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(f"{path}.lock", "a+", encoding="utf-8") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            if path.exists():
                with open(path, "rb") as f:
                    return pickle.load(f)
            value = compute()
            tmp = path.with_name(path.name + f".{os.getpid()}.tmp")
            with open(tmp, "wb") as f:
                pickle.dump(value, f)
            os.replace(tmp, path)
            return value
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)
