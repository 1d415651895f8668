"""``a`` / ``p`` on a disassociated release: the re-association form (every option of
``semtui attack disassoc``) and the cover form (every option of ``semtui cover``); each is
checked by the engine's own options object."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Button, Input, Label, Select, Static

from semtui.errors import InputError
from semtui.tui.components.attack_form import OptionsForm

REASSOC_DEFAULTS = {"method": "aba", "measure": "embedding", "background": "", "k": "", "term_placements": "",
                    "seed": "0", "ties": "", "vectors": "", "jobs": "1"}
COVER_DEFAULTS = {"attacker": "strong", "knowledge": "", "seed": "0"}


def _choices(kind: str) -> dict[str, tuple[str, ...]]:
    if kind == "cover":
        from semtui.attacks.cover import ATTACKERS

        return {"attacker": ATTACKERS[:3]}
    from semtui.attacks.reassociation.options import METHODS, TIES

    return {"method": METHODS, "ties": TIES}


#: (field, label) in order, per form
FIELDS = {
    "reassociation": (
        ("method", "method (aba, rga, mra: the paper's; assign: optimal; ra: random; nba: naive Bayes)"),
        ("measure", "measure (embedding, scores:FILE, ngd:INDEX, counts:FILE, wordnet)"),
        ("background", "background for nba (FILE, counts:FILE, wordfreq:LANG; blank: none)"),
        ("k", "k: the protection level of k^m breakage (blank: the release's k = {k})"),
        ("term_placements", "term placements: transactions per term-chunk term (blank: k - 1 = {k1})"),
        ("seed", "seed (RA, random ties, the random baseline, intervals)"),
        ("ties", "ties (first: the anchoring chunk's order, as the paper; random: seeded; blank: the method's "
                 "default, first for aba/rga/mra/assign, random for nba)"),
        ("vectors", "vectors file (embedding only; blank: the bundled GloVe)"),
        ("jobs", "jobs (worker processes)"),
    ),
    "cover": (
        ("attacker", "attacker (strong: knows every pair; moderate: pairs of half the records, needs "
                     "--original; weak: 10 items + 10 outside words)"),
        ("knowledge", "knowledge file (one itemset per line; replaces the attacker; blank: none)"),
        ("seed", "seed (the moderate and weak attackers' knowledge)"),
    ),
}


def _int(text, option: str) -> int | None:
    text = str(text or "").strip()
    if not text:
        return None
    if not text.lstrip("-").isdigit():
        raise InputError(f"{option} must be a whole number, got {text!r}", option=option)
    return int(text)


def validate(kind: str, values: dict) -> dict:
    """Check the form with the engine's own options object (:class:`ReassociationOptions` /
    :class:`CoverOptions`); returns the keyword arguments that build it.  An error names the
    field at fault."""
    if kind == "cover":

        from semtui.attacks.cover import CoverOptions

        opts = CoverOptions(attacker=values.get("attacker") or "strong",
                            knowledge=str(values.get("knowledge") or "").strip() or None,
                            seed=_int(values.get("seed"), "seed"))
        for path in opts.input_files:
            if not path.is_file():
                raise InputError(f"no such file: {path}", option="knowledge")
        return {name: getattr(opts, name) for name, _ in FIELDS["cover"]}
    from semtui.attacks.reassociation import ReassociationOptions

    jobs = _int(values.get("jobs"), "jobs")
    opts = ReassociationOptions(
        method=values.get("method") or "aba",
        measure=str(values.get("measure") or ""),
        background=str(values.get("background") or "").strip() or None,
        k=_int(values.get("k"), "k"),
        term_placements=_int(values.get("term_placements"), "term_placements"),
        seed=_int(values.get("seed"), "seed"),
        ties=str(values.get("ties") or "").strip() or None,  # blank: the method's default
        vectors=str(values.get("vectors") or "").strip() or None,
        jobs=1 if jobs is None else jobs,
    )
    return {name: getattr(opts, name) for name, _ in FIELDS["reassociation"]}


class DisassocForm(OptionsForm):
    """Returns the validated options of one disassociation attack, or None."""

    HELP_TITLE = "attack form"
    HELP = ("tab moves between fields; ctrl+s runs (or enter in a text field), enter on a list opens it, escape "
            "cancels. Every option of the headless "
            "command is here; a blank field takes the engine's default.")

    DEFAULT_CSS = """
    DisassocForm > VerticalScroll { width: 76; }
    """

    INSTEAD = ("Use nba instead (naive Bayes over a background file of a similar population{bg}), or a "
               "scores:FILE measure over these items.")

    def uses_measure(self, values: dict) -> bool:
        return values.get("method") not in ("ra", "nba")  # random placement and naive Bayes use none

    def __init__(self, kind: str, values: dict | None = None, release_k: int | None = None,
                 items: list[str] | None = None, original: str | None = None) -> None:
        """``items``, ``original``: the release's item names and the original's path (see
        :class:`OptionsForm`)."""
        super().__init__()
        self.items = items or []
        self.original = original
        self.kind = kind
        defaults = COVER_DEFAULTS if kind == "cover" else REASSOC_DEFAULTS
        self.values = {**defaults, **{k: v for k, v in (values or {}).items() if v is not None and k in defaults}}
        self.release_k = release_k

    def compose(self) -> ComposeResult:
        choices = _choices(self.kind)
        with VerticalScroll() as box:
            box.border_title = ("Find the cover problems (semtui cover)" if self.kind == "cover"
                                else "Re-associate the chunks (semtui attack disassoc)")
            yield Static("", id="note", markup=False)
            for name, label in FIELDS[self.kind]:
                yield Label(label.format(k=self.release_k, k1=max((self.release_k or 2) - 1, 1)), id=f"{name}-label")
                value = self.values.get(name, "")
                if name in choices:
                    # a field whose default is blank (ties: the method's default) offers the blank choice
                    blank = REASSOC_DEFAULTS.get(name) == "" and self.kind != "cover"
                    yield Select([(c, c) for c in choices[name]], value=value or Select.NULL, allow_blank=blank,
                                 prompt="default (per method)" if blank else "Select", id=name, compact=True)
                else:
                    yield Input("" if value in (None, "") else str(value), id=name, compact=True)
            yield Static("", id="error")
            with Horizontal():
                yield Button("Cancel", id="cancel", compact=True)
                yield Button("Run", variant="primary", id="run", compact=True)

    def current(self) -> dict:
        out = {}
        for name, _ in FIELDS[self.kind]:
            widget = self.query_one(f"#{name}")
            out[name] = "" if widget.value is Select.NULL else widget.value
        return out

    def validated(self) -> dict:
        return validate(self.kind, self.current())
