"""Messages that long work posts from its thread (``post_message`` is the one safe call).

They name a *job* ("attack", "replay", "export"...), not an attack: any release kind's
screen runs its long work through :mod:`semtui.tui.workers` and gets these back.  Progress
messages are dataclasses whose ``can_replace`` lets a burst coalesce in the queue (Toolong's
approach), so no throttle timer is needed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.message import Message


@dataclass
class JobProgress(Message):
    """``done`` of ``total`` units of job ``job``, doing ``message``."""

    job: str
    done: int
    total: int
    message: str

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, JobProgress) and message.job == self.job


@dataclass
class JobFinished(Message):
    """Job ``job`` returned ``result``; ``params`` are what it was started with."""

    job: str
    result: Any
    params: Any = None


@dataclass
class JobFailed(Message):
    """Job ``job`` raised ``error`` (``cancelled``: it was cancelled or interrupted)."""

    job: str
    error: BaseException | None
    cancelled: bool = False
    params: Any = None
