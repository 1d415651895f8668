"""Plots of experiment cells in the terminal (textual-plot), and the table beside them.

One cell is one candidate release as ``semtui experiment`` writes it (docs/experiments.md, the
``semtui-experiment/1`` line); an assessment's ``alternatives`` are the same objects plus
``chosen``.  Both the experiment screen and the assessment screen draw them with the widgets
here:

* :class:`RiskUtilityPlot`: risk (the strongest attack's take, y) against utility (the cell's
  score, x), the Pareto frontier joined and marked;
* :class:`ByKPlot`: precision and recall (or accuracy) against k, one line per family;
* :class:`CellsTable`: one row per cell; its cursor is the plots' cursor (``@``).

Marks are glyphs first and colours second, so nothing rests on colour alone; the legend under
each plot says what every glyph is.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from rich.text import Text
from textual.binding import BindingType
from textual_plot import NumericAxisFormatter, PlotWidget

from semtui.tui.components.vtable import Column, VirtualTable
from semtui.tui.keys import only
from semtui.wording import check_words

#: one colour per family (the glyph says the figure, the case and the legend the family)
FAMILY_STYLE = {"setgen": "cyan", "km": "magenta", "disassoc": "green"}
#: glyphs per family and figure on the plot against k
FIGURE_GLYPH = {("setgen", "precision"): "p", ("setgen", "recall"): "r", ("km", "precision"): "P",
                ("km", "recall"): "R", ("disassoc", "accuracy"): "a"}
MARK_CELL, MARK_FRONT, MARK_THIS, MARK_CHOSEN, MARK_CURSOR = "o", "◆", "T", "*", "@"
STYLE_CELL, STYLE_FRONT, STYLE_THIS, STYLE_CHOSEN, STYLE_CURSOR = ("dim", "bold yellow", "bold magenta",
                                                                   "bold green", "bold reverse")


# --------------------------------------------------------------------------- reading cells
def _num(v) -> float:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) and np.isfinite(v) else np.nan


def risk(cell: dict) -> float:
    """The strongest attack's take (0 = nothing taken back, 1 = everything); NaN if unknown."""
    return _num((cell.get("privacy") or {}).get("risk"))


def utility(cell: dict) -> float:
    """The cell's utility score (higher = more useful); NaN if unknown."""
    return _num((cell.get("utility") or {}).get("score"))


def family(cell: dict) -> str:
    return str((cell.get("cell") or {}).get("family", "?"))


def k_of(cell: dict) -> float:
    return _num((cell.get("cell") or {}).get("k"))


def figure(cell: dict, name: str) -> float:
    return _num(((cell.get("privacy") or {}).get("figures") or {}).get(name))


def pair_error(cell: dict) -> float:
    """How far the cell's release puts the original's pair supports, on average (the utility
    axis every family shares, metrics.supports); NaN if the cell does not say."""
    return _num((cell.get("utility") or {}).get("pair_support_error"))


def label(cell: dict) -> str:
    lab = cell.get("label")
    if isinstance(lab, str) and lab:
        return lab
    c = cell.get("cell") or {}
    return " ".join([family(cell)] + [f"{k}={v}" for k, v in c.items() if k != "family" and v is not None])


def is_this(cell: dict) -> bool:
    return cell.get("label") == "this release"


