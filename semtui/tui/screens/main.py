"""The main screen: the list pane (groups / clusters / transactions) and, on the other side,
the detail of the highlighted one — its transactions, its distance table after an attack,
or the summary panel.  Attacks run from here, in a thread worker."""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import ClassVar

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container
from textual.screen import Screen
from textual.widgets import ContentSwitcher, Footer, Header, Input
from textual.worker import Worker, WorkerState, get_current_worker

from semtui.errors import InputError, Interrupted
from semtui.model import DisassociatedData, TransactionData
from semtui.tui.components.attack_form import AttackForm
from semtui.tui.components.detail import DetailPane
from semtui.tui.components.distance import DistanceView, GroupAttack
from semtui.tui.components.export import ExportPrompt
from semtui.tui.components.lists import ListPane, source_for
from semtui.tui.components.progress import AttackProgressBar
from semtui.tui.components.summary import SummaryPanel
from semtui.tui.components.vtable import VirtualTable
from semtui.tui.messages import AttackFinished, AttackProgress
from semtui.tui.session import Result, Session

LIST_TITLES = {"group": "Equivalence groups", "cluster": "Clusters", "transaction": "Transactions"}
#: seconds between two progress messages from the worker thread
PROGRESS_EVERY = 0.1
#: the interpreter's thread switch interval (s) while an attack runs
ATTACK_SWITCH_INTERVAL = 0.001


class FilterBar(Input):
    """``/``: filters the list as you type; enter keeps the filter, escape clears it."""

    BINDINGS: ClassVar[list[BindingType]] = [Binding("escape", "clear", "Clear filter", id="filter.clear")]

    def action_clear(self) -> None:
        self.value = ""
        self.screen.close_filter()


class RightPane(ContentSwitcher):
    """Transactions, distances or summary; ``z`` zooms it to the whole screen."""

    ALLOW_MAXIMIZE = True


