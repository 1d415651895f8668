"""``r`` on a disassociated release: the records at risk, one row per (record, what reaches it),
by T# (the original transaction, 1-based, as the key numbers it) and its source line:

* a cover breach reaches the records whose sub-record holds its x (``semtui cover --key``:
  :func:`semtui.attacks.cover.problem_records`); with the original, whether the record really
  holds x with the covered item — then an attacker who knows that pair of it is right;
* a re-association breaks the records it put items back with correctly
  (:func:`semtui.assess.reassoc_records`, what ``semtui assess`` lists); the rows are the engine's
  (:func:`semtui.assess.disassoc_record_rows`).

``enter`` dives into the record: its cluster's sub-records, the record's row under the cursor,
the items concerned marked.  Needs the key (and the original for lines and for what is real).
"""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.screen import Screen
from textual.widgets import Header, Static

from semtui.tui.components.footer import KeyFooter
from semtui.tui.components.vtable import Column, VirtualTable
from semtui.tui.keys import bindings, only
from semtui.tui.messages import JobFailed, JobFinished, JobProgress
from semtui.tui.session import Session
from semtui.tui.workers import cancel_job, start_job

#: what ``r`` says when no report names a record
NO_RECORDS = ("no report names records yet: open the release with --key (and --original for the source lines), "
              "then p (cover problems) or a (re-association)")


def _sources(session: Session) -> tuple:
    """The results the view is made from: the latest cover report and the latest re-association
    that beats chance (either may be None)."""
    return session.latest("cover"), reassociation_beating_chance(session)


def found_rows(session: Session) -> list[dict] | None:
    """The rows already found for the session's current results (:attr:`Session.records_found`),
    or None."""
    if session.records_found is None:
        return None
    made_from, rows = session.records_found
    return rows if all(a is b for a, b in zip(made_from, _sources(session))) else None


def records_at_risk(session: Session, progress=None) -> list[dict]:
    """The rows of the view, from the latest cover report and the latest re-association
    (:func:`semtui.assess.disassoc_record_rows`, the engine's) -- a re-association only when it
    beats chance (:func:`semtui.assess.beats_chance`): one no better than random reaches no
    record by what it knows.  Seconds on a large release (260,585 rows of MEPS's cover report:
    about 8 s), so the view finds them in a worker; ``progress`` may raise to cancel."""
    from semtui.assess import disassoc_record_rows

    cover, reassoc = sources = _sources(session)
    rows = disassoc_record_rows(None if cover is None else cover.report, None if reassoc is None else reassoc.report,
                                session.original, session.key, session.data, progress=progress)
    session.records_found = (sources, rows)
    return rows


def none_reached(session: Session) -> str:
    """What the view says when no row is found: how to get a report that names records, or
    that the results there reach no record."""
    cover, reassoc = _sources(session)
    if cover is None and reassoc is None:
        return NO_RECORDS
    found = ([] if cover is None else ["the cover report finds no breach"]) + \
            ([] if reassoc is None else ["the re-association puts no item back correctly"])
    return "no record is reached: " + "; ".join(found)


def reassociation_beating_chance(session: Session):
    """The latest re-association when it beats chance (lift over random > 1, something right)."""
    from semtui.assess import beats_chance

    r = session.latest("reassociation")
    return r if r is not None and r.metrics is not None and beats_chance(r.metrics) else None


def no_better_than_chance(session: Session) -> str:
    """What the view says of a judged re-association it leaves out (it does no better than
    random), or ''."""
    from semtui.wording import no_better_than_chance_words

    r = session.latest("reassociation")
    m = r.metrics if r is not None else None
    if r is None or m is None or reassociation_beating_chance(session) is not None:
        return ""
    return no_better_than_chance_words(r.label, m)


class RecordsTable(VirtualTable):
    BINDINGS: ClassVar[list[BindingType]] = only("table.sort_asc", "table.sort_desc")

    KEYS = ("T", "line", "cluster", "source", "real", "what")

    def __init__(self, rows: list[dict], **kw) -> None:
        super().__init__(empty=NO_RECORDS, **kw)
        self.data = rows
        self.pinned = 1

    def action_sort(self, descending: bool) -> None:
        key = self.KEYS[min(self.cursor_col, len(self.KEYS) - 1)]
        keep = self.data[self.cursor_row] if self.row_count else None
        self.data.sort(key=lambda d: (d[key] is None, str(d[key]) if key in ("cluster", "source", "what")
                                      else (d[key] or 0)), reverse=descending)
        self.sort_marks = {self.cursor_col: " ▼" if descending else " ▲"}
        self.fill()
        if keep is not None:
            self.move_to(self.data.index(keep))

    def fill(self) -> None:
        d = self.data
        t_w = max((len(f"T{r['T']}") for r in d), default=2)
        l_w = max((len(str(r["line"])) for r in d if r["line"] is not None), default=4)

        def row(i: int):
            r = d[i]
            real = r["real"]
            mark = Text("yes", style="bold red") if real else Text("no" if real is False else "—", style="dim")
            return [f"T{r['T']}", "—" if r["line"] is None else str(r["line"]), str(r["cluster"]), r["source"],
                    mark, r["what"]]

        cols = [Column("T", "T#", max(t_w, 3)), Column("line", "line", max(l_w, 4), "right"),
                Column("cluster", "cluster", max(max((len(str(r["cluster"])) for r in d), default=7), 7)),
                Column("source", "by", 14), Column("real", "real", 4),
                Column("what", "what reaches it (items)", None, min_width=20)]
        self.set_rows(len(d), row, cols, cursor=self.cursor_row)
        self.set_records(["T", "line", "cluster", "by", "real", "what"],
                         lambda i: [[d[i]["T"], d[i]["line"], d[i]["cluster"], d[i]["source"], d[i]["real"],
                                     d[i]["what"]]])


