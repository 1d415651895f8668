"""Messages the attack worker posts from its thread (``post_message`` is the one safe call)."""

from __future__ import annotations

from textual.message import Message


class AttackProgress(Message):
    def __init__(self, done: int, total: int, message: str) -> None:
        self.done, self.total, self.message = done, total, message
        super().__init__()


class AttackFinished(Message):
    """A report came back; ``params`` are the form's values that produced it."""

    def __init__(self, report: dict, params: dict) -> None:
        self.report, self.params = report, params
        super().__init__()
