"""Run the units of an operation (equivalence groups, clusters) serially or in worker processes.

``run_units(kernel, shared, units, jobs=N)`` calls ``kernel(shared, unit)`` for every unit and
returns the results in unit order, whatever order they finished in, so a run is the same
serial or parallel.  ``kernel`` must be a module-level function and ``shared``/``units``
picklable; never a measure or a cache (workers get arrays).  Progress goes through one
callback, called in the calling process; it may raise ``Interrupted``, which stops the
workers and leaves no process behind.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from typing import Any, TypeVar

from semtui.runtime.progress import ProgressCallback, no_progress

U = TypeVar("U")
R = TypeVar("R")

_KERNEL: Callable | None = None
_SHARED: Any = None


def _init(kernel: Callable, shared: Any) -> None:
    global _KERNEL, _SHARED
    _KERNEL, _SHARED = kernel, shared


def _run_batch(batch: list[tuple[int, Any]]) -> list[tuple[int, Any]]:
    return [(i, _KERNEL(_SHARED, unit)) for i, unit in batch]


def available_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def batches(costs: Sequence[float], jobs: int, per_job: int = 4) -> list[list[int]]:
    """Unit indices in batches of about equal cost, largest first (so that the longest units
    start early and the small ones fill in): about ``per_job`` batches a process."""
    order = sorted(range(len(costs)), key=lambda i: (-costs[i], i))
    target = max(sum(costs) / max(jobs * per_job, 1), 1e-12)
    out: list[list[int]] = []
    current: list[int] = []
    acc = 0.0
    for i in order:
        current.append(i)
        acc += costs[i]
        if acc >= target:
            out.append(current)
            current, acc = [], 0.0
    if current:
        out.append(current)
    return out


def run_units(
    kernel: Callable[[Any, U], R],
    shared: Any,
    units: Sequence[U],
    *,
    jobs: int = 1,
    costs: Sequence[float] | None = None,
    progress: ProgressCallback | None = None,
    message: str = "",
) -> list[R]:
    """``[kernel(shared, u) for u in units]``, with ``jobs`` worker processes when > 1."""
    progress = progress or no_progress
    n = len(units)
    jobs = max(1, min(int(jobs), n))
    if jobs == 1:
        out = []
        for i, unit in enumerate(units):
            out.append(kernel(shared, unit))
            progress(i + 1, n, message)
        return out
    groups = batches(list(costs) if costs is not None else [1.0] * n, jobs)
    results: list[Any] = [None] * n
    # forkserver: workers start from a clean process, safe even when the caller runs threads
    # (the TUI's workers); the shared arrays travel once per worker, through the initializer.
    ctx = multiprocessing.get_context("forkserver")
    pool = ProcessPoolExecutor(max_workers=jobs, mp_context=ctx, initializer=_init, initargs=(kernel, shared))
    done = 0
    try:
        pending = {pool.submit(_run_batch, [(i, units[i]) for i in b]) for b in groups}
        progress(0, n, message)
        while pending:
            finished, pending = wait(pending, timeout=0.2, return_when=FIRST_COMPLETED)
            for fut in finished:
                for i, r in fut.result():
                    results[i] = r
                    done += 1
            progress(done, n, message)  # also a chance to cancel while the workers run
    except BaseException:
        for proc in list(getattr(pool, "_processes", {}).values()):
            proc.terminate()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)
    return results
