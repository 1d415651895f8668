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

from semtui.tui.components.assessment_views import (
    AttacksTable,
    ItemsTable,
    RecordsTable,
    Verdict,
    no_records_text,
    ranked_attacks,
    tlabel,
)
from semtui.tui.components.footer import KeyFooter
from semtui.tui.components.plots import CellsTable, RiskUtilityPlot, cell_about
from semtui.tui.components.vtable import VirtualTable
from semtui.tui.keys import bindings
from semtui.tui.screens.base import BackOverAnother
from semtui.wording import (
    assessed_with,
    how_sure_text,
    items_heading,
    no_items_text,
    record_clauses,
    records_shown_words,
)

VIEWS = ("attacks", "records", "items", "alternatives")
VIEW_NAMES = {"attacks": "attacks ranked", "records": "records at risk", "items": "items exposed",
              "alternatives": "alternatives"}
#: the same, where the whole bar would not fit (80 columns)
VIEW_SHORT = {"attacks": "attacks", "records": "records", "items": "items", "alternatives": "alternatives"}


class AssessmentScreen(BackOverAnother, Screen):
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
    /* a short terminal (80x24) keeps the views (the risk-utility plot) more than a few rows:
       the verdict's box ends in "… i: the whole verdict" sooner */
    AssessmentScreen.-short #verdict { max-height: 4; }  /* Verdict.SHORT_LINES */
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
        self.set_class(self.app.size.height < Verdict.SHORT, "-short")
        self.show_view("attacks")
        if self.alternatives:
            table = self.query_one("#alt-table", CellsTable)
            self.query_one(RiskUtilityPlot).show(self.alternatives, table.current)

    def on_resize(self, event) -> None:
        self.set_class(event.size.width >= 110, "-wide")
        self.set_class(event.size.height < Verdict.SHORT, "-short")
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
                t.append(cell_about(cell))
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
