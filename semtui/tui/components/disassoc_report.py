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

from semtui.tui.keys import bindings
from semtui.tui.session import Result, Session
from semtui.tui.text import bar, elide_str, num
from semtui.wording import interval

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


def _get(d: dict, path):
    for k in path:
        if not isinstance(d, dict):
            return None
        d = d.get(k)
    return d


def reassoc_value(m: dict, label: str, path) -> str:
    if path is not None:
        v = _get(m, path)
        iv = interval(m, path[0]) if len(path) == 1 else None  # either shape a report holds
        return fmt(v) + (f" [{fmt(iv[0])}, {fmt(iv[1])}]" if iv else "")
    if label.startswith("correct"):
        return f"{fmt(m.get('correct'))} / {fmt(m.get('placements'))}"
    return f"{fmt(m.get('exposed_itemsets'))} / {fmt(m.get('protected_itemsets'))}"


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
                t.add_row(label, *(fmt(r.report.get("summary", {}).get(key)) for r in results))
        else:
            for label, key in (("cover problems", "cover_problems"), ("breaches", "breaches"),
                               ("vulnerable records", "vulnerable_records")):
                t.add_row(label, *(fmt(r.report["clusters"][cluster].get(key)) for r in results))
        return t
    if cluster is None:
        for label, path in REASSOC_ROWS:
            t.add_row(label, *(reassoc_value(r.report.get("metrics") or {}, label, path) for r in results))
    else:
        for label, key in CLUSTER_ROWS:
            t.add_row(label, *(fmt((r.report["clusters"][cluster].get("metrics") or {}).get(key)) for r in results))
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
        parts.append(Text(f"Re-association {reassoc.label} (ties {rep.get('ties')})", style="bold underline"))
        m = rep.get("metrics")
        if m:
            parts.append(Text(((m.get("intervals") or {}).get("reason") or "95% bootstrap intervals over clusters")
                              + "; random = the budget-matched random re-association", style="dim"))
            parts.append(results_table([reassoc], "reassociation"))
            if m.get("wmd_note"):  # not measurable is not 0
                parts.append(Text(f"WMD {m['wmd_note']}.", style="dim"))
            elif m.get("wmd_transactions") is not None and m["wmd_transactions"] < m.get("transactions", 0):
                # measured over part of the transactions only: never read as the whole release's
                parts.append(Text(f"WMD over {m['wmd_transactions']:,} of {m['transactions']:,} transactions only "
                                  "(the others hold terms with no score).", style="dim"))
            from semtui.attacks.reassociation import ReassocMetrics, informed_sentence

            sentence = informed_sentence(ReassocMetrics.from_json(m))
            if sentence:
                parts.append(Text(sentence))
        else:
            s = rep.get("summary", {})
            parts.append(Text(f"{fmt(s.get('placements'))} placements of {fmt(s.get('units'))} sub-records and "
                              "terms; open with --key and --original to judge them."))
        unknown = rep.get("unknown_terms") or []
        if unknown:
            scorer = rep.get("measure") or "the background"
            parts.append(Text(f"{len(unknown):,} unknown terms (no score under {scorer}): "
                              + ", ".join(unknown[:10]) + (" …" if len(unknown) > 10 else ""), style="dim"))
        parts.append(Text(""))
    if cover is not None:
        parts.append(Text(f"Cover problems, attacker {cover.report.get('attacker')}", style="bold underline"))
        parts.append(results_table([cover], "cover"))
        parts.append(Text(""))
    scored = [r for r in session.results if r.kind == "reassociation" and r.report.get("metrics")]
    if len(scored) > 1:
        parts.append(Text("Per re-association (accuracy / breakage)", style="bold underline"))
        chart = Table.grid(padding=(0, 1))
        for _ in range(3):
            chart.add_column(no_wrap=True)
        for r in scored:
            for k, name in (("accuracy", "acc"), ("transaction_breakage", "brk")):
                v = r.report["metrics"].get(k)
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

    def action_dismiss(self) -> None:
        self.dismiss(None)

    def action_top(self) -> None:
        self.query_one(VerticalScroll).scroll_home(animate=False)

    def action_bottom(self) -> None:
        self.query_one(VerticalScroll).scroll_end(animate=False, x_axis=False)

    def action_scroll(self, lines: int) -> None:
        self.query_one(VerticalScroll).scroll_relative(y=lines, animate=False)
