"""One distance table as CSV (``semtui table eliminate``).

The first row holds a corner label and then the member items of the generalised item; every
other row holds a context label and then one distance per member item, an empty cell being a
missing distance.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

import numpy as np

from semtui.errors import InputError
from semtui.fileio import read_text


def read_distance_table(path: str | Path) -> tuple[str, list[str], list[str], np.ndarray]:
    """Parse a distance-table CSV: ``(corner, columns, rows, float array)``.

    Raises InputError naming the file and line for ragged rows, non-numbers, duplicate
    column labels or a table without data.
    """
    text = read_text(path)
    reader = csv.reader(text.splitlines())
    header: list[str] | None = None
    header_line = 0
    rows: list[str] = []
    values: list[list[float]] = []
    try:
        for record in reader:
            line = reader.line_num
            if not record or all(not cell.strip() for cell in record):
                continue  # blank line
            if header is None:
                header = [cell.strip() for cell in record]
                header_line = line
                if len(header) < 2:
                    raise InputError("the header needs a corner label and at least one "
                                     "member item", path, line)
                seen: dict[str, int] = {}
                for k, name in enumerate(header[1:], start=2):
                    if not name:
                        raise InputError(f"column {k} has an empty label", path, line)
                    if name in seen:
                        raise InputError(f"duplicate column label {name!r} (columns "
                                         f"{seen[name]} and {k})", path, line)
                    seen[name] = k
                continue
            if len(record) != len(header):
                raise InputError(f"{len(record)} fields, expected {len(header)} like the "
                                 f"header on line {header_line}", path, line)
            row: list[float] = []
            for k, cell in enumerate(record[1:], start=2):
                cell = cell.strip()
                if not cell:
                    row.append(math.nan)
                    continue
                try:
                    x = float(cell)
                except ValueError:
                    raise InputError(f"column {k} ({header[k - 1]!r}): {cell!r} is not a "
                                     "number", path, line) from None
                if not math.isfinite(x):
                    raise InputError(f"column {k} ({header[k - 1]!r}): {cell!r} is not a "
                                     "finite number (leave the cell empty for a missing "
                                     "distance)", path, line)
                row.append(x)
            rows.append(record[0].strip())
            values.append(row)
    except csv.Error as exc:
        raise InputError(f"not valid CSV: {exc}", path, reader.line_num) from None
    if header is None:
        raise InputError("no header row", path)
    if not rows:
        raise InputError("no data rows after the header", path, header_line)
    D = np.array(values, dtype=np.float64).reshape(len(rows), len(header) - 1)
    return header[0], header[1:], rows, D
