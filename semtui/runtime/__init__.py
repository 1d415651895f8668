"""Running units of work: progress callbacks and cancellation (:mod:`.progress`), and
:func:`run_units` (:mod:`.units`), which runs per-unit kernels serially or in worker processes
(the executor, :mod:`.executor`) or on a Dask cluster (:mod:`.scheduler`, the cluster opened
and closed by :mod:`.cluster`)."""

from semtui.runtime.progress import ProgressCallback, heartbeat, no_progress
from semtui.runtime.units import run_units

__all__ = ["ProgressCallback", "heartbeat", "no_progress", "run_units"]
