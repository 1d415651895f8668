"""The reports of a disassociated release in words: the summary panel's part, and ``c``,
every result of one kind side by side (the release's figures and the highlighted cluster's)."""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from semtui.tui.components.footer import KeyFooter
from semtui.tui.keys import bindings
from semtui.tui.session import Result, Session
from semtui.tui.text import bar, elide_str, num

#: (label, path in the report's metrics) of a re-association, in the order shown
REASSOC_ROWS = (
    ("accuracy", ("accuracy",)),
    ("transaction breakage", ("transaction_breakage",)),
    ("k^m breakage", ("km_breakage",)),
    ("WMD", ("wmd",)),
    ("lift over random", ("lift_over_random",)),
    ("random: accuracy", ("baseline", "accuracy")),
    ("random: transaction breakage", ("baseline", "transaction_breakage")),
    ("random: k^m breakage", ("baseline", "km_breakage")),
    ("correct / placements", None),
    ("broken transactions", ("broken_transactions",)),
    ("exposed / protected itemsets", None),
)
CLUSTER_ROWS = (("accuracy", "accuracy"), ("breakage", "transaction_breakage"), ("correct", "correct"),
                ("placements", "placements"), ("broken", "broken_transactions"),
                ("exposed itemsets", "exposed_itemsets"))
COVER_ROWS = (("cover problems", "cover_problems"), ("breaches", "breaches"),
              ("vulnerable records", "vulnerable_records"), ("clusters with breaches", "clusters_with_breaches"),
              ("pairs that really occur", "real_pairs"))


def fmt(v) -> str:
    return num(v)


def _get(d, path):
    """A figure of typed metrics down ``path`` (``("baseline", "accuracy")``); None where there is none."""
    for k in path:
        if d is None:
            return None
        d = getattr(d, k, None)
    return d


def reassoc_value(m, label: str, path) -> str:
    """A re-association's figure (``m``: its typed metrics, None when unjudged), with its interval."""
    if path is not None:
        v = _get(m, path)
        iv = m.intervals.get(path[0]) if m is not None and len(path) == 1 else None
        return fmt(v) + (f" [{fmt(iv.low)}, {fmt(iv.high)}]" if iv else "")
    if label.startswith("correct"):
        return f"{fmt(_get(m, ('correct',)))} / {fmt(_get(m, ('placements',)))}"
    return f"{fmt(_get(m, ('exposed_itemsets',)))} / {fmt(_get(m, ('protected_itemsets',)))}"


def results_table(results: list[Result], kind: str, cluster: int | None = None) -> Table:
    """Results of one kind side by side: one column each, the release's figures (or, with
    ``cluster``, that cluster's)."""
    t = Table(box=None, padding=(0, 1), show_header=True, header_style="bold")
    t.add_column("", style="bold", no_wrap=True)
    for i, r in enumerate(results):
        t.add_column(f"{i + 1}. {r.label}", justify="right", overflow="fold")
    if kind == "cover":
        if cluster is None:
            for label, key in COVER_ROWS:
                t.add_row(label, *(fmt(getattr(r.report.summary, key)) for r in results))
        else:
            for label, key in (("cover problems", "cover_problems"), ("breaches", "breaches"),
                               ("vulnerable records", "vulnerable_records")):
                t.add_row(label, *(fmt(getattr(r.report.clusters[cluster], key)) for r in results))
        return t
    if cluster is None:
        for label, path in REASSOC_ROWS:
            t.add_row(label, *(reassoc_value(r.report.metrics, label, path) for r in results))
    else:
        for label, key in CLUSTER_ROWS:
            t.add_row(label, *(fmt(_get(r.report.clusters[cluster].metrics, (key,))) for r in results))
    return t


