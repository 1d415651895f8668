"""The summary panel: dataset facts, the attack's overall scores, exposed items, one bar
chart row per attack that ran (so methods can be compared at a glance).

Every number comes from ``semtui.model.info.dataset_info`` or from the reports themselves.
"""

from __future__ import annotations

from typing import ClassVar

from rich.console import Group
from rich.table import Table
from rich.text import Text
from textual.binding import Binding, BindingType
from textual.containers import VerticalScroll
from textual.widgets import Static

from semtui.tui.session import Session

BAR_WIDTH = 16
#: unknown terms listed before "… and N more"
UNKNOWN_SHOWN = 20
METRICS = ("precision", "recall", "f1")


def bar(value: float | None, width: int = BAR_WIDTH) -> Text:
    """A horizontal bar of eighths; readable without colour."""
    if value is None:
        return Text("—".ljust(width), style="dim")
    eighths = round(max(0.0, min(1.0, value)) * width * 8)
    full, part = divmod(eighths, 8)
    s = "█" * full + (" ▏▎▍▌▋▊▉"[part] if part else "")
    return Text(s.ljust(width), style="bold")


def _fmt(v) -> str:
    if v is None:
        return "—"
    if isinstance(v, float):
        return f"{v:.3f}"
    if isinstance(v, dict):
        return " / ".join(f"{k} {_fmt(x)}" for k, x in v.items())
    return f"{v:,}" if isinstance(v, int) else str(v)


class SummaryPanel(VerticalScroll):
    DEFAULT_CSS = """
    SummaryPanel { height: 1fr; padding: 0 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("g,home", "scroll_home", "Top", show=False, id="summary.top"),
        Binding("G,end", "scroll_end", "Bottom", show=False, id="summary.bottom"),
        Binding("j", "scroll_down", "Down", show=False, id="summary.down"),
        Binding("k", "scroll_up", "Up", show=False, id="summary.up"),
    ]

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
        self.refresh_summary()

    def refresh_summary(self) -> None:
        self.query_one("#summary-body", Static).update(self.render_summary())

    def render_summary(self) -> Group:
        parts: list = []
        result = self.session.result
        data = self.session.data
        if result is None:
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
            facts.add_row(key.replace("_", " "), _fmt(value))
        return [Text(f"Dataset {self.session.path.name}", style="bold underline"), facts]

    def k_label(self, k) -> str:
        """The engine's default k is the smallest group size (docs/attacks.md): say so."""
        sizes = self.facts().get("group_sizes") or {}
        return "k (smallest group size)" if k is not None and sizes.get("min") == k else "k"

    def render_attack(self, result) -> list:
        parts: list = []
        rep = result.report
        parts.append(Text(f"Attack {result.label} (context {rep.get('context')}, "
                          f"{rep.get('aggregate')})", style="bold underline"))
        scores = Table.grid(padding=(0, 2))
        scores.add_column(style="bold", no_wrap=True)
        scores.add_column()
        metrics = rep.get("metrics")
        if metrics:
            for k in ("precision", "recall", "f1", "auc", "density", "eliminated", "added", "correct"):
                if k in metrics:
                    scores.add_row(k, _fmt(metrics[k]))
        else:
            scores.add_row("metrics", "open with --original to score the attack")
        summary = rep.get("summary") or {}
        if "eliminations" in summary and not (metrics and "eliminated" in metrics):
            scores.add_row("eliminated", _fmt(summary["eliminations"]))
        priv = rep.get("privacy") or {}
        if priv:
            scores.add_row(self.k_label(priv.get("k")), _fmt(priv.get("k")))
            scores.add_row("exposed items", f"{_fmt(priv.get('exposed_items'))} of {_fmt(priv.get('member_items'))}")
            scores.add_row("re-identified rows", _fmt(priv.get("reidentified_rows")))
        parts += [scores, Text("")]
        unknown = rep.get("unknown_terms") or []
        if unknown:
            parts.append(Text(f"{len(unknown):,} unknown terms (no score under {rep.get('measure')}; "
                              "their cells show ·)", style="bold underline"))
            shown = ", ".join(unknown[:UNKNOWN_SHOWN])
            more = f", … and {len(unknown) - UNKNOWN_SHOWN:,} more" if len(unknown) > UNKNOWN_SHOWN else ""
            parts += [Text(f"  {shown}{more}"), Text("")]
        exposed = [(g["generalised_item"], item) for g in rep.get("groups", []) for item in g.get("exposed", [])]
        if exposed:
            parts.append(Text(f"Exposed (cover below k = {priv.get('k', '?')})", style="bold underline"))
            for label, item in exposed[:20]:
                parts.append(Text(f"  {item}  in {label}", no_wrap=True, overflow="ellipsis"))
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
                    chart.add_row(Text(f"{name[:18]:<18} {k[0].upper() if k != 'f1' else 'F'}"),
                                  bar(v), _fmt(v))
            parts += [chart, Text("")]
        return parts
