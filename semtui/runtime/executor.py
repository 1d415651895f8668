"""The one executor: run the units of an operation (equivalence groups, clusters, the parts of
LRA and VPA) serially or in worker processes, on this machine.

``run_local(kernel, shared, units, jobs=N)`` calls ``kernel(shared, unit)`` for every unit and
returns the results in unit order, whatever order they finished in, so a run is the same
serial or parallel.  Operations call it through :func:`semtui.runtime.run_units`
(:mod:`.units`), which sends the units here or to a Dask cluster (:mod:`.scheduler`, the other
backend, whose local cluster, :mod:`.cluster`, forks its processes from this module's server).  ``kernel`` must be a module-level function and ``shared``/``units``
picklable; never a measure or a cache (workers get arrays).  Progress goes through one
callback, called in the calling process; it may raise ``Interrupted``, which stops the
workers and leaves no process behind.

This module is the only one in semtui that starts processes (``tests/unit/test_executor.py``
says so) — the workers of ``--jobs``, and a *companion* for a service of the command (the Dask
scheduler of ``--scheduler local:N``, :func:`start_companion`) — and every one of them dies with
its parent, however the parent ends:

* **at most one worker per core**: ``jobs`` is capped to :func:`available_cores` (and to the
  number of units); :func:`capped_jobs` tells a face what a request becomes;
* **an exception or a cancel** (``Interrupted`` from the progress callback, Ctrl-C or SIGTERM
  turned into ``KeyboardInterrupt`` by the CLI, a kernel that raised) kills every worker with
  SIGKILL before the exception goes on;
* **the parent killed outright** (SIGKILL, a crash): each worker holds the read end of a
  *lifeline* pipe whose only write end is in the parent, and a thread in the worker exits the
  process when it reads end-of-file; on Linux the worker also asks the kernel
  (``prctl(PR_SET_PDEATHSIG, SIGKILL)``) to be killed when its own parent, multiprocessing's
  fork server, goes, and the fork server leaves as soon as the parent does;
* a worker **ignores SIGINT** (a Ctrl-C reaches the whole process group; the parent answers it
  and stops the workers) and **dies on SIGTERM** (the default action, restored);
* workers **never hold the parent's standard streams**: the fork server they are forked
  from, and each worker again in its initializer, point fds 0, 1 and 2 at ``/dev/null``
  (``SEMTUI_DEBUG`` keeps 2; see ``_forkserver.py``), and multiprocessing's resource tracker
  is started with its non-terminal standard streams replaced by ``/dev/null``, so a reader of
  ``semtui … |`` gets end-of-file as soon as semtui is gone, and no worker writes on the
  user's terminal or the TUI's screen.

Workers start from a clean process (``forkserver``), safe even when the caller runs threads
(the TUI's workers, the score cache's writer); the shared arrays are pickled once and travel
once per worker, through the initializer.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import multiprocessing.forkserver
import os
import pickle
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import Any, TypeVar

from semtui.runtime._forkserver import MARKER, detach_stdio
from semtui.runtime.progress import ProgressCallback, beating, no_progress

U = TypeVar("U")
R = TypeVar("R")

#: seconds between two progress calls while workers run (each is also a chance to cancel)
POLL = 0.2

_KERNEL: Callable | None = None
_SHARED: Any = None

#: Linux prctl option: the signal a process gets when its parent dies
_PR_SET_PDEATHSIG = 1


def available_cores() -> int:
    """The cores this process may run on (its CPU affinity, which containers and ``taskset``
    narrow), at least 1."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def capped_jobs(jobs: int) -> int:
    """What a request for ``jobs`` worker processes becomes: at least 1, at most the cores."""
    return max(1, min(int(jobs), available_cores()))


