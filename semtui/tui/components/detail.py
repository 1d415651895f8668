"""The detail pane: what is inside the highlighted group, cluster or transaction.

* an equivalence group: its transactions, the generalised item standing out;
* a cluster: every record chunk's sub-records, then the term chunk (with the original
  transaction of each, when the private key is open);
* a plain transaction: its items, one per line.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text

from semtui.model import DisassociatedData, TransactionData, token_label
from semtui.release import DISASSOC, PLAIN
from semtui.tui.components.cells import Cell
from semtui.tui.components.lists import highlight_matches, transaction_text
from semtui.tui.components.vtable import Column, VirtualTable
from semtui.tui.session import Session
from semtui.tui.text import elide_str, plural


class DetailPane(VirtualTable):
    """One :class:`VirtualTable` whose rows follow the left pane's cursor."""

    def __init__(self, session: Session, **kw) -> None:
        super().__init__(empty="nothing highlighted", **kw)
        self.session = session
        self.showing: int | None = None
        #: show each transaction as the current attack left it (``b``)
        self.believed = False
        #: the search text: its matches are highlighted, ``n``/``N`` move between them
        self.needle = ""
        self._rows = None  # transaction index of each row (an equivalence group)
        #: a cluster's view (``chunks``, ``subrecords``, ``recon``) and the items marked in it
        self.cluster_view = "chunks"
        self.marked: frozenset[str] = frozenset()
        self._cluster_index = None

    def show(self, index: int | None, needle: str = "") -> None:
        """Show entity ``index`` of the dataset (a group, cluster or transaction)."""
        if index != self.showing:
            self.marked = frozenset()  # a cover problem's items belong to its cluster
        self.showing = index
        self.needle = needle
        self._rows = None
        self.highlight = (lambda text: highlight_matches(text, needle)) if needle else None
        data = self.session.data
        if index is None:
            self.set_rows(0, lambda i: (), [Column("x", "", None)])
            self.border_title = "Detail"
            self.border_subtitle = f"nothing matches “{needle}”" if needle else ""
            self.empty_message = f"nothing matches “{needle}”" if needle else "nothing highlighted"
            return
        show = {DISASSOC: self._show_cluster, PLAIN: self._show_transaction}.get(self.session.release.family,
                                                                                 self._show_group)
        show(data, index)

    # ------------------------------------------------------------------ search and inspect
    def is_match(self, row: int) -> bool:
        if not self.needle or not (0 <= row < self.row_count):
            return False
        needle = self.needle.casefold()
        return any(needle in t.casefold() for t in self.row_texts(row))

    def next_match(self, direction: int) -> bool:
        """Move to the next (``direction`` 1) or previous (-1) row that matches; False if none
        is left that way."""
        r = self.cursor_row + direction
        while 0 <= r < self.row_count:
            if self.is_match(r):
                self.move_to(r)
                return True
            r += direction
        return False

    def inspect(self, row: int):
        """(title, renderable) of the inspector for ``row``."""
        from semtui.tui.components.inspector import describe_transaction

        data = self.session.data
        if self._rows is not None:
            return describe_transaction(self.session, int(self._rows[row]), self.showing, self.needle)
        if isinstance(data, TransactionData) and self.showing is not None and not data.n_generalised:
            return describe_transaction(self.session, self.showing, None, self.needle)
        return self.border_title or "Detail", self.row_lines(row)

    def _show_group(self, data: TransactionData, g: int) -> None:
        rows = data.group(g)
        self._rows = rows

        believed = self.believed and self.session.result is not None
        if believed:
            from semtui.tui.components.inspector import attacked_text

        def row(i: int) -> Sequence[Cell]:
            t = int(rows[i])
            line = data.line_of(t)
            text = attacked_text(self.session, t) if believed else transaction_text(data, t, g)
            return [str(line), text]

        width = max(len(str(data.line_of(data.n_transactions - 1))) if data.n_transactions else 1, 4)
        label = "what the attacker now believes (b: the released one)" if believed else "transaction"
        self.set_rows(len(rows), row, [Column("line", "line", width, "right"), Column("tx", label, None)],
                      cursor=self.cursor_row if self.showing == g else 0)
        # a long label loses its middle (the border would cut its end)
        room = max((self.parent.size.width if self.parent is not None else 80) - 24, 20)
        self.border_title = f"Transactions of {elide_str(self.session.display_label(g), room)}"
        self.border_subtitle = plural(len(rows), "transaction")

    @property
    def cluster_index(self):
        if self._cluster_index is None:
            from semtui.tui.components.clusters import ClusterIndex

            self._cluster_index = ClusterIndex(self.session)
        return self._cluster_index

    def _show_cluster(self, data: DisassociatedData, c: int) -> None:
        from semtui.tui.components.clusters import show_cluster

        show_cluster(self, self.session, self.cluster_index, c, self.cluster_view, self.marked)

    def _show_transaction(self, data: TransactionData, t: int) -> None:
        names = data.token_names(t)
        self.set_rows(
            len(names),
            lambda i: [Text(token_label(names[i]))],
            [Column("item", "item", None)],
        )
        line = data.line_of(t)
        self.border_title = f"Transaction on line {line}"
        self.border_subtitle = plural(len(names), "item")
