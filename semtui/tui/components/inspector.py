"""``enter`` / ``i``: the inspector — the full text of a transaction, a group or a cell,
wrapped, nothing cut: every member, the distances of the cell's row and column, whether each
item is original, and what the attacker now believes.

The ``describe_*`` functions are plain: they read the session and the report and return rich
renderables, so the tests can read them without a terminal.
"""

from __future__ import annotations

import io
from typing import ClassVar

import numpy as np
from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from semtui.model import TransactionData, generalised_label, token_label
from semtui.tui.components.footer import KeyFooter
from semtui.tui.keys import bindings
from semtui.tui.session import Session
from semtui.tui.text import num
from semtui.wording import chunk_label


class Inspector(ModalScreen[None]):
    """A scrolling, wrapping view of one thing; escape, q or enter closes it."""

    HELP_TITLE = "inspector"
    HELP = "The full text of what was under the cursor; j/k scroll, y copies it, escape closes."

    DEFAULT_CSS = """
    Inspector { align: center middle; }
    Inspector > VerticalScroll {
        width: 90%; max-width: 120; height: auto; max-height: 90%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings("inspector")

    def __init__(self, title: str, body: RenderableType) -> None:
        super().__init__()
        self.title_text = title
        self.body = body

    def compose(self) -> ComposeResult:
        with VerticalScroll() as box:
            box.can_focus = False
            box.border_title = self.title_text
            box.border_subtitle = "escape closes · y copies"
            yield Static(self.body, id="inspector-body")
        yield KeyFooter()  # the modal's own keys, not the screen's beneath

    def action_dismiss(self) -> None:
        self.dismiss(None)

    def action_scroll(self, lines: int) -> None:
        self.query_one(VerticalScroll).scroll_relative(y=lines, animate=False)

    def action_copy(self) -> None:
        from rich.console import Console

        console = Console(width=100, color_system=None, record=True, file=io.StringIO())
        console.print(self.body)
        self.app.copy_to_clipboard(console.export_text())
        self.notify("copied")


def _kv() -> Table:
    t = Table.grid(padding=(0, 2))
    t.add_column(style="bold", no_wrap=True)
    t.add_column(overflow="fold")
    return t


def transaction_line(data: TransactionData, i: int, needle: str = "") -> Text:
    """Transaction ``i`` in the papers' notation, wrapped, search matches highlighted."""
    from semtui.tui.components.lists import highlight_matches, transaction_text

    text = transaction_text(data, i)
    text.no_wrap = False
    if needle:
        highlight_matches(text, needle)
    return text


def inspect_entity(session: Session, index: int) -> tuple[str, RenderableType]:
    """The list pane's entity: a group (set-generalised), a cluster, or a transaction."""
    data = session.data
    if isinstance(data, TransactionData) and data.n_generalised:
        return describe_group(session, index)
    if isinstance(data, TransactionData):
        return describe_transaction(session, index, None)
    cluster = data.clusters[index]
    names = data.vocab.items
    t = _kv()
    for k, chunk in enumerate(cluster.record_chunks):
        for r in range(len(chunk)):
            t.add_row(chunk_label(k + 1), ", ".join(names[i] for i in chunk.sub_record(r).tolist()))
    t.add_row("term chunk", ", ".join(names[i] for i in cluster.term_chunk.tolist()))
    return f"Cluster {cluster.id}", t


def describe_group(session: Session, g: int) -> tuple[str, RenderableType]:
    data = session.data
    members = data.member_names(g)
    rows = data.group(g)
    t = _kv()
    t.add_row("members", f"{len(members)}: " + ", ".join(members))
    t.add_row("transactions", f"{len(rows):,}")
    result = session.result
    parts: list[RenderableType] = [t]
    grp = result.group(session.label(g)) if result is not None else None
    if grp is not None:
        k = result.report.get("privacy", {}).get("k")
        t.add_row("eliminated", f"{len(grp.get('eliminations', []))} cells of "
                  f"{sum(1 for row in grp.get('table', []) for v in row if v is not None)}")
        if grp.get("skipped"):
            t.add_row("skipped rows", f"{len(grp['skipped'])} (no scored context)")
        right = grp.get("reidentified_rows_correct")
        t.add_row("re-identified rows", str(grp.get("reidentified_rows", 0))
                  + (f" ({right} to the row's own item)" if right is not None else ""))
        m = grp.get("metrics") or {}
        if m:
            t.add_row("precision / recall", f"{num(m.get('precision'))} / {num(m.get('recall'))}")
        cover = Table(title=f"Cover of each member (k = {k})", title_justify="left", box=None, padding=(0, 1))
        cover.add_column("member")
        cover.add_column("before", justify="right")
        cover.add_column("after", justify="right")
        cover.add_column("")
        possible = grp.get("possible", {})
        exposed = set(grp.get("exposed", []))
        for name in members:
            cover.add_row(name, f"{len(rows):,}", f"{possible.get(name, len(rows)):,}",
                          Text("exposed", style="bold red") if name in exposed else "")
        parts += [Text(""), cover]
    return f"Group {session.label(g)}", Group(*parts)


