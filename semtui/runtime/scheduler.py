"""Units of work on a Dask cluster (``--scheduler``): the executor's other backend.

``--scheduler local:N`` starts a local Dask cluster (a :class:`distributed.SpecCluster`: N
``Nanny`` worker processes of one thread each and the scheduler in a process of its own, all
forked from the executor's fork server) on this machine for the length of the command; ``--scheduler tcp://HOST:PORT``
(or ``tls://``) connects to a running scheduler whose workers have the same semtui installed
(docs/distributed.md says how to start one over SSH, SLURM/PBS or Kubernetes).  Dask is an
optional extra, ``semtui[dask]``; without it the option is refused in one line.

What travels to the workers is what the serial kernels already take: the kernel (a
module-level function, sent by reference), the operation's shared arrays (the distances
scored once on the driver, positions, the background's priors: sent once, broadcast to every
worker with ``Client.scatter``) and the units, in **batches** of decreasing cost (2-4 per
worker, largest first; one task per small group would cost more than the work), handed out by
the driver one per free worker thread in that order.  No measure,
corpus or file is opened on a worker.  Results are merged in unit order, so a distributed run
equals the serial one; a worker that dies is replaced and its batches are run again by Dask.

Units that each cost seconds to minutes (the cells of ``semtui experiment``) go through
:func:`run_in_order` instead: one task per unit, the results handed back in unit order as soon
as every earlier one is (a result that comes early waits), so a caller can append them to a
file that must only ever hold a prefix of the units.

Streams (``corpus count``) go through :func:`map_stream`: the driver reads its input once and
keeps at most a few partitions in flight per worker, so its memory stays bounded whatever the
input's size.
"""

from __future__ import annotations

import contextlib
import logging
import re
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from semtui.errors import InputError
from semtui.fileio import ScratchFolder
from semtui.runtime.progress import ProgressCallback, no_progress

#: seconds between two progress calls while tasks run (each also a chance to cancel)
POLL = 0.2
#: batches per worker (the issue's 2-4: enough to balance, few enough to keep overheads small;
#: of decreasing cost, :func:`semtui.runtime.executor.batches`)
PER_WORKER = 4
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


def give_back_memory() -> None:
    """Hand the memory freed so far back to the system (glibc's ``malloc_trim``; nothing
    elsewhere): a driver that has read and planned a large input and then only streams holds
    its freed temporaries otherwise (glibc keeps freed heap, and after a large array is freed
    serves arrays up to its size from the heap: MEPS x 64's planning left ~150 MB so)."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    try:
        trim = ctypes.CDLL(name).malloc_trim if name else None
    except (OSError, AttributeError):
        trim = None
    if trim is not None:
        trim(0)


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


def _server_preload(preload: Sequence[str]) -> tuple[str, ...]:
    """What the fork server of ``local:N`` imports before it forks the cluster's processes."""
    return ("distributed", __name__, *preload, *_asked(preload))


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


def n_workers(client) -> int:
    return max(1, len(client.scheduler_info().get("workers", {})))


def _batch(kernel: Callable, shared: Any, units: list) -> list:
    return [kernel(shared, u) for u in units]


def _wait_some(pending: set) -> tuple[set, set]:
    """The futures of ``pending`` done within POLL seconds (at least one unless none finished)."""
    from distributed import wait

    try:
        finished, rest = wait(list(pending), timeout=POLL, return_when="FIRST_COMPLETED")
        return set(finished), set(rest)
    except TimeoutError:  # nothing finished in time: a chance to report progress and to cancel
        finished = {f for f in pending if f.done()}
        return finished, set(pending) - finished


def n_threads(client) -> int:
    """How many tasks the cluster runs at once (its workers' threads)."""
    workers = client.scheduler_info().get("workers", {})
    return max(1, sum(int(w.get("nthreads", 1)) for w in workers.values()))


