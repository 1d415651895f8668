"""The main screen: the list pane (groups / clusters / transactions) and the detail pane."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container
from textual.screen import Screen
from textual.widgets import Footer, Header, Input

from semtui.model import DisassociatedData
from semtui.tui.components.detail import DetailPane
from semtui.tui.components.lists import ListPane, source_for
from semtui.tui.components.vtable import VirtualTable
from semtui.tui.session import Session

LIST_TITLES = {"group": "Equivalence groups", "cluster": "Clusters", "transaction": "Transactions"}


class FilterBar(Input):
    """``/``: filters the list as you type; enter keeps the filter, escape clears it."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "clear", "Clear filter", id="filter.clear")]

    def action_clear(self) -> None:
        self.value = ""
        self.screen.close_filter()


class MainScreen(Screen):
    HELP_TITLE = "main screen"
    HELP = (
        "Left/top: the equivalence groups (or clusters, or transactions). "
        "Right/bottom: what the highlighted one holds. tab switches pane."
    )
    DEFAULT_CSS = """
    MainScreen #body { layout: vertical; height: 1fr; }
    MainScreen.-wide #body { layout: horizontal; }
    MainScreen #list, MainScreen #detail { border: round $panel; border-title-color: $text-accent; }
    MainScreen #list:focus, MainScreen #detail:focus { border: round $accent; }
    MainScreen #list { height: 1fr; width: 1fr; }
    MainScreen #detail { height: 1fr; width: 1fr; }
    MainScreen FilterBar { dock: bottom; display: none; height: 3; }
    MainScreen FilterBar.-open { display: block; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "filter", "Filter", id="main.filter"),
        Binding("tab", "focus_next", "Next pane", show=False, id="main.next_pane"),
        Binding("shift+tab", "focus_previous", "Previous pane", show=False, id="main.prev_pane"),
    ]

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session

    def compose(self) -> ComposeResult:
        yield Header(show_clock=False, icon="")
        source = source_for(self.session)
        with Container(id="body"):
            lst = ListPane(self.session, source, id="list")
            lst.border_title = LIST_TITLES[source.noun]
            yield lst
            yield DetailPane(self.session, id="detail")
        bar = FilterBar(placeholder="filter (enter keeps it, escape clears it)", id="filter")
        bar.cursor_blink = False  # steady, and snapshots stay stable
        yield bar
        yield Footer()

    @property
    def list_pane(self) -> ListPane:
        return self.query_one("#list", ListPane)

    @property
    def detail(self) -> DetailPane:
        return self.query_one("#detail", DetailPane)

    def on_mount(self) -> None:
        kind = self.session.kind
        self.title = f"semtui — {self.session.path.name}"
        extra = " + key" if isinstance(self.session.data, DisassociatedData) and self.session.key else ""
        self.sub_title = f"{kind}{extra}"
        self.list_pane.focus()
        self.detail.show(self.list_pane.current)
        self._layout(self.app.size.width)

    def on_resize(self, event) -> None:
        self._layout(event.size.width)

    def _layout(self, width: int) -> None:
        self.set_class(width >= 140, "-wide")

    def on_virtual_table_highlighted(self, event: VirtualTable.Highlighted) -> None:
        if event.table is self.list_pane:
            current = self.list_pane.current
            if current != self.detail.showing:
                self.detail.show(current)

    def on_virtual_table_selected(self, event: VirtualTable.Selected) -> None:
        if event.table is self.list_pane:
            self.detail.focus()

    # -- filter -------------------------------------------------------------
    def action_filter(self) -> None:
        bar = self.query_one(FilterBar)
        bar.add_class("-open")
        bar.value = self.list_pane.filter_text
        bar.focus()

    def close_filter(self) -> None:
        self.query_one(FilterBar).remove_class("-open")
        self.list_pane.focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        if isinstance(event.input, FilterBar):
            self.list_pane.set_filter(event.value)
            self.detail.show(self.list_pane.current)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if isinstance(event.input, FilterBar):
            self.close_filter()
