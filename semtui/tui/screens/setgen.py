"""The screen for set-generalised releases: equivalence groups, their transactions, the
distance tables of an attack (run here, in a worker, or opened from a report), the items at
risk, and the summary."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import BindingType

from semtui.tui.components.attack_form import AttackForm
from semtui.tui.components.distance import DistanceView, GroupAttack
from semtui.tui.components.export import ExportPrompt
from semtui.tui.keys import GLOSSARY, bindings
from semtui.tui.screens.base import BaseScreen
from semtui.tui.text import elide_str, plural
from semtui.tui.workers import cancel_job, start_job

#: actions that act on the distance table shown in the right pane
DISTANCE_ACTIONS = ("step_forward", "step_back", "step_reset", "step_end", "step_goto", "toggle_weighted",
                    "toggle_original")


class SetgenScreen(BaseScreen):
    HELP_TITLE = "set-generalised release"
    HELP = (BaseScreen.HELP + "\nDistance cells: 0.56 a distance (one scale for every group: green 0 "
            "related … red the report's largest distance); ✗N eliminated at step N; ● original (t); · no score "
            "(an unknown term, or no scored context). x lists every member item with its cover.\n"
            + "\n".join(GLOSSARY[k] for k in ("δ", "vulnerability", "density", "elim a/b", "skipped rows",
                                                "re-identified rows", "exposed", "k")))

    BINDINGS: ClassVar[list[BindingType]] = bindings("setgen")

    def __init__(self, session, attack_defaults: dict | None = None, *, autorun: bool = False) -> None:
        super().__init__(session, attack_defaults)
        self._attack_title = ""
        self.autorun = autorun

    def right_views(self) -> ComposeResult:
        yield DistanceView(id="distances")

    @property
    def distances(self) -> DistanceView:
        return self.query_one("#distances", DistanceView)

    def before_first_show(self) -> None:
        self.list_pane.tooltip = "\n".join(GLOSSARY[k] for k in ("density", "elim a/b", "exposed", "k"))
        if self.session.result is not None:
            self.switcher.current = "distances"

    def after_first_show(self) -> None:
        if self.autorun and self.session.result is None:
            from semtui.tui.components.attack_form import DEFAULTS, validate

            self.automatic_attack = True  # the sample's demonstration: quitting does not ask about it
            self.start_attack(validate({**DEFAULTS, **self.form_values()}))
            self.automatic_attack = self.progress.running

    def default_view(self) -> str:
        return "distances" if self.session.result is not None else "detail"

    def right_focus_target(self):
        view = self.switcher.current
        return self.distances.table if view == "distances" else self.query_one(f"#{view}")

    def show_view(self, view: str, current: int | None) -> None:
        result = self.session.result
        label = self.session.label(current) if current is not None else None
        attack = GroupAttack.of(result, label) if result is not None and label is not None else None
        dv = self.distances
        if attack is None or dv.attack is not attack:
            dv.show(attack)
        room = max(self.switcher.size.width - 20, 20)  # a long label loses its middle, not its end
        self.switcher.border_title = f"Distances of {elide_str(label, room)}" if label else "Distances"
        self.switcher.border_subtitle = (f"{len(self.session.results)} result(s) · now {result.label}"
                                         if result else "")

    def inspect_focused(self, focused):
        view = self.distances
        if focused is view.table and view.attack is not None:
            cell = view.current_cell()
            if cell is not None:
                from semtui.tui.components.inspector import describe_cell

                return describe_cell(view.attack, *cell)
        return None

    # ------------------------------------------------------------------ keys
    def check_action(self, action: str, parameters: tuple) -> bool | None:
        has_result = self.session.result is not None
        # False: no such thing here (hidden); None: not now (listed by help, dimmed)
        if action == "attack":
            return None if self.progress.running else True
        if action in DISTANCE_ACTIONS:
            return True if has_result and self.switcher.current == "distances" else None
        if action in ("toggle_view", "export", "next_result", "toggle_believed"):
            return True if has_result else None
        if action == "compare":
            return True if len(self.session.results) >= 2 else None
        return True

    def why_not(self, action: str) -> str | None:
        if self.session.result is None:
            what = {"toggle_view": "v shows the group's distance table", "toggle_believed":
                    "b shows the group as the attack left it", "export": "e exports an attack's report",
                    "next_result": "m shows the next result", "compare": "c compares two results",
                    "step_forward": "space steps through an attack's eliminations",
                    "step_back": "backspace steps back through an attack's eliminations",
                    "step_reset": "r goes back to before the attack", "step_end": "E goes to an attack's last step",
                    "step_goto": ": goes to a step of an attack", "toggle_weighted": "w shows weighted distances",
                    "toggle_original": "t marks the original items in the distance table"}.get(action)
            if what:
                return f"no attack yet: {what} once one has run — press a to run one (or open a report with --report)"
        if action in DISTANCE_ACTIONS:
            return "that acts on the distance table: press v to show it"
        if action == "compare":
            return "c compares two results: run another attack (a) first"
        if action == "attack" and self.progress.running:
            return "an attack is running: escape cancels it"
        return None

    def action_toggle_view(self) -> None:
        self.switcher.current = "detail" if self.switcher.current == "distances" else "distances"
        self.show_current()
        self.keep_focus_visible()
        self.refresh_bindings()

    def action_toggle_believed(self) -> None:
        """``b``: the group's transactions as released, or as the attack left them."""
        detail = self.detail
        detail.believed = not detail.believed
        if self.switcher.current != "detail":
            self.switcher.current = "detail"
            self.keep_focus_visible()
        detail.show(self.list_pane.current, needle=self.list_pane.filter_text)
        self.show_current()
        self.refresh_bindings()

    def action_step_forward(self) -> None:
        self.distances.step_forward()

    def action_step_back(self) -> None:
        self.distances.step_back()

    def action_step_reset(self) -> None:
        self.distances.step_reset()

    def action_step_end(self) -> None:
        """``E``: the last step (the final table, with step mode's status line)."""
        view = self.distances
        if view.attack is not None:
            view.goto_step(view.attack.n_steps)

    def action_step_goto(self) -> None:
        """``:``: a prompt for the step number."""

        view = self.distances
        if view.attack is None or not view.attack.n_steps:
            self.notify("this group has no eliminations")
            return

        def done(text: str | None) -> None:
            if text is None:
                return
            text = text.strip()
            if text in ("end", "$"):
                view.goto_step(view.attack.n_steps)
            elif text.isdigit():
                view.goto_step(int(text))
            else:
                self.notify(f"not a step number: {text!r}", severity="warning")

        self.app.push_screen(ExportPrompt(str(view.step or 0), title=f"Go to step (0–{view.attack.n_steps}, "
                                          "or end)", check_exists=False), done)

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

    def action_risk(self) -> None:
        from semtui.tui.components.risk import RiskScreen

        if self.session.result is None:  # never a key that silently does nothing
            self.notify("no attack yet: x lists each member item's cover before and after an attack — press a "
                        "to run one (or open a report with --report)")
            return

        def done(group: int | None) -> None:
            if group is not None:
                self.go_to_group(group)

        self.app.push_screen(RiskScreen(self.session), done)

    def action_go_to_group(self, group: int) -> None:
        """A click on an exposed line of the summary."""
        self.go_to_group(int(group))

    def go_to_group(self, group: int) -> None:
        """Put the list cursor on equivalence group ``group`` (clearing a filter that hides it)."""
        if self.maximized is not None:
            self.minimize()
        lst = self.list_pane
        if not (lst.order == group).any():
            self.clear_filter()
        lst.move_to(int((lst.order == group).argmax()))
        self.switcher.current = "distances" if self.session.result is not None else "detail"
        self.show_current()
        lst.focus()

    def dive_to_record(self, record: dict) -> str | None:
        """An assessment's record: its equivalence group (the one of the first item it
        re-identified or exposed, else its first), the transactions view, the cursor on it."""
        import numpy as np

        data = self.session.data
        t = record.get("transaction")
        if not isinstance(t, int) or not 0 <= t < data.n_transactions:
            return f"transaction {t} is not one of {self.session.path.name}"
        tokens = data.transaction(t)
        groups = [int(-x - 1) for x in tokens.tolist() if x < 0]
        if not groups:
            return f"T{t + 1} holds no generalised item in {self.session.path.name}"
        wanted = [*(record.get("reidentified") or []), *(record.get("exposed") or [])]
        g = next((g for x in wanted for g in groups if x in data.member_names(g)), groups[0])
        self.go_to_group(g)
        self.switcher.current = "detail"
        self.show_current()
        rows = data.group(g)
        self.detail.move_to(int(np.searchsorted(rows, t)))
        self.detail.focus()
        self.refresh_bindings()
        from semtui.wording import record_words as record_text

        more = f" (one of the {len(groups)} groups it holds)" if len(groups) > 1 else ""
        self.notify(f"T{t + 1}, line {data.line_of(t)}{more}: {record_text(record)}"
                    + ("" if self.session.result is not None else " · a runs the strongest attack"), timeout=6)
        return None

    def result_changed(self) -> None:
        self.list_pane.rebuild()
        if self.switcher.current == "detail":
            self.switcher.current = "distances"
        self.distances.show(None)
        self.show_current()
        self.refresh_bindings()

    RESULT_NOUN = "attack result"

    def attack_notice(self, result) -> str:
        n = result.report.get("summary", {}).get("eliminations", 0)
        return f"{self._attack_title}: {plural(n, 'elimination')}"

    def export_name(self, result) -> str:
        return f"{self.session.path.stem}-{result.report.get('method', 'attack')}-report.json"

    # ------------------------------------------------------------------ attacks
    def form_values(self) -> dict:
        """What the form starts from: the last run's options, else the release's k."""
        values = dict(self.attack_values)
        result = self.session.result
        if result is not None:  # start from what produced the results on screen
            rep = result.report
            prev = {k: rep.get(k) for k in ("method", "measure", "context", "aggregate", "threshold", "seed",
                                            "knowledge")}
            if isinstance(rep.get("background"), dict):
                prev["background"] = rep["background"].get("source")
            if rep.get("k_source") == "option":
                prev["k"] = rep.get("k")
            values = {**{k: v for k, v in prev.items() if v is not None}, **values}
        if not str(values.get("background") or "").strip():
            values.pop("knowledge", None)  # a knowledge table needs a background: prefill what runs
        return {k: v for k, v in values.items() if v is not None}

    def action_attack(self) -> None:
        def done(params: dict | None) -> None:
            if params is not None:
                self.attack_values = {k: ("" if v is None else v) for k, v in params.items()}
                self.start_attack(params)

        s = self.session
        original = str(s.original_path) if s.original_path is not None else None
        self.app.push_screen(AttackForm(self.form_values(), s.k_for_exposure(), items=s.data.vocab.items,
                                        original=original), done)

    def start_attack(self, params: dict) -> None:
        from semtui.attacks.setgen import AttackOptions, run_setgen_attack

        s = self.session
        if s.unmarked is not None and params.get("k") not in (None, "", s.recovery_k):
            # the engine recovers with the form's k: the groups would not be the ones shown here
            self.notify(f"this unmarked release is shown recovered with k = {s.recovery_k or 'unknown'}; "
                        "leave k blank", severity="warning")
            return
        background = params.get("background")
        if background and ":" not in background:  # a file: its name (the bar keeps room for what it is doing)
            from pathlib import Path

            background = Path(background).name
        self._attack_title = f"{params['method'] or 'default'}/{params['measure']}" + (
            f"+{background}" if background else "")
        self.job_title = self._attack_title
        self.progress.start(self._attack_title)
        self.refresh_bindings()

        def attack(progress) -> dict:
            # an unmarked release: the engine recovers its generalised items (as the session did) and reports how
            return run_setgen_attack(s.data if s.unmarked is None else s.unmarked, s.original,
                                     AttackOptions(**params, unmarked=s.unmarked is not None), progress=progress,
                                     data_path=s.path, original_path=s.original_path).to_json()

        start_job(self, "attack", attack, params=params)

    def cancel_jobs(self) -> bool:
        if self.progress.running:
            self.progress.cancelling()
            cancel_job(self, "attack")
            self.set_timer(0.25, self._cancel_settled)
            return True
        return False

    def _cancel_settled(self) -> None:
        """A worker cancelled before its thread started posts nothing back: end the bar here."""
        from semtui.tui.workers import job_running

        if self.progress.running and getattr(self.progress, "is_cancelling", False):
            if job_running(self, "attack"):
                self.set_timer(0.25, self._cancel_settled)
            else:
                self._attack_done()
                self.notify("attack cancelled")
