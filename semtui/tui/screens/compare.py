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
            # the options that differ, background and knowledge among them
            view.border_title = f"{index + 1}. {result.options_text(other)}"
            attacks[side] = GroupAttack.of(result, self.label)
            view.show(attacks[side])
        left_differs, right_differs = differing_sides(attacks["left"], attacks["right"])
        steps = max((a.n_steps for a in attacks.values() if a is not None), default=0)
        for side, differs in (("left", left_differs), ("right", right_differs)):
            view = self.query_one(f"#{side}", DistanceView)
            view.differs = differs
            view.peer_steps = steps  # the same cell width on both sides: the columns line up
            view.redraw()
        self.sub_title = differ_words(attacks["left"], attacks["right"], len(left_differs))

    def on_distance_view_cursor_moved(self, message: DistanceView.CursorMoved) -> None:
        """Linked cursors: the other side follows to the same transaction (its row there, which
        need not be at the same place: one attack may score rows the other cannot), and column."""
        src = message.view
        if src.attack is None or not src.table.row_count:
            return
        if message.row != src.table.cursor_row:
            # stale: that side's cursor has moved since (this screen moved it, to follow the
            # other side). Following it would move the other side back, whose message would
            # move this one again: the two sides chased each other for seconds on every key
            return
        rows = src.attack.group.get("rows", [])
        i = src.row_index(message.row)
        t = _tkey(rows[i]) if 0 <= i < len(rows) else None
        for v in self.views:
            if v is src or v.attack is None or not v.table.row_count:
                continue
            where = row_of(v.attack).get(t)
            if where is None:
                continue  # not a row of the other attack: it stays where it is
            target = v.view_row(where)
            if v.table.cursor_row != target:
                v.table.move_to(target)
            v.table.cursor_col = min(src.table.cursor_col, len(v.table.columns) - 1)

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


def _tkey(r: dict):
    """A row's transaction (an older report without it: its line)."""
    return r["transaction"] if "transaction" in r else ("line", r.get("line"))


def row_of(a: GroupAttack) -> dict:
    """Each transaction's row in one attack's table of the group."""
    return {_tkey(r): i for i, r in enumerate(a.group.get("rows", []))}


def differing_sides(a: GroupAttack | None, b: GroupAttack | None) -> tuple[set, set]:
    """The (row, column) cells one result eliminates and the other keeps, on each side's own
    rows, matched by transaction: the two attacks need not score the same rows (a background
    scores rows the measure alone cannot), so a row is compared with the same transaction's."""
    if a is None or b is None:
        return set(), set()
    ta = [_tkey(r) for r in a.group.get("rows", [])]
    tb = [_tkey(r) for r in b.group.get("rows", [])]
    rb = row_of(b)
    ea = {(ta[e["row"]], e["column"]) for e in a.eliminations}
    eb = {(tb[e["row"]], e["column"]) for e in b.eliminations}
    both = set(ta) & set(tb)
    diff = {(t, j) for t, j in ea ^ eb if t in both}
    ra = row_of(a)
    return {(ra[t], j) for t, j in diff}, {(rb[t], j) for t, j in diff}


def differing_cells(a: GroupAttack | None, b: GroupAttack | None) -> set[tuple[int, int]]:
    """(row, column) cells of ``a``'s table that one result eliminates and the other does not."""
    return differing_sides(a, b)[0]


def differ_words(a: GroupAttack | None, b: GroupAttack | None, n: int) -> str:
    """The comparison's count, and the rows only one side scores (never a silent 0)."""
    words = f"{n:,} differ"
    if a is None or b is None:
        return words + " · the group is not in both results"
    ta = {_tkey(r) for r in a.group.get("rows", [])}
    tb = {_tkey(r) for r in b.group.get("rows", [])}
    only_a, only_b = len(ta - tb), len(tb - ta)
    if only_a or only_b:
        words += (f" on the {len(ta & tb):,} rows both score · {only_a:,} rows only left, {only_b:,} only right "
                  "(not compared)")
    return words
