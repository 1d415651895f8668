"""The experiment screen: the cells of a ``RESULTS.jsonl`` (``semtui experiment``) as the two
plots of docs/experiments.md drawn in the terminal — precision and recall (or accuracy) against
k per family, and risk against utility with the Pareto frontier — and the table of cells
beside them.  The table's cursor is the plots' (``@``); ``enter`` opens the cell's release in
the usual release screen (escape comes back)."""

from __future__ import annotations

from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Container, Vertical
from textual.screen import Screen
from textual.widgets import Header, Static

from semtui.families import FAMILIES
from semtui.tui.components.footer import KeyFooter
from semtui.tui.components.plots import ByKPlot, CellsTable, RiskUtilityPlot, is_this, label
from semtui.tui.components.vtable import VirtualTable
from semtui.tui.documents import Experiment
from semtui.tui.keys import bindings
from semtui.tui.screens.base import BackOverAnother
from semtui.wording import cell_not_modelled


class ExperimentScreen(BackOverAnother, Screen):
    HELP_TITLE = "experiment"
    HELP = ("One row per cell (a candidate release) of the RESULTS file; the plots follow the table's cursor (@). "
            "Left or top: precision and recall (or accuracy) of the strongest attack against k, per family "
            "(p/r set generalisation, P/R k^m, a disassociation; a line joins the mean at each k). Then risk — "
            "the strongest attack's take — against the cell's utility score: ◆ on the Pareto frontier (no other "
            "cell is both less risky and more useful), T the release assessed, * the chosen one. ✗ in the table: "
            "the independent checker failed the release. pairs±: how far the release puts the original's pair "
            "supports, on average (the utility cost every family shares; – when the cell does not say). [ ] sort by the current column; enter opens the cell's "
            "release.")

    DEFAULT_CSS = """
    ExperimentScreen #exp-status { height: auto; padding: 0 1; background: $boost; }
    ExperimentScreen #exp-notes { height: auto; max-height: 3; padding: 0 1; color: $warning; }
    ExperimentScreen #exp-notes.-hidden { display: none; }
    ExperimentScreen #exp-body { height: 1fr; layout: vertical; }
    ExperimentScreen.-wide #exp-body { layout: horizontal; }
    ExperimentScreen #exp-plots { height: 3fr; layout: horizontal; }
    ExperimentScreen.-wide #exp-plots { width: 3fr; height: 1fr; layout: vertical; }
    ExperimentScreen.-wide CellsTable { height: 1fr; }
    ExperimentScreen .plot-box { border: round $panel; border-title-color: $text-accent; width: 1fr; height: 1fr; }
    ExperimentScreen .legend { height: auto; }
    ExperimentScreen CellsTable { height: 2fr; border: round $panel; border-title-color: $text-accent; }
    ExperimentScreen CellsTable:focus { border: round $accent; }
    ExperimentScreen.-wide CellsTable { width: 2fr; }
    ExperimentScreen #exp-about { height: auto; max-height: 2; padding: 0 1; color: $text-muted; }
    """

    BINDINGS: ClassVar[list[BindingType]] = bindings("experiment")

    def __init__(self, experiment: Experiment) -> None:
        super().__init__()
        self.experiment = experiment
        self.cells = experiment.cells

    def compose(self) -> ComposeResult:
        yield Header(icon="")
        yield Static("", id="exp-status")
        notes = not_modelled_text(self.cells)
        yield Static(Text(notes), id="exp-notes", classes="" if notes else "-hidden")
        with Container(id="exp-body"):
            with Container(id="exp-plots"):
                with Vertical(classes="plot-box") as box:
                    box.border_title = ByKPlot.AXES
                    yield ByKPlot(id="byk")
                    yield Static(ByKPlot.legend(self.cells), classes="legend")
                with Vertical(classes="plot-box") as box:
                    box.border_title = RiskUtilityPlot.AXES
                    yield RiskUtilityPlot(id="ru")
                    yield Static(RiskUtilityPlot.legend(self.cells), classes="legend")
            table = CellsTable(self.cells, id="cells")
            table.border_title = "Cells"
            yield table
        yield Static("", id="exp-about")
        yield KeyFooter()

    def on_mount(self) -> None:
        e = self.experiment
        self.title = f"semtui — experiment {e.path.name}"
        self.sub_title = f"{len(self.cells)} cells"
        table = self.query_one(CellsTable)
        n_front = int(table.front.sum())
        fams = sorted({str((c.get("cell") or {}).get("family", "?")) for c in self.cells})
        failed = sum(1 for c in self.cells if (c.get("check") or {}).get("passed") is False)
        status = Text(f"{len(self.cells)} cells ({', '.join(fams)}) · {n_front} on the frontier")
        if failed:
            status.append(f" · {failed} ✗ checker failed", style="bold red")
        if e.skipped:
            status.append(f" · {len(e.skipped)} line(s) skipped", style="bold yellow")
        self.query_one("#exp-status", Static).update(status)
        self.set_class(self.app.size.width >= 110, "-wide")
        self.query_one(ByKPlot).show(self.cells, table.current)
        self.query_one(RiskUtilityPlot).show(self.cells, table.current)
        table.focus()
        self.update_about()
        if e.skipped:
            self.notify(f"{e.path.name}: " + "; ".join(e.skipped[:3]) + (" …" if len(e.skipped) > 3 else ""),
                        severity="warning", timeout=8)

    def on_resize(self, event) -> None:
        self.set_class(event.size.width >= 110, "-wide")

    def update_about(self) -> None:
        from semtui.tui.components.plots import cell_about

        i = self.query_one(CellsTable).current
        self.query_one("#exp-about", Static).update(cell_about(self.cells[i]) if i is not None else "")

    def on_virtual_table_highlighted(self, event: VirtualTable.Highlighted) -> None:
        i = self.query_one(CellsTable).current
        self.query_one(ByKPlot).select(i)
        self.query_one(RiskUtilityPlot).select(i)
        self.update_about()

    def on_virtual_table_selected(self, event: VirtualTable.Selected) -> None:
        event.stop()
        i = self.query_one(CellsTable).current
        if i is None:
            return
        from semtui.tui.screens.opening import release_screen

        cell = self.cells[i]
        c = cell.get("cell") or {}
        release_screen(self, cell.get("release"), self.experiment.path, original=cell.get("original") or c.get("original"),
                       key=cell.get("key") or c.get("key"), what=("this release" if is_this(cell) else label(cell)))

    def quit_warning(self) -> str | None:
        return None


def not_modelled_text(cells: list[dict]) -> str:
    """What the plotted risk leaves out, on one line: the attackers the cells' assessments did not
    model (the engine's notes, from the inputs each cell records), said once for all the cells."""
    notes: list[str] = []
    unknown = 0
    for c in cells:
        family = FAMILIES.get(str((c.get("cell") or {}).get("family", "")), FAMILIES["setgen"])
        got = cell_not_modelled(c, family.kind, short=True)
        if got is None:
            unknown += 1
            continue
        notes += [n for n in got if n not in notes]
    if unknown:
        notes.append(f"unknown for {unknown} of {len(cells)} cells (no inputs recorded)")
    return ("Not modelled (not in the risk): " + "; ".join(notes)) if notes else ""
