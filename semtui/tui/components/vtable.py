"""A virtual table: rows drawn on demand by ``render_line`` over a small cache.

Like Toolong's log view, nothing is built per row: the table knows only how many rows
there are and a function that gives the cells of one row.  Opening a 100,000-group
dataset costs the same as opening a 10-group one; only the visible lines are rendered.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from semtui.tui.keys import only
from semtui.tui.text import elide, fit, share_room, wrap_words

Cell = str | Text
RowGetter = Callable[[int], Sequence[Cell]]

#: Drawn in the gutter of the cursor row, so the cursor shows even under NO_COLOR.
CURSOR_MARK = "▶"


@dataclass
class Column:
    """``width=None`` makes the column take the room the others leave (at least ``min_width``)."""

    key: str
    label: str
    width: int | None = None
    justify: str = "left"
    min_width: int = 12


class VirtualTable(ScrollView, can_focus=True):
    """A scrolling table with a row cursor, a current column and a fixed header line."""

    DEFAULT_CSS = """
    VirtualTable {
        background: $surface;
        height: 1fr;
    }
    VirtualTable > .vtable--header { text-style: bold; color: $text-accent; }
    VirtualTable > .vtable--header-current { text-style: bold reverse; }
    VirtualTable > .vtable--cursor { background: $panel-lighten-1; }
    VirtualTable:focus > .vtable--cursor { background: $accent 40%; text-style: bold; }
    VirtualTable > .vtable--empty { color: $text-muted; text-style: italic; }
    """

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "vtable--header",
        "vtable--header-current",
        "vtable--cursor",
        "vtable--empty",
    }

    BINDINGS: ClassVar[list[BindingType]] = only(
        "table.up", "table.down", "table.first", "table.last", "table.page_up", "table.page_down",
        "table.left", "table.right", "table.select", "table.copy", "table.csv",
    )

    cursor_row: reactive[int] = reactive(0, always_update=True, init=False)
    cursor_col: reactive[int] = reactive(0, init=False)

    class Highlighted(Message):
        """The cursor moved to ``row`` (a view index)."""

        def __init__(self, table: VirtualTable, row: int) -> None:
            self.table = table
            self.row = row
            super().__init__()

        @property
        def control(self) -> VirtualTable:
            return self.table

    class Selected(Highlighted):
        """Enter was pressed on ``row``."""

    def __init__(
        self,
        columns: Sequence[Column] = (),
        *,
        empty: str = "nothing to show",
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.columns: list[Column] = list(columns)
        self.row_count = 0
        self._getter: RowGetter = lambda i: ()
        self._cache: LRUCache[tuple, Strip] = LRUCache(1024)
        self.empty_message = empty
        self.sort_marks: dict[int, str] = {}
        #: leading columns that stay in place when the table scrolls sideways
        self.pinned = 0
        #: the first unpinned column on screen: sideways scrolling moves by whole columns, so a
        #: number is never cut (a column that does not fit is left out, not drawn in part)
        self.first_col = 0
        #: cell styles that mark search matches, drawn over the row's own styles
        self.highlight: Callable[[Text], None] | None = None
        #: ``z``: the cursor row is drawn whole, each cell wrapped over as many lines as it needs
        self.wrap = False
        self._wrapped: tuple[tuple, list[list[Text]]] | None = None
        self._natural: tuple[tuple, list[int]] | None = None
        self._layout: tuple[tuple, list[tuple[int, int]]] | None = None
        #: the name of each column in the inspector (None: the column's label)
        self.inspect_labels: list[str] | None = None
        #: the sideways scroll (current column, first column) of each view this table has shown
        self._scrolls: dict[tuple, tuple[int, int]] = {}
        #: what ``ctrl+s`` writes: a header and, per shown row, its records (values in their own
        #: columns, numbers as numbers, marks as columns of their own); None: the cells as text,
        #: numbers made numbers (:func:`csv_value`)
        self.csv_records: tuple[list[str], Callable[[int], Iterable[Sequence]]] | None = None

    # ------------------------------------------------------------------ data
    def set_rows(
        self,
        row_count: int,
        getter: RowGetter,
        columns: Sequence[Column] | None = None,
        *,
        cursor: int = 0,
    ) -> None:
        """Replace what the table shows; ``getter(i)`` gives the cells of row ``i``."""
        if columns is not None:
            before, after = self.view_key(self.columns), self.view_key(columns)
            if before != after:
                # each view keeps its own sideways scroll; a view not seen yet starts at column 0
                self._scrolls[before] = (self.cursor_col, self.first_col)
                col, first = self._scrolls.get(after, (0, 0))
                self.first_col = first
                self.set_reactive(VirtualTable.cursor_col, col)
            self.columns = list(columns)
            self.cursor_col = min(self.cursor_col, max(len(self.columns) - 1, 0))
            self.first_col = min(self.first_col, max(len(self.columns) - 1, 0))
        self.row_count = row_count
        self._getter = getter
        self.csv_records = None  # a view that has typed records sets them after set_rows
        self.inspect_labels = None  # likewise its cells' names in the inspector
        self._cache.clear()
        self._wrapped = None
        self._natural = None
        self._layout = None
        self._update_virtual_size()
        self.cursor_row = max(0, min(cursor, row_count - 1))
        self.refresh()

    def refresh_rows(self) -> None:
        """Redraw every row (the getter's answers changed, not their number)."""
        self._cache.clear()
        self._wrapped = None
        self._natural = None
        self._layout = None
        self.refresh()

    @staticmethod
    def view_key(columns: Sequence[Column]) -> tuple:
        """What tells one view of the table from another: its columns' keys."""
        return tuple(c.key for c in columns)

    # ------------------------------------------------------------------ geometry
    #: rows read to size the columns that take the room (their content's width)
    SIZE_SAMPLE = 300

    def natural_widths(self) -> list[int]:
        """Each column's width for its whole content: its label and its widest cell over the
        first :attr:`SIZE_SAMPLE` rows (and the cursor row).  Kept until the rows change."""
        key = (id(self._getter), self.row_count, len(self.columns), self.cursor_row if self.row_count > self.SIZE_SAMPLE else -1)
        if self._natural is not None and self._natural[0] == key:
            return self._natural[1]
        out = [len(c.label) + 1 for c in self.columns]  # + a sort mark
        rows = list(range(min(self.row_count, self.SIZE_SAMPLE)))
        if self.row_count > self.SIZE_SAMPLE:
            rows.append(self.cursor_row)
        for r in rows:
            cells = self._getter(r)
            for c in range(min(len(cells), len(out))):
                cell = cells[c]
                w = cell.cell_len if isinstance(cell, Text) else len(str(cell))
                if w > out[c]:
                    out[c] = w
        self._natural = (key, out)
        return out

    def _widths(self, total: int) -> list[int]:
        """Fixed columns as they are; the others sized from their content and the room left
        (:func:`~semtui.tui.text.share_room`): cut only when the table does not fit.  While the
        cursor row is drawn whole (``z``), a column is at least as wide as the longest word of
        its cell there, so the wrap falls between words."""
        fixed = sum(c.width or 0 for c in self.columns)
        flex = [k for k, c in enumerate(self.columns) if c.width is None]
        gaps = len(self.columns)  # one space before each column (the first is the gutter)
        room = max(total - fixed - gaps, 0)
        natural = self.natural_widths() if flex else []
        least = [self.columns[k].min_width for k in flex]
        if self.wrap and self.row_count and flex:
            cells = self._getter(self.cursor_row)
            for n, k in enumerate(flex):
                if k < len(cells):
                    plain = cells[k].plain if isinstance(cells[k], Text) else str(cells[k])
                    word = max((len(w) for w in plain.split()), default=0)
                    least[n] = max(least[n], min(word, max(room // len(flex), least[n]) if len(flex) > 1 else room))
        shares = share_room([max(natural[k], 1) for k in flex], room, least)
        out = [c.width or 0 for c in self.columns]
        for k, w in zip(flex, shares):
            out[k] = w
        return out

    def _update_virtual_size(self) -> None:
        # Sideways scrolling is by whole columns (``first_col``), never by cells: the
        # virtual width is the viewport's, so no column is ever drawn in part.
        extra = self.cursor_height() - 1 if self.wrap else 0
        self.virtual_size = Size(max(self.scrollable_content_region.width, 1), self.row_count + 1 + extra)

    def set_wrap(self, on: bool) -> None:
        """Show the cursor row whole (wrapped) or on one line like the others."""
        self.wrap = on
        self._wrapped = None
        self._cache.clear()
        self._update_virtual_size()
        self._scroll_cursor_into_view()
        self.refresh()

    def wrapped_cells(self) -> list[list[Text]]:
        """The cursor row's cells on screen, each wrapped to its column's width."""
        width = self.scrollable_content_region.width
        layout = self.layout_columns(width)
        key = (self.cursor_row, self.first_col, width, self.row_count, id(self._getter))
        if self._wrapped is not None and self._wrapped[0] == key:
            return self._wrapped[1]
        out: list[list[Text]] = []
        if self.row_count:
            cells = self._getter(self.cursor_row)
            for c, w in layout:
                text = cell_text(cells[c] if c < len(cells) else "", self.highlight)
                out.append(wrap_words(text, w, self.app.console))
        self._wrapped = (key, out)
        return out

    def cursor_height(self) -> int:
        """Lines the cursor row takes (more than one only when wrapping)."""
        if not self.wrap or not self.row_count:
            return 1
        return max((len(lines) for lines in self.wrapped_cells()), default=1)

    def layout_columns(self, total: int | None = None) -> list[tuple[int, int]]:
        """(column, width) of every column on screen, left to right: the pinned ones, then from
        ``first_col`` while they fit.  A text column that does not fit is cut with an ellipsis
        when there is room for a few characters; a number column is left out."""
        total = self.scrollable_content_region.width if total is None else total
        key = (total, self.first_col, self.pinned, self.wrap, self.cursor_row if self.wrap else -1,
               self.row_count, id(self._getter), tuple((c.key, c.width, c.min_width) for c in self.columns),
               self._natural[0] if self._natural is not None else None)
        if self._layout is not None and self._layout[0] == key:
            return self._layout[1]
        out = self._layout_columns(total)
        natural_key = self._natural[0] if self._natural is not None else None
        self._layout = (key[:-1] + (natural_key,), out)
        return out

    def _layout_columns(self, total: int) -> list[tuple[int, int]]:
        widths = self._widths(total)
        out: list[tuple[int, int]] = []
        x = 1  # the cursor gutter
        pinned = min(self.pinned, len(widths))
        for c in range(pinned):
            out.append((c, widths[c]))
            x += widths[c] + 1
        dropped = False
        for c in range(max(self.first_col, pinned), len(widths)):
            w = widths[c]
            if x + w > total:
                room = total - x
                # a text column is cut by the border when a few characters fit -- not while the
                # cursor row is drawn whole (z): a wrap that narrow would fold its words
                if self.columns[c].justify == "left" and room >= 4 and not (self.wrap and out):
                    out.append((c, room))
                    x = total + 1
                dropped = True
                break
            out.append((c, w))
            x += w + 1
        flex = [k for k, (c, _) in enumerate(out) if self.columns[c].width is None]
        spare = total + 1 - x  # what the columns left out leave: the text columns on screen take it
        if dropped and flex and spare > 0:
            for n, k in enumerate(flex):
                c, w = out[k]
                out[k] = (c, w + spare // len(flex) + (1 if n < spare % len(flex) else 0))
        return out

    def on_resize(self) -> None:
        self._cache.clear()
        self._update_virtual_size()
        self._scroll_cursor_into_view()

    @property
    def page_height(self) -> int:
        return max(self.scrollable_content_region.height - 1, 1)

    # ------------------------------------------------------------------ drawing
    def _line(self, cells: Sequence[Cell], layout: list[tuple[int, int]], gutter: str, style: Style,
              columns: list[int] | None = None) -> Text:
        """One line of cells; ``columns``: the table column of each layout entry, when ``cells``
        are already the columns on screen (a wrapped row's lines, marked already)."""
        line = Text(gutter, style=style, no_wrap=True, end="")
        for k, (c, width) in enumerate(layout):
            if k:
                line.append(" ")
            cell = cells[c] if c < len(cells) else ""
            column = self.columns[columns[k] if columns is not None else c]
            text = cell_text(cell, None if columns is not None else self.highlight)
            text = fit(text, width, keep_ranges(cell, text))
            pad = width - text.cell_len
            if pad > 0:
                if column.justify == "right":
                    text = Text(" " * pad) + text
                else:
                    text.append(" " * pad)
            line.append_text(text)
        return line

    def render_line(self, y: int) -> Strip:
        scroll_y = int(self.scroll_offset.y)
        width = self.scrollable_content_region.width
        base = self.rich_style
        layout = self.layout_columns(width)
        if y == 0:
            key = ("header", self.first_col, width, self.cursor_col, tuple(self.sort_marks.items()))
            strip = self._cache.get(key)
            if strip is None:
                header = self.get_component_rich_style("vtable--header")
                current = self.get_component_rich_style("vtable--header-current")
                # the gutter says when columns are out of sight to the left (←), to the right (→)
                left = self.first_col > self.pinned
                right = bool(layout) and (layout[-1][0] < len(self.columns) - 1
                                          or layout[-1][1] < self._widths(width)[layout[-1][0]])
                line = Text(" ", no_wrap=True, end="")
                if left or right:
                    line = Text("↔" if left and right else "←" if left else "→", style="bold", no_wrap=True, end="")
                for k, (i, c) in enumerate(layout):
                    if k:
                        line.append(" ")
                    w = self.columns[i]
                    # a long label loses its middle: two members that share a beginning stay apart
                    cell = elide(w.label, c - len(self.sort_marks.get(i, "")), head=0.4)
                    cell.append(self.sort_marks.get(i, ""))
                    pad = " " * (c - cell.cell_len)
                    cell = cell + pad if w.justify == "left" else Text(pad) + cell
                    cell.stylize(current if i == self.cursor_col else header)
                    line.append_text(cell)
                strip = self._to_strip(line, base, 0, width)
                self._cache[key] = strip
            return strip
        row = scroll_y + y - 1
        sub = 0
        if self.wrap and row > self.cursor_row:
            h = self.cursor_height()
            if row < self.cursor_row + h:
                row, sub = self.cursor_row, row - self.cursor_row
            else:
                row -= h - 1
        if row >= self.row_count:
            if self.row_count == 0 and y == 1:
                text = Text(" " + self.empty_message, style=self.get_component_rich_style("vtable--empty"))
                return self._to_strip(text, base, 0, width)
            return Strip.blank(width, base)
        is_cursor = row == self.cursor_row
        key = (row, sub, is_cursor, self.first_col, width, self.has_focus, self.wrap)
        strip = self._cache.get(key)
        if strip is None:
            style = self.get_component_rich_style("vtable--cursor") if is_cursor else Style()
            if is_cursor and self.wrap:
                parts = [lines[sub] if sub < len(lines) else "" for lines in self.wrapped_cells()]
                line = self._line(parts, [(k, w) for k, (_, w) in enumerate(layout)],
                                  CURSOR_MARK if sub == 0 else " ", Style(), columns=[c for c, _ in layout])
            else:
                line = self._line(self._getter(row), layout, CURSOR_MARK if is_cursor else " ", Style())
            if is_cursor:
                # the cursor row keeps its cells' colours: only the gutter and bold mark it,
                # plus the cursor background where a cell has no colour of its own
                line.stylize(Style(bold=True), 0, len(line))
                line = _under(line, style)
            strip = self._to_strip(line, base, 0, width)
            self._cache[key] = strip
        return strip

    def _to_strip(self, line: Text, base: Style, scroll_x: int, width: int) -> Strip:
        segments = list(line.render(self.app.console))
        strip = Strip(segments, line.cell_len)
        strip = strip.crop_extend(scroll_x, scroll_x + width, base)
        return Strip(Segment.apply_style(strip, base), strip.cell_length)

    # ------------------------------------------------------------------ cursor
    def watch_cursor_row(self, old: int, new: int) -> None:
        if self.wrap:
            self._cache.clear()
            self._update_virtual_size()
        self._scroll_cursor_into_view()
        self.refresh()
        if self.row_count:
            self.post_message(self.Highlighted(self, new))

    def watch_cursor_col(self) -> None:
        self._scroll_column_into_view()
        self.refresh()

    def _scroll_column_into_view(self) -> None:
        """Scroll sideways by whole columns, so the current one is always on screen, whole."""
        if not self.columns:
            return
        col = min(self.cursor_col, len(self.columns) - 1)
        if col < self.pinned:
            return
        if col < self.first_col or col == self.pinned:
            self.first_col = col
        else:
            widths = self._widths(self.scrollable_content_region.width)
            while self.first_col < col and not any(c == col and w == widths[c] for c, w in self.layout_columns()):
                self.first_col += 1
        self._cache.clear()

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def _scroll_cursor_into_view(self) -> None:
        top = int(self.scroll_y)
        height = self.page_height
        row = self.cursor_row
        last = row + self.cursor_height() - 1  # a wrapped cursor row: its last line too, if it fits
        if row < top:
            self.scroll_to(y=row, animate=False)
        elif last >= top + height:
            self.scroll_to(y=min(row, last - height + 1), animate=False)

    def move_to(self, row: int) -> None:
        if self.row_count:
            self.cursor_row = max(0, min(row, self.row_count - 1))

    def action_cursor_up(self) -> None:
        self.move_to(self.cursor_row - 1)

    def action_cursor_down(self) -> None:
        self.move_to(self.cursor_row + 1)

    def action_first(self) -> None:
        self.move_to(0)

    def action_last(self) -> None:
        self.move_to(self.row_count - 1)

    def action_page_up(self) -> None:
        self.move_to(self.cursor_row - self.page_height)

    def action_page_down(self) -> None:
        self.move_to(self.cursor_row + self.page_height)

    def action_column_left(self) -> None:
        if self.cursor_col > 0:
            self.cursor_col -= 1

    def action_column_right(self) -> None:
        if self.cursor_col < len(self.columns) - 1:
            self.cursor_col += 1

    # ------------------------------------------------------------------ copy / CSV
    def cell_text(self, row: int, col: int) -> str:
        cells = self._getter(row)
        return str(cells[col].plain if isinstance(cells[col], Text) else cells[col]) if col < len(cells) else ""

    def row_texts(self, row: int) -> list[str]:
        return [self.cell_text(row, c) for c in range(len(self.columns))]

    def row_lines(self, row: int) -> Text:
        """Row ``row`` whole for the inspector: one line per cell that holds something, named
        (``C2: 3× asthma, rhinitis``) by :attr:`inspect_labels` or its column's label."""
        labels = self.inspect_labels or [c.label for c in self.columns]
        cells = self._getter(row) if 0 <= row < self.row_count else ()
        out = Text()
        for c, column in enumerate(self.columns):
            cell = cells[c] if c < len(cells) else ""
            text = cell_text(cell, self.highlight)
            if not text.plain.strip():
                continue
            if out.plain:
                out.append("\n")
            out.append(f"{labels[c] if c < len(labels) else column.label}: ", style="bold")
            out.append_text(text)
        return out

    def action_copy(self) -> None:
        """``y``: the current cell to the clipboard (the whole row when on the first column)."""
        if not self.row_count:
            return
        if self.cursor_col == 0:
            text = "\t".join(self.row_texts(self.cursor_row))
        else:
            text = self.cell_text(self.cursor_row, self.cursor_col)
        self.app.copy_to_clipboard(text)
        self.app.notify(f"copied: {text[:60]}")

    def set_records(self, header: Sequence[str], records: Callable[[int], Iterable[Sequence]]) -> None:
        """What the CSV holds (after :meth:`set_rows`): ``records(i)`` the records of shown row ``i``."""
        self.csv_records = (list(header), records)

    def holds_private(self) -> bool:
        """The table shows original data (the session has an original, a key or a report
        scored against the original): its CSV is private (0600), as the CLI's outputs are."""
        session = getattr(self.screen, "session", None)
        return bool(session is not None and session.holds_private)

    def write_csv(self, path) -> int:
        """Every row of the table as shown (filter and sort kept), as CSV; returns the record
        count.  Private (0600) when the table can show original data (:meth:`holds_private`)."""
        import csv

        from semtui.fileio import write_together

        if self.csv_records is not None:
            header, records = self.csv_records
        else:
            header = [c.label for c in self.columns]

            def records(r: int):
                return [[csv_value(t) for t in self.row_texts(r)]]
        count = [0]

        def write(fh) -> None:
            w = csv.writer(fh, lineterminator="\n")
            w.writerow(header)
            for r in range(self.row_count):
                for rec in records(r):
                    w.writerow(["" if v is None else v for v in rec])
                    count[0] += 1

        write_together([(path, write, self.holds_private())])
        return count[0]

    def action_save_csv(self) -> None:
        """``ctrl+s``: the table as CSV, in a prompt for the path."""
        from pathlib import Path

        from semtui.errors import InputError
        from semtui.tui.components.export import ExportPrompt

        default = f"{(self.id or 'table')}.csv"

        def done(path: str | None) -> None:
            if not path:
                return
            try:
                n = self.write_csv(Path(path))
            except (OSError, ValueError, InputError) as exc:
                self.app.notify(f"could not write {path}: {exc}", severity="error")
                return
            self.app.notify(f"wrote {n:,} rows to {path}" + (" (private: 0600)" if self.holds_private() else ""))

        self.app.push_screen(ExportPrompt(default, title="Save the table as CSV"), done)

    def action_select(self) -> None:
        if self.row_count:
            self.post_message(self.Selected(self, self.cursor_row))

    def on_click(self, event) -> None:
        """The row (and column) under the pointer, measured inside the border."""
        offset = event.get_content_offset(self)
        self.focus()
        if offset is None:
            return
        row = int(self.scroll_y) + offset.y - 1
        if self.wrap and row > self.cursor_row:
            h = self.cursor_height()
            row = self.cursor_row if row < self.cursor_row + h else row - (h - 1)
        if 0 <= row < self.row_count:
            self.cursor_row = row
        x = 1
        for c, w in self.layout_columns():
            if x <= offset.x < x + w + 1:
                self.cursor_col = c
                break
            x += w + 1
        if event.chain == 2 and 0 <= row < self.row_count:
            self.action_select()


#: the style :func:`~semtui.tui.components.lists.highlight_matches` marks a search hit with
MATCH_STYLE = "bold black on yellow"


def cell_text(cell: Cell, highlight=None) -> Text:
    """A cell as a one-line Text, search hits marked."""
    text = cell.copy() if isinstance(cell, Text) else Text(str(cell))
    text.no_wrap = True
    text.end = ""
    if highlight is not None:
        highlight(text)
    return text


def keep_ranges(cell: Cell, text: Text) -> list[tuple[int, int]]:
    """What must stay visible when ``cell`` is cut: the ranges the cell names as what it is
    about (``cell.keep``, e.g. the row's own generalised item or an added ``✗`` item), then
    its first search hit."""
    out = list(getattr(cell, "keep", ()) or ())
    hits = [(s.start, s.end) for s in text.spans if str(s.style) == MATCH_STYLE]
    if hits:
        out.insert(0, hits[0])
    return out


class KeptText(Text):
    """A cell's Text that names what a table cutting it must keep whole (``keep``: character
    ranges), e.g. the row's own generalised item or the items a reconstruction added wrongly."""

    def __init__(self, *args, keep=(), **kw) -> None:
        super().__init__(*args, **kw)
        self.keep: list[tuple[int, int]] = list(keep)
_INT = re.compile(r"-?\d{1,3}(,\d{3})+|-?\d+")
_FLOAT = re.compile(r"-?\d+\.\d+(e[-+]?\d+)?|-?\d+e[-+]?\d+", re.IGNORECASE)


def csv_value(text: str) -> str | int | float:
    """A cell's text as the value a CSV reader should get: ``5,198`` → 5198, ``0.53`` → 0.53;
    any other text as it is."""
    t = text.strip()
    if _INT.fullmatch(t):
        return int(t.replace(",", ""))
    if _FLOAT.fullmatch(t):
        return float(t)
    return t


def _under(line: Text, style: Style) -> Text:
    """``line`` with ``style`` beneath its own styles (spans keep their colours)."""
    out = Text(line.plain, style=style, no_wrap=True, end="")
    for span in line.spans:
        out.stylize(span.style, span.start, span.end)
    if line.style:
        out.stylize(line.style)
    return out