def describe_transaction(session: Session, i: int, g: int | None, needle: str = "") -> tuple[str, RenderableType]:
    """A transaction of the release: released, original, and what the attacker now believes."""
    data = session.data
    t = _kv()
    t.add_row("line", str(data.line_of(i)))
    t.add_row("released", transaction_line(data, i, needle))
    orig = session.original
    if orig is not None and i < orig.n_transactions:
        t.add_row("original", ", ".join(token_label(x) for x in orig.token_names(i)))
    result = session.result
    if result is not None and data.n_generalised:
        t.add_row("attacker believes", attacked_text(session, i))
    return f"Transaction on line {data.line_of(i)}", t


def attacked_text(session: Session, i: int) -> Text:
    """Transaction ``i`` after the current attack: each generalised item reduced to the members
    it kept (eliminated ones struck through)."""
    data = session.data
    names = data.vocab.items
    out = Text()
    result = session.result
    for k, tok in enumerate(data.transaction(i).tolist()):
        if k:
            out.append(", ")
        if tok >= 0:
            out.append(names[tok])
            continue
        gi = -tok - 1
        grp = result.group(session.label(gi)) if result is not None else None
        gone = {e["item"] for e in (grp or {}).get("eliminations", []) if e.get("transaction") == i}
        members = data.member_names(gi)
        kept = [m for m in members if m not in gone]
        out.append(generalised_label(kept) if len(kept) > 1 else (kept[0] if kept else "?"), style="bold")
        if gone:
            out.append(" (ruled out: " + ", ".join(sorted(gone)) + ")", style="strike dim")
    return out


def describe_cell(attack, row: int, col: int) -> tuple[str, RenderableType]:
    """A cell of a distance table: its member and context, its raw distance, whether it was
    eliminated (when, chosen by what) and whether it is original; then the whole row and
    column of distances."""
    from semtui.tui.components.distance import chosen_by

    grp = attack.group
    members = grp.get("members", [])
    rows = grp.get("rows", [])
    r = rows[row]
    orig = grp.get("original")
    t = _kv()
    t.add_row("transaction", f"line {r['line']}")
    t.add_row("context", ", ".join(r.get("context", [])) or "—")
    by_cell = {(e["row"], e["column"]): e for e in attack.eliminations}
    if 0 <= col < len(members):
        v = attack.table[row, col]
        t.add_row("member", members[col])
        t.add_row("distance", "· no score" if not np.isfinite(v) else f"{v:.4f}")
        e = by_cell.get((row, col))
        if e is not None:
            how = f" chosen by {chosen_by(e.get('group'), grp)}" if e.get("group") else ""
            vul = f", vulnerability {e['vulnerability']:.3f}" if e.get("vulnerability") is not None else ""
            t.add_row("eliminated", f"at step {e['step']}{how}{vul}")
        else:
            t.add_row("eliminated", "no")
        if orig is not None:
            t.add_row("original item", "yes ●" if orig[row][col] else "no (added by the generalisation)")
    row_t = Table(title="This row's distances", title_justify="left", box=None, padding=(0, 1))
    row_t.add_column("member")
    row_t.add_column("distance", justify="right")
    row_t.add_column("")
    for j, m in enumerate(members):
        e = by_cell.get((row, j))
        mark = (f"✗{e['step']}" if e else "") + (" ●" if orig is not None and orig[row][j] else "")
        row_t.add_row(Text(m, style="bold" if j == col else ""), _d(attack.table[row, j]), mark)
    parts: list[RenderableType] = [t, Text(""), row_t]
    if 0 <= col < len(members):
        col_t = Table(title=f"Column {members[col]} (first 50 rows)", title_justify="left", box=None,
                      padding=(0, 1))
        col_t.add_column("line", justify="right")
        col_t.add_column("context")
        col_t.add_column("distance", justify="right")
        col_t.add_column("")
        for i, rr in enumerate(rows[:50]):
            e = by_cell.get((i, col))
            mark = (f"✗{e['step']}" if e else "") + (" ●" if orig is not None and orig[i][col] else "")
            col_t.add_row(str(rr["line"]), ", ".join(rr.get("context", [])), _d(attack.table[i, col]), mark)
        parts += [Text(""), col_t]
    title = f"Cell {members[col]} × line {r['line']}" if 0 <= col < len(members) else f"Row line {r['line']}"
    return title, Group(*parts)


def _d(v: float) -> str:
    return "·" if not np.isfinite(v) else f"{v:.4f}"

