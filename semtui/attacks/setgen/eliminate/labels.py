"""How a result names the group (a row or a column of the table) that chose a cell."""

from __future__ import annotations


def group_label(axis: str, index: int) -> str:
    """How a result names the group that chose a cell: ``row i`` or ``col j`` (0-based)."""
    return f"{axis} {index}"


def parse_group(label: str | None) -> tuple[str, int] | None:
    """``row i`` / ``col j`` back to ``("row", i)`` / ``("col", j)``; None if not such a label."""
    if not label:
        return None
    axis, _, index = label.partition(" ")
    return (axis, int(index)) if axis in ("row", "col") and index.isdigit() else None
