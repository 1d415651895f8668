"""What the assessment screen shows of its document, a view a class: the attacks ranked, the records
at risk, the items exposed, the verdict line (every figure the document's; these rank and lay out).
The screen (:mod:`semtui.tui.screens.assessment`) switches between them."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.binding import BindingType
from textual.widgets import Static

from semtui.tui.components.vtable import Column, VirtualTable
from semtui.tui.keys import only
from semtui.wording import (
    interval,
    record_clauses,
    record_words,
)


# --------------------------------------------------------------------------- reading the document
def with_interval(figures: dict, key: str, digits: int = 3) -> str:
    v = figures.get(key)
    if not isinstance(v, (int, float)):
        return "–"
    iv = interval(figures, key)
    return f"{v:.{digits}f}" + (f" [{iv[0]:.{digits}f}, {iv[1]:.{digits}f}]" if iv else "")


def ranked_attacks(doc: dict) -> list[dict]:
    """Every attack of the document as a row, strongest first: the attacks that beat chance by
    what they take back (then precision), the others after them, unscored attacks by what they
    eliminated or placed, then the baselines and the cover problem.  A knowledge run is one row
    per knowledge table (each is an attack of its own, with its own command)."""
    from semtui.assess import beats_chance, rank

    strongest = (doc.get("strongest") or {}).get("command")
    # one row per distinct attack: two knowledge runs share their semantics table (TBA on it is the
    # same attack whether PBA's run or TBA's ran it), and the semantics table uses the measure
    # alone, so it is the attack of that method and measure without a background
    rows: dict[tuple, dict] = {}
    for a in doc.get("attacks", []):
        if a.get("by_knowledge"):
            for v, c in a["by_knowledge"].items():
                method = c.get("method") or a.get("method")
                alone = v == "semantics"
                same = (a.get("family"), method, a.get("measure"), None if alone else a.get("background"),
                        None if alone else v)
                row = {**a, "attack": f"{(method or '?').upper()} on the {v} table", "figures": c.get("figures") or {},
                       "command": c.get("command", a.get("command")), "needs": c.get("needs", a.get("needs"))}
                if same in rows:
                    rows[same].setdefault("same_as", []).append(row["command"])
                else:
                    rows[same] = row
        else:
            same = (a.get("family"), a.get("method"), a.get("measure"), a.get("background"), a.get("knowledge"))
            if a.get("method") is None or a.get("role") != "attack":
                same = (id(a),)  # a baseline or the cover problem: a row of its own
            row = dict(a)  # the plain attack's row (its command needs no background) wins
            if same in rows:
                row["same_as"] = [rows[same]["command"], *rows[same].get("same_as", [])]
            rows[same] = row
    rows = list(rows.values())
    role_order = {"attack": 0, "baseline": 1, "cover": 2}
    for r in rows:
        f = r.get("figures") or {}
        r["beats"] = bool(f) and r.get("role") == "attack" and beats_chance(f)
        r["strongest"] = strongest is not None and strongest in (r.get("command"), *r.get("same_as", ()))
    def key(r):
        f = r.get("figures") or {}
        done = r.get("eliminations", r.get("placements", 0)) or 0
        return (role_order.get(r.get("role"), 3), not r["strongest"], not r["beats"],
                tuple(-x for x in rank(f)) if f else (0, 0), -done)
    return sorted(rows, key=key)


def attack_cells(r: dict) -> dict:
    """The table's cells of one attack row, per family."""
    f = r.get("figures") or {}
    mark = "★" if r["strongest"] else "✓" if r["beats"] else "·"
    if r.get("family") == "cover":
        return {"mark": mark, "attack": r.get("attack", "?"),
                "take": f"{f.get('breaches', 0):,}/{f.get('cover_problems', 0):,} breaches",
                "p": f"{f.get('vulnerable_records', 0)} vuln. records", "r": "", "chance": ""}
    if r.get("family") == "reassociation":
        if not f:
            return {"mark": mark, "attack": r.get("attack", "?"), "take": f"{r.get('placements', 0):,} placed",
                    "p": "unscored", "r": "", "chance": ""}
        lift = f.get("lift_over_random")
        return {"mark": mark, "attack": r.get("attack", "?"),
                "take": f"{f.get('correct', 0):,}/{f.get('placements', 0):,}",
                "p": "acc " + with_interval(f, "accuracy"),
                "r": "brk " + (f"{f['transaction_breakage']:.3f}" if isinstance(f.get("transaction_breakage"), (int, float)) else "–"),
                "chance": "–" if not isinstance(lift, (int, float)) else f"lift {lift:.2f}"}
    if not f:
        return {"mark": mark, "attack": r.get("attack", "?"), "take": f"{r.get('eliminations', 0):,} elim.",
                "p": "unscored", "r": "", "chance": ""}
    er = f.get("error_ratio")
    return {"mark": mark, "attack": r.get("attack", "?"),
            "take": f"{f.get('correct', 0):,}/{f.get('added', 0):,}",
            "p": "P " + with_interval(f, "precision"), "r": "R " + with_interval(f, "recall"),
            "chance": "–" if not isinstance(er, (int, float)) else f"err {er:.2f}"}


