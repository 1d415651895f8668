"""A table's cell as text: what a cell is, its one-line Text with search hits marked, what
a cut must keep of it, and the value a CSV reader gets from it.

Every :class:`~semtui.tui.components.vtable.VirtualTable` draws, copies and exports its
cells through these; the views that fill a table make their cells with :class:`KeptText`
when part of a cell must stay on screen.
"""

from __future__ import annotations

import re

from rich.text import Text

Cell = str | Text

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
