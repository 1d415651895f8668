"""A modal that says what went wrong, instead of a crash."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from semtui.tui.components.footer import KeyFooter
from semtui.tui.keys import bindings


class ErrorModal(ModalScreen[None]):
    DEFAULT_CSS = """
    ErrorModal { align: center middle; }
    ErrorModal > Vertical {
        width: 70; max-width: 100%; height: auto; max-height: 90%;
        border: thick $error; background: $surface; padding: 0 1;
    }
    ErrorModal #message { margin: 1 0; }
    ErrorModal Button { width: 100%; }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings("error")

    def __init__(self, title: str, message: str) -> None:
        super().__init__()
        self.title_text = title
        self.message = message

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = self.title_text
            yield Static(self.message, id="message", markup=False)
            yield Button("OK", variant="error", id="ok")
        yield KeyFooter()  # the modal's own keys, not the screen's beneath

    def on_button_pressed(self) -> None:
        self.dismiss(None)

    def action_dismiss(self) -> None:
        self.dismiss(None)
