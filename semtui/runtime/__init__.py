"""Running units of work: progress callbacks and cancellation (:mod:`.progress`), and the
executor that runs per-unit kernels serially or in worker processes (:mod:`.executor`)."""

from semtui.runtime.executor import run_units
from semtui.runtime.progress import ProgressCallback, no_progress

__all__ = ["ProgressCallback", "no_progress", "run_units"]
