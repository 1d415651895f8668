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
from typing import ClassVar

import numpy as np
from rich.color import Color
from rich.style import Style
from rich.text import Text
from textual.binding import BindingType
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import Static

from semtui.attacks.setgen.eliminate import parse_group
from semtui.tui.components.cells import Cell
from semtui.tui.components.vtable import Column, VirtualTable
from semtui.tui.keys import GLOSSARY, only
from semtui.tui.messages import JobFailed, JobFinished, JobProgress
from semtui.tui.session import Result
from semtui.tui.text import num, plural, share_room

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
#: a cell the other result (compare) treats differently
DIFFERS_STYLE = Style(underline=True, bold=True, italic=True)


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
        """One per group and result, kept on the result: the engine's replay of a big group
        is computed once, whatever the list cursor does meanwhile."""
        if label in result.attacks:
            return result.attacks[label]
        grp = result.group(label)
        if grp is None:
            return None
        table = np.array(
            [[np.nan if v is None else v for v in row] for row in grp.get("table", [])], dtype=np.float64
        ).reshape(len(grp.get("rows", [])), len(grp.get("members", [])))
        r = result.report
        seed = r.get("seed")
        from semtui.attacks.setgen.options import group_seed

        attack = cls(result, grp, table, r.get("method", "rba"), r.get("threshold"),
                     group_seed(None if seed is None else int(seed), int(grp.get("id", 0))))
        attack.weighted = {}
        result.attacks[label] = attack
        return attack

    @property
    def eliminations(self) -> list[dict]:
        return self.group.get("eliminations", [])

    @property
    def n_steps(self) -> int:
        return len(self.eliminations)

    def replayed(self, step: int | None) -> np.ndarray | None:
        """The weighted table after ``step`` if already computed, else None."""
        return self.weighted.get(step)

    def compute_weighted(self, step: int | None, progress=None) -> np.ndarray | None:
        """For a worker thread: the weighted table after ``step`` (``None``: after every
        step), following the report's own path (the engine's ``weighted_along``), kept on
        this object.  No re-run: a report's rounded table need not reproduce the path."""
        if step in self.weighted:
            return self.weighted[step]
        if self.table.size == 0:
            self.weighted[step] = None
            return None
        from semtui.attacks.setgen.eliminate import weighted_along

        steps = [(e["row"], e["column"]) for e in self.eliminations]
        out = weighted_along(self.table, self.method, steps, len(steps) if step is None else step, progress)
        self.weighted[step] = out
        return out


class DistanceTable(VirtualTable):
    """Cells of a :class:`GroupAttack`; the view options live on the owning view."""

    BINDINGS: ClassVar[list[BindingType]] = only("table.sort_asc", "table.sort_desc")

    def __init__(self, **kw) -> None:
        super().__init__(empty="no distance table: no transaction of this group has a scored context", **kw)
        self.pinned = 1  # the context column stays when the members scroll sideways

    def action_sort(self, descending: bool) -> None:
        self.parent.sort_rows(self.cursor_col, descending)


def gradient_style(v: float, scale: tuple[float, float]) -> Style:
    """The colour of distance ``v`` on the result's one scale (the same in every group)."""
    lo, hi = scale
    k = int((v - lo) / ((hi - lo) or 1.0) * (len(GRADIENT) - 1))
    return GRADIENT[max(0, min(k, len(GRADIENT) - 1))]


