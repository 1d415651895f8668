"""``e``: where to write the report (the same JSON ``semtui attack setgen --report`` writes)."""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from semtui.errors import InputError
from semtui.tui.components.footer import KeyFooter
from semtui.tui.keys import bindings


class ExportPrompt(ModalScreen[str | None]):
    HELP_TITLE = "export"
    HELP = ("enter writes the report (atomically) to the path, escape cancels; "
            "an existing file is replaced only after a second enter.")

    DEFAULT_CSS = """
    ExportPrompt { align: center middle; }
    ExportPrompt > Vertical {
        width: 70; max-width: 100%; height: auto;
        border: round $accent; background: $surface; padding: 0 1;
    }
    ExportPrompt #warning { color: $warning; height: auto; }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings("export")

    def __init__(self, default: str, title: str = "Export the report as JSON", *,
                 check_exists: bool = True) -> None:
        """``check_exists=False``: a plain one-line prompt (no path checks), e.g. a step number."""
        super().__init__()
        self.default = default
        self.title_text = title
        self.check_exists = check_exists
        self._confirmed: str | None = None  # the existing path a second enter replaces

    def compose(self) -> ComposeResult:
        with Vertical() as box:
            box.border_title = self.title_text
            box.border_subtitle = ("enter writes · escape cancels" if self.check_exists
                                   else "enter goes · escape cancels")
            yield Label("path" if self.check_exists else "value")
            inp = Input(self.default, id="path")
            inp.cursor_blink = False
            yield inp
            yield Static("", id="warning", markup=False)
        yield KeyFooter()  # the modal's own keys, not the screen's beneath

    def on_input_submitted(self, event: Input.Submitted) -> None:
        value = event.value.strip()
        if self.check_exists and value == "-":  # standard output is where the TUI draws
            self.query_one("#warning", Static).update("'-' is standard output, where the TUI draws: give a file name")
            return
        if self.check_exists and value and Path(value).exists() and value != self._confirmed:
            self._confirmed = value
            what = "is a directory" if Path(value).is_dir() else "exists: enter again to replace it"
            self.query_one("#warning", Static).update(f"{value} {what}")
            return
        self.dismiss(value or None)

    def on_input_changed(self) -> None:
        self._confirmed = None
        self.query_one("#warning", Static).update("")

    def action_cancel(self) -> None:
        self.dismiss(None)


def export_report(report, path: Path, private: bool = False) -> Path:
    """In a thread: the report (a document, or a typed report: its ``to_json()``) as the headless
    command writes it (one scored against the original, or made in a session that holds original
    data, is private: 0600)."""
    from semtui import reports
    from semtui.fileio import write_together

    doc = report.to_json() if isinstance(report, reports.Report) else report
    text = reports.dumps(doc)
    private = private or doc.get("original") is not None
    try:
        write_together([(path, lambda fh: fh.write(text + "\n"), private)])
    except OSError as exc:
        raise InputError(f"{path}: {exc.strerror or exc}") from None
    return path
