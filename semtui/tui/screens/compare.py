"""``c``: two attack results on the same equivalence group, side by side."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Header

from semtui.tui.components.distance import DistanceView, GroupAttack
from semtui.tui.components.footer import KeyFooter
from semtui.tui.keys import bindings
from semtui.tui.session import Session
from semtui.tui.text import elide_str


class CompareScreen(Screen):
    HELP_TITLE = "comparison"
    HELP = ("Left: the current result; right: another one (n cycles it); tab switches side. "
            "Keys act on both sides; the cursors move together. an underlined cell is one that one result eliminates "
            "and the other keeps.\nCells: 0.56 a distance (green related … red unrelated); ✗N "
            "eliminated at step N (its distance on the status line when stepping); ● an original "
            "item (t); · no score (an unknown term, or no scored context).")

    DEFAULT_CSS = """
    CompareScreen #sides { height: 1fr; }
    CompareScreen DistanceView { width: 1fr; border: round $panel; border-title-color: $text-accent; }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings("compare")

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
        yield KeyFooter()

    def on_mount(self) -> None:
        self.title = f"compare — {elide_str(self.label, max(self.app.size.width - 30, 20))}"
        self._fill()
        self.query_one("#left", DistanceView).table.focus()

    def _fill(self) -> None:
        results = self.session.results
        left_r, right_r = results[self.left_index], results[self.right_index]
        attacks = {}
        for side, index, other in (("left", self.left_index, right_r), ("right", self.right_index, left_r)):
            view = self.query_one(f"#{side}", DistanceView)
            result = results[index]
            view.border_title = f"{index + 1}. {result.options_text(other)}"
            attacks[side] = GroupAttack.of(result, self.label)
            view.show(attacks[side])
        differs = differing_cells(attacks["left"], attacks["right"])
        steps = max((a.n_steps for a in attacks.values() if a is not None), default=0)
        for side in ("left", "right"):
            view = self.query_one(f"#{side}", DistanceView)
            view.differs = differs
            view.peer_steps = steps  # the same cell width on both sides: the columns line up
            view.redraw()
        self.sub_title = f"{len(differs):,} differ"

    def on_distance_view_cursor_moved(self, message: DistanceView.CursorMoved) -> None:
        """Linked cursors: the other side follows to the same row (and column)."""
        for v in self.views:
            if v is not message.view and v.table.cursor_row != message.row and v.table.row_count:
                v.table.move_to(message.row)
                v.table.cursor_col = min(message.view.table.cursor_col, len(v.table.columns) - 1)

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

    def action_wrap(self) -> None:
        """``z``: both cursor rows drawn whole (the context wrapped), or not."""
        on = not self.views[0].table.wrap
        for v in self.views:
            v.table.set_wrap(on)


def differing_cells(a: GroupAttack | None, b: GroupAttack | None) -> set[tuple[int, int]]:
    """(row, column) cells one result eliminates and the other does not (same group, same rows)."""
    if a is None or b is None:
        return set()
    if [r.get("line") for r in a.group.get("rows", [])] != [r.get("line") for r in b.group.get("rows", [])]:
        return set()  # rows do not line up (different contexts kept different rows)
    ea = {(e["row"], e["column"]) for e in a.eliminations}
    eb = {(e["row"], e["column"]) for e in b.eliminations}
    return ea ^ eb