def run_units_distributed(kernel: Callable, shared: Any, units: Sequence, *, spec: str,
                          costs: Sequence[float] | None, progress: ProgressCallback | None,
                          message: str, batches: Callable) -> list:
    """``[kernel(shared, u) for u in units]`` on the cluster ``spec`` (see the module's docstring).

    The batches are planned largest first and handed out **one per free thread**, the next as
    soon as one ends: the last to run are then the small ones, whichever worker is free takes
    it.  (Submitted all at once, Dask assigns the first few eagerly, two to a worker, so a
    worker done early runs its own second batch while a larger one waits behind the other
    worker's first: on MEPS' RBA attack that cost 1-2 s of 15.)"""
    progress = progress or no_progress
    n = len(units)
    if n == 0:
        return []
    with session(spec) as client:
        groups = batches(list(costs) if costs is not None else [1.0] * n, n_workers(client), PER_WORKER)
        [shared_f] = client.scatter([shared], broadcast=True, hash=False)
        results: list = [None] * n
        pending: dict = {}  # future -> the unit indices of its batch
        done = 0
        nxt = 0
        try:
            progress(0, n, message)
            while nxt < len(groups) or pending:
                slots = n_threads(client)  # read again: a worker may join or leave mid-run
                while nxt < len(groups) and len(pending) < slots:
                    b = groups[nxt]
                    fut = client.submit(_batch, kernel, shared_f, [units[i] for i in b], pure=False, priority=-nxt)
                    pending[fut] = b
                    nxt += 1
                finished, _ = _wait_some(set(pending))
                for fut in finished:
                    b = pending.pop(fut)
                    for i, r in zip(b, fut.result()):
                        results[i] = r
                    done += len(b)
                progress(done, n, message)
        except BaseException:
            client.cancel([*pending, shared_f], force=True)
            raise
        client.cancel([shared_f])
        return results


def run_in_order(kernel: Callable, shared: Any, items: Sequence, on_result: Callable[[int, Any], None], *,
                 spec: str, progress: ProgressCallback | None = None, message: str = "") -> None:
    """``kernel(shared, item)`` for every item, **one task each** (for units that each cost
    seconds to minutes, such as the cells of an experiment), on the cluster ``spec``;
    ``on_result(i, result)`` is called here in item order, each as soon as every earlier item's
    was: a result that comes early waits for those before it.  A task that failed raises its
    error when its turn comes (the ones before it were handed on, as a serial run would have).
    ``shared`` travels once to every worker.  ``progress`` gets the tasks finished of all; an
    exception here (Ctrl-C, ``Interrupted`` from ``progress`` or ``on_result``) cancels every
    task left before it goes on."""
    progress = progress or no_progress
    n = len(items)
    if n == 0:
        return
    with session(spec) as client:
        [shared_f] = client.scatter([shared], broadcast=True, hash=False)
        futures: list = [None] * n
        try:
            index: dict = {}
            arrived: dict[int, Any] = {}
            pending: set = set()
            submitted = finished_n = nxt = 0
            progress(0, n, message)
            while nxt < n:
                # one task per free thread, in item order, the next as soon as one ends: the
                # earlier items start first, on whichever worker is free (submitted all at once,
                # Dask assigns the first few eagerly, two to a worker, and one done early would run
                # its own second item while an earlier one waits behind the other's)
                slots = n_threads(client)
                while submitted < n and len(pending) < slots:
                    fut = client.submit(kernel, shared_f, items[submitted], pure=False, priority=-submitted)
                    futures[submitted] = fut
                    index[fut.key] = submitted
                    pending.add(fut)
                    submitted += 1
                finished, pending = _wait_some(pending) if pending else (set(), set())
                for fut in finished:
                    arrived[index[fut.key]] = fut
                    finished_n += 1
                while nxt in arrived:
                    result = arrived.pop(nxt).result()  # a task's error is raised in its turn
                    futures[nxt] = None  # its result is ours now: the cluster may forget it
                    on_result(nxt, result)
                    nxt += 1
                progress(finished_n, n, message)
        except BaseException:
            client.cancel([f for f in futures if f is not None] + [shared_f], force=True)
            raise
        client.cancel([shared_f])


