"""The summary panel: dataset facts, the attack's overall scores, exposed items, one bar
chart row per attack that ran (so methods can be compared at a glance).

Every number comes from ``semtui.model.info.dataset_info`` or from the reports themselves.
"""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group
from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual.binding import BindingType
from textual.containers import VerticalScroll
from textual.widgets import Static

from semtui.model.info import fact_text
from semtui.tui.keys import bindings
from semtui.tui.session import Session
from semtui.tui.text import bar, elide_str, num
from semtui.wording import interval

#: unknown terms listed before "… and N more"
UNKNOWN_SHOWN = 20
METRICS = ("precision", "recall", "f1")
#: how the summary names the report's metric keys
METRIC_NAMES = {
    "recall_attackable": "recall (attackable rows)",
    "auc_within_table": "AUC within table",
    "auc_pooled": "AUC pooled",
    "density_per_item": "density per item",
}


def _fmt(v) -> str:
    if isinstance(v, dict):
        return " / ".join(f"{k} {_fmt(x)}" for k, x in v.items())
    return num(v)


#: facts of ``semtui info`` that only a release with REFINE's joint clusters gives anything to
_JOINT_FACTS = ("associated_share_without_joint_clusters", "joint_clusters", "clusters_in_joint_clusters",
                "shared_chunks", "shared_sub_records", "shared_occurrences", "shared_placements")


