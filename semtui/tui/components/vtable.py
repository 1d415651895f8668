"""A virtual table: rows drawn on demand by ``render_line`` over a small cache.

Like Toolong's log view, nothing is built per row: the table knows only how many rows
there are and a function that gives the cells of one row.  Opening a 100,000-group
dataset costs the same as opening a 10-group one; only the visible lines are rendered.

This module holds the table itself: its rows, drawing, cursor, keys and mouse.  How it fits
the room is :mod:`.table_layout`, what leaves it (copy, CSV, the inspector's text)
:mod:`.table_export`, and a cell as text :mod:`.cells`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import BindingType
from textual.cache import LRUCache
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from semtui.tui.components.cells import Cell, cell_text, keep_ranges
from semtui.tui.components.table_export import TableExport
from semtui.tui.components.table_layout import TableLayout
from semtui.tui.keys import only
from semtui.tui.text import elide, fit, wrap_words

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


class VirtualTable(TableLayout, TableExport, ScrollView, can_focus=True):
    """A scrolling table with a row cursor, a current column and a fixed header line.

    Its geometry is :class:`~.table_layout.TableLayout`'s, its copy and CSV (``y``,
    ``ctrl+s``) :class:`~.table_export.TableExport`'s; the keys of both are bound here (Textual
    collects ``BINDINGS`` only from the widget classes of the MRO, not from mixins)."""

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
        #: numbers made numbers (:func:`~.cells.csv_value`)
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

    def on_resize(self) -> None:
        self._cache.clear()
        self._update_virtual_size()
        self._scroll_cursor_into_view()

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
            if self.row_count == 0 and y >= 1:
                # what an empty table says, wrapped between words over the lines it needs: a long
                # one (an assessment's items view) was cut mid-sentence with no sign of it
                text = Text(" " + self.empty_message, style=self.get_component_rich_style("vtable--empty"))
                lines = wrap_words(text, max(width - 1, 10), self.app.console)
                if y - 1 < len(lines):
                    return self._to_strip(lines[y - 1], base, 0, width)
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

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

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


def _under(line: Text, style: Style) -> Text:
    """``line`` with ``style`` beneath its own styles (spans keep their colours)."""
    out = Text(line.plain, style=style, no_wrap=True, end="")
    for span in line.spans:
        out.stylize(span.style, span.start, span.end)
    if line.style:
        out.stylize(line.style)
    return out