class DistanceView(Vertical):
    """A status line (what the attack did, or the current step) above a distance table.

    The weighted view (``w``) asks the engine to replay the group's attack: that runs in a
    worker (a 3,000-row RBA group takes seconds), the raw table stays on screen meanwhile, a
    newer request replaces a pending one, and the result stays on the group's
    :class:`GroupAttack` so coming back to the group is instant.
    """

    DEFAULT_CSS = """
    DistanceView { height: 1fr; }
    DistanceView > #status { height: auto; max-height: 3; padding: 0 1; color: $text; background: $boost; }
    DistanceView > DistanceTable { height: 1fr; }
    """

    class CursorMoved(Message):
        def __init__(self, view: DistanceView, row: int) -> None:
            self.view, self.row = view, row
            super().__init__()

    def __init__(self, *, compact: bool = False, **kw) -> None:
        """``compact``: narrow cells (eliminated ones without their distance) and a short
        context column, so that two tables fit side by side at 80 columns."""
        super().__init__(**kw)
        self.compact = compact
        #: compact cells now: asked for, and the full cells (``✗3 0.56``) leave the context too little room
        self.narrow = compact
        #: the other side's number of steps (compare): both sides then size their cells alike
        self.peer_steps = 0
        self.attack: GroupAttack | None = None
        self.step: int | None = None  # None: the final table; k: after k eliminations
        self.weighted = False
        self.show_original = True
        #: (row, column) cells to mark as differing from another result (compare)
        self.differs: set[tuple[int, int]] = set()
        #: the order rows are shown in (a sort of the table), as table row indices
        self.order: np.ndarray | None = None
        #: (attack, step) of the replay running in the worker, if any
        self._running: tuple[GroupAttack, int | None] | None = None

    def compose(self):
        status = Static("", id="status", markup=False)
        status.tooltip = "\n".join(GLOSSARY[k] for k in ("δ", "vulnerability", "skipped rows"))
        yield status
        yield DistanceTable(id="distances")

    @property
    def table(self) -> DistanceTable:
        return self.query_one(DistanceTable)

    # ------------------------------------------------------------------ content
    def show(self, attack: GroupAttack | None) -> None:
        self.attack = attack
        self.step = None
        self.order = None
        self.differs = set()
        self.table.first_col = self.table.pinned
        self.redraw()

    def on_resize(self) -> None:
        if self.attack is not None:
            self.redraw()

    def row_index(self, view_row: int) -> int:
        """The table row shown at ``view_row`` (rows may be sorted)."""
        return int(self.order[view_row]) if self.order is not None else view_row

    def view_row(self, row: int) -> int:
        if self.order is None:
            return row
        return int(np.flatnonzero(self.order == row)[0])

    def sort_rows(self, column: int, descending: bool) -> None:
        """``[``/``]`` on a distance table: rows by the current member's distance (or by line)."""
        a = self.attack
        if a is None or not a.group.get("rows"):
            return
        keep = self.row_index(self.table.cursor_row)
        if column == 0:
            key = np.array([r["line"] for r in a.group["rows"]], dtype=np.float64)
        else:
            key = self.values()[:, column - 1]
        nan = np.isnan(key)
        vals = np.where(nan, 0, key)
        self.order = np.lexsort((-vals if descending else vals, nan))
        self.table.sort_marks = {column: " ▼" if descending else " ▲"}
        self.redraw()
        self.table.move_to(self.view_row(keep))

    def redraw(self, *, keep_cursor: bool = True) -> None:
        table = self.table
        a = self.attack
        cursor = table.cursor_row if keep_cursor else 0
        if a is None:
            table.sort_marks = {}
            table.set_rows(0, lambda i: (), [Column("x", "", None)])
            self.query_one("#status", Static).update("this group is not in the report")
            return
        if self.order is None:
            table.sort_marks = {}
        members = a.group.get("members", [])
        rows = a.group.get("rows", [])
        values = self.values()
        step_of = self.step_marks()
        orig = a.group.get("original") if self.show_original else None
        if self.compact:  # side by side: the full cells whenever they leave the context 16 columns
            self.narrow = False
            full = self.cell_width(values, orig is not None)
            room = self.table.scrollable_content_region.width or 80
            self.narrow = len(members) * (full + 1) + 1 + 16 > room
        width = self.cell_width(values, orig is not None)
        columns = self.columns(width, members, rows)
        current = self.step if self.step is not None else -1
        differs = self.differs
        order = self.order
        scale = a.result.scale

        def row(view_i: int) -> list[Cell]:
            i = int(order[view_i]) if order is not None else view_i
            r = rows[i]
            out: list[Cell] = [Text(f"L{r['line']}: " + ", ".join(r.get("context", [])))]
            for j in range(len(members)):
                v = values[i, j]
                s = step_of.get((i, j))
                mark = ORIGINAL if orig is not None and orig[i][j] else ""
                if s is not None:
                    shown = a.table[i, j] if not self.weighted else a.eliminations[s - 1].get("weighted")
                    dist = "" if self.narrow or shown is None or not np.isfinite(shown) else f" {shown:.2f}"
                    cell = Text(f"{mark}{ELIMINATED}{s}{dist}", style=ELIMINATED_STYLE)
                    if s == current:
                        cell.stylize(CURRENT_STEP_STYLE)
                elif not np.isfinite(v):
                    cell = Text(f"{mark}{MISSING}")
                else:
                    cell = Text(f"{mark}{v:.2f}", style=gradient_style(v, scale))
                if (i, j) in differs:  # underlined: visible without colour too
                    cell.stylize(DIFFERS_STYLE)
                out.append(cell)
            return out

        table.set_rows(len(rows), row, columns, cursor=cursor)
        header = ["T", "line", "context", "member", "weighted_distance" if self.weighted else "distance",
                  "eliminated", "step", "scored"] + (["original"] if orig is not None else [])

        def records(view_i: int):
            # one record per cell, values in their own columns (ctrl+s), in the rows' shown order
            i = int(order[view_i]) if order is not None else view_i
            r = rows[i]
            context = ", ".join(r.get("context", []))
            for j, m in enumerate(members):
                v = values[i, j]
                s = step_of.get((i, j))
                if s is not None and self.weighted:
                    v = a.eliminations[s - 1].get("weighted")
                finite = v is not None and bool(np.isfinite(v))
                rec = [r["transaction"] + 1, r["line"], context, m, float(v) if finite else None,
                       s is not None, s, finite or s is not None]
                if orig is not None:
                    rec.append(bool(orig[i][j]))
                yield rec

        table.set_records(header, records)
        self.query_one("#status", Static).update(self.status())

    def columns(self, width: int, members: list[str], rows: list[dict]) -> list[Column]:
        """The context column (pinned), then one per member, as wide as the room allows: a
        member's full name when every one fits, else the short names whole and the long ones an
        equal share of the rest, never under a cell."""
        room = self.table.scrollable_content_region.width or 80
        n = max(len(members), 1)
        longest_ctx = max((len(f"L{r['line']}: " + ", ".join(r.get("context", [])))
                           for r in rows[:2000]), default=8)
        if self.narrow:
            ctx_min = min(max(6, room // 5), longest_ctx)
        elif self.compact:
            ctx_min = min(16, longest_ctx)
        else:
            ctx_min = min(max(14, room // 3), max(longest_ctx, 14))
        # the room of the member columns: everything but the context, the gutter and one gap per column
        avail = room - ctx_min - 1 - n
        # a member column as wide as its name: when they do not all fit, the short names stay whole
        # and the long ones share what is left (text.share_room), never under a cell's width
        wanted = [max(width, len(m)) for m in members]
        if self.narrow:  # a narrow table (80 columns, side by side): what short names leave goes to the context
            avail = min(avail, sum(min(w, max(width, avail // n)) for w in wanted))
        names = share_room(wanted, avail, [width] * len(members), spread=False)
        ctx_label = "context" if self.compact else "transaction: context"
        columns = [Column("ctx", ctx_label, None, min_width=ctx_min)]
        columns += [Column(f"m{j}", m, w, "right") for j, (m, w) in enumerate(zip(members, names))]
        return columns

    def cell_width(self, values: np.ndarray, marks: bool) -> int:
        """The widest cell the table can show, so that no number is ever cut."""
        a = self.attack
        shown = [values, a.table]
        if self.weighted:
            shown.append(np.array([e.get("weighted") for e in a.eliminations], dtype=np.float64))
        widest = max((np.nanmax(np.abs(v)) for v in shown if np.isfinite(v).any()), default=0.0)
        negative = any((v[np.isfinite(v)] < 0).any() for v in shown)
        digits = len(f"{widest:.2f}") + int(negative)
        steps = max(a.n_steps, self.peer_steps)
        step = 1 + len(str(steps)) if steps else 0
        width = int(marks) + max(digits, step + (0 if self.narrow else 1 + digits))
        return max(width, 6) if self.narrow else width

    def follow_step(self) -> None:
        """Put the cursor on the cell the current step eliminated (scrolling to it)."""
        if self.step:
            e = self.attack.eliminations[self.step - 1]
            table = self.table
            table.move_to(self.view_row(e["row"]))
            table.cursor_col = e["column"] + 1

    def values(self) -> np.ndarray:
        """What the cells show: raw distances, or weighted ones at the current step once the
        engine's replay is ready (a worker computes it; the raw table is shown meanwhile)."""
        a = self.attack
        if not self.weighted:
            return a.table
        got = a.replayed(self.step)
        if got is not None:
            return got
        if self.step not in a.weighted:
            self.request_replay(a, self.step)
        return a.table

    @property
    def replay_pending(self) -> bool:
        a = self.attack
        return bool(self.weighted and a is not None and self.step not in a.weighted)

    def request_replay(self, attack: GroupAttack, step: int | None) -> None:
        """Replay in a worker; a newer request cancels a stale one (the engine checks for
        that every 50 ms)."""
        key = (attack, step)
        if self._running == key:
            return
        from semtui.tui.workers import start_job

        self._running = key
        start_job(self, "replay", attack.compute_weighted, step, params=key)

    def on_job_progress(self, message: JobProgress) -> None:
        if message.job == "replay":
            message.stop()  # a replay's progress is not the attack's progress bar

    def on_job_finished(self, message: JobFinished) -> None:
        if message.job != "replay":
            return
        message.stop()
        if self._running == message.params:
            self._running = None
        attack, step = message.params
        if attack is self.attack and step == self.step and self.weighted:
            self.redraw()

    def on_job_failed(self, message: JobFailed) -> None:
        if message.job != "replay":
            return
        message.stop()
        if self._running == message.params:
            self._running = None
        if not message.cancelled:
            self.app.notify(f"the weighted replay failed: {message.error}", severity="error")

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
        if self.replay_pending:
            kind = "weighted: replaying… (raw shown)"
        elif self.weighted and a.replayed(self.step) is None:
            kind = "raw (an empty table has no weights)"
        if self.step is None:
            m = grp.get("metrics") or {}
            pr = ""
            if m:
                pr = f" · P {num(m.get('precision'))} R {num(m.get('recall'))}"
            skipped = f" · {len(grp.get('skipped', [])):,} skipped" if grp.get("skipped") else ""
            exposed = f" · {len(grp.get('exposed', [])):,} exposed" if grp.get("exposed") else ""
            hint = " · space steps" if a.n_steps else ""
            legend_s = f" · {MISSING} no score" if np.isnan(a.table).any() else ""
            diff = f" · {len(self.differs)} underlined differ" if self.differs else ""
            return (f"{rep.get('method', '?')}: {plural(a.n_steps, 'elimination')} · {delta_s}{pr}{skipped}{exposed}"
                    f" · {kind}{hint}{legend_s}{diff} · colour 0 green … {a.result.scale[1]:.2g} red")
        if self.step == 0:
            return f"step 0/{a.n_steps}: the table before the attack · {delta_s} · {kind}"
        e = a.eliminations[self.step - 1]
        row = grp["rows"][e["row"]]
        chosen = f" · chosen by {chosen_by(e.get('group'), grp)}" if e.get("group") else ""
        vul = f" · vulnerability {e['vulnerability']:.3f}" if e.get("vulnerability") is not None else ""
        return (f"step {self.step}/{a.n_steps}: {e['item']} out of line {row['line']}{chosen}{vul}"
                f" · {delta_s} · {kind}")

    # ------------------------------------------------------------------ actions
    def can_step(self) -> bool:
        # Raw step mode needs only the report's steps; the engine is asked only for
        # weighted distances (``w``), in a worker.
        return self.attack is not None and self.attack.n_steps > 0

    def goto_step(self, step: int | None) -> None:
        """Step ``step`` (0: before the attack; ``None`` or past the end: the final table)."""
        if not self.can_step():
            return
        n = self.attack.n_steps
        self.step = None if step is None or step >= n else max(step, 0)
        if step is not None and step >= n:
            self.step = n
        self.redraw()
        self.follow_step()

    def step_forward(self) -> None:
        if not self.can_step():
            return
        n = self.attack.n_steps
        self.goto_step(1 if self.step is None else min(self.step + 1, n))

    def step_back(self) -> None:
        if not self.can_step():
            return
        n = self.attack.n_steps
        self.goto_step(n - 1 if self.step is None else max(self.step - 1, 0))

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

    def current_cell(self) -> tuple[int, int] | None:
        """(table row, member column) under the cursor, or None on the context column."""
        t = self.table
        if self.attack is None or not t.row_count:
            return None
        return self.row_index(t.cursor_row), t.cursor_col - 1

    def on_virtual_table_highlighted(self, event: VirtualTable.Highlighted) -> None:
        self.post_message(self.CursorMoved(self, event.row))


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

