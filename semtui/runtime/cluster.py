"""The Dask cluster of ``--scheduler``: the spec checked, the cluster opened and closed, one
session a command.

``--scheduler local:N`` starts a local Dask cluster (a :class:`distributed.SpecCluster`: N
``Nanny`` worker processes of one thread each and the scheduler in a process of its own, all
forked from the executor's fork server) on this machine for the length of the command; ``--scheduler tcp://HOST:PORT``
(or ``tls://``) connects to a running scheduler whose workers have the same semtui installed
(docs/distributed.md says how to start one over SSH, SLURM/PBS or Kubernetes).  Dask is an
optional extra, ``semtui[dask]``; without it the option is refused in one line, as is an
address no scheduler can have or one where none answers (:func:`check_scheduler`, :func:`_probe`).

:func:`session` holds one client over a whole command (an assessment's many attacks share one
local cluster), opened in the background while the driver reads and plans when asked
(``warm``), and closes it however the command ends, without Dask's tracebacks when it was
stopped (:func:`silence_dask`).  What runs on it is :mod:`semtui.runtime.scheduler`'s.
"""

from __future__ import annotations

import contextlib
import logging
import re
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from semtui.errors import InputError
from semtui.fileio import ScratchFolder

#: seconds to wait for the workers of a remote scheduler, or for a local cluster to start
CONNECT_TIMEOUT = 30

_LOCAL = re.compile(r"^local:(\d+)$")
_REMOTE = re.compile(r"^(tcp|tls)://([^\s/:]+):(\d+)$")
#: the largest TCP port
MAX_PORT = 65535

#: called with (N asked, workers started) when a local cluster starts fewer workers than its
#: ``local:N`` asked (:func:`local_workers`); a face sets it to say so (the CLI's note)
capped_hook: Callable[[int, int], None] | None = None

_sessions: dict[str, Any] = {}
_lock = threading.Lock()


def check_scheduler(spec: str | None) -> str | None:
    """``spec`` if it names a scheduler semtui can use (``local:N``, ``tcp://HOST:PORT``,
    ``tls://HOST:PORT`` with a port of 1-65535), else an :class:`InputError` for
    ``--scheduler``: an address no scheduler can have is refused here, at once, not tried for
    CONNECT_TIMEOUT seconds.  ``local:N`` is kept as given (:func:`local_workers` caps it)."""
    if spec is None:
        return None
    spec = str(spec).strip()
    m = _LOCAL.match(spec)
    if m and int(m.group(1)) < 1:
        raise InputError(f"local:N needs at least 1 worker, got {spec!r}", option="scheduler")
    remote = None if m else _REMOTE.match(spec)
    if not m and remote is None:
        raise InputError(f"expected local:N or tcp://HOST:PORT, got {spec!r}", option="scheduler")
    if remote is not None and not 1 <= int(remote.group(3)) <= MAX_PORT:
        raise InputError(f"{spec!r}: a port is a whole number from 1 to {MAX_PORT}, got {int(remote.group(3))}",
                         option="scheduler")
    require_dask()
    return spec


def local_workers(spec: str) -> tuple[int, int] | None:
    """``(asked, started)`` for ``local:N``: the N asked and the worker processes the cluster
    starts, at most one per core semtui may run on (as ``--jobs``: more would only share the
    cores, each with its own interpreter and memory share -- local:1000 forked hundreds of
    processes and brought the machine's load to 330); None for a remote scheduler."""
    from semtui.runtime.executor import capped_jobs

    m = _LOCAL.match(str(spec).strip())
    if m is None:
        return None
    asked = int(m.group(1))
    return asked, capped_jobs(asked)


def require_dask() -> None:
    """An :class:`InputError` naming the extra when Dask is not installed."""
    try:
        import dask  # noqa: F401
        import distributed  # noqa: F401
    except ImportError:
        raise InputError("--scheduler needs Dask: pip install 'semtui[dask]'", option="scheduler") from None