def batches(costs: Sequence[float], jobs: int, per_job: int = 4) -> list[list[int]]:
    """Unit indices in about ``per_job`` batches a process, largest units first, and batches of
    *decreasing* cost (guided scheduling): the first round of ``jobs`` batches takes the
    largest share, the last round the smallest, so that when a cost guessed wrong makes one
    process finish late the others are left waiting for a small batch, not a large one.
    Round ``r`` (counted down from ``per_job`` to 1) has batches of ``r`` parts of the total."""
    order = sorted(range(len(costs)), key=lambda i: (-costs[i], i))
    jobs, per_job = max(int(jobs), 1), max(int(per_job), 1)
    weights = [r for r in range(per_job, 0, -1) for _ in range(jobs)]
    total = float(sum(costs))
    targets = [max(total * w / sum(weights), 1e-12) for w in weights]
    out: list[list[int]] = []
    current: list[int] = []
    acc = 0.0
    for i in order:
        current.append(i)
        acc += costs[i]
        if len(out) < len(targets) - 1 and acc >= targets[len(out)]:
            out.append(current)
            current, acc = [], 0.0
    if current:
        out.append(current)
    return out


# ---------------------------------------------------------------------------- in the worker


def _die_with_parent(lifeline) -> None:
    """Everything that ties a worker's life to its parent's (see the module's docstring)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    if sys.platform.startswith("linux"):
        try:
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        except (OSError, AttributeError):  # pragma: no cover - no prctl: the lifeline still holds
            pass
    detach_stdio(keep_stderr=bool(os.environ.get("SEMTUI_DEBUG")))

    def watch() -> None:
        try:
            lifeline.recv_bytes()  # nothing is ever sent: this returns only at end-of-file
        except (EOFError, OSError):
            pass
        os._exit(1)

    threading.Thread(target=watch, name="semtui-lifeline", daemon=True).start()


def _init(kernel: Callable, shared_blob: bytes, lifeline) -> None:
    global _KERNEL, _SHARED
    _die_with_parent(lifeline)
    _KERNEL, _SHARED = kernel, pickle.loads(shared_blob)


def _run_batch(batch: list[tuple[int, Any]]) -> list[tuple[int, Any]]:
    return [(i, _KERNEL(_SHARED, unit)) for i, unit in batch]


# ---------------------------------------------------------------------------- in the parent

_start_lock = threading.Lock()


@contextlib.contextmanager
def _stdio_detached() -> Iterator[None]:
    """While multiprocessing's helper processes start (they inherit fds 0-2), a standard
    stream that is not a terminal is ``/dev/null``: a helper then never holds a pipe of ours
    open, nor writes in a log of ours (the resource tracker's "leaked semaphore" warning after
    a SIGKILL).  A terminal is left alone: the TUI reads and draws on it from other threads."""
    saved: list[tuple[int, int]] = []
    devnull = os.open(os.devnull, os.O_RDWR)
    try:
        for fd in (0, 1, 2):
            try:
                if os.isatty(fd):
                    continue
                saved.append((fd, os.dup(fd)))
            except OSError:  # closed: nothing to hold open
                continue
            os.dup2(devnull, fd)
        yield
    finally:
        for fd, copy in saved:
            os.dup2(copy, fd)
            os.close(copy)
        os.close(devnull)


def _context(kernel: Callable):
    """The forkserver context, its server (and the resource tracker) running detached from our
    standard input and output.  A server started here first imports the kernel's module (and so
    numpy, scipy and the engine), so that a worker forked from it starts in milliseconds."""
    if kernel.__module__ == "__main__":
        return fork_server()
    # the kernel's module, and what it asks its workers to import before their first unit
    more = getattr(sys.modules.get(kernel.__module__), "FORK_PRELOAD", ())
    return fork_server([kernel.__module__, *more])


def _server_running() -> bool:
    """Whether this process's fork server is up (multiprocessing's own record of it)."""
    pid = getattr(multiprocessing.forkserver._forkserver, "_forkserver_pid", None)
    if pid is None:
        return False
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            return fh.read().rsplit(b")", 1)[1].split()[0] != b"Z"
    except (OSError, IndexError):
        return False


def fork_server(preload: Sequence[str] = ()):
    """The forkserver context with its server running (started here, detached from our standard
    streams, having imported ``preload``, unless it runs already: there is one per process).
    The executor's workers fork from it, and so do the processes of ``--scheduler local:N``."""
    ctx = multiprocessing.get_context("forkserver")
    modules = ["semtui.runtime._forkserver", __name__, *preload]
    with _start_lock:
        if _server_running():  # nothing to start: our standard streams are left alone (another
            return ctx         # thread may be reading standard input)
        _own_tempdir()
        ctx.set_forkserver_preload(modules)
        os.environ[MARKER] = "1"  # the server's first import detaches it (and its workers)
        stderr = sys.stderr
        try:
            # the resource tracker is handed sys.stderr's fd: under the TUI (Textual's capture
            # of print) that is -1, which cannot start a process; hand it a real one
            if _fileno(stderr) < 0:
                sys.stderr = sys.__stderr__ if _fileno(sys.__stderr__) >= 0 else open(os.devnull, "w")
            with _stdio_detached():
                multiprocessing.forkserver.ensure_running()
        finally:
            if sys.stderr is not stderr and sys.stderr is not sys.__stderr__:
                sys.stderr.close()
            sys.stderr = stderr
            os.environ.pop(MARKER, None)
    return ctx


