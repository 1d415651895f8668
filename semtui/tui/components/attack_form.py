"""``a``: the attack form (method, measure, context, seed), prefilled with the last values."""

from __future__ import annotations

from typing import ClassVar

from textual.app import ComposeResult
from textual.binding import BindingType
from textual.containers import Horizontal, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, Select, Static

from semtui.errors import InputError
from semtui.tui.components.footer import KeyFooter
from semtui.tui.keys import bindings

#: The form's values when no attack has run yet: the papers' best method, the bundled
#: GloVe measure (works offline), every context item, the mean aggregate.
DEFAULTS = {"method": "", "measure": "embedding", "context": "all", "aggregate": "mean", "threshold": "",
            "seed": "", "k": "", "vectors": "", "jobs": "1", "background": "", "knowledge": ""}

#: the method Select's first entry: the engine's default (rba; pba with a background, tba on its semantics table)
DEFAULT_METHOD_LABEL = "default: rba, or the stronger of pba and tba with a background"

#: the form's fields after method, in order: (field, label)
FIELDS = (
    ("measure", "measure"),
    ("context", "context (all, or nearest:N)"),
    ("aggregate", "aggregate over the context (mean, min, or top:K)"),
    ("threshold", "threshold δ (tba/wba/gba/rba; blank: the method's own)"),
    ("seed", "seed (ra only; blank for none)"),
    ("k", "k for exposure (blank: {k_hint})"),
    ("vectors", "vectors file (embedding only; blank: the bundled GloVe)"),
    ("jobs", "jobs (worker processes)"),
    ("background", "background: FILE, counts:FILE or wordfreq:LANG (blank: none)"),
    ("knowledge", "knowledge table with a background: prior, semantics, background, combined (blank: combined)"),
)


def _int(text: str, option: str) -> int | None:
    text = str(text or "").strip()
    if not text:
        return None
    if not text.lstrip("-").isdigit():
        raise InputError(f"{option} must be a whole number, got {text!r}", option=option)
    return int(text)


def validate(values: dict) -> dict:
    """Check the form with the engine's own options object; returns the keyword arguments of
    :class:`~semtui.attacks.setgen.AttackOptions`.  An error names the form's field."""
    from semtui.attacks.setgen import AttackOptions

    threshold_text = str(values.get("threshold") or "").strip()
    try:
        threshold = float(threshold_text) if threshold_text else None
    except ValueError:
        raise InputError(f"the threshold must be a number, got {threshold_text!r}", option="threshold") from None
    seed = _int(values.get("seed"), "seed")
    params = {
        "method": values.get("method") or None,
        "measure": values["measure"],
        "context": values.get("context") or "all",
        "aggregate": values.get("aggregate") or "mean",
        "threshold": threshold,
        "seed": seed,
        "k": _int(values.get("k"), "k"),
        "vectors": str(values.get("vectors") or "").strip() or None,
        "jobs": 1 if _int(values.get("jobs"), "jobs") is None else _int(values.get("jobs"), "jobs"),
        "background": str(values.get("background") or "").strip() or None,
        "knowledge": str(values.get("knowledge") or "").strip() or None,
    }
    if seed is not None and seed < 0:
        raise InputError(f"the seed must be a non-negative integer, got {seed}", option="seed")
    opts = AttackOptions(**params)
    return {k: getattr(opts, k) for k in params}


def measure_reach(spec: str, vectors: str | None, items: list[str]) -> tuple[str, int, int, list[str]] | None:
    """In a thread: (measure, items it knows, items, a few it does not) — or None when the
    measure cannot be opened (the run itself will say why)."""
    from semtui.measures import open_measure

    try:
        measure = open_measure(spec, vectors=vectors, cache=False)
        unknown = measure.unknown(items)
    except Exception:  # a bad spec or file: the form's validation and the run report it
        return None
    return spec, len(items) - len(unknown), len(items), unknown[:3]


#: below this share of the release's items known to the measure, the form warns before a run
REACH_WARNING = 0.01


