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



@app.command("eliminate")
def eliminate_cmd(
    table: Annotated[Path, typer.Argument(
        help="Distance table as CSV: corner label + member items, then one row per "
             "context (empty cell = missing).")],
    method: Annotated[str, typer.Option(
        "--method", "-m", help="mda, tba, wba, gba, rba, ra (random baseline) or pba (the table as surprisals).")] = "rba",
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
    from semtui.attacks.setgen.eliminate import TableEliminationReport, eliminate
    from semtui.cli.common import emit_json, options_error
    from semtui.errors import InputError
    from semtui.formats.distance_table import read_distance_table

    for option, value in (("seed", seed), ("probability", probability)):
        if value is not None and method.lower() != "ra":  # the engine ignores them; a user means something
            raise options_error(InputError("only applies to ra", option=option))
    corner, columns, rows, D = read_distance_table(table)
    try:
        result = eliminate(D, method, threshold=threshold, seed=seed,
                           probability=probability)
    except InputError as exc:
        raise options_error(exc) from None
    report = TableEliminationReport(str(table), columns, rows, result)
    if json_out:
        emit_json(report)
    else:
        _render(report, corner, D)


def _fmt(x: float) -> str:
    return f"{x:.2f}" if abs(x) < 1e4 else f"{x:.3g}"


def _render(report, corner: str, D) -> None:
    """Draw the table with eliminated cells marked ``✗<step>`` (visible without colour).

    Built as one rich ``Text`` rather than a rich ``Table``: a table measures every cell
    and takes about a second for the 800-row tables real equivalence groups give.
    """
    import numpy as np
    from rich.text import Text

    from semtui.cli.common import stdout_console

    path, columns, rows, result = report.file, report.columns, report.rows, report.result
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
                out.append(f", chosen by {report.group_name(e.group)} "
                           f"(vulnerability {e.vulnerability:.3f})")
            out.append("\n")
    out.append("✗n: eliminated at step n   ·: missing distance", style="dim")
    stdout_console().print(out, soft_wrap=True)


def _cell(x: float, step: int) -> str:
    if math.isnan(x):
        return "·"
    return f"✗{step} {_fmt(x)}" if step else _fmt(x)
