"""A warm ``semtui`` for the tests' CLI runs (tests/conftest.py ``run_cli``): one process per test
worker that has imported what every command imports (Python, numpy, typer, rich and semtui's
command line: ~0.3 s of CPU) and forks a run per request.

A run is still a real process of its own: its own pid, its standard input, output and error the
pipes the test reads, its working folder and environment the test's, its exit status the
kernel's (a signal gives -N, as subprocess says). It runs ``semtui/__main__.py`` as ``python -m
semtui`` does, imports every module its command needs itself, and ends through Python's exit
handlers and semtui's own ``os._exit``. What it shares with the warm process is only what was
imported before the fork, so an environment that changes how the interpreter starts (PYTHON*,
the locale) runs as a fresh ``python -m semtui`` (:func:`can_fork`); so do the tests of the
interpreter's start itself (signals, closed pipes: they start ``python -m semtui`` themselves).  Forked runs share the warm
process's hash seed: a test of output that must not depend on it sets ``PYTHONHASHSEED`` (and so
starts fresh interpreters), as tests/functional/cli/test_assess_cli.py does.

Suite CPU: about 600 runs, each ~0.3 s less for Python, numpy, typer and rich and up to ~0.6 s for SciPy
(on 2 cores: 9:19 -> 7:56 wall for the suite, 2026-11-29, the last part).
"""

from __future__ import annotations

import atexit
import json
import locale
import os
import selectors
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

#: what every command imports, and what most commands' work imports: SciPy's sparse matrices and
#: optimisers (~0.55 s to import) and semtui's engine (~0.2 s), which imports its worker pools only
#: when it runs units (:func:`semtui.runtime.run_units`).  Never a
#: module that registers an exit handler of its own (multiprocessing's, through semtui's
#: executor): semtui's own handler, registered when a run's main() starts, ends the process and
#: must run last, so a handler registered before it would never run in a forked run (checked by
#: serve()); logging's, which SciPy's import registers, is run by the forked run itself
#: (:func:`_child`).  Never a face's or an optional library (textual, numba, dask): the tests of
#: what a command loads start their own interpreters
WARM = ("numpy", "rich.console", "semtui.cli.main", "scipy.sparse", "scipy.optimize", "semtui.release",
        "semtui.attacks.setgen", "semtui.attacks.reassociation", "semtui.attacks.cover", "semtui.assess",
        "semtui.anonymize.setgen", "semtui.anonymize.disassociation", "semtui.checks.privacy", "semtui.experiment",
        "semtui.harden")
#: variables read when the interpreter starts (its flags, hash seed, path, streams' encoding) or
#: when a library the warm process imported loads (numpy's BLAS threads, SciPy's SCIPY_ARRAY_API): a run whose environment
#: sets one differently starts a fresh interpreter
AT_START = ("PYTHON", "LC_", "LANG", "OPENBLAS_", "OMP_", "MKL_", "GOTO", "NPY_", "SCIPY_")
#: logging's exit handler when a module of WARM imported logging (taken out of atexit's: a run calls it)
_LOGGING_SHUTDOWN: list = []
#: the warm process's sys.path beyond the run's folder (as ``python -m`` builds it): set by serve()
_PATH: list[str] = []


def serve(sock: socket.socket) -> None:
    """The warm process: fork one run per request on ``sock`` until the test worker closes it.
    Each request brings its run's standard streams and a socket for the answers; a waiter forked
    per request forks the run, says its pid, waits for it and says its exit status, so runs may
    overlap (the golden runs go two at a time)."""
    import importlib

    _PATH[:] = [p for p in sys.path if p not in ("", str(Path(__file__).parent))]
    registered: list = []
    register = atexit.register
    atexit.register = lambda func, *a, **k: (registered.append(func), register(func, *a, **k))[1]
    try:
        for name in WARM:
            importlib.import_module(name)
    finally:
        atexit.register = register
    logging = sys.modules.get("logging")
    if logging is not None and logging.shutdown in registered:   # SciPy imports it: the run calls it
        atexit.unregister(logging.shutdown)
        registered.remove(logging.shutdown)
        _LOGGING_SHUTDOWN.append(logging.shutdown)
    if registered or "multiprocessing" in sys.modules:
        raise RuntimeError(f"a module the warm semtui imports registers an exit handler, which would never run: "
                           f"{registered or 'multiprocessing'}")
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # the waiters: reaped by the kernel
    sock.send(f"ready {sys.modules['semtui'].__file__}".encode())
    while True:
        try:
            msg, fds, _, _ = socket.recv_fds(sock, 1 << 20, 4)
        except OSError:
            return
        if not msg:
            return
        sys.stdout.flush()
        sys.stderr.flush()
        if os.fork() == 0:  # the waiter
            sock.close()
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            answers = socket.socket(fileno=fds[3])
            pid = os.fork()
            if pid == 0:
                answers.close()
                _child(json.loads(msg), fds[:3])  # never returns
            for fd in fds[:3]:
                os.close(fd)
            answers.send(f"pid {pid}".encode())
            _, status = os.waitpid(pid, 0)
            answers.send(f"status {os.waitstatus_to_exitcode(status)}".encode())
            os._exit(0)
        for fd in fds:
            os.close(fd)


