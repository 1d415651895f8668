"""The TUI's job runner (semtui/tui/workers.py): a job's progress reaches the screen at most
every PROGRESS_EVERY seconds -- each message is drawn by the event loop, which takes the GIL
from the job (an attack that reported progress thousands of times ran 60 % slower in the TUI
than in the CLI, issue 39) -- yet the last word of a long phase is never lost."""

from __future__ import annotations

import time

from textual.app import App

from semtui.tui import workers
from semtui.tui.messages import JobFinished, JobProgress


class Recorder(App):
    def __init__(self) -> None:
        super().__init__()
        self.seen: list[tuple[int, int, str]] = []
        self.finished = False

    def on_job_progress(self, message: JobProgress) -> None:
        self.seen.append((message.done, message.total, message.message))

    def on_job_finished(self, message: JobFinished) -> None:
        self.finished = True


def chatty(progress) -> str:
    """10,000 calls in a burst, then a phase that lasts without another call, then the end."""
    for i in range(10_000):
        progress(i, 10_000, "burst")
    progress(3, 10, "a long phase")
    time.sleep(4 * workers.PROGRESS_EVERY)
    progress(10, 10, "done")
    return "ok"


async def test_a_burst_of_progress_is_thinned_and_a_long_phase_is_still_shown():
    app = Recorder()
    async with app.run_test() as pilot:
        started = time.monotonic()
        workers.start_job(app, "chatty", chatty)
        await app.workers.wait_for_complete()
        took = time.monotonic() - started
        for _ in range(5):
            await pilot.pause()
        assert app.finished
        # thinned: about one message per interval (the burst's first, the phase, the last)
        assert 2 <= len(app.seen) <= took / workers.PROGRESS_EVERY + 3, app.seen
        # the phase that lasted was shown while it lasted, and the last call came through
        assert (3, 10, "a long phase") in app.seen
        assert app.seen[-1] == (10, 10, "done")
