"""Units of work on a Dask cluster (``--scheduler``): the executor's other backend.

The cluster is :mod:`semtui.runtime.cluster`'s (``local:N`` started here, or a running
scheduler at ``tcp://HOST:PORT``), one session a command; this module runs the work on it.

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

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

from semtui.runtime.cluster import session
from semtui.runtime.progress import ProgressCallback, no_progress

#: seconds between two progress calls while tasks run (each also a chance to cancel)
POLL = 0.2
#: batches per worker (the issue's 2-4: enough to balance, few enough to keep overheads small;
#: of decreasing cost, :func:`semtui.runtime.executor.batches`)
PER_WORKER = 4


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