def _child(request: dict, fds: list[int]) -> None:
    """The run: the request's streams, folder, environment and arguments, then ``python -m semtui``."""
    import runpy
    import threading
    import traceback

    code: object = 1
    try:
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        sys.path[:] = [os.getcwd(), *_PATH]  # as ``python -m`` builds it
        sys.argv = ["-m", *request["args"]]
        runpy._run_module_as_main("semtui", alter_argv=True)  # what ``python -m`` calls
        code = 0
    except SystemExit as exc:
        code = exc.code
    except BaseException:  # what the interpreter would print
        traceback.print_exc()
    finally:
        # as the interpreter's end: non-daemon threads joined (and concurrent.futures' pools), then
        # the exit handlers (semtui's own ends the process in os._exit)
        threading._shutdown()
        for shutdown in _LOGGING_SHUTDOWN:   # its handler, registered before the fork, is not in atexit's
            shutdown()
        atexit._run_exitfuncs()
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # a reader gone
                pass
        os._exit(code if isinstance(code, int) else (0 if code is None else 1))


class Warm:
    """The test worker's end: start the warm process once, then run commands through it."""

    def __init__(self) -> None:
        self.sock, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.env = dict(os.environ)
        self.proc = subprocess.Popen(
            [sys.executable, "-c", f"import sys, socket; sys.path.insert(0, {str(Path(__file__).parent)!r}); "
             f"import warm_cli; warm_cli.serve(socket.socket(fileno={theirs.fileno()}))"],
            pass_fds=[theirs.fileno()], stdin=subprocess.DEVNULL, env=self.env)
        theirs.close()
        ready = self.sock.recv(4096).decode().split(" ", 1)
        if ready[0] != "ready":
            raise RuntimeError("the warm semtui did not start")
        self.package = Path(ready[1]).parent  # the semtui it imported
        atexit.register(self.close)

    def close(self) -> None:
        self.sock.close()
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()

    def can_fork(self, env: dict) -> bool:
        """Whether a run in ``env`` starts as a run forked from the warm process would."""
        keys = {k for k in (*env, *self.env) if k.startswith(AT_START)}
        differ = {k for k in keys if env.get(k) != self.env.get(k)}
        if differ == {"PYTHONPATH"}:  # the path to the semtui already imported (tests/golden's runs)
            path = env.get("PYTHONPATH", "").split(os.pathsep)
            differ = set() if len(path) == 1 and self.package.parent == Path(path[0]).resolve() else differ
        return self.proc.poll() is None and not differ

    def run(self, args: list[str], *, cwd, env: dict, input: str | None, timeout: float) -> subprocess.CompletedProcess:
        """``subprocess.run([python, -m, semtui, *args], capture_output=True, text=True, ...)``, forked."""
        in_r, in_w = os.pipe() if input is not None else (os.dup(0), None)
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        answers, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        request = {"args": args, "cwd": os.fspath(cwd) if cwd is not None else os.getcwd(), "env": env}
        try:
            socket.send_fds(self.sock, [json.dumps(request).encode()], [in_r, out_w, err_w, theirs.fileno()])
        finally:
            for fd in (in_r, out_w, err_w):
                os.close(fd)
            theirs.close()
        with answers:
            return self._collect(args, answers, input, in_w, out_r, err_r, timeout)

    def _collect(self, args, answers, input, in_w, out_r, err_r, timeout) -> subprocess.CompletedProcess:
        """Feed the run its input, read its output until it closes both streams, then its status."""
        encoding = locale.getpreferredencoding(False)
        pid = int(answers.recv(64).split()[1])
        got = {out_r: bytearray(), err_r: bytearray()}
        pending = memoryview(input.encode(encoding)) if input is not None else None
        sel = selectors.DefaultSelector()
        for fd in got:
            sel.register(fd, selectors.EVENT_READ)
        if in_w is not None:
            if pending:
                sel.register(in_w, selectors.EVENT_WRITE)
            else:
                os.close(in_w)
        deadline = time.monotonic() + timeout
        try:
            while sel.get_map():
                left = deadline - time.monotonic()
                if left <= 0:
                    os.kill(pid, signal.SIGKILL)
                    answers.recv(64)
                    raise subprocess.TimeoutExpired(["semtui", *args], timeout)
                for key, _ in sel.select(left):
                    fd = key.fd
                    if fd == in_w:
                        try:
                            pending = pending[os.write(fd, pending[:1 << 16]):]
                        except BrokenPipeError:
                            pending = pending[:0]
                        if not pending:
                            sel.unregister(fd)
                            os.close(fd)
                        continue
                    chunk = os.read(fd, 1 << 16)
                    if chunk:
                        got[fd] += chunk
                    else:
                        sel.unregister(fd)
        finally:
            sel.close()
            for fd in (out_r, err_r, *([in_w] if in_w is not None and pending else [])):
                os.close(fd)
        rc = int(answers.recv(64).split()[1])
        out, err = (bytes(got[fd]).decode(encoding).replace("\r\n", "\n").replace("\r", "\n") for fd in (out_r, err_r))
        return subprocess.CompletedProcess([sys.executable, "-m", "semtui", *args], rc, out, err)
