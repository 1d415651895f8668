"""``x``: the items at risk — every member item of every generalised item, with its cover
before and after the attack (VisiData's frequency sheet as a model): sortable, and ``enter``
goes to the item's equivalence group.

Cover before = the transactions of the group (any of them may hold the item); after = those
in which the attack left it possible.  An item is *exposed* when its cover after falls below
the k the report was judged with.
"""

from __future__ import annotations

from typing import ClassVar

import numpy as np
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.screen import Screen
from textual.widgets import Header, Static

from semtui.tui.components.footer import KeyFooter
from semtui.tui.components.vtable import Column, VirtualTable
from semtui.tui.keys import GLOSSARY, bindings, only
from semtui.tui.session import Session
from semtui.tui.text import elide_str, ratio
from semtui.wording import exposure_words


class ItemsTable(VirtualTable):
    BINDINGS: ClassVar[list[BindingType]] = only("table.sort_asc", "table.sort_desc")

    def __init__(self, rows: dict[str, np.ndarray | list], **kw) -> None:
        super().__init__(empty="the report lists no groups", **kw)
        self.data = rows
        self.n = len(rows["item"])
        self.order = np.arange(self.n)
        self.pinned = 1

    def action_sort(self, descending: bool) -> None:
        key = list(self.data)[self.cursor_col] if self.cursor_col < len(self.data) else "item"
        keep = int(self.order[self.cursor_row]) if self.row_count else 0
        values = self.data[key]
        if isinstance(values, list):
            idx = sorted(range(self.n), key=values.__getitem__, reverse=descending)
            self.order = np.asarray(idx, dtype=np.int64)
        else:
            self.order = np.argsort(-values if descending else values, kind="stable")
        self.sort_marks = {self.cursor_col: " ▼" if descending else " ▲"}
        self.fill()
        self.move_to(int(np.flatnonzero(self.order == keep)[0]))

    def fill(self) -> None:
        d = self.data

        def row(v: int):
            i = int(self.order[v])
            exposed = bool(d["exposed"][i])
            return [d["item"][i], d["group"][i], f"{int(d['before'][i]):,}", f"{int(d['after'][i]):,}",
                    ratio(float(d['share'][i])), Text("exposed", style="bold red") if exposed else ""]

        width = max((len(f"{int(x):,}") for x in d["before"]), default=1)
        cols = [Column("item", "item", None, min_width=12), Column("group", "group", None, min_width=12),
                Column("before", "before", max(width, 6), "right"), Column("after", "after", max(width, 5), "right"),
                Column("share", "kept", 4, "right"), Column("exposed", "exposed", 7)]
        self.set_rows(self.n, row, cols, cursor=self.cursor_row)


def risk_rows(session: Session) -> tuple[dict, int | None]:
    """The items view's columns (parallel arrays) and the k of the current report."""
    result = session.result
    rep = result.report
    k = (rep.get("privacy") or {}).get("k")
    items, groups, before, after, exposed, gid = [], [], [], [], [], []
    for grp in rep.get("groups", []):
        size = grp.get("size", len(grp.get("rows", [])))
        possible = grp.get("possible", {})
        out = set(grp.get("exposed", []))
        for m in grp.get("members", []):
            items.append(m)
            groups.append(grp["generalised_item"])
            before.append(size)
            after.append(possible.get(m, size))
            exposed.append(m in out)
            gid.append(grp.get("id", -1))
    b, a = np.asarray(before, dtype=np.int64), np.asarray(after, dtype=np.int64)
    rows = {"item": items, "group": groups, "before": b, "after": a,
            "share": np.where(b > 0, a / np.maximum(b, 1), 0.0), "exposed": np.asarray(exposed, dtype=bool),
            "gid": np.asarray(gid, dtype=np.int64)}
    return rows, k


class RiskScreen(Screen[int | None]):
    """Returns the equivalence group to go to, or None."""

    HELP_TITLE = "items at risk"
    HELP = ("Every member item with its cover before and after the attack; [ ] sort by the current "
            "column, enter goes to the item's group. " + GLOSSARY["exposed"])

    DEFAULT_CSS = """
    RiskScreen #risk-status { height: auto; padding: 0 1; background: $boost; }
    RiskScreen ItemsTable { border: round $accent; border-title-color: $text-accent; }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings("risk")

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        self.rows, self.k = risk_rows(session)

    def compose(self) -> ComposeResult:
        yield Header(icon="")
        n_exp = int(self.rows["exposed"].sum())
        priv = self.session.result.report.get("privacy") or {}
        status = Static(exposure_words(n_exp, len(self.rows["item"]), self.k, priv.get("k_source"),
                                       priv.get("reidentified_rows"))
                        + " · most at risk first · enter goes to its group", id="risk-status", markup=False)
        status.tooltip = GLOSSARY["k"]
        yield status
        table = ItemsTable(self.rows, id="items")
        table.border_title = "Items at risk"
        yield table
        yield KeyFooter()

    def on_mount(self) -> None:
        self.title = f"items at risk — {elide_str(self.session.result.label, max(self.app.size.width - 30, 20))}"
        table = self.query_one(ItemsTable)
        # most at risk first: exposed, then the smallest cover after the attack
        d = self.rows
        table.order = np.lexsort((d["after"], ~d["exposed"]))
        table.fill()
        table.focus()

    def action_open_group(self) -> None:
        table = self.query_one(ItemsTable)
        if table.row_count:
            self.dismiss(int(self.rows["gid"][int(table.order[table.cursor_row])]))

    def on_virtual_table_selected(self, event: VirtualTable.Selected) -> None:
        event.stop()
        self.action_open_group()

    def action_close(self) -> None:
        self.dismiss(None)

    def action_wrap(self) -> None:
        """``z``: the cursor row drawn whole (a long item or group name wrapped), or not."""
        table = self.query_one(ItemsTable)
        table.set_wrap(not table.wrap)
