"""``a``: the attack form (method, measure, context, seed), prefilled with the last values."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static

from semtui.errors import InputError

#: The form's values when no attack has run yet: the papers' best method, the bundled
#: GloVe measure (works offline), every context item.
DEFAULTS = {"method": "rba", "measure": "embedding", "context": "all", "seed": ""}

METHOD_HELP = {
    "rba": "RBA — regrouping (the papers' best)",
    "gba": "GBA — grouping by vulnerability",
    "wba": "WBA — weighted threshold",
    "tba": "TBA — raw threshold",
    "mda": "MDA — the single largest distance",
    "ra": "RA — random (baseline, seeded)",
}


def validate(values: dict) -> dict:
    """Check the form with the engine's own options object; returns its fields as given to
    :class:`~semtui.attacks.setgen.AttackOptions`.  An error names the form's field."""
    from semtui.attacks.setgen import AttackOptions

    seed_text = str(values.get("seed") or "").strip()
    if seed_text and not seed_text.lstrip("-").isdigit():
        raise InputError(f"the seed must be an integer, got {seed_text!r}", option="seed")
    params = {
        "method": values["method"],
        "measure": values["measure"],
        "context": values["context"],
        "seed": int(seed_text) if seed_text else None,
    }
    opts = AttackOptions(**params)
    return {"method": opts.method, "measure": opts.measure, "context": opts.context, "seed": opts.seed}


class AttackForm(ModalScreen[dict | None]):
    """Returns the validated keyword arguments of ``run_setgen_attack``, or None."""

    HELP_TITLE = "attack form"
    HELP = "tab moves between fields; enter runs the attack, escape cancels."

    DEFAULT_CSS = """
    AttackForm { align: center middle; }
    AttackForm > Vertical {
        width: 72; max-width: 100%; height: auto; max-height: 100%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    AttackForm Label { margin-top: 1; color: $text-muted; width: 100%; }
    AttackForm Input, AttackForm Select { margin: 0; background: $boost; }
    AttackForm #error { color: $error; height: auto; }
    AttackForm Horizontal { height: auto; align-horizontal: right; margin-top: 1; }
    AttackForm Button { margin-left: 1; min-width: 10; }
    """

    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("escape", "cancel", "Cancel", id="form.cancel"),
        Binding("ctrl+s", "run", "Run attack", id="form.run"),
    ]

    def __init__(self, values: dict | None = None) -> None:
        super().__init__()
        self.values = {**DEFAULTS, **(values or {})}

    def compose(self) -> ComposeResult:
        from semtui.attacks.setgen.eliminate import METHODS
        from semtui.measures import MEASURES

        v = self.values
        with Vertical() as box:
            box.border_title = "Attack the equivalence groups"
            box.border_subtitle = "enter runs · escape cancels"
            yield Label("method")
            yield Select([(METHOD_HELP.get(m, m), m) for m in METHODS], value=v["method"],
                         allow_blank=False, id="method", compact=True)
            yield Label(f"measure ({', '.join(MEASURES)})", id="measure-label")
            yield Input(str(v["measure"]), id="measure", compact=True)
            yield Label("context (all, or nearest:N)")
            yield Input(str(v["context"]), id="context", compact=True)
            yield Label("seed (RA; blank for none)")
            yield Input("" if v["seed"] in (None, "") else str(v["seed"]), id="seed", compact=True)
            yield Static("", id="error")
            with Horizontal():
                yield Button("Cancel", id="cancel", compact=True)
                yield Button("Run", variant="primary", id="run", compact=True)

    def on_mount(self) -> None:
        for inp in self.query(Input):
            inp.cursor_blink = False
        # Enter on the form runs the prefilled attack at once; tab reaches the fields.
        self.query_one("#run", Button).focus()

    def current(self) -> dict:
        return {
            "method": self.query_one("#method", Select).value,
            "measure": self.query_one("#measure", Input).value,
            "context": self.query_one("#context", Input).value,
            "seed": self.query_one("#seed", Input).value,
        }

    def action_run(self) -> None:
        try:
            params = validate(self.current())
        except InputError as exc:
            self.query_one("#error", Static).update(str(exc))
            return
        self.dismiss(params)

    def action_cancel(self) -> None:
        self.dismiss(None)

    def on_input_submitted(self) -> None:
        self.action_run()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "run":
            self.action_run()
        else:
            self.action_cancel()
