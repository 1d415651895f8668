"""Progress reporting: the engine calls a plain callback, the faces draw it.

A callback takes ``(done, total, message)``; ``total`` may be 0 when unknown.
It may raise :class:`semtui.errors.Interrupted` to cancel the work.

A kernel that runs long inside one unit (RBA on a table of thousands of rows) cannot take a
callback (it is a plain function of arrays, also run in worker processes), so it calls
:func:`heartbeat` from its loop instead: in the thread that runs units serially, the executor
has put a beat there that reports where the unit is (and so gives a cancel its chance) at most
every :data:`BEAT` seconds; anywhere else (a worker process, a caller outside the executor)
it does nothing.  The parent of worker processes polls on its own (``executor.POLL``).
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator

ProgressCallback = Callable[[int, int, str], None]

#: seconds of kernel work between two beats that report (each is a chance to cancel)
BEAT = 0.05

_local = threading.local()


def no_progress(done: int, total: int, message: str = "") -> None:
    """The default callback: report nothing."""


def heartbeat(count: int = 0, what: str = "") -> None:
    """Called by a long loop of a kernel, e.g. once per elimination: ``count`` of ``what``
    done so far in the current unit.  Cheap (a thread-local read and a clock read); the beat
    itself reports only every :data:`BEAT` seconds, and may raise ``Interrupted``."""
    beat = getattr(_local, "beat", None)
    if beat is not None:
        beat(count, what)


def throttled(report: Callable[..., None], *, at_once: bool = False) -> Callable[..., None]:
    """``report`` called at most every :data:`BEAT` seconds (the calls in between dropped): a
    long loop calls the result every step, cheaply (a clock read).  ``at_once``: the first call
    reports (a phase's first word), else the first report comes :data:`BEAT` seconds in."""
    last = [float("-inf") if at_once else time.monotonic()]

    def call(*args) -> None:
        now = time.monotonic()
        if now - last[0] >= BEAT:
            last[0] = now
            report(*args)

    return call


@contextlib.contextmanager
def beating(report: Callable[[int, str], None]) -> Iterator[None]:
    """While the block runs in this thread, :func:`heartbeat` calls ``report(count, what)`` at
    most every :data:`BEAT` seconds (``report`` may raise ``Interrupted``)."""
    beat = throttled(report)
    saved = getattr(_local, "beat", None)
    _local.beat = beat
    try:
        yield
    finally:
        _local.beat = saved