def tlabel(rec: dict) -> str:
    """A record's label as the release screens write it: T1 is the first transaction (the
    document's ``transaction`` counts from 0)."""
    t = rec.get("transaction")
    return f"T{t + 1}" if isinstance(t, int) else "T?"


#: what the record exposes, in words (the engine's, as ``semtui assess`` prints it)
record_text = record_words


# --------------------------------------------------------------------------- tables
class _DocTable(VirtualTable):
    BINDINGS: ClassVar[list[BindingType]] = only("table.sort_asc", "table.sort_desc")

    def action_sort(self, descending: bool) -> None:
        self.app.notify("this table keeps the assessment's order (strongest / most at risk first)")


class AttacksTable(_DocTable):
    def __init__(self, rows: list[dict], **kw) -> None:
        super().__init__(empty="the assessment ran no attack", **kw)
        self.rows = rows
        self.pinned = 2

    def on_mount(self) -> None:
        cells = [attack_cells(r) for r in self.rows]
        # figures are right-justified: a column that does not fit is left out whole (l scrolls to it),
        # never cut
        cols = [Column("n", "#", len(str(len(cells))) or 1, "right"), Column("mark", "", 1),
                Column("attack", "attack", None, min_width=16), Column("take", "took back", 11, "right"),
                Column("p", "precision / accuracy [95%]", 25, "right"), Column("r", "recall [95%]", 21, "right"),
                Column("chance", "vs chance", 9, "right")]
        for c in cols[3:]:
            c.width = max([c.width or 0, len(c.label)] + [len(x[c.key]) for x in cells])

        def row(i: int):
            cs = cells[i]
            mark = Text(cs["mark"], style="bold red" if cs["mark"] == "★" else "")
            return [str(i + 1), mark, cs["attack"], cs["take"], cs["p"], cs["r"], cs["chance"]]

        self.set_rows(len(cells), row, cols)

    @property
    def current(self) -> dict | None:
        return self.rows[self.cursor_row] if self.row_count else None

    def action_copy(self) -> None:
        """``y``: the command that reproduces the attack under the cursor."""
        r = self.current
        if r is not None and r.get("command"):
            self.app.copy_to_clipboard(r["command"])
            self.app.notify(f"copied: {r['command'][:70]}")


def no_records_text(doc: dict) -> str:
    """What an empty records view says: a disassociated release assessed without its key, or any
    release without its original, cannot name records -- which is not "none is at risk"."""
    if doc.get("kind") == "disassociated" and not doc.get("key"):
        return ("no record can be named without the key (the attacks table counts what the cover and "
                "re-association attacks reach): assess with --key and --original to list them")
    if not doc.get("original"):
        return "no record can be named without the original: assess with --original to list them"
    return "no record is implicated"


