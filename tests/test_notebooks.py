"""The teaching notebooks run top to bottom, headless, and are committed clean.

Every ``notebooks/*.ipynb`` is collected, so a notebook added later is covered
without editing this file.  Execution uses nbclient with a kernel spec written
for the interpreter running the tests (``sys.executable``) into a temporary
directory: the tests do not depend on a ``python3`` kernel being registered
on the machine, nor on ``python`` on PATH being the environment under test
(a fresh venv used without activation).  ``MPLBACKEND=Agg`` keeps matplotlib
headless.  On Linux each kernel is forked from a server that has imported ipykernel and the third-party
libraries once (tests/kernel_forkserver.py: about 3 s of CPU less per notebook); each notebook still runs in a
kernel process of its own with a fresh namespace (`test_each_notebook_gets_a_fresh_kernel`).

A notebook that checks the seed's claims (``claim.check()``) gets the run's verdicts, which the suite computes
once per run (`claim_verdicts`, tests/conftest.py), before its first cell: its kernel runs `PRELOAD` at start-up
(``IPKernelApp.exec_lines``, in a namespace of its own, so the notebook sees no new name), which takes them into
`proofs`' verdict cache, so ``claim.check()`` returns the very verdicts the claims' tests check instead of
computing them again (about 23 s of CPU over notebooks 02-05 and 07, 2026-12-07).  Everything else the notebook
computes, it computes.  Those notebooks run after the others (`RUN_ORDER`), so that in a run on two workers the
verdicts are ready, or nearly, when the first of them asks.

Committed notebooks are either stripped (no outputs, no execution counts) or
carry the outputs of one in-order run (execution counts 1, 2, 3, ... down the
code cells, no error outputs); the second test checks which.
"""

from __future__ import annotations

import os
import pickle
import re
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

import kernel_forkserver
import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOK_DIR = ROOT / "notebooks"
NOTEBOOKS = sorted(NOTEBOOK_DIR.glob("*.ipynb"))
KERNEL_NAME = "python3"
#: The same interpreter, with the run's claim verdicts taken into `proofs`' cache at start-up (module docstring).
CLAIMS_KERNEL_NAME = "python3-claims"
#: Run by that kernel at start-up, with the pickle's path in place of ``{path!r}``.
PRELOAD = ("import pickle; from proofs.claim import remember_verdicts\n"
           "with open({path!r}, 'rb') as f:\n    remember_verdicts(pickle.load(f))\n")
#: Seconds per cell; every notebook is meant to run in well under 40 s in total on 2 cores.
CELL_TIMEOUT = 120
#: The kernels' environment on top of the tests': headless matplotlib; and some kernel start-ups print a
#: debugger warning about frozen modules, noise here.
KERNEL_ENV = {"MPLBACKEND": "Agg", "PYDEVD_DISABLE_FILE_VALIDATION": "1"}


def _ids(paths: list[Path]) -> list[str]:
    return [p.name for p in paths]


@pytest.fixture(scope="module")
def kernel_spec_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A kernel-spec directory holding ``python3`` -> this interpreter's ipykernel."""
    from ipykernel.kernelspec import write_kernel_spec

    kernels = tmp_path_factory.mktemp("kernels")
    write_kernel_spec(path=kernels / KERNEL_NAME)
    return kernels


@pytest.fixture(scope="module")
def fork_server() -> Iterator[kernel_forkserver.ForkServer | None]:
    """The kernels' fork server (tests/kernel_forkserver.py), or None where kernels are launched as processes."""
    if not kernel_forkserver.supported():
        yield None
        return
    server = kernel_forkserver.ForkServer({**os.environ, **KERNEL_ENV})
    yield server
    server.close()


def checks_claims(nb: nbformat.NotebookNode) -> bool:
    """True if a code cell calls ``.check()`` (a claim's verdict with its default grid)."""
    return any(re.search(r"\.check\(\)", c.source) for c in nb.cells if c.cell_type == "code")