class RecordsScreen(Screen[dict | None]):
    """Returns the row to dive into (its cluster, T# and items), or None."""

    HELP_TITLE = "records at risk"
    HELP = ("Every record a cover breach or a re-association reaches, by T# (the original transaction) and its "
            "source line. real: yes when the record really holds x with the covered item (cover) — an attacker "
            "who knows that pair of it is right — or got items back correctly (re-association); no: it holds x "
            "only. [ ] sort by the current column, z draws the cursor row whole, enter dives into the record in its cluster, ctrl+s saves the "
            "list as CSV (private).")

    DEFAULT_CSS = """
    RecordsScreen #records-status { height: auto; padding: 0 1; background: $boost; }
    RecordsScreen RecordsTable { border: round $accent; border-title-color: $text-accent; }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings("records")

    def __init__(self, session: Session) -> None:
        super().__init__()
        self.session = session
        #: None until found (in a worker: seconds on a large release)
        self.rows: list[dict] | None = found_rows(session)

    def compose(self) -> ComposeResult:
        yield Header(icon="")
        yield Static(self._status(), id="records-status", markup=False)
        table = RecordsTable(self.rows or [], id="records")
        # not "no report names records" while they are being found
        table.empty_message = "finding them…" if self.rows is None else none_reached(self.session)
        table.border_title = self._title()
        yield table
        yield KeyFooter()

    def _status(self, finding: str = "") -> str:
        rows = self.rows
        if rows is None:
            return f"finding the records at risk{': ' + finding if finding else ''}… (escape cancels)"
        distinct = len({r["T"] for r in rows})
        real = len({r["T"] for r in rows if r["real"]})
        status = f"{distinct:,} records reached, {real:,} really (real = yes)" if rows else none_reached(self.session)
        left_out = no_better_than_chance(self.session)
        return f"{left_out}\n{status}" if left_out else status

    def _title(self) -> str:
        """The table's title, with its rows when a record has several (one per what reaches it)."""
        rows = self.rows or []
        if len(rows) == len({r["T"] for r in rows}):
            return "Records at risk"
        return f"Records at risk · {len(rows):,} rows (a record once per what reaches it)"

    def on_mount(self) -> None:
        self.title = "records at risk"
        table = self.query_one(RecordsTable)
        table.fill()
        table.focus()
        if self.rows is None:
            start_job(self, "records", records_at_risk, self.session)

    def on_job_progress(self, message: JobProgress) -> None:
        message.stop()
        if self.rows is None and message.total:
            self.query_one("#records-status", Static).update(
                self._status(f"{message.message} {message.done:,}/{message.total:,}"))

    def on_job_finished(self, message: JobFinished) -> None:
        message.stop()
        self.rows = message.result
        table = self.query_one(RecordsTable)
        table.data = self.rows
        table.empty_message = none_reached(self.session)
        table.border_title = self._title()
        table.fill()
        self.refresh_bindings()  # enter has a record to go to now, or none
        self.query_one("#records-status", Static).update(self._status())

    def on_job_failed(self, message: JobFailed) -> None:
        message.stop()
        if not message.cancelled:
            self.query_one("#records-status", Static).update(f"the records at risk could not be found: {message.error}")

    def check_action(self, action: str, parameters) -> bool | None:
        """``enter`` (Go to the record) dimmed while there is no record to go to."""
        return None if action == "open_record" and not self.rows else True

    def action_open_record(self) -> None:
        table = self.query_one(RecordsTable)
        if self.rows and table.row_count:
            self.dismiss(self.rows[table.cursor_row])

    def on_virtual_table_selected(self, event: VirtualTable.Selected) -> None:
        event.stop()
        self.action_open_record()

    def action_close(self) -> None:
        cancel_job(self, "records")  # the worker stops at its next progress call (milliseconds)
        self.dismiss(None)

    def action_wrap(self) -> None:
        """``z``: the cursor row drawn whole (a long list of items wrapped), or not."""
        table = self.query_one(RecordsTable)
        table.set_wrap(not table.wrap)
