"""How the TUI fits names and numbers into the room it has: one home for the rule.

* a number is never cut (:func:`num`, :func:`ratio` give it a sane precision; tables leave a
  number column out rather than draw part of it);
* a long name loses its middle, never its ends (``fracture of r…hand`` beside ``fracture of
  r…foot``), so names that share a beginning stay apart and a count at the end stays whole;
* what a row is about (its own generalised item, a search hit, a wrongly added ``✗`` item) is
  kept on screen: the text around it gives way first (:func:`fit` with ``keep``).

Every table, header, title and status line of the TUI goes through these functions.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

from rich.text import Text

ELLIPSIS = "…"


def num(v, digits: int = 3) -> str:
    """A number as a person reads it: integers with thousands separators, fractions with
    ``digits`` decimals (``0.248155`` → ``0.248``), large floats without a fraction; ``—`` for
    none or NaN."""
    if v is None or isinstance(v, bool):
        return "—" if v is None else ("yes" if v else "no")
    if isinstance(v, int):
        return f"{v:,}"
    try:
        f = float(v)
    except (TypeError, ValueError):
        return str(v)
    if math.isnan(f):
        return "—"
    if f.is_integer() and abs(f) >= 1000:
        return f"{int(f):,}"
    if abs(f) >= 1000:
        return f"{f:,.0f}"
    return f"{f:.{digits}f}"


def ratio(v) -> str:
    """A share or a distance in a narrow table cell: two decimals, blank for none."""
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return ""
    if 0 < v < 0.005:  # not 0.00: a share that is small is not none
        return "<.01"
    return f"{v:.2f}"


def plural(n: int, noun: str, many: str | None = None) -> str:
    """``1 record chunk``, ``2 record chunks``, ``1,234 transactions``."""
    word = noun if n == 1 else (many or noun + "s")
    return f"{n:,} {word}"


def elide(text: str | Text, width: int, *, head: float = 0.6) -> Text:
    """``text`` in at most ``width`` cells: its middle replaced by ``…`` (``head`` of the room
    for the beginning, the rest for the end), so both distinguishing ends stay.  Styles kept."""
    t = text.copy() if isinstance(text, Text) else Text(str(text))
    t.no_wrap = True
    t.end = ""
    n = len(t.plain)
    if t.cell_len <= width:
        return t
    if width <= 0:
        return Text("")
    if width == 1:
        return Text(ELLIPSIS)
    room = width - 1
    a = max(1, round(room * head)) if room > 1 else room
    b = room - a
    snapped = _on_items(t.plain, room, a)
    if snapped is not None:
        a, b = snapped
    out = t[:a]
    out.append(ELLIPSIS, style="dim")
    if b:
        out.append_text(t[n - b:])
    out.no_wrap = True
    out.end = ""
    if out.cell_len > width:  # wide characters: fall back to a plain cut
        out.truncate(width, overflow="ellipsis")
    return out


#: what separates the items of a list on screen: ``a, b`` and ``A1=T5 ✓ 0.83 · A2=T7 ✗ 0.41``
_SEPARATOR = re.compile(r", | · ")


def _on_items(plain: str, room: int, a: int) -> tuple[int, int] | None:
    """For a list (``a, b, c``): the cut on item boundaries — (head length, tail length) with
    whole items at both ends, so no item (an id, a score) is cut in part — or None when the
    first item alone does not fit."""
    seps = [(m.start(), m.end()) for m in _SEPARATOR.finditer(plain)]
    if not seps:
        return None
    heads = [i for i, _ in seps if i <= room]
    if not heads:
        return None
    # the head ends at the separator nearest the planned cut, at or before it when one is
    head = max((i for i in heads if i <= a), default=min(heads))
    n = len(plain)
    tails = [n - j for i, j in seps if n - j <= room - head and j > head]
    tail = max(tails, default=0)
    if not tail and not re.search(r"\d[\s)\]]*$", plain[seps[-1][1]:]):
        return None  # a list of names keeps both its ends, even cut inside a word
    return head, tail


def elide_str(text: str, width: int, *, head: float = 0.6) -> str:
    """:func:`elide` for a plain string (titles, labels)."""
    return elide(text, width, head=head).plain


def fit(text: str | Text, width: int, keep: Sequence[tuple[int, int]] = ()) -> Text:
    """``text`` in ``width`` cells with the ranges ``keep`` (character offsets) on screen: the
    stretches between them lose their middles, the last stretch its end.  A kept range longer
    than two thirds of the room loses its own middle (both its ends stay, and some of what
    surrounds it); kept ranges that still do not fit are dropped from the last.  Without
    ``keep``: :func:`elide`."""
    t = text.copy() if isinstance(text, Text) else Text(str(text))
    t.no_wrap = True
    t.end = ""
    if t.cell_len <= width:
        return t
    n = len(t.plain)
    ranges = sorted((max(0, a), min(n, b)) for a, b in keep if b > a)
    merged: list[list[int]] = []
    for a, b in ranges:
        if merged and a <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], b)
        else:
            merged.append([a, b])
    if not merged:
        return elide(t, width)
    most = max(width * 2 // 3, min(width, 12))

    def keep_piece(a: int, b: int) -> Text:
        # a kept range too long for the room loses its middle -- but not a smaller kept range
        # inside it (a search hit inside the row's own generalised item): the cut goes around that
        inner = [(x - a, y - a) for x, y in ranges if a <= x and y <= b and (x, y) != (a, b)]
        piece = t[a:b]
        if inner and piece.cell_len > most:
            return fit(piece, most, inner)
        return elide(piece, most, head=0.5)

    kept = [keep_piece(a, b) for a, b in merged]

    def need(k: int) -> int:
        # the first k kept pieces plus one ellipsis for each stretch cut around them
        return sum(len(x.plain) for x in kept[:k]) + k + 1

    count = len(merged)
    while count > 1 and need(count) > width:
        count -= 1
    merged, kept = merged[:count], kept[:count]
    # the stretches around the kept ranges, and the room they share
    gaps: list[tuple[int, int]] = []
    pos = 0
    for a, b in merged:
        gaps.append((pos, a))
        pos = b
    gaps.append((pos, n))
    room = max(width - sum(len(x.plain) for x in kept), 0)
    # a separator between two kept ranges (", ") stays whole; the longer stretches share the rest
    small = [i for i, (a, b) in enumerate(gaps) if 0 < i < len(gaps) - 1 and b - a <= 3]
    room_small = min(room, sum(gaps[i][1] - gaps[i][0] for i in small))
    room -= room_small
    total = sum(b - a for i, (a, b) in enumerate(gaps) if i not in small) or 1
    shares = [0 if i in small else min(b - a, max(1 if b > a else 0, room * (b - a) // total))
              for i, (a, b) in enumerate(gaps)]
    for i in small:
        shares[i] = min(gaps[i][1] - gaps[i][0], room_small)
        room_small -= shares[i]
    room += room_small + sum(shares[i] for i in small)  # the whole room again, for what rounding left
    spare = room - sum(shares)
    for i, (a, b) in enumerate(gaps):  # hand out what rounding left, first stretch first
        add = max(min(spare, (b - a) - shares[i]), 0)
        shares[i] += add
        spare -= add
    out = Text("", no_wrap=True, end="")
    for i, (a, b) in enumerate(gaps):
        piece = t[a:b]
        if b - a > shares[i]:
            if i == len(gaps) - 1:  # the end of a row: cut, keep its beginning
                room_end = max(shares[i] - 1, 0)
                # a list is cut between items (an id is never cut in part) when one whole item fits
                seps = [m.end() for m in _SEPARATOR.finditer(piece.plain) if m.end() <= room_end]
                piece = piece[: seps[-1] if seps else room_end]
                piece.append(ELLIPSIS, style="dim")
            else:
                piece = elide(piece, shares[i], head=0.5 if i else 0.7)
        out.append_text(piece)
        if i < len(kept):
            out.append_text(kept[i])
    if out.cell_len > width:
        out.truncate(width, overflow="ellipsis")
    return out


#: a bar's width in cells (the summaries' charts)
BAR_WIDTH = 16


def bar(value: float | None, width: int = BAR_WIDTH) -> Text:
    """A horizontal bar of eighths; readable without colour."""
    if value is None:
        return Text("—".ljust(width), style="dim")
    eighths = round(max(0.0, min(1.0, value)) * width * 8)
    full, part = divmod(eighths, 8)
    s = "█" * full + (" ▏▎▍▌▋▊▉"[part] if part else "")
    return Text(s.ljust(width), style="bold")


def share_room(natural: Sequence[int], room: int, least: Sequence[int] | None = None, *,
               spread: bool = True) -> list[int]:
    """The widths of columns that want ``natural`` cells each, in ``room`` cells: every column
    whole when they all fit (what is left over shared out evenly, unless not ``spread``); else the narrow ones whole and
    the wide ones cut to one common width (never under ``least``, their floor) — a column is cut
    only when the table does not fit, and then the widest give way first."""
    n = len(natural)
    if not n:
        return []
    floor = [min(f, w) for f, w in zip(least or [0] * n, natural)]
    if sum(natural) <= room:
        if not spread:
            return list(natural)
        spare = room - sum(natural)
        return [w + spare // n + (1 if i < spare % n else 0) for i, w in enumerate(natural)]
    if sum(floor) >= room:
        return list(floor)

    def used(cap: int) -> int:
        return sum(max(f, min(w, cap)) for f, w in zip(floor, natural))

    lo, hi = 0, max(natural)
    while lo < hi:  # the largest common width the room allows
        mid = (lo + hi + 1) // 2
        if used(mid) <= room:
            lo = mid
        else:
            hi = mid - 1
    out = [max(f, min(w, lo)) for f, w in zip(floor, natural)]
    spare = room - sum(out)
    for i in sorted(range(n), key=lambda i: -natural[i]):  # what rounding left: the widest first
        if spare <= 0:
            break
        if out[i] < natural[i]:
            out[i] += 1
            spare -= 1
    return out


def wrap_words(text: Text, width: int, console) -> list[Text]:
    """``text`` over lines of ``width`` cells, broken between words (a word longer than the
    line alone is folded)."""
    t = text.copy()
    t.no_wrap = False
    t.overflow = "fold"
    t.end = ""
    return list(t.wrap(console, max(width, 1))) or [Text("")]
