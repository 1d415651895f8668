"""The attack's progress in place: what it is doing, a bar with ETA, and how to cancel."""

from __future__ import annotations

import time

from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.widgets import Label, ProgressBar


class AttackProgressBar(Horizontal):
    DEFAULT_CSS = """
    AttackProgressBar { height: 1; display: none; background: $boost; padding: 0 1; }
    AttackProgressBar.-running { display: block; }
    AttackProgressBar > #what { width: auto; max-width: 65%; margin-right: 1; }  /* what it is doing moves: keep it */
    AttackProgressBar > ProgressBar { width: 1fr; }
    AttackProgressBar Bar { width: 1fr; min-width: 8; }  /* the ETA and percentage keep their room */
    AttackProgressBar > #hint { width: auto; color: $text-muted; }
    """

    def compose(self) -> ComposeResult:
        yield Label("", id="what")
        yield ProgressBar(total=None, show_eta=True, id="bar")
        yield Label(" esc cancels", id="hint")

    def start(self, title: str) -> None:
        self.started = time.monotonic()
        self.title = title
        self.is_cancelling = False
        self.query_one("#what", Label).update(title)
        self.query_one(ProgressBar).update(total=None, progress=0)
        self.query_one("#hint", Label).update(" esc cancels")
        self.add_class("-running")

    def update(self, title: str, done: int, total: int, message: str) -> None:
        if getattr(self, "is_cancelling", False):
            return  # the work's last reports before it sees the cancel: keep saying so
        # what it is doing first: that is what moves, and a cut falls on the attack's name
        self.query_one("#what", Label).update(f"{message} · {title}" if message else title)
        self.query_one(ProgressBar).update(total=total or None, progress=done)

    def cancelling(self) -> None:
        """Escape was pressed: say so at once (the work stops at its next progress report,
        within a fraction of a second, docs/performance.md)."""
        self.is_cancelling = True
        self.query_one("#what", Label).update(f"cancelling… · {getattr(self, 'title', '')}")
        self.query_one("#hint", Label).update("")

    def stop(self) -> None:
        self.remove_class("-running")

    @property
    def running(self) -> bool:
        return self.has_class("-running")
