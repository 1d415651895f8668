"""Disassociated releases: the cover problems the engine's ``semtui cover`` report found, in
the right pane's problems view (``x``: of the highlighted cluster or of the whole release).

A cover problem is shown as the report states it: x with its chunk and support, the covered
item y*, the covering items, the supports of I and whether it is a breach (and a real one,
with the original); ``enter`` marks its items in the cluster's views
(:func:`problem_items`, :mod:`.clusters`).
"""

from __future__ import annotations

from rich.text import Text

from semtui.attacks.cover import covering_words
from semtui.tui.components.cells import Cell, KeptText
from semtui.tui.components.clusters import ClusterIndex
from semtui.tui.components.vtable import Column, VirtualTable
from semtui.tui.session import Session
from semtui.tui.text import plural
from semtui.wording import most_breaches_words, problem_chunk_names

#: what a cover problem is (the screen's help and the problems view's tooltip)
COVER_HELP = (
    "A cover problem: item x of record chunk Cj and an earlier chunk Cl where every sub-record holding "
    "the least frequent item y* of I = {items of Cl at least as frequent as x} also holds all of I. Had x "
    "gone with y*, it would have gone with all of I and disassociation would have kept them together; "
    "so an attacker who knows {x, y*} occur together learns more than the release allows (a breach for "
    "that attacker). A cluster's vulnerable records: its largest per-chunk breach count."
)


class ProblemsView(VirtualTable):
    """The cover report's problems of the highlighted cluster, or of the whole release."""

    def __init__(self, session: Session, **kw) -> None:
        super().__init__(empty="no cover report yet: press p to find the cover problems", **kw)
        self.session = session
        self.index: ClusterIndex | None = None
        self.all_clusters = False
        self.rows: list[int] = []
        self._showing: int | None = None
        self.tooltip = COVER_HELP

    def problem(self, row: int):
        """The cover problem on ``row`` (:class:`~semtui.attacks.cover.ProblemEntry`), or None."""
        result = self.session.latest("cover")
        if result is None or not (0 <= row < len(self.rows)):
            return None
        return result.report.cover_problems[self.rows[row]]

    def on_resize(self) -> None:
        """The columns' widths follow the room (the covered item's share, the supports)."""
        if self.index is not None and self.session.latest("cover") is not None:
            self.show(self.index, self._showing)

    def show(self, index: ClusterIndex, c: int | None) -> None:
        self.index = index
        self._showing = c
        result = self.session.latest("cover")
        if result is None:
            self.rows = []
            self.empty_message = "no cover report yet: press p to find the cover problems"
            self.set_rows(0, lambda i: (), [Column("x", "", None)])
            self.border_title = "Cover problems"
            self.border_subtitle = ""
            return
        report = result.report
        self.empty_message = ("no cover problem in the release" if self.all_clusters
                              else "no cover problem in this cluster (x: every cluster's)")
        problems = report.cover_problems
        if self.all_clusters:
            self.rows = list(range(len(problems)))
        else:
            cid = index.data.clusters[c].id if c is not None else None
            self.rows = index.problems(result).get(cid, [])
        has_real = any(problems[i].real is not None for i in self.rows[:1])
        shown = [problems[i] for i in self.rows[:2000]]
        # numbers are never cut: the supports column is as wide as its longest list; x, the covered
        # item y* and the covering items share the rest (each whole when all fit, else the longest
        # cut first), x keeping at least X_NAME_LEAST cells of its name beside its chunk and
        # support (at 80 columns it kept 1), y* at least 12
        supports_w = max((len(supports_text(p)) for p in shown), default=8)
        covered_w = max((len(", ".join(p.covered)) for p in shown), default=10)
        x_least = max((len(_x_cell(p, index.data).plain) - len(p.x) for p in shown), default=6) + X_NAME_LEAST
        columns = []
        if self.all_clusters:
            columns.append(Column("cluster", "cluster", max(7, max((len(str(p.cluster)) for p in shown),
                                                                     default=7))))
        columns += [
            Column("x", "x (chunk, support)", None, min_width=max(14, x_least)),
            Column("covered", "y* covered", None, min_width=min(covered_w, 12)),
            Column("covering", "covering items", None, min_width=10),
            Column("in", "in", 3),
            Column("supports", "supports", max(supports_w, 8), "right"),
            Column("itemset", "s(I)", 4, "right"),
            Column("breach", "breach", 6),
        ]
        if has_real:
            columns.append(Column("real", "real", 4))

        def row(i: int) -> list[Cell]:
            p = problems[self.rows[i]]
            out: list[Cell] = [p.cluster] if self.all_clusters else []
            out += [
                _x_cell(p, self.index.data),
                Text(", ".join(p.covered), style="bold"),
                covering_words(p),
                problem_chunk_names(self.index.data, p)[1],
                supports_text(p),
                str(p.itemset_support),
                Text("yes", style="bold red") if p.breach else Text("no", style="dim"),
            ]
            if has_real:
                out.append("yes" if p.real else "no")
            return out

        self.set_rows(len(self.rows), row, columns, cursor=self.cursor_row if self.rows else 0)
        who = report.attacker
        if self.all_clusters:
            s = report.summary
            self.border_title = "Cover problems of the release"
            self.border_subtitle = (f"{plural(s.cover_problems or 0, 'problem')} · "
                                    f"{plural(s.breaches or 0, 'breach', 'breaches')} · "
                                    f"{plural(s.vulnerable_records or 0, 'vulnerable record')} · attacker {who}")
        else:
            cl = report.clusters[c] if c is not None else None
            self.border_title = f"Cover problems of cluster {cl.id if cl is not None else ''}"
            self.border_subtitle = (f"{plural(cl.cover_problems if cl is not None else 0, 'problem')} · "
                                    f"{plural(cl.breaches if cl is not None else 0, 'breach', 'breaches')}"
                                    + (f", {most_breaches_words(cl)}" if cl is not None and cl.breaches else "")
                                    + f" · attacker {who}"
                                    " · enter marks the items")


#: the least of x's name its column shows beside its chunk and support
X_NAME_LEAST = 7


def _x_cell(p, data=None) -> KeptText:
    """``x (C2, 5)``: the chunk (its one name: ``J1/S1`` for a shared chunk) and the support,
    never cut."""
    tail = f" ({problem_chunk_names(data, p)[0]}, {p.support_x})"
    return KeptText(p.x + tail, keep=[(len(p.x), len(p.x) + len(tail))])


def supports_text(p) -> str:
    """The supports of the items of I (a :class:`~semtui.attacks.cover.ProblemEntry`), in the report's order."""
    return " ".join(str(v) for _, v in p.supports)


def problem_items(p) -> frozenset[str]:
    """The items a cover problem involves: x, the covered item(s) and the covering ones."""
    return frozenset([p.x, *p.covered, *p.covering])
