"""Running units of work: progress callbacks and cancellation (:mod:`.progress`), and the
executor that runs per-unit kernels serially or in worker processes (:mod:`.executor`)."""

from semtui.runtime.executor import run_units
from semtui.runtime.progress import ProgressCallback, heartbeat, no_progress

__all__ = ["ProgressCallback", "heartbeat", "no_progress", "run_units"]
