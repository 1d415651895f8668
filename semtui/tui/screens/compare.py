"""``c``: two attack results on the same equivalence group, side by side."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Header

from semtui.tui.components.distance import DistanceView, GroupAttack
from semtui.tui.session import Session


class CompareScreen(Screen):
    HELP_TITLE = "comparison"
    HELP = ("Left: the current result; right: another one (n cycles it); tab switches side. "
            "Keys act on both sides.\nCells: 0.56 a distance (green related … red unrelated); ✗N "
            "eliminated at step N (its distance on the status line when stepping); ● an original "
            "item (t); · no score (an unknown term, or no scored context).")

    DEFAULT_CSS = """
    CompareScreen #sides { height: 1fr; }
    CompareScreen DistanceView { width: 1fr; border: round $panel; border-title-color: $text-accent; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("n", "next_other", "Other result", id="compare.next"),
        Binding("space", "step_forward", "Step", id="compare.step"),
        Binding("backspace", "step_back", "Step back", id="compare.back"),
        Binding("r", "step_reset", "Reset steps", id="compare.reset"),
        Binding("w", "toggle_weighted", "Raw/weighted", id="compare.weighted"),
        Binding("t", "toggle_original", "Original items", id="compare.original"),
        Binding("escape", "close", "Back", id="compare.close"),
        Binding("tab", "other_side", "Other side", show=False, id="compare.tab"),
        Binding("shift+tab", "other_side", "Other side", show=False, id="compare.shift_tab"),
    ]

    def __init__(self, session: Session, label: str) -> None:
        super().__init__()
        self.session = session
        self.label = label
        self.left_index = session.current
        others = [i for i in range(len(session.results)) if i != session.current]
        self.right_index = others[-1]

    def compose(self) -> ComposeResult:
        yield Header(icon="")
        with Horizontal(id="sides"):
            yield DistanceView(id="left", compact=True)
            yield DistanceView(id="right", compact=True)
        yield Footer()

    def on_mount(self) -> None:
        self.title = f"compare — {self.label}"
        self._fill()
        self.query_one("#left", DistanceView).table.focus()

    def _fill(self) -> None:
        for side, index in (("left", self.left_index), ("right", self.right_index)):
            view = self.query_one(f"#{side}", DistanceView)
            result = self.session.results[index]
            view.border_title = f"{index + 1}. {result.label}"
            view.show(GroupAttack.of(result, self.label))

    @property
    def views(self) -> list[DistanceView]:
        return list(self.query(DistanceView))

    def action_other_side(self) -> None:
        left, right = self.views
        (right if left.table.has_focus else left).table.focus()

    def action_next_other(self) -> None:
        others = [i for i in range(len(self.session.results)) if i != self.left_index]
        k = others.index(self.right_index)
        self.right_index = others[(k + 1) % len(others)]
        self._fill()

    def action_step_forward(self) -> None:
        for v in self.views:
            v.step_forward()

    def action_step_back(self) -> None:
        for v in self.views:
            v.step_back()

    def action_step_reset(self) -> None:
        for v in self.views:
            v.step_reset()

    def action_toggle_weighted(self) -> None:
        for v in self.views:
            v.toggle_weighted()

    def action_toggle_original(self) -> None:
        for v in self.views:
            v.toggle_original()

    def action_close(self) -> None:
        self.app.pop_screen()