class SummaryPanel(VerticalScroll):
    DEFAULT_CSS = """
    SummaryPanel { height: 1fr; padding: 0 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings("summary")

    def action_scroll_home(self) -> None:
        self.scroll_home(animate=False)

    def action_scroll_end(self) -> None:
        self.scroll_end(animate=False, x_axis=False)

    def __init__(self, session: Session, **kw) -> None:
        super().__init__(**kw)
        self.session = session
        self._facts: dict | None = None

    def compose(self):
        yield Static(id="summary-body")

    def facts(self) -> dict:
        if self._facts is None:
            from semtui.model.info import dataset_info

            self._facts = dataset_info(self.session.data).facts
        return self._facts

    def on_mount(self) -> None:
        # filled when shown (the dataset facts cost time on a big release): the base screen
        # refreshes it whenever its switcher turns to it
        if getattr(self.parent, "_initial", self.id) == self.id:
            self.refresh_summary()

    def refresh_summary(self) -> None:
        self.query_one("#summary-body", Static).update(self.render_summary())

    def render_summary(self) -> Group:
        parts: list = []
        result = self.session.result
        data = self.session.data
        if data.kind == "disassociated":
            from semtui.tui.components.disassoc_report import render_disassoc

            parts += render_disassoc(self.session)
        elif result is None:
            if getattr(data, "n_generalised", 0):
                parts.append(Text("No attack yet: press a to run one.", style="italic"))
            else:
                parts.append(Text(f"Attacks need set-generalised data; this is {data.kind} data.",
                                  style="italic"))
            parts.append(Text(""))
        else:
            parts += self.render_attack(result)
        parts += self.render_facts()
        return Group(*parts)

    def render_facts(self) -> list:
        facts = Table.grid(padding=(0, 2))
        facts.add_column(style="bold", no_wrap=True)
        facts.add_column()
        for key, value in self.facts().items():
            if key in ("clusters", "record_chunks", "term_chunk_terms", "generalised_items") and not value:
                continue  # facts of another kind of dataset
            if key in _JOINT_FACTS and not self.facts().get("joint_clusters"):
                continue  # a release without REFINE's joint clusters
            facts.add_row(key.replace("_", " "), fact_text(key, value, self.facts()) or _fmt(value))
        return [Text(f"Dataset {self.session.path.name}", style="bold underline"), facts]

    def k_label(self, priv: dict) -> str:
        """Which k exposure was judged against, and where it came from (form/option, the
        release's sidecar, or the smallest group size)."""
        source = priv.get("k_source")
        if source is None:
            sizes = self.facts().get("group_sizes") or {}
            source = "smallest group size" if sizes.get("min") == priv.get("k") else None
        names = {"option": "k (set in the form)", "sidecar": "k (from the release's sidecar)"}
        return names.get(source, f"k ({source})") if source else "k"

    def render_attack(self, result) -> list:
        parts: list = []
        rep = result.report
        parts.append(Text(f"Attack {result.label} (context {rep.get('context')}, "
                          f"{rep.get('aggregate')})", style="bold underline"))
        if rep.get("unmarked") is not None:
            from semtui.attacks.setgen.unknown import describe

            parts += [Text(line) for line in describe(rep["unmarked"])]
        scores = Table.grid(padding=(0, 2))
        scores.add_column(style="bold", no_wrap=True)
        scores.add_column()
        metrics = rep.get("metrics")
        if metrics:
            intervals = metrics.get("intervals") or {}
            for k in ("precision", "recall", "f1", "recall_attackable", "auc", "auc_within_table", "auc_pooled",
                      "density", "density_per_item", "eliminated", "added", "correct"):
                if k in metrics and not (k == "auc" and "auc_pooled" in metrics):
                    iv = interval(intervals.get(k))  # either shape a report holds
                    ci = f"  [{_fmt(iv[0])}, {_fmt(iv[1])}]" if iv else ""
                    scores.add_row(METRIC_NAMES.get(k, k), _fmt(metrics[k]) + ci)
            base = metrics.get("baseline")
            if isinstance(base, dict):
                scores.add_row("baseline P / R / F1", " / ".join(_fmt(base.get(x)) for x in ("precision", "recall", "f1"))
                               + f"  ({base.get('kind', 'random')})")
                if base.get("error_ratio") is not None:
                    scores.add_row("error ratio", f"{_fmt(base.get('error_ratio'))}  (attack's errors / baseline's)")
        else:
            scores.add_row("metrics", "open with --original to score the attack")
        summary = rep.get("summary") or {}
        if "eliminations" in summary and not (metrics and "eliminated" in metrics):
            scores.add_row("eliminated", _fmt(summary["eliminations"]))
        unscored = summary.get("unscored") or {}
        if unscored.get("rows"):  # never read as safe: say which rows the attack could not score, and why
            why = "; ".join(f"{n:,}: {reason}" for reason, n in unscored.get("reasons", {}).items())
            scores.add_row("not scored", f"{unscored['rows']:,} of {_fmt(summary.get('rows'))} rows ({why})")
        priv = rep.get("privacy") or {}
        if priv:
            scores.add_row(self.k_label(priv), _fmt(priv.get("k")))
            if summary.get("attacked_rows") == 0:
                scores.add_row("exposed items", "not measured: the attack scored no row")
            else:
                scores.add_row("exposed items", f"{_fmt(priv.get('exposed_items'))} of {_fmt(priv.get('member_items'))}")
            right = priv.get("reidentified_rows_correct")
            scores.add_row("re-identified rows", _fmt(priv.get("reidentified_rows"))
                           + (f" ({_fmt(right)} to the row's own item)" if right is not None else ""))
        parts += [scores, Text("")]
        if summary.get("method_choice"):
            parts += [Text(f"Method: {summary['method_choice']}", style="italic")]
        if summary.get("knowledge"):
            parts += [Text(f"Knowledge: {summary['knowledge']}", style="italic"), Text("")]
        pop = (metrics or {}).get("popularity")
        if isinstance(pop, dict):
            scores.add_row("popularity P / R", f"{_fmt(pop.get('precision'))} / {_fmt(pop.get('recall'))}  "
                                               "(same budget, rarest members first)")
        knowledge = (metrics or {}).get("knowledge")
        if isinstance(knowledge, dict) and knowledge:
            t = Table(title="Which knowledge carries the attack (* the one above)", title_justify="left", box=None,
                      padding=(0, 1))
            for col in ("attacker knows", "method", "precision", "recall", "error ratio", "AUC within"):
                t.add_column(col, justify="left" if col == "attacker knows" else "right")
            for name, fig in knowledge.items():
                if isinstance(fig, dict):
                    t.add_row(name + (" *" if name == rep.get("knowledge") else ""), str(fig.get("method", "")).upper(),
                              _fmt(fig.get("precision")), _fmt(fig.get("recall")),
                              _fmt((fig.get("baseline") or {}).get("error_ratio")), _fmt(fig.get("auc_within_table")))
            parts += [t]
            parts += [Text(f"  {line}") for line in knowledge_lines(rep)]
            parts.append(Text(""))
        by_size = (metrics or {}).get("by_table_size")
        if isinstance(by_size, dict) and by_size:
            t = Table(title="By table size", title_justify="left", box=None, padding=(0, 1))
            t.add_column("tables")
            for k in ("groups", "precision", "recall", "auc_within_table"):
                t.add_column(METRIC_NAMES.get(k, k), justify="right")
            for name, fig in by_size.items():
                if isinstance(fig, dict):
                    t.add_row(name, *(_fmt(fig.get(k)) for k in ("groups", "precision", "recall", "auc_within_table")))
            parts += [t, Text("")]
        unknown = rep.get("unknown_terms") or []
        if unknown:
            parts.append(Text(f"{len(unknown):,} unknown terms (no score under {rep.get('measure')}; "
                              "their cells show ·)", style="bold underline"))
            shown = ", ".join(unknown[:UNKNOWN_SHOWN])
            more = f", … and {len(unknown) - UNKNOWN_SHOWN:,} more" if len(unknown) > UNKNOWN_SHOWN else ""
            parts += [Text(f"  {shown}{more}"), Text("")]
        exposed = [(g["generalised_item"], item, g.get("id")) for g in rep.get("groups", [])
                   for item in g.get("exposed", [])]
        if exposed:
            parts.append(Text(f"Exposed (cover below k = {priv.get('k', '?')}; click one to go to its group, "
                              "x lists every item)", style="bold underline"))
            for label, item, gid in exposed[:20]:
                line = Text(f"  {item}  in {label}", no_wrap=True, overflow="ellipsis")
                if isinstance(gid, int):  # a click leads to the group
                    line.stylize(Style.from_meta({"@click": f"screen.go_to_group({gid})"}))
                parts.append(line)
            if len(exposed) > 20:
                parts.append(Text(f"  … and {len(exposed) - 20:,} more", style="dim"))
            parts.append(Text(""))
        scored = [r for r in self.session.results if r.metrics]
        if scored:
            parts.append(Text("Per attack (P / R / F1)", style="bold underline"))
            chart = Table.grid(padding=(0, 1))
            chart.add_column(no_wrap=True)
            chart.add_column(no_wrap=True)
            chart.add_column(no_wrap=True, justify="right")
            for r in scored:
                for k in METRICS:
                    v = r.metrics.get(k)
                    name = r.label if k == "precision" else ""
                    chart.add_row(Text(f"{elide_str(name, 18):<18} {k[0].upper() if k != 'f1' else 'F'}"),
                                  bar(v), _fmt(v))
            parts += [chart, Text("")]
        return parts


def knowledge_lines(report: dict) -> list[str]:
    """The sentences under the knowledge table, made by the engine from the table's own numbers
    (not read back from the report: one written by an older rule could contradict its table)."""
    from semtui.attacks.setgen.knowledge import carried_by

    metrics = report.get("metrics") or {}
    kn = metrics.get("knowledge")
    if not isinstance(kn, dict) or not all(isinstance(kn.get(v), dict) for v in ("prior", "semantics", "background",
                                                                                  "combined")):
        return list(metrics.get("carried_by") or [])
    bg = report.get("background")
    return carried_by(metrics, cooccurrence=not isinstance(bg, dict) or bg.get("cooccurrence", True) is not False)
