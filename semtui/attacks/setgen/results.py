"""One equivalence group as a set-generalisation attack wrote it up, typed: its rows and their
context, its distance table, the eliminations, which members are exposed and, with the original,
which cells were original and the group's metrics.

The kernel (:mod:`.kernel`) makes a :class:`GroupWriteUp` per group; the engine reads its
attributes (the records at risk of ``assess``, hardening's regrouping, the attacked release);
:meth:`GroupWriteUp.to_json` gives the report's ``groups`` entry exactly as the report always
held it, and :meth:`GroupWriteUp.from_json` reads one back.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class GroupRow:
    """A row the attack scored: its transaction (0-based), its line in the release and the
    context it was scored against."""

    transaction: int
    line: int
    context: tuple[str, ...]

    def to_json(self) -> dict:
        return {"transaction": self.transaction, "line": self.line, "context": list(self.context)}

    @classmethod
    def from_json(cls, d: dict) -> GroupRow:
        return cls(int(d["transaction"]), int(d["line"]), tuple(d.get("context") or ()))


@dataclass(frozen=True)
class Elimination:
    """One member eliminated from one row: the eliminator's step, the row (in the group's table
    and as a transaction), the member (its name and column) and the figures it was eliminated on.
    ``capped``: whether the cell held only a measure's stand-in (None: the measure has none)."""

    step: int
    transaction: int
    row: int
    item: str
    column: int
    distance: float | None
    weighted: float | None
    vulnerability: float | None
    group: str | None
    capped: bool | None = None

    def to_json(self) -> dict:
        out = {"step": self.step, "transaction": self.transaction, "row": self.row, "item": self.item,
               "column": self.column, "distance": self.distance, "weighted": self.weighted,
               "vulnerability": self.vulnerability, "group": self.group}
        if self.capped is not None:
            out["capped"] = self.capped
        return out

    @classmethod
    def from_json(cls, d: dict) -> Elimination:
        return cls(int(d["step"]), int(d["transaction"]), int(d["row"]), str(d["item"]), int(d["column"]),
                   d.get("distance"), d.get("weighted"), d.get("vulnerability"), d.get("group"), d.get("capped"))


@dataclass(frozen=True)
class GroupWriteUp:
    """One group of the report (``groups[i]``).  ``original`` (with the original only): per
    scored row, which members are original; ``metrics``, ``density`` and
    ``reidentified_rows_correct`` likewise."""

    id: int
    generalised_item: str
    members: tuple[str, ...]
    size: int
    rows: tuple[GroupRow, ...]
    skipped: tuple[int, ...]
    table: list
    threshold: float | None
    eliminations: tuple[Elimination, ...]
    possible: dict
    exposed: tuple[str, ...]
    reidentified_rows: int
    capped_cells: list | None = None
    original: list | None = None
    reidentified_rows_correct: int | None = None
    density: float | None = None
    metrics: dict | None = None

    def to_json(self) -> dict:
        out = {"id": self.id, "generalised_item": self.generalised_item, "members": list(self.members),
               "size": self.size, "rows": [r.to_json() for r in self.rows], "skipped": list(self.skipped),
               "table": self.table, "threshold": self.threshold,
               "eliminations": [e.to_json() for e in self.eliminations], "possible": self.possible,
               "exposed": list(self.exposed), "reidentified_rows": self.reidentified_rows}
        if self.capped_cells is not None:
            out["capped_cells"] = self.capped_cells
        if self.original is not None:
            out["original"] = self.original
            out["reidentified_rows_correct"] = self.reidentified_rows_correct
            out["density"] = self.density
            out["metrics"] = self.metrics
        return out

    @classmethod
    def from_json(cls, d: dict) -> GroupWriteUp:
        return cls(int(d["id"]), str(d["generalised_item"]), tuple(d["members"]), int(d["size"]),
                   tuple(GroupRow.from_json(r) for r in d.get("rows") or ()), tuple(d.get("skipped") or ()),
                   d.get("table") or [], d.get("threshold"),
                   tuple(Elimination.from_json(e) for e in d.get("eliminations") or ()), d.get("possible") or {},
                   tuple(d.get("exposed") or ()), int(d.get("reidentified_rows") or 0), d.get("capped_cells"),
                   d.get("original"), d.get("reidentified_rows_correct"), d.get("density"), d.get("metrics"))
