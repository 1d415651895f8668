"""The distance table of one equivalence group, as an attack report gives it.

Rows are the group's transactions (with their context), columns the generalised item's
members, each cell coloured on a precomputed gradient (memray's approach) from related
(low distance) to unrelated (high).  Eliminated cells carry ``✗`` and their step number,
original items a ``●`` (both survive ``NO_COLOR``).  Step mode replays the attack one
elimination at a time — the papers' Figs. 5–9 — by asking the engine's eliminator for
the table after each step; nothing here computes a distance or a weight.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from rich.color import Color
from rich.style import Style
from rich.text import Text
from textual.containers import Vertical
from textual.widgets import Static

from semtui.attacks.setgen import group_seed
from semtui.attacks.setgen.eliminate import parse_group
from semtui.tui.components.vtable import Cell, Column, VirtualTable
from semtui.tui.session import Result

ELIMINATED = "✗"
ORIGINAL = "●"
MISSING = "·"


def _gradient(steps: int = 16) -> list[Style]:
    """Green (related) → yellow → red (unrelated), dark text on top."""
    stops = [(46, 125, 50), (249, 168, 37), (198, 40, 40)]
    out = []
    for i in range(steps):
        x = i / (steps - 1) * (len(stops) - 1)
        k = min(int(x), len(stops) - 2)
        f = x - k
        a, b = stops[k], stops[k + 1]
        rgb = tuple(int(a[c] + (b[c] - a[c]) * f) for c in range(3))
        out.append(Style(bgcolor=Color.from_rgb(*rgb), color="black"))
    return out


GRADIENT = _gradient()
ELIMINATED_STYLE = Style(color="bright_black", strike=True)
CURRENT_STEP_STYLE = Style(reverse=True, bold=True)


@dataclass
class GroupAttack:
    """One group of one report, with the engine's replay of its attack for step mode."""

    result: Result
    group: dict
    table: np.ndarray  # raw distances, NaN where the report has null
    method: str
    threshold: float | None
    seed: int | None
    _run = None

    @classmethod
    def of(cls, result: Result, label: str) -> GroupAttack | None:
        grp = result.group(label)
        if grp is None:
            return None
        table = np.array(
            [[np.nan if v is None else v for v in row] for row in grp.get("table", [])], dtype=np.float64
        ).reshape(len(grp.get("rows", [])), len(grp.get("members", [])))
        r = result.report
        seed = r.get("seed")
        return cls(result, grp, table, r.get("method", "rba"), r.get("threshold"),
                   group_seed(seed, int(grp.get("id", 0))))

    @property
    def eliminations(self) -> list[dict]:
        return self.group.get("eliminations", [])

    @property
    def n_steps(self) -> int:
        return len(self.eliminations)

    def engine_run(self):
        """The eliminator's own run on this table (weights, δ, live mask)."""
        if self._run is None:
            from semtui.attacks.setgen.eliminate import eliminate

            self._run = eliminate(self.table, self.method, threshold=self.threshold, seed=self.seed)
        return self._run

    def agrees(self) -> bool:
        """Whether re-running the eliminator gives the report's steps (else step mode is off)."""
        run = self.engine_run()
        return [(e.row, e.col) for e in run.eliminations] == [(e["row"], e["column"]) for e in self.eliminations]

    def weighted_at(self, step: int | None) -> np.ndarray:
        """The weighted table after ``step`` eliminations (``None``: after all of them)."""
        run = self.engine_run()
        if step is None or step >= self.n_steps:
            return run.final_weighted
        if step == 0:
            return run.initial_weighted
        from semtui.attacks.setgen.eliminate import replay

        return replay(self.table, run, step)[0]


class DistanceTable(VirtualTable):
    """Cells of a :class:`GroupAttack`; the view options live on the owning view."""

    def __init__(self, **kw) -> None:
        super().__init__(empty="no distance table: no transaction of this group has a scored context", **kw)