def reach_warning(spec: str, known: int, total: int, examples: list[str], *, instead: str = "",
                  original: str | None = None) -> str:
    """What a form says when the measure knows (almost) none of the release's items: the
    attack would score nearly nothing; ``instead`` says what needs no measure."""
    if not total or known / total >= REACH_WARNING:
        return ""
    ids = all(e.strip().isdigit() for e in examples) and examples
    what = f" (they are ids, e.g. {', '.join(examples)})" if ids else ""
    knows = "none" if not known else f"only {known:,}"
    bg = f" — the original, {original}, is the strongest —" if original else ""
    return (f"⚠ {spec} knows {knows} of the release's {total:,} items{what}: an attack with it scores "
            f"nearly nothing. " + instead.format(bg=bg))


class OptionsForm(ModalScreen[dict | None]):
    """A form of an operation's options: ``validated()`` checks its fields with the engine's
    own options code; ctrl+s (or enter in a text field, or the Run button) runs, enter on a
    list opens it, escape cancels; an error about one option is shown and that field focused.
    The form opens on its first field; the focused field and its label stand out, and text
    selected in a field (all of it when tab arrives: typing replaces it) is drawn reversed.  Subclasses compose the fields (an ``#error`` Static, ``#run``/``#cancel``
    buttons) and define ``validated()``: the values, checked, or InputError naming the option."""

    BINDINGS: ClassVar[list[BindingType]] = bindings("form")

    DEFAULT_CSS = """
    OptionsForm { align: center middle; }
    OptionsForm > VerticalScroll {
        width: 72; max-width: 100%; height: auto; max-height: 100%;
        border: round $accent; background: $surface; padding: 0 1;
    }
    OptionsForm Label { margin-top: 0; color: $text-muted; width: 100%; }
    OptionsForm Input, OptionsForm Select { margin: 0; background: $boost; }
    OptionsForm Label.-current { color: $text; text-style: bold; }
    OptionsForm Input:focus { background: $accent 45%; text-style: bold; }
    OptionsForm Input:focus > .input--selection { background: $foreground; color: $background; }
    OptionsForm Select:focus > SelectCurrent { background: $accent 45%; text-style: bold; }
    OptionsForm Button:focus { text-style: bold reverse; }
    OptionsForm #error { color: $error; height: auto; }
    OptionsForm #note { color: $warning; height: auto; display: none; }
    OptionsForm #note.-shown { display: block; }
    OptionsForm Horizontal { height: auto; align-horizontal: right; margin-top: 1; }
    OptionsForm Button { margin-left: 1; min-width: 10; }
    """

    #: the form's own subtitle: how to run it
    KEYS_HINT = "ctrl+s runs · enter opens a list · escape cancels"

    def on_mount(self) -> None:
        self.mount(KeyFooter())  # the form's own keys, not the screen's beneath
        for inp in self.query(Input):
            inp.cursor_blink = False
        for box in self.query(VerticalScroll):
            box.can_focus = False  # tab goes from field to field, never to an invisible stop
            box.border_subtitle = self.KEYS_HINT
        # the first field: enter on a list opens it (it never starts a run); ctrl+s runs
        first = next(iter(self.query("Select, Input")), None)
        (first if first is not None else self.query_one("#run", Button)).focus()
        self.check_measure()

    def on_descendant_focus(self, event) -> None:
        """The focused field's label stands out too (the field alone is easy to lose)."""
        ident = getattr(event.widget, "id", None)
        for label in self.query(Label):
            label.set_class(ident is not None and label.id == f"{ident}-label", "-current")

    # ------------------------------------------------------------------ the measure's reach
    #: the release's item names (checked against the form's measure before anything runs) and
    #: the original's path, when open (the strongest background to suggest)
    items: tuple[str, ...] | list[str] = ()
    original: str | None = None
    _checked: tuple | None = None
    #: what the warning proposes instead ({bg}: the original, when open)
    INSTEAD = ""

    def uses_measure(self, values: dict) -> bool:
        """Whether the run as filled in scores with the measure."""
        return True

    def on_descendant_blur(self, event) -> None:
        if getattr(event.widget, "id", None) in ("measure", "vectors", "background", "method"):
            self.check_measure()

    def on_select_changed(self) -> None:
        self.check_measure()

    def check_measure(self) -> None:
        """Before anything runs: does the measure know the release's items?  Opening a measure
        takes a second (GloVe), so a thread asks it; the answer shows in ``#note``."""
        if not self.items or not self.query("#measure") or not self.query("#note"):
            return
        values = self.current()
        spec = str(values.get("measure") or "").strip()
        vectors = str(values.get("vectors") or "").strip() or None
        uses = self.uses_measure(values)
        key = (spec, vectors, uses)
        if key == self._checked:
            return
        self._checked = key
        if not uses:
            self.show_note("")
            return
        items = self.items
        self.run_worker(lambda: measure_reach(spec, vectors, items), thread=True, exclusive=True,
                        group="measure-reach", exit_on_error=False)

    def on_worker_state_changed(self, event) -> None:
        from textual.worker import WorkerState

        if event.worker.group != "measure-reach" or event.state != WorkerState.SUCCESS:
            return
        found = event.worker.result
        if found is None or found[0] != str(self.current().get("measure") or "").strip():
            return  # a measure that could not open, or one the field no longer names
        self.show_note(reach_warning(*found, instead=self.INSTEAD, original=self.original))

    def show_note(self, text: str) -> None:
        note = self.query_one("#note", Static)
        note.update(text)
        note.set_class(bool(text), "-shown")

    def action_run(self) -> None:
        try:
            params = self.validated()
        except InputError as exc:
            field = getattr(exc, "option", None)
            self.query_one("#error", Static).update(exc.message if field else str(exc))
            if field and self.query(f"#{field}"):
                self.query_one(f"#{field}").focus()
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


