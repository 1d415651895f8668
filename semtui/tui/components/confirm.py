"""A yes/no question before a key loses something (lazygit's habit)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from semtui.tui.components.footer import KeyFooter
from semtui.tui.keys import bindings


class Confirm(ModalScreen[bool]):
    DEFAULT_CSS = """
    Confirm { align: center middle; }
    Confirm > Vertical {
        width: 64; max-width: 100%; height: auto;
        border: thick $warning; background: $surface; padding: 0 1;
    }
    Confirm #question { margin: 1 0; }
    Confirm Horizontal { height: auto; align-horizontal: right; }
    Confirm Button { margin-left: 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings("confirm")

    def __init__(self, question: str, *, yes: str = "Yes, quit") -> None:
        super().__init__()
        self.question = question
        self.yes_label = yes

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Are you sure?"
            box.border_subtitle = "y / q yes · n / escape no"
            yield Static(self.question, id="question", markup=False)
            with Horizontal():
                yield Button("No", id="no", compact=True)
                yield Button(self.yes_label, variant="warning", id="yes", compact=True)
        yield KeyFooter()  # the modal's own keys, not the screen's beneath

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")