class MainScreen(Screen):
    HELP_TITLE = "main screen"
    HELP = (
        "Left/top: the equivalence groups (or clusters, or transactions). "
        "Right/bottom: what the highlighted one holds. tab switches pane."
        "\nDistance cells: 0.56 a distance (green related … red unrelated); ✗N eliminated at "
        "step N; ● an original item (t); · no score (an unknown term, or no scored context)."
    )

    DEFAULT_CSS = """
    MainScreen #body { layout: vertical; height: 1fr; }
    MainScreen.-wide #body { layout: horizontal; }
    MainScreen #list, MainScreen #right { border: round $panel; border-title-color: $text-accent; }
    MainScreen #list:focus-within, MainScreen #right:focus-within { border: round $accent; }
    MainScreen #list { height: 1fr; width: 1fr; }
    MainScreen #right { height: 1fr; width: 1fr; }
    MainScreen FilterBar { display: none; height: 3; }
    MainScreen FilterBar.-open { display: block; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("slash", "filter", "Filter", id="main.filter"),
        Binding("a", "attack", "Attack", id="main.attack"),
        Binding("a", "no_attack", "Attack (set-generalised data only)", show=False, id="main.no_attack"),
        Binding("s", "summary", "Summary", id="main.summary"),
        Binding("v", "toggle_view", "Transactions/distances", show=False, id="main.view"),
        Binding("space", "step_forward", "Step", show=False, id="main.step"),
        Binding("backspace", "step_back", "Step back", show=False, id="main.step_back"),
        Binding("r", "step_reset", "Reset steps", show=False, id="main.step_reset"),
        Binding("w", "toggle_weighted", "Raw/weighted", show=False, id="main.weighted"),
        Binding("t", "toggle_original", "Original items", show=False, id="main.original"),
        Binding("e", "export", "Export report", show=False, id="main.export"),
        Binding("c", "compare", "Compare results", show=False, id="main.compare"),
        Binding("m", "next_result", "Next result", show=False, id="main.next_result"),
        Binding("z", "zoom", "Zoom pane", show=False, id="main.zoom"),
        Binding("escape", "cancel_attack", "Cancel attack", show=False, id="main.cancel"),
        Binding("tab", "next_pane", "Switch pane", show=False, id="main.next_pane"),
        Binding("shift+tab", "next_pane", "Switch pane", show=False, id="main.prev_pane"),
    ]

    def __init__(self, session: Session, attack_defaults: dict | None = None) -> None:
        super().__init__()
        self.session = session
        self.attack_values: dict = dict(attack_defaults or {})
        self._attack_title = ""
        self._switch_interval: float | None = None

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield Header(show_clock=False, icon="")
        source = source_for(self.session)
        with Container(id="body"):
            lst = ListPane(self.session, source, id="list")
            lst.border_title = LIST_TITLES[source.noun]
            yield lst
            with RightPane(initial="detail", id="right"):
                yield DetailPane(self.session, id="detail")
                if self.is_setgen:
                    yield DistanceView(id="distances")
                yield SummaryPanel(self.session, id="summary")
        bar = FilterBar(placeholder="filter (enter keeps it, escape clears it)", id="filter")
        bar.cursor_blink = False  # steady, and snapshots stay stable
        yield bar
        yield AttackProgressBar(id="progress")
        yield Footer()

    @property
    def is_setgen(self) -> bool:
        data = self.session.data
        return isinstance(data, TransactionData) and data.n_generalised > 0

    @property
    def list_pane(self) -> ListPane:
        return self.query_one("#list", ListPane)

    @property
    def detail(self) -> DetailPane:
        return self.query_one("#detail", DetailPane)

    @property
    def distances(self) -> DistanceView:
        return self.query_one("#distances", DistanceView)

    @property
    def switcher(self) -> ContentSwitcher:
        return self.query_one("#right", ContentSwitcher)

    @property
    def progress(self) -> AttackProgressBar:
        return self.query_one(AttackProgressBar)

    def on_mount(self) -> None:
        self.title = f"semtui — {self.session.path.name}"
        extra = " + key" if isinstance(self.session.data, DisassociatedData) and self.session.key else ""
        self.sub_title = f"{self.session.kind}{extra}"
        self.list_pane.focus()
        if self.session.result is not None:
            self.switcher.current = "distances"
        self.show_current()
        self._layout(self.app.size.width)

    def on_resize(self, event) -> None:
        self._layout(event.size.width)

    def _layout(self, width: int) -> None:
        self.set_class(width >= 140, "-wide")

    # ------------------------------------------------------------------ following the cursor
    def show_current(self) -> None:
        """Fill the right pane for the entity under the list cursor."""
        current = self.list_pane.current
        view = self.switcher.current
        if view == "detail":
            if current != self.detail.showing:
                self.detail.show(current)
            self.switcher.border_title = self.detail.border_title
            self.switcher.border_subtitle = self.detail.border_subtitle
        elif view == "distances":
            result = self.session.result
            label = self.session.label(current) if current is not None else None
            attack = GroupAttack.of(result, label) if result is not None and label is not None else None
            dv = self.distances
            if attack is None or dv.attack is None or dv.attack.group is not attack.group:
                dv.show(attack)
            self.switcher.border_title = f"Distances of {label}" if label else "Distances"
            self.switcher.border_subtitle = f"{len(self.session.results)} result(s) · now {result.label}" if result else ""
        else:
            self.query_one(SummaryPanel).refresh_summary()
            self.switcher.border_title = "Summary"
            self.switcher.border_subtitle = ""

    def on_virtual_table_highlighted(self, event: VirtualTable.Highlighted) -> None:
        if event.table is self.list_pane:
            self.show_current()

    def on_virtual_table_selected(self, event: VirtualTable.Selected) -> None:
        if event.table is self.list_pane:
            target = self.distances.table if self.switcher.current == "distances" else self.detail
            if self.switcher.current != "summary":
                target.focus()

    def action_next_pane(self) -> None:
        """``tab`` / ``shift+tab``: the list pane and the right pane's view, in turn."""
        if self.maximized is not None:
            self.minimize()
        view = self.switcher.current
        right = self.distances.table if view == "distances" else self.query_one(f"#{view}")
        focused = self.focused
        in_list = focused is self.list_pane
        (right if in_list or focused is None else self.list_pane).focus()

    # ------------------------------------------------------------------ filter
    def action_filter(self) -> None:
        bar = self.query_one(FilterBar)
        bar.add_class("-open")
        bar.value = self.list_pane.filter_text
        if self.maximized is not None:  # the bar lives under the list: show both
            self.minimize()
        # at once, not queued: keys typed right after ``/`` go to the filter
        self.set_focus(bar)

    def close_filter(self) -> None:
        self.query_one(FilterBar).remove_class("-open")
        self.list_pane.focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        if isinstance(event.input, FilterBar):
            self.list_pane.set_filter(event.value)
            self.show_current()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        if isinstance(event.input, FilterBar):
            self.close_filter()

    # ------------------------------------------------------------------ views
    def check_action(self, action: str, parameters: tuple) -> bool | None:
        has_result = self.session.result is not None
        # False: no such thing for this dataset (hidden); None: not now (listed by help, dimmed)
        distance_actions = ("step_forward", "step_back", "step_reset", "toggle_weighted", "toggle_original",
                            "toggle_view", "export", "next_result", "compare")
        if action == "no_attack":  # on other data, ``a`` says why it does nothing
            return not self.is_setgen
        if action == "attack" or (action in distance_actions and not self.is_setgen):
            return False if not self.is_setgen else (None if self.progress.running else True)
        if action == "cancel_attack":
            return True if self.progress.running else None
        if action in distance_actions[:5]:
            return True if has_result and self.switcher.current == "distances" else None
        if action in ("toggle_view", "export", "next_result"):
            return True if has_result else None
        if action == "compare":
            return True if len(self.session.results) >= 2 else None
        return True

    def action_toggle_view(self) -> None:
        self.switcher.current = "detail" if self.switcher.current == "distances" else "distances"
        self.show_current()
        self.refresh_bindings()

    def action_summary(self) -> None:
        if self.switcher.current == "summary":
            self.switcher.current = "distances" if self.session.result is not None else "detail"
        else:
            self.switcher.current = "summary"
        self.show_current()
        self.refresh_bindings()

    def action_zoom(self) -> None:
        if self.maximized is not None:
            self.minimize()
        else:
            self.maximize(self.switcher, container=False)

    def action_step_forward(self) -> None:
        self.distances.step_forward()

    def action_step_back(self) -> None:
        self.distances.step_back()

    def action_step_reset(self) -> None:
        self.distances.step_reset()

    def action_toggle_weighted(self) -> None:
        self.distances.toggle_weighted()

    def action_toggle_original(self) -> None:
        if not self.session.result.metrics:  # the report knows no original items
            self.notify("open with --original to mark original items")
            return
        self.distances.toggle_original()

    def action_next_result(self) -> None:
        s = self.session
        s.current = (s.current + 1) % len(s.results)
        self.result_changed()
        self.notify(f"showing {s.current + 1}/{len(s.results)}: {s.result.label}")

    def action_compare(self) -> None:
        from semtui.tui.screens.compare import CompareScreen

        current = self.list_pane.current
        if current is None:
            return
        self.app.push_screen(CompareScreen(self.session, self.session.label(current)))

    def result_changed(self) -> None:
        self.list_pane.rebuild()
        if self.switcher.current == "detail":
            self.switcher.current = "distances"
        self.distances.show(None)
        self.show_current()
        self.refresh_bindings()

    def palette_commands(self) -> list[tuple[str, str, object]]:
        """Palette entries no key has: show a given result."""
        out = []
        for i, r in enumerate(self.session.results):
            out.append((f"Show result {i + 1}: {r.label}", "make it the current result",
                        lambda i=i: self._show_result(i)))
        return out

    def _show_result(self, i: int) -> None:
        self.session.current = i
        self.result_changed()

    # ------------------------------------------------------------------ export
    def action_export(self) -> None:
        result = self.session.result
        default = f"{self.session.path.stem}-{result.report.get('method', 'attack')}-report.json"

        def done(path: str | None) -> None:
            if path:
                self.export_to(Path(path))

        self.app.push_screen(ExportPrompt(default), done)

    @work(thread=True, exit_on_error=False, group="export")
    def export_to(self, path: Path) -> None:
        """Write in a thread: a big report takes a second or more to serialise."""
        from semtui.attacks.setgen import write_report

        try:
            write_report(self.session.result.report, path)
        except (OSError, InputError, ValueError) as exc:
            self.app.call_from_thread(self.app.show_error, "Export failed", f"{path}: {exc}")
            return
        self.app.call_from_thread(self.notify, f"wrote {path}")

    # ------------------------------------------------------------------ attacks
    def action_no_attack(self) -> None:
        self.notify(f"attacks need set-generalised data; this is {self.session.kind} data")

    def action_attack(self) -> None:
        def done(params: dict | None) -> None:
            if params is not None:
                self.attack_values = {**params, "seed": "" if params["seed"] is None else params["seed"]}
                self.start_attack(params)

        values = self.attack_values
        result = self.session.result
        if result is not None:  # start from what produced the results on screen
            rep = result.report
            values = {"method": rep.get("method"), "measure": rep.get("measure"),
                      "context": rep.get("context"), "seed": rep.get("seed") or "", **values}
        self.app.push_screen(AttackForm({k: v for k, v in values.items() if v is not None}), done)

    def start_attack(self, params: dict) -> None:
        # The worker thread and the event loop share the GIL: hand it over more often than
        # Python's default 5 ms while the attack runs, so key presses are answered promptly.
        if self._switch_interval is None:
            self._switch_interval = sys.getswitchinterval()
            sys.setswitchinterval(ATTACK_SWITCH_INTERVAL)
        self._attack_title = f"{params['method']}/{params['measure']}"
        self.progress.start(self._attack_title)
        self.refresh_bindings()
        self.run_attack(params)

    @work(thread=True, exclusive=True, exit_on_error=False, group="attack")
    def run_attack(self, params: dict) -> dict:
        from semtui.attacks.setgen import AttackOptions, run_setgen_attack

        worker = get_current_worker()
        last = [0.0]

        def progress(done: int, total: int, message: str) -> None:
            if worker.is_cancelled:
                raise Interrupted()
            now = time.monotonic()
            if now - last[0] >= PROGRESS_EVERY or done == total:
                last[0] = now
                self.post_message(AttackProgress(done, total, message))

        s = self.session
        report = run_setgen_attack(s.data, s.original, AttackOptions(**params), progress=progress,
                                   data_path=s.path, original_path=s.original_path).to_json()
        if worker.is_cancelled:
            raise Interrupted()
        self.post_message(AttackFinished(report, params))
        return report

    def on_attack_progress(self, message: AttackProgress) -> None:
        if self.progress.running:
            self.progress.update(self._attack_title, message.done, message.total, message.message)

    def on_attack_finished(self, message: AttackFinished) -> None:
        self.session.add_result(Result(message.report, "run"))
        self.result_changed()
        n = message.report.get("summary", {}).get("eliminations", 0)
        self.notify(f"{self._attack_title}: {n:,} eliminations")

    def action_cancel_attack(self) -> None:
        self.workers.cancel_group(self, "attack")

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        if event.worker.group != "attack":
            return
        state = event.state
        if state in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED):
            if self._switch_interval is not None:
                sys.setswitchinterval(self._switch_interval)
                self._switch_interval = None
            self.progress.stop()
            self.refresh_bindings()
        if state == WorkerState.CANCELLED or (
            state == WorkerState.ERROR and isinstance(event.worker.error, Interrupted)
        ):
            self.notify("attack cancelled")
        elif state == WorkerState.ERROR:
            err = event.worker.error
            text = str(err) if isinstance(err, InputError) else f"{type(err).__name__}: {err}"
            self.app.show_error("The attack failed", text)
