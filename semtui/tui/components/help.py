"""``?`` / ``F1``: every key of the screen it was opened from, read from its live bindings."""

from __future__ import annotations

from typing import ClassVar

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from semtui.tui.components.footer import KeyFooter
from semtui.tui.keys import bindings


def describe_keys(screen) -> list[tuple[str, str]]:
    """(keys, description) for every active binding of ``screen``, shown or not."""
    by_action: dict[tuple[int, str], tuple[list[str], str]] = {}
    for key, active in screen.active_bindings.items():
        b = active.binding
        if b.action in ("help", "command_palette") and key not in ("question_mark", "f1", "ctrl+p"):
            continue
        label = b.description or b.action.replace("_", " ")
        if not active.enabled:
            label += " (not now)"
        shown = screen.app.get_key_display(b) if b.key == key else key
        entry = by_action.setdefault((id(active.node), b.action), ([], label))
        if shown not in entry[0]:
            entry[0].append(shown)
    # the screen's own actions first, then the app's, then moving around in the focused pane
    nodes = {ident: (0 if node is screen else 1 if node is screen.app else 2)
             for ident, node in ((id(a.node), a.node) for a in screen.active_bindings.values())}
    ranked = sorted(by_action.items(), key=lambda item: nodes.get(item[0][0], 2))
    return [(" ".join(keys), label) for _, (keys, label) in ranked]


class HelpScreen(ModalScreen[None]):
    """A list of keys; any of escape, q, ? or F1 closes it."""

    DEFAULT_CSS = """
    HelpScreen { align: center middle; }
    HelpScreen > VerticalScroll {
        width: 64; max-width: 100%; height: auto; max-height: 90%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings("help")

    def __init__(self, title: str, keys: list[tuple[str, str]], intro: str = "") -> None:
        super().__init__()
        self.title_text = title
        self.keys = keys
        self.intro = intro

    def compose(self) -> ComposeResult:
        table = Table.grid(padding=(0, 2))
        table.add_column(style="bold", no_wrap=True)
        table.add_column()
        for keys, label in self.keys:
            table.add_row(keys, label)
        with VerticalScroll() as box:
            # the screen's keys scroll it, at once (a focused VerticalScroll would animate
            # ``end`` over a second, which reads as "needs two presses")
            box.can_focus = False
            box.border_title = self.title_text
            box.border_subtitle = "escape closes"
            if self.intro:
                yield Static(Text(self.intro, style="italic"))
            yield Static(table, id="keys")
        yield KeyFooter()  # the modal's own keys, not the screen's beneath

    def action_dismiss(self) -> None:
        self.dismiss(None)

    def action_top(self) -> None:
        self.query_one(VerticalScroll).scroll_home(animate=False)

    def action_bottom(self) -> None:
        # one press: Textual's own ``end`` also scrolls sideways first when at the top
        self.query_one(VerticalScroll).scroll_end(animate=False, x_axis=False)

    def action_scroll(self, lines: int) -> None:
        self.query_one(VerticalScroll).scroll_relative(y=lines, animate=False)