class DistanceView(Vertical):
    """A status line (what the attack did, or the current step) above a distance table."""

    DEFAULT_CSS = """
    DistanceView { height: 1fr; }
    DistanceView > #status { height: auto; max-height: 3; padding: 0 1; color: $text; background: $boost; }
    DistanceView > DistanceTable { height: 1fr; }
    """

    def __init__(self, *, compact: bool = False, **kw) -> None:
        """``compact``: narrow cells (eliminated ones without their distance) and a short
        context column, so that two tables fit side by side at 80 columns."""
        super().__init__(**kw)
        self.compact = compact
        self.attack: GroupAttack | None = None
        self.step: int | None = None  # None: the final table; k: after k eliminations
        self.weighted = False
        self.show_original = True
        self._weighted_cache: dict[int | None, np.ndarray] = {}
        self._steps_ok: bool | None = None

    def compose(self):
        yield Static("", id="status", markup=False)
        yield DistanceTable(id="distances")

    @property
    def table(self) -> DistanceTable:
        return self.query_one(DistanceTable)

    # ------------------------------------------------------------------ content
    def show(self, attack: GroupAttack | None) -> None:
        self.attack = attack
        self.step = None
        self._weighted_cache = {}
        self._steps_ok: bool | None = None  # asked of the engine on first use only
        self.redraw()

    def redraw(self, *, keep_cursor: bool = True) -> None:
        table = self.table
        a = self.attack
        cursor = table.cursor_row if keep_cursor else 0
        if a is None:
            table.set_rows(0, lambda i: (), [Column("x", "", None)])
            self.query_one("#status", Static).update("this group is not in the report")
            return
        members = a.group.get("members", [])
        rows = a.group.get("rows", [])
        values = self.values()
        step_of = self.step_marks()
        orig = a.group.get("original") if self.show_original else None
        width = self.cell_width(values, orig is not None)
        if self.compact:
            width = max(width, 6)
            columns = [Column("ctx", "context", None, min_width=6)]
        else:
            width = max([width] + [min(len(m), 12) for m in members])
            columns = [Column("ctx", "transaction: context", None, min_width=14)]
        columns += [Column(f"m{j}", m, width, "right") for j, m in enumerate(members)]
        finite = values[np.isfinite(values)]
        lo, hi = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
        span = hi - lo if hi > lo else 1.0
        current = self.step if self.step is not None else -1

        def row(i: int) -> list[Cell]:
            r = rows[i]
            out: list[Cell] = [Text(f"L{r['line']}: " + ", ".join(r.get("context", [])))]
            for j in range(len(members)):
                v = values[i, j]
                s = step_of.get((i, j))
                mark = ORIGINAL if orig is not None and orig[i][j] else ""
                if s is not None:
                    shown = a.table[i, j] if not self.weighted else a.eliminations[s - 1].get("weighted")
                    num = "" if self.compact or shown is None or not np.isfinite(shown) else f" {shown:.2f}"
                    cell = Text(f"{mark}{ELIMINATED}{s}{num}", style=ELIMINATED_STYLE)
                    if s == current:
                        cell.stylize(CURRENT_STEP_STYLE)
                elif not np.isfinite(v):
                    cell = Text(f"{mark}{MISSING}")
                else:
                    k = int((v - lo) / span * (len(GRADIENT) - 1))
                    cell = Text(f"{mark}{v:.2f}", style=GRADIENT[max(0, min(k, len(GRADIENT) - 1))])
                out.append(cell)
            return out

        table.set_rows(len(rows), row, columns, cursor=cursor)
        self.query_one("#status", Static).update(self.status())

    def cell_width(self, values: np.ndarray, marks: bool) -> int:
        """The widest cell the table can show, so that no number is ever cut."""
        a = self.attack
        shown = [values, a.table]
        if self.weighted:
            shown.append(np.array([e.get("weighted") for e in a.eliminations], dtype=np.float64))
        widest = max((np.nanmax(np.abs(v)) for v in shown if np.isfinite(v).any()), default=0.0)
        negative = any((v[np.isfinite(v)] < 0).any() for v in shown)
        num = len(f"{widest:.2f}") + int(negative)
        step = 1 + len(str(a.n_steps)) if a.n_steps else 0
        return int(marks) + max(num, step + (0 if self.compact else 1 + num))

    def follow_step(self) -> None:
        """Put the cursor on the cell the current step eliminated (scrolling to it)."""
        if self.step:
            e = self.attack.eliminations[self.step - 1]
            table = self.table
            table.move_to(e["row"])
            table.cursor_col = e["column"] + 1

    def values(self) -> np.ndarray:
        """What the cells show: raw distances, or weighted ones at the current step."""
        a = self.attack
        if not self.weighted or not self.steps_ok:
            return a.table
        if self.step not in self._weighted_cache:
            self._weighted_cache[self.step] = a.weighted_at(self.step)
        return self._weighted_cache[self.step]

    def step_marks(self) -> dict[tuple[int, int], int]:
        """(row, column) -> step of every elimination shown at the current step."""
        upto = self.attack.n_steps if self.step is None else self.step
        return {(e["row"], e["column"]): e["step"] for e in self.attack.eliminations if e["step"] <= upto}

    def status(self) -> str:
        a = self.attack
        grp, rep = a.group, a.result.report
        delta = grp.get("threshold")
        delta_s = "δ —" if delta is None else f"δ {delta:.3f}"
        kind = "weighted" if self.weighted else "raw"
        if self.step is None:
            m = grp.get("metrics") or {}
            pr = ""
            if m:
                pr = f" · P {_f(m.get('precision'))} R {_f(m.get('recall'))}"
            skipped = f" · {len(grp.get('skipped', []))} skipped" if grp.get("skipped") else ""
            hint = " · space steps" if a.n_steps else ""
            legend = f" · {MISSING} no score" if np.isnan(a.table).any() else ""
            return (f"{rep.get('method', '?')}: {a.n_steps} eliminations · {delta_s}{pr}{skipped}"
                    f" · {kind}{hint}{legend}")
        if self.step == 0:
            return f"step 0/{a.n_steps}: the table before the attack · {delta_s} · {kind}"
        e = a.eliminations[self.step - 1]
        row = grp["rows"][e["row"]]
        chosen = f" · chosen by {chosen_by(e.get('group'), grp)}" if e.get("group") else ""
        vul = f" · vulnerability {e['vulnerability']:.3f}" if e.get("vulnerability") is not None else ""
        return (f"step {self.step}/{a.n_steps}: {e['item']} out of line {row['line']}{chosen}{vul}"
                f" · {delta_s} · {kind}")

    # ------------------------------------------------------------------ actions
    @property
    def steps_ok(self) -> bool:
        """Whether the engine replays this report's steps (a report from another version
        of the eliminator might not); asked once per group, when first needed."""
        if self._steps_ok is None:
            a = self.attack
            self._steps_ok = a is not None and a.table.size > 0 and a.agrees()
            if not self._steps_ok and a is not None and a.n_steps:
                self.app.notify("re-running the eliminator does not give this report's steps; "
                                "weighted distances are off for this group", severity="warning")
        return self._steps_ok

    def can_step(self) -> bool:
        # Raw step mode needs only the report's steps; the engine is asked only for
        # weighted distances (``w``), which a big group takes a moment to replay.
        return self.attack is not None and self.attack.n_steps > 0

    def step_forward(self) -> None:
        if not self.can_step():
            return
        n = self.attack.n_steps
        self.step = 1 if self.step is None else min(self.step + 1, n)
        self.redraw()
        self.follow_step()

    def step_back(self) -> None:
        if not self.can_step():
            return
        n = self.attack.n_steps
        self.step = n - 1 if self.step is None else max(self.step - 1, 0)
        self.redraw()
        self.follow_step()

    def step_reset(self) -> None:
        if not self.can_step():
            return
        self.step = 0
        self.redraw()

    def toggle_weighted(self) -> None:
        self.weighted = not self.weighted
        self.redraw()

    def toggle_original(self) -> None:
        self.show_original = not self.show_original
        self.redraw()


def chosen_by(group: str, grp: dict) -> str:
    """The engine's ``row i`` / ``col j`` (0-based table indices) as a person reads them:
    the row's file line (``row L12``) or the member's name (``column injury``)."""
    parsed = parse_group(group)
    if parsed is None:
        return group
    kind, i = parsed
    if kind == "row" and i < len(grp.get("rows", [])):
        return f"row L{grp['rows'][i]['line']}"
    if kind == "col" and i < len(grp.get("members", [])):
        return f"column {grp['members'][i]}"
    return group


def _f(v) -> str:
    return "—" if v is None else f"{v:.2f}"
