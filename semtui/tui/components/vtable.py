"""A virtual table: rows drawn on demand by ``render_line`` over a small cache.

Like Toolong's log view, nothing is built per row: the table knows only how many rows
there are and a function that gives the cells of one row.  Opening a 100,000-group
dataset costs the same as opening a 10-group one; only the visible lines are rendered.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

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

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("up,k", "cursor_up", "Up", show=False, id="table.up"),
        Binding("down,j", "cursor_down", "Down", show=False, id="table.down"),
        Binding("g,home", "first", "First", show=False, id="table.first"),
        Binding("G,end", "last", "Last", show=False, id="table.last"),
        Binding("pageup,ctrl+b", "page_up", "Page up", show=False, id="table.page_up"),
        Binding("pagedown,ctrl+f", "page_down", "Page down", show=False, id="table.page_down"),
        Binding("left,h", "column_left", "Column left", show=False, id="table.left"),
        Binding("right,l", "column_right", "Column right", show=False, id="table.right"),
        Binding("enter", "select", "Open", show=False, id="table.select"),
    ]

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
            self.columns = list(columns)
            self.cursor_col = min(self.cursor_col, max(len(self.columns) - 1, 0))
        self.row_count = row_count
        self._getter = getter
        self._cache.clear()
        self._update_virtual_size()
        self.cursor_row = max(0, min(cursor, row_count - 1))
        self.refresh()

    def refresh_rows(self) -> None:
        """Redraw every row (the getter's answers changed, not their number)."""
        self._cache.clear()
        self.refresh()

    # ------------------------------------------------------------------ geometry
    def _widths(self, total: int) -> list[int]:
        fixed = sum(c.width or 0 for c in self.columns)
        flex = [c for c in self.columns if c.width is None]
        gaps = len(self.columns)  # one space before each column (the first is the gutter)
        room = max(total - fixed - gaps, 0)
        out = []
        for c in self.columns:
            if c.width is not None:
                out.append(c.width)
            else:
                out.append(max(c.min_width, room // max(len(flex), 1)))
        return out

    def _update_virtual_size(self) -> None:
        # The narrowest the columns can be: wider viewports give the room to the flexible
        # column instead of scrolling, so a horizontal scrollbar appears only when needed.
        least = sum(c.width if c.width is not None else c.min_width for c in self.columns)
        self.virtual_size = Size(least + len(self.columns), self.row_count + 1)

    def on_resize(self) -> None:
        self._cache.clear()
        self._update_virtual_size()
        self._scroll_cursor_into_view()

    @property
    def page_height(self) -> int:
        return max(self.scrollable_content_region.height - 1, 1)

    # ------------------------------------------------------------------ drawing
    def _line(self, cells: Sequence[Cell], widths: list[int], gutter: str, style: Style) -> Text:
        line = Text(gutter, style=style, no_wrap=True, end="")
        for k, (cell, width, column) in enumerate(zip(cells, widths, self.columns)):
            if k:
                line.append(" ")
            text = cell.copy() if isinstance(cell, Text) else Text(str(cell))
            text.no_wrap = True
            text.truncate(width, overflow="ellipsis")
            pad = width - text.cell_len
            if pad > 0:
                if column.justify == "right":
                    text = Text(" " * pad) + text
                else:
                    text.append(" " * pad)
            line.append_text(text)
        return line

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        base = self.rich_style
        widths = self._widths(width)
        if y == 0:
            key = ("header", scroll_x, width, self.cursor_col, tuple(self.sort_marks.items()))
            strip = self._cache.get(key)
            if strip is None:
                header = self.get_component_rich_style("vtable--header")
                current = self.get_component_rich_style("vtable--header-current")
                line = Text(" ", no_wrap=True, end="")
                for i, (c, w) in enumerate(zip(widths, self.columns)):
                    if i:
                        line.append(" ")
                    cell = Text(w.label + self.sort_marks.get(i, ""))
                    cell.truncate(c, overflow="ellipsis")  # a cut label ends with …
                    pad = " " * (c - cell.cell_len)
                    cell = cell + pad if w.justify == "left" else Text(pad) + cell
                    cell.stylize(current if i == self.cursor_col else header)
                    line.append_text(cell)
                strip = self._to_strip(line, base, scroll_x, width)
                self._cache[key] = strip
            return strip
        row = scroll_y + y - 1
        if row >= self.row_count:
            if self.row_count == 0 and y == 1:
                text = Text(" " + self.empty_message, style=self.get_component_rich_style("vtable--empty"))
                return self._to_strip(text, base, 0, width)
            return Strip.blank(width, base)
        is_cursor = row == self.cursor_row
        key = (row, is_cursor, scroll_x, width, self.has_focus)
        strip = self._cache.get(key)
        if strip is None:
            style = self.get_component_rich_style("vtable--cursor") if is_cursor else Style()
            line = self._line(self._getter(row), widths, CURSOR_MARK if is_cursor else " ", Style())
            if is_cursor:
                line.stylize(style)
            strip = self._to_strip(line, base, scroll_x, width)
            self._cache[key] = strip
        return strip

    def _to_strip(self, line: Text, base: Style, scroll_x: int, width: int) -> Strip:
        segments = list(line.render(self.app.console))
        strip = Strip(segments, line.cell_len)
        strip = strip.crop_extend(scroll_x, scroll_x + width, base)
        return Strip(Segment.apply_style(strip, base), strip.cell_length)

    # ------------------------------------------------------------------ cursor
    def watch_cursor_row(self, old: int, new: int) -> None:
        self._scroll_cursor_into_view()
        self.refresh()
        if self.row_count:
            self.post_message(self.Highlighted(self, new))

    def watch_cursor_col(self) -> None:
        self._scroll_column_into_view()
        self.refresh()

    def _scroll_column_into_view(self) -> None:
        """Scroll sideways by whole columns, so the current one is always on screen."""
        if not self.columns:
            return
        view = self.scrollable_content_region.width
        widths = self._widths(view)
        col = min(self.cursor_col, len(widths) - 1)
        start = 1 + sum(widths[:col]) + col  # the gutter, then a space before each later column
        end = start + widths[col]
        x = int(self.scroll_x)
        if col == 0 or start < x:
            self.scroll_to(x=0 if col == 0 else start - 1, animate=False)
        elif end > x + view:
            self.scroll_to(x=end - view, animate=False)

    def on_focus(self) -> None:
        self.refresh()

    def on_blur(self) -> None:
        self.refresh()

    def _scroll_cursor_into_view(self) -> None:
        top = int(self.scroll_y)
        height = self.page_height
        row = self.cursor_row
        if row < top:
            self.scroll_to(y=row, animate=False)
        elif row >= top + height:
            self.scroll_to(y=row - height + 1, animate=False)

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
        else:
            self.scroll_left(animate=False)

    def action_column_right(self) -> None:
        if self.cursor_col < len(self.columns) - 1:
            self.cursor_col += 1
        else:
            self.scroll_right(animate=False)

    def action_select(self) -> None:
        if self.row_count:
            self.post_message(self.Selected(self, self.cursor_row))

    def on_click(self, event) -> None:
        row = int(self.scroll_y) + event.y - 1
        if 0 <= row < self.row_count:
            self.cursor_row = row
        self.focus()
