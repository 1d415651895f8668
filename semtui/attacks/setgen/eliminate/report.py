"""The report of ``semtui table eliminate``: one eliminator on one distance table given as CSV."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from semtui.attacks.setgen.eliminate.labels import parse_group
from semtui.attacks.setgen.eliminate.result import EliminationResult
from semtui.reports import Report, json_float


@dataclass
class TableEliminationReport(Report):
    """What one eliminator did to one distance table given as CSV (``table eliminate``)."""

    FORMAT = "semtui-table-eliminate/1"

    file: str
    columns: list[str]
    rows: list[str]
    result: EliminationResult

    def group_name(self, group: str | None) -> str | None:
        """'row 2' -> 'row gangrene', 'col 1' -> 'column icd'."""
        parsed = parse_group(group)
        if parsed is None:
            return group
        axis, k = parsed
        return f"row {self.rows[k]}" if axis == "row" else f"column {self.columns[k]}"

    def payload(self) -> dict:
        r, rows, columns = self.result, self.rows, self.columns
        eliminated = [{
            "step": e.step, "row": rows[e.row], "column": columns[e.col],
            "distance": float(e.distance), "weighted": float(e.weighted),
            "vulnerability": json_float(e.vulnerability), "group": self.group_name(e.group),
            "row_index": e.row, "column_index": e.col,
        } for e in r.eliminations]
        kept = [{"row": rows[i], "column": columns[j], "row_index": int(i), "column_index": int(j)}
                for i, j in zip(*np.nonzero(r.live))]
        return {"file": self.file, "method": r.method, "threshold": json_float(r.threshold), "rows": rows,
                "columns": columns, "eliminated": eliminated, "kept": kept}
