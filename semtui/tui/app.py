"""The Textual app and ``run_tui``, which the CLI calls for ``semtui open`` and plain ``semtui``."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.app import App
from textual.binding import Binding, BindingType

from semtui.tui.commands import ActionsProvider
from semtui.tui.components.help import HelpScreen, describe_keys
from semtui.tui.components.modal import ErrorModal
from semtui.tui.screens.main import MainScreen
from semtui.tui.session import Session, load_session


class SemtuiApp(App[None]):
    """Opens one :class:`Session`; every screen reads it, only workers add results to it."""

    TITLE = "semtui"
    COMMANDS = App.COMMANDS | {ActionsProvider}
    ENABLE_COMMAND_PALETTE = True
    #: toasts sit over the bottom rows of the table: keep them short
    NOTIFICATION_TIMEOUT = 2.5

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("question_mark,f1", "help", "Help", id="app.help"),
        Binding("q", "close", "Close / quit", id="app.close"),
        Binding("ctrl+q", "quit", "Quit", priority=True, id="app.quit"),
        Binding("ctrl+p", "command_palette", "Commands", show=False, id="app.palette"),
    ]

    def __init__(self, session: Session, *, attack_defaults: dict | None = None, **kw) -> None:
        """``attack_defaults`` prefill the attack form (e.g. a ``scores:FILE`` measure)."""
        super().__init__(**kw)
        self.session = session
        self.attack_defaults = attack_defaults

    def on_mount(self) -> None:
        self.push_screen(MainScreen(self.session, self.attack_defaults))

    def action_help(self) -> None:
        screen = self.screen
        if isinstance(screen, HelpScreen):
            return
        name = getattr(screen, "HELP_TITLE", type(screen).__name__)
        self.push_screen(HelpScreen(f"Keys — {name}", describe_keys(screen), getattr(screen, "HELP", "")))

    def action_close(self) -> None:
        """``q``: close the current screen; on the main screen, quit."""
        if len(self.screen_stack) <= 2:
            self.exit()
        else:
            self.pop_screen()

    def show_error(self, title: str, message: str) -> None:
        self.push_screen(ErrorModal(title, message))


def run_tui(
    file: Path,
    *,
    original: Path | None = None,
    report: Path | None = None,
    key: Path | None = None,
) -> None:
    """Load and check every file first (bad input raises InputError), then run the app."""
    session = load_session(Path(file), original=original, report=report, key=key)
    SemtuiApp(session).run()