def claims_kernel(kernels: Path, verdicts: dict) -> str:
    """Write (once per directory) the kernel spec `CLAIMS_KERNEL_NAME`, whose start-up takes ``verdicts``."""
    from ipykernel.kernelspec import write_kernel_spec

    if not (kernels / CLAIMS_KERNEL_NAME).exists():
        path = kernels / "claim-verdicts.pickle"
        with open(path, "wb") as f:
            pickle.dump(verdicts, f)
        preload = kernels / "preload_claims.py"
        preload.write_text(PRELOAD.format(path=str(path)), encoding="utf-8")
        # run_path: the script's names stay in its own namespace; "... and None" displays nothing
        line = f"__import__('runpy').run_path({str(preload)!r}) and None"
        write_kernel_spec(path=kernels / CLAIMS_KERNEL_NAME, extra_arguments=[f"--IPKernelApp.exec_lines={[line]!r}"])
    return CLAIMS_KERNEL_NAME


def test_notebooks_are_found() -> None:
    assert NOTEBOOKS, f"no notebooks in {NOTEBOOK_DIR}"


def _claims_last(paths: list[Path]) -> list[Path]:
    """The notebooks that check claims after the others: in a run on two workers, the other worker computes the
    claims' verdicts meanwhile (the claims' tests start first), so that the wait for them is short or none."""
    return sorted(paths, key=lambda p: (checks_claims(nbformat.read(p, as_version=4)), p.name))


RUN_ORDER = _claims_last(NOTEBOOKS)


@pytest.mark.slow
@pytest.mark.parametrize("path", RUN_ORDER, ids=_ids(RUN_ORDER))
def test_notebook_runs_top_to_bottom(path: Path, kernel_spec_dir: Path, fork_server: kernel_forkserver.ForkServer | None,
                                     monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    nb = nbformat.read(path, as_version=4)
    name = claims_kernel(kernel_spec_dir, request.getfixturevalue("claim_verdicts")) if checks_claims(nb) else KERNEL_NAME
    cpu = run_notebook(nb, path.name, name, kernel_spec_dir, fork_server, monkeypatch)
    if cpu is not None:  # a forked kernel's CPU is not this process's children's until the server exits
        request.node.user_properties.append(("kernel_cpu_seconds", cpu))


def run_notebook(nb: nbformat.NotebookNode, label: str, kernel_name: str, kernel_spec_dir: Path,
                 fork_server: kernel_forkserver.ForkServer | None, monkeypatch: pytest.MonkeyPatch) -> float | None:
    """Execute ``nb`` in place, top to bottom, in a new kernel (forked by ``fork_server`` unless it is None), in
    the notebooks' directory; fail on the first failing cell, on an error output, or if the kernel lives on.
    Returns the forked kernel's CPU seconds (None for a kernel launched as a child of this process)."""
    from jupyter_client.kernelspec import KernelSpecManager
    from jupyter_client.manager import KernelManager
    from nbclient import NotebookClient

    for key, value in KERNEL_ENV.items():
        monkeypatch.setenv(key, value)
    specs = KernelSpecManager(kernel_dirs=[str(kernel_spec_dir)], ensure_native_kernel=False)
    km = KernelManager(kernel_name=kernel_name, kernel_spec_manager=specs)
    assert km.kernel_spec.argv[0] == sys.executable
    if fork_server is not None:
        km.kernel_id = str(uuid.uuid4())
        km.provisioner = kernel_forkserver.provisioner(fork_server, km)
    client = NotebookClient(
        nb,
        km=km,
        kernel_name=kernel_name,
        timeout=CELL_TIMEOUT,
        startup_timeout=120,
        resources={"metadata": {"path": str(NOTEBOOK_DIR)}},
    )
    # raises CellExecutionError, naming the cell, on the first failing cell; cleanup_kc: shut the kernel down
    # afterwards (a NotebookClient given a kernel manager does not by default: the kernels then lived on,
    # one per notebook, until the pytest process ended)
    client.execute(cleanup_kc=True)
    assert not km.is_alive(), f"{label}: the kernel outlived its notebook"
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors, f"{label}: error outputs {[e.ename for e in errors]}"
    return None if fork_server is None else km.provisioner.kernel.cpu_seconds


@pytest.mark.slow
def test_each_notebook_gets_a_fresh_kernel(kernel_spec_dir: Path, fork_server: kernel_forkserver.ForkServer | None,
                                           monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest) -> None:
    """Two notebooks run one after the other as the notebooks' test runs them: the second sees neither the first's
    names nor its changes to a module, in a process of its own, whose numpy generator is seeded afresh."""
    first = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import json, os\nimport numpy as np\njson.left_behind = 1\nnamed_here = 1\nprint(os.getpid(), np.random.random())")])
    second = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(
        "import json, os\nimport numpy as np\nassert not hasattr(json, 'left_behind')\nassert 'named_here' not in dir()\n"
        "print(os.getpid(), np.random.random())")])
    outputs = []
    for i, nb in enumerate((first, second)):
        cpu = run_notebook(nb, f"notebook {i + 1}", KERNEL_NAME, kernel_spec_dir, fork_server, monkeypatch)
        if cpu is not None:
            request.node.user_properties.append(("kernel_cpu_seconds", cpu))
        outputs.append(nb.cells[0].outputs[0]["text"].split())
    (pid1, draw1), (pid2, draw2) = outputs
    assert pid1 != pid2 and int(pid1) != os.getpid() and int(pid2) != os.getpid()
    assert draw1 != draw2  # equal by chance with probability about 2^-53


