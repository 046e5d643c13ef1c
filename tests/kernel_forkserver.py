"""Jupyter kernels forked from one process that has already imported the kernel and the third-party libraries.

Starting an IPython kernel costs about 2 s of CPU (IPython, jupyter_client, zmq, prompt_toolkit, jedi), and
the notebooks' own imports of numpy, scipy.stats, matplotlib and sympy another 1-3 s, paid once per notebook
(tests/test_notebooks.py).  A fork server pays them once: this file, run as a script, imports them, then on
each request forks a child that becomes an ordinary ipykernel (``IPKernelApp``, the code ``python -m
ipykernel_launcher`` runs) in a new session, with the kernel command's arguments, environment and working
directory.  Each notebook still runs in a process of its own, a real kernel, with a fresh user namespace; the
child starts from the server's state right after those imports, so no notebook sees another's state.  Only
third-party modules are imported ahead (`PRELOADED`): the project's own modules (``verify``, ``proofs``) are
imported by the notebook in its kernel, as a student's kernel does.  What a fresh process would differ in is
restored in the child: ``random`` reseeds itself after a fork, numpy's global generator is reseeded here from
the OS, and ``sys.path`` is the launcher's.

On the tests' side, `ForkedKernelProvisioner` is jupyter_client's `LocalProvisioner` with the launch replaced by
a request to the server, and `ForkedKernel` stands for the ``Popen`` object (poll, wait, signals), the server
reaping the child and reporting its exit status.  Linux only (fork of a process that has imported numpy and
IPython); elsewhere the tests launch kernels the usual way.

Protocol: one JSON object a line on the server's stdin, one reply a line on its stdout.  End of input: the
server kills the kernels still running and exits.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

#: Imported by the server before it forks: the kernel itself, and the third-party libraries the notebooks use.
PRELOADED = ("ipykernel.kernelapp", "ipykernel.ipkernel", "ipykernel.debugger", "numpy", "scipy.stats", "matplotlib.pyplot", "sympy", "numba",
             "mpmath", "IPython.display")
#: The command the kernel spec runs, which the server replaces by a fork (any other command is refused).
LAUNCHER = [sys.executable, "-m", "ipykernel_launcher"]


def supported() -> bool:
    return sys.platform.startswith("linux") and hasattr(os, "fork")


# ---------------------------------------------------------------------------------------------- the server


def _become_kernel(argv: list[str], env: dict[str, str], cwd: str | None, ready: int) -> None:
    """In the forked child: become ``python -m ipykernel_launcher ARGV`` and exit with its status."""
    code = 1
    try:
        os.setsid()  # as jupyter_client's launcher (start_new_session): interrupts go to the kernel's group only
        os.write(ready, b"1")
        os.close(ready)
        devnull = os.open(os.devnull, os.O_RDWR)
        os.dup2(devnull, 0)  # the launcher gives the kernel a closed stdin
        os.dup2(2, 1)  # the server's stdout is its reply pipe
        os.environ.clear()
        os.environ.update(env)
        os.environ["JPY_PARENT_PID"] = str(os.getppid())  # the kernel exits if this server goes away
        if cwd:
            os.chdir(cwd)
        if "numpy" in sys.modules:
            sys.modules["numpy"].random.seed()  # a fresh process seeds its global generator from the OS
        import ipykernel_launcher
        from ipykernel import kernelapp

        sys.argv = [ipykernel_launcher.__file__, *argv]
        kernelapp.launch_new_instance()
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:  # noqa: BLE001 -- reported on stderr; the exit status says it failed
        import traceback

        traceback.print_exc()
    finally:
        import atexit

        atexit._run_exitfuncs()
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


def serve() -> None:
    # as ipykernel_launcher: the script's directory is not on the kernel's path
    del sys.path[0]
    for name in PRELOADED:
        __import__(name)
    out = sys.stdout
    status: dict[int, tuple[int, float]] = {}  # pid -> (exit status, CPU seconds), once reaped
    running: set[int] = set()

    def reap() -> None:
        for pid in list(running):
            done, st, usage = os.wait4(pid, os.WNOHANG)
            if done:
                running.discard(pid)
                status[pid] = (os.waitstatus_to_exitcode(st), usage.ru_utime + usage.ru_stime)

    def reply(obj: Any) -> None:
        out.write(json.dumps(obj) + "\n")
        out.flush()

    reply({"ready": os.getpid()})
    for line in sys.stdin:
        req = json.loads(line)
        if req["op"] == "fork":
            r, w = os.pipe()
            pid = os.fork()
            if pid == 0:
                os.close(r)
                _become_kernel(req["argv"], req["env"], req["cwd"], w)
            os.close(w)
            os.read(r, 1)  # the child has its own session and process group
            os.close(r)
            running.add(pid)
            reply({"pid": pid})
        elif req["op"] == "poll":
            reap()
            code, cpu = status.get(req["pid"], (None, None))
            reply({"status": code, "cpu": cpu})
    for pid in running:
        try:
            os.killpg(pid, signal.SIGKILL)
        except OSError:
            pass
    reap()
    sys.stderr.flush()
    os._exit(0)  # no interpreter shutdown of everything PRELOADED imported


# ---------------------------------------------------------------------------------------------- the client


class ForkServer:
    """The server process (started here, ended by `close`), and requests to it."""

    #: CPU seconds of the kernels of every server closed so far in this process: they count in this process's
    #: children's times only when `close` waits for the server (tests/conftest.py's ``--cpu-times`` moves them
    #: from the test that closes a server to the notebooks that ran in them).
    closed_kernels_cpu = 0.0

    def __init__(self, env: dict[str, str]) -> None:
        self.kernels_cpu = 0.0  # of the kernels that have exited (as the server reported them)
        self.process = subprocess.Popen([sys.executable, str(Path(__file__).resolve())], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, env=env, text=True)
        ready = self._read()
        assert "ready" in ready, ready

    def _read(self) -> dict:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            raise RuntimeError(f"the kernel fork server exited (status {self.process.wait()})")
        return json.loads(line)

    def request(self, **req: Any) -> dict:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps(req) + "\n")
        self.process.stdin.flush()
        return self._read()

    def fork(self, argv: list[str], env: dict[str, str], cwd: str | None) -> ForkedKernel:
        return ForkedKernel(self, self.request(op="fork", argv=argv, env=env, cwd=cwd)["pid"])

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        self.process.wait(timeout=60)
        ForkServer.closed_kernels_cpu += self.kernels_cpu
        if self.process.stdout is not None:
            self.process.stdout.close()


class ForkedKernel:
    """What jupyter_client uses of a kernel's ``Popen``, for a kernel the server forked (and reaps)."""

    stdin = stdout = stderr = None

    def __init__(self, server: ForkServer, pid: int) -> None:
        self.server, self.pid, self.returncode = server, pid, None
        #: The kernel's CPU seconds (user + system), known once it has exited: its CPU counts in the server's
        #: children, not in this process's, until the server exits.
        self.cpu_seconds: float | None = None

    def poll(self) -> int | None:
        if self.returncode is None:
            reply = self.server.request(op="poll", pid=self.pid)
            self.returncode, self.cpu_seconds = reply["status"], reply["cpu"]
            if self.cpu_seconds is not None:
                self.server.kernels_cpu += self.cpu_seconds
        return self.returncode

    def wait(self, timeout: float | None = None) -> int:
        end = None if timeout is None else time.monotonic() + timeout
        while self.poll() is None:
            if end is not None and time.monotonic() > end:
                raise subprocess.TimeoutExpired(f"kernel {self.pid}", timeout)
            time.sleep(0.02)
        return self.returncode

    def send_signal(self, signum: int) -> None:
        if self.poll() is None:
            os.kill(self.pid, signum)

    def terminate(self) -> None:
        self.send_signal(signal.SIGTERM)

    def kill(self) -> None:
        self.send_signal(signal.SIGKILL)


def provisioner(server: ForkServer, km: Any) -> Any:
    """A provisioner for the kernel manager ``km`` whose kernel the server forks."""
    from jupyter_client.provisioning.local_provisioner import LocalProvisioner

    class ForkedKernelProvisioner(LocalProvisioner):
        async def launch_kernel(self, cmd: list[str], **kwargs: Any) -> Any:
            if cmd[:len(LAUNCHER)] != LAUNCHER:
                raise ValueError(f"the fork server runs {LAUNCHER}, not {cmd}")
            env = kwargs.get("env") or os.environ.copy()
            cwd = kwargs.get("cwd")
            self.process = self.kernel = server.fork(cmd[len(LAUNCHER):], dict(env), None if cwd is None else str(cwd))
            self.pid = self.pgid = self.process.pid  # the child called setsid before the server replied
            self.cwd = cwd or Path.cwd()
            return self.connection_info

    return ForkedKernelProvisioner(kernel_id=km.kernel_id, kernel_spec=km.kernel_spec, parent=km)


if __name__ == "__main__":
    serve()
