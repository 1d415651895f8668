"""What one eliminator did to one distance table."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Elimination:
    """One eliminated cell, in the order the method eliminated it."""

    step: int  # 1-based
    row: int
    col: int
    distance: float  # the raw distance D[row, col]
    weighted: float  # the (weighted) distance that chose it (== distance for mda/tba/ra)
    vulnerability: float | None  # vulnerability of the group that chose it (gba/rba)
    group: str | None  # "row i" / "col j" that chose it (gba/rba)


@dataclass
class EliminationResult:
    """What a method did to one distance table."""

    method: str
    threshold: float | None  # δ used (None for mda/ra)
    eliminations: list[Elimination]
    live: np.ndarray  # bool mask of cells still present at the end
    initial_weighted: np.ndarray  # weighted table before any elimination (NaN where missing)
    final_weighted: np.ndarray  # weighted table at the end (NaN where eliminated/missing)
    #: Final row / column weights (what ``weighted`` was computed with); NaN where no cell.
    row_weights: np.ndarray | None = None
    col_weights: np.ndarray | None = None
    #: Vulnerability of every row and column group of the initial weighted table (gba/rba).
    initial_row_vulnerability: np.ndarray | None = None
    initial_col_vulnerability: np.ndarray | None = None
    #: The arguments the result was computed with, so :func:`replay` can redo it.
    options: dict = field(default_factory=dict)
    #: with ``lean=True`` (threshold and random methods): the eliminated cells as arrays, in
    #: order, instead of :class:`Elimination` objects (a kernel that only measures needs no more)
    cells: tuple[np.ndarray, np.ndarray] | None = None

    def eliminated_cells(self) -> tuple[np.ndarray, np.ndarray]:
        """Rows and columns of the eliminated cells, in the order they were eliminated."""
        if self.cells is not None:
            return self.cells
        e = self.eliminations
        return (np.fromiter((x.row for x in e), dtype=np.int64, count=len(e)),
                np.fromiter((x.col for x in e), dtype=np.int64, count=len(e)))

    @property
    def eliminated(self) -> np.ndarray:
        """Bool mask of the eliminated cells."""
        mask = np.zeros(self.live.shape, dtype=bool)
        if self.eliminations:
            rows = [e.row for e in self.eliminations]
            cols = [e.col for e in self.eliminations]
            mask[rows, cols] = True
        return mask