def pareto_front(r: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Mask of the cells no other cell beats: none has less or equal risk and more or equal
    utility, one of them strictly.  Cells with an unknown risk or utility are never on it."""
    r, u = np.asarray(r, dtype=float), np.asarray(u, dtype=float)
    ok = np.isfinite(r) & np.isfinite(u)
    if not ok.any():
        return ok
    R, U = r[ok], u[ok]
    better_or_eq = (R[None, :] <= R[:, None]) & (U[None, :] >= U[:, None])
    strictly = (R[None, :] < R[:, None]) | (U[None, :] > U[:, None])
    front = ~(better_or_eq & strictly).any(axis=1)
    out = np.zeros(len(r), dtype=bool)
    out[np.flatnonzero(ok)] = front
    return out


def _fmt(v: float, digits: int = 3) -> str:
    return "–" if not np.isfinite(v) else f"{v:.{digits}f}"


def _support_error(v: float) -> str:
    """A support error as every face words it (:func:`semtui.wording.support_error`), "–" unknown."""
    from semtui.wording import support_error

    return support_error(v) if np.isfinite(v) else "–"


def _ticks(lo: float, hi: float, height: int) -> list[float]:
    if height >= 12:
        return [lo + (hi - lo) * f for f in (0, 0.25, 0.5, 0.75, 1)]
    return [lo, (lo + hi) / 2, hi]


def span(values: np.ndarray) -> tuple[float, float]:
    """Axis bounds for shares in [0, 1]: the values' range with a margin, on a 0.05 grid and a
    multiple of 0.2 wide (so that the ticks of :func:`_ticks` fall on round numbers), within
    [0, 1].  Candidate releases often differ in the second decimal: on a fixed 0-1 axis a cloud
    at 0.85-0.95 would take a tenth of the plot and its points fall on one another."""
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    if not len(v):
        return 0.0, 1.0
    lo = max(0.0, np.floor((float(v.min()) - 0.02) * 20) / 20)
    hi = min(1.0, np.ceil((float(v.max()) + 0.02) * 20) / 20)
    width = min(1.0, max(0.2, np.ceil(round((hi - lo) / 0.2, 9)) * 0.2))
    lo = min(lo, 1.0 - width)
    return float(round(lo, 2)), float(round(lo + width, 2))


# --------------------------------------------------------------------------- plots
class ExactFormatter(NumericAxisFormatter):
    """Tick labels that say the tick's value exactly (0.25, not textual-plot's rounded 0.2)."""

    def get_labels_for_ticks(self, ticks: Sequence[float]) -> list[str]:
        return [f"{float(t):g}" for t in ticks]


class CellPlot(PlotWidget, can_focus=False):
    """A plot of cells: no pan or zoom (the arrows move the table's cursor), no floating
    legend (it would hide points at 80x24: the legend is a line under the plot)."""

    DEFAULT_CSS = """
    CellPlot { height: 1fr; min-height: 4; }
    """

    def __init__(self, **kw) -> None:
        super().__init__(allow_pan_and_zoom=False, **kw)
        self.cells: list[dict] = []
        self.selected: int | None = None

    #: what the axes are, for the title of the box around the plot (the plot's own axis labels
    #: would take three rows, a third of the plot at 80x24)
    AXES = ""

    def on_mount(self) -> None:
        self.margin_left = 6   # "0.75" and a tick: numbers are never cut
        self.margin_top = 0
        self.margin_bottom = 1
        self.show_legend(is_visible=False)
        self.set_x_formatter(ExactFormatter())
        self.set_y_formatter(ExactFormatter())
        self.redraw()

    def on_resize(self) -> None:
        self.call_after_refresh(self.redraw)

    def show(self, cells: Sequence[dict], selected: int | None = None) -> None:
        self.cells = list(cells)
        self.selected = selected
        if self.is_mounted:
            self.redraw()

    def select(self, selected: int | None) -> None:
        if selected != self.selected:
            self.selected = selected
            if self.is_mounted:
                self.redraw()

    def redraw(self) -> None:
        """Draw :attr:`cells` (subclasses)."""

    def _cursor(self, x: np.ndarray, y: np.ndarray) -> None:
        s = self.selected
        if s is not None and 0 <= s < len(x) and np.isfinite(x[s]) and np.isfinite(y[s]):
            self.scatter([x[s]], [y[s]], marker=MARK_CURSOR, marker_style=STYLE_CURSOR)


class RiskUtilityPlot(CellPlot):
    """Risk (y) against utility (x); the Pareto frontier joined, its cells ◆; "this release" T,
    the chosen one *, the table's cursor @."""

    AXES = "risk ↑ vs utility score →"

    def redraw(self) -> None:
        self.clear()
        r = np.array([risk(c) for c in self.cells], dtype=float)
        u = np.array([utility(c) for c in self.cells], dtype=float)
        (x0, x1), (y0, y1) = span(u), span(r)  # zoomed to the cells: they seldom spread over 0-1
        self.set_xlimits(x0, x1)
        self.set_ylimits(y0, y1)
        self.set_xticks([round(t, 4) for t in _ticks(x0, x1, 12 if self.size.width >= 40 else 0)])
        self.set_yticks([round(t, 4) for t in _ticks(y0, y1, self.size.height)])
        if not len(r):
            return
        front = pareto_front(r, u)
        if front.sum() >= 2:
            idx = np.flatnonzero(front)
            idx = idx[np.argsort(u[idx])]
            from textual_plot import HiResMode

            self.plot(u[idx], r[idx], line_style="yellow", hires_mode=HiResMode.BRAILLE)
        ok = np.isfinite(r) & np.isfinite(u)
        self.scatter(u[ok & ~front], r[ok & ~front], marker=MARK_CELL, marker_style=STYLE_CELL)
        self.scatter(u[front], r[front], marker=MARK_FRONT, marker_style=STYLE_FRONT)
        this = np.array([is_this(c) for c in self.cells], dtype=bool) & ok
        chosen = np.array([bool(c.get("chosen")) for c in self.cells], dtype=bool) & ok
        if this.any():
            self.scatter(u[this], r[this], marker=MARK_THIS, marker_style=STYLE_THIS)
        if chosen.any():
            self.scatter(u[chosen], r[chosen], marker=MARK_CHOSEN, marker_style=STYLE_CHOSEN)
        self._cursor(u, r)

    @staticmethod
    def legend(cells: Sequence[dict]) -> Text:
        t = Text()
        parts = [(MARK_CELL, STYLE_CELL, "cell"), (MARK_FRONT, STYLE_FRONT, "Pareto frontier")]
        if any(is_this(c) for c in cells):
            parts.append((MARK_THIS, STYLE_THIS, "this release"))
        if any(c.get("chosen") for c in cells):
            parts.append((MARK_CHOSEN, STYLE_CHOSEN, "chosen"))
        parts.append((MARK_CURSOR, STYLE_CURSOR, "cursor"))
        for i, (glyph, style, words) in enumerate(parts):
            if i:
                t.append("  ")
            t.append(glyph, style=style)
            t.append(f" {words}")
        return t


def series_by_k(cells: Sequence[dict]) -> list[tuple[str, str, np.ndarray, np.ndarray, np.ndarray]]:
    """(family, figure, cell indices, k, value) per family and figure drawn against k: precision
    and recall for set generalisation and k^m, accuracy for disassociation (or whichever of
    those the cells hold)."""
    out = []
    fams = list(dict.fromkeys(family(c) for c in cells))
    for fam in fams:
        idx = np.array([i for i, c in enumerate(cells) if family(c) == fam], dtype=np.int64)
        k = np.array([k_of(cells[i]) for i in idx], dtype=float)
        for name in ("precision", "recall", "accuracy"):
            v = np.array([figure(cells[i], name) for i in idx], dtype=float)
            ok = np.isfinite(v) & np.isfinite(k)
            if ok.any():
                out.append((fam, name, idx[ok], k[ok], v[ok]))
    return out


def glyph(fam: str, name: str) -> str:
    return FIGURE_GLYPH.get((fam, name), name[:1])


class ByKPlot(CellPlot):
    """Each family's precision and recall (or accuracy) against k: a line through the mean at
    each k, a glyph per cell (p/r set generalisation, P/R k^m, a disassociation)."""

    AXES = "precision, recall, acc. ↑ vs k →"

    def redraw(self) -> None:
        self.clear()
        self.set_ylimits(0.0, 1.0)
        self.set_yticks(_ticks(0.0, 1.0, self.size.height))
        series = series_by_k(self.cells)
        ks = np.unique(np.concatenate([s[3] for s in series])) if series else np.array([])
        if not len(ks):
            self.set_xlimits(0.0, 1.0)
            self.set_xticks([])
            return
        pad = max(0.5, 0.06 * (ks.max() - ks.min()))
        self.set_xlimits(float(ks.min() - pad), float(ks.max() + pad))
        shown = ks if len(ks) <= max(2, self.size.width // 8) else np.unique(
            np.round(np.linspace(ks.min(), ks.max(), max(2, self.size.width // 8))))
        self.set_xticks([float(x) for x in shown])
        from textual_plot import HiResMode

        for fam, name, _idx, k, v in series:
            style = FAMILY_STYLE.get(fam, "white")
            uk, inv = np.unique(k, return_inverse=True)
            if len(uk) >= 2:
                mean = np.bincount(inv, weights=v) / np.bincount(inv)
                self.plot(uk, mean, line_style=style, hires_mode=HiResMode.BRAILLE)
            self.scatter(k, v, marker=glyph(fam, name), marker_style=f"bold {style}")
        s = self.selected
        if s is not None and 0 <= s < len(self.cells):
            for _fam, _name, idx, k, v in series:
                hit = np.flatnonzero(idx == s)
                if len(hit):
                    self.scatter(k[hit], v[hit], marker=MARK_CURSOR, marker_style=STYLE_CURSOR)

    @staticmethod
    def legend(cells: Sequence[dict]) -> Text:
        """One entry per family: its glyphs and what they are (p/r precision/recall, a accuracy)."""
        t = Text()
        by_family: dict[str, list[str]] = {}
        for fam, name, *_ in series_by_k(cells):
            by_family.setdefault(fam, []).append(name)
        for fam, names in by_family.items():
            style = f"bold {FAMILY_STYLE.get(fam, 'white')}"
            for j, name in enumerate(names):
                if j:
                    t.append("/")
                t.append(glyph(fam, name), style=style)
            short = {"precision": "prec.", "recall": "recall", "accuracy": "accuracy"}
            t.append(f" {fam} " + "/".join(short[n] for n in names) + "  ")
        if not by_family:
            t.append("no cell has precision, recall or accuracy  ", style="italic")
        t.append(MARK_CURSOR, style=STYLE_CURSOR)
        t.append(" cursor")
        return t


# --------------------------------------------------------------------------- the table
class CellsTable(VirtualTable):
    """One row per cell: marks (◆ frontier, T this release, * chosen, ✗ check failed), label,
    risk, utility, the attack's figures, how far its pair supports are off (pairs±), the
    checker's verdict and the release file."""

    BINDINGS: ClassVar[list[BindingType]] = only("table.sort_asc", "table.sort_desc")

    def __init__(self, cells: Sequence[dict], *, label_floor: int = 14, **kw) -> None:
        """``label_floor``: the fewest cells a label is cut to when the table does not fit (the
        figures after it are then a → away)."""
        super().__init__(empty="no cells", **kw)
        self.pinned = 2
        self.label_floor = label_floor
        self.load(cells)

    def load(self, cells: Sequence[dict]) -> None:
        self.cells = list(cells)
        n = len(self.cells)
        self.risk = np.array([risk(c) for c in self.cells], dtype=float)
        self.utility = np.array([utility(c) for c in self.cells], dtype=float)
        self.front = pareto_front(self.risk, self.utility)
        self.order = np.arange(n)
        self.fill()

    @property
    def current(self) -> int | None:
        """The cell under the cursor (index into :attr:`cells`)."""
        return int(self.order[self.cursor_row]) if self.row_count else None

    def marks(self, i: int) -> Text:
        c = self.cells[i]
        t = Text()
        t.append(MARK_FRONT if self.front[i] else " ", style=STYLE_FRONT)
        t.append(MARK_THIS if is_this(c) else " ", style=STYLE_THIS)
        t.append(MARK_CHOSEN if c.get("chosen") else " ", style=STYLE_CHOSEN)
        passed = (c.get("check") or {}).get("passed")
        t.append("✗" if passed is False else " ", style="bold red")
        return t

    def _values(self, i: int) -> dict:
        c = self.cells[i]
        p, rc, acc = figure(c, "precision"), figure(c, "recall"), figure(c, "accuracy")
        passed = (c.get("check") or {}).get("passed")
        rel = c.get("release")
        return {"n": str(i + 1), "marks": self.marks(i), "label": label(c), "risk": _fmt(self.risk[i]),
                "utility": _fmt(self.utility[i]), "pairs": _support_error(pair_error(c)), "p": _fmt(p if np.isfinite(p) else acc), "r": _fmt(rc),
                "check": "–" if passed is None else check_words(c.get("check")).removeprefix("check "),
                "release": "– (none kept)" if not rel else str(rel).rsplit("/", 1)[-1]}

    def fill(self) -> None:
        width = len(str(len(self.cells)))
        cols = [Column("n", "#", max(width, 1), "right"), Column("marks", "mark", 4),
                Column("label", "cell", None, min_width=self.label_floor), Column("risk", "risk", 5, "right"),
                Column("utility", "util", 5, "right"), Column("p", "P/acc", 5, "right"),
                Column("r", "R", 5, "right"), Column("pairs", "pairs±", 8, "right"), Column("check", "check", 6), Column("release", "release", None,
                                                                                   min_width=10)]

        def row(v: int):
            vals = self._values(int(self.order[v]))
            return [vals[c.key] for c in cols]

        self.set_rows(len(self.cells), row, cols, cursor=self.cursor_row)

    def action_sort(self, descending: bool) -> None:
        """``[`` ``]``: sort by the current column (risk, utility and figures as numbers)."""
        if not self.row_count:
            return
        key = self.columns[self.cursor_col].key
        keep = self.current
        n = len(self.cells)
        if key in ("risk", "utility"):
            values = getattr(self, key)
        elif key == "pairs":
            values = np.array([pair_error(c) for c in self.cells])
        elif key in ("p", "r"):
            name = "precision" if key == "p" else "recall"
            values = np.array([figure(c, name) if np.isfinite(figure(c, name)) else figure(c, "accuracy")
                               for c in self.cells])
        elif key == "n":
            values = np.arange(n, dtype=float)
        else:
            texts = [self._values(i)[key] for i in range(n)]
            texts = [t.plain if isinstance(t, Text) else t for t in texts]
            idx = sorted(range(n), key=texts.__getitem__, reverse=descending)
            self.order = np.asarray(idx, dtype=np.int64)
            values = None
        if values is not None:
            v = np.where(np.isfinite(values), values, np.inf if not descending else -np.inf)
            self.order = np.argsort(-v if descending else v, kind="stable")
        self.sort_marks = {self.cursor_col: " ▼" if descending else " ▲"}
        self.fill()
        self.move_to(int(np.flatnonzero(self.order == keep)[0]))


def cell_about(cell: dict) -> Text:
    """Two lines on a cell: its label, how far its strongest attack is from chance (the words of
    ``semtui assess``'s line) and the checker's verdict; its release and strongest attack."""
    from semtui.experiment.alternatives import short_far

    t = Text()
    t.append(label(cell), style="bold")
    if (cell.get("privacy") or {}) and (cell.get("cell") or {}).get("family"):
        t.append(f" · {short_far(cell)}")
    chk = cell.get("check") or {}
    if chk:
        t.append(" · ")
        t.append(check_words(chk, full=True), style="bold red" if chk.get("passed") is False else "")
    rel = cell.get("release")
    t.append("\n")
    t.append(f"release {rel} (enter opens it)" if rel else "no release kept (null)", style="dim")
    p = cell.get("privacy") or {}
    if p.get("attack"):
        t.append(f" · strongest attack: {p['attack']}", style="dim")
    return t
