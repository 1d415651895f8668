"""Long work off the UI thread: attacks, weighted replays, exports.

``start_job(node, job, fn, *args)`` runs ``fn(*args, progress=callback)`` in a thread worker
(exclusive per job name, so a newer replay cancels a stale one), and posts back to ``node``
a :class:`~semtui.tui.messages.JobProgress` per callback (coalesced in the queue), then
:class:`~semtui.tui.messages.JobFinished` or :class:`~semtui.tui.messages.JobFailed`.  The
callback raises :class:`~semtui.errors.Interrupted` once the worker is cancelled, which is how
the engine's loops stop.  Only ``post_message`` crosses the thread boundary.
"""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from typing import Any

from textual.dom import DOMNode
from textual.worker import Worker, get_current_worker

from semtui.errors import Interrupted
from semtui.tui.messages import JobFailed, JobFinished, JobProgress

#: the interpreter's thread switch interval (s) while a job runs: the worker and the event
#: loop share the GIL, and handing it over more often than every 5 ms keeps keys prompt
JOB_SWITCH_INTERVAL = 0.001
#: seconds between two progress messages of a job (a person reads no faster; the bar moves smoothly)
PROGRESS_EVERY = 0.1

_running = 0
_saved_interval: float | None = None
_lock = threading.Lock()


def _enter() -> None:
    global _running, _saved_interval
    with _lock:
        if _running == 0:
            _saved_interval = sys.getswitchinterval()
            sys.setswitchinterval(JOB_SWITCH_INTERVAL)
        _running += 1


def _leave() -> None:
    global _running
    with _lock:
        _running -= 1
        if _running == 0 and _saved_interval is not None:
            sys.setswitchinterval(_saved_interval)


def start_job(node: DOMNode, job: str, fn: Callable[..., Any], *args: Any,
              params: Any = None, progress: bool = True, **kwargs: Any) -> Worker:
    """Run ``fn`` in a thread; results come back to ``node`` as messages.  A job of the same
    name still running on ``node`` is cancelled first."""

    def body() -> Any:
        worker = get_current_worker()
        _enter()
        try:
            # at most one message every PROGRESS_EVERY seconds: each is drawn by the event loop,
            # whose thread takes the GIL from the job's (an attack called this thousands of times
            # and ran 60 % slower than in the CLI).  A call in between is kept and posted when the
            # interval is up, unless a newer one came first: the bar never stays on an old phase
            state: dict[str, Any] = {"last": 0.0, "pending": None, "timer": None}
            lock = threading.Lock()

            def flush() -> None:
                with lock:
                    pending, state["pending"], state["timer"] = state["pending"], None, None
                    if pending is None or worker.is_cancelled:
                        return
                    state["last"] = time.monotonic()
                node.post_message(JobProgress(job, *pending))

            def callback(done: int, total: int, message: str) -> None:
                if worker.is_cancelled:
                    raise Interrupted()
                now = time.monotonic()
                with lock:
                    due = now - state["last"] >= PROGRESS_EVERY or bool(total and done >= total)
                    if due:
                        state["last"], state["pending"] = now, None
                    else:
                        state["pending"] = (done, total, message)
                        if state["timer"] is None:
                            state["timer"] = threading.Timer(PROGRESS_EVERY - (now - state["last"]), flush)
                            state["timer"].daemon = True
                            state["timer"].start()
                if due:
                    node.post_message(JobProgress(job, done, total, message))

            if progress:
                kwargs["progress"] = callback
            try:
                result = fn(*args, **kwargs)
            except Interrupted as exc:
                node.post_message(JobFailed(job, exc, cancelled=True, params=params))
                return None
            except Exception as exc:  # reported in one place, by the screen's JobFailed handler
                node.post_message(JobFailed(job, exc, params=params))
                return None
            if worker.is_cancelled:
                node.post_message(JobFailed(job, None, cancelled=True, params=params))
                return None
            node.post_message(JobFinished(job, result, params))
            return result
        finally:
            timer = state["timer"]
            if timer is not None:
                timer.cancel()
            _leave()

    return node.run_worker(body, name=job, group=job, thread=True, exclusive=True, exit_on_error=False)


def cancel_job(node: DOMNode, job: str) -> None:
    node.workers.cancel_group(node, job)


def job_running(node: DOMNode, job: str) -> bool:
    return any(w.group == job and not w.is_finished for w in node.workers if w.node is node)