def _open(spec: str, preload: Sequence[str] = ()):
    """A connected :class:`distributed.Client` for ``spec`` and what to close after it
    (``local:N``: its processes fork from a server that has imported ``preload`` too)."""
    require_dask()
    m = _LOCAL.match(spec)
    if m:
        import dask
        from distributed import Nanny, SpecCluster

        from semtui.runtime.executor import fork_server

        # the nannies' workers fork from the executor's server, which has imported Dask and
        # semtui once (a spawned process would import both again, each: seconds of CPU on a
        # machine whose cores the workers are about to need) and holds none of our standard streams
        fork_server(_server_preload(preload))
        asked, n = local_workers(spec)
        if n < asked and capped_hook is not None:
            capped_hook(asked, n)
        # the workers' scratch (their lock and spill files) in a folder of the session's, removed
        # when it ends, interrupted too (Dask's default, $TMPDIR/dask-scratch-space, outlives it)
        scratch = ScratchFolder("semtui-dask-")
        workers = {i: {"cls": Nanny, "options": {
            "host": "127.0.0.1", "nthreads": 1, "dashboard": False, "silence_logs": logging.ERROR,
            "memory_limit": _memory_limit(n), "local_directory": str(scratch.path)}} for i in range(n)}
        # the workers' statistical profiler (a thread sampling every stack every 10 ms, for a
        # dashboard a local cluster does not start) costs the kernels a few per cent: off
        started: list = [scratch]  # closed, in reverse, if the cluster or its client fails to start
        try:
            with dask.config.set({"distributed.worker.multiprocessing-method": "forkserver",
                                  "distributed.worker.profile.enabled": False, **_NO_MESSAGE_LOG}):
                started.append(SpecCluster(
                    workers=workers, scheduler={"cls": _scheduler_process(), "options": {"scratch": str(scratch.path)}},
                    silence_logs=logging.ERROR, name=f"semtui {spec}"))
            started.append(_client(started[-1]))
        except BaseException:
            _close(started[::-1])
            raise
        return started[-1], started[::-1]
    _probe(spec)
    try:
        client = _client(spec)
    except OSError as exc:
        raise InputError(f"cannot reach the scheduler {spec}: {exc}", option="scheduler") from None
    try:
        client.wait_for_workers(1, timeout=CONNECT_TIMEOUT)
    except TimeoutError:
        client.close()
        raise InputError(f"the scheduler {spec} has no worker (waited {CONNECT_TIMEOUT} s)",
                         option="scheduler") from None
    return client, [client]


def _probe(spec: str) -> None:
    """An :class:`InputError` at once when no scheduler can answer at ``spec``: its host is
    unknown, or nothing listens on its port (the connection is refused) -- Dask's client would
    try again and again for CONNECT_TIMEOUT seconds --, or it does not answer within them."""
    import socket

    _, host, port = _REMOTE.match(spec).groups()
    try:
        with socket.create_connection((host, int(port)), timeout=CONNECT_TIMEOUT):
            return
    except socket.gaierror as exc:
        raise InputError(f"cannot reach the scheduler {spec}: unknown host {host!r} ({exc.strerror})",
                         option="scheduler") from None
    except ConnectionRefusedError:
        raise InputError(f"cannot reach the scheduler {spec}: nothing listens there (connection refused)",
                         option="scheduler") from None
    except TimeoutError:
        raise InputError(f"cannot reach the scheduler {spec}: no answer (waited {CONNECT_TIMEOUT} s)",
                         option="scheduler") from None
    except OSError as exc:  # no route to the host, the network down
        raise InputError(f"cannot reach the scheduler {spec}: {exc.strerror or exc}", option="scheduler") from None


#: Dask keeps the last 1,000 messages every batched connection sent, for debugging
#: (``distributed.admin.low-level-log-length``): a client's are its submissions, each a batch of
#: units with its data, held long after the batch ran -- the driver of ``attack disassoc`` on MEPS
#: x 16 grew by 300 MB that way, linearly in the release.  Nothing is kept (the driver, the
#: scheduler of ``local:N`` and its workers).
_NO_MESSAGE_LOG = {"distributed.admin.low-level-log-length": 0}


def _client(address):
    """A :class:`distributed.Client` of ``address`` (or a cluster) that keeps no message log."""
    import dask
    from distributed import Client

    with dask.config.set(_NO_MESSAGE_LOG):
        return Client(address, timeout=CONNECT_TIMEOUT)