class AttackForm(OptionsForm):
    """Returns the validated keyword arguments of ``run_setgen_attack``, or None."""

    HELP_TITLE = "attack form"
    HELP = ("tab moves between fields; ctrl+s runs the attack (or enter in a text field), enter on a list opens "
            "it, escape cancels. Every option of "
            "`semtui attack setgen` is here; a blank field takes the engine's default.")

    #: what the warning proposes instead of a measure that knows none of the items
    INSTEAD = ("Use the prior/background attacker instead: a background file of a similar population{bg} in the "
               "background field (or a scores:FILE measure over these items).")

    def uses_measure(self, values: dict) -> bool:
        return not str(values.get("background") or "").strip()  # a background attacks every row

    def __init__(self, values: dict | None = None, k_default: tuple[int | None, str] = (None, ""),
                 items: list[str] | None = None, original: str | None = None) -> None:
        """``k_default``: the k a blank k field means, and where it comes from; ``items``: the
        release's item names, checked against the measure before anything runs; ``original``:
        the original's path, when open (the strongest background to suggest)."""
        super().__init__()
        self.values = {**DEFAULTS, **{k: v for k, v in (values or {}).items() if v is not None}}
        self.k_default = k_default
        self.items = items or []
        self.original = original

    def compose(self) -> ComposeResult:
        from semtui.attacks.setgen.eliminate import METHODS
        from semtui.attacks.setgen.options import METHOD_HELP
        from semtui.measures import MEASURES

        v = self.values
        with VerticalScroll() as box:
            box.border_title = "Attack the equivalence groups"
            yield Static("", id="note", markup=False)
            yield Label("method", id="method-label")
            yield Select([(DEFAULT_METHOD_LABEL, ""), *((METHOD_HELP.get(m, m), m) for m in METHODS)],
                         value=v["method"] if v["method"] in METHODS else "",
                         allow_blank=False, id="method", compact=True)
            k, source = self.k_default
            k_hint = f"{k}, from the {source}" if k is not None else "the smallest group size"
            for name, label in FIELDS:
                if name == "measure":
                    label = f"measure ({', '.join(MEASURES)})"
                yield Label(label.format(k_hint=k_hint), id=f"{name}-label")
                value = v.get(name, "")
                yield Input("" if value in (None, "") else str(value), id=name, compact=True)
            yield Static("", id="error")
            with Horizontal():
                yield Button("Cancel", id="cancel", compact=True)
                yield Button("Run", variant="primary", id="run", compact=True)

    def current(self) -> dict:
        out = {"method": self.query_one("#method", Select).value}
        for name, _ in FIELDS:
            out[name] = self.query_one(f"#{name}", Input).value
        return out

    def validated(self) -> dict:
        return validate(self.current())
