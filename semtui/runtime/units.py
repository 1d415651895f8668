"""Where an operation's units run: :func:`run_units`, the one call every operation makes.

Here, serially or in worker processes (:func:`semtui.runtime.executor.run_local`), or on a Dask
cluster (:func:`semtui.runtime.scheduler.run_units_distributed`).  The choice is made here,
above both backends, so that neither imports the other's caller: the Dask cluster uses the
executor's fork server for the processes of ``local:N`` (:mod:`semtui.runtime.cluster`), and the
executor knows nothing of Dask.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, TypeVar

from semtui.runtime.progress import ProgressCallback, no_progress

U = TypeVar("U")
R = TypeVar("R")


def run_units(
    kernel: Callable[[Any, U], R],
    shared: Any,
    units: Sequence[U],
    *,
    jobs: int = 1,
    costs: Sequence[float] | None = None,
    progress: ProgressCallback | None = None,
    message: str = "",
    scheduler: str | None = None,
) -> list[R]:
    """``[kernel(shared, u) for u in units]``, with up to ``jobs`` worker processes (capped to
    the cores and to the units) when more than one, or on the Dask cluster ``scheduler``
    (``local:N``, ``tcp://HOST:PORT``: :mod:`semtui.runtime.cluster`; ``jobs`` is then unused)."""
    # the backends when units are run, not when a module that runs some is imported: a command
    # imports multiprocessing (and its exit handler) only once it runs units
    from semtui.runtime.executor import batches, run_local

    if scheduler is not None:
        from semtui.runtime.scheduler import run_units_distributed

        return run_units_distributed(kernel, shared, units, spec=scheduler, costs=costs,
                                     progress=progress or no_progress, message=message, batches=batches)
    return run_local(kernel, shared, units, jobs=jobs, costs=costs, progress=progress, message=message)