def map_stream(fn: Callable, parts: Iterable, reduce: Callable[[Any, Any], Any], *, spec: str | None,
               progress: ProgressCallback | None = None, message: str = "", in_flight: int = 2,
               size_of: Callable[[Any], int] = lambda _: 1) -> Any:
    """``reduce`` over ``fn(part)`` for every part of the stream ``parts``, in order of arrival
    (``reduce`` must be associative and commutative, as a sum is).  With ``spec`` the parts run
    on the cluster, at most ``in_flight`` per worker at a time (the driver never holds more);
    without, here, one after another.  ``progress`` gets the items done so far (``size_of``)."""
    progress = progress or no_progress
    acc = None
    done = 0
    if spec is None:
        last = 0.0
        for part in parts:
            r = fn(part)
            acc = r if acc is None else reduce(acc, r)
            done += size_of(part)
            now = time.monotonic()
            if now - last >= POLL / 4:
                last = now
                progress(done, 0, message)
        progress(done, done, message)
        return acc
    with session(spec) as client:
        limit = max(1, in_flight * n_workers(client))
        pending: dict = {}
        submitted = 0
        try:
            it = iter(parts)
            exhausted = False
            progress(0, 0, message)
            while pending or not exhausted:
                while not exhausted and len(pending) < limit:
                    try:
                        part = next(it)
                    except StopIteration:
                        exhausted = True
                        break
                    fut = client.submit(fn, part, pure=False, priority=-submitted)
                    submitted += 1
                    pending[fut] = size_of(part)
                if not pending:
                    break
                finished, _ = _wait_some(set(pending))
                for fut in finished:
                    r = fut.result()
                    acc = r if acc is None else reduce(acc, r)
                    done += pending.pop(fut)
                progress(done, 0, message)
        except BaseException:
            client.cancel(list(pending), force=True)
            raise
        progress(done, done, message)
        return acc


def map_ordered(fn: Callable, shared: Any, parts: Iterable, *, spec: str, in_flight: int = 3,
                progress: ProgressCallback | None = None, message: str = "", total: int = 0,
                size_of: Callable[[Any], int] = lambda _: 1) -> Iterator[Any]:
    """``fn(shared, part)`` for every part of the stream ``parts`` on the cluster ``spec``,
    yielded **in the order of the parts** as they complete: ``shared`` is broadcast once, each
    part is taken from ``parts`` only when it is submitted, and at most ``in_flight`` parts a
    worker are submitted or waiting to be yielded, so the driver never holds more whatever the
    stream's length.  ``progress`` gets the items done so far (``size_of``) out of ``total``."""
    progress = progress or no_progress
    with session(spec) as client:
        limit = max(2, in_flight * n_workers(client))
        [shared_f] = client.scatter([shared], broadcast=True, hash=False)
        pending: dict = {}   # future -> (position, size)
        ready: dict = {}     # position -> result, not yet yielded
        submitted = done = 0
        wanted = 0
        it = iter(parts)
        exhausted = False
        try:
            progress(0, total, message)
            while True:
                while not exhausted and len(pending) + len(ready) < limit:
                    try:
                        part = next(it)
                    except StopIteration:
                        exhausted = True
                        break
                    fut = client.submit(fn, shared_f, part, pure=False, priority=-submitted)
                    pending[fut] = (submitted, size_of(part))
                    submitted += 1
                    del part
                if wanted in ready:
                    result = ready.pop(wanted)
                    wanted += 1
                    yield result
                    del result
                    continue
                if not pending:
                    break
                finished, _ = _wait_some(set(pending))
                for fut in finished:
                    position, size = pending.pop(fut)
                    ready[position] = fut.result()
                    done += size
                progress(done, total, message)
        finally:
            client.cancel(list(pending) + [shared_f], force=True)
        progress(done, total, message)
