"""How a :class:`~semtui.tui.components.vtable.VirtualTable` fits the room: each column's
width, the columns on screen, the cursor row drawn whole (``z``), and scrolling by whole
columns and rows so the cursor stays in sight.

:class:`TableLayout` is mixed into ``VirtualTable``: it reads the table's columns, its rows
(``row_count`` and the getter), its cursor, ``pinned``, ``first_col`` and ``wrap``, and keeps
its answers in the table's caches until they change.
"""

from __future__ import annotations

from rich.text import Text
from textual.geometry import Size

from semtui.tui.components.cells import cell_text
from semtui.tui.text import share_room, wrap_words


class TableLayout:
    """A table's geometry: column widths, the columns that fit, the wrapped cursor row, scrolling."""

    # ------------------------------------------------------------------ widths
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

    # ------------------------------------------------------------------ the cursor row whole (z)
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

    # ------------------------------------------------------------------ the columns on screen
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

    @property
    def page_height(self) -> int:
        return max(self.scrollable_content_region.height - 1, 1)

    # ------------------------------------------------------------------ scrolling
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

    def _scroll_cursor_into_view(self) -> None:
        top = int(self.scroll_y)
        height = self.page_height
        row = self.cursor_row
        last = row + self.cursor_height() - 1  # a wrapped cursor row: its last line too, if it fits
        if row < top:
            self.scroll_to(y=row, animate=False)
        elif last >= top + height:
            self.scroll_to(y=min(row, last - height + 1), animate=False)