def _memory_limit(n: int) -> int:
    """Each of ``n`` local workers' share of this machine's memory (what LocalCluster gives)."""
    from distributed.worker_memory import parse_memory_limit

    return parse_memory_limit("auto", 1, n, logger=logging.getLogger("distributed"))


def _serve(send: Callable[[Any], None], scratch: str | None = None) -> None:
    """In a process of its own (:func:`semtui.runtime.executor.start_companion`): the Dask
    scheduler of ``local:N``, until the cluster closes it or the driver goes; its scratch (lock
    files) in the session's folder ``scratch``."""
    import asyncio

    import dask
    from distributed import Scheduler

    logging.getLogger("distributed").setLevel(logging.ERROR)
    # a queued task goes to a worker only when it has a free thread (Dask's default lets each hold
    # one more): the streams' parts then start in the order they came
    dask.config.set({"distributed.scheduler.worker-saturation": 1.0, **_NO_MESSAGE_LOG,
                     **({"temporary-directory": scratch} if scratch else {})})

    async def serve() -> None:
        async with Scheduler(host="127.0.0.1", port=0, dashboard=False, dashboard_address=None) as scheduler:
            send(scheduler.address)
            await scheduler.finished()

    asyncio.run(serve())


_SchedulerProcess: Any = None


def _scheduler_process():
    """The scheduler of a local cluster as a process of its own (a Dask ``ProcessInterface``),
    not a task of the driver's event loop: what it holds of every batch in flight and its
    bookkeeping then do not count against the driver's memory (``attack disassoc`` on a large
    release: docs/distributed.md), and its loop does not share the driver's interpreter."""
    global _SchedulerProcess
    if _SchedulerProcess is None:
        import asyncio

        from distributed.deploy.spec import ProcessInterface

        from semtui.runtime.executor import start_companion

        class SchedulerProcess(ProcessInterface):
            companion = None

            def __init__(self, scratch: str | None = None, **kwargs):
                super().__init__(**kwargs)
                self.scratch = scratch

            async def start(self) -> None:
                loop = asyncio.get_running_loop()
                self.companion = await loop.run_in_executor(None, start_companion, _serve, self.scratch)
                try:
                    self.address = await loop.run_in_executor(None, self.companion.receive, CONNECT_TIMEOUT)
                except (TimeoutError, EOFError) as exc:
                    await loop.run_in_executor(None, self.companion.stop)
                    raise RuntimeError(f"the local scheduler did not start: {exc}") from None
                await super().start()

            async def close(self) -> None:
                if self.companion is not None:
                    await asyncio.get_running_loop().run_in_executor(None, self.companion.stop)
                    self.companion = None
                await super().close()

        _SchedulerProcess = SchedulerProcess
    return _SchedulerProcess


def _asked(modules: Sequence[str]) -> list[str]:
    """What ``modules`` ask their workers to import (``FORK_PRELOAD``), importing them here."""
    import importlib

    return [more for name in modules for more in getattr(importlib.import_module(name), "FORK_PRELOAD", ())]


def _preload(modules: Sequence[str]) -> None:
    """On a worker: import ``modules`` and what each asks its workers to import."""
    import importlib

    for more in _asked(modules):
        importlib.import_module(more)


#: what the processes of a cluster run besides the kernels (the batches of
#: :func:`semtui.runtime.scheduler.run_units_distributed`), imported by its fork server
_WORKER_MODULES = ("semtui.runtime.scheduler",)


def _server_preload(preload: Sequence[str]) -> tuple[str, ...]:
    """What the fork server of ``local:N`` imports before it forks the cluster's processes."""
    return ("distributed", __name__, *_WORKER_MODULES, *preload, *_asked(preload))


