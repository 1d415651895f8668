"""``semtui table``: attack one distance table given as CSV.

The CSV is the distance table of one equivalence group: the first row holds a corner
label and then the member items of the generalised item; every other row holds a context
label and then one distance per member item, an empty cell being a missing distance.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated

import typer

app = typer.Typer(
    help="Attack one distance table (CSV) with an eliminator.",
    no_args_is_help=True,
    context_settings={"help_option_names": ["-h", "--help"]},
)

_METHODS = ("mda", "tba", "wba", "gba", "rba", "ra")
FORMAT = "semtui-table-eliminate/1"


@app.command("eliminate")
def eliminate_cmd(
    table: Annotated[Path, typer.Argument(
        help="Distance table as CSV: corner label + member items, then one row per "
             "context (empty cell = missing).")],
    method: Annotated[str, typer.Option(
        "--method", "-m", help="mda, tba, wba, gba, rba or ra (random baseline).")] = "rba",
    threshold: Annotated[float | None, typer.Option(
        "--threshold", "-t", help="δ for tba/wba/gba/rba (default: the papers' mean).")] = None,
    seed: Annotated[int | None, typer.Option("--seed", min=0, help="Random seed for ra.")] = None,
    probability: Annotated[float | None, typer.Option(
        "--probability", help="ra: chance that each cell is eliminated (default 0.5).")] = None,
    json_out: Annotated[bool, typer.Option("--json", help="JSON on stdout.")] = False,
) -> None:
    """Eliminate the cells a method judges added by the generalisation.

    Exit codes: 0 done, 2 bad input or usage.
    """
    method = method.lower()
    if method not in _METHODS:
        raise typer.BadParameter(f"{method!r} is not one of {', '.join(_METHODS)}",
                                 param_hint="--method")
    if threshold is not None and method in ("mda", "ra"):
        raise typer.BadParameter(f"does not apply to {method}", param_hint="--threshold")
    if probability is not None and method != "ra":
        raise typer.BadParameter("only applies to ra", param_hint="--probability")
    if probability is not None and not 0.0 <= probability <= 1.0:
        raise typer.BadParameter("must lie between 0 and 1", param_hint="--probability")
    if seed is not None and method != "ra":
        raise typer.BadParameter("only applies to ra", param_hint="--seed")
    if threshold is not None and not math.isfinite(threshold):
        raise typer.BadParameter("must be a finite number", param_hint="--threshold")

    from semtui.attacks.setgen.eliminate import DEFAULT_PROBABILITY, eliminate

    corner, columns, rows, D = read_distance_table(table)
    result = eliminate(D, method, threshold=threshold, seed=seed,
                       probability=DEFAULT_PROBABILITY if probability is None else probability)
    if json_out:
        from semtui.cli.common import emit_json

        emit_json(result_json(table, columns, rows, result))
    else:
        _render(table, corner, columns, rows, D, result)


def read_distance_table(path: Path):
    """Parse a distance-table CSV: ``(corner, columns, rows, float array)``.

    Raises InputError naming the file and line for ragged rows, non-numbers, duplicate
    column labels or a table without data.
    """
    import csv

    import numpy as np

    from semtui.errors import InputError
    from semtui.fileio import read_text

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


def result_json(path: Path, columns: list[str], rows: list[str], result) -> dict:
    """The JSON document of ``table eliminate`` (keys are only ever added to)."""
    import numpy as np

    def num(x):
        return None if x is None or math.isnan(x) else float(x)

    eliminated = []
    for e in result.eliminations:
        eliminated.append({
            "step": e.step, "row": rows[e.row], "column": columns[e.col],
            "distance": float(e.distance), "weighted": float(e.weighted),
            "vulnerability": num(e.vulnerability), "group": _group_label(e.group, rows, columns),
            "row_index": e.row, "column_index": e.col,
        })
    kept = [{"row": rows[i], "column": columns[j], "row_index": int(i), "column_index": int(j)}
            for i, j in zip(*np.nonzero(result.live))]
    return {
        "format": FORMAT,
        "file": str(path),
        "method": result.method,
        "threshold": num(result.threshold),
        "rows": rows,
        "columns": columns,
        "eliminated": eliminated,
        "kept": kept,
    }


def _group_label(group: str | None, rows: list[str], columns: list[str]) -> str | None:
    """'row 2' -> 'row gangrene', 'col 1' -> 'column icd'."""
    if group is None:
        return None
    kind, _, index = group.partition(" ")
    k = int(index)
    return f"row {rows[k]}" if kind == "row" else f"column {columns[k]}"


def _fmt(x: float) -> str:
    return f"{x:.2f}" if abs(x) < 1e4 else f"{x:.3g}"


def _render(path: Path, corner: str, columns: list[str], rows: list[str], D, result) -> None:
    """Draw the table with eliminated cells marked ``✗<step>`` (visible without colour).

    Built as one rich ``Text`` rather than a rich ``Table``: a table measures every cell
    and takes about a second for the 800-row tables real equivalence groups give.
    """
    import numpy as np
    from rich.text import Text

    from semtui.cli.common import stdout_console

    step = np.zeros(D.shape, dtype=np.int64)
    for e in result.eliminations:
        step[e.row, e.col] = e.step
    cells = [[_cell(D[i, j], step[i, j]) for j in range(len(columns))] for i in range(len(rows))]
    label_w = max([len(corner)] + [len(r) for r in rows])
    widths = [max([len(name)] + [len(row[j]) for row in cells]) for j, name in enumerate(columns)]

    out = Text()
    threshold = "" if result.threshold is None else f", δ = {result.threshold:.3f}"
    out.append(f"{result.method.upper()} on {path}{threshold}: "
               f"{len(result.eliminations)} of {int((~np.isnan(D)).sum())} cells eliminated\n",
               style="bold")
    out.append(corner.ljust(label_w), style="bold")
    for name, w in zip(columns, widths):
        out.append("  " + name.rjust(w), style="bold")
    out.append("\n" + "─" * (label_w + sum(w + 2 for w in widths)) + "\n", style="dim")
    for i, label in enumerate(rows):
        out.append(label.ljust(label_w))
        for j, w in enumerate(widths):
            text = cells[i][j]
            style = "bold red" if step[i, j] else ("dim" if text == "·" else None)
            out.append("  " + text.rjust(w), style=style)
        out.append("\n")
    if result.eliminations:
        grouped = result.eliminations[0].vulnerability is not None
        out.append("\neliminations\n", style="bold")
        for e in result.eliminations:
            out.append(f"✗{e.step:<4} ", style="red")
            out.append(f"{rows[e.row]} / {columns[e.col]}: distance {_fmt(e.distance)}, "
                       f"weighted {e.weighted:.3f}")
            if grouped:
                out.append(f", chosen by {_group_label(e.group, rows, columns)} "
                           f"(vulnerability {e.vulnerability:.3f})")
            out.append("\n")
    out.append("✗n: eliminated at step n   ·: missing distance", style="dim")
    stdout_console().print(out, soft_wrap=True)


def _cell(x: float, step: int) -> str:
    if math.isnan(x):
        return "·"
    return f"✗{step} {_fmt(x)}" if step else _fmt(x)
