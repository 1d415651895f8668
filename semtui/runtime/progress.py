"""Progress reporting: the engine calls a plain callback, the faces draw it.

A callback takes ``(done, total, message)``; ``total`` may be 0 when unknown.
It may raise :class:`semtui.errors.Interrupted` to cancel the work.
"""

from __future__ import annotations

from collections.abc import Callable

ProgressCallback = Callable[[int, int, str], None]


def no_progress(done: int, total: int, message: str = "") -> None:
    """The default callback: report nothing."""