class _Starting:
    """A session being opened in a background thread (:func:`session` with ``warm``): the
    driver reads, plans and scores on one core while the workers start on the other.

    The fork server is started first, in the calling thread: while it starts, the process's
    standard streams are ``/dev/null`` (so that it holds none of ours), and the driver, reading
    its input from standard input on the other thread, would read that instead (a release
    piped to ``attack disassoc - --scheduler local:2`` read as empty or cut short)."""

    def __init__(self, spec: str, preload: Sequence[str]):
        from semtui.runtime.executor import fork_server

        if _LOCAL.match(spec):
            fork_server(_server_preload(preload))
        self.spec, self.preload = spec, tuple(preload)
        self.client = None
        self.to_close: list = []
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._start, name=f"semtui-scheduler {spec}", daemon=True)
        self.thread.start()

    def _start(self) -> None:
        try:
            self.client, self.to_close = _open(self.spec, self.preload)
            if self.preload:  # what the first task would import, imported while the driver works
                self.client.run(_preload, self.preload)
        except BaseException as exc:  # handed to the thread that needs the client
            self.error = exc

    def get(self):
        self.thread.join()
        if self.error is not None:
            raise self.error
        return self.client


def _close(things: list, *, stopped: bool = False) -> None:
    """Close a session's client and local cluster, whatever either raises on the way out.
    ``stopped``: the command was interrupted or failed: what Dask and its event loop log while
    they are torn down under it (a connection refused by a scheduler already gone, as a
    traceback) is not the user's to read, and the command says in one line why it ended."""
    timeouts: contextlib.AbstractContextManager = contextlib.nullcontext()
    levels: dict[str, int] = {}
    if stopped:
        levels = silence_dask()
        # a signal sent to the whole process group (a job scheduler's or `timeout`'s SIGTERM)
        # has killed a local cluster's scheduler too: closing the cluster asks it to retire the
        # workers, and each connection would wait out Dask's 30 s before the command could end
        import dask

        timeouts = dask.config.set({"distributed.comm.timeouts.connect": _STOP_CONNECT})
    with timeouts:
        for thing in things:
            with contextlib.suppress(Exception):
                thing.close()
    # a process that goes on (a failed run inside another program, the tests) logs as before;
    # one that was signalled is leaving, and its handler silenced them for good
    for name, level in levels.items():
        logging.getLogger(name).setLevel(level)


#: how long a stopped command's close waits to reach its scheduler (Dask's own is 30 s)
_STOP_CONNECT = "1s"


def silence_dask() -> dict[str, int]:
    """Nothing more from Dask's, tornado's and asyncio's loggers: a command stopped or failing
    says in one line why it ended, and what they log as it is torn down under them (a
    connection refused by a scheduler already gone; Dask's ``sync`` interrupted before it set
    its future, a NameError) is not the user's to read.  Called as the signal lands too: the
    event loop's thread logs before the session closes.  Each of their loggers, not only the
    three roots: Dask's logging config gives some (tornado.application) a level of their own.
    Returns the levels they had, by name."""
    levels = {}
    for name in ["distributed", "tornado", "asyncio", *logging.root.manager.loggerDict]:
        if name.split(".")[0] in ("distributed", "tornado", "asyncio") and name not in levels:
            logger = logging.getLogger(name)
            levels[name] = logger.level
            logger.setLevel(logging.CRITICAL + 1)
    return levels


@contextlib.contextmanager
def session(spec: str | None, *, warm: bool = False, preload: Sequence[str] = ()) -> Iterator[Any]:
    """One client for ``spec`` over a whole command (an assessment's many attacks share one
    local cluster); nested sessions of the same spec reuse it.  Yields the client (None when
    ``spec`` is None).

    ``warm``: open it in the background and yield at once (None): a nested session of the
    same spec -- the one that runs the units -- waits for it.  ``preload`` names modules every
    worker imports as soon as it is up (the kernels' modules)."""
    if spec is None:
        yield None
        return
    spec = check_scheduler(spec)
    with _lock:
        existing = _sessions.get(spec)
    if existing is not None:
        yield existing.get() if isinstance(existing, _Starting) else existing
        return
    if warm:
        starting = _Starting(spec, preload)
        with _lock:
            _sessions[spec] = starting
        stopped = True
        try:
            yield None
            stopped = False
        finally:
            with _lock:
                _sessions.pop(spec, None)
            starting.thread.join()
            _close(starting.to_close, stopped=stopped)
        return
    client, to_close = _open(spec)
    with _lock:
        _sessions[spec] = client
    stopped = True
    try:
        yield client
        stopped = False
    finally:
        with _lock:
            _sessions.pop(spec, None)
        _close(to_close, stopped=stopped)