#: how the folder multiprocessing keeps its sockets in is named here (short: a socket's path
#: inside it must fit in 107 bytes; pymp-XXXXXXXX is 4 bytes shorter; no other folder of
#: semtui's begins so)
MP_PREFIX = "semtuimp-"


def _own_tempdir() -> None:
    """Multiprocessing's temporary folder (the fork server's socket), made by semtui as
    ``semtuimp-XXXXXXXX`` rather than by multiprocessing as ``pymp-XXXXXXXX``, and held
    (an advisory ``flock`` on the folder, released by any exit): removed at exit as
    multiprocessing removes its own, at an ``os._exit`` by the CLI (:func:`process_folder`),
    and -- a process killed outright (SIGKILL) removes nothing -- by the next semtui process
    that starts a fork server, which removes every such folder no process holds (a ``pymp-*``
    could be anyone's)."""
    import shutil
    from multiprocessing import util

    from semtui.fileio import held_folder

    config = multiprocessing.current_process()._config
    if config.get("tempdir"):
        return
    # the fork server's socket, listener-XXXXXXXX, must fit in a socket's path: under a TMPDIR too
    # long for our name multiprocessing makes its own, 4 characters shorter (pymp-XXXXXXXX)
    held = held_folder(MP_PREFIX, socket_name=len("listener-XXXXXXXX"))
    if held is None:
        return  # multiprocessing makes its own, and says why it cannot
    folder, fd = held
    _HELD.append(fd)  # held while this process lives (not inherited: os.open's fds are not)
    # as multiprocessing.util.get_temp_dir registers its own: removed at exit, late
    util.Finalize(None, shutil.rmtree, args=(folder, True), exitpriority=-100)
    config["tempdir"] = folder


#: the descriptor of this process's multiprocessing folder, holding its lock
_HELD: list[int] = []


def _companion_main(lifeline, reply, target: Callable, args: tuple) -> None:
    _die_with_parent(lifeline)
    target(reply.send, *args)


class Companion:
    """A long-lived process serving the command (the Dask scheduler of ``--scheduler local:N``):
    forked from the fork server, tied to its parent's life as every worker is (module
    docstring), stopped by :meth:`stop`."""

    def __init__(self, target: Callable, args: tuple, preload: Sequence[str]):
        ctx = fork_server(preload)
        lifeline_r, self._lifeline = ctx.Pipe(duplex=False)
        self._reply, reply_w = ctx.Pipe(duplex=False)
        self.process = ctx.Process(target=_companion_main, args=(lifeline_r, reply_w, target, args),
                                   name="semtui-companion", daemon=False)
        try:
            self.process.start()
        finally:
            lifeline_r.close()
            reply_w.close()

    def receive(self, timeout: float) -> Any:
        """What the process sends first (``target`` gets ``send`` as its first argument); a
        TimeoutError after ``timeout`` seconds, an EOFError when the process ended first."""
        if not self._reply.poll(timeout):
            raise TimeoutError(f"no answer from {self.process.name} within {timeout} s")
        return self._reply.recv()

    def stop(self, grace: float = 5.0) -> None:
        """End the process: its lifeline closes (it exits at once), then it is reaped."""
        with contextlib.suppress(OSError):
            self._lifeline.close()
        self.process.join(grace)
        if self.process.is_alive():
            self.process.kill()
            self.process.join(grace)
        self._reply.close()


def start_companion(target: Callable, *args: Any, preload: Sequence[str] = ()) -> Companion:
    """``target(send, *args)`` in a process of its own (:class:`Companion`); ``target`` must be
    a module-level function, ``args`` picklable."""
    return Companion(target, args, preload)