def committed_state(nb: nbformat.NotebookNode) -> str:
    """``"stripped"``, ``"in-order run"``, or a message saying what is wrong."""
    code = [c for c in nb.cells if c.cell_type == "code"]
    counts = [c.get("execution_count") for c in code]
    has_outputs = [bool(c.get("outputs")) for c in code]
    if all(n is None for n in counts) and not any(has_outputs):
        return "stripped"
    if counts != list(range(1, len(code) + 1)):
        return f"execution counts {counts} are not 1..{len(code)} in order (re-run top to bottom, or strip outputs)"
    for n, cell in enumerate(code, start=1):
        for out in cell.get("outputs", []):
            if out.get("output_type") == "error":
                return f"code cell {n} has an error output ({out.get('ename')})"
            if out.get("output_type") == "execute_result" and out.get("execution_count") != n:
                return f"code cell {n} has a result from execution {out.get('execution_count')}"
    return "in-order run"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=_ids(NOTEBOOKS))
def test_committed_notebook_is_stripped_or_run_in_order(path: Path) -> None:
    nb = nbformat.read(path, as_version=4)
    nbformat.validate(nb)
    state = committed_state(nb)
    assert state in ("stripped", "in-order run"), f"{path.name}: {state}"


def _cell(count: int | None, outputs: list | None = None) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell("1")
    cell.execution_count = count
    cell.outputs = outputs or []
    return cell


@pytest.mark.parametrize(
    "counts, outputs, expected",
    [
        ([None, None], [[], []], "stripped"),
        ([1, 2], [[], []], "in-order run"),
        ([1, 2], [[], [nbformat.v4.new_output("execute_result", {"text/plain": "1"}, execution_count=2)]], "in-order run"),
        ([2, 1], [[], []], "not 1..2 in order"),
        ([1, None], [[], []], "not 1..2 in order"),
        ([None, None], [[nbformat.v4.new_output("stream", text="x")], []], "not 1..2 in order"),
        ([1, 2], [[nbformat.v4.new_output("error", ename="E", evalue="", traceback=[])], []], "error output"),
        ([1, 2], [[], [nbformat.v4.new_output("execute_result", {"text/plain": "1"}, execution_count=5)]], "from execution 5"),
    ],
)
def test_committed_state_classifies(counts: list, outputs: list, expected: str) -> None:
    """The checker itself: stripped, in order, and the ways a committed notebook can be stale."""
    nb = nbformat.v4.new_notebook(cells=[_cell(n, o) for n, o in zip(counts, outputs)])
    assert expected in committed_state(nb)


def test_every_notebook_is_listed_in_the_docs() -> None:
    """the README (merged from docs/notebooks.md) lists every notebook with one line."""
    docs = "".join(p.read_text(encoding="utf-8") for p in (ROOT / "docs" / "notebooks.md", ROOT / "README.md") if p.exists())
    missing = [p.name for p in NOTEBOOKS if p.name not in docs]
    assert not missing, f"notebooks not listed in docs/notebooks.md or README.md: {missing}"