class RecordsTable(_DocTable):
    """One record at risk over as many lines as it has clauses (``re-identified: …``, then
    ``reduced to a wrong item: …`` under it): each clause has the whole width, none runs into the
    next.  The record's figures are on its first line; the cursor moves by line, ``current`` is
    the line's record."""

    def __init__(self, records: list[dict], empty: str = "no record is implicated", **kw) -> None:
        super().__init__(empty=empty, **kw)
        self.records = records
        self.pinned = 2
        #: per line: (its record, the clause's index within it)
        self.lines: list[tuple[int, int]] = []

    def on_mount(self) -> None:
        recs = self.records
        setgen = any("eliminated" in r for r in recs)
        w = max([len(tlabel(r)) for r in recs] + [2])
        lw = max([len(str(r.get("line", ""))) for r in recs] + [4])
        clauses = [record_clauses(r) or ["–"] for r in recs]
        self.lines = [(i, k) for i, cs in enumerate(clauses) for k in range(len(cs))]
        if setgen:
            cols = [Column("t", "T#", w), Column("line", "line", lw, "right"), Column("reid", "re-id", 5, "right"),
                    Column("exp", "exp", 3, "right"), Column("right", "right/elim", 10, "right"),
                    Column("what", "what is exposed", None, min_width=20)]

            def figures(r: dict) -> list[str]:
                right = "–" if r.get("correct") is None else str(r["correct"])
                return [tlabel(r), str(r.get("line", "")), str(len(r.get("reidentified") or [])),
                        str(len(r.get("exposed") or [])), f"{right}/{r.get('eliminated', 0)}"]
        else:
            cols = [Column("t", "T#", w), Column("line", "line", lw, "right"), Column("back", "back", 4, "right"),
                    Column("breach", "breaches", 8, "right"), Column("what", "what is exposed", None, min_width=20)]

            def figures(r: dict) -> list[str]:
                return [tlabel(r), str(r.get("line", "")), str(r.get("reassociated", 0)),
                        str(len(r.get("cover_breaches") or []))]

        blank = [""] * (len(cols) - 1)

        def row(n: int):
            i, k = self.lines[n]
            return (figures(recs[i]) if k == 0 else blank) + [clauses[i][k]]

        self.set_rows(len(self.lines), row, cols)
        # the CSV: one record per record at risk (on its first line), its clauses joined
        self.set_records([c.label for c in cols],
                         lambda n: [figures(recs[self.lines[n][0]]) + [record_text(recs[self.lines[n][0]])]]
                         if self.lines[n][1] == 0 else [])

    @property
    def current(self) -> dict | None:
        if not self.row_count or not self.lines:
            return None
        return self.records[self.lines[min(self.cursor_row, len(self.lines) - 1)][0]]

    # the cursor moves by record: it rests on a record's first line, its clauses under it
    def validate_cursor_row(self, row: int) -> int:
        if not self.lines or not 0 <= row < len(self.lines):
            return row
        return row - self.lines[row][1]

    def action_cursor_down(self) -> None:
        if self.lines and self.cursor_row < len(self.lines):
            i = self.lines[self.cursor_row][0]
            nxt = next((n for n in range(self.cursor_row + 1, len(self.lines)) if self.lines[n][0] > i), None)
            if nxt is not None:
                self.cursor_row = nxt

    def action_cursor_up(self) -> None:
        if self.cursor_row > 0:
            self.cursor_row = self.cursor_row - 1  # snaps to that record's first line


class ItemsTable(_DocTable):
    def __init__(self, items: list[dict], empty: str = "no member item is exposed", **kw) -> None:
        super().__init__(empty=empty, **kw)
        self.items = items

    def on_mount(self) -> None:
        items = self.items
        noun = "groups" if any("groups" in x for x in items) else "records"
        cols = [Column("item", "item", None, min_width=20), Column("n", noun, max(len(noun), 6), "right")]
        self.set_rows(len(items), lambda i: [str(items[i].get("item", "?")),
                                             f"{items[i].get('groups', items[i].get('records', 0)):,}"], cols)


# --------------------------------------------------------------------------- the verdict
class Verdict(Static):
    """The verdict, as many lines as the box holds; when it holds fewer than the verdict needs,
    its last line ends with an ellipsis and the key that shows it whole (``i``), never cut
    silently."""

    #: the lines the box shows (the screen's CSS ``max-height``), fewer on a terminal shorter than
    #: SHORT rows (80x24), where the views below would keep only a few rows
    LINES = 6
    SHORT_LINES = 4
    SHORT = 30
    MORE = " … i: the whole verdict"

    @property
    def lines(self) -> int:
        return self.SHORT_LINES if self.app.size.height < self.SHORT else self.LINES

    def __init__(self, text: Text, **kw) -> None:
        super().__init__(text, **kw)
        self.full = text
        #: whether the box shows less than the whole verdict
        self.clamped = False

    def clamp(self, width: int) -> Text:
        """The verdict wrapped at ``width`` cells, cut to :attr:`LINES` with the marker."""
        lines = self.full.wrap(self.app.console, max(width, len(self.MORE) + 1))
        self.clamped = len(lines) > self.lines
        if not self.clamped:
            return self.full
        shown = list(lines)[: self.lines]
        last = shown[-1]
        last.rstrip()
        room = max(width - len(self.MORE), 1)
        if last.cell_len > room:  # the last line gives way by whole words, never inside one
            cut = last.plain.rfind(" ", 0, room + 1)
            last.truncate(cut if cut > 0 else room)
        last.rstrip()
        last.append(self.MORE, style="italic not bold")
        return Text("\n").join(shown)

    def on_resize(self, event) -> None:
        self.update(self.clamp(self.content_region.width or event.size.width))


# --------------------------------------------------------------------------- the screen
