"""``e``: where to write the report (the same JSON ``semtui attack setgen --report`` writes)."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label


class ExportPrompt(ModalScreen[str | None]):
    HELP_TITLE = "export"
    HELP = "enter writes the report (atomically) to the path, escape cancels."

    DEFAULT_CSS = """
    ExportPrompt { align: center middle; }
    ExportPrompt > Vertical {
        width: 70; max-width: 100%; height: auto;
        border: round $accent; background: $surface; padding: 0 1;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "cancel", "Cancel", id="export.cancel")]

    def __init__(self, default: str) -> None:
        super().__init__()
        self.default = default

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = "Export the report as JSON"
            box.border_subtitle = "enter writes · escape cancels"
            yield Label("path")
            inp = Input(self.default, id="path")
            inp.cursor_blink = False
            yield inp

    def on_input_submitted(self, event: Input.Submitted) -> None:
        value = event.value.strip()
        self.dismiss(value or None)

    def action_cancel(self) -> None:
        self.dismiss(None)