def _fileno(stream) -> int:
    try:
        return stream.fileno()
    except (AttributeError, OSError, ValueError):
        return -1


def _kill(pool: ProcessPoolExecutor | None) -> None:
    """Stop a pool at once: SIGKILL every worker (whatever it is doing), then reap them.

    A worker killed while it wrote a result leaves half a message in the result pipe, and the
    pool's manager thread then waits in ``recv`` for bytes no one will send (semtui holds the
    pipe's write end too), so ``shutdown(wait=True)`` would hang: once the workers are reaped,
    semtui closes its own write end, the manager reads end-of-file, and the pool shuts down."""
    if pool is None:
        return
    procs = list((getattr(pool, "_processes", None) or {}).values())
    for proc in procs:
        with contextlib.suppress(Exception):
            proc.kill()
    for proc in procs:
        with contextlib.suppress(Exception):
            proc.join(5)
    with contextlib.suppress(Exception):
        pool._result_queue._writer.close()
    # the pool's manager thread ends once it has read that end-of-file; should it not (a pipe
    # still held open elsewhere), the interrupt goes on after KILL_WAIT seconds rather than
    # waiting for it: every worker is dead, nothing of theirs is left to wait for
    manager = getattr(pool, "_executor_manager_thread", None)
    pool.shutdown(wait=False, cancel_futures=True)
    if manager is not None:
        manager.join(KILL_WAIT)


#: seconds a stopped pool's manager thread is given to end (:func:`_kill`)
KILL_WAIT = 5.0


def run_local(
    kernel: Callable[[Any, U], R],
    shared: Any,
    units: Sequence[U],
    *,
    jobs: int = 1,
    costs: Sequence[float] | None = None,
    progress: ProgressCallback | None = None,
    message: str = "",
    on_result: Callable[[int, Any], None] | None = None,
    claim: Callable[[], int | None] | None = None,
) -> list[R]:
    """``[kernel(shared, u) for u in units]``, with up to ``jobs`` worker processes (capped to
    the cores and to the units) when more than one.  ``on_result(i, result)``: called in this
    process as each unit's result arrives (any order), so a caller stopped part-way keeps what
    finished.

    ``claim``: the units are shared with the caller, who runs some of them itself meanwhile (in
    another thread of this process).  They then run in ``jobs`` worker processes even when that
    is one, a unit at a time, each started only when a worker is free: ``claim()`` hands out the
    index of the next unit nobody has taken (None: none left).  A unit never claimed here stays
    None in the result (and is not counted in the progress)."""
    progress = progress or no_progress
    n = len(units)
    jobs = min(capped_jobs(jobs), max(n, 1))
    if claim is not None:   # a unit a batch, submitted only while a worker is free (none waits queued)
        return _pooled(kernel, shared, units, jobs, lambda busy: None if busy >= jobs or (i := claim()) is None
                       else [i], progress, message, on_result)
    if jobs == 1:
        out = []
        last = 0.0
        current = [0]

        def within(count: int, what: str) -> None:
            # a long unit: say how far it got (the bar stays at the units done)
            i = current[0]
            where = f"{i + 1:,}/{n:,}" + (f": {count:,} {what}" if what else "")
            progress(i, n, f"{message} {where}" if message else where)

        with beating(within):
            for i, unit in enumerate(units):
                current[0] = i
                out.append(kernel(shared, unit))
                if on_result is not None:
                    on_result(i, out[-1])
                now = time.monotonic()
                if now - last >= POLL / 4 or i + 1 == n:
                    last = now
                    progress(i + 1, n, message)
        return out
    groups = iter(batches(list(costs) if costs is not None else [1.0] * n, jobs))
    # every batch submitted at once: the pool hands the next to whichever worker is free
    return _pooled(kernel, shared, units, jobs, lambda busy: next(groups, None), progress, message, on_result)


