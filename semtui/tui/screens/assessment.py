"""The assessment screen: a ``semtui-assessment/1`` document (``semtui open --report A.json``, or
``A`` on a release screen, which runs the engine's assessment in a worker).

At the top the verdict and how sure; below, one view at a time (``v``, or ``1``–``4``): the
attacks ranked, the records at risk (``enter`` dives into the record in its group or cluster on
the release screen), the items most often exposed, and the safer alternatives as a risk–utility
plot with their table (``enter`` opens that alternative's release).  Every figure is the
document's: this screen ranks and lays out, it computes nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Container, Vertical
from textual.screen import Screen
from textual.widgets import ContentSwitcher, Header, Static

from semtui.tui.components.footer import KeyFooter
from semtui.tui.components.plots import CellsTable, RiskUtilityPlot
from semtui.tui.components.vtable import Column, VirtualTable
from semtui.tui.keys import bindings, only
from semtui.wording import (
    assessed_with,
    how_sure_text,
    interval,
    items_heading,
    no_items_text,
    record_clauses,
    record_words,
    records_shown_words,
)

VIEWS = ("attacks", "records", "items", "alternatives")
VIEW_NAMES = {"attacks": "attacks ranked", "records": "records at risk", "items": "items exposed",
              "alternatives": "alternatives"}
#: the same, where the whole bar would not fit (80 columns)
VIEW_SHORT = {"attacks": "attacks", "records": "records", "items": "items", "alternatives": "alternatives"}


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

    #: the lines the box shows (CSS ``max-height`` below)
    LINES = 6
    MORE = " … i: the whole verdict"

    def __init__(self, text: Text, **kw) -> None:
        super().__init__(text, **kw)
        self.full = text
        #: whether the box shows less than the whole verdict
        self.clamped = False

    def clamp(self, width: int) -> Text:
        """The verdict wrapped at ``width`` cells, cut to :attr:`LINES` with the marker."""
        lines = self.full.wrap(self.app.console, max(width, len(self.MORE) + 1))
        self.clamped = len(lines) > self.LINES
        if not self.clamped:
            return self.full
        shown = list(lines)[: self.LINES]
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
class AssessmentScreen(Screen):
    HELP_TITLE = "assessment"
    HELP = ("The verdict and how sure at the top; v (or 1–4) changes the view below: the attacks ranked "
            "(★ the strongest, ✓ beats a random attacker with the same budget, · does not; y copies the command "
            "that reproduces it), the records at risk (T1 is the first transaction, as on the release screens; "
            "the document's 'transaction' counts from 0; line: its source line; enter dives "
            "into the record in its group or cluster on the release screen), the items most often exposed, and "
            "the alternatives: risk (the strongest attack's take) against utility, one point per candidate "
            "release (◆ Pareto frontier: no other is both less risky and more useful; T this release; * the "
            "chosen one; @ the cursor); enter opens that alternative's release. i shows the verdict and how "
            "sure whole (the box at the top ends in … when it holds less). R runs it again (after A on a "
            "release), e exports it, escape goes back. On the release screen a record dives into, a runs the "
            "strongest attack (its options fill the form) to show why it is at risk.")

    DEFAULT_CSS = """
    AssessmentScreen #verdict { height: auto; max-height: 6; padding: 0 1; background: $boost; }
    AssessmentScreen #sure { height: auto; max-height: 4; padding: 0 1; color: $text-muted; }
    AssessmentScreen #viewbar { height: 1; padding: 0 1; }
    AssessmentScreen #views { height: 1fr; }
    AssessmentScreen #views > VirtualTable { border: round $panel; border-title-color: $text-accent; }
    AssessmentScreen #views > VirtualTable:focus { border: round $accent; }
    AssessmentScreen #about { height: auto; max-height: 4; padding: 0 1; color: $text-muted; }
    AssessmentScreen #alternatives { layout: horizontal; border: none; }  /* side by side: the plot keeps the height */
    AssessmentScreen #alt-table { border: round $panel; border-title-color: $text-accent; }
    AssessmentScreen #alt-table:focus { border: round $accent; }
    AssessmentScreen #alt-plot { height: 1fr; width: 1fr; border: round $panel; border-title-color: $text-accent; }
    AssessmentScreen.-wide #alt-plot { width: 1fr; }
    AssessmentScreen #alt-legend { height: auto; padding: 0 1; }
    AssessmentScreen #alt-table { height: 1fr; width: 1fr; }
    AssessmentScreen.-wide #alt-table { width: 1fr; }
    AssessmentScreen #no-alternatives { padding: 1 2; }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings("assess")

    def __init__(self, doc: dict, *, path: Path | None = None, origin=None, session=None) -> None:
        """``path``: the document's file (paths it names are also looked for beside it);
        ``origin``: the release screen it was run from; ``session``: the release already open."""
        super().__init__()
        self.doc = doc
        self.path = path
        self.origin = origin
        self.session = session if session is not None else getattr(origin, "session", None)
        #: written to a file (a document opened from a file counts as written)
        self.exported = path is not None
        self.attack_rows = ranked_attacks(doc)
        self.alternatives = [a for a in doc.get("alternatives") or [] if isinstance(a, dict)]
        self.view = "attacks"

    @property
    def pushed(self) -> bool:
        return len(self.app.screen_stack) > 2

    def compose(self) -> ComposeResult:
        yield Header(icon="")
        d = self.doc
        verdict = Verdict(Text(d.get("verdict") or "(no verdict)", style="bold"), id="verdict")
        verdict.border_title = "verdict"
        yield verdict
        yield Static(self.sure_text(), id="sure")
        yield Static("", id="viewbar")
        with ContentSwitcher(initial="attacks", id="views"):
            t = AttacksTable(self.attack_rows, id="attacks")
            t.border_title = ("Attacks, strongest first" if d.get("scored") else
                              "Attacks, unscored: by what each eliminated (none known right)")
            yield t
            r = RecordsTable(d.get("records_at_risk") or [], empty=no_records_text(d), id="records")
            shown = len(d.get("records_at_risk") or [])
            n = d.get("records_implicated", shown)
            r.border_title = f"Records at risk ({records_shown_words(shown, n)})"
            yield r
            i = ItemsTable(d.get("items_exposed") or [], empty=no_items_text(d), id="items")
            i.border_title = items_heading(d)
            yield i
            with Container(id="alternatives"):
                if self.alternatives:
                    with Vertical(id="alt-plot") as box:
                        box.border_title = RiskUtilityPlot.AXES
                        yield RiskUtilityPlot(id="alt-risk")
                        yield Static(RiskUtilityPlot.legend(self.alternatives), id="alt-legend")
                    # an alternative is named by its label: whole up to 22 cells ("k doubled (setgen k=6)")
                    table = CellsTable(self.alternatives, label_floor=22, id="alt-table")
                    table.border_title = "Alternatives"
                    yield table
                else:
                    yield Static(Text("This assessment lists no alternatives. semtui assess measures safer "
                                      "releases of the same family (a larger k, similar items generalised "
                                      "together, …) when it is given the original; this document has none.",
                                      style="italic"), id="no-alternatives")
        yield Static("", id="about")
        yield KeyFooter()

    def sure_text(self) -> Text:
        d = self.doc
        t = Text("How sure: ", style="bold")
        t.append(how_sure_text(d))  # the engine's words, as `semtui assess` prints them
        t.append(f"\nThe attackers were given {assessed_with(d)}.")
        if d.get("partial"):
            t.append("  · partial: interrupted, only the attacks that finished", style="bold yellow")
        return t

    # ------------------------------------------------------------------ layout
    def on_mount(self) -> None:
        d = self.doc
        name = Path(str(d.get("data") or "?")).name
        self.title = f"semtui — assessment of {name}"
        self.sub_title = f"{d.get('kind', '?')} · {'scored' if d.get('scored') else 'not scored'}"
        self.set_class(self.app.size.width >= 110, "-wide")
        self.show_view("attacks")
        if self.alternatives:
            table = self.query_one("#alt-table", CellsTable)
            self.query_one(RiskUtilityPlot).show(self.alternatives, table.current)

    def on_resize(self, event) -> None:
        self.set_class(event.size.width >= 110, "-wide")
        self.show_viewbar()

    def show_viewbar(self) -> None:
        """The views by number, the current one marked; shorter names where the whole bar would
        be cut (its key hint last)."""
        room = self.app.size.width - 2  # the bar's padding
        # a disassociated release's items were put back with their records, not exposed
        put_back = {"items": "items put back"} if self.doc.get("kind") == "disassociated" else {}
        for names in ({**VIEW_NAMES, **put_back}, VIEW_SHORT):
            bar = Text()
            for n, v in enumerate(VIEWS, 1):
                if n > 1:
                    bar.append("  ")
                bar.append(f"{n} {names[v]}", style="bold reverse" if v == self.view else "dim")
            bar.append("   v: next view", style="dim italic")
            if bar.cell_len <= room:
                break
        self.query_one("#viewbar", Static).update(bar)

    def show_view(self, view: str) -> None:
        self.view = view
        self.query_one(ContentSwitcher).current = view
        self.show_viewbar()
        target = self.focus_target()
        if target is not None:
            target.focus()
        self.update_about()

    def focus_target(self):
        if self.view == "alternatives":
            return self.query_one("#alt-table", CellsTable) if self.alternatives else None
        return self.query_one(f"#{self.view}")

    def action_verdict(self) -> None:
        """``i``: the verdict and how sure, whole, in the inspector (it scrolls)."""
        from rich.console import Group

        from semtui.tui.components.inspector import Inspector

        body = Group(self.query_one(Verdict).full, Text(""), self.sure_text())
        self.app.push_screen(Inspector("verdict", body))

    def action_next_view(self) -> None:
        self.show_view(VIEWS[(VIEWS.index(self.view) + 1) % len(VIEWS)])

    def action_view(self, view: str) -> None:
        self.show_view(view)

    def update_about(self) -> None:
        """One or two lines on what the cursor is on: the attack's needs and command, the record's
        full text, the alternative's check and attack."""
        about = self.query_one("#about", Static)
        t = Text()
        if self.view == "attacks":
            r = self.query_one(AttacksTable).current
            if r is not None:
                t.append("needs: ", style="bold")
                t.append(str(r.get("needs") or "–"))
                t.append("\nreproduce (y copies): ", style="bold")
                t.append(str(r.get("command") or "–"))
        elif self.view == "records":
            r = self.query_one(RecordsTable).current
            if r is not None:
                t.append(f"{tlabel(r)} (transaction {r.get('transaction')} from 0, line {r.get('line', '?')})",
                         style="bold")
                t.append(" · enter: into its group/cluster", style="dim")
                for clause in record_clauses(r):  # one clause a line
                    t.append("\n" + clause)
        elif self.view == "alternatives" and self.alternatives:
            c = self.query_one("#alt-table", CellsTable)
            cell = self.alternatives[c.current] if c.current is not None else None
            if cell is not None:
                t.append(_cell_about(cell))
        about.update(t)

    def on_virtual_table_highlighted(self, event: VirtualTable.Highlighted) -> None:
        if isinstance(event.table, CellsTable):
            self.query_one(RiskUtilityPlot).select(event.table.current)
        self.update_about()

    def on_virtual_table_selected(self, event: VirtualTable.Selected) -> None:
        event.stop()
        if isinstance(event.table, RecordsTable):
            self.dive(event.table.current)
        elif isinstance(event.table, CellsTable):
            i = event.table.current
            if i is not None:
                self.open_alternative(self.alternatives[i])
        elif isinstance(event.table, AttacksTable):
            self.app.notify("y copies the command that reproduces it; run it alone to see its report here "
                            "(semtui open RELEASE --report R.json)", timeout=4)

    # ------------------------------------------------------------------ diving
    def _beside(self) -> Path:
        return self.path if self.path is not None else Path.cwd() / "assessment.json"

    def open_release(self, pending=None):
        """The release screen of the assessed release, pushed over this one (escape comes back)."""
        from semtui.tui.screens.opening import release_screen

        d = self.doc
        s = d.get("strongest") or {}
        # a attacks there with the strongest attack's options (set generalisation: the form's fields)
        defaults = {k: s[k] for k in ("method", "measure", "background", "knowledge") if s.get(k)} \
            if d.get("kind") == "set-generalised" else None
        return release_screen(self, d.get("data"), self._beside(), original=d.get("original"), key=d.get("key"),
                              what="the assessed release", session=self.session, pending=pending,
                              attack_defaults=defaults or None)

    def dive(self, record: dict | None) -> None:
        """``enter`` on a record: the release screen, on the record in its group or cluster."""
        if record is None:
            return
        if self.doc.get("kind") == "disassociated" and not self.doc.get("key") and \
                (self.session is None or self.session.key is None):
            self.app.notify("which cluster holds a transaction is known only from the key: the assessment was "
                            "run without --key", severity="warning", timeout=6)
            return
        self.open_release(pending=record)

    def open_alternative(self, cell: dict) -> None:
        from semtui.tui.components.plots import is_this, label
        from semtui.tui.screens.opening import release_screen

        d = self.doc
        same = self.session is not None and (is_this(cell) or (cell.get("release") and Path(str(cell["release"])).resolve()
                                                               == Path(self.session.path).resolve()))
        release_screen(self, cell.get("release") or (d.get("data") if is_this(cell) else None), self._beside(),
                       original=d.get("original"), key=d.get("key") if is_this(cell) else None,
                       what=label(cell), session=self.session if same else None)

    # ------------------------------------------------------------------ keys
    def action_back(self) -> None:
        if self.pushed:
            self.app.pop_screen()
        else:
            self.app.notify("q quits (this is the first screen)")

    def action_rerun(self) -> None:
        """``R``: back to the release screen it was run from, running it again there."""
        origin = self.origin
        if origin is None or origin not in self.app.screen_stack:
            self.app.notify("this assessment was opened from a file: semtui open RELEASE, then A, runs one",
                            timeout=5)
            return
        while self.app.screen is not origin:
            self.app.pop_screen()
        origin.run_assessment()

    def action_export(self) -> None:
        from semtui.tui.components.export import ExportPrompt

        name = Path(str(self.doc.get("data") or "release")).stem + "-assessment.json"

        def done(path: str | None) -> None:
            if path:
                from semtui.tui.components.export import export_report
                from semtui.tui.workers import start_job

                self.notify(f"writing {path}…")
                start_job(self, "export", export_report, self.doc, Path(path), params=Path(path), progress=False)

        self.app.push_screen(ExportPrompt(name, title="Export the assessment as JSON"), done)

    def on_job_finished(self, message) -> None:
        if message.job == "export":
            self.exported = True
            entry = getattr(self, "entry", None)
            if entry is not None:
                entry[1] = True
            self.notify(f"wrote {message.params}")

    def on_job_failed(self, message) -> None:
        if message.job == "export" and not message.cancelled:
            self.app.show_error("Export failed", str(message.error))

    def quit_warning(self) -> str | None:
        if not self.exported:
            return "The assessment was never exported (e writes it): quit anyway?"
        return None


def _cell_about(cell: dict) -> Text:
    """Two lines on a cell: its label and the checker's verdict; its release and strongest attack."""
    from semtui.tui.components.plots import label

    t = Text()
    t.append(label(cell), style="bold")
    chk = cell.get("check") or {}
    if chk:
        t.append(f" · check {'passed' if chk.get('passed') else '✗ FAILED'}"
                 + (f" ({chk.get('checker')})" if chk.get("checker") else ""))
        if chk.get("detail"):
            t.append(f": {chk['detail']}")
    rel = cell.get("release")
    t.append("\n")
    t.append(f"release {rel} (enter opens it)" if rel else "no release kept (null)", style="dim")
    p = cell.get("privacy") or {}
    if p.get("attack"):
        t.append(f" · strongest attack: {p['attack']}", style="dim")
    return t