def render_disassoc(session: Session) -> list:
    """The summary panel's part for a disassociated release."""
    parts: list = []
    reassoc = session.latest("reassociation")
    cover = session.latest("cover")
    if reassoc is None and cover is None:
        parts += [Text("No attack yet: a re-associates the chunks, p finds the cover problems.", style="italic"),
                  Text("")]
    if reassoc is not None:
        rep = reassoc.report
        parts.append(Text(f"Re-association {reassoc.label} (ties {rep.ties})", style="bold underline"))
        m = rep.metrics
        if m is not None:
            parts.append(Text((m.intervals.reason or "95% bootstrap intervals over clusters")
                              + "; random = the budget-matched random re-association", style="dim"))
            parts.append(results_table([reassoc], "reassociation"))
            if m.wmd_note:  # not measurable is not 0
                parts.append(Text(f"WMD {m.wmd_note}.", style="dim"))
            elif m.wmd_transactions is not None and m.wmd_transactions < (m.transactions or 0):
                # measured over part of the transactions only: never read as the whole release's
                parts.append(Text(f"WMD over {m.wmd_transactions:,} of {m.transactions:,} transactions only "
                                  "(the others hold terms with no score).", style="dim"))
            from semtui.attacks.reassociation import informed_sentence

            sentence = informed_sentence(m)
            if sentence:
                parts.append(Text(sentence))
        else:
            s = rep.summary
            parts.append(Text(f"{fmt(s.placements)} placements of {fmt(s.units)} sub-records and "
                              "terms; open with --key and --original to judge them."))
        unknown = rep.unknown_terms
        if unknown:
            scorer = rep.measure or "the background"
            parts.append(Text(f"{len(unknown):,} unknown terms (no score under {scorer}): "
                              + ", ".join(unknown[:10]) + (" …" if len(unknown) > 10 else ""), style="dim"))
        parts.append(Text(""))
    if cover is not None:
        parts.append(Text(f"Cover problems, attacker {cover.report.attacker}", style="bold underline"))
        parts.append(results_table([cover], "cover"))
        parts.append(Text(""))
    scored = [r for r in session.results if r.kind == "reassociation" and r.report.metrics is not None]
    if len(scored) > 1:
        parts.append(Text("Per re-association (accuracy / breakage)", style="bold underline"))
        chart = Table.grid(padding=(0, 1))
        for _ in range(3):
            chart.add_column(no_wrap=True)
        for r in scored:
            for k, name in (("accuracy", "acc"), ("transaction_breakage", "brk")):
                v = getattr(r.report.metrics, k)
                chart.add_row(Text(f"{elide_str(r.label if k == 'accuracy' else '', 22):<22} {name}"), bar(v), fmt(v))
        parts += [chart, Text("")]
    return parts


class DisassocCompare(ModalScreen[None]):
    """``c``: every result of the current one's kind side by side."""

    HELP_TITLE = "compare results"
    DEFAULT_CSS = """
    DisassocCompare { align: center middle; }
    DisassocCompare > VerticalScroll {
        width: 100%; height: auto; max-height: 100%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    """
    BINDINGS: ClassVar[list[BindingType]] = bindings("help")

    def __init__(self, session: Session, kind: str, cluster: int | None) -> None:
        super().__init__()
        self.session = session
        self.kind = kind
        self.cluster = cluster

    def compose(self) -> ComposeResult:
        results = [r for r in self.session.results if r.kind == self.kind]
        parts: list = [Text("The release", style="bold underline"), results_table(results, self.kind)]
        if self.cluster is not None:
            cid = self.session.data.clusters[self.cluster].id
            parts += [Text(""), Text(f"Cluster {cid}", style="bold underline"),
                      results_table(results, self.kind, self.cluster)]
        with VerticalScroll() as box:
            box.can_focus = False
            box.border_title = f"{len(results)} {'cover reports' if self.kind == 'cover' else 're-associations'} side by side"
            box.border_subtitle = "escape closes"
            yield Static(Group(*parts))
        yield KeyFooter()  # the modal's own keys, not the screen's beneath

    def action_dismiss(self) -> None:
        self.dismiss(None)

    def action_top(self) -> None:
        self.query_one(VerticalScroll).scroll_home(animate=False)

    def action_bottom(self) -> None:
        self.query_one(VerticalScroll).scroll_end(animate=False, x_axis=False)

    def action_scroll(self, lines: int) -> None:
        self.query_one(VerticalScroll).scroll_relative(y=lines, animate=False)
