"""The screen for disassociated releases: the clusters pane, the chunk views of a cluster
(with the key and the original: each sub-record's true transaction; after a re-association:
where each went and the reconstructed transactions), the cover-problem report, attacks run
from a form in a worker, comparison and export.

The engine does the work (:func:`semtui.attacks.reassociation.run_reassociation`,
:func:`semtui.attacks.cover.run_cover`); this screen shows their reports.
"""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import BindingType

from semtui.tui.components.clusters import VIEWS
from semtui.tui.components.problems import COVER_HELP, ProblemsView, problem_items
from semtui.tui.keys import GLOSSARY, bindings
from semtui.tui.screens.base import BaseScreen
from semtui.tui.session import Result
from semtui.tui.text import num, plural
from semtui.tui.workers import cancel_job, start_job
from semtui.wording import problem_chunk_names

#: what ``e`` proposes as the file name, per result kind
EXPORT_SUFFIX = {"reassociation": "disassoc-report", "cover": "cover-report"}


class DisassociatedScreen(BaseScreen):
    HELP_TITLE = "disassociated release"
    HELP = (BaseScreen.HELP + "\nThe right pane shows the highlighted cluster: v cycles its chunks side by side "
            "(2× = a sub-record twice, ∅ empty), its sub-records with their true transactions (with --key and "
            "--original) and where a re-association put each (A2=T5 ✓ 0.83: anchor 2, which is transaction 5, "
            "correct, score), and the reconstructed transactions beside the original ones (✗ added wrongly, dim: "
            "not brought back). a re-associates, p finds the cover problems, x lists them (enter marks the "
            "items in the chunks).\n" + COVER_HELP + "\n"
            + "\n".join(GLOSSARY[k] for k in ("assoc", "cover", "acc / brk")))

    BINDINGS: ClassVar[list[BindingType]] = bindings("disassoc")

    def __init__(self, session, attack_defaults: dict | None = None) -> None:
        super().__init__(session, attack_defaults)
        self.form_values: dict[str, dict] = {}
        self._job_title = ""

    def right_views(self) -> ComposeResult:
        yield ProblemsView(self.session, id="problems")

    @property
    def problems_view(self) -> ProblemsView:
        return self.query_one("#problems", ProblemsView)

    def before_first_show(self) -> None:
        self.list_pane.tooltip = "\n".join(GLOSSARY[k] for k in ("assoc", "cover", "acc / brk"))

    def after_first_show(self) -> None:
        if self.session.result is not None and self.session.result.kind == "cover":
            self.switcher.current = "problems"
            self.show_current()

    def companions_words(self) -> str:
        opened = self.session.opened
        return (" + key" if opened.key is not None else "") + (" + original" if opened.original is not None else "")

    def companions_opened(self) -> None:
        self.detail.cluster_index.companions_opened()
        super().companions_opened()

    def show_view(self, view: str, current: int | None) -> None:
        if view == "problems":
            pv = self.problems_view
            pv.show(self.detail.cluster_index, current)
            self.switcher.border_title = pv.border_title
            self.switcher.border_subtitle = pv.border_subtitle

    # ------------------------------------------------------------------ keys
    def check_action(self, action: str, parameters: tuple) -> bool | None:
        if action in ("attack", "cover"):
            return None if self.progress.running else True
        if action in ("export", "next_result"):
            return True if self.session.results else None
        if action == "compare":
            r = self.session.result
            return True if r is not None and sum(x.kind == r.kind for x in self.session.results) >= 2 else None
        return True

    def why_not(self, action: str) -> str | None:
        if action in ("attack", "cover") and self.progress.running:
            return "an attack is running: escape cancels it"
        if action in ("export", "next_result") and not self.session.results:
            return ("no result yet: a re-associates, p finds the cover problems (or open a report with --report)")
        if action == "compare":
            return "c compares two results of one kind: run another (a or p) first"
        return None

    def action_cycle_view(self) -> None:
        """``v``: chunks side by side → sub-records → reconstructed vs original."""
        detail = self.detail
        if self.switcher.current == "detail":
            detail.cluster_view = VIEWS[(VIEWS.index(detail.cluster_view) + 1) % len(VIEWS)]
        self.switcher.current = "detail"
        self.keep_focus_visible()
        self.refresh_detail()

    def action_recon(self) -> None:
        """``b``: the reconstructed transactions beside the original ones (again: the chunks)."""
        detail = self.detail
        detail.cluster_view = "chunks" if detail.cluster_view == "recon" and self.switcher.current == "detail" \
            else "recon"
        self.switcher.current = "detail"
        self.keep_focus_visible()
        self.refresh_detail()

    def assessment_results(self, covers: dict) -> None:
        """The assessment's strong-attacker cover report becomes this screen's cover result (x lists
        its problems, r its records), unless one is here already: a report of the user's own
        choosing is not replaced."""
        s = self.session
        strong = covers.get("strong")
        if strong is not None and s.latest("cover") is None:
            s.results.append(Result(strong, "assess"))  # the result on screen (if any) stays on screen
            self.result_changed()

    def action_problems(self) -> None:
        """``x``: the cover problems of the cluster, then of the whole release, then back."""
        pv = self.problems_view
        if self.switcher.current != "problems":
            pv.all_clusters = False
            self.switcher.current = "problems"
        elif not pv.all_clusters:
            pv.all_clusters = True
        else:
            self.switcher.current = "detail"
        self.show_current()
        self.keep_focus_visible()
        if self.session.latest("cover") is None:
            self.notify("no cover report yet: p finds the cover problems")

    def on_virtual_table_selected(self, event) -> None:
        """``enter`` on a cover problem: its items marked in the chunks of its cluster."""
        if event.table is self.problems_view:
            event.prevent_default()  # not the base screen's inspector
            self.mark_problem(event.row)

    def mark_problem(self, row: int) -> None:
        p = self.problems_view.problem(row)
        if p is None:
            return
        index = self.detail.cluster_index
        c = index.position.get(p.cluster)
        if c is not None:
            self.go_to_cluster(c, view=None)
        self.detail.showing = c
        self.detail.marked = problem_items(p)
        self.detail.cluster_view = "chunks"
        self.switcher.current = "detail"
        self.refresh_detail()
        self.detail.focus()
        x_at, i_at = problem_chunk_names(self.session.data, p)
        self.notify(f"{p.x} ({x_at}) covers {', '.join(p.covered)} in {i_at}: "
                    "marked; escape unmarks")

    def action_records(self) -> None:
        """``r``: the records a cover breach or a re-association reaches (T#, line); enter dives in."""
        from semtui.tui.components.records import RecordsScreen

        self.app.push_screen(RecordsScreen(self.session), self.dive_into_record)

    def dive_into_record(self, rec: dict | None) -> None:
        """The record's cluster, its sub-records with the record's row under the cursor and the
        items that reach it marked."""
        if rec is None:
            return
        index = self.detail.cluster_index
        c = index.position.get(rec["cluster"])
        if c is None:
            self.notify(f"no cluster {rec['cluster']!r} in this release", severity="warning")
            return
        self.go_to_cluster(c, view=None)
        detail = self.detail
        detail.cluster_view = "subrecords"
        self.switcher.current = "detail"
        self.refresh_detail()
        detail.marked = frozenset(rec["items"])
        self.refresh_detail()
        t = rec["T"] - 1
        rows = getattr(detail, "row_transactions", [])
        hits = [i for i, ts in enumerate(rows) if t in ts]
        # the record's row that holds a marked item, else its first
        best = next((i for i in hits if set(detail.cell_text(i, 1).split(", ")) & detail.marked), hits[0] if hits
                    else 0)
        detail.move_to(best)
        detail.focus()
        self.notify(f"T{rec['T']}" + (f" (line {rec['line']})" if rec.get("line") is not None else "")
                    + f" in cluster {rec['cluster']}: its items marked; escape unmarks")

    def go_to_cluster(self, c: int, view: str | None = "detail") -> None:
        lst = self.list_pane
        if not (lst.order == c).any():
            self.clear_filter()
        lst.move_to(int((lst.order == c).argmax()))
        if view is not None:
            self.switcher.current = view
        self.show_current()

    def dive_to_record(self, record: dict) -> str | None:
        """An assessment's record (an original transaction, the key's): the cluster the key puts
        it in, its sub-records view, the cursor on its own sub-record (the one holding what
        reaches it: an item put back, a breached x)."""
        import re

        t = record.get("transaction")
        key = self.session.key
        if key is None:
            return f"which cluster holds T{t + 1} is known only from the key: open the release with --key"
        c = next((i for i, ck in enumerate(key.clusters)
                  if any(t in chunk for chunk in ck.record_chunks) or any(t in ts for ts in ck.term_chunk)), None)
        if c is None:
            return f"the key puts T{t + 1} in no cluster of {self.session.path.name}"
        pos = self.detail.cluster_index.position.get(key.clusters[c].id)
        if pos is None:
            return f"the key's cluster {key.clusters[c].id} is not in {self.session.path.name}"
        self.detail.cluster_view = "subrecords"
        self.go_to_cluster(pos)
        self.refresh_detail()
        # the record's own sub-record (its true transaction, the key's), not a row that merely names
        # it (a placement "A2=T5" in the went-to column): the one holding an item that reaches it first
        rows = getattr(self.detail, "row_transactions", [])
        hits = [i for i, ts in enumerate(rows) if t in ts]
        items = set(record.get("items") or []) | {re.sub(r" \([^()]*\)$", "", b) for b in record.get("cover_breaches") or []}
        row = next((i for i in hits if set(self.detail.cell_text(i, 1).split(", ")) & items), hits[0] if hits else 0)
        self.detail.move_to(row)
        self.detail.focus()
        self.refresh_bindings()
        self.notify(f"T{t + 1} in cluster {key.clusters[c].id}")
        return None

    def action_jump(self) -> None:
        """``:``: go to a cluster by its id."""
        from semtui.tui.components.export import ExportPrompt

        def done(text: str | None) -> None:
            if not text:
                return
            c = self.detail.cluster_index.position.get(text.strip())
            if c is None:
                self.notify(f"no cluster {text.strip()!r}", severity="warning")
                return
            self.go_to_cluster(c)
            self.list_pane.focus()

        self.app.push_screen(ExportPrompt("", title="Go to cluster (its id)", check_exists=False), done)

    def cancel_jobs(self) -> bool:
        if self.progress.running:
            # stopped here at once: a worker cancelled before it started posts nothing back
            cancel_job(self, "attack")
            self._attack_done()
            self.notify("attack cancelled")
            return True
        if self.detail.marked:
            self.detail.marked = frozenset()
            self.refresh_detail()
            return True
        return False

    def inspect_focused(self, focused):
        pv = self.problems_view
        if focused is pv and pv.row_count:
            from rich.text import Text

            from semtui.attacks.cover import covering_words

            p = pv.problem(pv.cursor_row)
            x_at, i_at = problem_chunk_names(self.session.data, p)
            lines = [f"cluster {p.cluster}: x = {p.x} in {x_at} (support {p.support_x})",
                     f"I in {i_at}: covered y* = {', '.join(p.covered)}; covered by "
                     f"{covering_words(p)}",
                     "supports: " + ", ".join(f"{k} {v}" for k, v in p.supports),
                     f"support of the whole itemset I: {p.itemset_support}",
                     f"a breach for this attacker: {'yes' if p.breach else 'no'}"]
            if p.real is not None:
                lines.append(f"x and y* really occur together in an original record: {'yes' if p.real else 'no'}")
            return f"Cover problem {p.x} → {', '.join(p.covered)}", Text("\n".join(lines) + "\n\n" + COVER_HELP)
        return None

    # ------------------------------------------------------------------ results
    def action_next_result(self) -> None:
        s = self.session
        s.current = (s.current + 1) % len(s.results)
        self.result_changed()
        self.notify(f"showing {s.current + 1}/{len(s.results)}: {s.result.label}")

    def result_changed(self) -> None:
        self.list_pane.rebuild()
        self.refresh_detail()
        self.refresh_bindings()

    def action_compare(self) -> None:
        from semtui.tui.components.disassoc_report import DisassocCompare

        self.app.push_screen(DisassocCompare(self.session, self.session.result.kind, self.list_pane.current))

    SAY_ATTACK_CANCELLED = False  # escape says so already

    def attack_notice(self, r) -> str:
        if r.kind == "cover":
            s = r.report.summary
            reached = (f", {plural(s.breached_records, 'record')} reached (r lists them)"
                       if s.breached_records is not None else "")
            return (f"{r.label}: {plural(s.cover_problems, 'cover problem')}, "
                    f"{plural(s.breaches, 'breach', 'breaches')}, "
                    f"{plural(s.vulnerable_records, 'vulnerable record')}{reached}")
        m = r.report.metrics
        return (f"{r.label}: accuracy {num(m.accuracy)}, breakage {num(m.transaction_breakage)}" if m is not None
                else f"{r.label}: {plural(r.report.summary.placements, 'placement')}")

    def export_name(self, result) -> str:
        return f"{self.session.path.stem}-{EXPORT_SUFFIX[result.kind]}.json"

    # ------------------------------------------------------------------ attacks
    def action_attack(self) -> None:
        self._open_form("reassociation")

    def action_cover(self) -> None:
        self._open_form("cover")

    def _open_form(self, kind: str) -> None:
        from semtui.tui.components.disassoc_form import DisassocForm

        def done(params: dict | None) -> None:
            if params is not None:
                self.form_values[kind] = {k: ("" if v is None else str(v)) for k, v in params.items()}
                self.start_job_for(kind, params)

        values = dict(self.form_values.get(kind, {}))
        if not values and kind in self.attack_values:
            values = self.attack_values[kind]
        s = self.session
        self.app.push_screen(DisassocForm(kind, values, s.data.k, items=s.data.vocab.items if kind != "cover" else None,
                                          original=None if s.original_path is None else str(s.original_path)), done)

    def start_job_for(self, kind: str, params: dict):
        """Run a re-association or a cover search in a worker; returns the worker."""
        s = self.session
        if kind == "cover":
            title = f"cover/{params['attacker'] if not params.get('knowledge') else 'knowledge'}"
            fn = run_cover_job
        else:
            # the measure names only a method that uses one: random placement (ra) uses none, nba the background
            used = {"ra": "random, no measure", "nba": f"background {params.get('background')}"}
            title = f"{params['method']}/{used.get(params['method'], params['measure'])}"
            fn = run_reassociation_job
        self.job_title = title
        self.progress.start(title)
        self.refresh_bindings()
        return start_job(self, "attack", fn, s, params, params=(kind, params))


# ---------------------------------------------------------------------- in the worker thread
def run_reassociation_job(session, params: dict, progress=None):
    """``semtui attack disassoc`` on the open release: the same (typed) report, the same sources."""
    from semtui.attacks.reassociation import ReassociationOptions, run_reassociation

    judged = session.key is not None and session.original is not None
    result = run_reassociation(session.data, session.key if judged else None, session.original if judged else None,
                               ReassociationOptions(**params), progress=progress,
                               original_path=session.original_path if judged else None,
                               sources={"data": str(session.path),
                                        "key": str(session.key_path) if judged and session.key_path else None,
                                        "original": str(session.original_path) if judged else None})
    return result.report


def run_cover_job(session, params: dict, progress=None):
    """``semtui cover`` on the open release: the same (typed) report, the same sources."""
    from semtui.attacks.cover import CoverOptions, run_cover

    options = CoverOptions(**params)
    sources = {"data": str(session.path),
               "original": None if session.original_path is None else str(session.original_path),
               "knowledge": options.knowledge}
    if session.key is not None:  # every problem then lists the records it reaches (r shows them)
        sources["key"] = None if session.key_path is None else str(session.key_path)
    return run_cover(session.data, options, original=session.original, key=session.key, progress=progress,
                     sources=sources)
