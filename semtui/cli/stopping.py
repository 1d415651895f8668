"""How a ``semtui`` process stops: SIGINT and SIGTERM raised as KeyboardInterrupt where the run
is (every temporary file removed on the way out), a watchdog for a signal whose unwinding is
held up, a signal caught by a finalizer sent again, and the one way out (:func:`stopped`: the
line "interrupted"/"terminated (after writing ...)", exit 130/143).  :mod:`semtui.cli.main`
installs it around every run (docs/cli.md, Signals)."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time

from semtui.cli import exitcodes

#: the last terminating signal received (SIGINT or SIGTERM), for the exit code
received: list[int] = []
#: set once the command has returned: its outputs are complete, nothing is left to unwind
finished: list[bool] = []
#: seconds a signal's unwinding may take before it is sent again, and again before the process
#: ends anyway (:func:`_watchdog`)
STOP_GRACE = 10.0


def on_signal(signum, frame) -> None:
    """SIGINT and SIGTERM raise KeyboardInterrupt where the program is, so every temporary
    file is removed on the way out (the exit code then tells them apart).  Once the command
    has returned (its outputs committed) there is nothing to unwind: the process says so and
    ends at once, wherever it is (flushing stdout, the interpreter's exit handlers): raised
    there, the KeyboardInterrupt escaped every handler and Python ended by the signal (-2)."""
    received.append(signum)
    if finished:
        stopped()
    quiet = sys.modules.get("semtui.runtime.cluster")
    if quiet is not None:  # Dask's event loop may log the interrupt's effects before its session closes
        quiet.silence_dask()
    _watchdog()
    if _inside(frame, unraisable.__code__):  # raised in the hook below, ignored too: it comes again, later
        _send_again(signum)
        return
    raise KeyboardInterrupt


_watching: list = []
#: held by whichever of the main thread and the watchdog ends the process first
_stopping = threading.Lock()


def _watchdog() -> None:
    """A signal ends the process within 2 x STOP_GRACE seconds, however its KeyboardInterrupt
    fares.  Swallowed by code that catches every exception, or its unwinding held up (a worker
    pool waiting on a pipe no one writes: a run went on 121 s until a second SIGTERM), the
    signal is sent again after STOP_GRACE seconds, as that user did (its interrupt unwinds from
    wherever the run is then, temporary files removed); should that not end it either, the
    process ends as :func:`stopped` ends it, from this thread, with what was committed."""
    if _watching:
        return

    def watch() -> None:
        time.sleep(STOP_GRACE)
        with contextlib.suppress(OSError):
            os.kill(os.getpid(), received[-1] if received else signal.SIGTERM)
        time.sleep(STOP_GRACE)
        stopped(from_thread=True)

    _watching.append(threading.Thread(target=watch, name="semtui-stop-watchdog", daemon=True))
    _watching[0].start()


def _inside(frame, code) -> bool:
    """Whether ``frame`` runs ``code`` or is called from it."""
    while frame is not None:
        if frame.f_code is code:
            return True
        frame = frame.f_back
    return False


def unraisable(hook):
    """``sys.unraisablehook``: a signal whose KeyboardInterrupt was raised inside a finalizer (a
    ``__del__``, a weakref callback), where Python prints "Exception ignored" and goes on -- the
    run went on to exit 0, about 1 signal in 300 under load -- is sent again, to land in the
    code that runs next; anything else goes to the hook it replaced."""
    if isinstance(hook.exc_value, KeyboardInterrupt) and received:
        _send_again(received[-1])
        return
    (previous_hooks[-1] if previous_hooks else sys.__unraisablehook__)(hook)


#: the unraisable hooks :func:`run` replaced (one a run, innermost last), the last of which gets
#: every other unraisable exception
previous_hooks: list = []


def _send_again(signum: int) -> None:
    """``signum`` to this process again in a moment, from a thread: the code that runs then
    handles it (should it be a finalizer again, the hook sends it once more)."""
    import threading

    def later() -> None:
        time.sleep(0.005)
        os.kill(os.getpid(), signum)

    threading.Thread(target=later, name="semtui-signal-again", daemon=True).start()


def stopped(from_thread: bool = False) -> None:
    """Interrupted or terminated: every temporary file was removed on the way here; say so
    and leave at once (no second interrupt can land in the interpreter's shutdown).
    ``from_thread``: the watchdog, whose thread cannot change the handlers (a second signal in
    the main thread meanwhile calls this too: whichever comes first ends the process)."""
    if not from_thread:
        for sig in (signal.SIGINT, signal.SIGTERM):  # a second one cannot cut this short
            signal.signal(sig, signal.SIG_IGN)
    if not _stopping.acquire(blocking=False):  # the other one is ending the process: it says so
        while True:
            time.sleep(1)
    from semtui.fileio import committed, remove_process_scratch

    # the executor only if the run used it: imported now, in the interpreter's exit handlers, it
    # would fail (concurrent.futures registers an exit handler on import); not imported, this
    # process started no helper and multiprocessing made no folder for it
    executor = sys.modules.get("semtui.runtime.executor")
    try:  # none of our helpers writes into a scratch folder after its removal
        if executor is not None:
            executor.stop_descendants()
    except Exception:  # the way out must not fail; PR_SET_PDEATHSIG still ends them
        pass
    remove_process_scratch(*(executor.process_folder() if executor is not None else []))  # os._exit below skips the exit handlers that would
    term = bool(received) and received[-1] == signal.SIGTERM
    done = committed()  # an interrupt after the commit: the outputs are complete and new
    say(("semtui: terminated" if term else "semtui: interrupted")
         + (f" (after writing {', '.join(done)})" if done else ""))
    # what was printed goes out, but a reader that takes nothing (a full pipe) cannot hold
    # the exit: the flush gets a second
    import threading

    flusher = threading.Thread(target=_flush_stdout, daemon=True)
    flusher.start()
    flusher.join(1.0)
    os._exit(exitcodes.TERMINATED if term else exitcodes.INTERRUPTED)


def _flush_stdout() -> None:
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass


def say(line: str) -> None:
    """One line on stderr (a name of megabytes is cut short); a closed stderr is not an error
    of its own."""
    line = line.replace("\n", " ")
    if len(line) > 2000:
        line = line[:1999] + "…"
    try:
        sys.stderr.write(line + "\n")
        sys.stderr.flush()
    except (OSError, ValueError):
        pass