def _pooled(kernel, shared, units, jobs: int, next_batch, progress, message: str, on_result) -> list:
    """The units in ``jobs`` worker processes: ``next_batch(busy)`` gives the next batch of unit
    indices to submit while ``busy`` are running or queued (None: none for now), asked again as
    each batch comes back; results in unit order."""
    n = len(units)
    results: list[Any] = [None] * n
    ctx = _context(kernel)
    lifeline_r, lifeline_w = ctx.Pipe(duplex=False)
    pool: ProcessPoolExecutor | None = None
    done = 0
    try:
        # the shared arrays are pickled once here, not once per worker
        blob = pickle.dumps(shared, protocol=pickle.HIGHEST_PROTOCOL)
        pool = ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_init,
                                   initargs=(kernel, blob, lifeline_r))
        pending: set = set()

        def feed() -> None:
            while (b := next_batch(len(pending))) is not None:
                pending.add(pool.submit(_run_batch, [(i, units[i]) for i in b]))

        feed()
        progress(0, n, message)
        while pending:
            finished, pending = wait(pending, timeout=POLL, return_when=FIRST_COMPLETED)
            for fut in finished:
                for i, r in fut.result():
                    results[i] = r
                    done += 1
                    if on_result is not None:
                        on_result(i, r)
            feed()
            progress(done, n, message)  # also a chance to cancel while the workers run
    except BaseException:
        lifeline_w.close()  # a worker still starting (not yet in the pool's list) dies on this end-of-file
        _kill(pool)
        raise
    else:
        pool.shutdown(wait=True)
    finally:
        lifeline_w.close()
        lifeline_r.close()
    return results


def process_folder() -> list[str]:
    """The temporary folder multiprocessing made for this process (the fork server's socket),
    if it made one: removed by its exit handler, which a process leaving with ``os._exit``
    skips (:func:`semtui.fileio.remove_process_scratch`)."""
    import multiprocessing

    folder = multiprocessing.current_process()._config.get("tempdir")
    return [folder] if folder else []


#: the states of a process that has ended (a zombie, dead): it writes nothing more
_DEAD = (b"Z", b"X")


def _state(pid: int | str) -> tuple[bytes, int] | None:
    """A process's state letter and parent, from /proc; None if it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    fields = stat[stat.rfind(b")") + 2:].split()   # after "(comm)": state, ppid, ...
    return fields[0], int(fields[1])


def _children() -> dict[int, list[int]]:
    """Every living process's children, from /proc (empty where there is none)."""
    out: dict[int, list[int]] = {}
    try:
        names = os.listdir("/proc")
    except OSError:
        return out
    for name in names:
        state = _state(name) if name.isdigit() else None
        if state is not None and state[0] not in _DEAD:
            out.setdefault(state[1], []).append(int(name))
    return out


def _living_descendants(pid: int) -> list[int]:
    children, out, todo = _children(), [], [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            out.append(child)
            todo.append(child)
    return out


def stop_descendants(wait: float = 2.0) -> None:
    """Kill every process this one started and theirs (a local Dask cluster's scheduler,
    nannies and workers, the fork server) and wait, up to ``wait`` seconds, until none can
    write any more -- before a stopped command removes its scratch folders for the last time:
    a worker still starting as the signal landed would otherwise write into one after the
    removal (they would die with this process anyway, PR_SET_PDEATHSIG, but not before).
    Each is stopped first (SIGSTOP), the tree read again until it holds no one new, so none
    forks a child that escapes being killed; Linux only (/proc), elsewhere nothing.

    Multiprocessing's resource tracker is left alone: it writes no file, ends when this process
    does, and killed, would be started again by the next semaphore collected on the way out --
    a new tracker, told to forget a semaphore it never knew, prints a traceback."""
    from multiprocessing import resource_tracker

    stopped: set[int] = set()
    spared = {getattr(resource_tracker._resource_tracker, "_pid", None)}
    for _ in range(50):
        new = [p for p in _living_descendants(os.getpid()) if p not in stopped and p not in spared]
        if not new:
            break
        for p in new:
            with contextlib.suppress(OSError):
                os.kill(p, signal.SIGSTOP)
            stopped.add(p)
    for p in stopped:
        with contextlib.suppress(OSError):
            os.kill(p, signal.SIGKILL)
    deadline = time.monotonic() + wait
    while stopped and time.monotonic() < deadline:
        stopped = {p for p in stopped if _alive(p)}
        if stopped:
            time.sleep(0.01)


def _alive(pid: int | str) -> bool:
    """``pid`` exists and has not ended (a killed process may take a moment to die)."""
    state = _state(pid)
    return state is not None and state[0] not in _DEAD
